//! What an Express handler's syntax says about answering, for the judgements
//! the run alone cannot make: whether a function mounted with `use` ends every
//! request it gets ([`answers_alone`]), and whether a route handler that
//! passes some requests on answers the others in a callback the run did not
//! follow ([`answers_later`]: `if (!x) return next(); db.find(q, (e, d) =>
//! res.json(d))`). Only the text is read: a function that answers through a
//! helper it calls by another name, with `res` out of sight, is not seen.

use crate::ir::{Expr, Func, ObjProp, Pattern, Stmt};
use crate::libs::socketio_syntax::{any_expr, any_expr_in, each_stmt};
use std::cell::Cell;

/// The methods of `res` that send an answer.
pub(crate) const SENDS: &[&str] = &[
    "send",
    "json",
    "jsonp",
    "end",
    "render",
    "redirect",
    "sendFile",
    "sendStatus",
    "download",
    "write",
    "writeHead",
];

/// The name a parameter binds (`res`, `res = x`), if it is a plain name.
pub(crate) fn param_name(p: Option<&Pattern>) -> Option<&str> {
    match p? {
        Pattern::Ident(n) => Some(n),
        Pattern::Default(p, _) => match p.as_ref() {
            Pattern::Ident(n) => Some(n),
            _ => None,
        },
        _ => None,
    }
}

/// How many of a call's arguments are the name `n` itself (`f(req, res,
/// next)` hands `next` once).
pub(crate) fn handed(c: &crate::ir::Call, n: &str) -> usize {
    c.args
        .iter()
        .filter(|a| matches!(a, Expr::Ident(x) if x == n))
        .count()
}

/// `res`, `res.status(200)`, `res.set(h).status(s)`: an expression built on `res`.
pub(crate) fn rooted_at(e: &Expr, res: &str) -> bool {
    match e {
        Expr::Ident(x) => x == res,
        Expr::Member(o, _) => rooted_at(o, res),
        Expr::Call(c) => rooted_at(&c.callee, res),
        _ => false,
    }
}

/// Whether a function mounted with `use` evidently ends every request it
/// gets: it takes `(req, res)` or `(req, res, next)` and never mentions
/// `next` (nor `arguments`), so it cannot pass the request on, and it
/// answers: it calls a method of `res` that sends (`send`, `json`, `end`,
/// `status(...).json`, ...) or hands `res` to another function
/// (`transport.handleRequest(req, res)`, `stream.pipe(res)`). An error
/// handler (four parameters) or a function without `res` is not one.
pub(crate) fn answers_alone(f: &Func) -> bool {
    answers(f, false, &|_| false)
}

/// [`answers_alone`], where `next` may also be handed to the functions
/// `ignores_next` says never use a `next` they are given (`handler(req, res,
/// next)` calling a wrapped `async (req) => …`): `wrap(fn)`'s function that
/// answers with what `fn` returns.
pub(crate) fn answers_alone_with(f: &Func, ignores_next: &dyn Fn(&str) -> bool) -> bool {
    answers(f, false, ignores_next)
}

