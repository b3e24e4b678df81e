//! Resolve stage: a small abstract interpreter over the facts of every file
//! reachable from the entries, recording Express apps, routers and their
//! registrations in program order.
//!
//! Detects: apps (`express()`, `new express()`, `require('express')()`),
//! routers (`express.Router()`, `Router()`, `new Router()`), verbs, `route()`
//! chains, `use()` mounts with middleware, settings (`app.set`), through
//! modules (ESM/CJS interop, barrels, dynamic `import()`), factories, classes,
//! registration functions, loops over constant arrays, callbacks and
//! conditionals. Example: `for (const {path, router} of MOUNTS) app.use(path, router)`
//! registers one mount per array element.
//!
//! The language itself lives beside this file: control flow in `flow`,
//! prototypes in `protos`, string and regex methods in `strings`, bounded
//! re-entry in `budget`; Node built-ins over the repository's own folders in
//! `node` and directory loader packages in `loaders`.
//!
//! Misses on purpose: values computed at run time (environment, files outside
//! the project, network) — registrations that depend on them become findings;
//! recursion beyond a fixed depth; code in functions nobody calls (except
//! routers found by the unmounted-router pass, and what the salvage pass runs:
//! `machine/salvage.rs`).

pub(crate) mod arrays;
pub(crate) mod budget;
pub(crate) mod builtins;
pub(crate) mod call;
pub(crate) mod census_rec;
pub(crate) mod choices;
pub(crate) mod decorators;
pub(crate) mod emitters;
pub(crate) mod env;
pub(crate) mod expr;
pub(crate) mod flow;
pub(crate) mod flow_shape;
pub(crate) mod forks;
pub(crate) mod hoisting;
pub(crate) mod maywrite;
pub(crate) mod members;
pub(crate) mod metadata;
pub(crate) mod modules;
pub(crate) mod node;
pub(crate) mod pages;
pub(crate) mod protos;
pub(crate) mod salvage;
pub(crate) mod state;
pub(crate) mod stmt;
pub(crate) mod strings;

pub(crate) use crate::libs::{GuardInfo, RawContract};
pub(crate) use arrays::{new_coll, primitive, spread_coll};
pub(crate) use call::use_strict;
pub(crate) use expr::typeof_name;
pub(crate) use members::member_of_builtin;
pub(crate) use node::NodeFn;
pub(crate) use salvage::{Salvage, SalvageKind};
pub(crate) use state::{DynLoop, HANDED_PATHS, HandedPath};

pub(crate) use crate::libs::{Frame, RESERVED_EVENTS, RawSite, SioServer, client_lifecycle};

pub(crate) use crate::inventory::FindingCode;
pub(crate) use crate::ir::*;
pub(crate) use crate::loader::{Loader, needle};
pub(crate) use crate::passes::Mode;
pub(crate) use crate::project::{FileId, Resolved};
pub(crate) use crate::value::*;
pub(crate) use std::cell::{Cell, RefCell};
pub(crate) use std::collections::{BTreeSet, HashMap, HashSet};
pub(crate) use std::rc::Rc;
pub(crate) use std::sync::Arc;

/// A repository file the run read: a JSON module, an OpenAPI document, the
/// text `fs.readFileSync` gave.
pub(crate) struct DataModule {
    /// What `require` gives (one object per file, as Node caches modules);
    /// `None` until required.
    pub(crate) value: Option<Value>,
    /// blake3 of its bytes, hex (empty when it could not be read).
    pub(crate) hash: String,
    /// First read while charting HTTP (not only while looking for events).
    pub(crate) http: bool,
}

/// One path argument of a registration.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PathArg {
    Str(String),
    Regex(String),
}

/// A handler passed to `use()`.
#[derive(Clone, Debug)]
pub(crate) enum UseHandler {
    Router(u32),
    /// A middleware, named as the chain writes it; for a function the chain
    /// can only call `<anonymous>`, which function it is (file, function id),
    /// so that a guard it is can be told ([`crate::libs::guards`]).
    Middleware(String, Option<(FileId, u32)>),
}

/// The route's final handler.
#[derive(Clone, Debug)]
pub(crate) struct HandlerRef {
    pub(crate) name: String,
    pub(crate) at: Option<(FileId, u32)>,
}

#[derive(Clone)]
pub(crate) enum RegKind {
    Use {
        paths: Vec<PathArg>,
        handlers: Vec<UseHandler>,
    },
    Route {
        method: String,
        paths: Vec<PathArg>,
        middleware: Vec<String>,
        handler: Option<HandlerRef>,
        /// What the handlers state about the request and responses.
        contract: Rc<RefCell<RawContract>>,
        /// The functions that run for the route (middleware and handler), to be read for the contract.
        funcs: Vec<Value>,
        /// The route answers every path under its own too: a function that
        /// answers, mounted with `use` (`app.use('/mcp', (req, res) => ...)`).
        subpaths: bool,
    },
    /// A router or app given as a route handler (`app.all('/entries*', router)`,
    /// `app.get('/v', router)`): Express calls it with the request as it is,
    /// without stripping the path, so its routes answer at their own paths,
    /// for the requests this route accepts (its method and path pattern).
    Dispatch {
        method: String,
        paths: Vec<PathArg>,
        /// The functions before the router on the route, in order.
        middleware: Vec<String>,
        routers: Vec<u32>,
    },
}

impl RegKind {
    /// A route a package answers itself (a GraphQL endpoint, a metrics page):
    /// no middleware, no handler function of the program, no stated contract.
    pub(crate) fn package_route(
        method: &str,
        paths: Vec<PathArg>,
        package: &str,
        subpaths: bool,
    ) -> RegKind {
        RegKind::Route {
            method: method.to_string(),
            paths,
            middleware: Vec::new(),
            handler: Some(HandlerRef {
                name: package.to_string(),
                at: None,
            }),
            contract: Rc::new(RefCell::new(RawContract::default())),
            funcs: Vec::new(),
            subpaths,
        }
    }
}

/// A registration on an app or router, in program order.
#[derive(Clone)]
pub(crate) struct Reg {
    pub(crate) kind: RegKind,
    pub(crate) file: FileId,
    pub(crate) line: u32,
    pub(crate) cond: Option<String>,
    pub(crate) doc: Option<String>,
    /// For a route registered inside a helper (`this.route({ path, handler })`
    /// calling `this.app[method](path, ...)`): the outermost call that handed
    /// the helper its path, where a reader sees the route declared.
    pub(crate) via: Option<(FileId, u32)>,
    /// The decorator whose property the path is (`@Get('/x')` recorded in
    /// metadata a registry loop reads; see `machine/decorators.rs`).
    pub(crate) declared: Option<(FileId, u32)>,
}

