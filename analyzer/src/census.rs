//! The census: every registration-shaped call in a file's facts, whatever
//! its receiver is called, and the accounting that matches each one against
//! what the evaluation charted.
//!
//! Captures (from the lowered IR only, no evaluation, cached with the facts):
//! - verb calls `X.get|post|put|patch|delete|del|head|options|all(P, H...)`
//!   whose first argument looks like an Express path (a string starting
//!   with `/` or `*`, a template starting with `/` or with a substitution, a
//!   regex, an array of those, or a name/member that may be a constant) and
//!   that have at least one handler-like argument after it (function, arrow,
//!   name, member, call, array). A name or member path needs a function or a
//!   member handler, or a spread followed by a handler (`router.post(r.url,
//!   ...middlewares, wrap(r.callback))`; `client.get(url, options)` is left out). Chains
//!   `X.route(P).get(H).post(H)` count once per verb;
//! - `X.use([P,] H...)` with at least one handler-like argument;
//! - `X.param(name, H)`;
//! - Socket.IO sites: `X.on|once(name, H)` and `X.emit(name, ...)` (the name
//!   a literal or computed) on any receiver, each marked whether the receiver
//!   looks like Socket.IO: a name in its chain contains `socket` or is `io`,
//!   `nsp` or `namespace`, or the chain goes through `.to(`, `.in(`,
//!   `.except(`, `.of(`, `.broadcast`, `.volatile` or `.timeout(`. The
//!   accounting counts a socket-looking site in a file that uses Socket.IO
//!   (imports it, or the evaluation saw a Socket.IO object there) or in a
//!   package that depends on it; any other site only when the evaluation saw
//!   a Socket.IO object at it (`client.on('joinDoc', …)` on a socket.io 0.9
//!   connection), or, in a file that imports Socket.IO, when its name is a
//!   literal that is not one of Node's own events (`close`, `data`,
//!   `SIGTERM`, …), its receiver is not a package's value (`process`,
//!   `redis.on`) and not named like an event emitter, bus, queue or stream
//!   (`this.eventEmitter.emit('hook')`). (`process.on`, `stream.on` and a program's own emitters are
//!   too common elsewhere for a shape rule to be useful.)
//!
//! - calls of functions that themselves register: a plain call of a
//!   function of the same file whose body holds items (directly or through
//!   another such call), or of a name a relative import binds, or
//!   `require('./x')(args)` ([`CallTarget`]); the accounting keeps those
//!   whose callee holds a real registration and charts them when the code
//!   around them ran.
//!
//! Each item keeps the functions that enclose it (outermost first), so the
//! accounting can name the function that was never called.
//!
//! - route decorators on the methods of a class whose decorator is
//!   controller-like (`@Controller`, `@controller`, `@JsonController`,
//!   `@RestController`, `@Route`), whatever package they come from: a verb
//!   (`@Get('x')`, `@Post()`, `@httpGet('/x')`, `@All()`) or a method
//!   decorator (routing-controllers' `@Method('get', 'x')`,
//!   inversify-express-utils' `@httpMethod('get', '/x')`) with a path
//!   literal or no path, at the decorator's line. The package the class
//!   decorator is imported from is kept: a controller of a package Portolan
//!   does not model is accounted for as `unmodelled-framework`.
//!
//! - handlers a module exports under an HTTP method's name for a file-based
//!   router (`export const GET = async (req, res) => …`, `export async
//!   function POST`; a function or a call's result, at the top level), as
//!   Medusa's and Next.js's `route.ts` and SvelteKit's `+server.ts` do: no
//!   such router is modelled, so each is accounted for as
//!   `unmodelled-framework`.
//!
//! Deliberately not captured: other decorators, `app[verb]` computed calls
//! (the evaluation reports those itself), calls through `.call`/`.apply`,
//! `X.route(p)` with no verb after it.

use crate::inventory::{CensusEntry, Coverage, FindingCode, Inventory, Location};
use crate::ir::{Class, Expr, FileFacts, Func, ObjProp, Pattern, PropKey, Stmt};
use crate::loader::{Loader, needle};
use crate::machine::Interp;
use crate::machine::census_rec::Recv;
use crate::project::{FileId, Project};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// What kind of registration a census item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) enum CensusKind {
    /// A verb call (also in a `route(p)` chain).
    Route,
    /// A `use` call.
    Use,
    /// A `param` call.
    Param,
    /// A Socket.IO `on`/`once`/`emit`.
    Event,
    /// A call of a function that itself (transitively) registers: one of
    /// this file's, or one a relative import gives (see [`CallTarget`]).
    Call,
    /// A handler a module exports under an HTTP method's name for a
    /// file-based router (`export const GET = …` in Medusa's or Next.js's
    /// `route.ts`, `export async function POST` in SvelteKit's
    /// `+server.ts`): the router, not the code, makes it a route.
    FileRoute,
}

/// How much an `on`/`emit` receiver looks like Socket.IO, by its text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum SocketShape {
    /// Nothing in it does (`client`, `peer`, `this.conn`).
    #[default]
    Plain,
    /// A name in its chain contains `socket` (`socket`, `tlsSocket`,
    /// `this.sockets[id]`): Socket.IO's, or a `net`/`tls`/`ws` socket.
    SocketName,
    /// `io`, `nsp`, `namespace`, or a chain through `.to(`, `.in(`,
    /// `.except(`, `.of(`, `.timeout(`, `.broadcast`, `.volatile`, `.local`:
    /// Socket.IO's own vocabulary.
    Io,
}

/// What a registering call calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum CallTarget {
    /// A function of this file whose body (or what it calls here) holds
    /// registration-shaped calls (the accounting checks they are real).
    Local,
    /// What a project module gives (its specifier): it counts when that
    /// module registers inside a function.
    Import(String),
}

/// A registration-shaped call.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CensusItem {
    /// What kind.
    pub(crate) kind: CensusKind,
    /// The call's line (the method name's line, as [`crate::ir::Call`] records it).
    pub(crate) line: u32,
    /// The method (`get`, `use`, `on`, ...).
    pub(crate) method: String,
    /// The first argument as written (path, parameter or event name), shortened.
    pub(crate) first: String,
    /// The receiver as written (`router`, `this.app`, `io.to(room)`).
    pub(crate) receiver: String,
    /// Enclosing functions, outermost first: (function id, name, line).
    pub(crate) enclosing: Vec<(u32, String, u32)>,
    /// The installed package the receiver's root name is imported from at
    /// the top level (`import pm2 from 'pm2'` for `pm2.delete(...)`), if any.
    #[serde(default)]
    pub(crate) receiver_package: Option<String>,
    /// The innermost `if` around it inside its function: (test text, line).
    #[serde(default)]
    pub(crate) condition: Option<(String, u32)>,
    /// For a route decorator (`@Get('x')` on a method of a `@Controller` /
    /// `@JsonController` class): the line of the class's controller decorator.
    #[serde(default)]
    pub(crate) controller: Option<u32>,
    /// For a registering call: what it calls.
    #[serde(default)]
    pub(crate) target: Option<CallTarget>,
    /// For a Socket.IO site: how much its receiver looks like Socket.IO.
    #[serde(default)]
    pub(crate) socket_shape: SocketShape,
    /// For a route decorator: the installed package the class's controller
    /// decorator is imported from (`inversify-express-utils`), if any.
    #[serde(default)]
    pub(crate) framework: Option<String>,
}

impl CensusItem {
    /// An item with nothing known beyond its kind, line, call and receiver.
    fn new(kind: CensusKind, line: u32, method: String, first: String, receiver: String) -> Self {
        CensusItem {
            kind,
            line,
            method,
            first,
            receiver,
            enclosing: Vec::new(),
            receiver_package: None,
            condition: None,
            controller: None,
            target: None,
            socket_shape: SocketShape::Plain,
            framework: None,
        }
    }

