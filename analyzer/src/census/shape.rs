//! What Express accepts in a registration's arguments and what it returns:
//! the argument shapes the census takes for a path or a handler, and the
//! evidence that a registration-shaped call is not Express's.
//!
//! - Express refuses any handler that is not a function (or an array of
//!   them): `router.use()` and `Route.<verb>()` throw a `TypeError` for an
//!   object, a string, a number or a boolean. A `use` or verb call with such
//!   an argument after its path (`md.use(plugin, { label: false })`,
//!   `api.post(url, data, { src })`) is another library's method.
//! - An app's and a router's `use` and verb methods return the app or router
//!   itself. In a chain of calls, the links that return the same value are
//!   one receiver's (`unified().use(a).use(b)`, `app.use(h).get('/x', g)`):
//!   when a link of it is refused as above, or the value they return is
//!   then called with a method no app or router has
//!   (`indexes.use(name).search({ count: true })`, `.process(text)`), none
//!   of its links is an Express registration.

use super::VERBS;
use crate::ir::{Call, Expr, FileFacts, Func, Pattern, Stmt};
use std::collections::HashSet;

/// The HTTP methods Node knows (`http.METHODS`, lower-cased) beyond the
/// census's verbs: Express gives apps and routers a method for each.
const OTHER_HTTP_METHODS: &[&str] = &[
    "acl",
    "bind",
    "checkout",
    "connect",
    "copy",
    "link",
    "lock",
    "merge",
    "mkactivity",
    "mkcalendar",
    "mkcol",
    "move",
    "notify",
    "propfind",
    "proppatch",
    "purge",
    "query",
    "rebind",
    "report",
    "search",
    "source",
    "subscribe",
    "trace",
    "unbind",
    "unlink",
    "unlock",
    "unsubscribe",
];

/// The other methods of an Express app or router (and of the EventEmitter
/// an app is), callable on what `use` or a verb returned.
const APP_METHODS: &[&str] = &[
    "use",
    "route",
    "param",
    "all",
    "listen",
    "set",
    "enable",
    "disable",
    "enabled",
    "disabled",
    "engine",
    "render",
    "path",
    "handle",
    "init",
    "on",
    "once",
    "off",
    "emit",
    "addListener",
    "prependListener",
    "removeListener",
    "removeAllListeners",
    "listeners",
];

/// An argument Express refuses as a handler: a literal that is not a
/// function (object, string, template, number, boolean, `null`), or a
/// choice between such literals (`md.use(emoji, opts.short ? {} : { shortcuts: {} })`).
fn refused(e: &Expr) -> bool {
    match e {
        Expr::Cond(_, _, a, b) => refused(a) && refused(b),
        e => matches!(
            e,
            Expr::Object(_)
                | Expr::Str(_)
                | Expr::Template(..)
                | Expr::Num(_)
                | Expr::Bool(_)
                | Expr::Null
        ),
    }
}

/// Whether the arguments after a registration's path (`rest`) hold one
/// Express refuses as a handler.
pub(super) fn refuses_handlers(rest: &[Expr]) -> bool {
    rest.iter().any(refused)
}

/// The arguments of a `use` or verb call after its path: `use`'s path is
/// optional (a literal one), a verb's is its first argument.
pub(super) fn after_path<'a>(m: &str, args: &'a [Expr]) -> &'a [Expr] {
    let skip = if m == "use" {
        // (Express takes any string first as the path: `use('api', h)`.)
        usize::from(
            args.first()
                .is_some_and(|p| path_literal(p) || matches!(p, Expr::Str(_) | Expr::Template(..))),
        )
    } else {
        1
    };
    args.get(skip..).unwrap_or(&[])
}

/// Whether a call of `m` with `args` on what a registration returned could
/// be an app's or router's: one of its methods, and for an HTTP method a
/// path first (`app.use(h).search('/q', g)`, not `.search({ count: true })`)
/// and no handler Express refuses.
fn app_call(m: &str, args: &[Expr]) -> bool {
    let verb = VERBS.contains(&m) || OTHER_HTTP_METHODS.contains(&m);
    if verb {
        // (`app.get('env')`: one argument reads a setting.)
        return !args.first().is_some_and(|p| {
            matches!(
                p,
                Expr::Object(_) | Expr::Func(_) | Expr::Num(_) | Expr::Bool(_)
            )
        }) && !refuses_handlers(after_path(m, args));
    }
    if m == "use" {
        return !refuses_handlers(after_path(m, args));
    }
    APP_METHODS.contains(&m)
}