/// An app or router instance.
pub(crate) struct RouterData {
    pub(crate) is_app: bool,
    pub(crate) file: FileId,
    pub(crate) line: u32,
    pub(crate) regs: Vec<Reg>,
    pub(crate) settings: HashMap<String, Value>,
    /// Properties assigned on the instance (`app.resource = function ...`).
    pub(crate) props: HashMap<String, Value>,
    pub(crate) mounted: bool,
    /// Created while scanning files no entry reaches.
    pub(crate) unreached: bool,
    /// Created by code run only to find events (no registrations are kept).
    pub(crate) in_event_pass: bool,
    /// `router.param(name, fn)`: parameter name, callback name and value, in order.
    pub(crate) param_callbacks: Vec<(String, String, Value)>,
    /// Where `param(...)` was called on it (file, line): a census `param`
    /// item is charted when a router it ran on is walked.
    pub(crate) param_sites: Vec<(FileId, u32)>,
    /// Built by code the salvage pass ran (see `machine/salvage.rs`).
    pub(crate) salvage: Option<Rc<Salvage>>,
    /// The manifest it is sited at instead of `file` (an app a framework
    /// makes where no code of the repository does: `libs/medusa.rs`).
    pub(crate) manifest: Option<Rc<str>>,
    /// It stands for one of the routers a choice only known at run time
    /// made (`libs/express_choice.rs`): its regs mount each at `/` under the
    /// condition that chooses it, and mounting it mounts them.
    pub(crate) choice: bool,
    /// Express's strict routing: a route path's trailing slash is part of
    /// its path (`/game/` is not `/game`). Set by `express.Router({ strict:
    /// true })`, or by `app.set('strict routing', true)` (`enable`) before the
    /// app's first registration, when Express builds the app's router and
    /// reads the setting; later it has no effect.
    pub(crate) strict: bool,
}

/// A finding before it is turned into the public type.
#[derive(Clone, Debug)]
pub(crate) struct RawFinding {
    pub(crate) code: FindingCode,
    pub(crate) file: FileId,
    pub(crate) line: u32,
    pub(crate) message: String,
    /// A cause finer than the code (`assumed-default` for a `dynamic-path`
    /// charted under its default).
    pub(crate) cause: Option<&'static str>,
}

/// A module's scope and its exported name -> local name map.
pub(crate) type LiveBindings = (Rc<Scope>, HashMap<String, String>);

pub(crate) struct ModuleRec {
    pub(crate) exports: Rc<ObjData>,
    /// Module scope and exported-name -> local-name, for ESM live bindings.
    pub(crate) live: RefCell<Option<LiveBindings>>,
    pub(crate) module_obj: Rc<ObjData>,
    pub(crate) esm: Cell<bool>,
    pub(crate) stars: RefCell<Vec<FileId>>,
    pub(crate) done: Cell<bool>,
    /// For a module run to its end, which of its `export *` modules gives
    /// a name it does not export itself (`None`: none does), once every
    /// module asked had run to its end too. A barrel of barrels is asked
    /// for the same names again and again; without this each read walks
    /// the whole tree again (medusa's `@medusajs/framework/utils`).
    pub(crate) star_names: RefCell<HashMap<String, Option<FileId>>>,
}

#[derive(Clone)]
pub(crate) struct Ctx {
    pub(crate) file: FileId,
    pub(crate) scope: Rc<Scope>,
    pub(crate) this: Value,
    pub(crate) home: Option<Rc<ClassVal>>,
}

/// How a statement ends.
pub(crate) enum Flow {
    Normal,
    Return(Value),
    /// `break`, with its label.
    Break(Option<String>),
    /// `continue`, with its label.
    Continue(Option<String>),
    /// An exception on its way to the nearest `catch` or `finally` of the
    /// function (a throw does not cross function calls: see `invoke`).
    Throw(Value),
}

pub(crate) const HTTP_VERBS: &[&str] = &[
    "get",
    "post",
    "put",
    "patch",
    "delete",
    "del",
    "head",
    "options",
    "all",
    "trace",
    "copy",
    "lock",
    "mkcol",
    "move",
    "purge",
    "propfind",
    "proppatch",
    "unlock",
    "report",
    "mkactivity",
    "checkout",
    "merge",
    "m-search",
    "notify",
    "subscribe",
    "unsubscribe",
    "search",
    "link",
    "unlink",
];

/// Array methods that are values of their own (`[].slice.call(arguments)`).
pub(crate) const ARRAY_METHODS: &[&str] = &[
    "slice", "join", "concat", "map", "forEach", "filter", "reduce", "flat", "flatMap", "some",
    "every", "find", "push", "entries", "keys", "values",
];

/// Times one function may be on the stack at once (recursion over constant trees).
/// What every plain object inherits from `Object.prototype`: reading one of
/// these from an object that lacks it is not `undefined`.
pub(crate) const OBJECT_PROTOTYPE: &[&str] = &[
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
];

pub(crate) const MAX_RECURSION: usize = 8;
/// Call depth beyond which calls are not followed.
pub(crate) const MAX_CALL_DEPTH: usize = 48;
/// Total statements executed before the analysis stops following calls.
pub(crate) const STEP_BUDGET: u64 = 20_000_000;
/// Iterations of one constant loop before it is cut.
pub(crate) const MAX_ITERATIONS: usize = 10_000;

/// The interpreter: the project it reads and a run's state, in named parts
/// (`state.rs` says what goes where). The machine's code reads and writes
/// `js` and `running`; what it and the libraries observe goes to `rec`; the
/// passes of `passes.rs` set `modes` and drain `deferred`.
pub(crate) struct Interp {
    /// The project's files, their facts (parsed on demand) and the resolver.
    pub(crate) loader: Arc<Loader>,
    /// What the run writes (see [`state::Recorder`]).
    pub(crate) rec: state::Recorder,
    /// The JavaScript machine's state (see [`state::JsState`]).
    pub(crate) js: state::JsState,
    /// What the running code is inside (see [`state::Running`]).
    pub(crate) running: state::Running,
    /// The modes in force (see [`crate::passes::Modes`]).
    pub(crate) modes: crate::passes::Modes,
    /// Work kept for later passes (see [`state::Deferred`]).
    pub(crate) deferred: state::Deferred,
    /// Functions without parameters handed by name to a call the analysis
    /// cannot follow (`server.on('listening', onListening)`), with the file
    /// and line of that call: the callee calls them later, so they run after
    /// the entry's top level unless something called them by then (see
    /// [`Interp::run_handed`]).
    pub(crate) handed: Vec<(Value, FileId, u32)>,
    /// The salvage pass (see `machine/salvage.rs`).
    pub(crate) salvage: salvage::SalvageState,
    /// What the libraries keep during a run (`libs::LibState`).
    pub(crate) libs: crate::libs::LibState,
}

