//! What a file's top-level names are bound to: installed packages, the
//! HTTP frameworks other than Express, and the specifiers `require` calls name.

use crate::ir::{Expr, FileFacts, ObjProp, Pattern, PropKey, Stmt};

/// Top-level names bound to an installed package: `import x from 'p'`,
/// `import * as x from 'p'`, `const x = require('p')`, `const x = require('p')(...)`.
pub(crate) fn top_level_packages(facts: &FileFacts) -> Vec<(String, String)> {
    let package =
        |spec: &str| !(spec.starts_with('.') || spec.starts_with('/') || spec.starts_with("@/"));
    let mut out = Vec::new();
    for st in &facts.body {
        match st {
            Stmt::Import(imp) if package(&imp.source) => {
                for n in imp.default.iter().chain(&imp.namespace) {
                    out.push((n.clone(), imp.source.clone()));
                }
            }
            Stmt::Var(decls) => {
                for (p, e) in decls {
                    let (Pattern::Ident(n), Some(e)) = (p, e) else {
                        continue;
                    };
                    if let Some(spec) = required(e)
                        && package(spec)
                    {
                        out.push((n.clone(), spec.to_string()));
                    } else if let Some(spec) = made_by(e, &out) {
                        // `const app = fastify()`, `const app = new Koa()`:
                        // an instance of what the package makes.
                        out.push((n.clone(), spec));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The names a file binds at its top level to members of packages
/// (`import { mount } from 'kit'`, `const { install: setup } = require('kit')`),
/// with the package: (local name, specifier).
pub(crate) fn named_package_imports(facts: &FileFacts) -> Vec<(String, String)> {
    let package =
        |spec: &str| !(spec.starts_with('.') || spec.starts_with('/') || spec.starts_with("@/"));
    let mut out = Vec::new();
    for st in &facts.body {
        match st {
            Stmt::Import(imp) if package(&imp.source) && !imp.type_only => {
                for (_, local) in &imp.named {
                    out.push((local.clone(), imp.source.clone()));
                }
            }
            Stmt::Var(decls) => {
                for (p, e) in decls {
                    let (Pattern::Object(props, _), Some(e)) = (p, e) else {
                        continue;
                    };
                    let Some(spec) = required(e).filter(|s| package(s)) else {
                        continue;
                    };
                    for (_, p) in props {
                        let p = match p {
                            Pattern::Default(inner, _) => inner,
                            p => p,
                        };
                        if let Pattern::Ident(n) = p {
                            out.push((n.clone(), spec.to_string()));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The package whose top-level name `e` calls or constructs (`fastify()`,
/// `new Koa()`, `Fastify({ logger })`, `new Hono().basePath('/x')`).
pub(super) fn made_by(e: &Expr, bound: &[(String, String)]) -> Option<String> {
    let root = |callee: &Expr| -> Option<String> {
        let mut c = callee;
        while let Expr::Member(o, _) = c {
            c = o;
        }
        match c {
            Expr::Ident(n) => bound.iter().find(|(b, _)| b == n).map(|(_, p)| p.clone()),
            _ => None,
        }
    };
    match e {
        Expr::Call(c) => match &c.callee {
            Expr::Member(o, _) if matches!(**o, Expr::Call(_) | Expr::New(..)) => made_by(o, bound),
            callee => root(callee),
        },
        Expr::New(callee, _, _) => root(callee),
        Expr::Await(o) => made_by(o, bound),
        _ => None,
    }
}

/// The HTTP framework other than Express a file imports, when it imports
/// none that can make an Express app or router.
pub(super) fn other_framework(facts: &FileFacts) -> Option<String> {
    let mut specs: Vec<&str> = facts.static_sources().collect();
    specs.extend(facts.eager.iter().map(String::as_str));
    specs.extend(
        facts
            .fn_imports
            .iter()
            .flat_map(|(_, v)| v.iter().map(String::as_str)),
    );
    if specs.iter().any(|s| routing_package(s)) {
        return None;
    }
    specs
        .into_iter()
        .find(|s| OTHER_FRAMEWORKS.contains(s))
        .map(str::to_string)
}

/// `require('p')`, `require('p')(...)`, `require('p').x`, and TypeScript's
/// emitted `__importDefault(require('p'))` / `__importStar(require('p'))`:
/// the specifier.
pub(super) fn required(e: &Expr) -> Option<&str> {
    match e {
        Expr::Call(c) => match (&c.callee, c.args.first()) {
            (Expr::Ident(r), Some(Expr::Str(s))) if r == "require" => Some(s),
            (Expr::Ident(h), Some(a)) if h == "__importDefault" || h == "__importStar" => {
                required(a)
            }
            (callee, _) => required(callee),
        },
        Expr::Member(o, _) | Expr::Await(o) => required(o),
        _ => None,
    }
}

/// Names HTTP clients go by in a receiver (`this.axios.patch(...)`,
/// `this.$http.get(...)`, `httpClient.post(...)`): a name rule, like the
/// Socket.IO one, for calls whose receiver the evaluation did not see.
pub(super) const HTTP_CLIENTS: &[&str] = &[
    "axios",
    "$axios",
    "$http",
    "httpClient",
    "HttpClient",
    "superagent",
    "got",
    "ky",
];

/// HTTP frameworks other than Express: their apps and routers have verb and
/// `use` methods too, but what they serve is not an Express app's.
pub(super) const OTHER_FRAMEWORKS: &[&str] = &[
    "fastify",
    "koa",
    "@koa/router",
    "koa-router",
    "hono",
    "h3",
    "elysia",
    "@hapi/hapi",
    "hapi",
    "restify",
    "polka",
    "@tinyhttp/app",
    "find-my-way",
];

/// Packages whose values can be an app, a router or a Socket.IO object.
pub(super) fn routing_package(p: &str) -> bool {
    if OTHER_FRAMEWORKS.contains(&p) {
        return false;
    }
    let base = p.split('/').next().unwrap_or(p);
    base.contains("express")
        || base.contains("router")
        || base.starts_with("socket.io")
        // (`@nestjs/axios` is Nest's HTTP client.)
        || (base.starts_with("@nestjs") && p != "@nestjs/axios")
        || crate::libs::generates_routes(p)
}

/// The HTTP client package whose instance a module exports as its default
/// (`const api = axios.create({…}); export default api`, `module.exports =
/// axios.create(…)`): a module importing it calls a client, not a router.
pub(super) fn exported_client(facts: &FileFacts) -> Option<String> {
    let bound = top_level_packages(facts);
    let client = |e: &Expr| -> Option<String> {
        let p = match e {
            Expr::Ident(n) => bound.iter().find(|(b, _)| b == n).map(|(_, p)| p.clone()),
            e => made_by(e, &bound),
        }?;
        HTTP_CLIENTS.contains(&p.as_str()).then_some(p)
    };
    facts.body.iter().find_map(|st| match st {
        Stmt::ExportDefault(e) => client(e),
        Stmt::Expr(Expr::Assign(target, v))
            if matches!(&**target, Pattern::Target(t) if module_exports(t)) =>
        {
            client(v)
        }
        _ => None,
    })
}

/// The line of the function a top-level object literal of the file holds
/// under `method` when `name` is bound to that literal (or to an instance
/// of a class of the file that declares `method` itself: `const routerApp =
/// new RouterApp()`) and never assigned again at the top level (`const
/// request = { async post(...args) {…} }`):
/// `request.post('/login', data)` calls the program's own function, whatever
/// runs the file. `None` for any other binding (a spread in the literal may
/// bring a router's methods, so a literal with one does not count).
pub(super) fn own_object_method(facts: &FileFacts, name: &str, method: &str) -> Option<u32> {
    let mut found = None;
    for st in &facts.body {
        let st = match st {
            Stmt::ExportDecl(inner, _) => inner.as_ref(),
            st => st,
        };
        match st {
            Stmt::Var(decls) => {
                for (p, e) in decls {
                    if matches!(p, Pattern::Ident(n) if n == name) {
                        found = match e {
                            Some(Expr::Object(props)) => literal_method(props, method),
                            Some(Expr::New(callee, _, _)) => match &**callee {
                                Expr::Ident(cls) => own_class_method(facts, cls, method),
                                _ => None,
                            },
                            _ => return None,
                        };
                    }
                }
            }
            Stmt::Expr(Expr::Assign(target, _)) if matches!(&**target, Pattern::Ident(n) if n == name) =>
            {
                return None;
            }
            Stmt::Function(n, _) | Stmt::Class(n, _) if n == name => return None,
            _ => {}
        }
    }
    found
}

/// The line of `method` declared by the class `name` of the file itself
/// (`class RouterApp extends EventEmitter { use(fn) {…} }`): an instance's
/// `use(fn)` calls that method, whatever the class extends.
fn own_class_method(facts: &FileFacts, name: &str, method: &str) -> Option<u32> {
    facts.body.iter().find_map(|st| {
        let st = match st {
            Stmt::ExportDecl(inner, _) => inner.as_ref(),
            st => st,
        };
        match st {
            Stmt::Class(n, c) if n == name => c
                .methods
                .iter()
                .find(|(m, _)| m == method)
                .map(|(_, f)| f.line),
            _ => None,
        }
    })
}

/// The line of the function an object literal's `method` key holds, if the
/// literal states every key it has (no spread) and that one is a function.
fn literal_method(props: &[ObjProp], method: &str) -> Option<u32> {
    if props.iter().any(|p| matches!(p, ObjProp::Spread(_))) {
        return None;
    }
    props.iter().rev().find_map(|p| match p {
        ObjProp::Method(PropKey::Name(k), f) if k == method => Some(Some(f.line)),
        ObjProp::KeyValue(PropKey::Name(k), v) if k == method => match v {
            Expr::Func(f) => Some(Some(f.line)),
            _ => Some(None),
        },
        ObjProp::Getter(PropKey::Name(k), _) if k == method => Some(None),
        _ => None,
    })?
}

/// Whether a module exports a function of its own under `method`
/// (`module.exports = { get: function (key, cb) {…} }`, `exports.get = …`,
/// `export default { get() {…} }`): a module importing
/// it calls that function, not an Express app's or router's method.
pub(super) fn exports_own_function(facts: &FileFacts, method: &str) -> bool {
    fn target(p: &Pattern) -> Option<&Expr> {
        match p {
            Pattern::Target(t) => Some(t),
            _ => None,
        }
    }
    let own = |props: &[ObjProp]| {
        props.iter().any(|p| match p {
            ObjProp::Method(PropKey::Name(k), _) => k == method,
            ObjProp::KeyValue(PropKey::Name(k), Expr::Func(_)) => k == method,
            _ => false,
        })
    };
    let aliases = module_aliases(facts);
    facts.body.iter().any(|st| match st {
        Stmt::ExportDefault(Expr::Object(props)) => own(props),
        Stmt::Expr(Expr::Assign(t, v)) => match (target(t), &**v) {
            (Some(t), Expr::Object(props)) if module_exports(t) => own(props),
            (Some(Expr::Member(o, prop)), Expr::Func(_)) => {
                prop == method
                    && (exports_object(o) || matches!(&**o, Expr::Ident(a) if aliases.contains(a)))
            }
            _ => false,
        },
        _ => false,
    })
}

/// The top-level names bound to the module's exports object (`const
/// Sessions = module.exports`, `var self = exports`): a function assigned
/// to one of their keys is the module's own export.
pub(super) fn module_aliases(facts: &FileFacts) -> Vec<String> {
    let mut out = Vec::new();
    for st in &facts.body {
        if let Stmt::Var(decls) = st {
            for (p, e) in decls {
                if let (Pattern::Ident(n), Some(e)) = (p, e)
                    && exports_object(e)
                {
                    out.push(n.clone());
                }
            }
        }
    }
    out
}

/// The line of the function the file assigns at its top level under
/// `method` to `name`, a name bound to its exports object (`const Sessions
/// = module.exports; Sessions.delete = function (…) {…}`): `Sessions.delete(…)`
/// calls the module's own function.
pub(super) fn own_export_method(facts: &FileFacts, name: &str, method: &str) -> Option<u32> {
    if !module_aliases(facts).iter().any(|a| a == name) {
        return None;
    }
    facts.body.iter().find_map(|st| match st {
        Stmt::Expr(Expr::Assign(t, v)) => match (&**t, &**v) {
            (Pattern::Target(t), Expr::Func(f))
                if matches!(&**t, Expr::Member(o, m)
                    if m == method && matches!(&**o, Expr::Ident(a) if a == name)) =>
            {
                Some(f.line)
            }
            _ => None,
        },
        _ => None,
    })
}

/// `module.exports`.
pub(super) fn module_exports(e: &Expr) -> bool {
    matches!(e, Expr::Member(o, prop) if prop == "exports" && matches!(&**o, Expr::Ident(m) if m == "module"))
}

/// `exports` or `module.exports`.
pub(super) fn exports_object(e: &Expr) -> bool {
    module_exports(e) || matches!(e, Expr::Ident(n) if n == "exports")
}

/// The package a specifier names, with its scope: `@x/y/dist/z` → `@x/y`,
/// `lru-cache/min` → `lru-cache`.
pub(super) fn package_of(spec: &str) -> &str {
    let end = if spec.starts_with('@') {
        spec.match_indices('/').nth(1).map(|(i, _)| i)
    } else {
        spec.find('/')
    };
    &spec[..end.unwrap_or(spec.len())]
}

/// Top-level names bound to an installed package's value itself, or one of
/// its members, never called (`import abbr from 'markdown-it-abbr'`, `const
/// { full: emoji } = require('markdown-it-emoji')`, `const sub =
/// require('markdown-it-sub')`), other than a routing package's: (name,
/// specifier). `const mw = require('p')(opts)` is not one.
pub(crate) fn package_values(facts: &FileFacts) -> Vec<(String, String)> {
    fn plain_require(e: &Expr) -> Option<&str> {
        match e {
            Expr::Call(c) => match (&c.callee, c.args.first()) {
                (Expr::Ident(r), Some(Expr::Str(s))) if r == "require" && c.args.len() == 1 => {
                    Some(s)
                }
                (Expr::Ident(h), Some(a)) if h == "__importDefault" || h == "__importStar" => {
                    plain_require(a)
                }
                _ => None,
            },
            Expr::Member(o, _) => plain_require(o),
            _ => None,
        }
    }
    let package = |spec: &str| {
        !(spec.starts_with('.')
            || spec.starts_with('/')
            || spec.starts_with("@/")
            || routing_package(package_of(spec)))
    };
    let mut out = Vec::new();
    for st in &facts.body {
        match st {
            Stmt::Import(imp) if package(&imp.source) && !imp.type_only => {
                for n in imp
                    .default
                    .iter()
                    .chain(&imp.namespace)
                    .chain(imp.named.iter().map(|(_, l)| l))
                {
                    out.push((n.clone(), imp.source.clone()));
                }
            }
            Stmt::Var(decls) => {
                for (p, e) in decls {
                    let Some(spec) = e.as_ref().and_then(plain_require).filter(|s| package(s))
                    else {
                        continue;
                    };
                    for n in crate::syntax::bound_names(&Stmt::Var(vec![(p.clone(), None)])) {
                        out.push((n, spec.to_string()));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// What a write in the file stores (see `Walker::writes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Written {
    /// A value an installed package makes (`axios.create(…)`, `new Mp4Frag()`).
    Made(String),
    /// What a property slot holds (`var m = s.mon[id].mp4frag[ch]` reads `.mp4frag[]`).
    Slot(String),
    /// Anything else: a parameter, a literal, a call of the program's own.
    Other,
}

/// The property slot an expression reads or writes, by property name
/// whatever the object: `a.b.frag` is `.frag`, `x.frag[k]` is `.frag[]`.
pub(super) fn slot(e: &Expr) -> Option<String> {
    match e {
        Expr::Member(_, p) => Some(format!(".{p}")),
        Expr::Index(o, _) => match o.as_ref() {
            Expr::Member(_, p) => Some(format!(".{p}[]")),
            _ => None,
        },
        _ => None,
    }
}

/// The names whose every write in the file is a value one installed package
/// makes, other than Express's and Socket.IO's (`const client =
/// axios.create(…)` in a function, `let transport = null` then `transport =
/// axios.create(config)`), directly or read from a property slot every write
/// of which is one (`x.frag['MAIN'] = new Mp4Frag()` and `var frag =
/// s.mon[id].frag[channel]`: by property name, whatever the object): a call
/// on such a name is that package's (`client.interceptors.request.use(fn)`
/// adds an axios interceptor; it registers no middleware). A name also
/// written with anything else, or bound as a parameter, is not one.
pub(super) fn made_by_packages(writes: &[(String, Written)]) -> Vec<(String, String)> {
    use std::collections::BTreeMap;
    let mut by_key: BTreeMap<&str, Vec<&Written>> = BTreeMap::new();
    for (k, w) in writes {
        by_key.entry(k).or_default().push(w);
    }
    // One package for every write (a slot read through once, not further).
    let one = |ws: &[&Written], deeper: &dyn Fn(&str) -> Option<String>| {
        let mut found: Option<String> = None;
        for w in ws {
            let p = match w {
                Written::Made(p) if !routing_package(p) => p.clone(),
                Written::Slot(s) => deeper(s)?,
                _ => return None,
            };
            if found.as_ref().is_some_and(|f| *f != p) {
                return None;
            }
            found = Some(p);
        }
        found
    };
    let slot_package = |s: &str| one(by_key.get(s)?, &|_| None);
    // (Slots too: a receiver reads them, `this.client.post(…)`.)
    by_key
        .iter()
        .filter_map(|(k, ws)| Some((k.to_string(), one(ws, &slot_package)?)))
        .collect()
}

/// The property slots a receiver's chain reads, root first: `this.api.x[k]`
/// reads `.api`, then `.x[]` (see [`slot`]); through calls of its members
/// (`this.api.extend(o).hooks` reads `.api`, `.hooks`).
pub(super) fn receiver_slots(recv: &Expr) -> Vec<String> {
    let mut out = Vec::new();
    let mut e = recv;
    for _ in 0..32 {
        if let Some(s) = slot(e) {
            out.push(s);
        }
        e = match e {
            Expr::Member(o, _) | Expr::Typed(o, _) | Expr::Await(o) => o,
            Expr::Index(o, _) => match o.as_ref() {
                Expr::Member(inner, _) => inner,
                o => o,
            },
            Expr::Call(c) => &c.callee,
            _ => break,
        };
    }
    out.reverse();
    out
}
