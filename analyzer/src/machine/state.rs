//! The named parts of a run's state that [`Interp`](super::Interp) holds:
//! the JavaScript machine's own state ([`JsState`]), what the code running
//! now is inside ([`Running`]), what a run writes ([`Recorder`]) and the work
//! it keeps for later passes ([`Deferred`]). The modes the schedule sets are
//! `passes::Modes`, the libraries' state `libs::LibState`, the salvage pass's
//! `salvage::SalvageState`.
//!
//! Example: `if (flag) app.get('/x', h)` in a module an entry loads runs with
//! the module in `js.modules` and `flag` in `running.cond`; the route lands
//! in `rec.routers`, conditional; `h`, created and not called, waits in
//! `deferred.uncalled` until `Phase::Contracts` runs it as the route's
//! handler (with `running.route_contract` set) and marks it called.
//!
//! Deliberately not here: how each part is used; the code that records or
//! runs the work says so beside it.

use super::*;

/// What a run writes: apps and routers with their registrations, findings,
/// Socket.IO servers and event sites, the files and inputs it read. The
/// machine and the libraries write it as the run goes; a later pass reads
/// what an earlier one wrote (`Phase::Contracts` runs the handlers of the
/// routes recorded), and the inventory stage reads all of it at the end.
/// How many ternaries over classes [`Recorder::class_choices`] keeps.
pub(crate) const CLASS_CHOICES: usize = 512;

#[derive(Default)]
pub(crate) struct Recorder {
    /// Registrations and event sites made so far, counted (a loop that made
    /// none may be cut short: see `flow::for_iterations`).
    pub(crate) made: u64,
    /// Every app and router made, by id (`Value::Router(id)` is an index), with
    /// its registrations in program order.
    pub(crate) routers: Vec<RouterData>,
    /// The functions (file, line) `use`d with no router that may answer but
    /// may also pass the request on, with the `use` call's (file, line): each
    /// is charted as a route only where a route hands its requests to their
    /// router (`app.get('/search', router)` over `router.use(reply)`), as
    /// that route's operation. (By the call too: closures one wrapper makes
    /// share a line, `wrap(answer)` an endpoint, `wrap(passOn)` middleware.)
    pub(crate) dispatch_answers: HashSet<((FileId, u32), (FileId, u32))>,
    /// The functions of the program mounted with `use` and kept as
    /// middleware, by the `use` call's (file, line): each one's name as
    /// written, where it is defined and why it is middleware. An app that charts no operation while
    /// such functions take its requests is named in an `opaque-middleware`
    /// finding (`opaque.rs`).
    pub(crate) use_funcs_at: std::collections::BTreeMap<(FileId, u32), Vec<UseFunc>>,
    /// Findings, in the order met; one per code, file and line (`finding_keys`).
    pub(crate) findings: Vec<RawFinding>,
    /// The code, file and line of every finding recorded.
    pub(crate) finding_keys: HashSet<(FindingCode, FileId, u32)>,
    /// Every file whose facts were used.
    pub(crate) touched: BTreeSet<FileId>,
    /// Repository files read: JSON files `require`d or imported (see
    /// `modules::data_module`), documents and `fs` reads, by root-relative path.
    pub(crate) data_modules: std::collections::BTreeMap<String, DataModule>,
    /// Socket.IO servers created.
    pub(crate) sio_servers: Vec<SioServer>,
    /// Event sites, in evaluation order.
    pub(crate) sites: Vec<RawSite>,
    /// Rooms joined or left.
    pub(crate) rooms_joined: BTreeSet<String>,
    /// Classes seen, with an instance when one was constructed.
    pub(crate) classes: Vec<(Rc<ClassVal>, Option<Value>)>,
    /// Emits whose name is a field of a message (`m.message`): (file, line,
    /// field), matched with publishers at the end (`libs/socketio_relay.rs`).
    pub(crate) relay_sinks: Vec<(FileId, u32, String)>,
    /// Middleware that can answer 401 or 403, by chain name (see `guards`).
    pub(crate) guards: std::collections::BTreeMap<String, GuardInfo>,
    /// Such middleware the chain can only call `<anonymous>`, by (file,
    /// function id): `app.use('/api', (req, res, next) => ...)`.
    pub(crate) anonymous_guards: HashMap<(FileId, u32), GuardInfo>,
    /// Paths an Express app or router was given at (file, line) that do not
    /// start with `/` (`router.post('api/x', h)`, `app.use('v1', r)`):
    /// Express matches them against the request path, which always does, so
    /// they never match (`libs::express::never_matches`).
    pub(crate) unmatchable: HashSet<(FileId, u32, String)>,
    /// What the census needs to know of the run (see `census_rec.rs`).
    pub(crate) census: census_rec::CensusRec,
    /// Ternaries whose test is only known at run time and whose branches are
    /// two different classes, or imports not read yet (`env.DRIVER ===
    /// 'local' ? LocalModule : S3Module`): the machine keeps the first, and a
    /// framework that reads classes as configuration (Nest's module
    /// `imports`) finds the other here: (kept value, its condition, the
    /// other value, its condition). At most [`CLASS_CHOICES`].
    pub(crate) class_choices: Vec<(Value, String, Value, String)>,
    /// Named calls the run followed that were handed a string shaped like a
    /// route path (`this.route('GET', '/users', h)`), by that string. A route
    /// whose path travelled through data before a verb call took it
    /// (`this.routes.push({ method, path })`, mounted later from the table) is
    /// declared via the one such call that also names its method
    /// (`Interp::path_handed_earlier`). At most [`HANDED_PATHS`] strings.
    pub(crate) handed_paths: HashMap<Rc<str>, Vec<HandedPath>>,
}