/// Whether `f`, an async wrapper's function (`fn => (req, res, next) =>
/// Promise.resolve(fn(req, res, next)).catch(next)`), ends every request it
/// gets: it hands `next` only to `.catch(…)` (the error path, which skips to
/// the error handlers, never to the next route) and to functions `wrapped`
/// gives for a called name that answer alone ([`answers_alone`]: they never
/// mention their `next`), one of which it hands `res`.
pub(crate) fn wrapper_answers_alone(f: &Func, wrapped: &dyn Fn(&str) -> Option<bool>) -> bool {
    if f.params.len() != 3 || f.rest {
        return false;
    }
    let (Some(res), Some(next)) = (param_name(f.params.get(1)), param_name(f.params.get(2))) else {
        return false;
    };
    let mentions = Cell::new(0usize);
    let accounted = Cell::new(0usize);
    let answers = Cell::new(false);
    any_expr(&f.body, &|e| {
        match e {
            Expr::Ident(x) if x == next => mentions.set(mentions.get() + 1),
            Expr::Ident(x) if x == "arguments" => mentions.set(usize::MAX / 2),
            Expr::Call(c) => {
                let handed = |n: &str| handed(c, n);
                match &c.callee {
                    Expr::Member(_, m) if m == "catch" => {
                        accounted.set(accounted.get() + handed(next));
                    }
                    Expr::Ident(g) if wrapped(g) == Some(true) => {
                        accounted.set(accounted.get() + handed(next));
                        if handed(res) > 0 {
                            answers.set(true);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        false
    });
    answers.get() && mentions.get() == accounted.get()
}

/// Whether a function mounted with `use` may answer a request it gets, as
/// [`answers_alone`] says, though it may also pass it on (`if (!req.places)
/// return next(); res.json(…)`), by a send that is not a refusal or a
/// redirect (`res.status(code).json(body)`, not `res.sendStatus(403)`).
pub(crate) fn may_answer(f: &Func) -> bool {
    answers(f, true, &|_| false)
}

fn answers(f: &Func, may_pass: bool, ignores_next: &dyn Fn(&str) -> bool) -> bool {
    if f.params.len() < 2 || f.params.len() > 3 || f.rest {
        return false;
    }
    let Some(res) = param_name(f.params.get(1)) else {
        return false;
    };
    let next = match f.params.get(2) {
        None => None,
        Some(p) => match param_name(Some(p)) {
            Some(n) => Some(n),
            None => return false,
        },
    };
    let mentions = |n: &str| any_expr(&f.body, &|e| matches!(e, Expr::Ident(x) if x == n));
    if !may_pass
        && (next.is_some_and(|n| mentions(n) && !next_only_on_errors(&f.body, n, ignores_next))
            || mentions("arguments"))
    {
        return false;
    }
    // (One that may pass on answers only by a send that is not a refusal
    // or a redirect: a guard's `res.sendStatus(403)` is not an answer.)
    any_expr(&f.body, &|e| match e {
        Expr::Call(c) => {
            matches!(&c.callee, Expr::Member(o, m) if SENDS.contains(&m.as_str()) && rooted_at(o, res)
                && !(may_pass && (m == "redirect" || refuses(e))))
                || c.args
                    .iter()
                    .any(|a| matches!(a, Expr::Ident(x) if x == res))
        }
        _ => false,
    })
}

/// Whether every mention of `next` in the statements hands it an error,
/// which skips the routes after it for the error handlers (Express): the
/// error a `catch` clause caught (`catch (e) { next(e) }`, `.catch(e =>
/// next(e))`), a new one (`next(new HttpError(…))`), or `next` as a
/// promise's rejection handler (`.catch(next)`). A function that only does
/// that never passes a request on. (`next(err)` with an `err` a callback
/// was given may be `null`, which passes on: not one of these.) A call of
/// a function `ignores_next` names that is handed `next` does not pass it on
/// either.
pub(crate) fn next_only_on_errors(
    stmts: &[Stmt],
    next: &str,
    ignores_next: &dyn Fn(&str) -> bool,
) -> bool {
    let total = Cell::new(0usize);
    let accounted = Cell::new(0usize);
    let calls_with = |e: &Expr, arg: &dyn Fn(&Expr) -> bool| {
        matches!(e, Expr::Call(c) if matches!(&c.callee, Expr::Ident(x) if x == next)
            && c.args.len() == 1 && arg(&c.args[0]))
    };
    // `next(<the caught error>)` calls in `body`.
    let caught = |body: &[Stmt], p: Option<&Pattern>| {
        if let Some(err) = param_name(p) {
            any_expr(body, &|e| {
                if calls_with(e, &|a| matches!(a, Expr::Ident(x) if x == err)) {
                    accounted.set(accounted.get() + 1);
                }
                false
            });
        }
    };
    any_expr(stmts, &|e| {
        match e {
            Expr::Ident(x) if x == next => total.set(total.get() + 1),
            Expr::Call(_) if calls_with(e, &|a| matches!(a, Expr::New(..))) => {
                accounted.set(accounted.get() + 1);
            }
            Expr::Call(c) if matches!(&c.callee, Expr::Ident(g) if ignores_next(g)) => {
                accounted.set(accounted.get() + handed(c, next));
            }
            Expr::Call(c) if matches!(&c.callee, Expr::Member(_, m) if m == "catch") => {
                match c.args.first() {
                    Some(Expr::Ident(x)) if x == next => accounted.set(accounted.get() + 1),
                    Some(Expr::Func(g)) => caught(&g.body, g.params.first()),
                    _ => {}
                }
            }
            _ => {}
        }
        false
    });
    let mut handlers = Vec::new();
    each_stmt(stmts, &mut |s| {
        if let Stmt::Try(_, crate::ir::Catch::Bound(p), b, _) = s {
            handlers.push((b.as_slice(), Some(p)));
        }
    });
    for (body, p) in handlers {
        caught(body, p);
    }
    // A function of the body that wraps `next` (`const wrappedNext = (err)
    // => { called = true; next(err) }`) and is only ever handed to functions
    // that ignore a `next` they are given never calls it.
    for st in stmts {
        let (w, g) = match st {
            Stmt::Function(w, g) => (w.as_str(), g.as_ref()),
            Stmt::Var(decls) => match decls.as_slice() {
                [(Pattern::Ident(w), Some(Expr::Func(g)))] => (w.as_str(), g.as_ref()),
                _ => continue,
            },
            _ => continue,
        };
        let inside = Cell::new(0usize);
        any_expr(&g.body, &|e| {
            if matches!(e, Expr::Ident(x) if x == next) {
                inside.set(inside.get() + 1);
            }
            false
        });
        if inside.get() == 0 {
            continue;
        }
        let (uses, given) = (Cell::new(0usize), Cell::new(0usize));
        any_expr(stmts, &|e| {
            match e {
                Expr::Ident(x) if x == w => uses.set(uses.get() + 1),
                Expr::Call(c) if matches!(&c.callee, Expr::Ident(h) if ignores_next(h)) => {
                    given.set(given.get() + handed(c, w));
                }
                _ => {}
            }
            false
        });
        if uses.get() == given.get() {
            accounted.set(accounted.get() + inside.get());
        }
    }
    total.get() > 0 && total.get() == accounted.get()
}

/// Whether a route handler `(req, res, next)` may answer, other than by
/// refusing, inside a function it hands on (a callback, a `.then`), which
/// the run of the handler does not follow: a callback that sends on `res`
/// without an error status (`res.json(d)`, `res.send()`; not
/// `res.status(401).json(…)`, `res.sendStatus(404)`, nor `res.redirect(…)` in
/// a callback that also calls `next`, how a guard sends a visitor to log in),
/// or that hands `res` to a function
/// (`setVerify({ email, res })`, `render(req, res)`). A callback that binds
/// its own `res` (`fetch(u).then((res) => res.json())`) is another scope.
/// A function the handler declares (`function render() { res.render(…) }`,
/// handed on by name) is such a callback too.
pub(crate) fn answers_later(f: &Func) -> bool {
    let Some(res) = param_name(f.params.get(1)) else {
        return false;
    };
    let next = param_name(f.params.get(2));
    let own_scope = |g: &Func| !g.params.iter().any(|p| param_name(Some(p)) == Some(res));
    let answers = |e: &Expr, redirects: bool| match e {
        Expr::Call(c) => match &c.callee {
            Expr::Member(o, m) if rooted_at(o, res) => {
                SENDS.contains(&m.as_str()) && (redirects || m != "redirect") && !refuses(e)
            }
            _ => c.args.iter().any(|a| hands_on(a, res)),
        },
        _ => false,
    };
    // A redirect answers in a callback that never passes the request on
    // (`req.user.save(() => res.redirect('/game'))`); beside a `next()` it
    // is a guard's (`if (!user) return res.redirect('/login'); next()`).
    let calls_next =
        |g: &Func| next.is_some_and(|n| crate::libs::socketio_syntax::calls_name(&g.body, n));
    let answers_in = |g: &Func| {
        let redirects = !calls_next(g);
        own_scope(g) && any_expr_in(&g.body, &|e| answers(e, redirects), &own_scope)
    };
    any_expr_in(
        &f.body,
        &|e| matches!(e, Expr::Func(g) if answers_in(g)),
        &own_scope,
    ) || declared_funcs(&f.body).into_iter().any(answers_in)
}

/// The functions `stmts` declare (`function render() { … }`, hoisted), in
/// their blocks and branches too, not inside nested functions.
fn declared_funcs(stmts: &[Stmt]) -> Vec<&Func> {
    let mut out = Vec::new();
    each_stmt(stmts, &mut |s| {
        if let Stmt::Function(_, g) = s {
            out.push(g.as_ref());
        }
    });
    out
}

/// Whether `f`'s body uses a name it does not bind as a parameter that
/// `outer` accepts (a callback written in a route that closes over the
/// route's `res` or `next`, or over another such callback: `function (err,
/// room) { if (!room) return res.sendStatus(404); next(); }`, `() =>
/// cb(null, room)`). Names a nested function rebinds are its own.
pub(crate) fn uses_outer(f: &Func, outer: &dyn Fn(&str) -> bool) -> bool {
    let binds = |g: &Func, x: &str| g.params.iter().any(|p| param_name(Some(p)) == Some(x));
    any_expr_in(
        &f.body,
        &|e| matches!(e, Expr::Ident(x) if !binds(f, x) && outer(x)),
        &|_| true,
    )
}

/// `res`, or an object literal carrying it (`{ email, res }`).
fn hands_on(a: &Expr, res: &str) -> bool {
    match a {
        Expr::Ident(x) => x == res,
        Expr::Object(props) => props
            .iter()
            .any(|p| matches!(p, ObjProp::KeyValue(_, Expr::Ident(x)) if x == res)),
        _ => false,
    }
}

/// A send whose chain states an error status: `res.status(401).json(…)`,
/// `res.sendStatus(404)`.
pub(crate) fn refuses(e: &Expr) -> bool {
    let error = |args: &[Expr]| matches!(args.first(), Some(Expr::Num(n)) if *n >= 400.0);
    let mut cur = e;
    loop {
        match cur {
            Expr::Call(c) => {
                if let Expr::Member(o, m) = &c.callee {
                    if (m == "status" || m == "sendStatus") && error(&c.args) {
                        return true;
                    }
                    cur = o;
                } else {
                    return false;
                }
            }
            Expr::Member(o, _) => cur = o,
            _ => return false,
        }
    }
}

/// Why a function mounted with `use` is kept as middleware rather than
/// charted as an endpoint ([`answers_alone`]), in words for a finding.
pub(crate) fn why_middleware(f: &Func) -> &'static str {
    if f.params.len() == 4 {
        return "an error handler";
    }
    let next = param_name(f.params.get(2));
    let mentions = |n: &str| any_expr(&f.body, &|e| matches!(e, Expr::Ident(x) if x == n));
    if next.is_some_and(mentions) || mentions("arguments") {
        if may_answer(f) {
            "may answer, but may also pass the request on with `next`"
        } else {
            "passes the request on with `next`, sending nothing on `res` itself"
        }
    } else {
        "never calls `next`, but sends nothing on `res` and hands `res` to no call the analysis reads (it may answer through an object that wraps `res`)"
    }
}
