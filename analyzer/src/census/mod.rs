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
//!   ...middlewares, wrap(r.callback))`; `client.get(url, options)` is left
//!   out, and so is `cache.get(key, store, function (err, v) {…})`, whose
//!   error-first callback Express never calls as a handler). Chains
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
//!   around them ran. Also `this.m(...)` (not registration-shaped) in a
//!   method of a class that extends a named class and does not declare `m`
//!   itself (`this.route({ method, path, handler })` in `class Users
//!   extends Controller`): kept when the evaluation saw a registration made
//!   while it ran, or when the base class's module has a function `m` that
//!   holds a real registration.
//!
//! Each item keeps the functions that enclose it (outermost first), so the
//! accounting can name the function that was never called.
//!
//! - route decorators on the methods of a class whose decorator is
//!   controller-like (`@Controller`, `@controller`, `@JsonController`,
//!   `@RestController`, `@Route`, typescript-rest's `@Path`), whatever
//!   package they come from: a verb (also written bare, `@GET`)
//!   (`@Get('x')`, `@Post()`, `@httpGet('/x')`, `@All()`) or a method
//!   decorator (routing-controllers' `@Method('get', 'x')`,
//!   inversify-express-utils' `@httpMethod('get', '/x')`) with a path
//!   literal or no path, at the decorator's line. The package the class
//!   decorator is imported from is kept: a controller of a package Portolan
//!   does not model is accounted for as `unmodelled-framework`. On a class
//!   with no controller decorator, the verb decorators of a framework whose
//!   controllers are plain classes (FoalTS's `@Get('/x')` from
//!   `@foal/core`; LoopBack 4's `@get('/x')`, `@del('/x')` and
//!   `@operation('get', '/x')` from `@loopback/rest`; `libs::bare_controllers`).
//!
//! - handlers a module exports under an HTTP method's name for a file-based
//!   router (`export const GET = async (req, res) => …`, `export async
//!   function POST`; a function or a call's result, at the top level), as
//!   Medusa's and Next.js's `route.ts` and SvelteKit's `+server.ts` do:
//!   Medusa's are charted (`libs/medusa.rs`; other files of its `src/api`
//!   are `not-a-router`), the others are accounted for as
//!   `unmodelled-framework`.
//!
//! - a REST resource generator's resources: `X.resource({ model, … })`
//!   (finale-rest, epilogue), one item at the call.
//!
//! Deliberately not captured: calls of a method the enclosing class declares
//! itself (`this.get('/rooms', cb)`, or `self.post(…)` with `const self =
//! this`, in a class with its own `get`/`post`: an HTTP client's helpers, a
//! wrapper whose own method registers, where the registration is counted),
//! other decorators, `app[verb]` computed calls
//! (the evaluation reports those itself), calls through `.call`/`.apply`,
//! `X.route(p)` with no verb after it, and a verb call that is awaited or
//! has `.then`/`.catch`/`.finally` chained on it (`await $.http.post('/books',
//! body)`: Express's verb methods return the app or router, so that is an
//! HTTP client's request), and `use` and verb calls Express would refuse or
//! whose chain returns something no app or router is ([`shape`]:
//! `md.use(plugin, { label: false })`, `indexes.use(name).search({…})`).

use crate::ir::{Class, Expr, FileFacts, Func, ObjProp, Pattern, PropKey, Stmt};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::rc::Rc;

mod client_package;
pub(crate) use client_package::{imports_client_framework, in_client_package, is_client_path};
mod account;
mod declared;
mod imported;
mod loads;
mod packages;
mod registering;
mod shape;
mod sockets;
use sockets::{socket_like, socket_shape};