/// See [`Interp::pending_guesses`].
pub(crate) type PendingGuess = (Rc<RefCell<RawContract>>, Ctx, String, Vec<Value>, u32);

impl Interp {
    pub(crate) fn new(loader: Arc<Loader>) -> Interp {
        let globals = Scope::new(None);
        globals.define("Object", Value::Builtin(Builtin::ObjectNs));
        globals.define("Array", Value::Builtin(Builtin::ArrayNs));
        globals.define("Promise", Value::Builtin(Builtin::PromiseNs));
        globals.define("require", Value::Builtin(Builtin::Require));
        globals.define("undefined", Value::Undef);
        // Browser scripts get `io` from `<script src="/socket.io/socket.io.js">`.
        globals.define("io", Value::Builtin(Builtin::SocketIoClient));
        globals.define("Set", Value::Builtin(Builtin::SetCtor));
        globals.define("WeakSet", Value::Builtin(Builtin::SetCtor));
        globals.define("Map", Value::Builtin(Builtin::MapCtor));
        globals.define("WeakMap", Value::Builtin(Builtin::MapCtor));
        globals.define("Proxy", Value::Builtin(Builtin::ProxyCtor));
        for g in [
            "process",
            "console",
            "Math",
            "Date",
            "Buffer",
            "setTimeout",
            "setInterval",
            "Error",
        ] {
            globals.define(g, Value::external());
        }
        globals.define("Reflect", Value::Builtin(Builtin::ReflectNs));
        globals.define("RegExp", Value::Builtin(Builtin::FunctionCtor("RegExp")));
        globals.define("Boolean", Value::Builtin(Builtin::FunctionCtor("Boolean")));
        globals.define("String", Value::Builtin(Builtin::FunctionCtor("String")));
        globals.define("Symbol", Value::Builtin(Builtin::FunctionCtor("Symbol")));
        globals.define("Number", Value::Builtin(Builtin::FunctionCtor("Number")));
        globals.define("Date", Value::Builtin(Builtin::FunctionCtor("Date")));
        globals.define(
            "Function",
            Value::Builtin(Builtin::FunctionCtor("Function")),
        );
        globals.define("process", Value::Builtin(Builtin::Node(NodeFn::Process)));
        globals.define("JSON", Value::Builtin(Builtin::Node(NodeFn::Json)));
        globals.define("URL", Value::Builtin(Builtin::Node(NodeFn::UrlCtor)));
        for f in [
            "encodeURIComponent",
            "decodeURIComponent",
            "encodeURI",
            "decodeURI",
        ] {
            globals.define(f, Value::Builtin(Builtin::Node(NodeFn::UriCodec(f))));
        }
        // `global.x = …` in one module, `x` or `globalThis.x` in another.
        let global_obj = ObjData::new();
        globals.define("global", Value::Obj(global_obj.clone()));
        globals.define("globalThis", Value::Obj(global_obj.clone()));
        Interp {
            running: Default::default(),
            js: state::JsState {
                objects_made: 0,
                maybe_items: HashMap::new(),
                emitters: Vec::new(),
                initializing: Vec::new(),
                settled: Vec::new(),
                fields_pending: Vec::new(),
                assumed: HashMap::new(),
                maybe_absent: HashMap::new(),
                literal_groups: HashMap::new(),
                symbols: HashMap::new(),
                process_props: ObjData::new(),
                literal_objects: HashMap::new(),
                chosen: HashMap::new(),
                env: Default::default(),
                main: None,
                cwd: None,
                assumed_lists: HashMap::new(),
                modules: HashMap::new(),
                stack: Vec::new(),
                steps: 0,
                budget_reported: false,
                globals,
                frames: Vec::new(),
                dynamic_slots: HashMap::new(),
                decorated: HashMap::new(),
                own_decorators: HashMap::new(),
                metadata: Default::default(),
                reentry: budget::Reentry::default(),
                maybe_returns: Vec::new(),
                fn_objects: protos::FnObjects::default(),
                class_protos: protos::ClassProtos::default(),
                global_obj,
                strict_files: HashMap::new(),
                pages: Default::default(),
            },
            modes: Default::default(),
            deferred: Default::default(),
            rec: Default::default(),
            loader,
            libs: Default::default(),
            handed: Vec::new(),
            salvage: Default::default(),
        }
    }

    /// Run every function created so far that nobody called, with unknown
    /// arguments, until no new ones appear (bounded): event sites inside
    /// handlers, callbacks and components are found this way. Route
    /// registrations made meanwhile are not recorded.
    pub(crate) fn run_uncalled(&mut self, rounds: usize) {
        self.with_mode(Mode::Events, true, |me| me.uncalled_rounds(rounds));
    }

