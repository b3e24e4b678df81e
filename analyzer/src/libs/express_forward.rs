//! Middleware that hands the request to a router: `app.use((req, res, next)
//! => router(req, res, next))`, `app.use(function (req, res, next) {
//! api.handle(req, res, next) })`.
//!
//! An Express app or router is itself a function `(req, res, next)` (and has
//! `handle(req, res, next)`), so middleware that calls one with the request,
//! the response and `next` it received runs that router where the middleware
//! is mounted, with the path the mount left in `req.url`: the router is
//! mounted there, as `app.use(router)` would mount it. Programs write it so
//! to swap the router at run time (`let router; app.use((req, res, next) =>
//! router(req, res, next)); router = setupRouter; … router =
//! require('./routing')` once start-up is done), so the name is read when
//! the entries have run, from the function's own scope, as Express reads it
//! at request time: whatever router the name holds then is mounted. When it
//! already holds a router where `use` is called, that one is mounted at once,
//! and replaced by the one it holds once the entries have run when they
//! swapped it (`this.#apiRouter = express.Router()` in a field, a setter
//! assigning the router the program builds later).
//!
//! Captures: the calls the function makes as a statement or a `return`, in
//! its body or inside `if`/`else`, blocks and `try`, whose first arguments are
//! its own first two (and third, when passed) parameters in order, and whose
//! callee is a name or a member chain on a name or `this` (`router`,
//! `this.router`, `api.handle`). Deliberately not here: a callee computed by
//! a call (`pick(req)(req, res, next)`), a router the name held only before
//! the entries finished (the start-up router swapped out is not charted), and
//! a forwarder given to a route verb rather than `use`.

use crate::machine::*;

/// A forwarding function given to `use` whose callee held no router yet:
/// the app or router it was given to, the registration's index in its list,
/// the function and the callees to read once the entries have run.
pub(crate) struct Forwarder {
    owner: u32,
    reg: usize,
    name: String,
    func: Rc<Closure>,
    callees: Vec<Expr>,
    /// The router the callee held where `use` was called (mounted then).
    held: Option<u32>,
}

/// A forwarder found in a `use` call's handlers: its name, the function,
/// its callees and the router they held there.
type Found = (String, Rc<Closure>, Vec<Expr>, Option<u32>);

/// Forwarders found while one `use` call's handlers were read, before the
/// registration exists (see [`Interp::forwarders_registered`]).
#[derive(Default)]
pub(crate) struct Forwarding {
    pending: Vec<Forwarder>,
    this_use: Vec<Found>,
}

impl Interp {
    /// The router a forwarding function hands the request to, when its callee
    /// holds one now; otherwise the function is kept to be read again once
    /// the entries have run (see [`Interp::forwarded_mounts`]). `None` for a
    /// function that forwards to nothing.
    pub(crate) fn forwarded_router(&mut self, name: &str, v: &Value) -> Option<u32> {
        let Value::Func(c) = v else {
            return None;
        };
        let callees = forward_callees(&c.func.params, &c.func.body);
        if callees.is_empty() {
            return None;
        }
        let held = self.callee_router(c, &callees);
        self.libs
            .forwarding
            .this_use
            .push((name.to_string(), c.clone(), callees, held));
        held
    }

    /// The `use` call whose handlers were just read was registered as the
    /// last registration of `owner` (or not at all, `registered` false):
    /// keep its forwarders with their place.
    pub(crate) fn forwarders_registered(&mut self, owner: u32, registered: bool) {
        let found = std::mem::take(&mut self.libs.forwarding.this_use);
        if !registered {
            return;
        }
        let Some(reg) = self.rec.routers[owner as usize].regs.len().checked_sub(1) else {
            return;
        };
        for (name, func, callees, held) in found {
            self.libs.forwarding.pending.push(Forwarder {
                owner,
                reg,
                name,
                func,
                callees,
                held,
            });
        }
    }

