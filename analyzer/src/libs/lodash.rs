//! lodash and underscore: the helpers route and plug-in code builds on.
//!
//! Captures `forEach`/`each`/`map`/`filter`/`some`/`every`/`find` over arrays
//! and objects (the callback gets `(value, key, collection)`), `findIndex`
//! over arrays (known while the callback's answers are), `merge`,
//! `assign`/`extend`, their `…With` forms (the customizer is not a source),
//! `defaults`, `get` and `set` with dotted or array paths,
//! `pick` and `omit` (keys listed or in arrays), `keys`, `values`, `bind` (of `this`), `partial`, `isArray`, `isFunction`,
//! the other type tests (`isString`, `isObject`, `isNil`, … as `typeof` decides them), `union`, `uniq`,
//! `concat`, `flatten`, `compact` and `includes` over known arrays,
//! `identity`, `memoize`/`once` (what they wrap), each also from its
//! per-method module (`lodash/merge`, `lodash-es/merge`, `lodash.merge`). Example:
//! `_.forEach(ROUTES, (handler, path) => app.get(path, handler))` charts each
//! entry of the table.
//!
//! Deliberately not: `lodash/fp` (its argument order differs), chains
//! (`_(x).map(…).value()`), `partial`'s leading arguments (the function gets
//! only its call's arguments), iteration over collections only known at run
//! time or empty when analyzed (the callback runs once with unknown values,
//! inside a loop that is a `dynamic-loop` finding when it registers routes).

use crate::machine::{Ctx, DynLoop, Interp, MAX_ITERATIONS, primitive, typeof_name};
use crate::value::{Builtin, ObjData, Value};
use std::rc::Rc;

/// `_.name`.
pub(crate) fn member(module: &str, prop: &str) -> Value {
    if module.is_empty() && prop != "default" {
        Value::Builtin(Builtin::Lodash(Rc::from(prop)))
    } else {
        Value::Builtin(Builtin::Lodash(Rc::from(module)))
    }
}

/// The helpers [`Interp::lodash_call`] models, as lodash spells them.
const METHODS: &[&str] = &[
    "forEach",
    "each",
    "forOwn",
    "map",
    "filter",
    "some",
    "every",
    "find",
    "mapValues",
    "findIndex",
    "merge",
    "mergeWith",
    "assign",
    "assignWith",
    "extend",
    "extendWith",
    "assignIn",
    "assignInWith",
    "defaults",
    "defaultsDeep",
    "pick",
    "omit",
    "get",
    "set",
    "keys",
    "values",
    "bind",
    "partial",
    "memoize",
    "once",
    "identity",
    "throttle",
    "debounce",
    "isArray",
    "isFunction",
    "isString",
    "isNumber",
    "isBoolean",
    "isUndefined",
    "isNull",
    "isNil",
    "isObject",
    "isPlainObject",
    "isRegExp",
    "union",
    "uniq",
    "concat",
    "flatten",
    "compact",
    "includes",
];

/// The helper a per-method module gives: `require('lodash/merge')`,
/// `import merge from 'lodash-es/merge'` and the standalone package
/// `lodash.merge` (npm names are lower case: `lodash.defaultsdeep`) are
/// `_.merge` itself. `lodash/fp/…` is not (its argument order differs).
pub(crate) fn method_module(spec: &str) -> Option<Value> {
    let name = spec
        .strip_prefix("lodash/")
        .or_else(|| spec.strip_prefix("lodash-es/"))
        .or_else(|| spec.strip_prefix("lodash."))?;
    let name = name.strip_suffix(".js").unwrap_or(name);
    let name = METHODS.iter().find(|m| m.eq_ignore_ascii_case(name))?;
    Some(Value::Builtin(Builtin::Lodash(Rc::from(*name))))
}

/// A path for `get`/`set`: `'a.b[0]'` or `['a', 'b', 0]`.
fn path_of(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Arr(a) => a.borrow().iter().map(Value::as_text).collect(),
        v => v.as_text().map(|t| {
            t.replace('[', ".")
                .replace(']', "")
                .split('.')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        }),
    }
}

