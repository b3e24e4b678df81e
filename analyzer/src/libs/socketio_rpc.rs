//! Socket.IO remote calls by event name: a catch-all listener that looks
//! the name it receives up in an object table and calls what it finds.
//!
//! ```js
//! const Namespaces = { posts: require('./posts'), admin: require('./admin') };
//! socket.onAny((event, ...args) => onMessage(socket, { event, ...args }));
//! async function onMessage(socket, { event, params }) {
//!   const fn = event.split('.').reduce((o, k) => o && o[k], Namespaces);
//!   if (typeof fn === 'function') await fn(socket, params);
//! }
//! ```
//!
//! The listener (`onAny`, or `socket.use(([event, ...args], next) => …)`)
//! runs with an [`EventKey`] for the name. JavaScript decides which names
//! reach a function: `table[event]` selects the table's own function-valued
//! properties; `event.split(sep).reduce(cb, table)` walks the table's own
//! properties, running the program's `cb` on each (so its guards, such as an
//! own-property check, hold), and every path that ends on a function is a name
//! (`posts.upvote`). Calling the result (a [`Dispatch`]) charts each name as a
//! client-to-server listener on the listener's namespace, sited at the
//! function's definition; each function runs with the call's arguments after
//! start-up, in the event pass (`run_dispatched`).
//! The `catch-all-listener` finding stays only for a listener whose name no
//! table resolved.
//!
//! Deliberately not: tables walked with a loop over the parts
//! (`for (const p of parts) o = o[p]`), names filtered by tests outside the
//! lookup (`if (!event.startsWith('admin.'))`: every resolvable name is
//! charted), inherited properties (a prototype's `constructor` or
//! `toString` is not an event), functions' own properties. A walk deeper
//! than [`MAX_DEPTH`] or past [`MAX_NAMES`] names stops there with an
//! `analysis-budget` finding.

use crate::inventory::Direction;
use crate::libs::socketio::RawSite;
use crate::machine::*;
use crate::value::{Dispatch, EventKey};

/// How deep a dotted name may walk into a table (`admin.user.makeAdmins` is 3).
const MAX_DEPTH: usize = 6;
/// How many names one table may give.
const MAX_NAMES: usize = 2_000;

/// A catch-all listener still waiting to learn whether a table resolved its names.
pub(crate) struct CatchAll {
    pub(crate) key: Rc<EventKey>,
    pub(crate) file: FileId,
    pub(crate) line: u32,
    /// The callee as written (`socket.onAny`), when an unresolved name is a
    /// finding (a `socket.use` middleware is not one).
    pub(crate) text: Option<String>,
    /// The sites its dispatches charted whose function has finished running.
    pub(crate) done: Vec<usize>,
}

impl Interp {
    /// A catch-all listener on `socket` (`text` is the callee, for the
    /// finding, if it is one): the name it receives, and the acknowledgement callback it
    /// gets after the payload. Unless a table resolves the name by the end of
    /// the analysis, the listener is a `catch-all-listener` finding.
    pub(crate) fn catch_all(
        &mut self,
        socket: &Rc<crate::value::Sio>,
        file: FileId,
        line: u32,
        text: Option<String>,
    ) -> (Value, Value) {
        let index = self.libs.catch_alls.len() as u32;
        let key = Rc::new(EventKey {
            socket: socket.clone(),
            split: None,
            resolved: Rc::new(Cell::new(false)),
            catch_all: index,
        });
        self.libs.catch_alls.push(CatchAll {
            key: key.clone(),
            file,
            line,
            text,
            done: Vec::new(),
        });
        (
            Value::EventKey(key),
            Value::Builtin(Builtin::CatchAllAck(index)),
        )
    }

    /// The acknowledgement callback a catch-all listener received was called:
    /// called by the dispatcher after a dispatched function returned (`callback(null,
    /// await fn(socket, params))`), it acknowledges those functions' events.
    pub(crate) fn catch_all_acked(&mut self, index: u32) {
        if self.running.dispatching > 0 {
            return;
        }
        let Some(c) = self.libs.catch_alls.get(index as usize) else {
            return;
        };
        for &i in &c.done {
            if let Some(site) = self.rec.sites.get_mut(i) {
                site.ack = true;
            }
        }
    }

