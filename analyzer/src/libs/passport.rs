//! passport: what the middleware `passport.authenticate(...)` returns does
//! with a request that fails authentication.
//!
//! Captures: `passport.authenticate(strategy | [strategies], options?,
//! callback?)` gives a middleware that answers 401 itself when every
//! strategy fails (passport's default: `res.statusCode = 401` and the end of
//! the response, or `next(err)` with status 401 under `failWithError`).
//! Running that middleware notes the 401 on the route being read, so a
//! function that runs it is a guard ([`super::guards`]) whatever it is
//! called. It answers nothing itself when `options.failureRedirect`
//! redirects instead, when a callback decides what to answer, or when a
//! strategy that never fails (`anonymous`, from passport-anonymous) is among
//! those tried.
//!
//! Example: `const requireJwtAuth = (req, res, next) =>
//! passport.authenticate('jwt', { session: false })(req, res, next);` in
//! `router.use(requireJwtAuth)` makes the router's operations authenticated,
//! by `requireJwtAuth`.
//!
//! Deliberately not captured: what a strategy checks (the header or cookie
//! it reads), sessions and `passport.authorize`, options only known at run
//! time (then no 401 is assumed). An `Authenticator` made with `new`
//! (`new Authenticator()`, `new passport.Passport()`) is the module's value
//! again: the same methods, strategies registered on it (`use`) no routes.
//! `passport.authenticate()` written directly
//! in a chain is classified by its name (specgen's access rules).

use crate::ir::Expr;
use crate::machine::{Ctx, Interp};
use crate::value::{Builtin, Value};
use std::rc::Rc;

/// The member of the `passport` module this models (`MiddlewareFactory` name).
pub(crate) const AUTHENTICATE: &str = "passport.authenticate";

/// The class the module's value is an instance of, under both its names
/// (`Framework` name).
pub(crate) const AUTHENTICATOR: &str = "passport.Authenticator";

/// `passport.Authenticator` / `passport.Passport` (also as named imports).
pub(crate) fn member(module: &str, prop: &str) -> Option<Value> {
    match (module, prop) {
        ("passport", "Authenticator" | "Passport") => {
            Some(Value::Builtin(Builtin::Framework(Rc::from(AUTHENTICATOR))))
        }
        _ => None,
    }
}

/// `new Authenticator()`: an instance with the module value's behaviour.
pub(crate) fn construct(name: &str) -> Option<Value> {
    (name == AUTHENTICATOR).then(|| Value::Builtin(Builtin::OpaqueModule(Rc::from("passport"))))
}

/// Strategies that never fail: with one of them among those tried, the
/// middleware never answers 401.
const NEVER_FAIL: &[&str] = &["anonymous"];

impl Interp {
    /// `passport.authenticate(...)`: its middleware, which answers 401 when
    /// authentication fails unless the arguments hand the answer elsewhere.
    pub(crate) fn passport_authenticate(
        &mut self,
        ctx: &Ctx,
        argv: &[Value],
        args: &[Expr],
        line: u32,
    ) -> Value {
        self.run_callbacks(ctx, argv, args, line);
        let strategies: Vec<String> = match argv.first().map(|v| self.force_deep(v.clone())) {
            Some(Value::Arr(a)) => a.borrow().iter().filter_map(Value::as_text).collect(),
            Some(v) => v.as_text().into_iter().collect(),
            None => Vec::new(),
        };
        let rest: Vec<Value> = argv
            .iter()
            .skip(1)
            .map(|v| self.force(v.clone(), 0))
            .collect();
        let callback = rest.iter().any(|v| matches!(v, Value::Func(_)));
        // Options only known at run time may redirect.
        let may_redirect = match rest.first() {
            None | Some(Value::Func(_) | Value::Undef) => false,
            Some(Value::Obj(o)) => o
                .get("failureRedirect")
                .is_some_and(|v| !matches!(v, Value::Undef)),
            Some(_) => true,
        };
        let never_fails = strategies.iter().any(|s| NEVER_FAIL.contains(&s.as_str()));
        Value::Builtin(Builtin::PassportMiddleware(
            !callback && !may_redirect && !never_fails,
        ))
    }

    /// The middleware run with a request: a 401 on the route being read when
    /// it answers one (`denies`); a `next` written in place runs (passport
    /// calls it when authentication succeeds).
    pub(crate) fn passport_middleware(
        &mut self,
        ctx: &Ctx,
        denies: bool,
        argv: &[Value],
        args: &[Expr],
        line: u32,
    ) -> Value {
        if denies && let Some(c) = &self.running.route_contract {
            let mut c = c.borrow_mut();
            if !c.responses.iter().any(|r| r.0 == 401) {
                c.responses.push((401, None, ctx.file, line));
            }
        }
        self.run_callbacks(ctx, argv, args, line);
        Value::Undef
    }
}