    /// The rounds of [`Interp::run_uncalled`].
    fn uncalled_rounds(&mut self, rounds: usize) {
        for _ in 0..rounds {
            let mut pending: Vec<((FileId, u32), Rc<Closure>)> = self
                .deferred
                .uncalled
                .drain()
                .filter(|(k, _)| !self.deferred.called.contains(k))
                .collect();
            // Code nobody calls matters for events only where sockets are near:
            // a module that mentions them or imports one that does. (Helpers
            // elsewhere are followed from their callers.)
            let mut keep = Vec::new();
            for (k, c) in pending {
                if self.near_sockets(k.0) {
                    keep.push((k, c));
                } else {
                    self.deferred.uncalled.insert(k, c);
                }
            }
            pending = keep;
            let mut progressed = !pending.is_empty();
            // Methods of classes: on an instance the program built, else on one
            // built here (classes created by a framework's dependency injection).
            let classes = self.rec.classes.clone();
            for (cv, inst) in classes {
                let uncalled: Vec<String> = cv
                    .class
                    .methods
                    .iter()
                    .chain(&cv.class.getters)
                    .filter(|(_, f)| !self.deferred.called.contains(&(cv.file, f.id)))
                    .map(|(n, _)| n.clone())
                    .collect();
                if uncalled.is_empty() {
                    continue;
                }
                progressed = true;
                // (Angular's components and services, typedi's and tsyringe's:
                // their container makes them, with their constructor's
                // parameters from its instances.)
                let inst = inst.or_else(|| crate::libs::framework_instance(self, &cv));
                let this = match inst {
                    Some(i) => i,
                    None => {
                        let n = cv.class.constructor.as_ref().map_or(0, |c| c.params.len());
                        let ctx = Ctx {
                            file: cv.file,
                            scope: Scope::new(Some(self.js.globals.clone())),
                            this: Value::Undef,
                            home: None,
                        };
                        let v = Value::Class(cv.clone());
                        self.construct(&ctx, &v, vec![Value::dynamic(); n], &[], cv.class.line)
                    }
                };
                let was = self.charge_program(self.program_of(cv.file));
                for name in uncalled {
                    if let Some(Value::Func(m)) = self.find_method(&cv, &name, &this) {
                        let argv = self.placeholder_args(&m);
                        self.invoke(&m, argv, Some(this.clone()));
                    } else if let Some(g) = self.find_getter(&cv, &name, &this) {
                        self.invoke(&g, Vec::new(), Some(this.clone()));
                    }
                }
                self.charge_program(was);
            }
            if !progressed {
                break;
            }
            // Anonymous callbacks first: they often pass real values (a server,
            // a socket) to named functions that would otherwise run first with
            // unknown arguments and trip their run-once guards.
            // Module-level functions wait until no callback is left.
            let module_level =
                |c: &Rc<Closure>| c.env.parent.as_ref().is_some_and(|p| p.parent.is_none());
            if pending.iter().any(|(_, c)| !module_level(c)) {
                let (later, now): (Vec<_>, Vec<_>) =
                    pending.into_iter().partition(|(_, c)| module_level(c));
                for (k, c) in later {
                    self.deferred.uncalled.insert(k, c);
                }
                pending = now;
            }
            self.run_with_placeholders(pending, true, |me, k| me.deferred.called.contains(k));
        }
    }

    /// A module that mentions sockets, or imports one that does (once per file).
    pub(crate) fn near_sockets(&mut self, file: FileId) -> bool {
        if let Some(&near) = self.deferred.near.get(&file) {
            return near;
        }
        let mentions = |t: FileId| self.loader.needles_of(t) & needle::SOCKET != 0;
        let near = mentions(file) || {
            let facts = self.loader.get(file).facts.clone();
            facts.static_sources().any(|src| {
                matches!(self.loader.project.resolve(file, src), Resolved::File(t) if mentions(t))
            })
        };
        self.deferred.near.insert(file, near);
        near
    }

    /// Run functions with a placeholder for every argument, in (file, id)
    /// order, skipping those `done` says already ran, while the budget lasts.
    /// With `assume_sockets` (functions nobody called), socket-named
    /// parameters stand for Socket.IO objects (see `placeholder_args`).
    /// A function's `this` is, like its arguments, only known at run time,
    /// but what the function writes on it reads back (`this.socket = io()`
    /// then `this.socket.on(…)` in a component method; see
    /// `ObjData::unknown_rest`).
    pub(crate) fn run_with_placeholders(
        &mut self,
        mut todo: Vec<((FileId, u32), Rc<Closure>)>,
        assume_sockets: bool,
        done: impl Fn(&Self, &(FileId, u32)) -> bool,
    ) {
        // Methods on an ES5 constructor's prototype (`Client.prototype.getUser
        // = function () { this.socket.emit(…) }`) share one `this` per
        // prototype, as calls on one instance would, and those that set a
        // property of `this` at their top level (`this.socket = io()`) run
        // before the others of their file.
        if todo.is_empty() {
            return;
        }
        let protos = self.prototype_methods();
        // Methods of one object literal (`{ start() { this.socket = io() },
        // send() { this.socket.emit(…) } }`) share one `this` too, as calls
        // on that object would: the group is the first method's id.
        let files: std::collections::BTreeSet<FileId> = todo.iter().map(|(k, _)| k.0).collect();
        let mut literal: HashMap<(FileId, u32), u32> = HashMap::new();
        for f in files {
            // (Each file is walked once per run: this runs at every round
            // of the uncalled pass.)
            let groups = match self.js.literal_groups.get(&f) {
                Some(g) => g.clone(),
                None => {
                    let g = Rc::new(literal_method_groups(&self.loader.get(f).facts.body));
                    self.js.literal_groups.insert(f, g.clone());
                    g
                }
            };
            for group in groups.iter() {
                if let Some(&first) = group.first() {
                    for &id in group {
                        literal.entry((f, id)).or_insert(first);
                    }
                }
            }
        }
        // (Each body is looked at once, not at every comparison.)
        todo.sort_by_cached_key(|(k, c)| {
            let grouped = protos.contains_key(k) || literal.contains_key(k);
            let writes_this = grouped && sets_this(&c.func.body);
            (k.0, !writes_this, k.1)
        });
        let mut shared: HashMap<usize, Rc<ObjData>> = HashMap::new();
        let mut shared_literal: HashMap<(FileId, u32), Rc<ObjData>> = HashMap::new();
        for (k, c) in todo {
            // Charged to the program the function's module belongs to.
            let was = self.charge_program(self.program_of(k.0));
            if !done(self, &k) && self.js.steps <= STEP_BUDGET {
                let argv = if assume_sockets {
                    self.placeholder_args(&c)
                } else {
                    vec![Value::Unknown(Unknown::Param); c.func.params.len()]
                };
                let this = (!c.is_arrow && c.this.is_none()).then(|| match protos.get(&k) {
                    Some(proto) => {
                        let inst = shared.entry(Rc::as_ptr(proto) as usize).or_insert_with(|| {
                            let o = ObjData::over_unknown(Unknown::Param);
                            o.proto.replace(Some(proto.clone()));
                            o
                        });
                        Value::Obj(inst.clone())
                    }
                    None => match literal.get(&k) {
                        Some(&group) => Value::Obj(
                            shared_literal
                                .entry((k.0, group))
                                .or_insert_with(|| {
                                    let o = ObjData::over_unknown(Unknown::Param);
                                    let made = self.js.literal_objects.get(&(k.0, group));
                                    o.proto.replace(made.cloned());
                                    o
                                })
                                .clone(),
                        ),
                        None => Value::Obj(ObjData::over_unknown(Unknown::Param)),
                    },
                });
                self.invoke(&c, argv, this);
            }
            self.charge_program(was);
        }
    }

