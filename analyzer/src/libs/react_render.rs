//! Rendering React function components again when what they read changes:
//! `useState` pairs and context values given by a `Provider` rendered later.
//!
//! ```jsx
//! const SocketProvider = ({ children }) => {
//!   const [socket, setSocket] = useState(null);
//!   const connect = () => setSocket(io('/chat'));
//!   return <Ctx.Provider value={{ socket, connect }}>{children}</Ctx.Provider>;
//! };
//! const Chat = () => {
//!   const { socket, connect } = useContext(Ctx);
//!   useEffect(() => connect(), []);
//!   useEffect(() => { if (socket) socket.on('said', …) }, [socket]);
//! };
//! <SocketProvider><Chat /></SocketProvider>
//! ```
//!
//! Captures: a function component rendered at an element (or handed to a
//! package's component, `<Route component={Chat}>`) is an *instance*, keyed
//! by the component and the element's place. Its `useState(initial)` calls
//! are cells, by instance and order, as React keeps them: a render reads what
//! the cell holds, and calling the setter (with a value, or with a function
//! of the state) writes it, joined with what it held the way a variable
//! written on two paths is (`flow::join`: `setSocket(null)` after
//! `setSocket(socket)` keeps the socket). React renders the instance again
//! after such a write; so does this model, once the write brings a value
//! that can carry sites (a socket, a function, an object holding one) where
//! the cell had none. Elements are rendered where they are written, children
//! before the element holding them (see `libs/react.rs`), so a component that
//! reads a context outside every `Provider` of it (`<SocketProvider><Chat
//! /></SocketProvider>`: `Chat` renders before `SocketProvider`'s body gives
//! the value) is rendered again with the value each `Provider` of that
//! context gives later, when that value brings such values.
//!
//! A cell's first value is the initial one when it can carry sites (a
//! socket, an object, a function); any other (`null`, a flag, a string) is
//! only known at run time, as before this model, since a setter the analysis
//! does not see may change it: `if (loading) return <Spinner />` must not hide
//! the rest of the component. A setter called with such a value
//! (`setMode('create')`) leaves the cell as it was, for the same reason.
//!
//! Deliberately not: class components' `this.setState` (their methods all run
//! once per element already), `useReducer`, effects' dependency lists and
//! cleanup, a context given by several providers to one reader at once (each
//! gives its value in turn). Re-renders are bounded per instance and per
//! analysis.

use super::react::provided_value;
use crate::machine::*;
use std::collections::VecDeque;

/// How many times one instance renders again.
const MAX_RERENDERS: u32 = 3;
/// How many re-renders one analysis runs in all.
const MAX_TOTAL_RERENDERS: u32 = 400;

/// A component at one element: the component's (file, function id) and the
/// element's (file, line).
type InstanceKey = (FileId, u32, FileId, u32);

/// A function component rendered at one element.
struct Instance {
    component: Value,
    argv: Vec<Value>,
    /// Where the element is.
    ctx: Ctx,
    line: u32,
    /// The contexts provided around it when it last rendered, with their values.
    provided: Vec<(Rc<ObjData>, Value)>,
    /// Values given to it by a `Provider` rendered after it (see the module doc).
    adopted: Vec<(Rc<ObjData>, Value)>,
    /// The `useState` calls of the render running now.
    hooks: u32,
    rerenders: u32,
}

/// One `useState` pair's state.
struct StateCell {
    /// The instance that renders again when it changes (none outside a render).
    owner: Option<usize>,
    value: Value,
}

/// What rendering kept (held in `LibState`).
#[derive(Default)]
pub(crate) struct Rendered {
    /// (class, element's file, element's line): a class component rendered
    /// there once, since running every method again per evaluation of the
    /// same element finds nothing new.
    pub(super) classes: HashSet<(usize, FileId, u32)>,
    instances: Vec<Instance>,
    by_key: HashMap<InstanceKey, usize>,
    /// Instances rendering now, innermost last.
    stack: Vec<usize>,
    cells: Vec<StateCell>,
    /// (instance, order of the `useState` call) → cell.
    cell_of: HashMap<(usize, u32), u32>,
    /// Contexts a `Provider` gives a value to now, with that value.
    providing: Vec<(Rc<ObjData>, Value)>,
    /// Instances that read a context outside every `Provider` of it.
    orphans: Vec<(Rc<ObjData>, usize)>,
    /// Instances to render again, in order.
    pending: VecDeque<usize>,
    /// Elements being rendered now.
    depth: u32,
    draining: bool,
    total_rerenders: u32,
}

/// The names of a value's parts that can carry sites: itself (`""`) when it
/// is a socket, function or class; the keys of an object whose values are
/// (one level). A write or a provided value that adds to these renders again.
fn carriers(v: &Value) -> BTreeSet<String> {
    let carries = |v: &Value| {
        matches!(
            v,
            Value::Sio(_) | Value::Func(_) | Value::Class(_) | Value::Router(_)
        )
    };
    let mut out = BTreeSet::new();
    if carries(v) {
        out.insert(String::new());
    }
    if let Value::Obj(o) = v
        && o.class.borrow().is_none()
    {
        for (k, v) in o.props.borrow().iter() {
            if carries(v) {
                out.insert(k.clone());
            }
        }
    }
    out
}

