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

pub(crate) mod budget;
pub(crate) mod census_rec;
pub(crate) mod flow;
pub(crate) mod forks;
pub(crate) mod hoisting;
pub(crate) mod node;
pub(crate) mod protos;
pub(crate) mod salvage;
pub(crate) mod strings;

pub(crate) use crate::libs::dropins::PACKAGES as DROPIN_PACKAGES;
pub(crate) use crate::libs::guards::GuardInfo;
pub(crate) use crate::libs::schemas::RawContract;
pub(crate) use node::NodeFn;
pub(crate) use salvage::{Salvage, SalvageKind};

pub(crate) use crate::libs::socketio::Frame;
pub(crate) use crate::libs::socketio::{RESERVED_EVENTS, RawSite, SioServer};
pub(crate) use crate::libs::socketio_client::client_lifecycle;

pub(crate) use crate::inventory::FindingCode;
pub(crate) use crate::ir::*;
pub(crate) use crate::loader::{Loader, needle};
pub(crate) use crate::project::{FileId, Resolved};
pub(crate) use crate::value::*;
pub(crate) use std::cell::{Cell, RefCell};
pub(crate) use std::collections::{BTreeSet, HashMap, HashSet};
pub(crate) use std::rc::Rc;
pub(crate) use std::sync::Arc;

/// One path argument of a registration.
#[derive(Clone, Debug)]
pub(crate) enum PathArg {
    Str(String),
    Regex(String),
}

/// A handler passed to `use()`.
#[derive(Clone, Debug)]
pub(crate) enum UseHandler {
    Router(u32),
    Middleware(String),
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
    },
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
    /// Built by code the salvage pass ran (see `machine/salvage.rs`).
    pub(crate) salvage: Option<Rc<Salvage>>,
}

/// A finding before it is turned into the public type.
#[derive(Clone, Debug)]
pub(crate) struct RawFinding {
    pub(crate) code: FindingCode,
    pub(crate) file: FileId,
    pub(crate) line: u32,
    pub(crate) message: String,
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
pub(crate) const MAX_RECURSION: usize = 8;
/// Call depth beyond which calls are not followed.
pub(crate) const MAX_CALL_DEPTH: usize = 48;
/// Total statements executed before the analysis stops following calls.
pub(crate) const STEP_BUDGET: u64 = 20_000_000;
/// Iterations of one constant loop before it is cut.
pub(crate) const MAX_ITERATIONS: usize = 10_000;

/// The interpreter.
pub(crate) struct Interp {
    pub(crate) loader: Arc<Loader>,
    pub(crate) routers: Vec<RouterData>,
    pub(crate) findings: Vec<RawFinding>,
    pub(crate) finding_keys: HashSet<(FindingCode, FileId, u32)>,
    pub(crate) modules: HashMap<FileId, Rc<ModuleRec>>,
    /// Every file whose facts were used.
    pub(crate) touched: BTreeSet<FileId>,
    pub(crate) stack: Vec<(FileId, u32)>,
    pub(crate) steps: u64,
    pub(crate) budget_reported: bool,
    pub(crate) cond: Vec<String>,
    /// Active loops over values the analyzer cannot see: (file, line, text, registrations seen).
    pub(crate) dyn_loops: Vec<(FileId, u32, String, Cell<bool>)>,
    pub(crate) globals: Rc<Scope>,
    pub(crate) unreached_mode: bool,
    /// Socket.IO servers created.
    pub(crate) sio_servers: Vec<SioServer>,
    /// Event sites, in evaluation order.
    pub(crate) sites: Vec<RawSite>,
    /// Rooms joined or left.
    pub(crate) rooms_joined: BTreeSet<String>,
    /// Calls being followed, with their call sites (for helper attribution).
    pub(crate) frames: Vec<Frame>,
    /// Do not record event sites (while re-running code for other reasons).
    pub(crate) sio_quiet: bool,
    /// Functions created but never called, by (file, function id).
    pub(crate) uncalled: HashMap<(FileId, u32), Rc<Closure>>,
    /// Functions called at least once.
    pub(crate) called: HashSet<(FileId, u32)>,
    /// Running code nobody calls to find event sites: registrations are not recorded.
    pub(crate) event_mode: bool,
    /// Whether a module is near sockets (see [`Interp::near_sockets`]), by file.
    pub(crate) near: HashMap<FileId, bool>,
    /// The contract of the route whose handlers are running.
    pub(crate) route_contract: Option<Rc<RefCell<RawContract>>>,
    /// Classes seen, with an instance when one was constructed.
    pub(crate) classes: Vec<(Rc<ClassVal>, Option<Value>)>,
    /// Functions that emit, by (file, function id), with whether they do.
    pub(crate) emits: HashMap<(FileId, u32), bool>,
    /// Functions that emit, kept so they can run once more while looking for events.
    pub(crate) emit_funcs: HashMap<(FileId, u32), Rc<Closure>>,
    /// Functions run while looking for events.
    pub(crate) event_called: HashSet<(FileId, u32)>,
    /// Loading modules no entry reached, looking for events.
    pub(crate) loading_unreached: bool,
    /// The site of the Socket.IO listener whose body is running.
    pub(crate) listener_site: Option<usize>,
    /// NestJS gateways seen, by (file, class line).
    pub(crate) nest_gateways: HashSet<(FileId, u32)>,
    /// The Socket.IO server Nest creates per gateway port (`None`: the HTTP server's).
    pub(crate) nest_servers: HashMap<Option<i64>, u32>,
    /// The instances Nest's dependency injection made, by (file, class line).
    pub(crate) nest_instances: HashMap<(FileId, u32), Value>,
    /// Socket.IO connection handlers and listeners being run (see `Stmt::If`).
    pub(crate) socket_handlers: u32,
    /// Computed imports inside loops over run-time values, with the loop depth:
    /// findings unless the loop itself is one (see [`Interp::pop_dyn_loop`]).
    pub(crate) loop_imports: Vec<(usize, FileId, u32)>,
    /// Calls running and callbacks that run later, to avoid re-entering them.
    pub(crate) reentry: budget::Reentry,
    /// Properties of functions (`F.prototype`, statics), see `protos`.
    pub(crate) fn_objects: protos::FnObjects,
    /// The global object (`global`, `globalThis`): what a program stores
    /// there is read back by name anywhere.
    pub(crate) global_obj: Rc<ObjData>,
    /// What followed middleware factories were handed, read as schema guesses
    /// when the handlers run: (contract, context, factory, arguments, line).
    pub(crate) pending_guesses: Vec<PendingGuess>,
    /// NestJS applications and the controllers they serve (see `nest_http`).
    pub(crate) nest: crate::libs::nest::NestState,
    /// Middleware functions seen in chains, by the name the chain gives them (see `guards`).
    pub(crate) middleware_seen: Vec<(String, Value)>,
    /// Keys of `middleware_seen`: (name, file, function id or export name).
    pub(crate) middleware_keys: HashSet<(String, FileId, String)>,
    /// Middleware that can answer 401 or 403, by chain name (see `guards`).
    pub(crate) guards: std::collections::BTreeMap<String, GuardInfo>,
    /// Modules started with `child_process.fork`: (module, calling file, line) (see `forks`).
    pub(crate) forked: Vec<(FileId, FileId, u32)>,
    /// What the census needs to know of the run (see `census_rec.rs`).
    pub(crate) census: census_rec::CensusRec,
    /// The salvage pass (see `machine/salvage.rs`).
    pub(crate) salvage: salvage::SalvageState,
    /// Sockets stored in plain objects under keys only known at run time.
    pub(crate) socket_slots: Vec<(Rc<ObjData>, Value)>,
    /// Named functions that only return a value (`getSocket() { return socket }`), by name.
    pub(crate) component_methods: HashMap<String, Rc<Closure>>,
    /// Named functions by file (the hooks a component getter may need run first).
    pub(crate) named_fns: HashMap<FileId, Vec<Rc<Closure>>>,
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
        for g in [
            "process",
            "console",
            "JSON",
            "Math",
            "Date",
            "Buffer",
            "setTimeout",
            "setInterval",
            "Number",
            "String",
            "Boolean",
            "Error",
            "Symbol",
            "Reflect",
            "URL",
        ] {
            globals.define(g, Value::external());
        }
        globals.define("process", Value::Builtin(Builtin::Node(NodeFn::Process)));
        // `global.x = …` in one module, `x` or `globalThis.x` in another.
        let global_obj = ObjData::new();
        globals.define("global", Value::Obj(global_obj.clone()));
        globals.define("globalThis", Value::Obj(global_obj.clone()));
        Interp {
            loader,
            routers: Vec::new(),
            findings: Vec::new(),
            finding_keys: HashSet::new(),
            modules: HashMap::new(),
            touched: BTreeSet::new(),
            stack: Vec::new(),
            steps: 0,
            budget_reported: false,
            cond: Vec::new(),
            dyn_loops: Vec::new(),
            globals,
            unreached_mode: false,
            sio_servers: Vec::new(),
            sites: Vec::new(),
            rooms_joined: BTreeSet::new(),
            frames: Vec::new(),
            sio_quiet: false,
            uncalled: HashMap::new(),
            called: HashSet::new(),
            event_mode: false,
            near: HashMap::new(),
            route_contract: None,
            classes: Vec::new(),
            emits: HashMap::new(),
            emit_funcs: HashMap::new(),
            event_called: HashSet::new(),
            loading_unreached: false,
            listener_site: None,
            nest_gateways: HashSet::new(),
            nest_servers: HashMap::new(),
            nest_instances: HashMap::new(),
            pending_guesses: Vec::new(),
            nest: crate::libs::nest::NestState::default(),
            middleware_seen: Vec::new(),
            middleware_keys: HashSet::new(),
            guards: std::collections::BTreeMap::new(),
            forked: Vec::new(),
            socket_slots: Vec::new(),
            component_methods: HashMap::new(),
            named_fns: HashMap::new(),
            socket_handlers: 0,
            loop_imports: Vec::new(),
            census: Default::default(),
            salvage: Default::default(),
            reentry: budget::Reentry::default(),
            fn_objects: protos::FnObjects::default(),
            global_obj,
        }
    }

    pub(crate) fn set_unreached_mode(&mut self, on: bool) {
        self.unreached_mode = on;
    }