/// How many path strings [`Recorder::handed_paths`] keeps.
pub(crate) const HANDED_PATHS: usize = 4096;

impl Recorder {
    /// The classes seen that are declared in one of `files`, in the order met.
    pub(crate) fn classes_in(&self, files: &[FileId]) -> Vec<Rc<ClassVal>> {
        self.classes
            .iter()
            .filter(|(c, _)| files.contains(&c.file))
            .map(|(c, _)| c.clone())
            .collect()
    }
}

/// A followed call that was handed a route-path-like string: where it is,
/// the callee's name, and the other strings among its arguments.
pub(crate) struct HandedPath {
    pub(crate) file: FileId,
    pub(crate) line: u32,
    pub(crate) callee: String,
    pub(crate) strings: Vec<Rc<str>>,
}

/// Work kept for a later pass: functions nobody called yet, emitters to
/// replay, middleware to probe as guards, factories' arguments to read as
/// schema guesses, forked modules to load, and what was already run so it
/// is not run twice. `pipeline.rs` drains it in the order of `Phase`.
#[derive(Default)]
pub(crate) struct Deferred {
    /// Functions created but never called, by (file, function id).
    pub(crate) uncalled: HashMap<(FileId, u32), Rc<Closure>>,
    /// Functions called at least once.
    pub(crate) called: HashSet<(FileId, u32)>,
    /// Listeners of a program's `EventEmitter` that ran only as callbacks,
    /// with what they cannot know, when they were added (see
    /// `Interp::emitter_call`): the first `emit` of their event still runs
    /// them with what it hands them.
    pub(crate) listener_prerun: HashSet<(FileId, u32)>,
    /// Whether a module is near sockets (see [`Interp::near_sockets`]), by file.
    pub(crate) near: HashMap<FileId, bool>,
    /// Functions that emit, by (file, function id), with whether they do.
    pub(crate) emits: HashMap<(FileId, u32), bool>,
    /// Functions that emit, kept so they can run once more while looking for events.
    pub(crate) emit_funcs: HashMap<(FileId, u32), Rc<Closure>>,
    /// Functions that emit, written inline as a callback handed to a call the
    /// analysis does not follow (`watcher.on('change', () => io.emit(…))`
    /// inside a function): the callee calls them later, once the program's
    /// start-up has set what they read, so they run once more while looking
    /// for events, in the environment they were made in (the last one).
    pub(crate) handed_emitters: HashMap<(FileId, u32), Rc<Closure>>,
    /// Functions run while looking for events.
    pub(crate) event_called: HashSet<(FileId, u32)>,
    /// Functions a catch-all's event name selected that were charted and run,
    /// by (file, function, namespace and event name): a dispatcher reached
    /// twice charts each once.
    pub(crate) dispatched: HashSet<(FileId, u32, String)>,
    /// What followed middleware factories were handed, read as schema guesses
    /// when the handlers run: (contract, context, factory, arguments, line).
    pub(crate) pending_guesses: Vec<PendingGuess>,
    /// Middleware functions seen in chains, by the name the chain gives them (see `guards`).
    pub(crate) middleware_seen: Vec<(String, Value)>,
    /// Functions seen in `use` chains that can only be called `<anonymous>`,
    /// each once, by (file, function id).
    pub(crate) anonymous_middleware: Vec<((FileId, u32), Value)>,
    /// Keys of `middleware_seen` and `anonymous_middleware`: (name, file,
    /// function id or export name).
    pub(crate) middleware_keys: HashSet<(String, FileId, String)>,
    /// Modules started with `child_process.fork` or as cluster workers:
    /// (module, calling file, line, the call that names it) (see `forks`).
    pub(crate) forked: Vec<(FileId, FileId, u32, &'static str)>,
    /// Functions mounted with `use` (`app.use((req, res, next) => …)`), in
    /// the order they were mounted, with their (file, function id): they run
    /// as handlers before the routes' own (see `libs/express_http.rs`).
    pub(crate) use_funcs: Vec<Value>,
    pub(crate) use_func_keys: HashSet<(FileId, u32)>,
    /// What middleware wrote on the request that can carry sites
    /// (`req.io = io`), by property: Express hands the same `req` to every
    /// function after it.
    pub(crate) req_props: HashMap<String, Value>,
}

/// An array's items, shared by every value of the array.
pub(crate) type ArrayItems = Rc<RefCell<Vec<Value>>>;

/// The JavaScript machine's own state: the global scope and object, the
/// module table, what objects, functions and classes keep beside their
/// values, the call stack and the budgets that bound it.
pub(crate) struct JsState {
    /// The properties the program wrote on `process` (see `set_member`).
    pub(crate) process_props: Rc<crate::value::ObjData>,
    /// The symbols `Symbol.for(key)` gave, by key: the same symbol for the
    /// same key, in every module (see `Interp::symbol`).
    pub(crate) symbols: HashMap<String, Rc<crate::value::ObjData>>,
    /// Objects the run made so far (see `Interp::stamp`): an object made
    /// on a path that may not run is the path's own (`flow.rs`).
    pub(crate) objects_made: u64,
    /// Arrays `filter` made with a test only known at run time for some
    /// item, by address (the array kept, so the address stays its own), with
    /// how many of their first items are certainly there: past those an
    /// item may be missing, so the length and later indexes are only known
    /// at run time (`list.filter(g => g.id === id)[0]` may be `undefined`).
    pub(crate) maybe_items: HashMap<usize, (ArrayItems, usize)>,
    /// Instances of the program's subclasses of Node's `EventEmitter`
    /// (`class Host extends EventEmitter`), with the listeners and emits the
    /// base class keeps for each (`machine/emitters.rs`).
    pub(crate) emitters: Vec<(Rc<crate::value::ObjData>, Rc<crate::value::Emitter>)>,
    /// Classes whose instance fields are being initialised (by address): a
    /// field that constructs its own class again (`class A { x = new A() }`,
    /// a RangeError in JavaScript) is not followed a second time.
    pub(crate) initializing: Vec<usize>,
    /// What each `new Promise(executor)` of the run was resolved with, by
    /// the index its `resolve` function holds ([`Builtin::Resolve`]): the
    /// first value `resolve` is called with, while the executor runs (at
    /// once, or in a callback it hands on, such as `server.listen(port, ()
    /// => resolve(server))`), is what the promise gives. A slot is never
    /// reused, so a `resolve` called later writes where nobody reads.
    ///
    /// [`Builtin::Resolve`]: crate::value::Builtin::Resolve
    pub(crate) settled: Vec<Option<Value>>,
    /// Instances of derived classes whose constructor is running, by the
    /// class's address, and whether its `super(…)` has returned and made
    /// the class's fields (JavaScript makes them then, not before the
    /// constructor's body).
    pub(crate) fields_pending: Vec<(usize, bool)>,
    /// Strings that are a default taken for a value only known at run time,
    /// with when the default applies, by the address of their text (the
    /// `Rc` is kept so the address stays theirs): `process.env.PREFIX ||
    /// '/env'` is `'/env'` when `!(process.env.PREFIX)`; `Object.assign({},
    /// defaults, userConfig)` keeps `defaults.root` when
    /// `userConfig.root === undefined`. A route whose path is one of them is
    /// charted under the default, conditional, with a `dynamic-path` finding.
    pub(crate) assumed: HashMap<usize, (Rc<str>, String)>,
    /// Keys an object may lack: written on one way of a test only known at
    /// run time and absent on the other (`if (process.env.X) env.base =
    /// process.env.X`), by the object's address (the `Rc` is kept so the
    /// address stays its own), each with the value written then and the
    /// conditions under which the key is present and absent. Copying the
    /// object over another (`{ base: '', ...env }`, `Object.assign`) keeps
    /// the other's value on the way the key is absent (`maywrite.rs`).
    pub(crate) maybe_absent: HashMap<usize, (Rc<crate::value::ObjData>, Vec<MaybeAbsent>)>,
    /// The methods of each object literal of a file, grouped (see
    /// `Interp::run_with_placeholders`), by file, found once per run.
    pub(crate) literal_groups: HashMap<FileId, Rc<Vec<Vec<u32>>>>,
    /// The first object each such literal made, by its file and first
    /// method's id: methods nobody called run with an object whose prototype
    /// it is, so `this.other()` and `this.other.bind(this)` find its
    /// siblings (`Class.create({ start() { … this.onConnect.bind(this) … } })`).
    pub(crate) literal_objects: HashMap<(FileId, u32), Rc<crate::value::ObjData>>,
    /// Strings a choice only known at run time made, with every way the
    /// choice may go, by the address of their text (see `choices.rs`).
    pub(crate) chosen: HashMap<usize, (Rc<str>, Rc<Vec<super::choices::Way>>)>,
    /// The env templates read and the strings they gave (see `env.rs`).
    pub(crate) env: super::env::EnvDocs,
    /// Lists made from such a default, with when it applies, by the address
    /// of their items (the `Rc` is kept so the address stays theirs):
    /// `(process.env.PLUGINS || '').split(',')`, and what `filter`, `map`,
    /// `slice`, … make of it. The list the run-time value gives may hold
    /// other items, so a loop over one that is empty is a loop over values
    /// only known at run time, not a loop that runs zero times.
    pub(crate) assumed_lists: HashMap<usize, (ArrItems, String)>,
    /// Modules loaded or being loaded, by file: exports, scope, live bindings.
    pub(crate) modules: HashMap<FileId, Rc<ModuleRec>>,
    /// The program whose entry is running (the entries pass sets it around
    /// each entry): Node makes its `module` `require.main`, so
    /// `if (require.main === module) start()` holds in that file and in no
    /// module it loads. `None` in the later passes, where `require.main` is
    /// only known at run time.
    pub(crate) main: Option<FileId>,
    /// The folder the running program's process starts in, relative to the
    /// root (`process.cwd()`; see `node.rs`): set with [`Self::main`], `None`
    /// (the root) in the later passes.
    pub(crate) cwd: Option<Rc<str>>,
    /// The calls being followed, innermost last: (file, function id); its
    /// length is the call depth (see `budget.rs`, `enter_frame`).
    pub(crate) stack: Vec<(FileId, u32)>,
    /// Statements executed so far; past `STEP_BUDGET` calls are not followed.
    pub(crate) steps: u64,
    /// Whether the finding for a spent `STEP_BUDGET` was recorded.
    pub(crate) budget_reported: bool,
    /// The global scope (`Object`, `require`, `process`, …), parent of every
    /// module scope.
    pub(crate) globals: Rc<Scope>,
    /// Calls being followed, with their call sites (for helper attribution).
    pub(crate) frames: Vec<Frame>,
    /// Calls running and callbacks that run later, to avoid re-entering them.
    pub(crate) reentry: budget::Reentry,
    /// Per running call: what paths that may or may not run returned (a
    /// branch of an `if` with an unknown test, a handler that may catch);
    /// see [`flow::primitive_result`].
    pub(crate) maybe_returns: Vec<Vec<Value>>,
    /// Properties of functions (`F.prototype`, statics), see `protos`.
    pub(crate) fn_objects: protos::FnObjects,
    /// `C.prototype` of classes, made when first needed (see `protos.rs`).
    pub(crate) class_protos: protos::ClassProtos,
    /// The global object (`global`, `globalThis`): what a program stores
    /// there is read back by name anywhere.
    pub(crate) global_obj: Rc<ObjData>,
    /// Whether each file's functions run in strict mode (see `Interp::sloppy`).
    pub(crate) strict_files: HashMap<FileId, bool>,
    /// What plain objects keep under keys only known at run time, by the
    /// object's address (the object is held, so the address stays its own):
    /// see `keep_under_dynamic_key`.
    pub(crate) dynamic_slots: HashMap<usize, (Rc<ObjData>, Value)>,
    /// Properties a decorator assigned, by the object's address and name (the
    /// object is held, so the address stays its own): the decorator's place.
    pub(crate) decorated: decorators::DecoratedProps,
    /// Per module, whether the program's own decorators decorate a class its
    /// top level declares (then importing it runs it: `modules.rs`).
    pub(crate) own_decorators: HashMap<FileId, bool>,
    /// What `Reflect.defineMetadata` stored (see `metadata.rs`).
    pub(crate) metadata: metadata::MetadataStore,
    /// The pages' classic scripts and the names they share (see `pages.rs`).
    pub(crate) pages: super::pages::PageScripts,
}

/// An array's items, as [`Value::Arr`] holds them.
pub(crate) type ArrItems = Rc<RefCell<Vec<Value>>>;

/// A loop over values the analyzer cannot see (`fs.readdirSync(dir).forEach(…)`),
/// whose body runs once with unknown items: a registration in it whose path
/// or method those items decide is one `dynamic-loop` finding at the loop.
pub(crate) struct DynLoop {
    /// Where the loop (or the looping call) is.
    pub(crate) file: FileId,
    pub(crate) line: u32,
    /// The iterated expression as written.
    pub(crate) text: String,
    /// Set once the loop is a finding: it covers the computed imports in it.
    pub(crate) seen: Cell<bool>,
    /// When the list is known, but only as a default taken for a run-time
    /// value, and that default is empty: the condition under which it is
    /// (`(process.env.PLUGINS || '').split(',').filter(Boolean)` is empty
    /// when `!(process.env.PLUGINS)`).
    pub(crate) empty_when: Option<String>,
}

impl DynLoop {
    pub(crate) fn new(file: FileId, line: u32, text: String) -> DynLoop {
        DynLoop {
            file,
            line,
            text,
            seen: Cell::new(false),
            empty_when: None,
        }
    }