    /// The `catch-all-listener` findings of listeners no table resolved.
    pub(crate) fn settle_catch_alls(&mut self) {
        for c in std::mem::take(&mut self.libs.catch_alls) {
            if let Some(text) = c.text.filter(|_| !c.key.resolved.get()) {
                self.finding(
                    FindingCode::CatchAllListener,
                    c.file,
                    c.line,
                    format!("`{text}` receives every event; the events it handles are not listed"),
                );
            }
        }
    }

    /// A method of the received name: `split(sep)` gives its parts; the
    /// parts' `reduce(cb, table)` walks a table; anything else is unknown.
    pub(crate) fn event_key_method(
        &mut self,
        ctx: &Ctx,
        k: &Rc<EventKey>,
        name: &str,
        call: &Call,
    ) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        match (k.split.is_some(), name) {
            (false, "split") => match argv.first().map(|a| self.force_deep(a.clone())) {
                Some(Value::Str(sep)) => Value::EventKey(Rc::new(EventKey {
                    socket: k.socket.clone(),
                    split: Some(sep),
                    resolved: k.resolved.clone(),
                    catch_all: k.catch_all,
                })),
                _ => Value::dynamic(),
            },
            (false, "toString" | "valueOf" | "trim") => Value::EventKey(k.clone()),
            (true, "reduce") => {
                let cb = argv.first().cloned().unwrap_or(Value::Undef);
                match argv.get(1).map(|t| self.force(t.clone(), 0)) {
                    Some(Value::Obj(table)) if matches!(cb, Value::Func(_)) => {
                        self.walk_table(ctx, k, &cb, &table, call.line)
                    }
                    _ => Value::dynamic(),
                }
            }
            _ => {
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::dynamic()
            }
        }
    }

    /// `table[event]`: the table's own function-valued properties.
    pub(crate) fn event_key_index(&mut self, table: &Value, k: &Rc<EventKey>) -> Value {
        let Value::Obj(data) = self.force(table.clone(), 0) else {
            return Value::dynamic();
        };
        if k.split.is_some() {
            return Value::dynamic();
        }
        let mut entries = Vec::new();
        for (name, v) in data.entries() {
            if let f @ Value::Func(_) = self.force(v, 0) {
                entries.push((name, f));
            }
        }
        self.dispatch(k, entries)
    }

    /// `parts.reduce(cb, table)`: every own-property path of the table on
    /// which the program's `cb` ends at a function.
    fn walk_table(
        &mut self,
        ctx: &Ctx,
        k: &Rc<EventKey>,
        cb: &Value,
        table: &Rc<ObjData>,
        line: u32,
    ) -> Value {
        let sep = k.split.clone().unwrap_or_else(|| Rc::from("."));
        // The lookup decides which names exist: run it as it runs, with its
        // tests deciding (not as a socket handler's or uncalled code's state
        // flags, see `Stmt::If`).
        let saved = std::mem::replace(&mut self.running.socket_handlers, 0);
        let (mut entries, over) = self.with_mode(Mode::Events, false, |me| {
            let mut entries = Vec::new();
            // Each node with its path and the addresses of the tables above it.
            let mut todo: Vec<(Vec<String>, Rc<ObjData>, Vec<usize>)> =
                vec![(Vec::new(), table.clone(), vec![Rc::as_ptr(table) as usize])];
            let mut over = None;
            while let Some((path, node, ancestors)) = todo.pop() {
                let mut keys: Vec<String> = node.props.borrow().keys().cloned().collect();
                keys.extend(node.getters.borrow().iter().map(|(n, _)| n.clone()));
                let mut deeper = Vec::new();
                for key in keys {
                    let r = me.call_value_now(
                        ctx,
                        cb,
                        vec![
                            Value::Obj(node.clone()),
                            Value::str(&key),
                            Value::Num(path.len() as f64),
                        ],
                        &[],
                        line,
                        None,
                    );
                    let mut full = path.clone();
                    full.push(key);
                    match me.force(r, 0) {
                        f @ Value::Func(_) => entries.push((full.join(&sep), f)),
                        // A table that holds an ancestor (itself, a parent) adds no names.
                        Value::Obj(o) if ancestors.contains(&(Rc::as_ptr(&o) as usize)) => {}
                        Value::Obj(o) if full.len() < MAX_DEPTH => {
                            let mut up = ancestors.clone();
                            up.push(Rc::as_ptr(&o) as usize);
                            deeper.push((full, o, up));
                        }
                        Value::Obj(_) => over = Some(format!("deeper than {MAX_DEPTH} levels")),
                        _ => {}
                    }
                    if entries.len() >= MAX_NAMES {
                        over = Some(format!("more than {MAX_NAMES} names"));
                        todo.clear();
                        deeper.clear();
                        break;
                    }
                }
                // Depth first, in the table's order.
                todo.extend(deeper.into_iter().rev());
            }
            (entries, over)
        });
        self.running.socket_handlers = saved;
        if let Some(why) = over {
            self.finding(
                FindingCode::AnalysisBudget,
                ctx.file,
                line,
                format!(
                    "the event table looked up here has {why}; the names past that are not listed"
                ),
            );
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        self.dispatch(k, entries)
    }

    fn dispatch(&mut self, k: &Rc<EventKey>, entries: Vec<(String, Value)>) -> Value {
        if entries.is_empty() {
            return Value::dynamic();
        }
        k.resolved.set(true);
        Value::Dispatch(Rc::new(Dispatch {
            socket: k.socket.clone(),
            catch_all: k.catch_all,
            entries,
        }))
    }

    /// Calling what the name selected: each function is the listener of its
    /// event (sited at its definition), run with the call's arguments once.
    pub(crate) fn call_dispatch(
        &mut self,
        ctx: &Ctx,
        d: &Rc<Dispatch>,
        argv: Vec<Value>,
        line: u32,
        this: Option<Value>,
    ) -> Value {
        for (name, f) in &d.entries {
            let Value::Func(c) = f else {
                continue;
            };
            let key = (c.file, c.func.id, format!("{}\u{0}{}", d.socket.ns, name));
            if !self.deferred.dispatched.insert(key) {
                continue;
            }
            let mut site = None;
            if !self.modes.sio_quiet {
                // Sited at the function a wrapper passes the call on to.
                let c = &self.unwrapped(c);
                let (params, ack) = crate::libs::socketio_syntax::closure_listener_shape(c);
                // What the dispatcher hands over besides the payload (the
                // socket, a callback) is no part of it.
                let params = params
                    .into_iter()
                    .zip(argv.iter().map(Some).chain(std::iter::repeat(None)))
                    .filter(|(_, a)| {
                        !matches!(a, Some(Value::Sio(_) | Value::Func(_) | Value::Builtin(_)))
                    })
                    .map(|(p, _)| p)
                    .collect();
                self.rec.census.event_sources.insert((c.file, c.func.line));
                self.rec.sites.push(RawSite {
                    args: params,
                    ack,
                    assumed: d.socket.assumed.clone(),
                    ..RawSite::server(
                        name.clone(),
                        &d.socket.ns,
                        Direction::ClientToServer,
                        "on",
                        c.file,
                        c.func.line,
                        d.socket.server,
                    )
                });
                site = Some(self.rec.sites.len() - 1);
            }
            // The function runs when a client calls it, after start-up: queued
            // for the event pass (see `run_dispatched`).
            self.libs.dispatch_queue.push(Queued {
                func: f.clone(),
                argv: argv.clone(),
                this: this.clone(),
                file: ctx.file,
                line,
                site,
            });
            if let (Some(i), Some(c)) = (site, self.libs.catch_alls.get_mut(d.catch_all as usize)) {
                c.done.push(i);
            }
        }
        Value::dynamic()
    }

    /// Run the functions calls by event name selected, as the program runs
    /// them: after start-up, one call per name, looking for events (only calls
    /// that carry a socket or a name are followed, as for code nobody calls;
    /// a table of a hundred handlers would otherwise walk the whole program
    /// for each).
    pub(crate) fn run_dispatched(&mut self) {
        while !self.libs.dispatch_queue.is_empty() {
            for q in std::mem::take(&mut self.libs.dispatch_queue) {
                let ctx = Ctx {
                    file: q.file,
                    scope: Scope::new(Some(self.js.globals.clone())),
                    this: Value::Undef,
                    home: None,
                };
                let saved = std::mem::replace(&mut self.running.listener_site, q.site);
                self.running.socket_handlers += 1;
                self.running.dispatching += 1;
                self.with_mode(Mode::Events, true, |me| {
                    me.call_value_now(&ctx, &q.func, q.argv, &[], q.line, q.this)
                });
                self.running.dispatching -= 1;
                self.running.socket_handlers -= 1;
                self.running.listener_site = saved;
            }
        }
    }
}

