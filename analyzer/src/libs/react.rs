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
//! browser calls them on events. So a socket
//! handed down as a prop, through several levels or `{...this.props}`, is
//! the socket the parent passed.
//!
//! Effects (`useEffect(fn, deps)`, `useLayoutEffect`, `useInsertionEffect`)
//! run `fn` at once: React runs them after each render, with what the
//! render closed over (`socket.on('tasks', …)` in an effect of a component
//! given `socket`). (`useRef`, `useCallback` and `useMemo` are the machine's,
//! `machine/modules.rs`.)
//!
//! Deliberately not: when effects run again (dependencies, cleanup), context (`useContext`: unknown), higher-order components from packages
//! (`connect(…)(Game)`, `withRouter(Game)`: the tag is unknown, so only the
//! props' own expressions are evaluated), and Vue's props.

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

/// React's effect hooks: their callback runs after the render.
const EFFECT: &str = "react.effect";

/// The value of `import { name } from 'react'` this module gives (the
/// effect hooks).
pub(crate) fn hook(name: &str) -> Option<Value> {
    matches!(name, "useEffect" | "useLayoutEffect" | "useInsertionEffect")
        .then(|| Value::Builtin(Builtin::Framework(Rc::from(EFFECT))))
}

impl Interp {
    /// `useEffect(fn, deps)`: `fn` runs now (see the module doc).
    pub(crate) fn react_effect(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        if name != EFFECT {
            return None;
        }
        if let Some(f @ Value::Func(_)) = argv.first() {
            self.call_value_now(ctx, f, Vec::new(), &[], line, None);
        }
        Some(Value::Undef)
    }

    /// `<Tag {...props}>children</Tag>` (see the module doc): the element's
    /// value is not known.
    pub(crate) fn jsx_element(&mut self, ctx: &Ctx, call: &Call) -> Value {
        let mut argv = self.eval_args(ctx, &call.args);
        let children: Vec<Value> = argv.drain(2.min(argv.len())..).collect();
        let (tag, props) = match (argv.first(), argv.get(1)) {
            (Some(t), Some(p)) => (self.force(t.clone(), 0), p.clone()),
            _ => return Value::dynamic(),
        };
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
            // An intrinsic element: the browser calls its handlers.
            Value::Str(_) => {
                let handlers: Vec<Value> = match &props {
                    Value::Obj(o) => o
                        .props
                        .borrow()
                        .iter()
                        .filter(|(k, v)| {
                            k.len() > 2
                                && k.starts_with("on")
                                && k[2..].starts_with(|c: char| c.is_ascii_uppercase())
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