    /// The `dynamic-loop` finding's message.
    pub(crate) fn message(&self) -> String {
        match &self.empty_when {
            None => format!(
                "routes are registered in a loop over `{}`, which is only known at run time",
                self.text
            ),
            Some(when) => format!(
                "routes are registered in a loop over `{}`, which is empty by the default taken when `{when}` (so nothing is registered then) and otherwise only known at run time",
                self.text
            ),
        }
    }
}

/// What the code running now is inside: the conditions and loops around
/// it, the decorator being applied, the call whose value is discarded, and
/// the route handler or Socket.IO listener it runs as (its contract, the
/// status set so far, whether it passed the request on). Each is set where
/// that construct begins and restored where it ends.
#[derive(Default)]
pub(crate) struct Running {
    /// Depth of calls a program's start-up code made (a module's top level,
    /// and what runs beneath it): while looking for events, a discarded call
    /// there (`initClientPeer();`) runs where the program runs it, so the
    /// module state it sets (`signalingSocket = io()`) is what the code after
    /// it reads, not left to the pass over uncalled functions.
    pub(crate) startup: u32,
    /// The call an expression statement makes (file, line of the call):
    /// its value is discarded, so it only matters for what it does, and it
    /// is followed even into a module that cannot route. E.g. `await
    /// defineConfig(config);` in a bootstrap function, where `defineConfig`
    /// reassigns the module's `let current` that `getConfig()` reads later
    /// (deferred, the assignment would never happen).
    pub(crate) discarded: Option<(FileId, u32)>,
    /// The status a statement set on the response (`res.status(401);` or
    /// `res.statusCode = 401;` alone): Express keeps it on `res`, so a later
    /// `res.json(…)` in the same block or a nested one answers with it. Blocks
    /// and function bodies restore it when they end (an `if` branch's status
    /// does not leak into the code after the `if`).
    pub(crate) res_status: Option<u16>,
    /// Whether the running route handler called `next()` (or `next('route')`):
    /// it passes the request on, as middleware does.
    pub(crate) next_passed: bool,
    /// Names bound per iteration by the loops over known collections now
    /// running, with the call depth (`stack.len()`) each loop runs at: a test
    /// on them is decided per iteration, even while looking for events.
    pub(crate) iteration_names: Vec<(String, usize)>,
    /// Switch cases now running whose discriminant is only known at run
    /// time: (call depth, the discriminant's text, the case labels that reach
    /// the body). Inside `case 'documents.update':` of `switch (event.name)`,
    /// `event.name` is that label (see `flow.rs`, `narrowed`).
    pub(crate) narrowed: Vec<(usize, String, Vec<Rc<str>>)>,
    /// The conditions the running code is under, outermost first (`if` tests,
    /// `an exception was caught`, a dispatch key): a registration made now is
    /// conditional on all of them.
    pub(crate) cond: Vec<String>,
    /// Active loops over values the analyzer cannot see, innermost last.
    pub(crate) dyn_loops: Vec<DynLoop>,
    /// The loops and `switch`es now running, innermost last, each with the
    /// call depth it runs at, its label and whether a path that may not run
    /// left it: `if (!m) break` with `m` only known at run time leaves the
    /// innermost one of its function (see `flow.rs`, `note_maybe_exit`), and
    /// a `while` iterating on a known test stops after that iteration.
    pub(crate) breakables: Vec<super::flow::Breakable>,
    /// The property writes of the paths now running that may not run (the
    /// branches of an `if` whose test is only known at run time), innermost
    /// last: `cfg.debug = true` under `if (process.env.DEBUG)` is joined with
    /// `cfg.debug`'s value before the `if` once both branches ran (see
    /// `flow.rs`, `join_writes`).
    pub(crate) path_writes: Vec<super::flow::PathWrites>,
    /// The contract of the route whose handlers are running.
    pub(crate) route_contract: Option<Rc<RefCell<RawContract>>>,
    /// The functions (file, function id) the route's code made while its
    /// contract is read: its callbacks (`findRoom(id, function (err, room)
    /// { … res.sendStatus(404) … next() })`). Calls of them and calls
    /// handing them on are followed, so what they answer is the route's.
    /// A function is one when it closes over the route's response or
    /// `next`, or over another of them (`() => cb(null, room)`).
    pub(crate) route_callbacks: HashSet<(FileId, u32)>,
    /// The site of the Socket.IO listener whose body is running.
    pub(crate) listener_site: Option<usize>,
    /// Socket.IO connection handlers and listeners being run (see `Stmt::If`).
    pub(crate) socket_handlers: u32,
    /// Deferred calls and members being forced, nested (see
    /// [`Interp::force_deep`]).
    pub(crate) forcing: u32,
    /// Dispatched functions being run (see `catch_all_acked`).
    pub(crate) dispatching: u32,
    /// Computed imports inside loops over run-time values, with the loop depth:
    /// findings unless the loop itself is one (see [`Interp::pop_dyn_loop`]).
    pub(crate) loop_imports: Vec<(usize, FileId, u32)>,
    /// The place of the decorator being applied (`machine/decorators.rs`).
    pub(crate) decorating: Option<(FileId, u32)>,
}

/// A function of the program mounted with `use` and kept as middleware
/// (see [`Recorder::use_funcs_at`]).
#[derive(Debug, Clone)]
pub(crate) struct UseFunc {
    /// Its name as written at the `use` call.
    pub(crate) name: String,
    /// Where it is defined.
    pub(crate) file: FileId,
    /// The function (why it stayed middleware is worked out from it only
    /// for the apps the finding is about: `crate::libs::answers::why_middleware`).
    pub(crate) func: std::sync::Arc<crate::ir::Func>,
}

/// A key an object may lack (see [`JsState::maybe_absent`]).
#[derive(Clone)]
pub(crate) struct MaybeAbsent {
    /// The key.
    pub(crate) key: String,
    /// What the way that writes it left in it.
    pub(crate) value: Value,
    /// The condition under which it is written (`process.env.X`).
    pub(crate) present: String,
    /// The condition under which it is absent (`!(process.env.X)`).
    pub(crate) absent: String,
}
