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
//! browser calls them on events, and so are the functions a package's
//! component is given (`<Checkbox onChecked={…}>`, `<Route render={…}>`),
//! as a package's function may call its callbacks. So a socket
//! handed down as a prop, through several levels or `{...this.props}`, is
//! the socket the parent passed.
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
//! `<Consumer>{(socket) => …}</Consumer>` child.
//!
//! Deliberately not: when effects run again (dependencies, cleanup), a
//! class's `static contextType`, React 19's `<Context value>`, higher-order
//! components from packages (`connect(…)(Game)`, `withRouter(Game)`: the tag
//! is unknown, so only the functions among the props are called), and Vue's
//! props. Elements are rendered where they are written (children before the
//! element that holds them, except under a `Provider`), not when a parent's
//! output includes them.

use crate::ir::Call;
use crate::machine::*;

/// What rendering kept: the class components already rendered at an element.
#[derive(Default)]
pub(crate) struct Rendered {
    /// (class, element's file, element's line): rendered there once, since
    /// running every method again per evaluation of the same element finds
    /// nothing new.
    classes: HashSet<(usize, FileId, u32)>,
}

/// The `react` module object (`import React from 'react'`).
const MODULE: &str = "react";
/// React's effect hooks: their callback runs after the render.
const EFFECT: &str = "react.effect";
/// `createContext(default)`.
const CREATE_CONTEXT: &str = "react.createContext";
/// `useContext(Context)`.
const USE_CONTEXT: &str = "react.useContext";
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
pub(crate) fn export(name: &str) -> Value {
    match name {
        "useRef" => Value::Builtin(Builtin::UseRef),
        // `useCallback(fn)` is `fn`: helpers that emit are often wrapped in it.
        "useCallback" => Value::Builtin(Builtin::Identity),
        "useMemo" => Value::Builtin(Builtin::UseMemo),
        "useEffect" | "useLayoutEffect" | "useInsertionEffect" => framework(EFFECT),
        "createContext" => framework(CREATE_CONTEXT),
        "useContext" => framework(USE_CONTEXT),
        _ => Value::external(),
    }
}

/// `React.useEffect` and the other members of the module object.
pub(crate) fn framework_member(name: &str, prop: &str) -> Option<Value> {
    (name == MODULE).then(|| export(prop))
}

/// A context's `Provider` or `Consumer`: `{ $$typeof, _context }`.
fn context_part(kind: &str, context: &Rc<ObjData>) -> Value {
    let o = ObjData::new();
    o.set("$$typeof", Value::str(kind));
    o.set("_context", Value::Obj(context.clone()));
    Value::Obj(o)
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
            USE_CONTEXT => Some(match argv.first().map(|c| self.force(c.clone(), 0)) {
                Some(Value::Obj(c)) => c.get("_currentValue").unwrap_or_else(Value::dynamic),
                _ => Value::dynamic(),
            }),
            _ => None,
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
                c.set("_currentValue", value);
                (c, outer)
            });
        let children = self.eval_args(ctx, &call.args[2..]);
        if let Some((c, outer)) = provided {
            c.set("_currentValue", outer);
        }
        // A `Consumer` calls its child with the context's value.
        if let Some((kind, c)) = context_tag(&tag)
            && &*kind == CONSUMER
        {
            let value = c.get("_currentValue").unwrap_or(Value::Undef);
            for f in children.iter().filter(|f| matches!(f, Value::Func(_))) {
                self.call_value_now(ctx, f, vec![value.clone()], &[], call.line, None);
            }
            return Value::dynamic();
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
            Value::Func(_) => {
                self.call_value_now(ctx, &tag, vec![props], &[], call.line, None);
            }
            Value::Class(cv) => {
                let key = (Rc::as_ptr(cv) as usize, ctx.file, call.line);
                if !self.libs.react.classes.insert(key) {
                    return Value::dynamic();
                }
                let inst = self.construct(ctx, &tag, vec![props.clone()], &[], call.line);
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
            // An intrinsic element: the browser calls its handlers. A
            // package's component (`<Checkbox onChecked={…}>`, `<Route
            // render={…}>`): it may call any function it is given, as a
            // package's function may call its callbacks.
            Value::Str(_) | Value::Unknown(_) | Value::Builtin(_) => {
                let intrinsic = matches!(tag, Value::Str(_));
                let handlers: Vec<Value> = match &props {
                    Value::Obj(o) => o
                        .props
                        .borrow()
                        .iter()
                        .filter(|(k, v)| {
                            (!intrinsic
                                || k.len() > 2
                                    && k.starts_with("on")
                                    && k[2..].starts_with(|c: char| c.is_ascii_uppercase()))
                                && matches!(v, Value::Func(_))
                        })
                        .map(|(_, v)| v.clone())
                        .collect(),
                    _ => Vec::new(),
                };
                for h in handlers {
                    if let Value::Func(c) = &h {
                        let argv = self.placeholder_args(c);
                        self.call_value_now(ctx, &h, argv, &[], call.line, None);
                    }
                }
            }
            _ => {}
        }
        Value::dynamic()
    }
}