impl Interp {
    /// The function `c` passes its own arguments on to, through any number
    /// (up to four) of wrappers, else `c` itself. A table's functions are
    /// often wrapped by a generic helper (`promisify`-style: `return
    /// function wrapper(...args) { … return orig(...args) }`); the listener
    /// a reader looks for is the function it wraps.
    fn unwrapped(&mut self, c: &Rc<Closure>) -> Rc<Closure> {
        let mut cur = c.clone();
        for _ in 0..4 {
            match self.forwards_to(&cur) {
                Some(next) if !Rc::ptr_eq(&next, &cur) => cur = next,
                _ => break,
            }
        }
        cur
    }

    /// The one function every call in `c`'s body (outside nested functions)
    /// that hands over `c`'s own arguments (`f(...args)` with `args` its rest
    /// parameter or `arguments`, `f.apply(this, arguments)`, `f.call(this,
    /// ...args)`) calls, found through `c`'s closure; None when there is no
    /// such call, or they call different or unknown functions.
    fn forwards_to(&mut self, c: &Rc<Closure>) -> Option<Rc<Closure>> {
        let rest = match (c.func.rest, c.func.params.last()) {
            (true, Some(Pattern::Ident(n))) => Some(n.as_str()),
            _ => None,
        };
        let mut callees = Vec::new();
        forwarding_calls(&c.func.body, rest, &mut callees);
        let mut target: Option<Rc<Closure>> = None;
        for callee in callees {
            let Expr::Ident(n) = callee else {
                return None;
            };
            let v = c.env.lookup(n)?;
            let Value::Func(f) = self.force(v, 0) else {
                return None;
            };
            match &target {
                Some(t) if t.file != f.file || t.func.id != f.func.id => return None,
                Some(_) => {}
                None => target = Some(f),
            }
        }
        target
    }
}