    /// A short description: `router.get('/users')`.
    pub(crate) fn describe(&self) -> String {
        if let Some(on) = self.receiver.strip_prefix('@') {
            return format!("`@{}({})` on `{on}`", self.method, self.first);
        }
        if self.kind == CensusKind::Call {
            return format!("`{}(…)`, which registers", self.method);
        }
        if self.kind == CensusKind::FileRoute {
            return format!("`export {}` (a file-routed handler)", self.method);
        }
        format!("`{}.{}({}…)`", self.receiver, self.method, self.first)
    }
}

/// The export names file-based routers take as an HTTP method's handler.
pub(crate) const FILE_ROUTE_METHODS: &[&str] =
    &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

const VERBS: &[&str] = &[
    "get", "post", "put", "patch", "delete", "del", "head", "options", "all",
];

/// Collect the census of one file's facts, in source order.
pub(crate) fn collect(facts: &FileFacts) -> Vec<CensusItem> {
    let mut w = Walker {
        out: Vec::new(),
        stack: Vec::new(),
        conds: Vec::new(),
        calls: Vec::new(),
    };
    w.stmts(&facts.body, 0);
    let imported = imported_names(facts);
    let calls = registering_calls(facts, &w.out, std::mem::take(&mut w.calls));
    let packages = top_level_packages(facts);
    let framework = other_framework(facts);
    for it in &mut w.out {
        if let Some(root) = it.framework.take() {
            // (The walker left the controller decorator's root name here.)
            it.framework = imported
                .iter()
                .find(|(n, _)| *n == root)
                .map(|(_, p)| p.clone());
            continue;
        }
        let root = it.receiver.split(['.', '(', '[', '?']).next().unwrap_or("");
        it.receiver_package = packages
            .iter()
            .find(|(n, _)| n == root)
            .map(|(_, p)| p.clone());
        // In a file that uses another HTTP framework and not Express, an
        // HTTP registration on a name bound elsewhere is that framework's.
        if it.receiver_package.is_none() && it.kind != CensusKind::Event {
            it.receiver_package = framework.clone();
        }
    }
    w.out.extend(calls);
    w.out.sort_by_key(|i| (i.line, i.kind, i.method.clone()));
    w.out
        .dedup_by(|a, b| a.line == b.line && a.kind == b.kind && a.method == b.method);
    w.out
}

/// The calls among `calls` that register: of a function of this file whose
/// body registers (directly, or through another such call, to a fixed
/// point), named by the functions that enclose the registrations; or of
/// what a relative import binds (checked against that module when
/// accounting). A function's call inside its own body is left out.
fn registering_calls(
    facts: &FileFacts,
    items: &[CensusItem],
    calls: Vec<CensusItem>,
) -> Vec<CensusItem> {
    if calls.is_empty() {
        return calls;
    }
    // Functions (by name) that hold items, directly or through a call of
    // another such function (to a fixed point).
    let mut regs: HashSet<String> = items
        .iter()
        .flat_map(|it| it.enclosing.iter().map(|(_, n, _)| n.clone()))
        .filter(|n| n != "<anonymous>")
        .collect();
    for _ in 0..16 {
        let mut changed = false;
        for c in &calls {
            if !regs.contains(&c.method) {
                continue;
            }
            for (_, n, _) in &c.enclosing {
                if n != "<anonymous>" && *n != c.method {
                    changed |= regs.insert(n.clone());
                }
            }
        }
        if !changed {
            break;
        }
    }
    let imports = relative_bindings(facts);
    calls
        .into_iter()
        .filter_map(|mut c| {
            if c.enclosing.iter().any(|(_, n, _)| *n == c.method) {
                return None;
            }
            if c.target.is_some() {
                return Some(c);
            }
            if regs.contains(&c.method) {
                c.target = Some(CallTarget::Local);
                return Some(c);
            }
            let spec = imports.iter().find(|(n, _)| *n == c.method)?.1.clone();
            c.target = Some(CallTarget::Import(spec));
            Some(c)
        })
        .collect()
}

/// Top-level names bound to a relative module: `import x from './x'`,
/// `import { a } from './x'`, `const x = require('./x')`, `const { a } = require('./x')`.
fn relative_bindings(facts: &FileFacts) -> Vec<(String, String)> {
    bindings_from(facts, |s| s.starts_with('.'))
}

/// Top-level names an installed package binds, named imports included:
/// `import { controller } from 'inversify-express-utils'`,
/// `import * as rc from 'routing-controllers'`, `const { Get } = require('x')`.
fn imported_names(facts: &FileFacts) -> Vec<(String, String)> {
    bindings_from(facts, |s| {
        !(s.starts_with('.') || s.starts_with('/') || s.starts_with("@/"))
    })
}