    /// Keep the uncalled-function pass away from route functions: they run
    /// with a request and a response instead.
    pub(crate) fn mark_route_handlers_called(&mut self) {
        let mut keys = Vec::new();
        for r in &self.rec.routers {
            for reg in &r.regs {
                if let RegKind::Route { funcs, .. } = &reg.kind {
                    for f in funcs {
                        if let Value::Func(c) = f {
                            keys.push((c.file, c.func.id));
                        }
                    }
                }
            }
            for (_, _, f) in &r.param_callbacks {
                if let Value::Func(c) = f {
                    keys.push((c.file, c.func.id));
                }
            }
        }
        for k in keys {
            self.deferred.called.insert(k);
            self.deferred.uncalled.remove(&k);
        }
    }

    /// Run every route's middleware and handler once with a request and a
    /// response, recording what they state (schemas, reads, responses).
    /// With `record` off, the contracts are left as they are (a second run
    /// after start-up code, to find the events handlers emit).
    pub(crate) fn run_route_handlers(&mut self, record: bool) {
        if record {
            for (contract, ctx, name, argv, line) in
                std::mem::take(&mut self.deferred.pending_guesses)
            {
                self.factory_guesses(&ctx, &name, &argv, &contract, line);
            }
        }
        let mut work: Vec<(Rc<RefCell<RawContract>>, Vec<Value>)> = Vec::new();
        for r in &self.rec.routers {
            for reg in &r.regs {
                if let RegKind::Route {
                    contract,
                    funcs,
                    paths,
                    ..
                } = &reg.kind
                {
                    let contract = if record {
                        contract.clone()
                    } else {
                        Rc::new(RefCell::new(RawContract::default()))
                    };
                    // `router.param` callbacks for the route's parameters run first.
                    let mut all = Vec::new();
                    if !r.param_callbacks.is_empty() {
                        let names: Vec<String> = paths
                            .iter()
                            .filter_map(|p| match p {
                                PathArg::Str(s) => Some(s),
                                PathArg::Regex(_) => None,
                            })
                            .flat_map(|s| crate::PathPattern::parse(s, false).params)
                            .map(|p| p.name)
                            .collect();
                        for (n, _, f) in &r.param_callbacks {
                            if names.contains(n) {
                                all.push(f.clone());
                            }
                        }
                    }
                    all.extend(funcs.iter().cloned());
                    work.push((contract, all));
                }
            }
        }
        self.with_mode(Mode::Events, true, |me| {
            me.run_use_funcs();
            me.run_handlers_of(work, record)
        });
    }

    /// Run each route's functions of [`Interp::run_route_handlers`] with the
    /// route's contract (a fresh one unless `record`).
    fn run_handlers_of(&mut self, work: Vec<(Rc<RefCell<RawContract>>, Vec<Value>)>, record: bool) {
        for (contract, funcs) in work {
            // Imported middleware and what factories return, resolved now.
            let funcs: Vec<Value> = funcs
                .iter()
                .map(|f| match f {
                    Value::Lazy(..) | Value::Deferred(_) => self.force_deep(f.clone()),
                    f => f.clone(),
                })
                .collect();
            // Charged to the program of the route's handler.
            let owner = funcs.iter().rev().find_map(|f| match f {
                Value::Func(c) => self.program_of(c.file),
                _ => None,
            });
            let was = self.charge_program(owner);
            if self.js.steps > STEP_BUDGET {
                self.charge_program(was);
                continue;
            }
            self.running.route_contract = Some(contract.clone());
            // Whether every handler of the route is a function that runs (not
            // a controller method or package value the run cannot follow).
            let last_runs =
                funcs.iter().all(|f| matches!(f, Value::Func(_))) && !contract.borrow().unrun;
            let funcs: Vec<Value> = funcs
                .into_iter()
                .filter(|f| matches!(f, Value::Func(_)))
                .collect();
            for (i, f) in funcs.iter().enumerate() {
                if let Value::Func(c) = &f {
                    let before = contract.borrow().responses.len();
                    self.running.next_passed = false;
                    self.run_as_handler(f, c);
                    if record && last_runs && i + 1 == funcs.len() && self.running.next_passed {
                        let mut c2 = contract.borrow_mut();
                        c2.passes = true;
                        // Its success answer may be in a callback the run did
                        // not follow (`db.find(q, (e, d) => res.json(d))`).
                        if crate::libs::answers::answers_later(&c.func) {
                            c2.answered = true;
                        }
                    }
                    // A middleware (not the final handler) that answers 401/403.
                    if record && i + 1 < funcs.len() {
                        crate::libs::note_route_guard(&contract, c, before);
                    }
                }
            }
            // What factories were handed fills what running them did not state.
            {
                let mut c = contract.borrow_mut();
                for (part, schema, name, file, line) in std::mem::take(&mut c.guesses) {
                    let slot = c.part_mut(part);
                    match slot {
                        // The factory's schema, validated inside it: name the
                        // factory at the route, as the code reads.
                        Some(got) if got.0 == schema && !name.says_nothing() => {
                            *got = (schema, name, file, line);
                        }
                        Some(_) => {}
                        None => *slot = Some((schema, name, file, line)),
                    }
                }
            }
            // Types on the handler's `req` fill what no validator stated.
            for f in &funcs {
                if let Value::Func(c) = f {
                    self.typed_handler(c, &contract);
                    self.jsdoc_handler(c, &contract);
                }
            }
            self.running.route_contract = None;
            self.running.route_callbacks.clear();
            self.charge_program(was);
        }
    }

    /// Run once more, looking for events, the functions that emit but ran only
    /// before the sockets existed (`getIO().emit` in code called at start-up),
    /// and the emitting callbacks handed to packages, which those call later
    /// (see [`state::Deferred::handed_emitters`]).
    pub(crate) fn replay_emitters(&mut self) {
        // Only module-level functions: a nested closure would run again in the
        // environment of one particular earlier call. A handed callback is
        // the one the package keeps, so its environment is the right one.
        let mut todo: Vec<((FileId, u32), Rc<Closure>)> = self
            .deferred
            .emit_funcs
            .iter()
            .filter(|(k, c)| {
                !self.deferred.event_called.contains(k)
                    && c.env.parent.as_ref().is_some_and(|p| p.parent.is_none())
            })
            .map(|(k, c)| (*k, c.clone()))
            .collect();
        let queued: HashSet<(FileId, u32)> = todo.iter().map(|(k, _)| *k).collect();
        todo.extend(
            self.deferred
                .handed_emitters
                .iter()
                .filter(|(k, _)| !self.deferred.event_called.contains(k) && !queued.contains(k))
                .map(|(k, c)| (*k, c.clone())),
        );
        self.with_mode(Mode::Events, true, |me| {
            me.run_with_placeholders(todo, false, |me, k| me.deferred.event_called.contains(k))
        });
    }