/// The callees of the calls in `body` (and its blocks, branches and `try`
/// parts, not nested functions) that pass on the enclosing function's own
/// arguments (see [`Interp::forwards_to`]).
fn forwarding_calls<'a>(body: &'a [Stmt], rest: Option<&str>, out: &mut Vec<&'a Expr>) {
    let own =
        |e: &Expr| matches!(e, Expr::Ident(n) if n == "arguments" || Some(n.as_str()) == rest);
    for s in body {
        match s {
            Stmt::Return(Some(e)) | Stmt::Expr(e) => {
                let e = match e {
                    Expr::Await(inner) => inner.as_ref(),
                    e => e,
                };
                let Expr::Call(call) = e else { continue };
                match (&call.callee, call.args.as_slice()) {
                    (callee, [Expr::Spread(a)]) if own(a) => out.push(callee),
                    (Expr::Member(f, m), [_, a]) if m == "apply" && own(a) => out.push(f),
                    (Expr::Member(f, m), [_, Expr::Spread(a)]) if m == "call" && own(a) => {
                        out.push(f)
                    }
                    _ => {}
                }
            }
            Stmt::If(_, _, then, other, _) => {
                forwarding_calls(then, rest, out);
                forwarding_calls(other, rest, out);
            }
            Stmt::Block(b) => forwarding_calls(b, rest, out),
            Stmt::Try(b, _, handler, finalizer) => {
                forwarding_calls(b, rest, out);
                forwarding_calls(handler, rest, out);
                forwarding_calls(finalizer, rest, out);
            }
            _ => {}
        }
    }
}

/// A function a call by event name selected, to run after start-up.
pub(crate) struct Queued {
    func: Value,
    argv: Vec<Value>,
    this: Option<Value>,
    /// Where the dispatcher called it.
    file: FileId,
    line: u32,
    /// Its site (the listener whose payload its arguments carry).
    site: Option<usize>,
}