/// Whether a state cell keeps `v` as what renders read (a value that can
/// carry sites, or an object of known shape); any other (`null`, a flag, a
/// string) is only known at run time there (see the module doc).
fn keeps(v: &Value) -> bool {
    !carriers(v).is_empty()
        || matches!(v, Value::Obj(o) if !says_nothing(v) && o.class.borrow().is_none())
}

/// Whether `new` brings a part that can carry sites which `old` lacks.
pub(super) fn brings_more(old: &Value, new: &Value) -> bool {
    !carriers(new).is_subset(&carriers(old))
}

impl Interp {
    /// The function component instance rendering now, if any.
    pub(super) fn rendering_instance(&self) -> Option<usize> {
        self.libs.react.stack.last().copied()
    }

    /// Render `instances` again (once no element is rendering) because a
    /// value they read from outside their state changed (`libs/swr.rs`).
    pub(super) fn render_again(&mut self, instances: &[usize]) {
        for &i in instances {
            if !self.libs.react.pending.contains(&i) {
                self.libs.react.pending.push_back(i);
            }
        }
        self.drain_rerenders();
    }

    /// Render the function component `f` with `argv` at the element on `line`
    /// of the running file, as an instance (see the module doc).
    pub(crate) fn render_function(&mut self, ctx: &Ctx, f: &Value, argv: Vec<Value>, line: u32) {
        let Value::Func(c) = f else {
            self.call_value_now(ctx, f, argv, &[], line, None);
            return;
        };
        let key = (c.file, c.func.id, ctx.file, line);
        let provided = self.libs.react.providing.clone();
        let r = &mut self.libs.react;
        let i = match r.by_key.get(&key) {
            Some(&i) => {
                let inst = &mut r.instances[i];
                inst.component = f.clone();
                inst.argv = argv;
                inst.ctx = ctx.clone();
                inst.provided = provided;
                i
            }
            None => {
                r.instances.push(Instance {
                    component: f.clone(),
                    argv,
                    ctx: ctx.clone(),
                    line,
                    provided,
                    adopted: Vec::new(),
                    hooks: 0,
                    rerenders: 0,
                });
                r.by_key.insert(key, r.instances.len() - 1);
                r.instances.len() - 1
            }
        };
        // An instance rendering inside itself (a recursive component) runs
        // as a plain call.
        if self.libs.react.stack.contains(&i) {
            let argv = self.libs.react.instances[i].argv.clone();
            self.call_value_now(ctx, f, argv, &[], line, None);
            return;
        }
        self.run_instance(i);
    }

    /// One render of instance `i`, with the context values it was given.
    fn run_instance(&mut self, i: usize) {
        let inst = &mut self.libs.react.instances[i];
        inst.hooks = 0;
        let (f, argv, ctx, line) = (
            inst.component.clone(),
            inst.argv.clone(),
            inst.ctx.clone(),
            inst.line,
        );
        let given: Vec<(Rc<ObjData>, Value)> =
            inst.provided.iter().chain(&inst.adopted).cloned().collect();
        let mut restore = Vec::new();
        for (c, v) in &given {
            restore.push((c.clone(), c.get("_currentValue").unwrap_or(Value::Undef)));
            c.set("_currentValue", v.clone());
        }
        let outer = self.libs.react.providing.len();
        self.libs.react.providing.extend(given);
        self.libs.react.stack.push(i);
        self.call_value_now(&ctx, &f, argv, &[], line, None);
        self.libs.react.stack.pop();
        self.libs.react.providing.truncate(outer);
        for (c, v) in restore.into_iter().rev() {
            c.set("_currentValue", v);
        }
    }

    /// An element starts rendering.
    pub(crate) fn react_enter(&mut self) {
        self.libs.react.depth += 1;
    }

    /// An element ends rendering: once the outermost one has, the instances
    /// whose state or context changed render again.
    pub(crate) fn react_leave(&mut self) {
        self.libs.react.depth -= 1;
        self.drain_rerenders();
    }

    /// A `Provider` of `c` starts giving `value` to the elements under it.
    pub(crate) fn react_provide(&mut self, c: &Rc<ObjData>, value: &Value) {
        self.libs.react.providing.push((c.clone(), value.clone()));
    }