    /// Run every function created so far that nobody called, with unknown
    /// arguments, until no new ones appear (bounded): event sites inside
    /// handlers, callbacks and components are found this way. Route
    /// registrations made meanwhile are not recorded.
    pub(crate) fn run_uncalled(&mut self, rounds: usize) {
        self.event_mode = true;
        for _ in 0..rounds {
            let mut pending: Vec<((FileId, u32), Rc<Closure>)> = self
                .uncalled
                .drain()
                .filter(|(k, _)| !self.called.contains(k))
                .collect();
            // Code nobody calls matters for events only where sockets are near:
            // a module that mentions them or imports one that does. (Helpers
            // elsewhere are followed from their callers.)
            let mut keep = Vec::new();
            for (k, c) in pending {
                if self.near_sockets(k.0) {
                    keep.push((k, c));
                } else {
                    self.uncalled.insert(k, c);
                }
            }
            pending = keep;
            let mut progressed = !pending.is_empty();
            // Methods of classes: on an instance the program built, else on one
            // built here (classes created by a framework's dependency injection).
            let classes = self.classes.clone();
            for (cv, inst) in classes {
                let uncalled: Vec<String> = cv
                    .class
                    .methods
                    .iter()
                    .chain(&cv.class.getters)
                    .filter(|(_, f)| !self.called.contains(&(cv.file, f.id)))
                    .map(|(n, _)| n.clone())
                    .collect();
                if uncalled.is_empty() {
                    continue;
                }
                progressed = true;
                let this = match inst {
                    Some(i) => i,
                    None => {
                        let n = cv.class.constructor.as_ref().map_or(0, |c| c.params.len());
                        let ctx = Ctx {
                            file: cv.file,
                            scope: Scope::new(Some(self.globals.clone())),
                            this: Value::Undef,
                            home: None,
                        };
                        let v = Value::Class(cv.clone());
                        self.construct(&ctx, &v, vec![Value::dynamic(); n], &[], cv.class.line)
                    }
                };
                for name in uncalled {
                    if let Some(Value::Func(m)) = self.find_method(&cv, &name, &this) {
                        let n = m.func.params.len();
                        self.invoke(
                            &m,
                            vec![Value::Unknown(Unknown::Param); n],
                            Some(this.clone()),
                        );
                    } else if let Some(g) = self.find_getter(&cv, &name, &this) {
                        self.invoke(&g, Vec::new(), Some(this.clone()));
                    }
                }
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
                    self.uncalled.insert(k, c);
                }
                pending = now;
            }
            self.run_with_placeholders(pending, |me, k| me.called.contains(k));
        }
        self.event_mode = false;
    }

    /// A module that mentions sockets, or imports one that does (once per file).
    pub(crate) fn near_sockets(&mut self, file: FileId) -> bool {
        if let Some(&near) = self.near.get(&file) {
            return near;
        }
        let mentions = |t: FileId| self.loader.needles_of(t) & needle::SOCKET != 0;
        let near = mentions(file) || {
            let facts = self.loader.get(file).facts.clone();
            facts.static_sources().any(|src| {
                matches!(self.loader.project.resolve(file, src), Resolved::File(t) if mentions(t))
            })
        };
        self.near.insert(file, near);
        near
    }

    /// Run functions with a placeholder for every argument, in (file, id)
    /// order, skipping those `done` says already ran, while the budget lasts.
    pub(crate) fn run_with_placeholders(
        &mut self,
        mut todo: Vec<((FileId, u32), Rc<Closure>)>,
        done: impl Fn(&Self, &(FileId, u32)) -> bool,
    ) {
        todo.sort_by_key(|(k, _)| *k);
        for (k, c) in todo {
            if done(self, &k) || self.steps > STEP_BUDGET {
                continue;
            }
            let n = c.func.params.len();
            self.invoke(&c, vec![Value::Unknown(Unknown::Param); n], None);
        }
    }

    /// Keep the uncalled-function pass away from route functions: they run
    /// with a request and a response instead.
    pub(crate) fn mark_route_handlers_called(&mut self) {
        let mut keys = Vec::new();
        for r in &self.routers {
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
            self.called.insert(k);
            self.uncalled.remove(&k);
        }
    }

    /// Run every route's middleware and handler once with a request and a
    /// response, recording what they state (schemas, reads, responses).
    /// With `record` off, the contracts are left as they are (a second run
    /// after start-up code, to find the events handlers emit).
    pub(crate) fn run_route_handlers(&mut self, record: bool) {
        if record {
            for (contract, ctx, name, argv, line) in std::mem::take(&mut self.pending_guesses) {
                self.factory_guesses(&ctx, &name, &argv, &contract, line);
            }
        }
        let mut work: Vec<(Rc<RefCell<RawContract>>, Vec<Value>)> = Vec::new();
        for r in &self.routers {
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
        let was = self.event_mode;
        self.event_mode = true;
        for (contract, funcs) in work {
            if self.steps > STEP_BUDGET {
                break;
            }
            self.route_contract = Some(contract.clone());
            // Imported middleware and what factories return, resolved now.
            let funcs: Vec<Value> = funcs
                .iter()
                .map(|f| match f {
                    Value::Lazy(..) | Value::Deferred(_) => self.force_deep(f.clone()),
                    f => f.clone(),
                })
                .collect();
            let funcs: Vec<Value> = funcs
                .into_iter()
                .filter(|f| matches!(f, Value::Func(_)))
                .collect();
            for (i, f) in funcs.iter().enumerate() {
                if let Value::Func(c) = &f {
                    let before = contract.borrow().responses.len();
                    self.run_as_handler(f, c);
                    // A middleware (not the final handler) that answers 401/403.
                    if record && i + 1 < funcs.len() {
                        crate::libs::guards::note_route_guard(&contract, c, before);
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
                        Some(got) if got.0 == schema && !name.is_empty() => {
                            *got = (schema, Some(name), file, line);
                        }
                        Some(_) => {}
                        None => {
                            *slot = Some((schema, (!name.is_empty()).then_some(name), file, line))
                        }
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
            self.route_contract = None;
        }
        self.event_mode = was;
    }

    /// Run once more, looking for events, the functions that emit but ran only
    /// before the sockets existed (`getIO().emit` in code called at start-up).
    pub(crate) fn replay_emitters(&mut self) {
        self.event_mode = true;
        // Only module-level functions: a nested closure would run again in the
        // environment of one particular earlier call.
        let todo: Vec<((FileId, u32), Rc<Closure>)> = self
            .emit_funcs
            .iter()
            .filter(|(k, c)| {
                !self.event_called.contains(k)
                    && c.env.parent.as_ref().is_some_and(|p| p.parent.is_none())
            })
            .map(|(k, c)| (*k, c.clone()))
            .collect();
        self.run_with_placeholders(todo, |me, k| me.event_called.contains(k));
        self.event_mode = false;
    }

    /// Enter or leave event mode (registrations are not recorded).
    pub(crate) fn set_event_mode(&mut self, on: bool) {
        self.event_mode = on;
    }

    pub(crate) fn is_loaded(&self, id: FileId) -> bool {
        self.modules.contains_key(&id)
    }

    pub(crate) fn finding(&mut self, code: FindingCode, file: FileId, line: u32, message: String) {
        // A loop that is a finding covers the computed imports in it (and in
        // the loops around it): see `pop_dyn_loop`.
        if code == FindingCode::DynamicLoop {
            for (_, _, _, seen) in &self.dyn_loops {
                seen.set(true);
            }
        }
        if self.finding_keys.insert((code, file, line)) {
            self.findings.push(RawFinding {
                code,
                file,
                line,
                message,
            });
        }
    }

    // ----- modules -----

    /// Evaluate a module (once) and return its record.
    pub(crate) fn run_module(&mut self, id: FileId) {
        self.load_module(id);
    }

    pub(crate) fn load_module(&mut self, id: FileId) -> Rc<ModuleRec> {
        if let Some(rec) = self.modules.get(&id) {
            return rec.clone();
        }
        let module_obj = ObjData::new();
        module_obj.is_module_obj.set(true);
        let exports = ObjData::new();
        module_obj.set("exports", Value::Obj(exports.clone()));
        let rec = Rc::new(ModuleRec {
            exports,
            live: RefCell::new(None),
            module_obj: module_obj.clone(),
            esm: Cell::new(false),
            stars: RefCell::new(Vec::new()),
            done: Cell::new(false),
        });
        self.modules.insert(id, rec.clone());
        self.touched.insert(id);
        let loaded = self.loader.get(id);
        if let Some((code, msg)) = &loaded.problem {
            let code = if code == "invalid-utf8" {
                FindingCode::InvalidUtf8
            } else {
                FindingCode::UnreadableFile
            };
            self.finding(code, id, 1, msg.clone());
        }
        let facts = loaded.facts.clone();
        for (line, why) in &facts.parse_errors {
            self.finding(
                FindingCode::ParseError,
                id,
                *line,
                format!("syntax error: {why}"),
            );
        }
        for line in &facts.too_deep {
            self.finding(
                FindingCode::TooDeep,
                id,
                *line,
                "code nested too deeply to analyze; this part was skipped".into(),
            );
        }
        // Start parsing the modules this one imports while we interpret it.
        let mut prefetch = Vec::new();
        for src in facts.static_sources() {
            if let Resolved::File(t) = self.loader.project.resolve(id, src)
                && self.loader.needles_of(t) & needle::ROUTING != 0
            {
                prefetch.push(t);
            }
        }
        // (What its top level uses at once was queued when its facts were made.)
        self.loader.prefetch(prefetch);

        let scope = Scope::new(Some(self.globals.clone()));
        scope.define("module", Value::Obj(module_obj.clone()));
        scope.define("exports", Value::Obj(rec.exports.clone()));
        node::module_globals(&scope, self.loader.project.rel(id));
        let ctx = Ctx {
            file: id,
            scope: scope.clone(),
            this: Value::Undef,
            home: None,
        };
        // Imports bind first (hoisted), lazily.
        for stmt in &facts.body {
            match stmt {
                Stmt::Import(imp) => {
                    rec.esm.set(true);
                    self.bind_import(&ctx, imp);
                    // `import './boot'` binds nothing: it is there to run the module.
                    self.run_bare_import(ctx.file, imp);
                }
                Stmt::ExportNames(..)
                | Stmt::ExportAll(..)
                | Stmt::ExportDecl(..)
                | Stmt::ExportDefault(_) => rec.esm.set(true),
                _ => {}
            }
        }
        let mut export_names: Vec<(String, String)> = Vec::new();
        self.hoist(&ctx, &facts.body);
        for stmt in &facts.body {
            match stmt {
                Stmt::ExportNames(names, None, _) => {
                    for (local, exported) in names {
                        let v = scope.lookup(local).unwrap_or(Value::Undef);
                        rec.exports.set(exported, v);
                        export_names.push((local.clone(), exported.clone()));
                    }
                }
                Stmt::ExportNames(names, Some(src), line) => {
                    match self.resolve_spec(id, src, *line) {
                        Some(Resolved::File(t)) => {
                            for (name, alias) in names {
                                rec.exports
                                    .set(alias, Value::Lazy(t, Rc::from(name.as_str())));
                            }
                        }
                        other => {
                            for (name, alias) in names {
                                let v = self.known_import(other.as_ref(), Some(name));
                                rec.exports.set(alias, v);
                            }
                        }
                    }
                }
                Stmt::ExportAll(src, alias, line) => {
                    if let Some(Resolved::File(t)) = self.resolve_spec(id, src, *line) {
                        match alias {
                            Some(a) => rec.exports.set(a, Value::Module(t)),
                            None => rec.stars.borrow_mut().push(t),
                        }
                    }
                }
                Stmt::ExportDecl(inner, names) => {
                    self.exec_stmt(&ctx, inner);
                    for n in names {
                        let v = scope.lookup(n).unwrap_or(Value::Undef);
                        rec.exports.set(n, v);
                        export_names.push((n.clone(), n.clone()));
                    }
                }
                Stmt::ExportDefault(e) => {
                    let v = self.eval(&ctx, e);
                    if let (Expr::Func(f), Value::Func(_)) = (e, &v)
                        && let Some(n) = &f.name
                    {
                        scope.define(n, v.clone());
                    }
                    rec.exports.set("default", v);
                }
                s => {
                    if !matches!(self.exec_stmt(&ctx, s), Flow::Normal) {
                        break;
                    }
                }
            }
        }
        // ESM exports are live bindings: take the final values, and keep the
        // scope so later assignments (`io = new Server()` in an init function) show.
        let mut live = HashMap::new();
        for (local, exported) in export_names {
            if let Some(v) = scope.lookup(&local)
                && !matches!(v, Value::Undef)
            {
                rec.exports.set(&exported, v);
            }
            live.insert(exported, local);
        }
        *rec.live.borrow_mut() = Some((scope.clone(), live));
        rec.done.set(true);
        rec
    }

    pub(crate) fn resolve_spec(&mut self, from: FileId, spec: &str, line: u32) -> Option<Resolved> {
        let r = self.loader.project.resolve(from, spec);
        // Assets handled by a bundler (`./App.css`, `./logo.svg`, `./x.md?raw`) are not modules.
        let path = spec.split(['?', '#']).next().unwrap_or(spec);
        let asset = spec.contains('?')
            || path.rsplit_once('.').is_some_and(|(_, ext)| {
                matches!(
                    ext,
                    "css"
                        | "scss"
                        | "sass"
                        | "less"
                        | "svg"
                        | "png"
                        | "jpg"
                        | "jpeg"
                        | "gif"
                        | "webp"
                        | "ico"
                        | "avif"
                        | "bmp"
                        | "woff"
                        | "woff2"
                        | "ttf"
                        | "eot"
                        | "mp3"
                        | "mp4"
                        | "wav"
                        | "webm"
                        | "md"
                        | "txt"
                        | "html"
                        | "vue"
                        | "svelte"
                        | "wasm"
                        | "glsl"
                        | "graphql"
                        | "gql"
                        | "yaml"
                        | "yml"
                )
            });
        // A JSON module (`import pkg from '../package.json'`) is data, when it
        // exists (a path under the virtual root `/` is under ROOT: see `node`).
        let json_module = path.ends_with(".json")
            && match path.strip_prefix('/') {
                Some(rel) => self.loader.project.root.join(rel).is_file(),
                None => self
                    .loader
                    .project
                    .abs(from)
                    .parent()
                    .is_some_and(|dir| dir.join(path).is_file()),
            };
        let asset = asset || json_module;
        if r == Resolved::Missing && !asset {
            self.finding(
                FindingCode::UnresolvedImport,
                from,
                line,
                format!("cannot resolve `{spec}`: no such file in the project"),
            );
        }
        Some(r)
    }

    pub(crate) fn bind_import(&mut self, ctx: &Ctx, imp: &Import) {
        let r = self.resolve_spec(ctx.file, &imp.source, imp.line);
        match r {
            Some(Resolved::File(t)) => {
                if let Some(d) = &imp.default {
                    ctx.scope.define(d, Value::Lazy(t, Rc::from("default")));
                }
                if let Some(ns) = &imp.namespace {
                    ctx.scope.define(ns, Value::Module(t));
                }
                for (name, local) in &imp.named {
                    ctx.scope
                        .define(local, Value::Lazy(t, Rc::from(name.as_str())));
                }
            }
            other => {
                if let Some(d) = &imp.default {
                    let v = self.known_import(other.as_ref(), None);
                    ctx.scope.define(d, v);
                }
                if let Some(ns) = &imp.namespace {
                    let v = self.known_import(other.as_ref(), None);
                    ctx.scope.define(ns, v);
                }
                for (name, local) in &imp.named {
                    let v = self.known_import(other.as_ref(), Some(name));
                    ctx.scope.define(local, v);
                }
            }
        }
    }

    /// The value of a modelled package import (`name` None = default/namespace).
    pub(crate) fn known_import(&self, r: Option<&Resolved>, name: Option<&str>) -> Value {
        match r {
            Some(Resolved::Known(pkg)) => {
                let base = known_module(pkg);
                match name {
                    None | Some("default") => base,
                    Some(n) => member_of_builtin(&base, n),
                }
            }
            // React hooks whose values matter here: client code keeps its
            // socket in `ref.current` and wraps emitting helpers in hooks.
            Some(Resolved::External(pkg)) if pkg == "react" => match name {
                Some("useRef") => Value::Builtin(Builtin::UseRef),
                // `useCallback(fn)` is `fn`: helpers that emit are often wrapped in it.
                Some("useCallback") => Value::Builtin(Builtin::Identity),
                Some("useMemo") => Value::Builtin(Builtin::UseMemo),
                _ => Value::external(),
            },
            Some(Resolved::External(pkg)) => {
                match node::package(pkg).or_else(|| crate::libs::lodash::package(pkg)) {
                    Some(v) if matches!(name, None | Some("default")) => v,
                    Some(v) => member_of_builtin(&v, name.unwrap_or_default()),
                    None => Value::external(),
                }
            }
            _ => Value::Unknown(Unknown::Reported),
        }
    }

    /// `require(x)` / `import(x)` result for a project file.
    pub(crate) fn module_value(&mut self, id: FileId) -> Value {
        let rec = self.load_module(id);
        if rec.esm.get() {
            Value::Module(id)
        } else {
            rec.module_obj.get("exports").unwrap_or(Value::Undef)
        }
    }

    pub(crate) fn export_of(&mut self, id: FileId, name: &str, depth: u32) -> Value {
        if depth > 16 {
            return Value::dynamic();
        }
        let rec = self.load_module(id);
        if !rec.esm.get() {
            let exp = rec.module_obj.get("exports").unwrap_or(Value::Undef);
            if name == "default" {
                // `exports.default = x` (compiled ESM) wins over the object itself.
                if let Value::Obj(o) = &exp
                    && let Some(d) = o.get("default")
                    && o.get("__esModule").is_some()
                {
                    return self.force(d, depth + 1);
                }
                return exp;
            }
            return self.member(&exp, name);
        }
        let current = rec
            .live
            .borrow()
            .as_ref()
            .and_then(|(sc, names)| names.get(name).and_then(|local| sc.lookup(local)));
        if let Some(v) = current
            && !matches!(v, Value::Undef)
        {
            return self.force(v, depth + 1);
        }
        if let Some(v) = rec.exports.get(name) {
            return self.force(v, depth + 1);
        }
        let stars = rec.stars.borrow().clone();
        for s in stars {
            // A barrel's modules that cannot hold the name are not loaded.
            if !self.is_loaded(s) && !self.loader.may_export(s, name) {
                continue;
            }
            let v = self.export_of(s, name, depth + 1);
            if !matches!(v, Value::Undef | Value::Unknown(_)) {
                return v;
            }
        }
        if !rec.done.get() {
            // Import cycle: the binding is not initialised yet.
            return Value::dynamic();
        }
        Value::Undef
    }

    pub(crate) fn force(&mut self, v: Value, depth: u32) -> Value {
        match v {
            Value::Lazy(f, name) => self.export_of(f, &name, depth),
            v => v,
        }
    }

    /// Resolve lazy imports and deferred calls: the value is needed for routing.
    pub(crate) fn force_deep(&mut self, v: Value) -> Value {
        let mut v = v;
        for _ in 0..32 {
            v = match v {
                Value::Lazy(f, name) => self.export_of(f, &name, 0),
                Value::Deferred(t) => {
                    if let Some(r) = t.result.borrow().clone() {
                        r
                    } else if t.forcing.get() {
                        return Value::dynamic();
                    } else {
                        t.forcing.set(true);
                        let ctx = Ctx {
                            file: t.file,
                            scope: Scope::new(Some(self.globals.clone())),
                            this: Value::Undef,
                            home: None,
                        };
                        let r = match &t.kind {
                            ThunkKind::Call(callee, argv, this, line) => {
                                let callee = self.force_deep(callee.clone());
                                self.call_value_now(
                                    &ctx,
                                    &callee,
                                    argv.clone(),
                                    &[],
                                    *line,
                                    this.clone(),
                                )
                            }
                            ThunkKind::Member(base, prop) => {
                                let base = self.force_deep(base.clone());
                                self.member(&base, prop)
                            }
                        };
                        t.forcing.set(false);
                        *t.result.borrow_mut() = Some(r.clone());
                        r
                    }
                }
                other => return other,
            };
        }
        Value::dynamic()
    }

    // ----- statements -----

    pub(crate) fn hoist(&mut self, ctx: &Ctx, stmts: &[Stmt]) {
        for s in stmts {
            let s = match s {
                Stmt::ExportDecl(inner, _) => inner.as_ref(),
                s => s,
            };
            if let Stmt::Function(name, f) = s {
                let v = self.closure(ctx, f);
                ctx.scope.define(name, v);
            }
            self.hoist_function_binding(ctx, s);
        }
    }

    pub(crate) fn exec_block(&mut self, ctx: &Ctx, stmts: &[Stmt]) -> Flow {
        let inner = Ctx {
            scope: Scope::new(Some(ctx.scope.clone())),
            ..ctx.clone()
        };
        self.hoist(&inner, stmts);
        for s in stmts {
            let flow = self.exec_stmt(&inner, s);
            if !matches!(flow, Flow::Normal) {
                return flow;
            }
        }
        Flow::Normal
    }

    pub(crate) fn exec_stmt(&mut self, ctx: &Ctx, stmt: &Stmt) -> Flow {
        self.steps += 1;
        match stmt {
            Stmt::Expr(e) => {
                self.eval(ctx, e);
            }
            Stmt::Var(decls) => {
                for (pat, init) in decls {
                    let v = match init {
                        Some(e) => self.eval_raw(ctx, e),
                        None => Value::Undef,
                    };
                    self.bind(ctx, pat, v, true);
                }
            }
            Stmt::Function(..) | Stmt::Import(_) => {}
            Stmt::TypeDecl(name, t) => {
                if !ctx.scope.vars.borrow().contains_key(name.as_str()) {
                    ctx.scope
                        .define(name, Value::Type(Arc::new(t.clone()), ctx.scope.clone()));
                }
            }
            Stmt::Class(name, c) => {
                let v = self.class_value(ctx, c);
                ctx.scope.define(name, v);
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval_raw(ctx, e),
                    None => Value::Undef,
                };
                return Flow::Return(v);
            }
            Stmt::Throw(e) => {
                let v = self.eval(ctx, e);
                if self.route_contract.is_some() {
                    self.note_error_status(ctx, &v, e);
                }
                return Flow::Throw(v);
            }
            Stmt::If(test, text, then, els, _) => {
                let t = self.eval(ctx, test);
                // Looking for events, or running a Socket.IO handler (which runs
                // later, once the server is up), a flag in program state
                // (`if (realtime.maintenance) return;`) does not decide anything:
                // every path may run at some point.
                let state = (self.event_mode || self.socket_handlers > 0)
                    && matches!(
                        t,
                        Value::Bool(_) | Value::Undef | Value::Null | Value::Num(_) | Value::Str(_)
                    )
                    && !matches!(test, Expr::Bool(_) | Expr::Str(_) | Expr::Num(_));
                let known = if state { None } else { t.truthy() };
                // Lazy initialisation, `if (!this._app) this._app = build()`: the
                // branch runs the first time, so what it builds is not conditional.
                let known = match known {
                    None if lazy_init(test, then) => Some(true),
                    k => k,
                };
                match known {
                    Some(true) => return self.exec_block(ctx, then),
                    Some(false) => return self.exec_block(ctx, els),
                    None => return self.exec_both(ctx, text, then, els),
                }
            }
            Stmt::ForOf(..) | Stmt::Loop(..) | Stmt::For(_) => {
                return self.exec_loop(ctx, stmt, None);
            }
            Stmt::Labeled(label, inner) => return self.exec_labeled(ctx, label, inner),
            Stmt::Break(label) => return Flow::Break(label.clone()),
            Stmt::Continue(label) => return Flow::Continue(label.clone()),
            Stmt::Block(stmts) => return self.exec_block(ctx, stmts),
            Stmt::Try(body, param, handler, fin) => {
                return self.exec_try(ctx, body, param.as_ref(), handler, fin);
            }
            Stmt::Switch(disc, cases) => {
                let d = self.eval(ctx, disc);
                let d = self.force_deep(d);
                // A known discriminant with known case values: run the matching case
                // and fall through until a case exits, as JavaScript does.
                let mut start = None;
                if let Some(dt) = d.as_text() {
                    let mut all_known = true;
                    for (i, c) in cases.iter().enumerate() {
                        if let Some(t) = &c.test {
                            let v = self.eval(ctx, t);
                            match v.as_text() {
                                Some(t) if start.is_none() && t == dt => start = Some(i),
                                Some(_) => {}
                                None => all_known = false,
                            }
                        }
                    }
                    if start.is_none() && all_known {
                        start = cases.iter().position(|c| c.test.is_none());
                        if start.is_none() {
                            return Flow::Normal;
                        }
                    } else if !all_known {
                        start = None;
                    }
                }
                if let Some(i) = start {
                    for c in &cases[i..] {
                        match self.exec_block(ctx, &c.body) {
                            Flow::Normal if !c.exits => {}
                            Flow::Normal | Flow::Break(None) => break,
                            other => return other,
                        }
                    }
                    return Flow::Normal;
                }
                // Unknown: every case may run; names the cases assign become unknown after.
                self.cond.push(format!("switch ({})", expr_text(disc)));
                let mut assigned = Vec::new();
                for c in cases {
                    self.exec_block(ctx, &c.body);
                    assigned_names(&c.body, &mut assigned);
                }
                self.cond.pop();
                for n in assigned {
                    if ctx.scope.lookup(&n).is_some() {
                        ctx.scope.assign(&n, Value::dynamic());
                    }
                }
            }
            Stmt::ExportNames(..) | Stmt::ExportAll(..) => {}
            Stmt::ExportDecl(inner, _) => return self.exec_stmt(ctx, inner),
            Stmt::ExportDefault(e) => {
                self.eval(ctx, e);
            }
            Stmt::Enum(name, members) => {
                let obj = ObjData::new();
                let mut next = 0.0;
                for (k, v) in members {
                    let val = match v {
                        Some(e) => self.eval(ctx, e),
                        None => Value::Num(next),
                    };
                    if let Value::Num(n) = val {
                        next = n + 1.0;
                    }
                    obj.set(k, val);
                }
                ctx.scope.define(name, Value::Obj(obj));
            }
        }
        Flow::Normal
    }

    pub(crate) fn bind(&mut self, ctx: &Ctx, pat: &Pattern, v: Value, define: bool) {
        match pat {
            Pattern::Ident(name) => {
                if define {
                    ctx.scope.define(name, v);
                } else {
                    ctx.scope.assign(name, v);
                }
            }
            Pattern::Object(props, rest) => {
                let v = self.force(v, 0);
                for (key, p) in props {
                    let k = match key {
                        PropKey::Name(n) => Some(n.clone()),
                        PropKey::Computed(e) => self.eval(ctx, e).as_text(),
                    };
                    let pv = match k {
                        Some(k) => self.member(&v, &k),
                        None => Value::dynamic(),
                    };
                    self.bind(ctx, p, pv, define);
                }
                if let Some(r) = rest {
                    self.bind(ctx, r, Value::dynamic(), define);
                }
            }
            Pattern::Array(items, rest) => {
                let v = self.force(v, 0);
                for (i, p) in items.iter().enumerate() {
                    if let Some(p) = p {
                        let pv = match &v {
                            Value::Arr(a) => a.borrow().get(i).cloned().unwrap_or(Value::Undef),
                            _ => Value::dynamic(),
                        };
                        self.bind(ctx, p, pv, define);
                    }
                }
                if let Some(r) = rest {
                    let pv = match &v {
                        Value::Arr(a) => {
                            Value::array(a.borrow().iter().skip(items.len()).cloned().collect())
                        }
                        _ => Value::dynamic(),
                    };
                    self.bind(ctx, r, pv, define);
                }
            }
            Pattern::Default(p, def) => {
                let v = if matches!(v, Value::Undef) {
                    self.eval_raw(ctx, def)
                } else {
                    v
                };
                self.bind(ctx, p, v, define);
            }
            Pattern::Target(target) => match target.as_ref() {
                Expr::Member(obj, prop) => {
                    self.global_object_write(ctx, obj, prop, &v);
                    let o = self.eval(ctx, obj);
                    self.set_member(&o, prop, v);
                }
                Expr::Index(obj, idx) => {
                    let o = self.eval(ctx, obj);
                    let k = self.eval(ctx, idx);
                    if let Some(k) = k.as_text() {
                        self.set_member(&o, &k, v);
                    } else {
                        self.keep_socket_under_dynamic_key(&o, v);
                    }
                }
                _ => {}
            },
            Pattern::Ignored => {}
        }
    }

    pub(crate) fn set_member(&mut self, o: &Value, prop: &str, v: Value) {
        match o {
            Value::Obj(data) => data.set(prop, v),
            Value::Class(c) => c.statics.set(prop, v),
            Value::Arr(a) => {
                if let Ok(i) = prop.parse::<usize>() {
                    let mut a = a.borrow_mut();
                    if i < MAX_ITERATIONS {
                        if a.len() <= i {
                            a.resize(i + 1, Value::Undef);
                        }
                        a[i] = v;
                    }
                }
            }
            Value::Router(id) => {
                self.routers[*id as usize].props.insert(prop.to_string(), v);
            }
            Value::Func(c) => {
                let c = c.clone();
                self.fn_object(&c).set(prop, v);
            }
            _ => {}
        }
    }

    // ----- expressions -----

    /// Evaluate and resolve lazy imports.
    pub(crate) fn eval(&mut self, ctx: &Ctx, e: &Expr) -> Value {
        let v = self.eval_raw(ctx, e);
        self.force(v, 0)
    }

    /// Evaluate, leaving a bare imported name unresolved (`Value::Lazy`).
    pub(crate) fn eval_raw(&mut self, ctx: &Ctx, e: &Expr) -> Value {
        match e {
            Expr::Str(s) => Value::str(s),
            Expr::Num(n) => Value::Num(*n),
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Null => Value::Null,
            Expr::Undefined => Value::Undef,
            Expr::Regex(r) => Value::Regex(Rc::from(r.as_str())),
            Expr::Template(quasis, exprs) => {
                let mut out = String::new();
                let mut known = true;
                let mut simple = true;
                for (i, q) in quasis.iter().enumerate() {
                    out.push_str(q);
                    if let Some(e) = exprs.get(i) {
                        let v = self.eval(ctx, e);
                        match self.force_deep(v) {
                            Value::Pattern(p) => {
                                known = false;
                                out.push_str(&p);
                            }
                            v => match v.as_text() {
                                Some(t) => out.push_str(&t),
                                None => {
                                    known = false;
                                    match placeholder(e) {
                                        Some(n) => out.push_str(&format!("{{{n}}}")),
                                        None => simple = false,
                                    }
                                }
                            },
                        }
                    }
                }
                if !self.charge(ctx.file, out.len()) {
                    Value::dynamic()
                } else if known {
                    Value::str(&out)
                } else if simple {
                    Value::Pattern(Rc::from(out.as_str()))
                } else {
                    Value::dynamic()
                }
            }
            Expr::Ident(name) => match ctx.scope.lookup(name) {
                Some(v) => v,
                None => self.global_obj.get(name).unwrap_or(Value::external()),
            },
            Expr::This => ctx.this.clone(),
            Expr::Super => Value::dynamic(),
            Expr::Member(obj, prop) => {
                if let Some(v) = self.global_object_read(ctx, obj, prop) {
                    return v;
                }
                let o = self.eval(ctx, obj);
                self.member(&o, prop)
            }
            Expr::Index(obj, idx) => {
                let o = self.eval(ctx, obj);
                let k = self.eval(ctx, idx);
                match k.as_text() {
                    Some(k) => self.member(&o, &k),
                    None => self
                        .socket_under_dynamic_key(&o)
                        .unwrap_or_else(Value::dynamic),
                }
            }
            Expr::Call(call) => self.call(ctx, call),
            Expr::New(callee, args, line) => {
                let c = self.eval(ctx, callee);
                let argv = self.eval_args(ctx, args);
                self.construct(ctx, &c, argv, args, *line)
            }
            Expr::Array(items) => {
                let mut out = Vec::new();
                for it in items {
                    match it {
                        Expr::Spread(inner) => match self.eval(ctx, inner) {
                            Value::Arr(a) => out.extend(a.borrow().iter().cloned()),
                            Value::Coll(c) => out.extend(c.iterated()),
                            _ => out.push(Value::dynamic()),
                        },
                        e => out.push(self.eval_raw(ctx, e)),
                    }
                }
                Value::array(out)
            }
            Expr::Object(props) => {
                let obj = ObjData::new();
                for p in props {
                    match p {
                        ObjProp::KeyValue(k, v) => {
                            let key = match k {
                                PropKey::Name(n) => Some(n.clone()),
                                PropKey::Computed(e) => self.eval(ctx, e).as_text(),
                            };
                            let val = self.eval_raw(ctx, v);
                            if let Some(key) = key {
                                obj.set(&key, val);
                            }
                        }
                        ObjProp::Spread(e) => {
                            if let Value::Obj(src) = self.eval(ctx, e) {
                                for (k, v) in src.props.borrow().iter() {
                                    obj.set(k, v.clone());
                                }
                            }
                        }
                        ObjProp::Method(k, f) => {
                            let key = match k {
                                PropKey::Name(n) => Some(n.clone()),
                                PropKey::Computed(e) => self.eval(ctx, e).as_text(),
                            };
                            let v = self.closure(ctx, f);
                            if let Some(key) = key {
                                obj.set(&key, v);
                            }
                        }
                    }
                }
                Value::Obj(obj)
            }
            Expr::Func(f) => self.closure(ctx, f),
            Expr::Class(c) => self.class_value(ctx, c),
            Expr::Add(l, r) => {
                let a = self.eval(ctx, l);
                let a = self.force_deep(a);
                let b = self.eval(ctx, r);
                let b = self.force_deep(b);
                match (&a, &b) {
                    (Value::Num(x), Value::Num(y)) => Value::Num(x + y),
                    (Value::Pattern(x), _) | (_, Value::Pattern(x))
                        if matches!(
                            (&a, &b),
                            (
                                Value::Pattern(_) | Value::Str(_),
                                Value::Pattern(_) | Value::Str(_)
                            )
                        ) =>
                    {
                        let _ = x;
                        let t = |v: &Value| match v {
                            Value::Pattern(p) | Value::Str(p) => p.to_string(),
                            _ => String::new(),
                        };
                        let text = format!("{}{}", t(&a), t(&b));
                        if self.charge(ctx.file, text.len()) {
                            Value::Pattern(Rc::from(text.as_str()))
                        } else {
                            Value::dynamic()
                        }
                    }
                    _ => match (a.as_text(), b.as_text()) {
                        (Some(x), Some(y)) if self.charge(ctx.file, x.len() + y.len()) => {
                            Value::str(&(x + &y))
                        }
                        _ => Value::dynamic(),
                    },
                }
            }
            Expr::Logical(op, l, r) => {
                let a = self.eval(ctx, l);
                match (op, a.truthy()) {
                    (LogicalOp::And, Some(false)) => a,
                    (LogicalOp::And, Some(true)) => self.eval_raw(ctx, r),
                    (LogicalOp::Or, Some(true)) => a,
                    (LogicalOp::Or, Some(false)) => self.eval_raw(ctx, r),
                    (LogicalOp::Nullish, _) if matches!(a, Value::Undef | Value::Null) => {
                        self.eval_raw(ctx, r)
                    }
                    (LogicalOp::Nullish, Some(_)) => a,
                    (_, None) => {
                        self.cond.push(expr_text(l));
                        let b = self.eval_raw(ctx, r);
                        self.cond.pop();
                        // `x || null`, `x || []`: a fallback of nothing says
                        // nothing (a loop over it would run zero times); keep `x`.
                        if says_nothing(&b) { a } else { b }
                    }
                }
            }
            Expr::Cond(test, text, a, b) => {
                let t = self.eval(ctx, test);
                match t.truthy() {
                    Some(true) => self.eval_raw(ctx, a),
                    Some(false) => self.eval_raw(ctx, b),
                    None => {
                        self.cond.push(text.clone());
                        let x = self.eval_raw(ctx, a);
                        self.cond.pop();
                        self.cond.push(format!("!({text})"));
                        let y = self.eval_raw(ctx, b);
                        self.cond.pop();
                        // Keep the branch that says something: a known value over
                        // an unknown one, but not an empty fallback (`Array.isArray(x)
                        // ? x : []`), which would make a loop over it run zero times.
                        match (x.is_unknown(), y.is_unknown()) {
                            (true, false) if !says_nothing(&y) => y,
                            (false, true) if says_nothing(&x) => y,
                            _ => x,
                        }
                    }
                }
            }
            Expr::Assign(pat, v) => {
                let val = self.eval_raw(ctx, v);
                self.bind(ctx, pat, val.clone(), false);
                val
            }
            Expr::Await(e) => self.eval_raw(ctx, e),
            Expr::Unary(op, e) => {
                let v = self.eval(ctx, e);
                match op.as_str() {
                    "!" => v
                        .truthy()
                        .map(|b| Value::Bool(!b))
                        .unwrap_or(Value::dynamic()),
                    "void" => Value::Undef,
                    "typeof" => match v {
                        Value::Undef => Value::str("undefined"),
                        Value::Null | Value::Arr(_) | Value::Obj(_) | Value::Regex(_) => {
                            Value::str("object")
                        }
                        Value::Bool(_) => Value::str("boolean"),
                        Value::Num(_) => Value::str("number"),
                        Value::Str(_) => Value::str("string"),
                        Value::Func(_) | Value::Class(_) | Value::Router(_) => {
                            Value::str("function")
                        }
                        _ => Value::dynamic(),
                    },
                    "-" => match v {
                        Value::Num(n) => Value::Num(-n),
                        _ => Value::dynamic(),
                    },
                    _ => Value::dynamic(),
                }
            }
            Expr::Seq(items) => {
                let mut last = Value::Undef;
                for it in items {
                    last = self.eval_raw(ctx, it);
                }
                last
            }
            Expr::Spread(e) => self.eval_raw(ctx, e),
            Expr::Compare(op, l, r) => {
                let a = self.eval(ctx, l);
                let b = self.eval(ctx, r);
                // An ordering decides a loop's test (see `flow`), not a branch:
                // what is known of a count here is often a starting state.
                if matches!(op.as_str(), "<" | "<=" | ">" | ">=") {
                    return Value::dynamic();
                }
                let same_kind = std::mem::discriminant(&a) == std::mem::discriminant(&b);
                match (a.as_text(), b.as_text()) {
                    (Some(x), Some(y)) => {
                        let eq = x == y && (same_kind || op.len() == 2);
                        let neg = op.starts_with('!');
                        Value::Bool(eq != neg)
                    }
                    _ => Value::dynamic(),
                }
            }
            Expr::Typed(inner, t) => {
                let v = self.eval_raw(ctx, inner);
                if let (Value::Http(HttpVal::Part(part)), Some(c)) =
                    (&v, self.route_contract.clone())
                    && matches!(*part, "body" | "query" | "params")
                {
                    let schema = self.ts_schema(&ctx.scope, t, 0);
                    if schema.get("type").is_some() {
                        crate::libs::schemas::set_part(
                            &mut c.borrow_mut(),
                            part,
                            schema,
                            "Request<typed>",
                            ctx.file,
                            self.frames.last().map_or(0, |f| f.line),
                        );
                    }
                }
                v
            }
            Expr::Opaque(_) => Value::dynamic(),
        }
    }

    pub(crate) fn eval_args(&mut self, ctx: &Ctx, args: &[Expr]) -> Vec<Value> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Expr::Spread(inner) => match self.eval(ctx, inner) {
                    Value::Arr(arr) => out.extend(arr.borrow().iter().cloned()),
                    _ => out.push(Value::dynamic()),
                },
                e => out.push(self.eval_raw(ctx, e)),
            }
        }
        out
    }

    pub(crate) fn closure(&mut self, ctx: &Ctx, f: &Arc<Func>) -> Value {
        let c = Rc::new(Closure {
            file: ctx.file,
            func: f.clone(),
            env: ctx.scope.clone(),
            this: if f.arrow {
                Some(ctx.this.clone())
            } else {
                None
            },
            is_arrow: f.arrow,
            home: ctx.home.clone(),
        });
        let key = (ctx.file, f.id);
        if !self.called.contains(&key) {
            self.uncalled.entry(key).or_insert_with(|| c.clone());
        }
        self.note_component_method(&c);
        let emits = *self
            .emits
            .entry(key)
            .or_insert_with(|| crate::libs::socketio::mentions_emit(f));
        if emits {
            self.emit_funcs.entry(key).or_insert_with(|| c.clone());
        }
        Value::Func(c)
    }

    pub(crate) fn class_value(&mut self, ctx: &Ctx, c: &Arc<Class>) -> Value {
        let superclass = c.superclass.as_ref().map(|s| self.eval(ctx, s));
        let cv = Rc::new(ClassVal {
            file: ctx.file,
            class: c.clone(),
            env: ctx.scope.clone(),
            superclass,
            statics: ObjData::new(),
        });
        let cctx = Ctx {
            this: Value::Class(cv.clone()),
            home: Some(cv.clone()),
            ..ctx.clone()
        };
        for (name, f) in &c.static_methods {
            let v = self.closure(&cctx, f);
            cv.statics.set(name, v);
        }
        for (name, init) in &c.static_fields {
            let v = match init {
                Some(e) => self.eval_raw(&cctx, e),
                None => Value::Undef,
            };
            cv.statics.set(name, v);
        }
        self.classes.push((cv.clone(), None));
        if !c.decorators.is_empty() {
            self.nest_gateway(ctx, &cv);
        }
        Value::Class(cv)
    }

    /// Property read.
    pub(crate) fn member(&mut self, o: &Value, prop: &str) -> Value {
        match o {
            Value::Lazy(..) => {
                let v = self.force(o.clone(), 0);
                self.member(&v, prop)
            }
            Value::Obj(data) => {
                if let Some(v) = data.get(prop) {
                    return self.force(v, 0);
                }
                let class = data.class.borrow().clone();
                if let Some(c) = class {
                    if let Some(m) = self.find_method(&c, prop, o) {
                        return m;
                    }
                    // A getter runs when the property is read.
                    if let Some(g) = self.find_getter(&c, prop, o) {
                        return self.invoke(&g, Vec::new(), Some(o.clone()));
                    }
                }
                match self.proto_lookup(data, prop) {
                    Some(v) => v,
                    // What the runtime provides (`globalThis.fetch`).
                    None if Rc::ptr_eq(data, &self.global_obj) => Value::external(),
                    None => Value::dynamic(),
                }
            }
            Value::Arr(a) => match prop {
                "length" => Value::Num(a.borrow().len() as f64),
                _ => match prop.parse::<usize>() {
                    Ok(i) => a.borrow().get(i).cloned().unwrap_or(Value::Undef),
                    Err(_) if ARRAY_METHODS.contains(&prop) => {
                        Value::Builtin(Builtin::ArrayMethod(Rc::from(prop)))
                    }
                    Err(_) => Value::dynamic(),
                },
            },
            Value::Func(c) => {
                let c = c.clone();
                self.fn_member(&c, prop)
            }
            Value::Str(s) => match prop {
                "length" => Value::Num(s.chars().count() as f64),
                _ => Value::dynamic(),
            },
            // `ns.name` stays lazy, like a named import: resolving it may load
            // modules (a barrel's `export *` targets) that nothing else needs.
            Value::Module(id) => Value::Lazy(*id, Rc::from(prop)),
            Value::Class(c) => {
                if let Some(v) = c.statics.get(prop) {
                    return v;
                }
                match &c.superclass {
                    Some(s @ Value::Class(_)) => {
                        let s = s.clone();
                        self.member(&s, prop)
                    }
                    _ => Value::dynamic(),
                }
            }
            Value::Builtin(b) => member_of_builtin(&Value::Builtin(b.clone()), prop),
            Value::Sio(s) => {
                let s = s.clone();
                self.sio_member(&s, prop)
            }
            Value::Coll(c) => match prop {
                "size" => Value::Num(c.items.borrow().len() as f64),
                _ => Value::dynamic(),
            },
            Value::Http(h) => self.http_member(*h, prop),
            Value::Zod(z) if prop == "shape" => crate::libs::schemas::shape_of(z),
            Value::Router(id) => self.routers[*id as usize]
                .props
                .get(prop)
                .cloned()
                .unwrap_or(Value::dynamic()),
            Value::Deferred(_) => Thunk::value(ThunkKind::Member(o.clone(), prop.to_string()), 0),
            Value::Unknown(k) => Value::Unknown(k.clone()),
            Value::Undef | Value::Null => Value::dynamic(),
            _ => Value::dynamic(),
        }
    }

    /// A getter of the class or its superclasses, bound to `this`.
    pub(crate) fn find_getter(
        &self,
        c: &Rc<ClassVal>,
        prop: &str,
        this: &Value,
    ) -> Option<Rc<Closure>> {
        let mut cur = Some(c.clone());
        for _ in 0..16 {
            let cv = cur?;
            if let Some((_, f)) = cv.class.getters.iter().find(|(n, _)| n == prop) {
                return Some(Closure::method(&cv, f, this));
            }
            cur = match &cv.superclass {
                Some(Value::Class(s)) => Some(s.clone()),
                _ => None,
            };
        }
        None
    }

    pub(crate) fn find_method(
        &mut self,
        c: &Rc<ClassVal>,
        prop: &str,
        this: &Value,
    ) -> Option<Value> {
        let mut cur = Some(c.clone());
        let mut guard = 0;
        while let Some(cv) = cur {
            guard += 1;
            if guard > 16 {
                break;
            }
            if let Some((_, f)) = cv.class.methods.iter().find(|(n, _)| n == prop) {
                return Some(Value::Func(Closure::method(&cv, f, this)));
            }
            cur = match &cv.superclass {
                Some(Value::Class(s)) => Some(s.clone()),
                Some(Value::Func(f)) => {
                    let f = f.clone();
                    let proto = self.prototype_of(&f)?;
                    return match proto.get(prop) {
                        Some(Value::Func(m)) => Some(self.bind_this(&m, Some(this.clone()))),
                        _ => None,
                    };
                }
                _ => None,
            };
        }
        None
    }

    // ----- calls -----

    pub(crate) fn call(&mut self, ctx: &Ctx, call: &Call) -> Value {
        if budget::runs_later(&call.callee) {
            return self.later(|me| me.call_now(ctx, call));
        }
        self.call_now(ctx, call)
    }

    pub(crate) fn call_now(&mut self, ctx: &Ctx, call: &Call) -> Value {
        if let Some(v) = self.router_call_apply(ctx, call) {
            return v;
        }
        match &call.callee {
            Expr::Member(obj, name) => {
                if matches!(obj.as_ref(), Expr::Super) {
                    let argv = self.eval_args(ctx, &call.args);
                    if let Some(home) = ctx.home.clone()
                        && let Some(Value::Class(sup)) = home.superclass.clone()
                        && let Some(m) = self.find_method(&sup, name, &ctx.this)
                    {
                        return self.call_value(
                            ctx,
                            &m,
                            argv,
                            &call.args,
                            call.line,
                            Some(ctx.this.clone()),
                        );
                    }
                    return Value::dynamic();
                }
                if let Some(v) = self.vue_root_method(ctx, obj, name, call) {
                    return v;
                }
                let o = self.eval(ctx, obj);
                self.method_call(ctx, &o, name, call)
            }
            Expr::Index(obj, idx) => {
                let o = self.eval(ctx, obj);
                let k = self.eval(ctx, idx);
                match k.as_text() {
                    Some(name) => self.method_call(ctx, &o, &name, call),
                    None => {
                        if matches!(o, Value::Router(_)) {
                            let in_loop = self
                                .dyn_loops
                                .last()
                                .map(|(f, l, t, _)| (*f, *l, t.clone()));
                            match in_loop {
                                Some((f, l, t)) => {
                                    self.finding(
                                        FindingCode::DynamicLoop,
                                        f,
                                        l,
                                        format!("routes are registered in a loop over `{t}`, which is only known at run time"),
                                    )
                                }
                                None => self.finding(
                                    FindingCode::DynamicMethod,
                                    ctx.file,
                                    call.line,
                                    format!("the HTTP method `{}` is computed at run time", expr_text(idx)),
                                ),
                            }
                        }
                        self.eval_args(ctx, &call.args);
                        Value::dynamic()
                    }
                }
            }
            Expr::Super => {
                let argv = self.eval_args(ctx, &call.args);
                if let Some(home) = ctx.home.clone()
                    && let Some(sup) = home.superclass.clone()
                {
                    self.init_instance(&sup, &ctx.this, argv);
                }
                Value::Undef
            }
            Expr::Ident(n) if n == "import" => {
                let argv = self.eval_args(ctx, &call.args);
                self.require(ctx, argv.first(), call.line, true)
            }
            callee => {
                let f = self.eval_raw(ctx, callee);
                let argv = self.eval_args(ctx, &call.args);
                if matches!(f, Value::Unknown(Unknown::Dynamic)) {
                    self.dynamic_call(ctx, call, &argv);
                }
                // `memoize(load)` / `once(init)` from a package give back what they wrap.
                if matches!(f, Value::Unknown(Unknown::External))
                    && matches!(callee, Expr::Ident(n) if n == "memoize" || n == "once")
                    && let Some(g @ Value::Func(_)) = argv.first()
                {
                    return g.clone();
                }
                self.call_value(ctx, &f, argv, &call.args, call.line, None)
            }
        }
    }

    pub(crate) fn require(
        &mut self,
        ctx: &Ctx,
        spec: Option<&Value>,
        line: u32,
        is_import: bool,
    ) -> Value {
        let spec = spec.cloned().map(|v| self.force(v, 0));
        match spec.as_ref().and_then(|s| s.as_text()) {
            Some(spec) => match self.resolve_spec(ctx.file, node::specifier(&spec), line) {
                Some(Resolved::File(t)) => {
                    let v = self.module_value(t);
                    if is_import && !matches!(v, Value::Module(_)) {
                        // `import()` of CommonJS: a namespace whose default is module.exports.
                        let ns = ObjData::new();
                        ns.set("default", v);
                        return Value::Obj(ns);
                    }
                    v
                }
                other => self.known_import(other.as_ref(), None),
            },
            None => {
                if self.dyn_loops.is_empty() {
                    self.finding(
                        FindingCode::DynamicImport,
                        ctx.file,
                        line,
                        "a module is loaded from a path computed at run time".into(),
                    );
                    Value::Unknown(Unknown::Reported)
                } else {
                    // The loop's finding covers it, if the loop registers routes.
                    self.loop_imports
                        .push((self.dyn_loops.len(), ctx.file, line));
                    Value::Unknown(Unknown::Dynamic)
                }
            }
        }
    }

    pub(crate) fn method_call(&mut self, ctx: &Ctx, o: &Value, name: &str, call: &Call) -> Value {
        self.census_call(ctx.file, call.line, name, o);
        if matches!(o, Value::Deferred(_)) && SOCKET_METHODS.contains(&name) {
            let forced = self.force_deep(o.clone());
            if !matches!(forced, Value::Deferred(_)) {
                return self.method_call(ctx, &forced, name, call);
            }
        }
        match o {
            Value::Router(id) => return self.router_method(ctx, *id, name, call),
            Value::Sio(s) => return self.sio_method(ctx, s, name, call),
            Value::Coll(c) => return self.coll_method(ctx, c, name, call),
            Value::Emitter(em) => return self.emitter_method(ctx, em, name, call),
            Value::Zod(z) => {
                let argv = self.eval_args(ctx, &call.args);
                if matches!(
                    name,
                    "parse"
                        | "safeParse"
                        | "parseAsync"
                        | "safeParseAsync"
                        | "spa"
                        | "validate"
                        | "validateAsync"
                ) {
                    let mut all = vec![Value::Zod(z.clone())];
                    all.extend(argv.iter().cloned());
                    let label = match &call.callee {
                        Expr::Member(o, _) => expr_text(o),
                        _ => String::new(),
                    };
                    self.note_validation(ctx, call.line, &all, &label);
                    return Value::dynamic();
                }
                if z.joi {
                    return self.joi_method(z, name, &argv);
                }
                return self.zod_method(z, name, &argv);
            }
            Value::Validator(v) => {
                let argv = self.eval_args(ctx, &call.args);
                return self.validator_method(v, name, &argv);
            }
            Value::Http(h) => {
                let h = *h;
                return self.http_method(ctx, h, name, call);
            }
            Value::Chain(id, paths) => {
                if HTTP_VERBS.contains(&name) {
                    let paths: Vec<PathArg> = paths
                        .iter()
                        .flat_map(|v| path_list(v).unwrap_or_default())
                        .collect();
                    self.register_route(ctx, *id, name, Ok(paths), &call.args, 0, call);
                    return o.clone();
                }
                self.eval_args(ctx, &call.args);
                return Value::dynamic();
            }
            _ => {}
        }
        if name == "then" || name == "finally" {
            let argv = self.eval_args(ctx, &call.args);
            if let Some(cb) = argv.first() {
                let arg = if o.is_unknown() {
                    Value::dynamic()
                } else {
                    o.clone()
                };
                return self.call_value(ctx, cb, vec![arg], &[], call.line, None);
            }
            return o.clone();
        }
        match o {
            Value::Arr(a) => {
                let argv = self.eval_args(ctx, &call.args);
                self.array_method(ctx, a, name, argv, call)
            }
            Value::Str(s) => {
                let argv = self.eval_args(ctx, &call.args);
                let argv: Vec<Value> = argv.into_iter().map(|a| self.force(a, 0)).collect();
                match string_method(s, name, &argv) {
                    Value::Str(t) if t.len() > s.len() && !self.charge(ctx.file, t.len()) => {
                        Value::dynamic()
                    }
                    v => v,
                }
            }
            Value::Regex(r) => {
                let argv = self.eval_args(ctx, &call.args);
                let argv: Vec<Value> = argv.into_iter().map(|a| self.force(a, 0)).collect();
                strings::regex_method(r, name, &argv)
            }
            Value::Builtin(Builtin::ArrayMethod(m)) if matches!(name, "call" | "apply") => {
                let argv = self.eval_args(ctx, &call.args);
                let rest: Vec<Value> = match name {
                    "call" => argv.iter().skip(1).cloned().collect(),
                    _ => match argv.get(1) {
                        Some(Value::Arr(a)) => a.borrow().clone(),
                        _ => Vec::new(),
                    },
                };
                match argv.first().cloned().map(|v| self.force(v, 0)) {
                    Some(Value::Arr(a)) => {
                        let m = m.clone();
                        self.array_method(ctx, &a, &m, rest, call)
                    }
                    _ => Value::dynamic(),
                }
            }
            Value::Func(f) if matches!(name, "call" | "apply" | "bind") => {
                let argv = self.eval_args(ctx, &call.args);
                let this = argv.first().cloned();
                let rest: Vec<Value> = match name {
                    "call" => argv.iter().skip(1).cloned().collect(),
                    "apply" => match argv.get(1) {
                        Some(Value::Arr(a)) => a.borrow().clone(),
                        _ => Vec::new(),
                    },
                    _ => return self.bind_this(f, this),
                };
                let fv = Value::Func(f.clone());
                self.call_value(ctx, &fv, rest, &[], call.line, this)
            }
            Value::Unknown(_) if name == "get" && call.args.len() == 1 => {
                // `req.app.get('io')`: a setting stored with `app.set('io', io)`.
                let k = self.eval(ctx, &call.args[0]);
                if let Some(k) = k.as_text() {
                    for r in &self.routers {
                        if let Some(v @ Value::Sio(_)) = r.settings.get(&k) {
                            return v.clone();
                        }
                    }
                }
                Value::dynamic()
            }
            Value::Unknown(kind) => {
                // `fs.readdirSync(dir).forEach(cb)`: callbacks run over values we cannot see.
                let looping = matches!(
                    name,
                    "forEach" | "map" | "flatMap" | "filter" | "reduce" | "some" | "every" | "find"
                );
                if looping {
                    self.dyn_loops.push((
                        ctx.file,
                        call.line,
                        format!("{}.{name}(...)", expr_text(callee_object(&call.callee))),
                        Cell::new(false),
                    ));
                }
                let argv = self.eval_args(ctx, &call.args);
                self.census_handed(ctx.file, call.line, &argv);
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                if looping {
                    self.pop_dyn_loop();
                }
                // `_.memoize(load)` / `once(init)` give back what they wrap.
                if *kind == Unknown::External
                    && matches!(name, "memoize" | "once")
                    && let Some(f @ Value::Func(_)) = argv.first()
                {
                    return f.clone();
                }
                if *kind == Unknown::Dynamic {
                    self.dynamic_call(ctx, call, &argv);
                }
                Value::Unknown(kind.clone())
            }
            _ => {
                let f = self.member(o, name);
                let argv = self.eval_args(ctx, &call.args);
                let this = match o {
                    Value::Obj(_) | Value::Class(_) => Some(o.clone()),
                    _ => None,
                };
                self.call_value(ctx, &f, argv, &call.args, call.line, this)
            }
        }
    }

    /// `Set`/`Map` methods.
    pub(crate) fn coll_method(
        &mut self,
        ctx: &Ctx,
        c: &Rc<Coll>,
        name: &str,
        call: &Call,
    ) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        let arg = |i: usize| argv.get(i).cloned().unwrap_or(Value::Undef);
        match name {
            "add" | "set" => {
                let entry = if c.map {
                    (arg(0), arg(1))
                } else {
                    (Value::Undef, arg(0))
                };
                let mut items = c.items.borrow_mut();
                let key = entry.0.as_text();
                if let Some(k) = key.as_ref().filter(|_| c.map)
                    && let Some(slot) = items
                        .iter_mut()
                        .find(|(k2, _)| k2.as_text().as_ref() == Some(k))
                {
                    *slot = entry;
                } else if items.len() < Coll::LIMIT {
                    items.push(entry);
                }
                Value::Coll(c.clone())
            }
            "get" => {
                let items = c.items.borrow();
                let key = arg(0).as_text();
                if let Some(k) = key
                    && let Some((_, v)) = items
                        .iter()
                        .find(|(k2, _)| k2.as_text().as_ref() == Some(&k))
                {
                    return v.clone();
                }
                // An unknown key: the entry that carries a socket or router, if any.
                items
                    .iter()
                    .find(|(_, v)| v.is_tracked(0))
                    .map(|(_, v)| v.clone())
                    .unwrap_or(Value::dynamic())
            }
            "values" => Value::array(c.items.borrow().iter().map(|(_, v)| v.clone()).collect()),
            "keys" => Value::array(c.items.borrow().iter().map(|(k, _)| k.clone()).collect()),
            "entries" => Value::array(
                c.items
                    .borrow()
                    .iter()
                    .map(|(k, v)| Value::array(vec![k.clone(), v.clone()]))
                    .collect(),
            ),
            "forEach" => {
                let cb = arg(0);
                let items: Vec<(Value, Value)> = c.items.borrow().clone();
                for (k, v) in items {
                    let k = if c.map { k } else { v.clone() };
                    self.call_value_now(ctx, &cb, vec![v, k], &[], call.line, None);
                }
                Value::Undef
            }
            "has" => Value::dynamic(),
            _ => Value::dynamic(),
        }
    }

    /// Invoke inline function arguments of a call the analyzer cannot follow.
    pub(crate) fn run_callbacks(&mut self, ctx: &Ctx, argv: &[Value], args: &[Expr], line: u32) {
        self.census_handed(ctx.file, line, argv);
        for (i, v) in argv.iter().enumerate() {
            if let (Value::Func(_), Some(Expr::Func(f))) = (v, args.get(i)) {
                let unknown_args = vec![Value::dynamic(); f.params.len()];
                self.call_value(ctx, v, unknown_args, &[], line, None);
            }
        }
    }

    pub(crate) fn array_method(
        &mut self,
        ctx: &Ctx,
        a: &Rc<RefCell<Vec<Value>>>,
        name: &str,
        argv: Vec<Value>,
        call: &Call,
    ) -> Value {
        // Growing an array does not copy it (a counted loop pushes once per index).
        if matches!(name, "push" | "unshift") {
            let mut items = a.borrow_mut();
            let room = MAX_ITERATIONS.saturating_sub(items.len());
            items.extend(argv.into_iter().take(room));
            return Value::Num(items.len() as f64);
        }
        let items: Vec<Value> = a.borrow().clone();
        let cb = argv.first().cloned().unwrap_or(Value::Undef);
        let arr = Value::Arr(a.clone());
        match name {
            "forEach" | "map" | "flatMap" | "filter" | "some" | "every" | "find" => {
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate().take(MAX_ITERATIONS) {
                    let r = self.call_value_now(
                        ctx,
                        &cb,
                        vec![item.clone(), Value::Num(i as f64), arr.clone()],
                        &[],
                        call.line,
                        None,
                    );
                    match name {
                        "map" => out.push(r),
                        "flatMap" => match r {
                            Value::Arr(inner) => out.extend(inner.borrow().iter().cloned()),
                            r => out.push(r),
                        },
                        "filter" if r.truthy() != Some(false) => out.push(item.clone()),
                        "find" if r.truthy() == Some(true) => return item.clone(),
                        _ => {}
                    }
                }
                match name {
                    "forEach" => Value::Undef,
                    "some" | "every" | "find" => Value::dynamic(),
                    _ => Value::array(out),
                }
            }
            "reduce" => {
                let mut acc = argv.get(1).cloned().unwrap_or(Value::Undef);
                for (i, item) in items.iter().enumerate().take(MAX_ITERATIONS) {
                    acc = self.call_value_now(
                        ctx,
                        &cb,
                        vec![acc, item.clone(), Value::Num(i as f64)],
                        &[],
                        call.line,
                        None,
                    );
                }
                acc
            }
            "concat" | "flat" => {
                let (mut out, parts) = if name == "concat" {
                    (items, argv)
                } else {
                    (Vec::new(), items)
                };
                let len = |v: &Value| match v {
                    Value::Arr(x) => x.borrow().len(),
                    _ => 1,
                };
                let grown = out.len() + parts.iter().map(len).sum::<usize>();
                if !self.charge(ctx.file, grown * budget::SLOT_BYTES) {
                    return Value::dynamic();
                }
                for v in parts {
                    match v {
                        Value::Arr(x) => out.extend(x.borrow().iter().cloned()),
                        v => out.push(v),
                    }
                }
                Value::array(out)
            }
            "slice" | "sort" | "reverse" | "values" => Value::array(items),
            "join" => {
                let sep = argv
                    .first()
                    .and_then(|v| v.as_text())
                    .unwrap_or_else(|| ",".into());
                let parts: Option<Vec<String>> = items.iter().map(|v| v.as_text()).collect();
                match parts {
                    Some(p) => {
                        let text = p.join(&sep);
                        if self.charge(ctx.file, text.len()) {
                            Value::str(&text)
                        } else {
                            Value::dynamic()
                        }
                    }
                    None => Value::dynamic(),
                }
            }
            "entries" => Value::array(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| Value::array(vec![Value::Num(i as f64), v]))
                    .collect(),
            ),
            "keys" => Value::array((0..items.len()).map(|i| Value::Num(i as f64)).collect()),
            _ => Value::dynamic(),
        }
    }

    pub(crate) fn call_value(
        &mut self,
        ctx: &Ctx,
        f: &Value,
        argv: Vec<Value>,
        args: &[Expr],
        line: u32,
        this: Option<Value>,
    ) -> Value {
        if (self.route_contract.is_some() || self.listener_site.is_some())
            && argv
                .iter()
                .any(|a| matches!(a, Value::Http(HttpVal::Part(_))))
        {
            // `validateRequest(schema, req.body)`: imported schemas are still lazy here.
            let forced: Vec<Value> = argv.iter().map(|a| self.force(a.clone(), 0)).collect();
            if let Some(i) = forced.iter().position(|a| matches!(a, Value::Zod(_))) {
                // The schema's own name when it is passed by name, else the wrapper's.
                let name = match args.get(i) {
                    Some(Expr::Ident(n)) => n.clone(),
                    Some(Expr::Member(_, n)) => n.clone(),
                    _ => match f {
                        Value::Func(c) => c.func.name.clone().unwrap_or_default(),
                        Value::Lazy(_, n) => n.to_string(),
                        _ => String::new(),
                    },
                };
                self.note_validation(ctx, line, &forced, &name);
            }
        }
        // Follow now when the call carries an app/router/socket or an inline
        // callback, or its module can register routes; otherwise defer it.
        // While looking for events in code nobody calls, a function is only
        // followed when it gets a socket or a name to emit: every function
        // runs once on its own anyway.
        let tracked =
            argv.iter().any(|a| a.is_tracked(0)) || this.as_ref().is_some_and(|t| t.is_tracked(0));
        // An emitting callback passed down (`runTurn({ emit })`) is as good as a socket.
        let tracked = tracked || argv.iter().any(|a| self.carries_emitter(a, 0));
        let follow = if self.event_mode {
            let names = argv
                .iter()
                .any(|a| matches!(a, Value::Str(_) | Value::Pattern(_)));
            let file = match f {
                Value::Lazy(file, _) => Some(*file),
                Value::Func(c) => Some(c.file),
                _ => None,
            };
            let request = self.route_contract.is_some()
                && argv
                    .iter()
                    .any(|a| matches!(a, Value::Http(_) | Value::Zod(_)));
            tracked
                || request
                || match file {
                    Some(file) => names && self.loader.needles_of(file) & needle::SOCKET != 0,
                    None => !matches!(f, Value::Deferred(_)),
                }
        } else {
            (match f {
                Value::Lazy(file, _) => self.loader.needles_of(*file) & needle::ROUTING != 0,
                Value::Deferred(_) => args.iter().any(|a| matches!(a, Expr::Func(_))),
                _ => true,
            }) || tracked
        };
        if follow {
            self.call_value_now(ctx, f, argv, args, line, this)
        } else {
            Thunk::value(ThunkKind::Call(f.clone(), argv, this, line), ctx.file)
        }
    }

    pub(crate) fn call_value_now(
        &mut self,
        ctx: &Ctx,
        f: &Value,
        argv: Vec<Value>,
        args: &[Expr],
        line: u32,
        this: Option<Value>,
    ) -> Value {
        match f {
            Value::Func(c) => {
                self.frames.push(Frame {
                    callee: c.func.name.clone().unwrap_or_else(|| {
                        args.first()
                            .map(|_| "<anonymous>".to_string())
                            .unwrap_or_else(|| "<anonymous>".into())
                    }),
                    file: ctx.file,
                    line,
                    args: argv.clone(),
                });
                let r = self.invoke(c, argv, this);
                self.frames.pop();
                r
            }
            Value::Lazy(..) | Value::Deferred(_) => {
                let v = self.force_deep(f.clone());
                if matches!(v, Value::Lazy(..) | Value::Deferred(_)) {
                    return Value::dynamic();
                }
                self.call_value_now(ctx, &v, argv, args, line, this)
            }
            Value::Builtin(b) => self.call_builtin(ctx, b, argv, args, line),
            Value::Unknown(k) => {
                self.census_handed(ctx.file, line, &argv);
                self.run_callbacks(ctx, &argv, args, line);
                Value::Unknown(k.clone())
            }
            // A compiled validator (`ajv.compile(schema)`) applied to the request.
            Value::Zod(z) => {
                let mut all = vec![Value::Zod(z.clone())];
                all.extend(argv);
                self.note_validation(ctx, line, &all, "ajv");
                Value::dynamic()
            }
            Value::Class(_) => Value::dynamic(),
            _ => Value::dynamic(),
        }
    }

    /// Runs a route handler or middleware once with a request, a response
    /// and `next`, in a fresh scope under the program's globals.
    pub(crate) fn run_as_handler(&mut self, f: &Value, c: &Closure) {
        let argv = vec![
            Value::Http(HttpVal::Req),
            Value::Http(HttpVal::Res(200)),
            Value::Builtin(Builtin::NextFn),
        ];
        let ctx = Ctx {
            file: c.file,
            scope: Scope::new(Some(self.globals.clone())),
            this: Value::Undef,
            home: None,
        };
        self.call_value_now(&ctx, f, argv, &[], c.func.line, None);
    }

    pub(crate) fn invoke(
        &mut self,
        c: &Rc<Closure>,
        argv: Vec<Value>,
        this: Option<Value>,
    ) -> Value {
        let key = (c.file, c.func.id);
        if self.called.insert(key) {
            let was = self.uncalled.remove(&key);
            self.salvage_note_call(key, was);
        }
        self.census_enter(key);
        if self.event_mode {
            self.event_called.insert(key);
        }
        let recursion = self.stack.iter().filter(|k| **k == key).count();
        if recursion >= MAX_RECURSION || self.stack.len() >= MAX_CALL_DEPTH {
            if argv.iter().any(|a| a.is_tracked(0))
                || this.as_ref().is_some_and(|t| t.is_tracked(0))
            {
                self.finding(
                    FindingCode::AnalysisBudget,
                    c.file,
                    c.func.line,
                    format!(
                        "calls to `{}` nest deeper than {} levels; deeper registrations were not followed",
                        c.func.name.as_deref().unwrap_or("<anonymous>"),
                        if recursion >= MAX_RECURSION { MAX_RECURSION } else { MAX_CALL_DEPTH }
                    ),
                );
            }
            return Value::dynamic();
        }
        if self.steps > STEP_BUDGET {
            if !self.budget_reported {
                self.budget_reported = true;
                self.finding(
                    FindingCode::AnalysisBudget,
                    c.file,
                    c.func.line,
                    format!(
                        "the analysis budget ran out entering `{}`; calls past this point were not followed",
                        c.func.name.as_deref().unwrap_or("<anonymous>")
                    ),
                );
            }
            return Value::dynamic();
        }
        let Some(call_args) = self.call_args(key, &argv, c.this.as_ref().or(this.as_ref())) else {
            return Value::dynamic();
        };
        let scope = Scope::new(Some(c.env.clone()));
        let this = if c.is_arrow {
            c.this.clone().unwrap_or(Value::Undef)
        } else {
            c.this.clone().or(this).unwrap_or(Value::Undef)
        };
        let ctx = Ctx {
            file: c.file,
            scope,
            this,
            home: c.home.clone(),
        };
        ctx.scope.define("arguments", Value::array(argv.clone()));
        let last = c.func.params.len().saturating_sub(1);
        for (i, p) in c.func.params.iter().enumerate() {
            if c.func.rest && i == last {
                let rest = argv.get(i..).map(<[Value]>::to_vec).unwrap_or_default();
                self.bind(&ctx, p, Value::array(rest), true);
                continue;
            }
            let mut v = argv.get(i).cloned().unwrap_or(Value::Undef);
            if let (Value::Sio(_), Some(Some(t))) = (&v, c.func.param_types.get(i))
                && let Some(typed) = self.typed_sio(&c.env, t, &v)
            {
                v = typed;
            }
            self.bind(&ctx, p, v, true);
        }
        self.enter_frame(key, call_args, &c.func);
        self.hoist(&ctx, &c.func.body);
        let mut result = Value::Undef;
        for s in &c.func.body {
            match self.exec_stmt(&ctx, s) {
                Flow::Normal => {}
                Flow::Return(v) => {
                    result = v;
                    break;
                }
                // What a caller gets from a call that threw is not known here.
                _ => {
                    result = Value::dynamic();
                    break;
                }
            }
        }
        self.leave_frame();
        result
    }

    pub(crate) fn construct(
        &mut self,
        ctx: &Ctx,
        c: &Value,
        argv: Vec<Value>,
        args: &[Expr],
        line: u32,
    ) -> Value {
        match c {
            Value::Builtin(Builtin::Express) => self.new_router(ctx.file, line, true),
            Value::Builtin(Builtin::RouterCtor) => self.new_router(ctx.file, line, false),
            Value::Builtin(Builtin::SocketIo | Builtin::SocketIoServer) => {
                self.new_sio_server(ctx, &argv, line)
            }
            Value::Builtin(Builtin::SocketIoManager) => self.new_sio_client(&argv, true),
            Value::Builtin(Builtin::Ajv) => Value::Builtin(Builtin::AjvInstance),
            Value::Builtin(Builtin::EventEmitterCtor) => Value::Emitter(Rc::default()),
            Value::Builtin(Builtin::JsonValidator) => Value::Builtin(Builtin::JsonValidator),
            Value::Builtin(Builtin::Framework(n)) if n.as_ref() == "ApolloServer" => {
                Value::Builtin(Builtin::Framework(Rc::from("apollo-server")))
            }
            // `new Promise((resolve, reject) => …)`: the executor runs at once.
            Value::Builtin(Builtin::PromiseNs) => {
                if let Some(f @ Value::Func(_)) = argv.first() {
                    let settle = vec![Value::external(), Value::external()];
                    self.call_value_now(ctx, f, settle, &[], line, None);
                }
                Value::dynamic()
            }
            Value::Builtin(Builtin::SocketIoClient) => self.new_sio_client(&argv, false),
            Value::Builtin(b @ (Builtin::SetCtor | Builtin::MapCtor)) => {
                let map = *b == Builtin::MapCtor;
                let mut items = Vec::new();
                if let Some(Value::Arr(init)) = argv.first().map(|a| self.force(a.clone(), 0)) {
                    for it in init.borrow().iter().take(Coll::LIMIT) {
                        if map {
                            if let Value::Arr(pair) = it {
                                let pair = pair.borrow();
                                items.push((
                                    pair.first().cloned().unwrap_or(Value::Undef),
                                    pair.get(1).cloned().unwrap_or(Value::Undef),
                                ));
                            }
                        } else {
                            items.push((Value::Undef, it.clone()));
                        }
                    }
                }
                Value::Coll(Rc::new(Coll {
                    map,
                    items: RefCell::new(items),
                }))
            }
            Value::Class(_) | Value::Func(_) => {
                let obj = ObjData::new();
                if let Value::Class(cv) = c {
                    *obj.class.borrow_mut() = Some(cv.clone());
                }
                let this = Value::Obj(obj.clone());
                if let Value::Class(cv) = c
                    && let Some(slot) = self.classes.iter_mut().find(|(k, _)| Rc::ptr_eq(k, cv))
                    && slot.1.is_none()
                {
                    slot.1 = Some(this.clone());
                }
                // A function constructor that returns an object yields that object.
                if let Value::Func(f) = c {
                    *obj.proto.borrow_mut() = self.prototype_of(f);
                    let r = self.invoke(f, argv, Some(this.clone()));
                    return match r {
                        Value::Obj(_)
                        | Value::Arr(_)
                        | Value::Func(_)
                        | Value::Router(_)
                        | Value::Sio(_)
                        | Value::Coll(_)
                        | Value::Emitter(_) => r,
                        _ => this,
                    };
                }
                self.init_instance(c, &this, argv);
                this
            }
            Value::Unknown(k) => {
                self.census_handed(ctx.file, line, &argv);
                self.run_callbacks(ctx, &argv, args, line);
                Value::Unknown(k.clone())
            }
            _ => Value::dynamic(),
        }
    }

    pub(crate) fn init_instance(&mut self, c: &Value, this: &Value, argv: Vec<Value>) {
        match c {
            Value::Class(cv) => {
                let cctx = Ctx {
                    file: cv.file,
                    scope: Scope::new(Some(cv.env.clone())),
                    this: this.clone(),
                    home: Some(cv.clone()),
                };
                if cv.class.constructor.is_none()
                    && let Some(sup) = cv.superclass.clone()
                {
                    self.init_instance(&sup, this, argv.clone());
                }
                for (name, init) in &cv.class.fields {
                    let v = match init {
                        Some(e) => self.eval_raw(&cctx, e),
                        None => Value::Undef,
                    };
                    self.set_member(this, name, v);
                }
                if let Some(ctor) = &cv.class.constructor {
                    let clo = Closure::method(cv, ctor, this);
                    self.invoke(&clo, argv, Some(this.clone()));
                }
            }
            Value::Func(f) => {
                self.invoke(f, argv, Some(this.clone()));
            }
            Value::Builtin(Builtin::RouterCtor) | Value::Builtin(Builtin::Express) => {
                // `class Api extends Router` — the instance is a router; not modelled.
            }
            _ => {}
        }
    }

    pub(crate) fn call_builtin(
        &mut self,
        ctx: &Ctx,
        b: &Builtin,
        argv: Vec<Value>,
        args: &[Expr],
        line: u32,
    ) -> Value {
        match b {
            Builtin::Express => self.new_router(ctx.file, line, true),
            Builtin::RouterCtor => self.new_router(ctx.file, line, false),
            Builtin::Require => self.require(ctx, argv.first(), line, false),
            Builtin::PathJoin => {
                let parts: Option<Vec<String>> = argv
                    .iter()
                    .map(|v| self.force(v.clone(), 0).as_text())
                    .collect();
                match parts {
                    Some(p) => Value::str(&posix_join(&p)),
                    None => Value::dynamic(),
                }
            }
            Builtin::UrlJoin => {
                let mut flat = Vec::new();
                for v in argv {
                    match self.force(v, 0) {
                        Value::Arr(a) => flat.extend(a.borrow().iter().cloned()),
                        v => flat.push(v),
                    }
                }
                let parts: Option<Vec<String>> = flat.iter().map(|v| v.as_text()).collect();
                match parts {
                    Some(p) => Value::str(&url_join(&p)),
                    None => Value::dynamic(),
                }
            }
            Builtin::ObjectFn(f) => {
                let target = argv
                    .first()
                    .cloned()
                    .map(|v| self.force(v, 0))
                    .unwrap_or(Value::Undef);
                match (*f, &target) {
                    ("keys", Value::Obj(o)) => {
                        Value::array(o.props.borrow().keys().map(|k| Value::str(k)).collect())
                    }
                    ("values", Value::Obj(o)) => {
                        Value::array(o.props.borrow().values().cloned().collect())
                    }
                    ("entries", Value::Obj(o)) => Value::array(
                        o.props
                            .borrow()
                            .iter()
                            .map(|(k, v)| Value::array(vec![Value::str(k), v.clone()]))
                            .collect(),
                    ),
                    ("freeze", _) => target,
                    ("create", _) => {
                        let o = ObjData::new();
                        if let Value::Obj(p) = &target {
                            *o.proto.borrow_mut() = Some(p.clone());
                        }
                        Value::Obj(o)
                    }
                    ("setPrototypeOf", Value::Obj(o)) => {
                        if let Some(Value::Obj(p)) = argv.get(1).map(|p| self.force(p.clone(), 0))
                            && !Rc::ptr_eq(o, &p)
                        {
                            *o.proto.borrow_mut() = Some(p);
                        }
                        target
                    }
                    ("getPrototypeOf", Value::Obj(o)) => o
                        .proto
                        .borrow()
                        .clone()
                        .map_or(Value::dynamic(), Value::Obj),
                    ("assign", Value::Obj(o)) => {
                        for src in argv.iter().skip(1) {
                            if let Value::Obj(s) = self.force(src.clone(), 0) {
                                for (k, v) in s.props.borrow().iter() {
                                    o.set(k, v.clone());
                                }
                            }
                        }
                        target
                    }
                    ("fromEntries", Value::Arr(a)) => {
                        let obj = ObjData::new();
                        for e in a.borrow().iter() {
                            if let Value::Arr(pair) = e {
                                let pair = pair.borrow();
                                if let (Some(k), Some(v)) =
                                    (pair.first().and_then(|k| k.as_text()), pair.get(1))
                                {
                                    obj.set(&k, v.clone());
                                }
                            }
                        }
                        Value::Obj(obj)
                    }
                    ("defineProperty", Value::Obj(o)) => {
                        if let (Some(k), Some(Value::Obj(desc))) =
                            (argv.get(1).and_then(|k| k.as_text()), argv.get(2))
                        {
                            let v = desc.get("value").unwrap_or(Value::dynamic());
                            let v = match desc.get("get") {
                                Some(g @ Value::Func(_)) => {
                                    self.call_value_now(ctx, &g, Vec::new(), &[], line, None)
                                }
                                _ => v,
                            };
                            o.set(&k, v);
                        }
                        target
                    }
                    _ => Value::dynamic(),
                }
            }
            Builtin::ArrayFrom => match argv.first().cloned().map(|v| self.force(v, 0)) {
                Some(Value::Arr(a)) => Value::array(a.borrow().clone()),
                Some(Value::Coll(c)) => Value::array(c.iterated()),
                _ => Value::dynamic(),
            },
            Builtin::ArrayMethod(_) => Value::dynamic(),
            Builtin::ArrayIsArray => match argv.first().cloned().map(|v| self.force_deep(v)) {
                Some(Value::Arr(_)) => Value::Bool(true),
                Some(Value::Unknown(_) | Value::Lazy(..) | Value::Deferred(_)) => Value::dynamic(),
                _ => Value::Bool(false),
            },
            Builtin::Identity => argv.into_iter().next().unwrap_or(Value::Undef),
            Builtin::Framework(n) => match n.as_ref() {
                "create" => self.nest_create(ctx, &argv, args, line),
                w @ ("createExpressServer" | "useExpressServer") => {
                    let w = w.to_string();
                    self.routing_controllers_server(ctx, &w, &argv, line)
                }
                // `forwardRef(() => X)` is `X`.
                "forwardRef" => match argv.into_iter().next() {
                    Some(f @ Value::Func(_)) => {
                        self.call_value_now(ctx, &f, Vec::new(), &[], line, None)
                    }
                    _ => Value::dynamic(),
                },
                n => {
                    let n = n.to_string();
                    self.dropin_call(ctx, &n, &argv, line)
                        .unwrap_or_else(Value::external)
                }
            },
            Builtin::MiddlewareFactory(n) if n.as_ref() == "child_process.fork" => {
                self.note_fork(ctx, &argv, line);
                Value::external()
            }
            Builtin::MiddlewareFactory(_) | Builtin::OpaqueModule(_) | Builtin::NestWs(_) => {
                self.run_callbacks(ctx, &argv, args, line);
                Value::external()
            }
            Builtin::UseMemo => match argv.into_iter().next() {
                Some(f @ Value::Func(_)) => {
                    self.call_value_now(ctx, &f, Vec::new(), &[], line, None)
                }
                _ => Value::external(),
            },
            Builtin::UseRef => {
                let r = ObjData::new();
                r.set("current", argv.into_iter().next().unwrap_or(Value::Undef));
                Value::Obj(r)
            }
            Builtin::FsModule | Builtin::SetCtor | Builtin::MapCtor | Builtin::Zod => {
                Value::dynamic()
            }
            Builtin::ZodBuilder(n) => {
                let n = n.clone();
                self.zod_builder(&n, &argv)
            }
            Builtin::Joi => Value::dynamic(),
            Builtin::JoiBuilder(n) => {
                let n = n.clone();
                self.joi_builder(ctx, &n, &argv, line)
            }
            Builtin::Celebrate => self.celebrate(&argv),
            Builtin::AjvMethod("compile") => match argv.first() {
                Some(v) => crate::libs::schemas::zod(self.plain_json(v, 0)),
                None => Value::dynamic(),
            },
            Builtin::AjvMethod("validate") => {
                // `ajv.validate(schema, req.body)`.
                if let (Some(schema), Some(data)) = (argv.first(), argv.get(1)) {
                    let all = vec![
                        crate::libs::schemas::zod(self.plain_json(schema, 0)),
                        data.clone(),
                    ];
                    self.note_validation(ctx, line, &all, "ajv.validate");
                }
                Value::dynamic()
            }
            Builtin::AjvMethod(_) | Builtin::Ajv => Value::Builtin(Builtin::AjvInstance),
            Builtin::JsonValidator => Value::Builtin(Builtin::JsonValidator),
            Builtin::AjvInstance | Builtin::HttpStatus => Value::dynamic(),
            Builtin::EventEmitterCtor => Value::Emitter(Rc::default()),
            Builtin::JsonValidate => {
                let mut parts = Vec::new();
                if let Some(Value::Obj(o)) = argv.first().map(|v| self.force(v.clone(), 0)) {
                    for part in ["body", "query", "params"] {
                        if let Some(v) = o.get(part) {
                            let schema = self.plain_json(&v, 0);
                            parts.push((part, schema));
                        }
                    }
                }
                Value::Builtin(Builtin::JsonSchemaMiddleware(Rc::new(parts)))
            }
            Builtin::JsonSchemaMiddleware(parts) => {
                if let Some(rc) = self.route_contract.clone() {
                    crate::libs::schemas::set_json_schema_parts(
                        &mut rc.borrow_mut(),
                        parts,
                        ctx.file,
                        line,
                    );
                }
                Value::dynamic()
            }
            Builtin::NextFn => {
                // `next(err)`: an error with a status is a response.
                if let (Some(v), Some(e)) = (argv.first(), args.first())
                    && self.route_contract.is_some()
                {
                    let v = v.clone();
                    self.note_error_status(ctx, &v, e);
                }
                Value::Undef
            }
            Builtin::CheckField(part) => self.check_field(part, &argv),
            Builtin::Node(f) => {
                let f = f.clone();
                self.node_call(ctx, &f, argv, args, line)
            }
            Builtin::Lodash(n) if n.is_empty() => {
                self.run_callbacks(ctx, &argv, args, line);
                Value::external()
            }
            Builtin::Lodash(n) => {
                let n = n.clone();
                self.lodash_call(ctx, &n, argv, line)
            }
            Builtin::SocketIo | Builtin::SocketIoServer => self.new_sio_server(ctx, &argv, line),
            Builtin::SocketIoClient => self.new_sio_client(&argv, false),
            Builtin::SocketIoManager => self.new_sio_client(&argv, true),
            Builtin::PathModule | Builtin::ObjectNs | Builtin::ArrayNs | Builtin::PromiseNs => {
                Value::dynamic()
            }
        }
    }

    // ----- Express -----

    pub(crate) fn new_router(&mut self, file: FileId, line: u32, is_app: bool) -> Value {
        self.routers.push(RouterData {
            is_app,
            file,
            line,
            regs: Vec::new(),
            settings: HashMap::new(),
            props: HashMap::new(),
            mounted: false,
            param_callbacks: Vec::new(),
            unreached: self.unreached_mode,
            in_event_pass: self.event_mode,
            salvage: self.salvage_tag(),
        });
        Value::Router(self.routers.len() as u32 - 1)
    }

    pub(crate) fn router_method(&mut self, ctx: &Ctx, id: u32, name: &str, call: &Call) -> Value {
        if self.nest.is_app(id)
            && let Some(v) = self.nest_app_method(ctx, id, name, call)
        {
            return v;
        }
        let name = crate::libs::dropins::verb_alias(name).unwrap_or(name);
        if let Some(f) = self.routers[id as usize].props.get(name).cloned() {
            // A method the program added to the instance (`app.map = function ...`).
            let argv = self.eval_args(ctx, &call.args);
            return self.call_value_now(
                ctx,
                &f,
                argv,
                &call.args,
                call.line,
                Some(Value::Router(id)),
            );
        }
        if name == "get" && call.args.len() == 1 {
            // `app.get('setting')` reads a setting; it is not a route.
            let k = self.eval(ctx, &call.args[0]);
            return match k.as_text() {
                Some(k) => self.routers[id as usize]
                    .settings
                    .get(&k)
                    .cloned()
                    .unwrap_or(Value::dynamic()),
                None => Value::dynamic(),
            };
        }
        if HTTP_VERBS.contains(&name) {
            let first = call.args.first().map(|a| {
                let v = self.eval(ctx, a);
                self.force_deep(v)
            });
            let paths = match first {
                Some(v) => path_list(&v),
                None => Err(()),
            };
            self.register_route(ctx, id, name, paths, &call.args, 1, call);
            return Value::Router(id);
        }
        match name {
            "route" => {
                let v = call
                    .args
                    .first()
                    .map(|a| self.eval(ctx, a))
                    .unwrap_or(Value::Undef);
                let v = self.force_deep(v);
                match path_list(&v) {
                    Ok(p) => Value::Chain(
                        id,
                        Rc::new(
                            p.into_iter()
                                .map(|p| match p {
                                    PathArg::Str(s) => Value::str(&s),
                                    PathArg::Regex(r) => Value::Regex(Rc::from(r.as_str())),
                                })
                                .collect(),
                        ),
                    ),
                    Err(()) => {
                        self.dynamic_path(ctx, call, "route");
                        Value::dynamic()
                    }
                }
            }
            "use" => {
                self.register_use(ctx, id, call);
                Value::Router(id)
            }
            "set" => {
                let argv = self.eval_args(ctx, &call.args);
                if let (Some(k), Some(v)) = (argv.first().and_then(|k| k.as_text()), argv.get(1)) {
                    self.routers[id as usize].settings.insert(k, v.clone());
                }
                Value::Router(id)
            }
            // `express-group-routes`: `app.group([prefix], router => { ... })`
            // builds a fresh router, hands it to the callback and mounts it.
            "group" if call.args.last().is_some_and(|a| matches!(a, Expr::Func(_))) => {
                let argv = self.eval_args(ctx, &call.args);
                let paths = match argv.first().map(|v| self.force_deep(v.clone())) {
                    Some(v @ (Value::Str(_) | Value::Arr(_) | Value::Regex(_))) => {
                        match path_list(&v) {
                            Ok(p) => p,
                            Err(()) => {
                                self.dynamic_path(ctx, call, "group");
                                return Value::Router(id);
                            }
                        }
                    }
                    Some(Value::Func(_)) => vec![PathArg::Str("/".into())],
                    _ => {
                        self.dynamic_path(ctx, call, "group");
                        return Value::Router(id);
                    }
                };
                let sub = self.new_router(ctx.file, call.line, false);
                let Value::Router(sub_id) = sub else {
                    return Value::Router(id);
                };
                // As the package does: the callback first, then `use(prefix, router)`.
                if let Some(f) = argv.last() {
                    self.call_value_now(ctx, f, vec![sub.clone()], &call.args, call.line, None);
                }
                if !self.event_mode && !self.salvage_blocks(id) {
                    self.routers[sub_id as usize].mounted = true;
                    let reg = Reg {
                        kind: RegKind::Use {
                            paths,
                            handlers: vec![UseHandler::Router(sub_id)],
                        },
                        file: ctx.file,
                        line: call.line,
                        cond: self.cond_text(),
                        doc: call.doc.clone(),
                        via: None,
                    };
                    self.routers[id as usize].regs.push(reg);
                }
                sub
            }
            // `router.param('id', load)`: runs before the handlers of this
            // router's routes (and mounts) whose own path has `:id`.
            "param" => {
                let argv = self.eval_args(ctx, &call.args);
                let names: Vec<String> = match argv.first().map(|v| self.force_deep(v.clone())) {
                    Some(Value::Str(s)) => vec![s.to_string()],
                    Some(Value::Arr(a)) => a.borrow().iter().filter_map(|v| v.as_text()).collect(),
                    _ => Vec::new(),
                };
                if let (Some(e), Some(v)) = (call.args.get(1), argv.get(1))
                    && !self.event_mode
                    && !self.salvage_blocks(id)
                {
                    let mut fns = Vec::new();
                    self.handler_names(e, v, &mut fns, 0);
                    for n in &names {
                        for (f, _) in &fns {
                            self.routers[id as usize].param_callbacks.push((
                                n.clone(),
                                f.clone(),
                                v.clone(),
                            ));
                        }
                    }
                }
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::Router(id)
            }
            "engine" | "enable" | "disable" | "disabled" | "enabled" => {
                self.eval_args(ctx, &call.args);
                Value::Router(id)
            }
            _ => {
                let argv = self.eval_args(ctx, &call.args);
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::external()
            }
        }
    }

    /// `app[method].call(app, path, handler)` / `router.get.apply(router, [path, h])`:
    /// the verb (or `use`) called on the router with the arguments after `this`.
    pub(crate) fn router_call_apply(&mut self, ctx: &Ctx, call: &Call) -> Option<Value> {
        let Expr::Member(target, how) = &call.callee else {
            return None;
        };
        if how != "call" && how != "apply" {
            return None;
        }
        let (obj, verb) = match target.as_ref() {
            Expr::Member(o, v) => (o, Some(v.clone())),
            Expr::Index(o, _) => (o, None),
            _ => return None,
        };
        if !matches!(obj.as_ref(), Expr::Ident(_) | Expr::This | Expr::Member(..)) {
            return None;
        }
        let Value::Router(id) = self.eval(ctx, obj) else {
            return None;
        };
        let verb = match (verb, target.as_ref()) {
            (Some(v), _) => v,
            (None, Expr::Index(_, k)) => {
                let k = self.eval(ctx, k);
                self.force_deep(k).as_text()?
            }
            _ => return None,
        };
        if !HTTP_VERBS.contains(&verb.as_str()) && verb != "use" {
            return None;
        }
        let args: Vec<Expr> = if how == "call" {
            call.args.iter().skip(1).cloned().collect()
        } else {
            match call.args.get(1) {
                Some(Expr::Array(items)) => items.clone(),
                _ => return None,
            }
        };
        let inner = Call {
            callee: Expr::Member(obj.clone(), verb.clone()),
            args,
            line: call.line,
            type_args: Vec::new(),
            doc: call.doc.clone(),
        };
        Some(self.router_method(ctx, id, &verb, &inner))
    }

    /// `on`/`once`/`addListener` and `emit` on a program's `EventEmitter`:
    /// listeners run with what is emitted, also with emits that carried a
    /// tracked value before they were added (start-up order is not run order).
    pub(crate) fn emitter_method(
        &mut self,
        ctx: &Ctx,
        em: &Rc<Emitter>,
        name: &str,
        call: &Call,
    ) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        let event = argv
            .first()
            .and_then(|a| self.force_deep(a.clone()).as_text());
        match (name, event) {
            (
                "on" | "once" | "addListener" | "prependListener" | "prependOnceListener",
                Some(ev),
            ) => {
                let Some(f) = argv.get(1).cloned() else {
                    return Value::Emitter(em.clone());
                };
                em.listeners.borrow_mut().push((ev.clone(), f.clone()));
                for args in em.fired_with(&ev) {
                    self.call_value_now(ctx, &f, args, &[], call.line, None);
                }
                if let (Some(Expr::Func(_)), true) =
                    (call.args.get(1), em.fired.borrow().is_empty())
                {
                    // Nothing emitted yet: the listener runs later; run it once
                    // now, with what it cannot know, as a callback.
                    self.run_callbacks(ctx, &argv, &call.args, call.line);
                }
                Value::Emitter(em.clone())
            }
            ("emit", Some(ev)) => {
                let args: Vec<Value> = argv.iter().skip(1).cloned().collect();
                // Only what carries a socket or a router is relayed: plain data
                // (`feed.emit('status', id)`) leaves the listeners as they ran,
                // with what they cannot know (rooms stay patterns).
                if !args.iter().any(|a| a.is_tracked(0)) {
                    return Value::Bool(true);
                }
                if em.fired.borrow().len() < Emitter::LIMIT {
                    em.fired.borrow_mut().push((ev.clone(), args.clone()));
                }
                for f in em.listeners_of(&ev) {
                    self.call_value_now(ctx, &f, args.clone(), &[], call.line, None);
                }
                Value::Bool(true)
            }
            _ => {
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::Emitter(em.clone())
            }
        }
    }

    /// Leave a loop over something only known at run time: the computed
    /// imports in it are findings of their own unless the loop was one.
    pub(crate) fn pop_dyn_loop(&mut self) {
        let depth = self.dyn_loops.len();
        let Some((_, _, _, seen)) = self.dyn_loops.pop() else {
            return;
        };
        if self.loop_imports.is_empty() {
            return;
        }
        let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.loop_imports)
            .into_iter()
            .partition(|(d, _, _)| *d >= depth);
        self.loop_imports = rest;
        if !seen.get() {
            for (_, file, line) in mine {
                self.finding(
                    FindingCode::DynamicImport,
                    file,
                    line,
                    "a module is loaded from a path computed at run time".into(),
                );
            }
        }
    }

    /// An app or router handed to a function only known at run time.
    pub(crate) fn dynamic_call(&mut self, ctx: &Ctx, call: &Call, argv: &[Value]) {
        if self.event_mode || !argv.iter().any(|a| matches!(a, Value::Router(_))) {
            return;
        }
        self.finding(
            FindingCode::DynamicCall,
            ctx.file,
            call.line,
            format!(
                "`{}(...)` hands an app or router to code only known at run time; routes it adds are not in the inventory",
                expr_text(&call.callee)
            ),
        );
    }

    pub(crate) fn dynamic_path(&mut self, ctx: &Ctx, call: &Call, what: &str) {
        if let Some((f, l, t, seen)) = self.dyn_loops.last() {
            seen.set(true);
            let (f, l, t) = (*f, *l, t.clone());
            self.finding(
                FindingCode::DynamicLoop,
                f,
                l,
                format!(
                    "routes are registered in a loop over `{t}`, which is only known at run time"
                ),
            );
            return;
        }
        let text = call.args.first().map(expr_text).unwrap_or_default();
        self.finding(
            FindingCode::DynamicPath,
            ctx.file,
            call.line,
            format!("the path of `{what}({text}, ...)` is only known at run time"),
        );
    }

    pub(crate) fn register_route(
        &mut self,
        ctx: &Ctx,
        id: u32,
        method: &str,
        paths: Result<Vec<PathArg>, ()>,
        args: &[Expr],
        skip: usize,
        call: &Call,
    ) {
        if self.event_mode || self.salvage_blocks(id) {
            return;
        }
        let method = if method == "del" { "delete" } else { method };
        let paths = match paths {
            Ok(p) => p,
            Err(()) => {
                self.dynamic_path(ctx, call, method);
                return;
            }
        };
        let mut names: Vec<(String, Option<(FileId, u32)>)> = Vec::new();
        let contract = Rc::new(RefCell::new(RawContract::default()));
        let mut funcs = Vec::new();
        let mut named_values = Vec::new();
        for a in args.iter().skip(skip) {
            let v = self.eval_raw(ctx, a);
            let before = names.len();
            self.handler_names(a, &v, &mut names, 0);
            if names.len() == before + 1 {
                named_values.push((before, v.clone()));
            }
            self.route_funcs(ctx, &v, &contract, &mut funcs, call.line, 0);
            // A factory that was followed (`validate(schemas.create)` returning
            // a closure): what it was handed, read again (plain reads only).
            if let (Expr::Call(c), Value::Func(_)) = (a, &v)
                && !c.args.is_empty()
                && c.args
                    .iter()
                    .all(|x| matches!(x, Expr::Ident(_) | Expr::Member(..) | Expr::Str(_)))
            {
                let argv = self.eval_args(ctx, &c.args);
                let name = match &c.callee {
                    Expr::Ident(n) | Expr::Member(_, n) => n.clone(),
                    _ => String::new(),
                };
                // Read when the handlers run (imported schemas stay lazy until then).
                self.pending_guesses
                    .push((contract.clone(), ctx.clone(), name, argv, call.line));
            }
        }
        // The handlers run later, with a request: parse what they import meanwhile.
        let mut ahead = Vec::new();
        for f in &funcs {
            if let Value::Func(c) = f {
                let facts = self.loader.get(c.file).facts.clone();
                if let Ok(i) = facts
                    .fn_imports
                    .binary_search_by_key(&c.func.id, |(id, _)| *id)
                {
                    for src in &facts.fn_imports[i].1 {
                        if let Resolved::File(t) = self.loader.project.resolve(c.file, src)
                            && !self.modules.contains_key(&t)
                        {
                            ahead.push(t);
                        }
                    }
                }
            }
        }
        self.loader.prefetch(ahead);
        // The middleware (not the final handler) may be guards.
        for (i, v) in &named_values {
            if *i + 1 < names.len() {
                let name = names[*i].0.clone();
                self.note_middleware(&name, v);
            }
        }
        let handler = names.pop().map(|(name, at)| HandlerRef { name, at });
        for p in &paths {
            if let PathArg::Regex(r) = p {
                self.finding(
                    FindingCode::RegexPath,
                    ctx.file,
                    call.line,
                    format!("route path is a regular expression `{r}`; OpenAPI cannot express it exactly"),
                );
            }
        }
        let via = self.path_supplier(ctx, call, &paths);
        let reg = Reg {
            kind: RegKind::Route {
                method: method.to_string(),
                paths,
                middleware: names.into_iter().map(|(n, _)| n).collect(),
                handler,
                contract,
                funcs,
            },
            file: ctx.file,
            line: call.line,
            cond: self.cond_text(),
            doc: call.doc.clone(),
            via,
        };
        self.routers[id as usize].regs.push(reg);
    }

    /// Where a route's path came from when the verb call does not write it
    /// itself: the outermost call being followed whose arguments carry the
    /// path (directly, or as a property or element of an argument), as the
    /// events' `via` does for names. `None` when the verb call writes the path
    /// literally or no caller carries it.
    pub(crate) fn path_supplier(
        &self,
        ctx: &Ctx,
        call: &Call,
        paths: &[PathArg],
    ) -> Option<(FileId, u32)> {
        if matches!(
            call.args.first(),
            Some(Expr::Str(_) | Expr::Regex(_)) | None
        ) {
            return None;
        }
        let wanted: Vec<&str> = paths
            .iter()
            .filter_map(|p| match p {
                PathArg::Str(s) => Some(s.as_str()),
                PathArg::Regex(_) => None,
            })
            .collect();
        if wanted.is_empty() {
            return None;
        }
        // The whole path, or a prefix of it (`resource('/users')` adding
        // `'/:id'`), or a key of a route map (`{ '/users': { get: h } }`).
        fn part_of(x: &str, wanted: &[&str], prefix_only: bool) -> bool {
            wanted.iter().any(|w| {
                *w == x
                    || (x.len() >= 2
                        && x.starts_with('/')
                        && if prefix_only {
                            w.starts_with(x)
                        } else {
                            w.contains(x)
                        })
            })
        }
        fn carries(v: &Value, wanted: &[&str], depth: u32) -> bool {
            match v {
                Value::Str(x) => part_of(x, wanted, true),
                Value::Obj(o) if depth > 0 => o
                    .props
                    .borrow()
                    .iter()
                    .any(|(k, p)| part_of(k, wanted, false) || carries(p, wanted, depth - 1)),
                Value::Arr(a) if depth > 0 => {
                    a.borrow().iter().any(|p| carries(p, wanted, depth - 1))
                }
                _ => false,
            }
        }
        self.frames
            .iter()
            .find(|fr| fr.callee != "<anonymous>" && fr.args.iter().any(|a| carries(a, &wanted, 2)))
            .map(|fr| (fr.file, fr.line))
            .filter(|at| *at != (ctx.file, call.line))
    }

    /// The functions behind a route argument (unwrapping `asyncHandler(fn)`),
    /// and schemas given to middleware factories (`validate(schema)`).
    pub(crate) fn route_funcs(
        &mut self,
        ctx: &Ctx,
        v: &Value,
        contract: &Rc<RefCell<RawContract>>,
        out: &mut Vec<Value>,
        line: u32,
        depth: u32,
    ) {
        if depth > 3 {
            return;
        }
        match v {
            Value::Func(_) => out.push(v.clone()),
            // Imported middleware: a validator states its schemas now; a
            // function is resolved when the handlers run.
            Value::Lazy(..) => match self.force(v.clone(), 0) {
                forced @ (Value::Validator(_)
                | Value::Builtin(Builtin::JsonSchemaMiddleware(_))) => {
                    self.route_funcs(ctx, &forced, contract, out, line, depth + 1)
                }
                _ => out.push(v.clone()),
            },
            // express-json-validator-middleware's `validate({body, ...})`.
            Value::Builtin(Builtin::JsonSchemaMiddleware(parts)) => {
                crate::libs::schemas::set_json_schema_parts(
                    &mut contract.borrow_mut(),
                    parts,
                    ctx.file,
                    line,
                );
            }
            Value::Validator(parts) => {
                for (part, field, schema, required) in parts.iter() {
                    crate::libs::schemas::merge_validator(
                        &mut contract.borrow_mut(),
                        part,
                        field,
                        schema,
                        *required,
                        ctx.file,
                        line,
                    );
                }
            }
            Value::Arr(items) => {
                for it in items.borrow().clone() {
                    self.route_funcs(ctx, &it, contract, out, line, depth + 1);
                }
            }
            Value::Deferred(t) => {
                // The middleware a factory returns (`validate(schema)`) runs too,
                // once the handlers run (the factory is called then).
                out.push(v.clone());
                if let ThunkKind::Call(callee, argv, _, _) = &t.kind {
                    let callee_name = match callee {
                        Value::Lazy(_, n) => n.to_string(),
                        Value::Func(c) => c.func.name.clone().unwrap_or_default(),
                        _ => String::new(),
                    };
                    let rest = self.factory_guesses(ctx, &callee_name, argv, contract, line);
                    for other in rest {
                        self.route_funcs(ctx, &other, contract, out, line, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// What a middleware factory was handed (`validate(schema)`,
    /// `validate({ body: schema })`, `validate(schema, 'query')`): schemas for
    /// the request parts, kept as guesses (used when running the middleware
    /// states nothing). Returns the arguments that are not schemas.
    pub(crate) fn factory_guesses(
        &mut self,
        ctx: &Ctx,
        callee_name: &str,
        argv: &[Value],
        contract: &Rc<RefCell<RawContract>>,
        line: u32,
    ) -> Vec<Value> {
        // The part: a string argument naming it, else the factory's name.
        let named = argv.iter().find_map(|a| match a.as_text().as_deref() {
            Some("query") => Some("query"),
            Some("params") => Some("params"),
            Some("body") => Some("body"),
            _ => None,
        });
        let mut rest = Vec::new();
        for a in argv {
            let a = self.force(a.clone(), 0);
            let guess = |part: &'static str, z: &ZodVal| {
                contract.borrow_mut().guesses.push((
                    part,
                    z.schema.clone(),
                    guess_label(z, callee_name),
                    ctx.file,
                    line,
                ));
            };
            match &a {
                Value::Zod(z) => {
                    let lower = callee_name.to_ascii_lowercase();
                    let part = named.unwrap_or(if lower.contains("query") {
                        "query"
                    } else if lower.contains("param") {
                        "params"
                    } else {
                        "body"
                    });
                    guess(part, z);
                }
                // `validate({ body: schema, query: schema })`: one schema per part.
                Value::Obj(o) => {
                    let parts: Vec<(&'static str, Value)> = ["body", "query", "params", "headers"]
                        .into_iter()
                        .filter_map(|p| o.get(p).map(|v| (p, v)))
                        .collect();
                    if parts.is_empty() {
                        rest.push(a.clone());
                    }
                    for (part, v) in parts {
                        if let Value::Zod(z) = self.force(v, 0) {
                            guess(part, &z);
                        }
                    }
                }
                other => rest.push(other.clone()),
            }
        }
        rest
    }

    pub(crate) fn http_member(&mut self, h: HttpVal, prop: &str) -> Value {
        match (h, prop) {
            (HttpVal::Req, "body") => Value::Http(HttpVal::Part("body")),
            (HttpVal::Req, "query") => Value::Http(HttpVal::Part("query")),
            (HttpVal::Req, "params") => Value::Http(HttpVal::Part("params")),
            (HttpVal::Req, "headers") => Value::Http(HttpVal::Part("headers")),
            (HttpVal::Part(part @ ("query" | "headers" | "body")), p) => {
                if let Some(c) = &self.route_contract {
                    let mut c = c.borrow_mut();
                    match part {
                        "query" => {
                            c.query_read.insert(p.to_string());
                        }
                        "body" => {
                            c.body_read.insert(p.to_string());
                        }
                        _ => {
                            c.headers_read.insert(p.to_ascii_lowercase());
                        }
                    }
                }
                Value::dynamic()
            }
            _ => Value::dynamic(),
        }
    }

    pub(crate) fn http_method(&mut self, ctx: &Ctx, h: HttpVal, name: &str, call: &Call) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        match (h, name) {
            (HttpVal::Req, "get" | "header") => {
                if let (Some(c), Some(k)) =
                    (&self.route_contract, argv.first().and_then(|k| k.as_text()))
                {
                    c.borrow_mut().headers_read.insert(k.to_ascii_lowercase());
                }
                Value::dynamic()
            }
            (HttpVal::Res(_), "status") => match argv.first().map(|v| self.force(v.clone(), 0)) {
                Some(Value::Num(n)) if (100.0..600.0).contains(&n) => {
                    Value::Http(HttpVal::Res(n as u16))
                }
                // A status only known at run time: 0 (the OpenAPI `default` response).
                _ => Value::Http(HttpVal::Res(0)),
            },
            (HttpVal::Res(status), "json" | "send" | "jsonp" | "end" | "sendStatus") => {
                let status = match (name, argv.first().map(|v| self.force(v.clone(), 0))) {
                    ("sendStatus", Some(Value::Num(n))) if (100.0..600.0).contains(&n) => n as u16,
                    ("sendStatus", _) => 0,
                    _ => status,
                };
                let schema = match name {
                    "json" | "jsonp" => call
                        .args
                        .first()
                        .and_then(|e| crate::libs::socketio::literal_schema(e, 0))
                        // A value built elsewhere (a constant, a helper's argument).
                        .or_else(|| {
                            let v = self.force(argv.first()?.clone(), 0);
                            crate::libs::schemas::value_schema(&v, 0)
                        }),
                    _ => None,
                };
                if let Some(c) = &self.route_contract {
                    let mut c = c.borrow_mut();
                    if !c
                        .responses
                        .iter()
                        .any(|(s, sch, _, _)| *s == status && (sch.is_some() || schema.is_none()))
                    {
                        c.responses
                            .retain(|(s, sch, _, _)| !(*s == status && sch.is_none()));
                        c.responses.push((status, schema, ctx.file, call.line));
                    }
                }
                Value::Undef
            }
            (
                HttpVal::Res(_),
                "set" | "header" | "type" | "cookie" | "clearCookie" | "location" | "vary"
                | "append",
            ) => Value::Http(h),
            _ => {
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::dynamic()
            }
        }
    }

    pub(crate) fn cond_text(&self) -> Option<String> {
        if self.cond.is_empty() {
            None
        } else {
            Some(self.cond.join(" && "))
        }
    }

    pub(crate) fn handler_names(
        &mut self,
        e: &Expr,
        v: &Value,
        out: &mut Vec<(String, Option<(FileId, u32)>)>,
        depth: u32,
    ) {
        if depth > 4 {
            return;
        }
        match (e, v) {
            (Expr::Array(items), Value::Arr(vals)) => {
                let vals = vals.borrow().clone();
                for (i, it) in items.iter().enumerate() {
                    let vv = vals.get(i).cloned().unwrap_or(Value::Undef);
                    self.handler_names(it, &vv, out, depth + 1);
                }
            }
            (_, Value::Arr(vals)) => {
                // Elements with a name of their own are listed by it; the others
                // go under the array's name once (`signupRules`).
                let vals = vals.borrow().clone();
                let mut unnamed = false;
                for vv in vals {
                    match value_name(&vv) {
                        Some(name) => out.push((name, value_at(&vv))),
                        None if !unnamed => {
                            unnamed = true;
                            out.push((expr_text(e), value_at(&vv)));
                        }
                        None => {}
                    }
                }
            }
            _ => {
                let name = match (e, v) {
                    (Expr::Func(f), _) => f.name.clone().unwrap_or_else(|| "<anonymous>".into()),
                    _ => expr_text(e),
                };
                out.push((name, value_at(v)));
            }
        }
    }

    pub(crate) fn register_use(&mut self, ctx: &Ctx, id: u32, call: &Call) {
        if self.event_mode || self.salvage_blocks(id) {
            self.eval_args(ctx, &call.args);
            return;
        }
        let mut argv = Vec::new();
        for a in &call.args {
            let v = self.eval(ctx, a);
            let v = self.force_deep(v);
            argv.push((a, v));
        }
        let (paths, start) = match argv.first() {
            Some((_, v @ (Value::Str(_) | Value::Regex(_)))) => {
                (path_list(v).unwrap_or_default(), 1)
            }
            Some((_, v @ Value::Arr(a)))
                if a.borrow()
                    .iter()
                    .all(|x| matches!(x, Value::Str(_) | Value::Regex(_)))
                    && !a.borrow().is_empty() =>
            {
                (path_list(v).unwrap_or_default(), 1)
            }
            Some((_, Value::Unknown(Unknown::Dynamic))) if argv.len() >= 2 => {
                self.dynamic_path(ctx, call, "use");
                return;
            }
            _ => (vec![PathArg::Str("/".into())], 0),
        };
        let mut handlers = Vec::new();
        for (e, v) in argv.iter().skip(start) {
            self.use_handlers(e, v, &mut handlers, 0);
            // A router could hide behind it: say so rather than drop it.
            if matches!(v, Value::Unknown(Unknown::Dynamic)) && !self.loading_unreached {
                let text = expr_text(e);
                self.finding(
                    FindingCode::DynamicMount,
                    ctx.file,
                    call.line,
                    format!(
                        "`use(..., {text})` mounts a value only known at run time; routes it may add are not in the inventory"
                    ),
                );
            }
        }
        for h in &handlers {
            if let UseHandler::Router(r) = h {
                self.routers[*r as usize].mounted = true;
            }
        }
        let values: Vec<Value> = argv.iter().skip(start).map(|(_, v)| v.clone()).collect();
        self.graphql_mounts(ctx, id, &paths, &values, call);
        let reg = Reg {
            kind: RegKind::Use { paths, handlers },
            file: ctx.file,
            line: call.line,
            cond: self.cond_text(),
            doc: call.doc.clone(),
            via: None,
        };
        self.routers[id as usize].regs.push(reg);
    }

    pub(crate) fn use_handlers(
        &mut self,
        e: &Expr,
        v: &Value,
        out: &mut Vec<UseHandler>,
        depth: u32,
    ) {
        if depth > 4 {
            return;
        }
        match v {
            Value::Router(r) => out.push(UseHandler::Router(*r)),
            Value::Arr(items) => {
                let items = items.borrow().clone();
                let exprs: Option<&Vec<Expr>> = match e {
                    Expr::Array(x) => Some(x),
                    _ => None,
                };
                for (i, it) in items.iter().enumerate() {
                    let ie = exprs.and_then(|x| x.get(i)).unwrap_or(e);
                    let it = self.force_deep(it.clone());
                    self.use_handlers(ie, &it, out, depth + 1);
                }
            }
            _ => {
                let name = match e {
                    Expr::Func(f) => f.name.clone().unwrap_or_else(|| "<anonymous>".into()),
                    Expr::Array(_) => value_name(v).unwrap_or_else(|| "<anonymous>".into()),
                    _ => expr_text(e),
                };
                self.note_middleware(&name, v);
                out.push(UseHandler::Middleware(name));
            }
        }
    }
}

/// Whether `if (test) { then }` is lazy initialisation: the test is `!x` (or
/// `x == null`) for a property `x` that the branch assigns.
/// A fallback of nothing (`null`, `[]`, `{}`): as a join with an unknown value
/// it says nothing (a loop over it would run zero times), so the unknown is kept.
pub(crate) fn says_nothing(v: &Value) -> bool {
    match v {
        Value::Null | Value::Undef => true,
        Value::Arr(items) => items.borrow().is_empty(),
        Value::Obj(o) => o.props.borrow().is_empty() && o.class.borrow().is_none(),
        _ => false,
    }
}

pub(crate) fn lazy_init(test: &Expr, then: &[Stmt]) -> bool {
    let target = match test {
        Expr::Unary(op, e) if op == "!" => e.as_ref(),
        Expr::Compare(op, e, n)
            if matches!(op.as_str(), "==" | "===")
                && matches!(n.as_ref(), Expr::Null | Expr::Undefined) =>
        {
            e.as_ref()
        }
        _ => return false,
    };
    let Expr::Member(..) = target else {
        return false;
    };
    let text = expr_text(target);
    then.iter().any(|s| match s {
        Stmt::Expr(Expr::Assign(p, _)) => {
            matches!(p.as_ref(), Pattern::Target(t) if expr_text(t) == text)
        }
        _ => false,
    })
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

/// The `{name}` placeholder for a run-time part of a template (`${kind}`, `${opts.kind}`).
pub(crate) fn placeholder(e: &Expr) -> Option<String> {
    match e {
        Expr::Ident(n) => Some(n.clone()),
        Expr::Member(_, p) => Some(p.clone()),
        _ => None,
    }
}

pub(crate) fn known_module(pkg: &str) -> Value {
    match pkg {
        "express" => Value::Builtin(Builtin::Express),
        "socket.io" => Value::Builtin(Builtin::SocketIo),
        "zod" => Value::Builtin(Builtin::Zod),
        "joi" => Value::Builtin(Builtin::Joi),
        "celebrate" => Value::Builtin(Builtin::Celebrate),
        "express-validator" => Value::Builtin(Builtin::CheckField("")),
        "socket.io-client" => Value::Builtin(Builtin::SocketIoClient),
        "path" | "path/posix" => Value::Builtin(Builtin::PathModule),
        "url-join" => Value::Builtin(Builtin::UrlJoin),
        "fs" | "fs/promises" => Value::Builtin(Builtin::FsModule),
        "ajv" | "ajv/dist/2019" | "ajv/dist/2020" => Value::Builtin(Builtin::Ajv),
        "events" | "node:events" => Value::Builtin(Builtin::EventEmitterCtor),
        "express-json-validator-middleware" => Value::Builtin(Builtin::JsonValidator),
        "http-status" | "http-status-codes" => Value::Builtin(Builtin::HttpStatus),
        other => crate::libs::dropins::default_export(other)
            .or_else(|| node::module(other))
            .unwrap_or_else(|| Value::Builtin(Builtin::OpaqueModule(Rc::from(other)))),
    }
}

/// The name a guessed schema is linked under (`joi:` marks Joi's).
pub(crate) fn guess_label(z: &ZodVal, callee: &str) -> String {
    if z.joi {
        format!("joi:{callee}")
    } else {
        callee.to_string()
    }
}

/// The code of a status constant as the status-code packages name it
/// (`CREATED`, `NOT_FOUND`, `UNPROCESSABLE_ENTITY`; also `200`-style keys).
pub(crate) fn status_code_named(name: &str) -> Option<u16> {
    if let Ok(n) = name.parse::<u16>() {
        return (100..600).contains(&n).then_some(n);
    }
    Some(match name {
        "CONTINUE" => 100,
        "SWITCHING_PROTOCOLS" => 101,
        "PROCESSING" => 102,
        "OK" => 200,
        "CREATED" => 201,
        "ACCEPTED" => 202,
        "NON_AUTHORITATIVE_INFORMATION" => 203,
        "NO_CONTENT" => 204,
        "RESET_CONTENT" => 205,
        "PARTIAL_CONTENT" => 206,
        "MULTI_STATUS" => 207,
        "MULTIPLE_CHOICES" => 300,
        "MOVED_PERMANENTLY" => 301,
        "MOVED_TEMPORARILY" | "FOUND" => 302,
        "SEE_OTHER" => 303,
        "NOT_MODIFIED" => 304,
        "TEMPORARY_REDIRECT" => 307,
        "PERMANENT_REDIRECT" => 308,
        "BAD_REQUEST" => 400,
        "UNAUTHORIZED" => 401,
        "PAYMENT_REQUIRED" => 402,
        "FORBIDDEN" => 403,
        "NOT_FOUND" => 404,
        "METHOD_NOT_ALLOWED" => 405,
        "NOT_ACCEPTABLE" => 406,
        "PROXY_AUTHENTICATION_REQUIRED" => 407,
        "REQUEST_TIMEOUT" => 408,
        "CONFLICT" => 409,
        "GONE" => 410,
        "LENGTH_REQUIRED" => 411,
        "PRECONDITION_FAILED" => 412,
        "REQUEST_TOO_LONG" | "PAYLOAD_TOO_LARGE" | "REQUEST_ENTITY_TOO_LARGE" => 413,
        "REQUEST_URI_TOO_LONG" | "URI_TOO_LONG" => 414,
        "UNSUPPORTED_MEDIA_TYPE" => 415,
        "REQUESTED_RANGE_NOT_SATISFIABLE" | "RANGE_NOT_SATISFIABLE" => 416,
        "EXPECTATION_FAILED" => 417,
        "IM_A_TEAPOT" => 418,
        "MISDIRECTED_REQUEST" => 421,
        "UNPROCESSABLE_ENTITY" => 422,
        "LOCKED" => 423,
        "FAILED_DEPENDENCY" => 424,
        "TOO_EARLY" => 425,
        "UPGRADE_REQUIRED" => 426,
        "PRECONDITION_REQUIRED" => 428,
        "TOO_MANY_REQUESTS" => 429,
        "REQUEST_HEADER_FIELDS_TOO_LARGE" => 431,
        "UNAVAILABLE_FOR_LEGAL_REASONS" => 451,
        "INTERNAL_SERVER_ERROR" => 500,
        "NOT_IMPLEMENTED" => 501,
        "BAD_GATEWAY" => 502,
        "SERVICE_UNAVAILABLE" => 503,
        "GATEWAY_TIMEOUT" => 504,
        "HTTP_VERSION_NOT_SUPPORTED" => 505,
        "INSUFFICIENT_STORAGE" => 507,
        "NETWORK_AUTHENTICATION_REQUIRED" => 511,
        _ => return None,
    })
}

pub(crate) fn member_of_builtin(base: &Value, prop: &str) -> Value {
    let Value::Builtin(b) = base else {
        return Value::dynamic();
    };
    match (b, prop) {
        (Builtin::Express, "Router") => Value::Builtin(Builtin::RouterCtor),
        (Builtin::Ajv, "default" | "Ajv" | "Ajv2019" | "Ajv2020") => Value::Builtin(Builtin::Ajv),
        (Builtin::AjvInstance, m) => match m {
            "compile" => Value::Builtin(Builtin::AjvMethod("compile")),
            "validate" => Value::Builtin(Builtin::AjvMethod("validate")),
            "addSchema" | "addFormat" | "addKeyword" | "addVocabulary" | "removeSchema" => {
                Value::Builtin(Builtin::AjvMethod("chain"))
            }
            _ => Value::external(),
        },
        (Builtin::EventEmitterCtor, "EventEmitter" | "default") => {
            Value::Builtin(Builtin::EventEmitterCtor)
        }
        (Builtin::HttpStatus, "default" | "StatusCodes" | "status" | "httpStatus") => {
            Value::Builtin(Builtin::HttpStatus)
        }
        (Builtin::HttpStatus, name) => match status_code_named(name) {
            Some(code) => Value::Num(code as f64),
            None => Value::external(),
        },
        (Builtin::JsonValidator, "Validator" | "default") => Value::Builtin(Builtin::JsonValidator),
        (Builtin::JsonValidator, "validate") => Value::Builtin(Builtin::JsonValidate),
        (Builtin::JsonValidator, "ajv") => Value::Builtin(Builtin::AjvInstance),
        (Builtin::Express, "default") => Value::Builtin(Builtin::Express),
        (Builtin::Express, p) => Value::Builtin(Builtin::MiddlewareFactory(Rc::from(
            format!("express.{p}").as_str(),
        ))),
        (Builtin::PathModule, "join" | "normalize") => Value::Builtin(Builtin::PathJoin),
        (Builtin::PathModule, p) if let Some(v) = node::path_member(p) => v,
        (Builtin::PathModule, "posix" | "default") => Value::Builtin(Builtin::PathModule),
        (Builtin::UrlJoin, "default") => Value::Builtin(Builtin::UrlJoin),
        (
            Builtin::ObjectNs,
            f @ ("keys" | "values" | "entries" | "assign" | "freeze" | "fromEntries"
            | "defineProperty" | "create" | "setPrototypeOf" | "getPrototypeOf"),
        ) => Value::Builtin(Builtin::ObjectFn(match f {
            "keys" => "keys",
            "values" => "values",
            "entries" => "entries",
            "assign" => "assign",
            "freeze" => "freeze",
            "fromEntries" => "fromEntries",
            "create" => "create",
            "setPrototypeOf" => "setPrototypeOf",
            "getPrototypeOf" => "getPrototypeOf",
            _ => "defineProperty",
        })),
        (Builtin::ArrayNs, "prototype") => Value::array(Vec::new()),
        (Builtin::ArrayNs, "from") => Value::Builtin(Builtin::ArrayFrom),
        (Builtin::ArrayNs, "isArray") => Value::Builtin(Builtin::ArrayIsArray),
        (Builtin::SocketIo, "Server" | "default") => Value::Builtin(Builtin::SocketIoServer),
        // Socket.IO 0.9/1.x: `require('socket.io').listen(server, opts)`.
        (Builtin::SocketIo, "listen" | "attach") => Value::Builtin(Builtin::SocketIo),
        (Builtin::Zod, "z" | "default" | "coerce" | "zod") => Value::Builtin(Builtin::Zod),
        (Builtin::Zod, p) => Value::Builtin(Builtin::ZodBuilder(Rc::from(p))),
        (Builtin::ZodBuilder(ns), p) if ns.as_ref() == "iso" || ns.as_ref() == "string" => {
            Value::Builtin(Builtin::ZodBuilder(Rc::from(format!("iso.{p}").as_str())))
        }
        (Builtin::Joi, "default" | "Joi") => Value::Builtin(Builtin::Joi),
        (Builtin::Joi, p) => Value::Builtin(Builtin::JoiBuilder(Rc::from(p))),
        (Builtin::Celebrate, "Joi") => Value::Builtin(Builtin::Joi),
        (Builtin::Celebrate, "celebrate" | "default") => Value::Builtin(Builtin::Celebrate),
        (Builtin::Celebrate, "Segments") => {
            let o = ObjData::new();
            for (k, v) in [
                ("BODY", "body"),
                ("QUERY", "query"),
                ("PARAMS", "params"),
                ("HEADERS", "headers"),
                ("COOKIES", "cookies"),
            ] {
                o.set(k, Value::str(v));
            }
            Value::Obj(o)
        }
        (Builtin::CheckField(""), p) => Value::Builtin(Builtin::CheckField(match p {
            "body" | "check" | "checkBody" => "body",
            "query" | "checkQuery" => "query",
            "param" | "checkParams" => "params",
            "header" | "checkHeaders" => "headers",
            "cookie" => "cookies",
            "checkSchema" => "schema",
            _ => return Value::external(),
        })),
        (Builtin::SocketIoClient, "io" | "connect" | "default") => {
            Value::Builtin(Builtin::SocketIoClient)
        }
        (Builtin::SocketIoClient, "Manager") => Value::Builtin(Builtin::SocketIoManager),
        (Builtin::PromiseNs, "all" | "resolve" | "allSettled") => Value::Builtin(Builtin::Identity),
        // Nest's `HttpStatus.NO_CONTENT` is the status table of http-status-codes.
        (Builtin::OpaqueModule(m), "HttpStatus") if &**m == "@nestjs/common" => {
            Value::Builtin(Builtin::HttpStatus)
        }
        (Builtin::OpaqueModule(m), p @ ("NestFactory" | "forwardRef"))
            if &**m == "@nestjs/core" || &**m == "@nestjs/common" =>
        {
            Value::Builtin(Builtin::Framework(Rc::from(p)))
        }
        (Builtin::OpaqueModule(m), p) if crate::libs::dropins::member(m, p).is_some() => {
            crate::libs::dropins::member(m, p).unwrap_or_else(Value::external)
        }
        (Builtin::Framework(n), "applyMiddleware") if &**n == "apollo-server" => {
            Value::Builtin(Builtin::Framework(Rc::from("applyMiddleware")))
        }
        (Builtin::OpaqueModule(m), p @ ("createExpressServer" | "useExpressServer"))
            if &**m == "routing-controllers" =>
        {
            Value::Builtin(Builtin::Framework(Rc::from(p)))
        }
        (Builtin::Framework(n), "create") if &**n == "NestFactory" => {
            Value::Builtin(Builtin::Framework(Rc::from("create")))
        }
        (Builtin::FsModule, p) => node::fs_member(p),
        (Builtin::Require, "resolve") => Value::Builtin(Builtin::Node(NodeFn::RequireResolve)),
        (Builtin::Node(n), p) => node::member(n, p),
        (Builtin::Lodash(m), p) => crate::libs::lodash::member(m, p),
        (Builtin::OpaqueModule(m), p) if &**m == "@nestjs/websockets" => {
            Value::Builtin(Builtin::NestWs(Rc::from(p)))
        }
        (Builtin::OpaqueModule(m), p) => Value::Builtin(Builtin::MiddlewareFactory(Rc::from(
            format!("{m}.{p}").as_str(),
        ))),
        _ => Value::external(),
    }
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

/// `url-join` semantics: one slash between parts.
pub(crate) fn url_join(parts: &[String]) -> String {
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() {
            continue;
        }
        let mut p = p.as_str();
        if i > 0 {
            p = p.trim_start_matches('/');
        }
        if out.ends_with('/') {
            out.pop();
        }
        if !out.is_empty() && !p.is_empty() {
            out.push('/');
        }
        out.push_str(p);
    }
    out
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
    }
}
