//! Rendering a React component: what a JSX element does with its props.
//!
//! ```jsx
//! const socket = io();
//! export default () => <Game socket={socket} />;
//! class Game extends React.Component {
//!   componentDidMount() { this.props.socket.on('gameUpdate', …) }
//!   move(dir) { this.props.socket.emit('move', { dir }) }
//! }
//! ```
//!
//! Captures: a JSX element whose tag is a component (lowered to a call of
//! [`crate::ir::JSX_ELEMENT`], as the classic transform makes
//! `React.createElement(Game, props, …children)`) renders it with its props
//! (`children` among them when it has any), the way a call passes arguments:
//! a function component is called with them (`({ socket }) => …`,
//! `props.socket`); a class component is constructed with them, its `props`
//! set to them as React does, and every method run on that instance (React
//! calls `render` and the lifecycle methods; the others are the handlers the
//! rendered elements call: `onClick={() => this.move('up')}`); an
//! intrinsic element's handlers (`<button onClick={…}>`) are called, as the
//! browser calls them on events (the call a handler returns runs too:
//! `onClick={() => send(text)}`), and so are the functions a package's
//! component is given (`<Checkbox onChecked={…}>`, `<Route render={…}>`),
//! as a package's function may call its callbacks; the components it is
//! given (`<Route component={Page}>`, a class or a wrapped component) are
//! rendered with props only known at run time. So a socket
//! handed down as a prop, through several levels or `{...this.props}`, is
//! the socket the parent passed.
//!
//! Wrapped components: React's `memo(C)` and `forwardRef(render)` render `C`
//! (call `render`) with the element's props; react-redux's
//! `connect(mapState, mapDispatch)(C)` renders `C` with them and with the
//! props the store gives, only known at run time (`this.props.socket` is the
//! socket the parent passed, `this.props.user` unknown).
//! `lazy(() => import('./Game'))` renders the module's default export with
//! the element's props, as `memo` does (the module is loaded where `lazy`
//! is called).
//!
//! Effects (`useEffect(fn, deps)`, `useLayoutEffect`, `useInsertionEffect`)
//! run `fn` at once: React runs them after each render, with what the
//! render closed over (`socket.on('tasks', …)` in an effect of a component
//! given `socket`). (`useRef`, `useCallback` and `useMemo` give values the
//! machine knows itself.)
//!
//! Context: `createContext(default)` makes `{ Provider, Consumer }`; a
//! `<Provider value={socket}>` element gives its value to the elements under
//! it, which read it with `useContext(Context)` or as the argument of a
//! `<Consumer>{(socket) => …}</Consumer>` child. `useState` and the
//! renders that follow a change of state or of a context's value are
//! `libs/react_render.rs`.
//!
//! Deliberately not: effects' dependencies and cleanup, a
//! class's `static contextType`, React 19's `<Context value>`, other
//! higher-order components from packages (`withRouter(Game)`: the tag is
//! unknown, so only the functions and components among the props are
//! rendered), what `mapState` and `mapDispatch` return, and Vue's props. Elements are rendered where they are written (children before the
//! element that holds them, except under a `Provider`), not when a parent's
//! output includes them.

use crate::ir::Call;
use crate::machine::*;

pub(crate) use super::react_render::Rendered;

/// The `react` module object (`import React from 'react'`).
const MODULE: &str = "react";
const REDUX_MODULE: &str = "react-redux";
/// React's effect hooks: their callback runs after the render.
const EFFECT: &str = "react.effect";
/// `createContext(default)`.
const CREATE_CONTEXT: &str = "react.createContext";
/// `useContext(Context)`.
const USE_CONTEXT: &str = "react.useContext";
/// `useState(initial)` (see `libs/react_render.rs`).
const USE_STATE: &str = "react.useState";
/// `memo(Component)` and `forwardRef(render)`: element types that render
/// the component (the render function) they wrap, tagged with React's own
/// `$$typeof` values: `{ $$typeof, type }`, `{ $$typeof, render }`.
const MEMO: &str = "react.memo";
const FORWARD_REF: &str = "react.forward_ref";
/// `lazy(load)`: a component that renders the default export of the module
/// `load`'s promise resolves to (`lazy(() => import('./Game'))`).
const LAZY: &str = "react.lazy";
/// react-redux's `connect(mapState, mapDispatch)`, and the function it
/// returns, which wraps a component: `{ $$typeof, WrappedComponent }` (the
/// static react-redux gives a connected component).
const CONNECT: &str = "react-redux.connect";
const CONNECT_HOC: &str = "react-redux.hoc";
const CONNECTED: &str = "react-redux.connected";
/// What a context's `Provider` and `Consumer` are tagged with (React's own
/// `$$typeof` values): `{ $$typeof, _context }`.
const PROVIDER: &str = "react.provider";
const CONSUMER: &str = "react.context";