/// Top-level names bound by `import` or `require` of a module whose
/// specifier `source` accepts, with that specifier.
fn bindings_from(facts: &FileFacts, source: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for st in &facts.body {
        match st {
            Stmt::Import(imp) if source(&imp.source) => {
                for n in imp.default.iter().chain(&imp.namespace) {
                    out.push((n.clone(), imp.source.clone()));
                }
                for (_, local) in &imp.named {
                    out.push((local.clone(), imp.source.clone()));
                }
            }
            Stmt::Var(decls) => {
                for (p, e) in decls {
                    let Some(spec) = e.as_ref().and_then(required).filter(|s| source(s)) else {
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

/// The methods the evaluation records for the census (see `machine/census_rec.rs`).
pub(crate) fn is_census_method(name: &str) -> bool {
    VERBS.contains(&name) || matches!(name, "use" | "param" | "on" | "once" | "emit")
}

struct Walker {
    out: Vec<CensusItem>,
    stack: Vec<(u32, String, u32)>,
    /// Enclosing `if` tests (text, line), with the function depth they belong to.
    conds: Vec<(String, u32, usize)>,
    /// Calls of a plain name with arguments (`setup(app)`), or of what a
    /// relative `require` gives (`require('./routes')(app)`): candidates for
    /// registering calls, kept when the callee turns out to register.
    calls: Vec<CensusItem>,
}

const MAX_DEPTH: u32 = 400;

impl Walker {
    fn stmts(&mut self, stmts: &[Stmt], d: u32) {
        for s in stmts {
            self.stmt(s, d);
        }
    }

    fn stmt(&mut self, s: &Stmt, d: u32) {
        if d > MAX_DEPTH {
            return;
        }
        let d = d + 1;
        match s {
            Stmt::Expr(e) | Stmt::Throw(e) | Stmt::Return(Some(e)) => self.expr(e, None, d),
            Stmt::ExportDefault(e) => self.expr(e, Some("default"), d),
            Stmt::Var(decls) => {
                for (p, e) in decls {
                    if let Some(e) = e {
                        let name = match p {
                            Pattern::Ident(n) => Some(n.as_str()),
                            _ => None,
                        };
                        self.expr(e, name, d);
                    }
                }
            }
            Stmt::Function(name, f) => self.func(f, Some(name), d),
            Stmt::Class(_, c) => self.class(c, d),
            Stmt::If(t, text, a, b, line) => {
                self.expr(t, None, d);
                let depth = self.stack.len();
                self.conds.push((shorten(text, 60), *line, depth));
                self.stmts(a, d);
                self.conds.pop();
                self.conds
                    .push((format!("!({})", shorten(text, 60)), *line, depth));
                self.stmts(b, d);
                self.conds.pop();
            }
            Stmt::ForOf(_, it, _, body, _, _) => {
                self.expr(it, None, d);
                self.stmts(body, d);
            }
            Stmt::For(f) => {
                self.stmts(&f.init, d);
                for e in f.test.iter().chain(f.update.iter()) {
                    self.expr(e, None, d);
                }
                self.stmts(&f.body, d);
            }
            Stmt::Labeled(_, inner) => self.stmt(inner, d),
            Stmt::Loop(_, body, _) | Stmt::Block(body) => self.stmts(body, d),
            Stmt::Try(a, _, b, c) => {
                self.stmts(a, d);
                self.stmts(b, d);
                self.stmts(c, d);
            }
            Stmt::Switch(x, cases) => {
                self.expr(x, None, d);
                for c in cases {
                    self.stmts(&c.body, d);
                }
            }
            Stmt::ExportDecl(inner, names) => {
                if d == 1 {
                    self.file_routes(inner, names);
                }
                self.stmt(inner, d)
            }
            Stmt::Return(None)
            | Stmt::Break(_)
            | Stmt::Continue(_)
            | Stmt::Import(_)
            | Stmt::ExportNames(..)
            | Stmt::ExportAll(..)
            | Stmt::Enum(..)
            | Stmt::TypeDecl(..) => {}
        }
    }

    fn func(&mut self, f: &Func, name: Option<&str>, d: u32) {
        let name = f
            .name
            .clone()
            .or_else(|| name.map(str::to_string))
            .unwrap_or_else(|| "<anonymous>".into());
        self.stack.push((f.id, name, f.line));
        self.stmts(&f.body, d);
        self.stack.pop();
    }

    fn class(&mut self, c: &Class, d: u32) {
        if let Some(s) = &c.superclass {
            self.expr(s, None, d);
        }
        for (n, e) in c.fields.iter().chain(&c.static_fields) {
            if let Some(e) = e {
                self.expr(e, Some(n), d);
            }
        }
        if let Some(k) = &c.constructor {
            self.func(k, Some("constructor"), d);
        }
        for (n, f) in c.methods.iter().chain(&c.getters).chain(&c.static_methods) {
            self.func(f, Some(n), d);
        }
        self.decorated_routes(c);
    }

    /// Top-level exports named after an HTTP method whose value is a
    /// function (or what a call gives: `export const GET = wrap(async …)`):
    /// one item per name, at the declaration's line. A constant
    /// (`export const GET = 'GET'`) is not one.
    fn file_routes(&mut self, inner: &Stmt, names: &[String]) {
        fn handler_line(e: &Expr) -> Option<u32> {
            match e {
                Expr::Func(f) => Some(f.line),
                Expr::Call(c) => Some(c.line),
                Expr::Typed(e, _) => handler_line(e),
                _ => None,
            }
        }
        let found: Vec<(&str, u32)> = match inner {
            Stmt::Function(n, f) => vec![(n.as_str(), f.line)],
            Stmt::Var(decls) => decls
                .iter()
                .filter_map(|(p, e)| match (p, e) {
                    (Pattern::Ident(n), Some(e)) => Some((n.as_str(), handler_line(e)?)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        for (name, line) in found {
            if !FILE_ROUTE_METHODS.contains(&name) || !names.iter().any(|n| n == name) {
                continue;
            }
            self.out.push(CensusItem::new(
                CensusKind::FileRoute,
                line,
                name.to_string(),
                String::new(),
                "export".into(),
            ));
        }
    }

    /// Route decorators on the methods of a controller-like class (NestJS,
    /// routing-controllers, inversify-express-utils, or a framework nobody
    /// models): one item per verb decorator, at the decorator's line (the
    /// line the models record for the operation).
    fn decorated_routes(&mut self, c: &Class) {
        let text = |e: &Expr| crate::machine::expr_text(e);
        let last = |e: &Expr| text(e).rsplit('.').next().unwrap_or("").to_string();
        let Some(ctl) = c.decorators.iter().find(|d| {
            let n = last(&d.callee).to_ascii_lowercase();
            n.ends_with("controller") || n == "route"
        }) else {
            return;
        };
        let root = text(&ctl.callee)
            .split('.')
            .next()
            .unwrap_or("")
            .to_string();
        let class = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        for (member, decs) in &c.member_decorators {
            for d in decs {
                let name = last(&d.callee);
                let lower = name.to_ascii_lowercase();
                let bare = lower.strip_prefix("http").unwrap_or(&lower);
                let first = if VERBS.contains(&bare) && bare != "del" {
                    d.args.first()
                } else if bare == "method" {
                    // `@Method('get', path)`, `@httpMethod('get', path)`.
                    if !matches!(d.args.first(), Some(Expr::Str(_))) {
                        continue;
                    }
                    d.args.get(1)
                } else {
                    continue;
                };
                // A path (a literal, a constant's name, a list), or none
                // (`@Get()`): not a configuration object or a number.
                if !first.is_none_or(|p| {
                    path_literal(p)
                        || matches!(
                            p,
                            Expr::Str(_) | Expr::Ident(_) | Expr::Member(..) | Expr::Array(_)
                        )
                }) {
                    continue;
                }
                self.out.push(CensusItem {
                    kind: CensusKind::Route,
                    line: d.line,
                    method: name,
                    first: first.map(short_text).unwrap_or_default(),
                    receiver: format!("@{class}.{member}"),
                    enclosing: self.stack.clone(),
                    receiver_package: None,
                    condition: None,
                    controller: Some(ctl.line),
                    target: None,
                    socket_shape: SocketShape::Plain,
                    framework: Some(root.clone()),
                });
            }
        }
    }

    fn expr(&mut self, e: &Expr, name: Option<&str>, d: u32) {
        if d > MAX_DEPTH {
            return;
        }
        let d = d + 1;
        match e {
            Expr::Call(c) => {
                self.call(c);
                self.expr(&c.callee, None, d);
                for a in &c.args {
                    self.expr(a, None, d);
                }
            }
            Expr::Func(f) => self.func(f, name, d),
            Expr::Class(c) => self.class(c, d),
            Expr::Member(o, _) => self.expr(o, None, d),
            Expr::Index(a, b)
            | Expr::Add(a, b)
            | Expr::Logical(_, a, b)
            | Expr::Compare(_, a, b) => {
                self.expr(a, name, d);
                self.expr(b, name, d);
            }
            Expr::Cond(t, _, a, b) => {
                self.expr(t, None, d);
                self.expr(a, name, d);
                self.expr(b, name, d);
            }
            Expr::Assign(p, v) => {
                let n = match p.as_ref() {
                    Pattern::Ident(n) => Some(n.as_str()),
                    Pattern::Target(t) => match t.as_ref() {
                        Expr::Member(_, n) => Some(n.as_str()),
                        _ => None,
                    },
                    _ => None,
                };
                self.expr(v, n, d);
            }
            Expr::Await(v) | Expr::Unary(_, v) | Expr::Spread(v) | Expr::Typed(v, _) => {
                self.expr(v, name, d)
            }
            Expr::Seq(items) | Expr::Array(items) | Expr::Template(_, items) => {
                for i in items {
                    self.expr(i, None, d);
                }
            }
            Expr::New(c, args, _) => {
                self.expr(c, None, d);
                for a in args {
                    self.expr(a, None, d);
                }
            }
            Expr::Object(props) => {
                for p in props {
                    match p {
                        ObjProp::KeyValue(k, v) => {
                            let n = match k {
                                PropKey::Name(n) => Some(n.as_str()),
                                PropKey::Computed(_) => None,
                            };
                            self.expr(v, n, d);
                        }
                        ObjProp::Spread(v) => self.expr(v, None, d),
                        ObjProp::Method(k, f) | ObjProp::Getter(k, f) => {
                            let n = match k {
                                PropKey::Name(n) => Some(n.as_str()),
                                PropKey::Computed(_) => None,
                            };
                            self.func(f, n, d);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn call(&mut self, c: &crate::ir::Call) {
        let callee = match &c.callee {
            Expr::Ident(n) if !c.args.is_empty() => Some((n.clone(), None)),
            Expr::Call(r) if !c.args.is_empty() => required(&Expr::Call(r.clone()))
                .filter(|s| s.starts_with('.'))
                .map(|s| {
                    (
                        "require".to_string(),
                        Some(CallTarget::Import(s.to_string())),
                    )
                }),
            _ => None,
        };
        if let Some((name, target)) = callee {
            self.calls.push(CensusItem {
                kind: CensusKind::Call,
                line: c.line,
                method: name.clone(),
                first: String::new(),
                receiver: name,
                enclosing: self.stack.clone(),
                receiver_package: None,
                condition: self
                    .conds
                    .last()
                    .filter(|(_, _, depth)| *depth == self.stack.len())
                    .map(|(t, l, _)| (t.clone(), *l)),
                controller: None,
                target,
                socket_shape: SocketShape::Plain,
                framework: None,
            });
            return;
        }
        let Expr::Member(recv, method) = &c.callee else {
            return;
        };
        let m = method.as_str();
        let item = |kind, first: Option<&Expr>| {
            CensusItem::new(
                kind,
                c.line,
                m.to_string(),
                first.map(short_text).unwrap_or_default(),
                receiver_text(recv),
            )
        };
        let found = if VERBS.contains(&m) {
            match route_chain_path(recv) {
                // `X.route(p).get(h)`: the handlers are all the arguments.
                Some(p) => {
                    (c.args.iter().any(handler_like)).then(|| item(CensusKind::Route, Some(p)))
                }
                None => {
                    let first = c.args.first();
                    let rest = c.args.get(1..).unwrap_or(&[]);
                    let ok = match first {
                        Some(Expr::Ident(_) | Expr::Member(..)) => {
                            rest.iter()
                                .any(|a| matches!(a, Expr::Func(_) | Expr::Member(..)))
                                || spread_then_handler(rest)
                        }
                        Some(p) => path_like(p) && rest.iter().any(handler_like),
                        None => false,
                    };
                    ok.then(|| item(CensusKind::Route, first))
                }
            }
        } else if m == "use" && !socket_like(recv) {
            // (`io.use(fn)` and `socket.use(fn)` are Socket.IO middleware.)
            let first = c.args.first();
            let (path, rest) = match first {
                Some(p) if path_literal(p) => (Some(p), c.args.get(1..).unwrap_or(&[])),
                _ => (None, &c.args[..]),
            };
            rest.iter()
                .any(handler_like)
                .then(|| item(CensusKind::Use, path))
        } else if m == "param" {
            let ok = matches!(c.args.first(), Some(Expr::Str(_) | Expr::Array(_)))
                && c.args.get(1).is_some_and(handler_like);
            ok.then(|| item(CensusKind::Param, c.args.first()))
        } else if matches!(m, "on" | "once" | "emit") {
            let named = c
                .args
                .first()
                .is_some_and(|a| !matches!(a, Expr::Func(_) | Expr::Object(_)));
            let handled = m == "emit" || c.args.get(1).is_some_and(handler_like);
            // (Engine.IO and adapter objects' events are not Socket.IO events.)
            let shape = socket_shape(recv);
            (named && handled && shape.is_some()).then(|| CensusItem {
                socket_shape: shape.unwrap_or_default(),
                ..item(CensusKind::Event, c.args.first())
            })
        } else {
            None
        };
        if let Some(mut it) = found {
            it.enclosing = self.stack.clone();
            it.condition = self
                .conds
                .last()
                .filter(|(_, _, depth)| *depth == self.stack.len())
                .map(|(t, l, _)| (t.clone(), *l));
            self.out.push(it);
        }
    }
}

/// `X.route(p)` (possibly followed by verb calls): the path argument.
fn route_chain_path(e: &Expr) -> Option<&Expr> {
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

/// A literal Express path: `'/x'`, `'*'`, `` `/x/${y}` ``, `/re/`, `['/a', '/b']`.
fn path_literal(e: &Expr) -> bool {
    match e {
        Expr::Str(s) => s.starts_with('/') || s == "*",
        Expr::Template(q, exprs) => q
            .first()
            .is_some_and(|s| s.starts_with('/') || (s.is_empty() && !exprs.is_empty())),
        Expr::Regex(_) => true,
        Expr::Array(items) => !items.is_empty() && items.iter().all(path_literal),
        Expr::Add(a, _) => path_literal(a),
        _ => false,
    }
}

fn path_like(e: &Expr) -> bool {
    path_literal(e) || matches!(e, Expr::Ident(_) | Expr::Member(..))
}

/// `(...middlewares, handler)`: a spread list of middleware followed by a
/// handler, the way route tables are registered (`router.post(route.url,
/// ...middlewares, wrap(route.callback))`); a client call does not spread
/// arguments before its callback.
fn spread_then_handler(rest: &[Expr]) -> bool {
    rest.iter()
        .position(|a| matches!(a, Expr::Spread(_)))
        .is_some_and(|i| rest[i + 1..].iter().any(handler_like))
}

fn handler_like(e: &Expr) -> bool {
    match e {
        Expr::Func(_) | Expr::Member(..) | Expr::Call(_) | Expr::Array(_) => true,
        Expr::Ident(n) => n != "undefined",
        Expr::Spread(_) => true,
        _ => false,
    }
}

/// How much a receiver looks like Socket.IO; `None` for Engine.IO and
/// adapter objects (`io.engine`, `nsp.adapter`, `socket.conn`,
/// `socket.request`), which are not.
fn socket_shape(e: &Expr) -> Option<SocketShape> {
    let mut e = e;
    let mut named = false;
    for _ in 0..32 {
        match e {
            Expr::Member(_, n)
                if matches!(n.as_str(), "engine" | "adapter" | "conn" | "request") =>
            {
                return None;
            }
            Expr::Ident(n) | Expr::Member(_, n)
                if matches!(n.to_ascii_lowercase().as_str(), "io" | "nsp" | "namespace") =>
            {
                return Some(SocketShape::Io);
            }
            Expr::Ident(n) | Expr::Member(_, n) if socket_name(n) => named = true,
            Expr::Member(_, n) if matches!(n.as_str(), "broadcast" | "volatile" | "local") => {
                return Some(SocketShape::Io);
            }
            _ => {}
        }
        e = match e {
            Expr::Member(o, _) => o,
            Expr::Call(c) => match &c.callee {
                Expr::Member(o, m) => {
                    if matches!(m.as_str(), "to" | "in" | "except" | "of" | "timeout") {
                        return Some(SocketShape::Io);
                    }
                    o
                }
                _ => break,
            },
            _ => break,
        };
    }
    Some(if named {
        SocketShape::SocketName
    } else {
        SocketShape::Plain
    })
}

/// Whether a receiver looks like Socket.IO (see the module doc).
fn socket_like(e: &Expr) -> bool {
    matches!(
        socket_shape(e),
        Some(SocketShape::Io | SocketShape::SocketName)
    )
}

fn socket_name(n: &str) -> bool {
    n.to_ascii_lowercase().contains("socket")
}

fn receiver_text(e: &Expr) -> String {
    let t = crate::machine::expr_text(e);
    shorten(&t, 40)
}

fn short_text(e: &Expr) -> String {
    let t = match e {
        Expr::Str(s) => format!("'{s}'"),
        other => crate::machine::expr_text(other),
    };
    shorten(&t, 48)
}

fn shorten(t: &str, n: usize) -> String {
    if t.chars().count() <= n {
        t.to_string()
    } else {
        let s: String = t.chars().take(n).collect();
        format!("{s}…")
    }
}

/// Files whose code runs in a browser: their verb calls are HTTP clients,
/// not routes (their Socket.IO sites still count). Judged from the path
/// (markup files, `client/`, `frontend/`, `public/`, `static/`, `www/`,
/// `browser/` folders) and, once parsed, from imports of browser frameworks.
pub(crate) fn is_client_path(rel: &str) -> bool {
    let markup = [".vue", ".html", ".svelte", ".hbs"]
        .iter()
        .any(|e| rel.ends_with(e));
    markup
        || rel.split('/').any(|seg| {
            matches!(
                seg,
                "client" | "frontend" | "public" | "static" | "www" | "browser" | "webapp"
            )
        })
}

/// Whether a file's imports name a browser framework, its router or state
/// store, a package's binding for one (`@unhead/vue`, `vue-i18n`), a
/// stylesheet, or the Socket.IO client.
pub(crate) fn imports_client_framework(facts: &FileFacts) -> bool {
    let client = |s: &str| {
        matches!(
            s,
            "react"
                | "react-dom"
                | "react-dom/client"
                | "vue"
                | "svelte"
                | "svelte/store"
                | "preact"
                | "solid-js"
                | "pinia"
                | "vuex"
                | "vue-router"
                | "zustand"
                | "redux"
                | "react-redux"
                | "@reduxjs/toolkit"
                | "react-router"
                | "react-router-dom"
                | "next/router"
                | "next/navigation"
        ) || s.starts_with("@angular/")
            || s.starts_with("@vue/")
            || s.starts_with("@vueuse/")
            || s.starts_with("socket.io-client")
            // A package's binding for a browser framework: `@unhead/vue`,
            // `dioc/vue`, `@sentry/react`, `vue-i18n`, `@x/vue-toasted`.
            || s.rsplit_once('/').is_some_and(|(_, last)| {
                matches!(last, "vue" | "react" | "svelte" | "preact")
            })
            || package_name(s).starts_with("vue-")
            // A stylesheet: only a bundler imports one (Node cannot).
            || [".css", ".scss", ".sass", ".less"]
                .iter()
                .any(|e| s.ends_with(e))
    };
    /// The package's own name, without its scope (`@x/vue-toasted/dist` → `vue-toasted`).
    fn package_name(s: &str) -> &str {
        let mut parts = s.split('/');
        let first = parts.next().unwrap_or("");
        if first.starts_with('@') {
            parts.next().unwrap_or("")
        } else {
            first
        }
    }
    facts.static_sources().any(client)
}

/// The files whose census counts: every non-test file the analysis read, and
/// the others whose bytes hold a registration-shaped call (client-side
/// files only when they mention sockets, for their event sites).
pub(crate) fn files(
    project: &Project,
    loader: &Arc<Loader>,
    touched: &BTreeSet<FileId>,
    events: bool,
) -> Vec<FileId> {
    (0..project.files.len() as FileId)
        .filter(|&i| {
            let rel = project.rel(i);
            if crate::is_test_path(rel) {
                return false;
            }
            if touched.contains(&i) {
                return true;
            }
            let n = loader.needles_of(i);
            n & needle::CENSUS != 0 && (!is_client_path(rel) || (events && n & needle::SOCKET != 0))
        })
        .collect()
}

/// What the accounting needs of the run.
pub(crate) struct RunView<'a> {
    pub(crate) project: &'a Project,
    pub(crate) loader: &'a Arc<Loader>,
    pub(crate) interp: &'a Interp,
    /// Files the entries reached in the routing phase.
    pub(crate) reached: &'a BTreeSet<FileId>,
    /// Routers the mount walk reached from a root app.
    pub(crate) walked: &'a HashSet<u32>,
    /// Routes on walked routers that the route handing requests to them
    /// never lets through, with why (`mounts::WalkOut::unanswered`).
    pub(crate) unanswered: &'a BTreeMap<(FileId, u32), String>,
    /// Files a reached file imports (loaded lazily, so possibly never read).
    pub(crate) imported: HashSet<FileId>,
    /// Whether events were analyzed.
    pub(crate) events: bool,
}

/// The files that the files in `reached` import (statically, at the top level or in a function).
pub(crate) fn imported_by(
    project: &Project,
    loader: &Arc<Loader>,
    reached: &BTreeSet<FileId>,
) -> HashSet<FileId> {
    let mut out = HashSet::new();
    for &f in reached {
        let facts = loader.get(f).facts.clone();
        let specs = facts
            .static_sources()
            .chain(facts.eager.iter().map(String::as_str))
            .chain(
                facts
                    .fn_imports
                    .iter()
                    .flat_map(|(_, v)| v.iter().map(String::as_str)),
            );
        for spec in specs {
            if let crate::project::Resolved::File(t) = project.resolve(f, spec) {
                out.insert(t);
            }
        }
    }
    out
}

/// A finding's group of items: (file, events?, cause, reason).
type GroupKey = (String, bool, &'static str, String);

/// Why an item is not charted, and where that is decided.
struct Why {
    cause: &'static str,
    /// The place that blocks it, in words (`the enclosing function `setup` (a.js:3)`).
    reason: String,
}

/// Match every census item against what the inventory charted; account for
/// the rest with findings (grouped per file, cause and reason) and set the
/// coverage. Items an existing finding at their own line explains (a
/// dynamic path, method, mount, call or event name), and the routes an
/// `unmounted-router` finding lists, are accounted for by that finding.
pub(crate) fn account(run: &RunView, files: &[FileId], inv: &mut Inventory) {
    let project = run.project;
    let rec = &run.interp.census;
    let loc = |f: FileId, l: u32| Location {
        file: project.rel(f).to_string(),
        line: l,
    };
    // What is charted, by (file, line).
    let mut http: HashSet<(FileId, u32)> = HashSet::new();
    for &r in run.walked {
        for reg in &run.interp.routers[r as usize].regs {
            http.insert((reg.file, reg.line));
        }
    }
    let mut sites: HashSet<(String, u32)> = HashSet::new();
    for e in &inv.events {
        for s in &e.sites {
            sites.insert((s.at.file.clone(), s.at.line));
        }
    }
    let at_line: HashMap<(String, u32), Vec<(FindingCode, String)>> = {
        let mut m: HashMap<(String, u32), Vec<(FindingCode, String)>> = HashMap::new();
        for f in &inv.findings {
            m.entry((f.at.file.clone(), f.at.line))
                .or_default()
                .push((f.code, f.message.clone()));
        }
        m
    };
    let budget = inv
        .findings
        .iter()
        .find(|f| f.code == FindingCode::AnalysisBudget && f.message.contains("budget ran out"))
        .map(|f| (f.at.clone(), f.message.clone()));
    // Recursion or call-depth limits, at the function that hit them.
    let depth: Vec<(Location, String)> = inv
        .findings
        .iter()
        .filter(|f| f.code == FindingCode::AnalysisBudget && f.message.contains("nest deeper"))
        .map(|f| (f.at.clone(), f.message.clone()))
        .collect();
    let computed_imports: Vec<Location> = inv
        .findings
        .iter()
        .filter(|f| {
            matches!(
                f.code,
                FindingCode::DynamicImport | FindingCode::DynamicLoop
            )
        })
        .map(|f| f.at.clone())
        .collect();
    let unmounted: Vec<&crate::Finding> = inv
        .findings
        .iter()
        .filter(|f| f.code == FindingCode::UnmountedRouter)
        .collect();

    let mut entries: Vec<CensusEntry> = Vec::new();
    // (file, cause, reason) → items (line, description)
    let mut groups: BTreeMap<GroupKey, Vec<(u32, String)>> = BTreeMap::new();
    // (index in `entries`, its group)
    let mut grouped: Vec<(usize, GroupKey)> = Vec::new();
    let mut coverage = Coverage::default();
    // Per (file, events?): the functions enclosing a real registration
    // (charted, or lost for a cause other than not being on an app, router
    // or socket), by name and by id. Registering calls are judged against
    // them in the second pass: a call of a function whose only census
    // items turned out not to be registrations (`pm2.delete(...)`) is none.
    let mut real: HashMap<(FileId, bool), HashSet<String>> = HashMap::new();
    for pass in [false, true] {
        for &file in files {
            let loaded = run.loader.get(file);
            let facts = &loaded.facts;
            if facts.census.is_empty() {
                continue;
            }
            let rel = project.rel(file).to_string();
            let client = is_client_path(&rel) || imports_client_framework(facts);
            let mut sio_package = None;
            let socket_file = run.loader.needles_of(file) & needle::SOCKET != 0
                && (imports_socket_io(facts)
                    || rec.event_sources.iter().any(|(f, _)| *f == file)
                    || rec.sites.iter().any(|((f, _), s)| {
                        *f == file
                            && (s.main == Some(Recv::Socket) || s.later == Some(Recv::Socket))
                    }));
            for item in &facts.census {
                if (item.kind == CensusKind::Call) != pass {
                    continue;
                }
                // A registering call counts as what its callee registers: HTTP
                // first, else events; not at all when it registers nothing real.
                let registers = |f: FileId, name: Option<&str>| {
                    let has = |ev: bool| {
                        real.get(&(f, ev)).is_some_and(|names| match name {
                            Some(n) => names.contains(n),
                            None => !names.is_empty(),
                        })
                    };
                    (has(false), has(true))
                };
                let call = match &item.target {
                    Some(CallTarget::Local) => Some(registers(file, Some(&item.method))),
                    Some(CallTarget::Import(spec)) => Some(match run.project.resolve(file, spec) {
                        crate::project::Resolved::File(t) => registers(t, None),
                        _ => (false, false),
                    }),
                    None => None,
                };
                if call == Some((false, false)) {
                    continue;
                }
                let event = item.kind == CensusKind::Event || call.is_some_and(|(h, _)| !h);
                let key = (file, item.line);
                let counted = if !event {
                    !client
                } else if !run.events {
                    false
                } else if item.kind == CensusKind::Event {
                    socket_site(run, file, item, socket_file, &mut sio_package)
                } else {
                    socket_file
                };
                if !counted {
                    continue;
                }
                let charted = if item.kind == CensusKind::Call {
                    // It ran: every function around it was entered (in the routing
                    // phase, or for events at all), in a file the analysis ran.
                    run.interp.touched.contains(&file)
                        && item.enclosing.iter().all(|(id, _, _)| {
                            rec.entered.contains(&(file, *id))
                                || event && run.interp.called.contains(&(file, *id))
                        })
                } else if event {
                    sites.contains(&(rel.clone(), item.line)) || rec.event_sources.contains(&key)
                } else if item.kind == CensusKind::Param {
                    matches!(rec.sites.get(&key).and_then(|s| s.main), Some(Recv::Router(id)) if run.walked.contains(&id))
                } else {
                    http.contains(&key) && !run.unanswered.contains_key(&key)
                };
                let kind = match item.kind {
                    CensusKind::Route => "route",
                    CensusKind::Use => "use",
                    CensusKind::Param => "param",
                    CensusKind::Event => "event",
                    CensusKind::Call => "call",
                    CensusKind::FileRoute => "file-route",
                };
                let mut entry = CensusEntry {
                    at: loc(file, item.line),
                    kind: kind.into(),
                    what: item.describe(),
                    charted,
                    cause: None,
                    finding: None,
                };
                if charted {
                    if event {
                        coverage.socket_total += 1;
                        coverage.socket_charted += 1;
                    } else {
                        coverage.http_total += 1;
                        coverage.http_charted += 1;
                    }
                    if !pass {
                        let names = real.entry((file, event)).or_default();
                        names.extend(item.enclosing.iter().map(|(_, n, _)| n.clone()));
                    }
                    entries.push(entry);
                    continue;
                }
                // An existing finding at the item's own line, or an unmounted-router
                // finding that lists it.
                let own = at_line.get(&(rel.clone(), item.line)).and_then(|v| {
                    v.iter().find(|(c, _)| {
                        matches!(
                            c,
                            FindingCode::DynamicPath
                                | FindingCode::DynamicMethod
                                | FindingCode::DynamicMount
                                | FindingCode::DynamicCall
                                | FindingCode::DynamicEvent
                                | FindingCode::DynamicImport
                        )
                    })
                });
                let in_loop = rec
                    .sites
                    .get(&key)
                    .and_then(|s| s.dyn_loop)
                    .map(|(f, l)| loc(f, l))
                    .filter(|l| {
                        at_line
                            .get(&(l.file.clone(), l.line))
                            .is_some_and(|v| v.iter().any(|(c, _)| *c == FindingCode::DynamicLoop))
                    });
                let listed = unmounted.iter().find(|f| {
                    f.message.contains(&format!("({rel}:{})", item.line))
                        || item
                            .controller
                            .is_some_and(|l| f.at.file == rel && f.at.line == l)
                });
                let (cause, finding_at) = if let Some((code, _)) = own {
                    (code.as_str(), Some(loc(file, item.line)))
                } else if let Some(l) = in_loop {
                    ("dynamic-loop", Some(l))
                } else if let Some(f) = listed {
                    ("unmounted-router", Some(f.at.clone()))
                } else {
                    let why = explain(
                        run,
                        file,
                        item,
                        event,
                        budget.as_ref(),
                        &depth,
                        &computed_imports,
                    );
                    let key = (rel.clone(), event, why.cause, why.reason);
                    groups
                        .entry(key.clone())
                        .or_default()
                        .push((item.line, item.describe()));
                    grouped.push((entries.len(), key));
                    (why.cause, None)
                };
                entry.cause = Some(cause.to_string());
                entry.finding = finding_at;
                let info = matches!(cause, "not-a-router" | "not-a-socket");
                if !info {
                    if event {
                        coverage.socket_total += 1;
                    } else {
                        coverage.http_total += 1;
                    }
                }
                if !pass && !info {
                    let names = real.entry((file, event)).or_default();
                    names.extend(item.enclosing.iter().map(|(_, n, _)| n.clone()));
                }
                *coverage.causes.entry(cause.to_string()).or_default() += 1;
                entries.push(entry);
            }
        }
    }
    // One finding per (file, kind, cause, reason), at its first item.
    let mut placed: HashMap<GroupKey, Location> = HashMap::new();
    for ((rel, event, cause, reason), items) in groups {
        let first = items.iter().map(|(l, _)| *l).min().unwrap_or(1);
        let at = Location {
            file: rel.clone(),
            line: first,
        };
        let n = items.len();
        let what = if event {
            "Socket.IO site"
        } else {
            "registration"
        };
        let listed: Vec<String> = items
            .iter()
            .map(|(l, d)| format!("{d} (line {l})"))
            .collect();
        inv.findings.push(crate::Finding {
            code: if event {
                FindingCode::UnchartedEvent
            } else {
                FindingCode::UnchartedRoute
            },
            at: at.clone(),
            message: format!(
                "{n} {what}{} not charted: {}: {reason}",
                if n == 1 { " is" } else { "s are" },
                listed.join(", ")
            ),
            cause: Some(cause.to_string()),
        });
        placed.insert((rel, event, cause, reason), at);
    }
    // Point the entries at their findings.
    for (i, key) in grouped {
        entries[i].finding = placed.get(&key).cloned();
    }
    // A project whose routes are all file-routed handlers has no entry to
    // pass: say what its routes are rather than ask for one.
    let file_routes = entries.iter().filter(|e| e.kind == "file-route").count();
    if file_routes > 0 && coverage.http_charted == 0 {
        for f in inv
            .findings
            .iter_mut()
            .filter(|f| f.code == FindingCode::NoEntry && f.at.line == 0)
        {
            f.message = format!(
                "no entry found: no package.json main/start script and no file calls express(); the project's {file_routes} route handlers are exported for a file-based router (the `unmodelled-framework` findings), which Portolan does not model, so no --entry would chart them"
            );
        }
    }
    inv.findings
        .sort_by(|a, b| (&a.at, a.code, &a.message).cmp(&(&b.at, b.code, &b.message)));
    entries.sort();
    inv.census = entries;
    inv.coverage = coverage;
}

/// Whether a Socket.IO-shaped `on`/`once`/`emit` item counts (see the
/// module doc). `sio_package` caches, per file, whether its package depends
/// on Socket.IO.
fn socket_site(
    run: &RunView,
    file: FileId,
    item: &CensusItem,
    socket_file: bool,
    sio_package: &mut Option<bool>,
) -> bool {
    let seen = run.interp.census.sites.get(&(file, item.line));
    let recv = seen.and_then(|s| s.main.or(s.later));
    // (Not "an event site was charted at this line": that may be a helper's
    // call beside an emitter's `on`, `bus.on('x', d => relay('y', d))`.)
    if seen.is_some_and(|s| s.main == Some(Recv::Socket) || s.later == Some(Recv::Socket)) {
        return true;
    }
    let literal = item.first.starts_with('\'');
    let name = item.first.trim_matches('\'');
    match item.socket_shape {
        SocketShape::Io | SocketShape::SocketName if socket_file => return true,
        // A file of a package that depends on Socket.IO, with no Socket.IO
        // import of its own (`this.io.of(name).emit(...)` in a helper handed
        // the server): only Socket.IO's own vocabulary counts, as `socket`
        // names there are as often `net`/`tls` sockets.
        SocketShape::Io => {
            return (!literal || !NODE_EVENTS.contains(&name))
                && *sio_package.get_or_insert_with(|| {
                    run.project
                        .package_depends_on(run.project.rel(file), |n| n.starts_with("socket.io"))
                });
        }
        SocketShape::SocketName | SocketShape::Plain => {}
    }
    // Any other receiver: in a file that imports Socket.IO, a literal name
    // that is not Node's, on a receiver that the evaluation did not see as
    // something else.
    let root = item
        .receiver
        .split(['.', '(', '[', '?'])
        .next()
        .unwrap_or("");
    let emitter = item.receiver.split(['.', '(', '[', '?']).any(|seg| {
        let l = seg.to_ascii_lowercase();
        [
            "emitter", "event", "bus", "queue", "redis", "stream", "pubsub",
        ]
        .iter()
        .any(|w| l.contains(w))
    });
    literal
        && !emitter
        && matches!(recv, None | Some(Recv::Dynamic | Recv::Param))
        && item.receiver_package.is_none()
        && !matches!(root, "process" | "window" | "document" | "console")
        && !NODE_EVENTS.contains(&name)
        && imports_socket_io_itself(&run.loader.get(file).facts)
}

/// Whether a file imports the Socket.IO server or client itself (not a
/// parser, adapter or other package of the family), statically.
fn imports_socket_io_itself(facts: &FileFacts) -> bool {
    // (`import type { Server } from 'socket.io'` is erased: the file does not
    // use Socket.IO at run time.)
    let runtime = facts.body.iter().filter_map(|st| match st {
        Stmt::Import(imp) if !imp.type_only => Some(imp.source.as_str()),
        Stmt::ExportNames(_, Some(s), _) | Stmt::ExportAll(s, _, _) => Some(s.as_str()),
        _ => None,
    });
    runtime
        .chain(facts.eager.iter().map(String::as_str))
        .any(|s| matches!(s, "socket.io" | "socket.io-client") || s.starts_with("socket.io/"))
}

/// Events Node's own objects emit (processes, streams, servers, child
/// processes, emitters): an `on`/`emit` of one of these on a receiver that
/// does not look like Socket.IO is taken for Node's.
const NODE_EVENTS: &[&str] = &[
    "close",
    "data",
    "end",
    "error",
    "finish",
    "drain",
    "readable",
    "pipe",
    "unpipe",
    "listening",
    "request",
    "upgrade",
    "checkContinue",
    "clientError",
    "exit",
    "spawn",
    "message",
    "online",
    "open",
    "response",
    "timeout",
    "abort",
    "aborted",
    "socket",
    "secureConnection",
    "newListener",
    "removeListener",
    "uncaughtException",
    "unhandledRejection",
    "warning",
    "beforeExit",
    "SIGINT",
    "SIGTERM",
    "SIGHUP",
    "SIGUSR1",
    "SIGUSR2",
    "SIGQUIT",
];

/// The precise cause of an uncharted item (see the module doc).
fn explain(
    run: &RunView,
    file: FileId,
    item: &CensusItem,
    event: bool,
    budget: Option<&(Location, String)>,
    depth: &[(Location, String)],
    computed_imports: &[Location],
) -> Why {
    let project = run.project;
    let rec = &run.interp.census;
    let here = |f: FileId, l: u32| format!("{}:{l}", project.rel(f));
    let seen = rec.sites.get(&(file, item.line));
    let call = item.describe();
    let not_a = if event {
        "not-a-socket"
    } else {
        "not-a-router"
    };
    let receiver = &item.receiver;
    if let Some(why) = run.unanswered.get(&(file, item.line)) {
        return Why {
            cause: "skipped",
            reason: why.clone(),
        };
    }
    if item.kind == CensusKind::FileRoute {
        return Why {
            cause: "unmodelled-framework",
            reason: "the module exports handlers named after HTTP methods for a file-based router (Medusa's or Next.js's `route.ts`, SvelteKit's `+server.ts`), which Portolan does not model; the routes its folder names are not charted".into(),
        };
    }
    if let (Some(l), Some(p)) = (item.controller, &item.framework)
        && !crate::libs::is_modelled(p)
    {
        return Why {
            cause: "unmodelled-framework",
            reason: format!(
                "the controller class at {} is declared with `{p}`, a framework Portolan does not model; its routes are not charted",
                here(file, l)
            ),
        };
    }
    if seen.and_then(|s| s.main).is_none()
        && let Some(p) = item
            .receiver_package
            .as_deref()
            .filter(|p| !routing_package(p))
    {
        return Why {
            cause: not_a,
            reason: if OTHER_FRAMEWORKS.contains(&p) {
                format!("`{receiver}` belongs to `{p}`, an HTTP framework other than Express")
            } else {
                format!(
                    "`{receiver}` comes from the package `{p}`, not {}",
                    if event { "Socket.IO" } else { "Express" }
                )
            },
        };
    }
    if !event
        && seen.and_then(|s| s.main).is_none()
        && let Some(client) = receiver
            .split(['.', '(', '[', '?'])
            .find(|seg| HTTP_CLIENTS.contains(seg))
    {
        return Why {
            cause: not_a,
            reason: format!(
                "`{receiver}` is an HTTP client (`{client}` sends requests; it does not serve them)"
            ),
        };
    }
    if !event && !run.reached.contains(&file) && !run.imported.contains(&file) {
        let rel = project.rel(file);
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let near = computed_imports.iter().find(|l| {
            let d = l.file.rsplit_once('/').map_or("", |(d, _)| d);
            d.is_empty() || dir == d || dir.starts_with(&format!("{d}/"))
        });
        return match near {
            Some(l) => Why {
                cause: "dynamic-import",
                reason: format!(
                    "no entry reaches this file; it may be the module the computed import at {}:{} loads",
                    l.file, l.line
                ),
            },
            None => Why {
                cause: "unreached-file",
                reason: "no entry reaches this file (pass it with --entry if it is a program of its own)".into(),
            },
        };
    }
    if let Some(l) = item.controller {
        return Why {
            cause: "unmounted-router",
            reason: format!(
                "the controller class at {} is not among the controllers the analysis found an application serving",
                here(file, l)
            ),
        };
    }
    if let Some(s) = seen {
        if let Some((f, l)) = s.dyn_loop {
            return Why {
                cause: "dynamic-loop",
                reason: format!("it runs in the loop over run-time values at {}", here(f, l)),
            };
        }
        let recv = if event {
            s.main.or(s.later)
        } else {
            s.main.or(match s.later {
                Some(r @ (Recv::Other | Recv::External | Recv::Socket)) => Some(r),
                _ => None,
            })
        };
        match recv {
            Some(Recv::Router(id)) if !event => {
                let r = &run.interp.routers[id as usize];
                return Why {
                    cause: "unmounted-router",
                    reason: format!(
                        "it runs on the {} created at {}, which no entry's app mounts",
                        if r.is_app { "app" } else { "router" },
                        here(r.file, r.line)
                    ),
                };
            }
            Some(Recv::Socket) if event => {
                return Why {
                    cause: "dynamic-event",
                    reason: format!(
                        "{call} runs on a Socket.IO object, but its event name is only known at run time"
                    ),
                };
            }
            Some(Recv::Socket) => {
                return Why {
                    cause: not_a,
                    reason: format!(
                        "`{receiver}` is a Socket.IO object (Socket.IO middleware, not HTTP)"
                    ),
                };
            }
            Some(Recv::Router(_)) | Some(Recv::Other) => {
                return Why {
                    cause: not_a,
                    reason: format!(
                        "`{receiver}` is a value the program builds that is not {}",
                        if event {
                            "a Socket.IO object"
                        } else {
                            "an Express app or router"
                        }
                    ),
                };
            }
            Some(Recv::External) => {
                return Why {
                    cause: not_a,
                    reason: format!(
                        "`{receiver}` comes from an installed package or the runtime, not {}",
                        if event { "Socket.IO" } else { "Express" }
                    ),
                };
            }
            Some(Recv::Dynamic | Recv::Param) => {
                // A callback handed to a package's function gets its values from that package.
                if let Some((id, name, line)) = item.enclosing.last()
                    && let Some(&(f, l)) = rec.handed.get(&(file, *id))
                {
                    // (A receiver in Socket.IO's own vocabulary, `io.of(name)`,
                    // is taken for Socket.IO's, handed over like an HTTP host.)
                    return if event && item.socket_shape != SocketShape::Io {
                        Why {
                            cause: not_a,
                            reason: format!(
                                "`{receiver}` comes from the package function that calls `{name}` ({}) at {}, not from Socket.IO",
                                here(file, *line),
                                here(f, l)
                            ),
                        }
                    } else {
                        Why {
                            cause: "external-host",
                            reason: format!(
                                "`{receiver}` is what a package's function at {} hands to `{name}` ({}); what that package registers is not known",
                                here(f, l),
                                here(file, *line)
                            ),
                        }
                    };
                }
                return Why {
                    cause: "unknown-receiver",
                    reason: format!("{call} runs, but `{receiver}` is only known at run time"),
                };
            }
            None => {}
        }
    }
    // Not run in the routing phase: the outermost enclosing function nobody called.
    let blocker = item
        .enclosing
        .iter()
        .find(|(id, _, _)| !rec.entered.contains(&(file, *id)));
    if let Some(why) = recursion_limit(project, item, file, depth) {
        return why;
    }
    if let (Some((b, msg)), true) = (budget, blocker.is_some() || seen.is_none()) {
        let inside = msg
            .split('`')
            .nth(1)
            .map(|n| format!(" entering `{n}`"))
            .unwrap_or_default();
        return Why {
            cause: "budget",
            reason: format!(
                "the analysis budget ran out{inside} ({}:{}); calls past that point were not followed",
                b.file, b.line
            ),
        };
    }
    if let Some((id, name, line)) = blocker {
        if let Some(&(f, l)) = rec
            .handed
            .get(&(file, *id))
            .or_else(|| rec.handed_names.get(&(file, name.clone())))
        {
            return Why {
                cause: "external-host",
                reason: format!(
                    "the enclosing function `{name}` ({}) is handed to a package's function at {}, which is not followed",
                    here(file, *line),
                    here(f, l)
                ),
            };
        }
        return Why {
            cause: "uncalled-function",
            reason: format!(
                "the enclosing function `{name}` ({}) is never called",
                here(file, *line)
            ),
        };
    }
    if !run.interp.touched.contains(&file) {
        return if run.imported.contains(&file) {
            Why {
                cause: "skipped",
                reason: "a reached module imports this file, but the analysis never needed what it exports, so its top level did not run".into(),
            }
        } else {
            Why {
                cause: "unreached-file",
                reason: "no entry reaches this file".into(),
            }
        };
    }
    if let Some(why) = recursion_limit(project, item, file, depth) {
        return why;
    }
    Why {
        cause: "skipped",
        reason: match &item.condition {
            Some((test, line)) => format!(
                "the code around it runs, but this call is not reached: it is under `if ({test})` ({}), which the analysis decided, or after an early return",
                here(file, *line)
            ),
            None => "the code around it runs, but this call is not reached (an early return, or a condition the analysis decided)".into(),
        },
    }
}

/// An item inside a function whose calls hit the recursion or call-depth
/// limit: the registration may only run deeper than the analysis followed.
fn recursion_limit(
    project: &Project,
    item: &CensusItem,
    file: FileId,
    depth: &[(Location, String)],
) -> Option<Why> {
    let rel = project.rel(file);
    item.enclosing.iter().rev().find_map(|(_, name, line)| {
        let (at, msg) = depth.iter().find(|(l, _)| l.file == rel && l.line == *line)?;
        let limit = msg
            .split("deeper than ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .unwrap_or("the limit of");
        Some(Why {
            cause: "budget",
            reason: format!(
                "the recursion of `{name}` ({}:{}) was cut at {limit} levels (the analysis budget); this call may only run deeper than that",
                at.file, at.line
            ),
        })
    })
}

/// Whether a file imports Socket.IO (server or client), statically, at its
/// top level or in a function.
fn imports_socket_io(facts: &FileFacts) -> bool {
    let sio = |s: &str| s.starts_with("socket.io") || s.starts_with("@nestjs/websockets");
    facts.static_sources().any(sio)
        || facts.eager.iter().any(|s| sio(s))
        || facts
            .fn_imports
            .iter()
            .any(|(_, v)| v.iter().any(|s| sio(s)))
}

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

/// The package whose top-level name `e` calls or constructs (`fastify()`,
/// `new Koa()`, `Fastify({ logger })`, `new Hono().basePath('/x')`).
fn made_by(e: &Expr, bound: &[(String, String)]) -> Option<String> {
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
fn other_framework(facts: &FileFacts) -> Option<String> {
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

/// `require('p')`, `require('p')(...)`, `require('p').x`: the specifier.
fn required(e: &Expr) -> Option<&str> {
    match e {
        Expr::Call(c) => match (&c.callee, c.args.first()) {
            (Expr::Ident(r), Some(Expr::Str(s))) if r == "require" => Some(s),
            (callee, _) => required(callee),
        },
        Expr::Member(o, _) | Expr::Await(o) => required(o),
        _ => None,
    }
}

/// Names HTTP clients go by in a receiver (`this.axios.patch(...)`,
/// `this.$http.get(...)`, `httpClient.post(...)`): a name rule, like the
/// Socket.IO one, for calls whose receiver the evaluation did not see.
const HTTP_CLIENTS: &[&str] = &[
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
const OTHER_FRAMEWORKS: &[&str] = &[
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
fn routing_package(p: &str) -> bool {
    if OTHER_FRAMEWORKS.contains(&p) {
        return false;
    }
    let base = p.split('/').next().unwrap_or(p);
    base.contains("express")
        || base.contains("router")
        || base.starts_with("socket.io")
        || base.starts_with("@nestjs")
}
