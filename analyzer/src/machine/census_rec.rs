//! What the evaluation saw of the census's call sites, so the accounting
//! can give each uncharted registration its precise cause.
//!
//! Captures: per evaluated call site of a census method (`get`, `use`,
//! `on`, …): the class of its receiver (an app or router, a Socket.IO
//! object, a value known not to be either, a package's value, a value only
//! known at run time, a placeholder parameter), whether it ran in the
//! routing phase or only while looking for events, and the loop over run-time
//! values it ran in; the functions entered in the routing phase; functions
//! handed to a package's function (never followed); the call sites that
//! produced an event site; the functions entered while a route's functions
//! ran with a request.
//!
//! Deliberately not captured: argument values, or anything the inventory
//! already records (registrations themselves live in the router table).

use super::Interp;
use crate::ir::Stmt;
use crate::project::FileId;
use crate::value::{Closure, Unknown, Value};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// What a census call site's receiver was when it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recv {
    /// An Express app or router (index into the router table).
    Router(u32),
    /// A Socket.IO object.
    Socket,
    /// A value the program built that is neither (a `Map`, an array, a string, an object, …).
    Other,
    /// A value from an installed package or the runtime (not Express).
    External,
    /// A value only known at run time.
    Dynamic,
    /// A parameter of a function run without a caller.
    Param,
}

/// One census call site as evaluated.
#[derive(Debug, Clone, Default)]
pub(crate) struct SiteSeen {
    /// The receiver in the routing phase (the first one that was a router wins).
    pub(crate) main: Option<Recv>,
    /// The receiver while looking for events (code nobody calls, handlers).
    pub(crate) later: Option<Recv>,
    /// The loop over run-time values it ran in: (file, line).
    pub(crate) dyn_loop: Option<(FileId, u32)>,
}

/// A function of the program handed to a package's function, which the
/// analysis does not follow: `$(el).checkbox({ onChecked() { … } })`.
#[derive(Debug, Clone)]
pub(crate) struct Handed {
    /// The call that hands it over: (file, line).
    pub(crate) at: (FileId, u32),
    /// The names its parameters bind: the values the package passes.
    pub(crate) params: Vec<String>,
    /// Whether the package also decides its `this` (not an arrow, whose
    /// `this` is the enclosing one).
    pub(crate) own_this: bool,
}

impl Handed {
    /// Whether `receiver` (as written: `socket`, `this.socket`, `args[0]`)
    /// is read from what the package passes: a parameter, or the `this` it
    /// calls the function with.
    pub(crate) fn gives(&self, receiver: &str) -> bool {
        let root = receiver.split(['.', '(', '[', '?']).next().unwrap_or("");
        if root == "this" {
            return self.own_this;
        }
        self.params.iter().any(|p| p == root)
    }
}

/// A call being followed: (file, line) of the call, and the function it calls.
pub(crate) type Followed = ((FileId, u32), String);

/// What ran on receivers only known at run time under one call being followed.
#[derive(Debug, Clone)]
pub(crate) struct UnknownUnder {
    /// The function the call calls.
    pub(crate) callee: String,
    /// The event calls (`emit`, `on`, …) that ran so: (file, line).
    pub(crate) lines: Vec<(FileId, u32)>,
}

/// The recorder (one per analysis, held by the interpreter).
#[derive(Debug, Default)]
pub(crate) struct CensusRec {
    /// Census call sites evaluated, by (file, line).
    pub(crate) sites: HashMap<(FileId, u32), SiteSeen>,
    /// Functions entered in the routing phase, by (file, function id).
    pub(crate) entered: HashSet<(FileId, u32)>,
    /// Functions handed to a package's function: (file, id) → the call and
    /// what the package gives the function.
    pub(crate) handed: HashMap<(FileId, u32), Handed>,
    /// Imports not loaded yet handed the same way: (module, export name) → the call.
    pub(crate) handed_names: HashMap<(FileId, String), (FileId, u32)>,
    /// Call sites that produced an event site (also when the site is
    /// attributed to a helper's caller).
    pub(crate) event_sources: HashSet<(FileId, u32)>,
    /// Calls of the program's own functions that were being followed when a
    /// registration was made, with the function called and the router it
    /// went on: ((file, line) of the call, the callee's name, router).
    /// `this.get('/x', h)` in a subclass calls its base class's helper,
    /// which registers on the controller's router; the call is charted when
    /// that router is walked. The name keeps a registration written on the
    /// same line as such a call (`init().then((app) => app.get('/c', h))`)
    /// from being taken for it.
    pub(crate) registered_through: HashSet<((FileId, u32), Rc<str>, u32)>,
    /// Functions entered while a route's middleware or handler ran with a
    /// request, or called there without being followed (code Express runs
    /// for each request, not at start-up).
    pub(crate) in_handlers: HashSet<(FileId, u32)>,
    /// Listeners added on a Socket.IO server or namespace for a name it
    /// never emits (`io.on('disconnect', …)`, `nsp.on('error', …)`: a server
    /// and a namespace emit `connection`/`connect`, and a server
    /// `new_namespace`; clients' events arrive on their sockets): (file, line).
    pub(crate) host_listens: HashSet<(FileId, u32)>,
    /// Calls of the program's functions being followed when `emit` or a
    /// listen method ran on a receiver only known at run time: (file, line)
    /// of the call → the function called and the lines of those event
    /// calls. A helper whose emit is charted for one caller
    /// (`sendRequest(known, 'publish')`) can still lose another's
    /// (`sendRequest(this.socket, 'getCaps')`).
    pub(crate) unknown_under: HashMap<(FileId, u32), UnknownUnder>,
    /// For each event call that made a site, (file, line): the calls being
    /// followed then, with the function each called.
    pub(crate) sited_in: HashMap<(FileId, u32), Vec<Followed>>,
}