fn framework(name: &str) -> Value {
    Value::Builtin(Builtin::Framework(Rc::from(name)))
}

/// `import React from 'react'`: its members are [`export`]s.
pub(crate) fn module() -> Value {
    framework(MODULE)
}

/// `import { name } from 'react'` (also `React.name`).
fn export(name: &str) -> Value {
    match name {
        "useRef" => Value::Builtin(Builtin::UseRef),
        // `useCallback(fn)` is `fn`: helpers that emit are often wrapped in it.
        "useCallback" => Value::Builtin(Builtin::Identity),
        "useMemo" => Value::Builtin(Builtin::UseMemo),
        "useEffect" | "useLayoutEffect" | "useInsertionEffect" => framework(EFFECT),
        "createContext" => framework(CREATE_CONTEXT),
        "useContext" => framework(USE_CONTEXT),
        "useState" => framework(USE_STATE),
        "memo" => framework(MEMO),
        "forwardRef" => framework(FORWARD_REF),
        "lazy" => framework(LAZY),
        _ => Value::external(),
    }
}

/// react-redux's module object: its members are [`redux_export`]s.
pub(crate) fn redux_module() -> Value {
    framework(REDUX_MODULE)
}

/// `import { connect } from 'react-redux'`.
fn redux_export(name: &str) -> Value {
    match name {
        "connect" => framework(CONNECT),
        _ => Value::external(),
    }
}

/// An element type that wraps `inner` under `key`, tagged `kind`.
fn wrapper(kind: &str, key: &str, inner: Value) -> Value {
    let o = ObjData::new();
    o.set("$$typeof", Value::str(kind));
    o.set(key, inner);
    Value::Obj(o)
}

/// `React.useEffect` and the other members of the module object.
pub(crate) fn framework_member(name: &str, prop: &str) -> Option<Value> {
    match name {
        MODULE => Some(export(prop)),
        REDUX_MODULE => Some(redux_export(prop)),
        _ => None,
    }
}

/// A context's `Provider` or `Consumer`: `{ $$typeof, _context }`.
fn context_part(kind: &str, context: &Rc<ObjData>) -> Value {
    let o = ObjData::new();
    o.set("$$typeof", Value::str(kind));
    o.set("_context", Value::Obj(context.clone()));
    Value::Obj(o)
}

/// The value a context gives now: its default, or what the `Provider` around
/// gives.
pub(crate) fn provided_value(c: &Rc<ObjData>) -> Value {
    c.get("_currentValue").unwrap_or_else(Value::dynamic)
}

/// What a context's `Provider` or `Consumer` tag is: its kind and context.
fn context_tag(tag: &Value) -> Option<(Rc<str>, Rc<ObjData>)> {
    let Value::Obj(o) = tag else { return None };
    let (Some(Value::Str(kind)), Some(Value::Obj(c))) = (o.get("$$typeof"), o.get("_context"))
    else {
        return None;
    };
    Some((kind, c))
}

/// Whether `v` is an element type that wraps a component (`memo(C)`,
/// `forwardRef(render)`, `connect(…)(C)`).
fn is_element_type(v: &Value) -> bool {
    matches!(v, Value::Obj(o) if matches!(o.get("$$typeof"), Some(Value::Str(k))
            if matches!(&*k, MEMO | FORWARD_REF | CONNECTED)))
}

/// The component a wrapping element type renders, and its props: `memo(C)`
/// renders `C` with the element's props; `forwardRef(render)` calls `render`
/// with them (the `ref` is only known at run time); `connect(…)(C)` renders
/// `C` with them and with the props `mapState` and `mapDispatch` make from
/// the store, only known at run time (react-redux merges those over the
/// element's own, so a key the element does not give reads unknown).
fn unwrap_element_type(mut tag: Value, mut props: Value) -> (Value, Value) {
    // A few levels: `memo(connect(…)(C))`.
    for _ in 0..4 {
        let Value::Obj(o) = &tag else { break };
        let (Some(Value::Str(kind)), inner) = (
            o.get("$$typeof"),
            o.get("type")
                .or_else(|| o.get("render"))
                .or_else(|| o.get("WrappedComponent")),
        ) else {
            break;
        };
        let Some(inner) = inner else { break };
        match &*kind {
            MEMO | FORWARD_REF => {}
            CONNECTED => {
                let merged = ObjData::new();
                if let Value::Obj(own) = &props {
                    for (k, v) in own.props.borrow().iter() {
                        merged.set(k, v.clone());
                    }
                }
                merged.shape_known.set(false);
                props = Value::Obj(merged);
            }
            _ => break,
        }
        tag = inner;
    }
    (tag, props)
}