/// The calls of the chain whose outermost call is `top` (`a.use(x).use(y)`:
/// the `use(y)` call, then `use(x)`), outermost first, with their methods.
fn links(top: &Call) -> Vec<(&Call, &str)> {
    let mut out = Vec::new();
    let mut c = top;
    while out.len() < 64 {
        let Expr::Member(o, m) = &c.callee else { break };
        out.push((c, m.as_str()));
        let Expr::Call(inner) = &**o else { break };
        c = inner;
    }
    out
}

/// Note in `foreign` (by address) the `use` and verb calls of the chain
/// whose outermost call is `top` that are not Express registrations (see
/// the module doc): each run of `use`/verb links (they return their
/// receiver) is judged with the link that follows it.
pub(super) fn foreign_links(top: &Call, foreign: &mut HashSet<usize>) {
    let chain = links(top);
    if chain.len() < 2 {
        return;
    }
    let mut run: Vec<usize> = Vec::new();
    let mut bad = false;
    // Whether the run's receiver is what `route(p)` returned (its verbs
    // take handlers only).
    let mut routed = false;
    // Innermost first: the order the values flow in.
    for &(c, m) in chain.iter().rev() {
        let addr = std::ptr::from_ref(c) as usize;
        let registers = m == "use" || VERBS.contains(&m);
        if registers {
            bad |= if routed {
                refuses_handlers(&c.args)
            } else {
                !app_call(m, &c.args)
            };
            run.push(addr);
            continue;
        }
        if !run.is_empty() && (bad || !app_call(m, &c.args)) {
            foreign.extend(run.iter().copied());
        }
        run.clear();
        bad = false;
        routed = m == "route";
    }
    if bad {
        foreign.extend(run);
    }
}

/// Whether `recv` is what a `prepare(…)` call returned: a prepared SQL
/// statement (better-sqlite3's and `node:sqlite`'s `db.prepare(sql)`), whose
/// `get`/`all` run the query. No Express app or router is made that way.
pub(super) fn prepared_statement(recv: &Expr) -> bool {
    matches!(recv, Expr::Call(c) if matches!(&c.callee, Expr::Member(_, m) if m == "prepare"))
}

/// A literal Express path: `'/x'`, `'*'`, `` `/x/${y}` ``, `/re/`, `['/a', '/b']`.
pub(super) fn path_literal(e: &Expr) -> bool {
    match e {
        Expr::Str(s) => s.starts_with('/') || s == "*",
        Expr::Template(q, exprs) => q
            .first()
            .is_some_and(|s| s.starts_with('/') || (s.is_empty() && !exprs.is_empty())),
        Expr::Regex(_) => true,
        // A list with a literal path among names and templates (`['/',
        // PREFIX, `${PREFIX}/${KEY}`]`): Express matches each.
        Expr::Array(items) => {
            items.iter().any(path_literal)
                && items.iter().all(|i| {
                    path_literal(i)
                        || matches!(
                            i,
                            Expr::Ident(_) | Expr::Member(..) | Expr::Template(..) | Expr::Add(..)
                        )
                })
        }
        Expr::Add(a, _) => path_literal(a),
        _ => false,
    }
}

/// `prefix + 'segment'`: a name or member (or a sum of them) joined to a
/// string that reads as path segments (`'donations'`, `'block/:hash'`,
/// `'/x'`), not a URL or text.
pub(super) fn prefixed_segment(a: &Expr, b: &Expr) -> bool {
    fn prefix(e: &Expr) -> bool {
        match e {
            Expr::Ident(_) | Expr::Member(..) => true,
            Expr::Add(l, r) => prefix(l) && (prefix(r) || matches!(&**r, Expr::Str(_))),
            _ => false,
        }
    }
    let segment = |s: &str| {
        !s.is_empty()
            && !s.contains("://")
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "/:_-.*?()+".contains(c))
    };
    prefix(a)
        && match b {
            Expr::Str(s) => segment(s),
            Expr::Template(q, _) => q.first().is_some_and(|s| segment(s)),
            _ => false,
        }
}

pub(super) fn path_like(e: &Expr) -> bool {
    path_literal(e) || matches!(e, Expr::Ident(_) | Expr::Member(..))
}

/// `(...middlewares, handler)`: a spread list of middleware followed by a
/// handler, the way route tables are registered (`router.post(route.url,
/// ...middlewares, wrap(route.callback))`); a client call does not spread
/// arguments before its callback.
pub(super) fn spread_then_handler(rest: &[Expr]) -> bool {
    rest.iter()
        .position(|a| matches!(a, Expr::Spread(_)))
        .is_some_and(|i| rest[i + 1..].iter().any(handler_like))
}