pub(crate) use account::{RunView, account, counts_unread, files, imported_by};
pub(crate) use declared::Declared;
use declared::{constructed_members, declared_origin, type_name, typed_members};
pub(crate) use loads::LoadSite;
use packages::{Written, made_by_packages, other_framework, receiver_slots, required, slot};
pub(crate) use packages::{named_package_imports, top_level_packages};
use shape::{
    handler_like, node_callback, path_like, path_literal, promised_verb_call, route_chain_path,
    spread_then_handler,
};

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
    /// Rooted at the parameter of a function handed to an `on('connection'
    /// | 'connect', …)` whose receiver is [`SocketShape::Io`]
    /// (`nsp.on('connection', (socket) => socket.emit('hello'))`): the
    /// socket Socket.IO hands its connection listener, whatever its name.
    Connection,
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
    /// A method `this` inherits from a class a project module gives (its
    /// specifier): it counts when a function of that name there registers.
    Inherited(String),
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
    /// the top level (`import pm2 from 'pm2'` for `pm2.delete(...)`), or
    /// whose value every write of that name in the file is (`client =
    /// axios.create(…)`, see [`packages::made_by_packages`]), if any.
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
    /// decorator is imported from (`inversify-express-utils`), or, on a
    /// class without one, the verb decorator (`@foal/core`), if any.
    #[serde(default)]
    pub(crate) framework: Option<String>,
    /// For a route decorator: its class has no controller decorator
    /// (FoalTS's controllers are plain classes); `controller` is then the
    /// class's own line.
    #[serde(default)]
    pub(crate) bare_class: bool,
    /// For a registering call of a method `this` inherits
    /// (`this.route({...})` in `class Users extends Controller`): the name
    /// of the class extended.
    #[serde(default)]
    pub(crate) inherited: Option<String>,
    /// For an HTTP item on `this.member` or a parameter whose declaration
    /// names a type (`constructor(private cache: CacheService)`, `function
    /// f(svc: Svc)`): that type, when the file imports or declares it.
    #[serde(default)]
    pub(crate) declared: Option<Declared>,
    /// For a `use` whose handlers are all names bound at the top level to
    /// an installed package's value itself, never called (`md.use(abbr)`
    /// with `const abbr = require('markdown-it-abbr')`): (the first name,
    /// its specifier). (While walking: the names, comma-joined.)
    #[serde(default)]
    pub(crate) plugin: Option<(String, String)>,
    /// While walking: the property slots of the receiver's chain, root
    /// first (`this.api.interceptors.request` → `.api`, `.interceptors`,
    /// `.request`), resolved into `receiver_package` (see
    /// [`made_by_packages`]).
    #[serde(skip)]
    pub(crate) receiver_slots: Vec<String>,
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
            bare_class: false,
            inherited: None,
            declared: None,
            plugin: None,
            receiver_slots: Vec::new(),
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
        if self.method.starts_with('[') {
            return format!("`{}{}({}…)`", self.receiver, self.method, self.first);
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
pub(crate) fn collect(facts: &FileFacts) -> (Vec<CensusItem>, Vec<LoadSite>) {
    let mut w = Walker {
        out: Vec::new(),
        loads: Vec::new(),
        stack: Vec::new(),
        conds: Vec::new(),
        calls: Vec::new(),
        data: Vec::new(),
        this_methods: Vec::new(),
        this_aliases: Vec::new(),
        next_method_of: None,
        packages: top_level_packages(facts),
        writes: Vec::new(),
        typed_params: Vec::new(),
        foreign: HashSet::new(),
        connection_sockets: Vec::new(),
        next_connection: false,
        handoffs: sockets::socket_handoffs(&facts.body),
    };
    w.stmts(&facts.body, 0);
    let imported = imported_names(facts);
    let calls = registering_calls(facts, &w.out, std::mem::take(&mut w.calls));
    let packages = std::mem::take(&mut w.packages);
    let made = made_by_packages(&w.writes);
    let framework = other_framework(facts);
    for it in &mut w.out {
        if let Some(root) = it.framework.take() {
            // (The walker left the controller decorator's root name here,
            // or the verb decorator's on a class without one.)
            it.framework = imported
                .iter()
                .find(|(n, _)| *n == root)
                .map(|(_, p)| p.clone());
            continue;
        }
        let root = it.receiver.split(['.', '(', '[', '?']).next().unwrap_or("");
        // The root name's package, else the first property slot of the
        // chain every write of which in the file is one package's value
        // (`this.api = axios.create()`, a class field `api = ky.create()`,
        // then `this.api.post('/x', body)`).
        let slots = std::mem::take(&mut it.receiver_slots);
        it.receiver_package = packages
            .iter()
            .chain(&made)
            .find(|(n, _)| n == root)
            .or_else(|| slots.iter().find_map(|s| made.iter().find(|(n, _)| n == s)))
            .map(|(_, p)| p.clone());
        // In a file that uses another HTTP framework and not Express, an
        // HTTP registration on a name bound elsewhere is that framework's.
        if it.receiver_package.is_none() && it.kind != CensusKind::Event {
            it.receiver_package = framework.clone();
        }
    }
    let values = packages::package_values(facts);
    for it in &mut w.out {
        if let Some((names, _)) = it.plugin.take() {
            let specs: Option<Vec<&String>> = names
                .split(',')
                .map(|n| values.iter().find(|(v, _)| v == n).map(|(_, p)| p))
                .collect();
            it.plugin = specs
                .and_then(|s| s.first().copied())
                .map(|p| (names.split(',').next().unwrap_or("").to_string(), p.clone()));
        }
        if let Some(d) = it.declared.take() {
            it.declared = declared_origin(facts, &d.ty);
        }
    }
    w.out.retain(|it| {
        !it.bare_class
            || it
                .framework
                .as_deref()
                .is_some_and(crate::libs::bare_controllers)
    });
    w.out.extend(calls);
    if let Some(line) = shape::default_handler(facts) {
        w.out.push(CensusItem::new(
            CensusKind::FileRoute,
            line,
            "default".into(),
            String::new(),
            "export".into(),
        ));
    }
    w.out.sort_by_key(|i| (i.line, i.kind, i.method.clone()));
    w.out
        .dedup_by(|a, b| a.line == b.line && a.kind == b.kind && a.method == b.method);
    (w.out, w.loads)
}

/// The installed package a `require` in an expression gives whole, or the
/// first of the two a choice between requires gives (`const H =
/// url.protocol === 'http:' ? require('node:http') : require('node:https')`),
/// wherever it is written.
fn required_package(e: &Expr) -> Option<String> {
    let package = |e: &Expr| {
        let Expr::Call(c) = e else { return None };
        let s = required(e).filter(|_| matches!(&c.callee, Expr::Ident(r) if r == "require"))?;
        (!(s.starts_with('.') || s.starts_with('/') || s.starts_with("@/"))).then(|| s.to_string())
    };
    match e {
        Expr::Cond(_, _, a, b) => {
            let (a, b) = (package(a)?, package(b)?);
            Some(a).filter(|_| !b.is_empty())
        }
        e => package(e),
    }
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
            if let Some(sup) = &c.inherited {
                // The base class of this file, or one a relative import gives.
                c.target = Some(if regs.contains(&c.method) {
                    CallTarget::Local
                } else {
                    CallTarget::Inherited(imports.iter().find(|(n, _)| n == sup)?.1.clone())
                });
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
pub(super) fn bindings_from(
    facts: &FileFacts,
    source: impl Fn(&str) -> bool,
) -> Vec<(String, String)> {
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
    VERBS.contains(&name)
        || matches!(name, "use" | "param" | "emit")
        || crate::machine::emitters::is_listen_method(name)
}

struct Walker {
    out: Vec<CensusItem>,
    /// Literal `require`/`import()` calls inside functions.
    loads: Vec<LoadSite>,
    stack: Vec<(u32, String, u32)>,
    /// Enclosing `if` tests (text, line), with the function depth they belong to.
    conds: Vec<(String, u32, usize)>,
    /// Calls of a plain name with arguments (`setup(app)`), or of what a
    /// relative `require` gives (`require('./routes')(app)`): candidates for
    /// registering calls, kept when the callee turns out to register.
    calls: Vec<CensusItem>,
    /// Names a `const`/`let`/`var` binds to an object, string, number or
    /// boolean literal, with the function depth (`stack.len()`) they belong
    /// to: data, never a handler (Express refuses an object as a callback),
    /// so `client.post('/rest/issue', issue)` with `const issue = { … }` is
    /// an HTTP client sending data, not a route.
    data: Vec<(usize, String)>,
    /// What `this` is in each enclosing function, innermost last: the
    /// instance methods of the class whose method (or constructor) it is, or
    /// `None` (a plain function, an object literal's method, the top level).
    /// An arrow function keeps its parent's. `this.get('/rooms', cb)` in a
    /// class that declares its own `get` calls that method (an HTTP client's
    /// helper, a wrapper): it is no registration, so no census item.
    this_methods: Vec<Option<OwnMethods>>,
    /// Names bound to `this` (`const self = this`), with the function depth
    /// they belong to and what `this` was there.
    this_aliases: Vec<(usize, String, Option<OwnMethods>)>,
    /// The class whose method `func` walks next (set by `class`).
    next_method_of: Option<OwnMethods>,
    /// The top-level names bound to installed packages ([`top_level_packages`]).
    packages: Vec<(String, String)>,
    /// Every write of a name anywhere in the file (a declaration with a
    /// value, an assignment, a parameter) or of a property slot
    /// (`x.frag['MAIN'] = …` writes `.frag[]`), with what it stores
    /// (`client = axios.create(…)` stores axios's value): see
    /// [`made_by_packages`].
    writes: Vec<(String, Written)>,
    /// Parameters whose annotation names a type, with the function depth
    /// they belong to: (depth, name, type name).
    typed_params: Vec<(usize, String, String)>,
    /// The `use` and verb calls (by address) of chains that are not an
    /// Express app's or router's ([`shape::foreign_links`]).
    foreign: HashSet<usize>,
    /// The parameters naming the socket of a Socket.IO connection listener
    /// ([`SocketShape::Connection`]), with the function depth they belong to.
    connection_sockets: Vec<(usize, String)>,
    /// The file's functions a connection listener hands its socket to, and
    /// at which argument (see [`sockets::socket_handoffs`]).
    handoffs: Vec<(String, usize)>,
    /// Set while walking the listener of such an `on('connection', …)`: the
    /// function `func` walks next is that listener.
    next_connection: bool,
}

/// The instance methods a class declares (and its fields holding functions),
/// and the name of the class it extends, when that is a plain name.
type OwnMethods = Rc<ThisClass>;

/// What the census knows of the class `this` is an instance of.
#[derive(Debug, Default)]
struct ThisClass {
    methods: Vec<String>,
    superclass: Option<String>,
    /// Members whose declaration names a type: constructor parameter
    /// properties and parameters the constructor stores as `this.name`,
    /// typed fields: (member, type name).
    typed: Vec<(String, String)>,
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
            Stmt::Expr(e) | Stmt::Throw(e, _) | Stmt::Return(Some(e)) => self.expr(e, None, d),
            Stmt::ExportDefault(e) => self.expr(e, Some("default"), d),
            Stmt::Var(decls) => {
                for (p, e) in decls {
                    if let Some(e) = e {
                        self.write(p, e);
                        let name = match p {
                            Pattern::Ident(n) => Some(n.as_str()),
                            _ => None,
                        };
                        if let (Some(n), Expr::This) = (name, e) {
                            let this = self.this_methods.last().cloned().flatten();
                            self.this_aliases
                                .push((self.stack.len(), n.to_string(), this));
                        }
                        if let Some(n) = name
                            && matches!(
                                e,
                                Expr::Object(_)
                                    | Expr::Str(_)
                                    | Expr::Template(..)
                                    | Expr::Num(_)
                                    | Expr::Bool(_)
                            )
                        {
                            self.data.push((self.stack.len(), n.to_string()));
                        }
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
            Stmt::ForOf(p, it, _, body, _, _) => {
                self.write_unknown(p);
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
            Stmt::While(w) => self.stmts(&w.body, d),
            Stmt::Block(body) => self.stmts(body, d),
            Stmt::Try(a, caught, b, c) => {
                if let Some(p) = caught.binding() {
                    self.write_unknown(p);
                }
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
        let this = match self.next_method_of.take() {
            Some(class) => Some(class),
            None if f.arrow => self.this_methods.last().cloned().flatten(),
            None => None,
        };
        for p in &f.params {
            self.write_unknown(p);
        }
        let connection = std::mem::take(&mut self.next_connection);
        self.stack.push((f.id, name, f.line));
        let depth = self.stack.len();
        if connection && let Some(Pattern::Ident(n)) = f.params.first() {
            self.connection_sockets.push((depth, n.clone()));
        }
        let name = &self.stack[depth - 1].1;
        for (_, i) in self.handoffs.iter().filter(|(m, _)| m == name) {
            if let Some(Pattern::Ident(n)) = f.params.get(*i) {
                self.connection_sockets.push((depth, n.clone()));
            }
        }
        for (p, t) in f.params.iter().zip(&f.param_types) {
            if let (Pattern::Ident(n), Some(t)) = (p, t.as_ref().and_then(type_name)) {
                self.typed_params.push((depth, n.clone(), t));
            }
        }
        self.this_methods.push(this);
        self.stmts(&f.body, d);
        self.this_methods.pop();
        self.stack.pop();
        let depth = self.stack.len();
        self.data.retain(|(k, _)| *k <= depth);
        self.this_aliases.retain(|(k, _, _)| *k <= depth);
        self.typed_params.retain(|(k, _, _)| *k <= depth);
        self.connection_sockets.retain(|(k, _)| *k <= depth);
    }

    /// Note a write of `e` to the names `p` binds, or to the property slot
    /// it assigns (see [`Walker::writes`]): `null` or `undefined` writes
    /// nothing yet (`let transport = null`).
    fn write(&mut self, p: &Pattern, e: &Expr) {
        let key = match p {
            Pattern::Ident(n) => n.clone(),
            Pattern::Target(t) => match slot(t) {
                Some(s) => s,
                None => return,
            },
            _ => return self.write_unknown(p),
        };
        self.write_key(key, e);
    }

    /// Note a write of `e` under `key` (a name, or a property slot such as
    /// `.client` for a class field `client = axios.create()`).
    fn write_key(&mut self, key: String, e: &Expr) {
        if matches!(e, Expr::Null | Expr::Undefined) {
            return;
        }
        let written = match packages::made_by(e, &self.packages).or_else(|| required_package(e)) {
            Some(p) => Written::Made(p),
            None => slot(e).map_or(Written::Other, Written::Slot),
        };
        self.writes.push((key, written));
    }

    /// Note the names `p` binds as written with a value not known here (a
    /// parameter, a destructured part, a loop variable, a caught error).
    fn write_unknown(&mut self, p: &Pattern) {
        let st = Stmt::Var(vec![(p.clone(), None)]);
        for n in crate::syntax::bound_names(&st) {
            self.writes.push((n, Written::Other));
        }
    }

    /// Whether `recv.m(...)` calls a method the enclosing class declares
    /// itself (`this.get(...)`, `self.post(...)` with `const self = this`).
    fn own_method(&self, recv: &Expr, m: &str) -> bool {
        self.this_class(recv)
            .is_some_and(|class| class.methods.iter().any(|x| x == m))
    }

    /// The class `recv` is the instance of, when it is `this` (or a name
    /// bound to it) in a method of a class.
    fn this_class(&self, recv: &Expr) -> Option<OwnMethods> {
        match recv {
            Expr::This => self.this_methods.last().cloned().flatten(),
            Expr::Ident(n) => self
                .this_aliases
                .iter()
                .rev()
                .find(|(_, a, _)| a == n)
                .and_then(|(_, _, t)| t.clone()),
            _ => None,
        }
    }

    /// The type the declaration of `recv` names, when `recv` is a member of
    /// `this` the class declares with a type, or a typed parameter.
    fn declared_type(&self, recv: &Expr) -> Option<String> {
        match recv {
            Expr::Member(o, f) => {
                let class = self.this_class(o)?;
                class
                    .typed
                    .iter()
                    .find(|(m, _)| m == f)
                    .map(|(_, t)| t.clone())
                    // A member of the class it extends (`this.http` in
                    // `class Orgs extends WithHttp`): `WithHttp#http`,
                    // resolved when accounting.
                    .or_else(|| class.superclass.as_ref().map(|s| format!("{s}#{f}")))
            }
            Expr::Ident(n) => self
                .typed_params
                .iter()
                .rev()
                .find(|(_, p, _)| p == n)
                .map(|(_, _, t)| t.clone()),
            _ => None,
        }
    }

    /// A handler-like argument that is not a name bound to data here.
    fn handler_arg(&self, e: &Expr) -> bool {
        handler_like(e) && !matches!(e, Expr::Ident(n) if self.data.iter().any(|(_, d)| d == n))
    }

    fn class(&mut self, c: &Class, d: u32) {
        if let Some(s) = &c.superclass {
            self.expr(s, None, d);
        }
        // The instance's own methods, and fields holding functions.
        let own: OwnMethods = Rc::new(ThisClass {
            methods: c
                .methods
                .iter()
                .map(|(n, _)| n.clone())
                .chain(
                    c.fields
                        .iter()
                        .filter(|(_, e)| matches!(e, Some(Expr::Func(_))))
                        .map(|(n, _)| n.clone()),
                )
                .collect(),
            superclass: match &c.superclass {
                Some(Expr::Ident(n)) => Some(n.clone()),
                _ => None,
            },
            typed: {
                let mut typed = typed_members(c);
                for (m, class) in constructed_members(c) {
                    if !typed.iter().any(|(n, _)| *n == m) {
                        typed.push((m, class));
                    }
                }
                typed
            },
        });
        for (n, e) in &c.fields {
            if let Some(e) = e {
                // (A field is a write of its slot: `this.api` reads it.)
                self.write_key(format!(".{n}"), e);
                if matches!(e, Expr::Func(_)) {
                    self.next_method_of = Some(own.clone());
                }
                self.expr(e, Some(n), d);
            }
        }
        for (n, e) in &c.static_fields {
            if let Some(e) = e {
                self.write_key(format!(".{n}"), e);
                self.expr(e, Some(n), d);
            }
        }
        if let Some(k) = &c.constructor {
            self.next_method_of = Some(own.clone());
            self.func(k, Some("constructor"), d);
        }
        for (n, f) in c.methods.iter().chain(&c.getters) {
            self.next_method_of = Some(own.clone());
            self.func(f, Some(n), d);
        }
        for (n, f) in c.static_methods.iter().chain(&c.static_getters) {
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
        let root_of = |e: &Expr| text(e).split('.').next().unwrap_or("").to_string();
        let ctl = c.decorators.iter().find(|d| {
            let n = last(&d.callee).to_ascii_lowercase();
            n.ends_with("controller") || n == "route" || n == "path"
        });
        // Without a controller decorator, a class's verb decorators count
        // when they come from a framework whose controllers need none
        // (FoalTS): `collect` keeps them only then, by the package that
        // binds the verb decorator's name.
        let (root, ctl_line) = match ctl {
            Some(ctl) => (Some(root_of(&ctl.callee)), ctl.line),
            None => (None, c.line),
        };
        let class = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        for (member, decs) in &c.member_decorators {
            for d in decs {
                let name = last(&d.callee);
                let lower = name.to_ascii_lowercase();
                let bare = lower.strip_prefix("http").unwrap_or(&lower);
                // (`@del(path)` is LoopBack 4's DELETE, on a plain class.)
                let first = if VERBS.contains(&bare) && (bare != "del" || ctl.is_none()) {
                    d.args.first()
                } else if bare == "method" || (bare == "operation" && ctl.is_none()) {
                    // `@Method('get', path)`, `@httpMethod('get', path)`,
                    // LoopBack 4's `@operation('get', path)`.
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
                    controller: Some(ctl_line),
                    target: None,
                    socket_shape: SocketShape::Plain,
                    framework: Some(root.clone().unwrap_or_else(|| root_of(&d.callee))),
                    bare_class: root.is_none(),
                    inherited: None,
                    declared: None,
                    plugin: None,
                    receiver_slots: Vec::new(),
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
                shape::foreign_links(c, &mut self.foreign);
                self.call(c);
                self.expr(&c.callee, None, d);
                let connection = connection_listener(c);
                for a in &c.args {
                    self.next_connection = connection && matches!(a, Expr::Func(_));
                    self.expr(a, None, d);
                }
                self.next_connection = false;
            }
            // `await http.post('/books', body)`, `api.get('/x', opts).then(…)`:
            // Express's verb methods return the app or router, which nobody
            // awaits or chains a promise on; such a call is an HTTP client's
            // request, not a registration (its arguments are still read).
            Expr::Await(v) if let Some(c) = promised_verb_call(v) => {
                self.expr(&c.callee, None, d);
                for a in &c.args {
                    self.expr(a, None, d);
                }
            }
            Expr::Member(o, n)
                if matches!(n.as_str(), "then" | "catch" | "finally")
                    && let Some(c) = promised_verb_call(o) =>
            {
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
            | Expr::Arith(_, a, b)
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
                self.write(p, v);
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
        if !self.stack.is_empty()
            && let (Expr::Ident(n), Some(Expr::Str(spec))) = (&c.callee, c.args.first())
            && (n == "require" || n == "import")
        {
            self.loads.push(LoadSite {
                spec: spec.clone(),
                dynamic: n == "import",
                line: c.line,
                enclosing: self.stack.clone(),
            });
        }
        // `f.call(thisArg, …args)` runs `f(…args)` with `this` bound
        // (Function.prototype.call): `app[method].call(app, path, handler)`
        // and `router.get.call(router, '/x', h)` are the verb calls they wrap.
        if let Expr::Member(inner, m) = &c.callee
            && m == "call"
            && matches!(**inner, Expr::Index(..) | Expr::Member(..))
            && !c.args.is_empty()
        {
            let unbound = crate::ir::Call {
                callee: (**inner).clone(),
                args: c.args[1..].to_vec(),
                line: c.line,
                type_args: Vec::new(),
                doc: c.doc.clone(),
            };
            return self.call(&unbound);
        }
        // RxJS's `fromEvent(socket, 'name')`: a listener of the socket.
        if crate::libs::rxjs::census_from_event(&c.callee, &c.args)
            && let Some(shape) = socket_shape(&c.args[0]).filter(|s| *s != SocketShape::Plain)
        {
            let mut it = CensusItem::new(
                CensusKind::Event,
                c.line,
                "on".into(),
                short_text(&c.args[1]),
                receiver_text(&c.args[0]),
            );
            it.socket_shape = shape;
            it.receiver_slots = receiver_slots(&c.args[0]);
            self.push_here(it);
        }
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
            // `resource({ list, create, … })` of resource-router-middleware:
            // a route per key that registers, at the call.
            if self
                .packages
                .iter()
                .any(|(n, p)| *n == name && p == crate::libs::resource_router::PACKAGE)
            {
                for method in crate::libs::resource_router::census_routes(&c.args) {
                    let it = CensusItem::new(
                        CensusKind::Route,
                        c.line,
                        method.to_string(),
                        String::new(),
                        name.clone(),
                    );
                    self.push_here(it);
                }
            }
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
                bare_class: false,
                inherited: None,
                declared: None,
                plugin: None,
                receiver_slots: Vec::new(),
            });
            return;
        }
        // `router[method](path, handler)`, `app[r.verb](…)`: a verb chosen at
        // run time, counted as a route when the key names a method, the
        // receiver is named as an app or router, and a handler follows a path (a table the analysis walks charts it at
        // this line; metadata it cannot see leaves it to a finding).
        if let Expr::Index(recv, key) = &c.callee {
            let key_text = crate::machine::expr_text(key).to_ascii_lowercase();
            let verb_key = !matches!(**key, Expr::Str(_))
                && (key_text.contains("method") || key_text.contains("verb"));
            // On an app or router by its name (`router`, `apiRouter`, `this.app`,
            // `expressApp`): `db[method](…)` and `user[method](…)` are not.
            let recv_name = match &**recv {
                Expr::Ident(n) | Expr::Member(_, n) => n.to_ascii_lowercase(),
                _ => String::new(),
            };
            let on_router = recv_name.contains("router") || recv_name.ends_with("app");
            let first = c.args.first();
            let shaped = c.args.len() >= 2
                && first.is_some_and(|p| !matches!(p, Expr::Func(_) | Expr::Object(_)))
                && c.args[1..].iter().any(|a| {
                    matches!(
                        a,
                        Expr::Func(_)
                            | Expr::Ident(_)
                            | Expr::Member(..)
                            | Expr::Spread(_)
                            // A handler a factory makes (`wrap(route.handler)`).
                            | Expr::Call(_)
                    )
                });
            if verb_key && on_router && shaped {
                let it = CensusItem::new(
                    CensusKind::Route,
                    c.line,
                    format!("[{}]", shorten(&crate::machine::expr_text(key), 24)),
                    first.map(short_text).unwrap_or_default(),
                    receiver_text(recv),
                );
                self.push_here(it);
            }
            return;
        }
        let Expr::Member(recv, method) = &c.callee else {
            return;
        };
        let m = method.as_str();
        if self.own_method(recv, m) || self.foreign.contains(&(std::ptr::from_ref(c) as usize)) {
            return;
        }
        // A prepared SQL statement's `get`/`all` (`db.prepare(sql).get(id,
        // user)`: better-sqlite3, `node:sqlite`), not a route.
        if VERBS.contains(&m) && shape::prepared_statement(recv) {
            return;
        }
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
                    // A path a name, member or call gives (`urljoin(base,
                    // 'api/signin')`), or a prefix a name or member holds
                    // joined to a segment (`config.API_PREFIX + 'blocks/:hash'`):
                    // a handler function or member must follow.
                    let prefixed =
                        |a: &Expr, b: &Expr| !path_literal(a) && shape::prefixed_segment(a, b);
                    let computed = match first {
                        Some(Expr::Ident(_) | Expr::Member(..) | Expr::Call(_)) => true,
                        Some(Expr::Add(a, b)) => prefixed(a, b),
                        // A list of such paths (`[base + '/admin', base +
                        // '/admin/*']`): Express matches each.
                        Some(Expr::Array(items)) => {
                            items
                                .iter()
                                .any(|i| matches!(i, Expr::Add(a, b) if prefixed(a, b)))
                                && items.iter().all(|i| match i {
                                    Expr::Add(a, b) => prefixed(a, b) || path_literal(i),
                                    i => path_like(i) || matches!(i, Expr::Template(..)),
                                })
                        }
                        _ => false,
                    };
                    let ok = !shape::refuses_handlers(rest)
                        && if computed {
                            !rest.iter().any(node_callback)
                                && (rest
                                    .iter()
                                    .any(|a| matches!(a, Expr::Func(_) | Expr::Member(..)))
                                    || spread_then_handler(rest))
                        } else {
                            first.is_some_and(|p| {
                                path_like(p) && rest.iter().any(|a| self.handler_arg(a))
                            })
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
            let checked = shape::after_path("use", &c.args);
            (rest.iter().any(handler_like) && !shape::refuses_handlers(checked)).then(|| {
                let names: Vec<String> = rest
                    .iter()
                    .map_while(|a| match a {
                        Expr::Ident(n) => Some(n.clone()),
                        _ => None,
                    })
                    .collect();
                CensusItem {
                    plugin: (names.len() == rest.len()).then(|| (names.join(","), String::new())),
                    ..item(CensusKind::Use, path)
                }
            })
        } else if m == "resource" {
            // A REST resource generator's resource (`finale.resource({ model,
            // endpoints })`, `libs/finale.rs`): its routes, sited at the call.
            let endpoints = match c.args.first() {
                Some(Expr::Object(props)) if props.iter().any(|p| prop_named(p, "model")) => props
                    .iter()
                    .find_map(|p| match p {
                        ObjProp::KeyValue(PropKey::Name(k), v) if k == "endpoints" => Some(Some(v)),
                        _ => None,
                    })
                    .or(Some(None)),
                _ => None,
            };
            endpoints.map(|e| item(CensusKind::Route, e))
        } else if m == "route" && crate::libs::express_io::census_route(recv, &c.args) {
            // express.io's socket route (`app.io.route('rooms', { list })`):
            // its listeners, sited at the call.
            Some(CensusItem {
                socket_shape: SocketShape::Io,
                ..item(CensusKind::Event, c.args.first())
            })
        } else if m == "param" {
            let ok = matches!(c.args.first(), Some(Expr::Str(_) | Expr::Array(_)))
                && c.args.get(1).is_some_and(handler_like);
            ok.then(|| item(CensusKind::Param, c.args.first()))
        } else if m == "emit" || crate::machine::emitters::is_listen_method(m) {
            let named = c
                .args
                .first()
                .is_some_and(|a| !matches!(a, Expr::Func(_) | Expr::Object(_)));
            let handled = m == "emit" || c.args.get(1).is_some_and(handler_like);
            // (Engine.IO and adapter objects' events are not Socket.IO events.)
            let shape = socket_shape(recv).map(|shape| match shape {
                SocketShape::Plain | SocketShape::SocketName if self.connection_socket(recv) => {
                    SocketShape::Connection
                }
                shape => shape,
            });
            (named && handled && shape.is_some()).then(|| CensusItem {
                socket_shape: shape.unwrap_or_default(),
                ..item(CensusKind::Event, c.args.first())
            })
        } else {
            None
        };
        if let Some(mut it) = found {
            it.receiver_slots = receiver_slots(recv);
            if it.kind != CensusKind::Event {
                it.declared = self.declared_type(recv).map(|ty| Declared {
                    ty,
                    from: None,
                    name: String::new(),
                });
            }
            self.push_here(it);
        } else if let Some(sup) = self.this_class(recv).and_then(|t| t.superclass.clone()) {
            // `this.route({ method, path, handler })` in a subclass: a call of
            // a method the class inherits, which registers when that method
            // of the base class does (judged when accounting).
            let mut it = item(CensusKind::Call, c.args.first());
            it.inherited = Some(sup);
            self.calls.push(CensusItem {
                enclosing: self.stack.clone(),
                condition: self
                    .conds
                    .last()
                    .filter(|(_, _, depth)| *depth == self.stack.len())
                    .map(|(t, l, _)| (t.clone(), *l)),
                ..it
            });
        }
    }

    /// Record `it` where the walk is: in the functions it is inside, under
    /// the condition of its own function's innermost `if`, if any.
    /// Whether a receiver's root name is the socket of an enclosing Socket.IO
    /// connection listener ([`SocketShape::Connection`]).
    fn connection_socket(&self, recv: &Expr) -> bool {
        self.connection_sockets
            .iter()
            .any(|(_, n)| crate::libs::answers::rooted_at(recv, n))
    }

    fn push_here(&mut self, mut it: CensusItem) {
        it.enclosing = self.stack.clone();
        it.condition = self
            .conds
            .last()
            .filter(|(_, _, depth)| *depth == self.stack.len())
            .map(|(t, l, _)| (t.clone(), *l));
        self.out.push(it);
    }
}

/// Whether a call is `R.on|once('connection' | 'connect', listener)` on a
/// receiver in Socket.IO's own vocabulary (`io`, `nsp`, `x.of(name)`): a
/// Socket.IO server's connection listener, whose first parameter is a socket.
pub(super) fn connection_listener(c: &crate::ir::Call) -> bool {
    matches!(&c.callee, Expr::Member(recv, m)
        if matches!(m.as_str(), "on" | "once")
            && matches!(c.args.first(), Some(Expr::Str(n)) if n == "connection" || n == "connect")
            && socket_shape(recv) == Some(SocketShape::Io))
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

/// Whether an object literal's property is `name` (`name: v` or `name`).
fn prop_named(p: &ObjProp, name: &str) -> bool {
    matches!(p, ObjProp::KeyValue(PropKey::Name(k), _) if k == name)
}