    /// Whether the module `id` was loaded (or is loading).
    pub(crate) fn is_loaded(&self, id: FileId) -> bool {
        self.js.modules.contains_key(&id)
    }

    pub(crate) fn finding(&mut self, code: FindingCode, file: FileId, line: u32, message: String) {
        // A loop that is a finding covers the computed imports in it (and in
        // the loops around it): see `pop_dyn_loop`.
        if code == FindingCode::DynamicLoop {
            for d in &self.running.dyn_loops {
                d.seen.set(true);
            }
        }
        if self.rec.finding_keys.insert((code, file, line)) {
            self.rec.findings.push(RawFinding {
                code,
                file,
                line,
                message,
                cause: None,
            });
        }
    }

    /// `text`, taken as the default for a value only known at run time,
    /// applying when `when` holds (see [`Interp::assumed`]).
    pub(crate) fn assume(&mut self, text: &str, when: String) -> Value {
        let rc: Rc<str> = Rc::from(text);
        self.js
            .assumed
            .insert(Rc::as_ptr(&rc) as *const u8 as usize, (rc.clone(), when));
        Value::Str(rc)
    }

    /// `out`, a string computed from `from` (`base + '/x'`, `` `${base}/x` ``,
    /// `base.replace(/\/+$/, '')`): a default taken for a run-time value
    /// among them makes `out` one too, applying when all of theirs apply;
    /// otherwise `out` as it is.
    /// A list a string method makes of such strings (`split`) is a list
    /// made from the default, and so is each of its strings.
    pub(crate) fn derived(&mut self, out: Value, from: &[&Value]) -> Value {
        let out = self.derived_from_choice(out, from);
        if !matches!(out, Value::Str(_) | Value::Arr(_)) {
            return out;
        }
        let assumed: Vec<String> = from
            .iter()
            .flat_map(|v| self.assumptions(v))
            .map(|(_, c)| c)
            .collect();
        let Some(when) = crate::conditions::conjunction(assumed.iter().map(String::as_str)) else {
            return out;
        };
        match &out {
            Value::Str(text) => {
                let text = text.clone();
                self.assume(&text, when)
            }
            Value::Arr(items) => {
                let assumed: Vec<Value> = items
                    .borrow()
                    .iter()
                    .map(|v| match v {
                        Value::Str(s) => self.assume(&s.clone(), when.clone()),
                        v => v.clone(),
                    })
                    .collect();
                *items.borrow_mut() = assumed;
                self.assume_list(items, when);
                out
            }
            _ => out,
        }
    }

    /// Record `items` as a list made from a default taken for a run-time
    /// value, applying when `when` holds (see [`JsState::assumed_lists`](state::JsState::assumed_lists)).
    pub(crate) fn assume_list(&mut self, items: &Rc<RefCell<Vec<Value>>>, when: String) {
        self.js
            .assumed_lists
            .insert(Rc::as_ptr(items) as usize, (items.clone(), when));
    }

    /// When `items` is a list made from a default taken for a run-time
    /// value: the condition under which the default applies.
    pub(crate) fn list_assumption(&self, items: &Rc<RefCell<Vec<Value>>>) -> Option<String> {
        self.js
            .assumed_lists
            .get(&(Rc::as_ptr(items) as usize))
            .filter(|(rc, _)| Rc::ptr_eq(rc, items))
            .map(|(_, when)| when.clone())
    }

    /// When `items` is empty only by such a default: its condition. A loop
    /// over it runs as one over values only known at run time.
    pub(crate) fn empty_by_default(&self, items: &Rc<RefCell<Vec<Value>>>) -> Option<String> {
        if !items.borrow().is_empty() {
            return None;
        }
        self.list_assumption(items)
    }

    /// What `v` says as a condition: [`Value::truthy`], except that an empty
    /// default taken for a run-time value (`process.env.KEY || ''`, `x ?? ''`)
    /// says nothing: it is `''` only when the value it stands for is unset,
    /// so either branch may run. (A non-empty default is truthy either way.)
    pub(crate) fn truth(&self, v: &Value) -> Option<bool> {
        if self.env_documented(v) {
            return None;
        }
        if let Some(ways) = self.chosen_ways(v)
            && ways.iter().any(|(t, _)| t.is_empty())
        {
            return None;
        }
        match v.truthy() {
            Some(false) if !self.assumptions(v).is_empty() => None,
            t => t,
        }
    }

    /// When the strings of a path value (a string or a list of them) are
    /// defaults taken for run-time values: the conditions, in order.
    pub(crate) fn assumptions(&self, v: &Value) -> Vec<(Rc<str>, String)> {
        let one = |v: &Value| match v {
            Value::Str(s) => self
                .js
                .assumed
                .get(&(Rc::as_ptr(s) as *const u8 as usize))
                .filter(|(rc, _)| Rc::ptr_eq(rc, s))
                .cloned(),
            _ => None,
        };
        match v {
            Value::Arr(items) => items.borrow().iter().filter_map(one).collect(),
            v => one(v).into_iter().collect(),
        }
    }

    /// A path that is a default taken for a run-time value: the registration
    /// is charted under it, conditional on `conds`, and this finding says
    /// where the real path may differ.
    pub(crate) fn assumed_path(
        &mut self,
        ctx: &Ctx,
        call: &Call,
        what: &str,
        assumed: &[(Rc<str>, String)],
    ) -> Vec<String> {
        let conds: Vec<String> = assumed.iter().map(|(_, c)| c.clone()).collect();
        if self
            .rec
            .finding_keys
            .insert((FindingCode::DynamicPath, ctx.file, call.line))
        {
            let defaults: Vec<String> = assumed
                .iter()
                .map(|(p, _)| {
                    if p.is_empty() {
                        "empty".to_string()
                    } else {
                        format!("`{p}`")
                    }
                })
                .collect();
            self.rec.findings.push(RawFinding {
                code: FindingCode::DynamicPath,
                file: ctx.file,
                line: call.line,
                message: format!(
                    "the path of this `{what}` is {} only when {} (a default for a value only known at run time); charted under the default, conditional",
                    defaults.join(", "),
                    conds.join(" && ")
                ),
                cause: Some("assumed-default"),
            });
        }
        conds
    }
}

/// A fallback of nothing (`null`, `[]`, `{}`): as a join with an unknown value
/// it says nothing (a loop over it would run zero times), so the unknown is kept.
pub(crate) fn says_nothing(v: &Value) -> bool {
    match v {
        Value::Null | Value::Undef => true,
        Value::Arr(items) => items.borrow().is_empty(),
        Value::Obj(o) => {
            o.props.borrow().is_empty() && o.class.borrow().is_none() && o.unknown_rest.is_none()
        }
        _ => false,
    }
}

