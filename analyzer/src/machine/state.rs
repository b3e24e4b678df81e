//! The parts of a run's state that `Interp` holds besides the machine's own
//! (see the field list of [`Interp`](super::Interp)): what a run writes
//! ([`Recorder`]) and the work it keeps for later passes ([`Deferred`]). The
//! modes the schedule and its helpers set are `passes::Modes`; the libraries'
//! state is `libs::LibState`.
//!
//! Deliberately not here: how each part is used; the code that records or
//! runs the work says so beside it.

use super::*;

/// What a run writes: apps and routers with their registrations, findings,
/// Socket.IO servers and event sites, the files and inputs it read. The
/// machine and the libraries write it as the run goes; a later pass reads
/// what an earlier one wrote (`Phase::Contracts` runs the handlers of the
/// routes recorded), and the inventory stage reads all of it at the end.
#[derive(Default)]
pub(crate) struct Recorder {
    /// Every app and router made, by id (`Value::Router(id)` is an index), with
    /// its registrations in program order.
    pub(crate) routers: Vec<RouterData>,
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
    /// What the census needs to know of the run (see `census_rec.rs`).
    pub(crate) census: census_rec::CensusRec,
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
    /// Whether a module is near sockets (see [`Interp::near_sockets`]), by file.
    pub(crate) near: HashMap<FileId, bool>,
    /// Functions that emit, by (file, function id), with whether they do.
    pub(crate) emits: HashMap<(FileId, u32), bool>,
    /// Functions that emit, kept so they can run once more while looking for events.
    pub(crate) emit_funcs: HashMap<(FileId, u32), Rc<Closure>>,
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
    /// Keys of `middleware_seen`: (name, file, function id or export name).
    pub(crate) middleware_keys: HashSet<(String, FileId, String)>,
    /// Modules started with `child_process.fork` or as cluster workers:
    /// (module, calling file, line, the call that names it) (see `forks`).
    pub(crate) forked: Vec<(FileId, FileId, u32, &'static str)>,
}