impl Interp {
    /// `useEffect(fn, deps)`: `fn` runs now (see the module doc);
    /// `createContext(default)`: a context whose value is `default` until a
    /// `Provider` gives another to the elements under it; `useContext(C)`:
    /// that value.
    pub(crate) fn react_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        match name {
            EFFECT => {
                if let Some(f @ Value::Func(_)) = argv.first() {
                    self.call_value_now(ctx, f, Vec::new(), &[], line, None);
                }
                Some(Value::Undef)
            }
            CREATE_CONTEXT => {
                let c = ObjData::new();
                c.set(
                    "_currentValue",
                    argv.first().cloned().unwrap_or(Value::Undef),
                );
                c.set("Provider", context_part(PROVIDER, &c));
                c.set("Consumer", context_part(CONSUMER, &c));
                Some(Value::Obj(c))
            }
            MEMO => Some(wrapper(MEMO, "type", argv.first().cloned()?)),
            FORWARD_REF => Some(wrapper(FORWARD_REF, "render", argv.first().cloned()?)),
            LAZY => Some(self.react_lazy(ctx, argv.first()?, line)),
            CONNECT => Some(framework(CONNECT_HOC)),
            CONNECT_HOC => Some(wrapper(
                CONNECTED,
                "WrappedComponent",
                argv.first().cloned()?,
            )),
            USE_CONTEXT => Some(match argv.first().map(|c| self.force(c.clone(), 0)) {
                Some(Value::Obj(c)) => self.react_use_context(&c),
                _ => Value::dynamic(),
            }),
            USE_STATE => Some(self.react_use_state(ctx, argv.first().cloned(), line)),
            _ => None,
        }
    }

    /// `lazy(load)`: React calls `load` when the element first renders and
    /// renders the `default` of the module it resolves to with the
    /// element's props, as `memo(C)` renders `C`. `load` is called here,
    /// where the component is made: `import()` of a project file gives its
    /// namespace. A default that is not a component (a package's, or only
    /// known at run time) leaves the element type unknown, as before.
    fn react_lazy(&mut self, ctx: &Ctx, load: &Value, line: u32) -> Value {
        if !matches!(load, Value::Func(_)) {
            return Value::external();
        }
        let ns = self.call_value_now(ctx, load, Vec::new(), &[], line, None);
        let ns = self.force(ns, 0);
        let component = self.member(&ns, "default");
        let component = self.force(component, 0);
        if matches!(component, Value::Func(_) | Value::Class(_)) || is_element_type(&component) {
            wrapper(MEMO, "type", component)
        } else {
            Value::external()
        }
    }

    /// `<Tag {...props}>children</Tag>` (see the module doc): the element's
    /// value is not known.
    pub(crate) fn jsx_element(&mut self, ctx: &Ctx, call: &Call) -> Value {
        let (Some(tag), Some(props)) = (call.args.first(), call.args.get(1)) else {
            return Value::dynamic();
        };
        let tag = self.eval(ctx, tag);
        let props = self.eval(ctx, props);
        // An element a program's start-up code writes (`root.render(<App
        // />)`) renders as a call from there does: a discarded call in the
        // component (`connectSocket();`) runs where React runs it, so the
        // module state it sets is what the lines after it read.
        let top = self.js.stack.is_empty();
        self.running.startup += u32::from(top);
        self.react_enter();
        self.render_element(ctx, call, tag, props);
        self.react_leave();
        self.running.startup -= u32::from(top);
        Value::dynamic()
    }

    fn render_element(&mut self, ctx: &Ctx, call: &Call, tag: Value, props: Value) {
        let (tag, props) = unwrap_element_type(tag, props);
        // A context's `Provider` gives its value to the elements under it
        // (rendered here, as its children are evaluated).
        let provided = context_tag(&tag)
            .filter(|(k, _)| &**k == PROVIDER)
            .map(|(_, c)| {
                let value = match &props {
                    Value::Obj(p) => p.get("value").unwrap_or(Value::Undef),
                    _ => Value::dynamic(),
                };
                let outer = c.get("_currentValue").unwrap_or(Value::Undef);
                c.set("_currentValue", value.clone());
                self.react_provide(&c, &value);
                (c, outer, value)
            });
        let children = self.eval_args(ctx, &call.args[2..]);
        if let Some((c, outer, value)) = provided {
            c.set("_currentValue", outer);
            self.react_provided(&c, &value);
        }
        // A `Consumer` calls its child with the context's value.
        if let Some((kind, c)) = context_tag(&tag)
            && &*kind == CONSUMER
        {
            let value = c.get("_currentValue").unwrap_or(Value::Undef);
            for f in children.iter().filter(|f| matches!(f, Value::Func(_))) {
                self.call_value_now(ctx, f, vec![value.clone()], &[], call.line, None);
            }
            return;
        }
        if let Value::Obj(o) = &props
            && !children.is_empty()
        {
            let kids = match children.as_slice() {
                [one] => one.clone(),
                _ => Value::array(children),
            };
            o.set("children", kids);
        }
        match &tag {
            Value::Func(_) => self.render_function(ctx, &tag, vec![props], call.line),
            Value::Class(_) => self.render_class(ctx, &tag, props, call.line),
            // An intrinsic element: the browser calls its handlers. A
            // package's component (`<Checkbox onChecked={…}>`, `<Route
            // render={…}>`): it may call any function it is given, as a
            // package's function may call its callbacks, and render any
            // component it is given (`<Route component={connect(…)(Page)}>`).
            Value::Str(_) | Value::Unknown(_) | Value::Builtin(_) => {
                let intrinsic = matches!(tag, Value::Str(_));
                let entries: Vec<(String, Value)> = match &props {
                    Value::Obj(o) => o.entries(),
                    _ => Vec::new(),
                };
                let mut given = Vec::new();
                for (k, v) in entries {
                    let v = match v {
                        Value::Deferred(_) | Value::Lazy(..) => self.force_deep(v),
                        v => v,
                    };
                    let take = if intrinsic {
                        k.len() > 2
                            && k.starts_with("on")
                            && k[2..].starts_with(|c: char| c.is_ascii_uppercase())
                            && matches!(v, Value::Func(_))
                    } else {
                        matches!(v, Value::Func(_) | Value::Class(_))
                            || k != "children" && is_element_type(&v)
                    };
                    if take {
                        given.push(v);
                    }
                }
                for h in given {
                    match &h {
                        Value::Func(c) => {
                            let argv = self.placeholder_args(c);
                            if intrinsic {
                                // The call a handler makes and returns
                                // (`onClick={() => send(x)}`) runs.
                                let r = self.call_value_now(ctx, &h, argv, &[], call.line, None);
                                if matches!(r, Value::Deferred(_)) {
                                    self.force_deep(r);
                                }
                            } else {
                                self.render_function(ctx, &h, argv, call.line);
                            }
                        }
                        _ => {
                            let (inner, props) = unwrap_element_type(h, Value::dynamic());
                            match inner {
                                Value::Class(_) => self.render_class(ctx, &inner, props, call.line),
                                Value::Func(ref c) => {
                                    let argv = match props {
                                        Value::Obj(_) => vec![props],
                                        _ => self.placeholder_args(c),
                                    };
                                    self.render_function(ctx, &inner, argv, call.line)
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// A class component at the element on `line`: constructed with its
    /// props, `props` set on the instance as React does, and every method run
    /// on that instance, once per element.
    fn render_class(&mut self, ctx: &Ctx, tag: &Value, props: Value, line: u32) {
        let Value::Class(cv) = tag else { return };
        let key = (Rc::as_ptr(cv) as usize, ctx.file, line);
        if !self.libs.react.classes.insert(key) {
            return;
        }
        let inst = self.construct(ctx, tag, vec![props.clone()], &[], line);
        if let Value::Obj(o) = &inst {
            o.set("props", props);
        }
        let methods: Vec<String> = cv
            .class
            .methods
            .iter()
            .map(|(n, _)| n.clone())
            .filter(|n| n != "constructor")
            .collect();
        for name in methods {
            if let Some(Value::Func(m)) = self.find_method(cv, &name, &inst) {
                let argv = self.placeholder_args(&m);
                self.invoke(&m, argv, Some(inst.clone()));
            }
        }
    }
}