    /// The `Provider` of `c` is done with its children: the instances that
    /// read `c` outside every `Provider` of it render again with `value`
    /// when it brings more than they were given.
    pub(crate) fn react_provided(&mut self, c: &Rc<ObjData>, value: &Value) {
        self.note_write(Some(value));
        let r = &mut self.libs.react;
        if let Some(at) = r.providing.iter().rposition(|(p, _)| Rc::ptr_eq(p, c)) {
            r.providing.remove(at);
        }
        let readers: Vec<usize> = r
            .orphans
            .iter()
            .filter(|(p, _)| Rc::ptr_eq(p, c))
            .map(|(_, i)| *i)
            .collect();
        for i in readers {
            let inst = &mut r.instances[i];
            let before = inst
                .adopted
                .iter()
                .find(|(p, _)| Rc::ptr_eq(p, c))
                .map_or(Value::Undef, |(_, v)| v.clone());
            if !brings_more(&before, value) {
                continue;
            }
            inst.adopted.retain(|(p, _)| !Rc::ptr_eq(p, c));
            inst.adopted.push((c.clone(), value.clone()));
            r.pending.push_back(i);
        }
    }

    /// `useContext(C)`: its value; a reader outside every `Provider` of `C`
    /// is noted (see the module doc).
    pub(crate) fn react_use_context(&mut self, c: &Rc<ObjData>) -> Value {
        let r = &mut self.libs.react;
        if let Some(&i) = r.stack.last()
            && !r.providing.iter().any(|(p, _)| Rc::ptr_eq(p, c))
            && !r.orphans.iter().any(|(p, j)| *j == i && Rc::ptr_eq(p, c))
        {
            r.orphans.push((c.clone(), i));
        }
        provided_value(c)
    }

    /// `useState(initial)` in the instance rendering now: `[state, setState]`.
    /// Outside a render, both are only known at run time, as before.
    pub(crate) fn react_use_state(
        &mut self,
        ctx: &Ctx,
        initial: Option<Value>,
        line: u32,
    ) -> Value {
        let Some(&i) = self.libs.react.stack.last() else {
            return Value::external();
        };
        let inst = &mut self.libs.react.instances[i];
        let order = inst.hooks;
        inst.hooks += 1;
        let n = match self.libs.react.cell_of.get(&(i, order)) {
            Some(&n) => n,
            None => {
                // `useState(() => io())`: the initializer runs on the first render.
                let initial = match initial.map(|v| self.force(v, 0)) {
                    Some(f @ Value::Func(_)) => {
                        self.call_value_now(ctx, &f, Vec::new(), &[], line, None)
                    }
                    Some(v) => v,
                    None => Value::Undef,
                };
                let value = if keeps(&initial) {
                    initial
                } else {
                    Value::dynamic()
                };
                let r = &mut self.libs.react;
                r.cells.push(StateCell {
                    owner: Some(i),
                    value,
                });
                let n = (r.cells.len() - 1) as u32;
                r.cell_of.insert((i, order), n);
                n
            }
        };
        let value = self.libs.react.cells[n as usize].value.clone();
        Value::array(vec![value, Value::Builtin(Builtin::SetState(n))])
    }

    /// `setState(value)` / `setState((state) => next)` (see the module doc).
    pub(crate) fn react_set_state(
        &mut self,
        ctx: &Ctx,
        n: u32,
        argv: &[Value],
        line: u32,
    ) -> Value {
        let Some(old) = self
            .libs
            .react
            .cells
            .get(n as usize)
            .map(|c| c.value.clone())
        else {
            return Value::Undef;
        };
        let next = match argv.first().map(|v| self.force(v.clone(), 0)) {
            Some(f @ Value::Func(_)) => {
                self.call_value_now(ctx, &f, vec![old.clone()], &[], line, None)
            }
            Some(v) => v,
            None => Value::Undef,
        };
        // A flag or a string written (`setMode('create')` from a click) is
        // one value among those the run cannot see, as the initial one is:
        // a render after it must not take one branch of `mode === 'create'
        // ? … : …` for the only one.
        if !keeps(&next) {
            return Value::Undef;
        }
        let joined = crate::machine::flow::join(&old, old.clone(), next);
        let more = brings_more(&old, &joined);
        // A socket kept in state is a write discarded calls must see (see
        // `Interp::note_write`).
        self.note_write(Some(&joined));
        let cell = &mut self.libs.react.cells[n as usize];
        cell.value = joined;
        if let (true, Some(owner)) = (more, cell.owner) {
            self.libs.react.pending.push_back(owner);
            self.drain_rerenders();
        }
        Value::Undef
    }

    /// Render again the instances waiting for it, once no element is
    /// rendering (React renders again after the render that changed state).
    fn drain_rerenders(&mut self) {
        if self.libs.react.depth > 0 || self.libs.react.draining {
            return;
        }
        self.libs.react.draining = true;
        while let Some(i) = self.libs.react.pending.pop_front() {
            let r = &mut self.libs.react;
            if r.total_rerenders >= MAX_TOTAL_RERENDERS {
                r.pending.clear();
                break;
            }
            let inst = &mut r.instances[i];
            if inst.rerenders >= MAX_RERENDERS {
                continue;
            }
            inst.rerenders += 1;
            r.total_rerenders += 1;
            self.run_instance(i);
        }
        self.libs.react.draining = false;
    }
}