/// A Node-style callback, error first (`function (err, value) {…}`): what a
/// cache's or a client's `get(key, store, cb)` takes. Express calls a route
/// handler with `(req, res, next)` and an error handler with four
/// parameters, so a function whose first parameter is named for an error
/// and that takes fewer than four is never one.
pub(super) fn node_callback(e: &Expr) -> bool {
    let Expr::Func(f) = e else { return false };
    f.params.len() < 4
        && matches!(f.params.first(), Some(Pattern::Ident(n)) if matches!(n.as_str(), "err" | "error" | "er"))
}

pub(super) fn handler_like(e: &Expr) -> bool {
    match e {
        Expr::Func(_) | Expr::Member(..) | Expr::Call(_) | Expr::Array(_) => true,
        Expr::Ident(n) => n != "undefined",
        Expr::Spread(_) => true,
        _ => false,
    }
}

/// `X.<verb>(…)` (not in a `route(p)` chain), when `e` is that call.
pub(super) fn promised_verb_call(e: &Expr) -> Option<&crate::ir::Call> {
    match e {
        Expr::Call(c) => match &c.callee {
            Expr::Member(recv, m)
                if VERBS.contains(&m.as_str()) && route_chain_path(recv).is_none() =>
            {
                Some(c)
            }
            _ => None,
        },
        _ => None,
    }
}

/// `X.route(p)` (possibly followed by verb calls): the path argument.
pub(super) fn route_chain_path(e: &Expr) -> Option<&Expr> {
    let mut e = e;
    for _ in 0..32 {
        let Expr::Call(c) = e else { return None };
        let Expr::Member(inner, m) = &c.callee else {
            return None;
        };
        if m == "route" {
            return c.args.first();
        }
        if !VERBS.contains(&m.as_str()) {
            return None;
        }
        e = inner;
    }
    None
}

/// The line of a default export that is a request handler (a function whose
/// first two parameters are named `req`/`request` and `res`/`response`, or
/// typed `NextApiRequest`; itself, a top-level function named by the
/// export, or one handed to a wrapper: `export default withAuth(handler)`),
/// or an h3 event handler (`export default defineEventHandler(…)`). A
/// file-based router serves such a module by its path (Next.js's
/// `pages/api/`, Nitro's `server/api/`); which files that is, the
/// accounting decides.
pub(super) fn default_handler(facts: &FileFacts) -> Option<u32> {
    fn handler(f: &Func) -> bool {
        let name = |i: usize| match f.params.get(i) {
            Some(Pattern::Ident(n)) => n.as_str(),
            Some(Pattern::Default(p, _)) => match p.as_ref() {
                Pattern::Ident(n) => n.as_str(),
                _ => "",
            },
            _ => "",
        };
        let typed = matches!(f.param_types.first(), Some(Some(crate::ir::TypeExpr::Ref(t, _))) if t == "NextApiRequest");
        typed || (matches!(name(0), "req" | "request") && matches!(name(1), "res" | "response"))
    }
    let named = |n: &str| {
        facts.body.iter().find_map(|st| {
            let st = match st {
                Stmt::ExportDecl(inner, _) => inner.as_ref(),
                st => st,
            };
            match st {
                Stmt::Function(m, f) if m == n => Some(f.clone()),
                Stmt::Var(decls) => decls.iter().find_map(|(p, e)| match (p, e) {
                    (Pattern::Ident(m), Some(Expr::Func(f))) if m == n => Some(f.clone()),
                    _ => None,
                }),
                _ => None,
            }
        })
    };
    fn find(
        e: &Expr,
        named: &dyn Fn(&str) -> Option<std::sync::Arc<Func>>,
        depth: u8,
    ) -> Option<u32> {
        match e {
            Expr::Func(f) if handler(f) => Some(f.line),
            Expr::Ident(n) => named(n).filter(|f| handler(f)).map(|f| f.line),
            Expr::Typed(e, _) => find(e, named, depth),
            // An h3 event handler (`export default defineEventHandler(async
            // (event) => …)`, or a program's own `definePermissionHandler(…)`
            // around one): Nitro's server routes.
            Expr::Call(c)
                if depth == 0
                    && matches!(&c.callee, Expr::Ident(n) if n == "eventHandler"
                        || (n.starts_with("define") && n.ends_with("Handler"))) =>
            {
                Some(c.line)
            }
            Expr::Call(c) if depth < 3 => c.args.iter().find_map(|a| find(a, named, depth + 1)),
            _ => None,
        }
    }
    facts.body.iter().find_map(|st| match st {
        Stmt::ExportDefault(e) => find(e, &named, 0),
        _ => None,
    })
}