/// Whether `if (test) { then }` is lazy initialisation: the test is `!x` (or
/// `x == null`) for a property `x` that the branch assigns. Gives the object
/// whose property is initialised (`this` of `this._app`).
pub(crate) fn lazy_init<'a>(test: &'a Expr, then: &[Stmt]) -> Option<&'a Expr> {
    let target = match test {
        Expr::Unary(op, e) if op == "!" => e.as_ref(),
        Expr::Compare(op, e, n)
            if matches!(op.as_str(), "==" | "===")
                && matches!(n.as_ref(), Expr::Null | Expr::Undefined) =>
        {
            e.as_ref()
        }
        _ => return None,
    };
    let Expr::Member(object, _) = target else {
        return None;
    };
    let text = expr_text(target);
    then.iter()
        .any(|s| match s {
            Stmt::Expr(Expr::Assign(p, _)) => {
                matches!(p.as_ref(), Pattern::Target(t) if expr_text(t) == text)
            }
            _ => false,
        })
        .then_some(object.as_ref())
}

/// Paths from a registration's first argument.
/// Names assigned (`x = ...`) directly in these statements, not inside nested functions.
pub(crate) fn assigned_names(stmts: &[Stmt], out: &mut Vec<String>) {
    pub(crate) fn expr(e: &Expr, out: &mut Vec<String>) {
        match e {
            Expr::Assign(p, v) => {
                if let Pattern::Ident(n) = p.as_ref() {
                    out.push(n.clone());
                }
                expr(v, out);
            }
            Expr::Update { target, .. } => {
                if let Pattern::Ident(n) = target.as_ref() {
                    out.push(n.clone());
                }
            }
            Expr::Seq(items) => items.iter().for_each(|i| expr(i, out)),
            _ => {}
        }
    }
    for s in stmts {
        match s {
            Stmt::Expr(e) => expr(e, out),
            Stmt::Block(b) => assigned_names(b, out),
            Stmt::If(_, _, a, b, _) => {
                assigned_names(a, out);
                assigned_names(b, out);
            }
            _ => {}
        }
    }
}

pub(crate) fn path_list(v: &Value) -> Result<Vec<PathArg>, ()> {
    match v {
        Value::Str(s) => Ok(vec![PathArg::Str(s.to_string())]),
        // `${base}/users`: an unknown start, then a known rest.
        Value::Pattern(p) => match unknown_head(p) {
            Some(rest) => Ok(vec![PathArg::Str(format!(
                "{}{rest}",
                crate::inventory::UNKNOWN_PREFIX
            ))]),
            None => Err(()),
        },
        Value::Regex(r) => Ok(vec![PathArg::Regex(r.to_string())]),
        Value::Arr(a) => {
            let mut out = Vec::new();
            for x in a.borrow().iter() {
                out.extend(path_list(x)?);
            }
            Ok(out)
        }
        _ => Err(()),
    }
}

/// The known rest of a path whose start only is known at run time:
/// `{base}/users`, `{get()}/users` and `/{name}/:id` (a template literal's
/// pattern) give `/users` and `/:id`. `None` when more than the start is
/// unknown, or nothing is known.
pub(crate) fn unknown_head(p: &str) -> Option<&str> {
    let s = p.strip_prefix('/').unwrap_or(p);
    let inner = s.strip_prefix('{')?;
    let end = inner.find('}')?;
    let name = &inner[..end];
    let name = name.strip_suffix("()").unwrap_or(name);
    let rest = &inner[end + 1..];
    let ident = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    (ident && rest.starts_with('/') && rest.len() > 1 && !rest.contains(['{', '}'])).then_some(rest)
}

pub(crate) fn value_name(v: &Value) -> Option<String> {
    match v {
        Value::Func(c) => c.func.name.clone(),
        _ => None,
    }
}

pub(crate) fn value_at(v: &Value) -> Option<(FileId, u32)> {
    match v {
        Value::Func(c) => Some((c.file, c.func.line)),
        _ => None,
    }
}

pub(crate) fn callee_object(e: &Expr) -> &Expr {
    match e {
        Expr::Member(o, _) => o,
        e => e,
    }
}

/// A short source-like rendering of an expression (middleware names, messages).
pub(crate) fn expr_text(e: &Expr) -> String {
    pub(crate) fn go(e: &Expr, out: &mut String, depth: u32) {
        if depth > 6 || out.len() > 120 {
            out.push_str("...");
            return;
        }
        match e {
            Expr::Typed(inner, _) => go(inner, out, depth),
            Expr::Ident(n) => out.push_str(n),
            Expr::This => out.push_str("this"),
            Expr::Super => out.push_str("super"),
            Expr::Str(s) => {
                out.push('\'');
                out.push_str(s);
                out.push('\'');
            }
            Expr::Num(n) => out.push_str(&n.to_string()),
            Expr::Member(o, p) => {
                go(o, out, depth + 1);
                out.push('.');
                out.push_str(p);
            }
            Expr::Index(o, i) => {
                go(o, out, depth + 1);
                out.push('[');
                go(i, out, depth + 1);
                out.push(']');
            }
            Expr::Call(c) => {
                go(&c.callee, out, depth + 1);
                out.push_str("()");
            }
            Expr::New(c, _, _) => {
                out.push_str("new ");
                go(c, out, depth + 1);
                out.push_str("()");
            }
            Expr::Func(f) => out.push_str(f.name.as_deref().unwrap_or("<anonymous>")),
            Expr::Template(..) => out.push_str("`...`"),
            Expr::Await(e) => go(e, out, depth + 1),
            Expr::Add(a, b) => {
                go(a, out, depth + 1);
                out.push_str(" + ");
                go(b, out, depth + 1);
            }
            Expr::Unary(op, e) => {
                out.push_str(op);
                go(e, out, depth + 1);
            }
            // In parentheses: it is mostly seen as a receiver
            // (`(process.env.HOOKS || '').split(',')`).
            Expr::Logical(op, a, b) => {
                out.push('(');
                go(a, out, depth + 1);
                out.push_str(match op {
                    LogicalOp::And => " && ",
                    LogicalOp::Or => " || ",
                    LogicalOp::Nullish => " ?? ",
                });
                go(b, out, depth + 1);
                out.push(')');
            }
            _ => out.push_str("<expression>"),
        }
    }
    let mut s = String::new();
    go(e, &mut s, 0);
    s
}