fn classify(v: &Value) -> Recv {
    if let Some(rest) = crate::value::ObjData::rest_of(v) {
        return classify(&rest);
    }
    match v {
        Value::Router(id) | Value::Chain(id, _) => Recv::Router(*id),
        Value::Sio(_) => Recv::Socket,
        Value::Unknown(Unknown::External(_) | Unknown::Instance(_) | Unknown::Made(_))
        | Value::Builtin(_) => Recv::External,
        Value::Unknown(Unknown::Param) => Recv::Param,
        Value::Unknown(_) | Value::Deferred(_) | Value::Lazy(..) | Value::Undef | Value::Null => {
            Recv::Dynamic
        }
        _ => Recv::Other,
    }
}

impl Interp {
    /// Hook: a method call `o.name(...)` at `line` is about to run.
    pub(crate) fn census_call(&mut self, file: FileId, line: u32, name: &str, o: &Value) {
        if !crate::census::is_census_method(name) {
            return;
        }
        let recv = classify(o);
        // (`null` or `undefined` is no receiver: `io?.emit(…)` with `io`
        // null sends nothing.)
        if recv == Recv::Dynamic
            && !matches!(o, Value::Undef | Value::Null)
            && (name == "emit" || super::emitters::is_listen_method(name))
            && !self.modes.sio_quiet
        {
            for fr in &self.js.frames {
                let under = self
                    .rec
                    .census
                    .unknown_under
                    .entry((fr.file, fr.line))
                    .or_insert_with(|| UnknownUnder {
                        callee: fr.callee.clone(),
                        lines: Vec::new(),
                    });
                if !under.lines.contains(&(file, line)) {
                    under.lines.push((file, line));
                }
            }
        }
        let later = self.modes.event_mode;
        let dyn_loop = self.running.dyn_loops.last().map(|d| (d.file, d.line));
        let seen = self.rec.census.sites.entry((file, line)).or_default();
        let slot = if later {
            &mut seen.later
        } else {
            &mut seen.main
        };
        if !matches!(slot, Some(Recv::Router(_) | Recv::Socket)) {
            *slot = Some(recv);
        }
        if seen.dyn_loop.is_none() {
            seen.dyn_loop = dyn_loop;
        }
    }

    /// Hook: a function is entered.
    pub(crate) fn census_enter(&mut self, key: (FileId, u32)) {
        if !self.modes.event_mode {
            self.rec.census.entered.insert(key);
        } else if self.running.route_contract.is_some() {
            self.rec.census.in_handlers.insert(key);
        }
    }

    /// Hook: arguments handed to a function of a package, which is not followed.
    /// Functions directly among the arguments, or one level down in an array
    /// or object literal (`bootstrap({ loaders: [a, b] })`), count.
    pub(crate) fn census_handed(&mut self, file: FileId, line: u32, argv: &[Value]) {
        fn funcs(
            v: &Value,
            depth: u32,
            out: &mut Vec<Rc<Closure>>,
            names: &mut Vec<(FileId, String)>,
        ) {
            match v {
                Value::Func(c) => out.push(c.clone()),
                Value::Lazy(f, n) => names.push((*f, n.to_string())),
                Value::Arr(a) if depth < 2 => {
                    for x in a.borrow().iter() {
                        funcs(x, depth + 1, out, names);
                    }
                }
                Value::Obj(o) if depth < 2 => {
                    for (_, x) in o.entries() {
                        funcs(&x, depth + 1, out, names);
                    }
                }
                _ => {}
            }
        }
        let (mut found, mut names) = (Vec::new(), Vec::new());
        for a in argv {
            funcs(a, 0, &mut found, &mut names);
        }
        for c in found {
            self.rec
                .census
                .handed
                .entry((c.file, c.func.id))
                .or_insert_with(|| Handed {
                    at: (file, line),
                    // (Parameters `bind` fixed are not what the package passes.)
                    params: crate::syntax::bound_names(&Stmt::Var(
                        c.func
                            .params
                            .iter()
                            .skip(c.bound.as_ref().map_or(0, |b| b.len()))
                            .map(|p| (p.clone(), None))
                            .collect(),
                    )),
                    own_this: !c.is_arrow,
                });
        }
        for k in names {
            self.rec
                .census
                .handed_names
                .entry(k)
                .or_insert((file, line));
        }
    }
}