    /// Once the entries have run: each forwarding function whose callee now
    /// holds a router mounts that router in its place, also in place of the
    /// one it held where `use` was called (swapped out by then: `set
    /// apiRouter(r) { this.#apiRouter = r }`), which stays mounted only
    /// where some other `use` mounts it.
    pub(crate) fn forwarded_mounts(&mut self) {
        let pending = std::mem::take(&mut self.libs.forwarding.pending);
        for f in pending {
            let Some(r) = self.callee_router(&f.func, &f.callees) else {
                continue;
            };
            if f.held == Some(r) {
                continue;
            }
            let Some(reg) = self.rec.routers[f.owner as usize].regs.get_mut(f.reg) else {
                continue;
            };
            let RegKind::Use { handlers, .. } = &mut reg.kind else {
                continue;
            };
            let Some(slot) = handlers.iter_mut().find(|h| match (h, f.held) {
                (UseHandler::Router(x), Some(held)) => *x == held,
                (UseHandler::Middleware(n, _), None) => *n == f.name,
                _ => false,
            }) else {
                continue;
            };
            *slot = UseHandler::Router(r);
            self.rec.routers[r as usize].mounted = true;
            if let Some(old) = f.held {
                let still = self.rec.routers.iter().any(|d| {
                    d.regs.iter().any(|g| {
                        matches!(&g.kind, RegKind::Use { handlers, .. }
                            if handlers.iter().any(|h| matches!(h, UseHandler::Router(x) if *x == old)))
                    })
                });
                self.rec.routers[old as usize].mounted = still;
            }
        }
    }

    /// The first router one of `callees` holds, read in the function's scope.
    fn callee_router(&mut self, c: &Rc<Closure>, callees: &[Expr]) -> Option<u32> {
        let ctx = Ctx {
            file: c.file,
            scope: c.env.clone(),
            this: c.this.clone().unwrap_or(Value::Undef),
            home: c.home.clone(),
        };
        for e in callees {
            let v = self.eval(&ctx, e);
            if let Value::Router(r) = self.force_deep(v) {
                return Some(r);
            }
        }
        None
    }
}

/// The callees a function with parameters `(req, res[, next])` hands its own
/// request and response to, as statements or returns of its body (see the
/// module's doc); `x.handle` gives `x`.
fn forward_callees(params: &[Pattern], body: &[Stmt]) -> Vec<Expr> {
    let names: Vec<&str> = params
        .iter()
        .map_while(|p| match p {
            Pattern::Ident(n) => Some(n.as_str()),
            _ => None,
        })
        .collect();
    if names.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    walk(body, &names, &mut out, 0);
    out
}

fn walk(body: &[Stmt], params: &[&str], out: &mut Vec<Expr>, depth: u32) {
    if depth > 4 {
        return;
    }
    for st in body {
        match st {
            Stmt::Expr(e) | Stmt::Return(Some(e)) => {
                if let Some(c) = forwarding_call(e, params) {
                    out.push(c);
                }
            }
            Stmt::If(_, _, a, b, _) => {
                walk(a, params, out, depth + 1);
                walk(b, params, out, depth + 1);
            }
            Stmt::Block(b) => walk(b, params, out, depth + 1),
            Stmt::Try(b, _, _, fin) => {
                walk(b, params, out, depth + 1);
                walk(fin, params, out, depth + 1);
            }
            _ => {}
        }
    }
}

/// `x(req, res, next)` or `x.handle(req, res, next)` with the function's own
/// parameters: the callee `x`.
fn forwarding_call(e: &Expr, params: &[&str]) -> Option<Expr> {
    let e = match e {
        Expr::Await(inner) => inner,
        e => e,
    };
    let Expr::Call(call) = e else {
        return None;
    };
    if call.args.len() < 2 || call.args.len() > params.len() {
        return None;
    }
    let own = call
        .args
        .iter()
        .zip(params)
        .all(|(a, p)| matches!(a, Expr::Ident(n) if n == p));
    if !own {
        return None;
    }
    let callee = match &call.callee {
        Expr::Member(base, m) if m == "handle" => base.as_ref(),
        c => c,
    };
    plain_chain(callee, params).then(|| callee.clone())
}

/// A name that is not a parameter, `this`, or a member chain on one.
fn plain_chain(e: &Expr, params: &[&str]) -> bool {
    match e {
        Expr::Ident(n) => !params.contains(&n.as_str()),
        Expr::This => true,
        Expr::Member(base, _) => plain_chain(base, params),
        _ => false,
    }
}