/// Method names that make a deferred receiver worth resolving (it may be a socket).
pub(crate) const SOCKET_METHODS: &[&str] = &[
    "emit",
    "on",
    "once",
    "to",
    "in",
    "of",
    "emitWithAck",
    "timeout",
    "except",
];

/// The `{name}` placeholder for a run-time part of a template (`${kind}`,
/// `${opts.kind}`, and `${conf.get('base')}` as `{get()}`).
pub(crate) fn placeholder(e: &Expr) -> Option<String> {
    match e {
        Expr::Ident(n) => Some(n.clone()),
        Expr::Member(_, p) => Some(p.clone()),
        Expr::Call(c) => placeholder(&c.callee).map(|n| format!("{n}()")),
        _ => None,
    }
}

/// The label a guessed schema is linked under: the factory that was handed it.
pub(crate) fn guess_label(z: &ZodVal, callee: &str) -> crate::libs::SchemaLabel {
    crate::libs::SchemaLabel::new(z.source(), callee)
}

pub(crate) fn string_method(s: &Rc<str>, name: &str, argv: &[Value]) -> Value {
    let arg = |i: usize| argv.get(i).and_then(|v| v.as_text());
    match name {
        "toLowerCase" => Value::str(&s.to_lowercase()),
        "toUpperCase" => Value::str(&s.to_uppercase()),
        "trim" => Value::str(s.trim()),
        "concat" => {
            let mut out = s.to_string();
            for i in 0..argv.len() {
                match arg(i) {
                    Some(t) => out.push_str(&t),
                    None => return Value::dynamic(),
                }
            }
            Value::str(&out)
        }
        "replace" | "replaceAll" => match (argv.first(), arg(1)) {
            (Some(Value::Str(from)), Some(to)) => {
                if name == "replace" {
                    Value::str(&s.replacen(from.as_ref(), &to, 1))
                } else {
                    Value::str(&s.replace(from.as_ref(), &to))
                }
            }
            _ => strings::string_method(s, name, argv).unwrap_or(Value::dynamic()),
        },
        "split" => match arg(0) {
            Some(sep) if !sep.is_empty() => {
                Value::array(s.split(sep.as_str()).map(Value::str).collect())
            }
            _ => Value::dynamic(),
        },
        "toString" | "valueOf" => Value::Str(s.clone()),
        _ => strings::string_method(s, name, argv).unwrap_or(Value::dynamic()),
    }
}

/// `path.posix.join` semantics.
pub(crate) fn posix_join(parts: &[String]) -> String {
    let joined = parts
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join("/");
    if joined.is_empty() {
        return ".".into();
    }
    let absolute = joined.starts_with('/');
    let trailing = joined.ends_with('/');
    let mut out: Vec<&str> = Vec::new();
    for seg in joined.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if out.last().is_some_and(|l| *l != "..") {
                    out.pop();
                } else if !absolute {
                    out.push("..");
                }
            }
            s => out.push(s),
        }
    }
    let mut s = out.join("/");
    if absolute {
        s.insert(0, '/');
    }
    if trailing && !s.ends_with('/') {
        s.push('/');
    }
    if s.is_empty() { ".".into() } else { s }
}

/// `url-join` semantics: an empty part is skipped; every other part but
/// the first loses its leading slashes, every part but the last its
/// trailing ones (the last keeps one), and the parts are joined with `/`.
/// So `urljoin('/', 'api')` is `/api`: the first part's `/` is trimmed to an
/// empty part that still opens the result.
pub(crate) fn url_join(parts: &[String]) -> String {
    let last = parts.len().saturating_sub(1);
    let mut out: Vec<String> = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() {
            continue;
        }
        let mut p = p.as_str();
        if i > 0 {
            p = p.trim_start_matches('/');
        }
        let trimmed = p.trim_end_matches('/');
        out.push(if i < last || trimmed.len() == p.len() {
            trimmed.to_string()
        } else {
            format!("{trimmed}/")
        });
    }
    out.join("/")
}

/// The ids of the methods of each object literal in `body` that has two or
/// more (`m() {…}` and `m: function () {…}`; arrows have no `this` of
/// their own), in source order.
fn literal_method_groups(body: &[Stmt]) -> Vec<Vec<u32>> {
    let groups = std::cell::RefCell::new(Vec::new());
    crate::libs::any_expr(body, &|e| {
        if let Expr::Object(props) = e {
            let ids: Vec<u32> = literal_method_ids(props).collect();
            if ids.len() > 1 {
                groups.borrow_mut().push(ids);
            }
        }
        false
    });
    groups.into_inner()
}

/// The ids of an object literal's methods (`m() {}`, `m: function () {}`).
pub(crate) fn literal_method_ids(props: &[ObjProp]) -> impl Iterator<Item = u32> + '_ {
    props.iter().filter_map(|p| match p {
        ObjProp::Method(_, f) => Some(f.id),
        ObjProp::KeyValue(_, Expr::Func(f)) if !f.arrow => Some(f.id),
        _ => None,
    })
}

/// Whether a function body sets a property of `this` in one of its own
/// top-level statements (`this.socket = io.connect(…)`).
fn sets_this(body: &[Stmt]) -> bool {
    body.iter().any(|st| {
        matches!(st, Stmt::Expr(Expr::Assign(target, _))
            if matches!(target.as_ref(), Pattern::Target(t) if matches!(t.as_ref(), Expr::Member(o, _) if matches!(o.as_ref(), Expr::This))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(crate) fn posix_join_matches_node() {
        assert_eq!(posix_join(&["/api".into(), "users".into()]), "/api/users");
        assert_eq!(posix_join(&["/a/".into(), "../b".into()]), "/b");
        assert_eq!(
            posix_join(&["/:id".into(), "/settings/".into()]),
            "/:id/settings/"
        );
    }

    #[test]
    pub(crate) fn url_join_collapses_slashes() {
        assert_eq!(url_join(&["/api/".into(), "/users".into()]), "/api/users");
        assert_eq!(
            url_join(&["/api".into(), "v1".into(), "x".into()]),
            "/api/v1/x"
        );
        // The first part's slash opens the result; the last part keeps one
        // trailing slash (url-join's `normalize`).
        assert_eq!(url_join(&["/".into(), "api/state".into()]), "/api/state");
        assert_eq!(url_join(&["/".into(), "/".into()]), "/");
        assert_eq!(url_join(&["api".into(), "x//".into()]), "api/x/");
        assert_eq!(url_join(&["".into(), "x".into()]), "x");
    }
}