impl Interp {
    /// Call `_.name(argv)`.
    pub(crate) fn lodash_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: Vec<Value>,
        args: &[crate::ir::Expr],
        line: u32,
    ) -> Value {
        let argv: Vec<Value> = argv.into_iter().map(|a| self.force(a, 0)).collect();
        let texts: Vec<String> = (0..argv.len())
            .map(|i| {
                args.get(i)
                    .map(crate::machine::expr_text)
                    .unwrap_or_default()
            })
            .collect();
        let arg = |i: usize| argv.get(i).cloned().unwrap_or(Value::Undef);
        match name {
            "forEach" | "each" | "forOwn" | "map" | "filter" | "some" | "every" | "find"
            | "mapValues" => self.lodash_iterate(ctx, name, arg(0), arg(1), line),
            "findIndex" => self.find_index(ctx, &arg(0), &arg(1), line),
            "merge" | "mergeWith" | "assign" | "assignWith" | "extend" | "extendWith"
            | "assignIn" | "assignInWith" | "defaults" | "defaultsDeep" => {
                let Value::Obj(target) = arg(0) else {
                    return arg(0);
                };
                // `_.mergeWith(o, src, customizer)`: the customizer is no
                // source. (What it returns is not modelled: each key is
                // merged as `merge` would, or kept when a source is unknown.)
                let sources = match argv.last() {
                    Some(Value::Func(_)) if name.ends_with("With") && argv.len() > 2 => {
                        argv.len() - 1
                    }
                    _ => argv.len(),
                };
                let deep = matches!(name, "merge" | "mergeWith" | "defaultsDeep");
                let only_missing = name.starts_with("defaults");
                // A source only known at run time may set any key: over the
                // keys so far (`_.merge({}, defaults, user)`), or before the
                // keys later sources fill in (`_.defaults({}, user, defaults)`).
                let mut unknown_before = None;
                for (src, text) in argv[..sources].iter().zip(&texts).skip(1) {
                    match src {
                        Value::Obj(s) => {
                            let had: Vec<String> = target.props.borrow().keys().cloned().collect();
                            merge_into(&target, s, deep, only_missing, 0);
                            if !s.shape_known.get() {
                                target.shape_known.set(false);
                            }
                            if let (true, Some(before)) = (only_missing, &unknown_before) {
                                for (k, v) in target.entries() {
                                    if !had.contains(&k) {
                                        let when = format!("{before}.{k} === undefined");
                                        let v = self.maybe_overwritten(&v, &when, 0);
                                        target.set(&k, v);
                                    }
                                }
                            }
                        }
                        Value::Undef | Value::Null => {}
                        _ => target.shape_known.set(false),
                    }
                    if only_missing {
                        if matches!(src, Value::Unknown(_) | Value::Deferred(_)) {
                            unknown_before.get_or_insert_with(|| text.clone());
                        }
                    } else {
                        self.copied_over(&target, src, text);
                    }
                }
                Value::Obj(target)
            }
            // `_.pick(o, ['a', 'b'])`, `_.pick(o, 'a', 'b')`, and `omit`:
            // a new object with those own keys (or without them).
            "pick" | "omit" => {
                let Value::Obj(src) = arg(0) else {
                    return Value::dynamic();
                };
                let mut keys: Vec<String> = Vec::new();
                for a in argv.iter().skip(1) {
                    let listed = match a {
                        Value::Arr(items) => items.borrow().iter().map(Value::as_text).collect(),
                        a => a.as_text().map(|k| vec![k]),
                    };
                    let Some(listed) = listed else {
                        // Keys only known at run time.
                        return Value::dynamic();
                    };
                    keys.extend(listed);
                }
                let out = ObjData::new();
                for (k, v) in src.entries() {
                    if keys.contains(&k) == (name == "pick") {
                        out.set(&k, v);
                    }
                }
                Value::Obj(out)
            }
            "get" => {
                let Some(path) = path_of(&arg(1)) else {
                    return Value::dynamic();
                };
                let mut cur = arg(0);
                for k in &path {
                    cur = match cur {
                        Value::Undef | Value::Null => break,
                        v => self.member(&v, k),
                    };
                }
                match cur {
                    Value::Undef if argv.len() > 2 => arg(2),
                    v => v,
                }
            }
            "set" => {
                let (Value::Obj(root), Some(path)) = (arg(0), path_of(&arg(1))) else {
                    return arg(0);
                };
                let mut cur = root.clone();
                for (i, k) in path.iter().enumerate() {
                    if i + 1 == path.len() {
                        cur.set(k, arg(2));
                        break;
                    }
                    cur = match cur.get(k) {
                        Some(Value::Obj(o)) => o,
                        _ => {
                            let o = ObjData::new();
                            cur.set(k, Value::Obj(o.clone()));
                            o
                        }
                    };
                }
                Value::Obj(root)
            }
            "keys" | "values" => match arg(0) {
                Value::Obj(o) => Value::array(if name == "keys" {
                    o.props.borrow().keys().map(|k| Value::str(k)).collect()
                } else {
                    o.props.borrow().values().cloned().collect()
                }),
                Value::Arr(a) if name == "values" => Value::array(a.borrow().clone()),
                _ => Value::dynamic(),
            },
            "bind" => match arg(0) {
                Value::Func(f) => {
                    let args = argv.iter().skip(2).cloned().collect();
                    self.bind_args(&f, argv.get(1).cloned(), args)
                }
                v => v,
            },
            "partial" => match arg(0) {
                Value::Func(f) => {
                    let args = argv.iter().skip(1).cloned().collect();
                    self.bind_args(&f, None, args)
                }
                v => v,
            },
            "memoize" | "once" | "identity" | "throttle" | "debounce" => arg(0),
            "isArray" => match arg(0) {
                Value::Arr(_) => Value::Bool(true),
                v if v.is_unknown() => Value::dynamic(),
                _ => Value::Bool(false),
            },
            "isFunction" => match arg(0) {
                Value::Func(_) | Value::Class(_) | Value::Router(_) => Value::Bool(true),
                v if v.is_unknown() => Value::dynamic(),
                _ => Value::Bool(false),
            },
            // The type tests, as `typeof` decides them (unknown when it does not).
            "isString" | "isNumber" | "isBoolean" | "isUndefined" | "isNull" | "isNil"
            | "isObject" | "isPlainObject" | "isRegExp" => {
                let v = arg(0);
                let Some(kind) = typeof_name(&v) else {
                    return Value::dynamic();
                };
                Value::Bool(match name {
                    "isString" => kind == "string",
                    "isNumber" => kind == "number",
                    "isBoolean" => kind == "boolean",
                    "isUndefined" => kind == "undefined",
                    "isNull" => matches!(v, Value::Null),
                    "isNil" => matches!(v, Value::Null | Value::Undef),
                    "isObject" => {
                        kind == "function" || (kind == "object" && !matches!(v, Value::Null))
                    }
                    "isPlainObject" => matches!(v, Value::Obj(_)),
                    _ => matches!(v, Value::Regex(_)),
                })
            }
            // Arrays built from arrays: known when every part is.
            "union" | "uniq" | "concat" | "flatten" | "compact" => {
                let mut items = Vec::new();
                let parts = if name == "uniq" || name == "flatten" || name == "compact" {
                    &argv[..argv.len().min(1)]
                } else {
                    &argv[..]
                };
                for (i, part) in parts.iter().enumerate() {
                    match part {
                        Value::Arr(a) => {
                            for item in a.borrow().iter() {
                                match (name, item) {
                                    ("flatten", Value::Arr(inner)) => {
                                        items.extend(inner.borrow().iter().cloned())
                                    }
                                    _ => items.push(item.clone()),
                                }
                            }
                        }
                        // `_.concat(array, 1, 2)` adds values as they are.
                        v if name == "concat" && i > 0 && !v.is_unknown() => items.push(v.clone()),
                        _ => return Value::dynamic(),
                    }
                }
                if name == "compact" {
                    if items.iter().any(|v| v.truthy().is_none()) {
                        return Value::dynamic();
                    }
                    items.retain(|v| v.truthy() == Some(true));
                }
                if matches!(name, "union" | "uniq") {
                    let mut kept: Vec<Value> = Vec::new();
                    for v in items {
                        if !kept.iter().any(|k| same_value_zero(k, &v)) {
                            kept.push(v);
                        }
                    }
                    items = kept;
                }
                Value::array(items)
            }
            "includes" => match (arg(0), arg(1)) {
                (Value::Arr(a), needle) if !needle.is_unknown() => {
                    let items = a.borrow();
                    if items.iter().any(|v| same_value_zero(v, &needle)) {
                        Value::Bool(true)
                    } else if items.iter().all(primitive) && primitive(&needle) {
                        Value::Bool(false)
                    } else {
                        Value::dynamic()
                    }
                }
                (Value::Str(s), Value::Str(n)) => Value::Bool(s.contains(&*n)),
                _ => Value::dynamic(),
            },
            _ => {
                self.run_callbacks(ctx, &argv, &[], line);
                Value::external()
            }
        }
    }

    fn lodash_iterate(
        &mut self,
        ctx: &Ctx,
        name: &str,
        coll: Value,
        cb: Value,
        line: u32,
    ) -> Value {
        // An empty collection is often a starting state that fills up at run
        // time (`client.attachedClients = {}`): it says nothing about what the
        // callback sees, so it runs as over an unknown collection.
        let coll = if crate::machine::says_nothing(&coll) {
            Value::dynamic()
        } else {
            coll
        };
        let items: Option<Vec<(Value, Value)>> = match &coll {
            Value::Arr(a) => Some(
                a.borrow()
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (v.clone(), Value::Num(i as f64)))
                    .collect(),
            ),
            Value::Obj(o) => Some(
                o.props
                    .borrow()
                    .iter()
                    .map(|(k, v)| (v.clone(), Value::str(k)))
                    .collect(),
            ),
            _ => None,
        };
        let Some(items) = items else {
            // Only known at run time: the callback once, inside a loop that says so.
            self.running
                .dyn_loops
                .push(DynLoop::new(ctx.file, line, format!("_.{name}(...)")));
            self.call_value_now(
                ctx,
                &cb,
                vec![Value::dynamic(), Value::dynamic()],
                &[],
                line,
                None,
            );
            self.pop_dyn_loop();
            return Value::dynamic();
        };
        let mut out = Vec::new();
        let mapped = ObjData::new();
        for (v, k) in items.into_iter().take(MAX_ITERATIONS) {
            let r = self.call_value_now(
                ctx,
                &cb,
                vec![v.clone(), k.clone(), coll.clone()],
                &[],
                line,
                None,
            );
            match name {
                "map" => out.push(r),
                "mapValues" => {
                    if let Some(k) = k.as_text() {
                        mapped.set(&k, r);
                    }
                }
                "filter" if r.truthy() != Some(false) => out.push(v),
                "find" if r.truthy() == Some(true) => return v,
                // `return false` ends lodash's `forEach` early.
                "forEach" | "each" | "forOwn"
                    if r.truthy() == Some(false) && matches!(r, Value::Bool(_)) =>
                {
                    break;
                }
                _ => {}
            }
        }
        match name {
            "map" | "filter" => Value::array(out),
            "mapValues" => Value::Obj(mapped),
            "forEach" | "each" | "forOwn" => coll,
            _ => Value::dynamic(),
        }
    }
}

/// lodash's SameValueZero for values known enough to tell: equal primitives,
/// or the same object.
fn same_value_zero(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Num(x), Value::Num(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Undef, Value::Undef) | (Value::Null, Value::Null) => true,
        (Value::Arr(x), Value::Arr(y)) => Rc::ptr_eq(x, y),
        (Value::Obj(x), Value::Obj(y)) => Rc::ptr_eq(x, y),
        (Value::Func(x), Value::Func(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

fn merge_into(target: &Rc<ObjData>, src: &Rc<ObjData>, deep: bool, only_missing: bool, depth: u32) {
    for (k, v) in src.entries() {
        match (target.get(&k), &v) {
            (Some(Value::Obj(t)), Value::Obj(s)) if deep && depth < 16 && !Rc::ptr_eq(&t, s) => {
                merge_into(&t, s, deep, only_missing, depth + 1);
            }
            (Some(cur), _) if only_missing && !matches!(cur, Value::Undef) => {}
            _ => target.set(&k, v),
        }
    }
}
