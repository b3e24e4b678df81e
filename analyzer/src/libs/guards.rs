//! Access from what guards do: a middleware that can end the request with
//! 401 or 403 makes the operations behind it authenticated, whatever it is
//! called.
//!
//! Captures: every middleware function the program puts in a chain (`use`
//! mounts and route arguments, not the final handler) runs once more on its
//! own with a request and a response; when it answers 401 or 403
//! (`res.status(401)`, `res.sendStatus(403)`, `next(createError(401))`,
//! `throw new HttpError(403)`, a `jwt.verify` in a `try` whose `catch`
//! answers 401, passport's `authenticate(...)` middleware run by the function
//! (`libs/passport.rs`) — whatever the contract reader records), it is a guard, named
//! as the chain names it, with the header it reads as its credential
//! (`authorization`, `x-api-key`). A route's own middleware that answers
//! 401/403 when the route runs is its guard even when the chain can only
//! call it `<anonymous>` ([`note_route_guard`]). NestJS guards are noted by
//! `nest_http` (`@UseGuards(AuthGuard('jwt'))`, project guard classes).
//!
//! Example: `const mustLogIn = (req, res, next) => req.session.user ? next() :
//! res.sendStatus(401)` in `app.use('/api', mustLogIn, api)` makes every
//! operation of `api` authenticated, by `mustLogIn`.
//!
//! Deliberately not captured: guards whose denial depends on values from
//! other middleware in ways the run cannot see (the status must be written
//! in the guard or a function it calls), and middleware from packages
//! (their names are classified by specgen's access rules).

use crate::machine::*;

/// A middleware that can deny a request.
#[derive(Clone, Debug)]
pub(crate) struct GuardInfo {
    /// The status it answers with (401 before 403).
    pub(crate) status: u16,
    /// Where it answers.
    pub(crate) file: FileId,
    pub(crate) line: u32,
    /// The request header it reads, when it reads one (`authorization`).
    pub(crate) credential: Option<String>,
}

/// Headers that carry credentials.
fn credential_header(h: &str) -> bool {
    h == "authorization"
        || h == "cookie"
        || h.contains("api-key")
        || h.contains("apikey")
        || h.contains("token")
        || h.contains("auth")
}

impl Interp {
    /// A middleware function seen in a chain, under the name the chain gives it.
    pub(crate) fn note_middleware(&mut self, name: &str, v: &Value) {
        if self.modes.event_mode || name == "<anonymous>" {
            return;
        }
        let key = match v {
            Value::Func(c) => (name.to_string(), c.file, c.func.id.to_string()),
            Value::Lazy(f, export) => (name.to_string(), *f, export.to_string()),
            _ => return,
        };
        if self.deferred.middleware_keys.insert(key) {
            self.deferred
                .middleware_seen
                .push((name.to_string(), v.clone()));
        }
    }

    /// A function a `use` chain can only call `<anonymous>`
    /// (`app.use('/api', (req, res, next) => ...)`): run on its own with the
    /// others, and a guard of the operations behind that `use` when it can
    /// deny; its key is (file, function id).
    pub(crate) fn note_anonymous_middleware(&mut self, c: &Rc<Closure>) {
        let seen = ("<anonymous>".to_string(), c.file, c.func.id.to_string());
        if self.modes.event_mode || !self.deferred.middleware_keys.insert(seen) {
            return;
        }
        self.deferred
            .anonymous_middleware
            .push(((c.file, c.func.id), Value::Func(c.clone())));
    }

    /// Run each middleware seen on its own; those that answer 401 or 403 are guards.
    pub(crate) fn probe_guards(&mut self) {
        let seen = std::mem::take(&mut self.deferred.middleware_seen);
        let anonymous = std::mem::take(&mut self.deferred.anonymous_middleware);
        self.with_mode(Mode::Events, true, |me| {
            for (name, v) in &seen {
                if me.rec.guards.contains_key(name) || me.js.steps > STEP_BUDGET {
                    continue;
                }
                if let Some(g) = me.probe_guard(v) {
                    me.rec.guards.insert(name.clone(), g);
                }
            }
            for (key, v) in &anonymous {
                if me.js.steps > STEP_BUDGET {
                    break;
                }
                if let Some(g) = me.probe_guard(v) {
                    me.rec.anonymous_guards.insert(*key, g);
                }
            }
        });
    }

    /// Runs the middleware `v` once on its own: what it denies with, when it
    /// can answer 401 or 403.
    fn probe_guard(&mut self, v: &Value) -> Option<GuardInfo> {
        let f = self.force_deep(v.clone());
        let Value::Func(c) = &f else {
            return None;
        };
        let contract = Rc::new(RefCell::new(RawContract::default()));
        let saved = self.running.route_contract.replace(contract.clone());
        self.run_as_handler(&f, c);
        self.running.route_contract = saved;
        let c = contract.borrow();
        let &(status, _, file, line) = c
            .responses
            .iter()
            .filter(|r| r.0 == 401 || r.0 == 403)
            .min_by_key(|r| (r.0, r.2, r.3))?;
        let credential = c
            .headers_read
            .iter()
            .find(|h| credential_header(h))
            .cloned();
        Some(GuardInfo {
            status,
            file,
            line,
            credential,
        })
    }
}

/// After a route's middleware `c` ran: when it added a 401/403 response,
/// the route has a guard, even one the chain cannot name
/// (`(req, res, next) => req.user ? next() : res.sendStatus(401)`).
pub(crate) fn note_route_guard(
    contract: &Rc<RefCell<RawContract>>,
    c: &Rc<Closure>,
    before: usize,
) {
    let mut k = contract.borrow_mut();
    if k.guard.is_some() {
        return;
    }
    let deny = k.responses[before.min(k.responses.len())..]
        .iter()
        .filter(|r| r.0 == 401 || r.0 == 403)
        .min_by_key(|r| (r.0, r.2, r.3))
        .map(|r| (r.0, r.2, r.3));
    if let Some((status, file, line)) = deny {
        let name = c.func.name.clone().unwrap_or_else(|| "<anonymous>".into());
        k.guard = Some((name, status, file, line));
    }
}
