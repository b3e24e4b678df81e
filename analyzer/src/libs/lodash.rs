//! lodash and underscore: the helpers route and plug-in code builds on.
//!
//! Captures `forEach`/`each`/`map`/`filter`/`some`/`every`/`find` over arrays
//! and objects (the callback gets `(value, key, collection)`), `findIndex`
//! over arrays (known while the callback's answers are), `merge`,
//! `assign`/`extend`, their `…With` forms (the customizer is not a source),
//! `defaults`, `get` and `set` with dotted or array paths,
//! `pick` and `omit` (keys listed or in arrays), `keys`, `values`, `bind` (of `this`), `partial`, `curry`, `isArray`, `isFunction`,
//! the other type tests (`isString`, `isObject`, `isNil`, … as `typeof` decides them), `union`, `uniq`,
//! `concat`, `flatten`, `compact` and `includes` over known arrays,
//! `identity`, `memoize`/`once` (what they wrap), `defaultTo` (the default
//! for `null`, `undefined` and `NaN`; over a run-time value the value, or a
//! string default as an assumed one, like `??`), `castArray`, `head`/`first`,
//! `last`, `isEmpty`, and the case helpers that build names (`kebabCase`,
//! `snakeCase`, `camelCase`, `lowerCase`, `upperFirst`, `lowerFirst`,
//! `capitalize`, splitting words as lodash does), each also from its
//! per-method module (`lodash/merge`, `lodash-es/merge`, `lodash.merge`). Example:
//! `_.forEach(ROUTES, (handler, path) => app.get(path, handler))` charts each
//! entry of the table.
//!
//! Also `reduce` (lodash's `(collection, fn, acc)`), and Ramda's data-last
//! `forEach`, `map`, `filter`, `find`, `any`, `all` and `reduce(fn, acc,
//! list)` called with every argument (`R.reduce((acc, s) => acc.configure(s),
//! evtx, services)`).
//!
//! Deliberately not: `lodash/fp` (its argument order differs), Ramda's
//! curried calls and the rest of its functions (their callbacks run, the
//! value is only known at run time), chains
//! (`_(x).map(…).value()`), `partial`'s leading arguments (the function gets
//! only its call's arguments), iteration over collections only known at run
//! time or empty when analyzed (the callback runs once with unknown values,
//! inside a loop that is a `dynamic-loop` finding when it registers routes).

use crate::machine::{Ctx, DynLoop, Interp, MAX_ITERATIONS, primitive, typeof_name};
use crate::value::{Builtin, ObjData, Value};
use std::rc::Rc;

/// Ramda's module (`R`), whose functions take the data last.
pub(crate) const RAMDA: &str = "ramda";

/// `_.name`.
pub(crate) fn member(module: &str, prop: &str) -> Value {
    if module == RAMDA {
        return match prop {
            "default" => Value::Builtin(Builtin::Lodash(Rc::from(RAMDA))),
            p => Value::Builtin(Builtin::Lodash(Rc::from(format!("{RAMDA}.{p}")))),
        };
    }
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
    "curry",
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
    "defaultTo",
    "castArray",
    "head",
    "first",
    "last",
    "isEmpty",
    "kebabCase",
    "snakeCase",
    "camelCase",
    "lowerCase",
    "upperFirst",
    "lowerFirst",
    "capitalize",
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
        // Ramda's data-last forms (`R.forEach(fn, list)`, `R.reduce(fn, acc,
        // list)`), called with all their arguments (a curried call with
        // fewer gives a value only known at run time).
        if let Some(f) = name.strip_prefix(RAMDA).and_then(|n| n.strip_prefix('.')) {
            return match (f, argv.len()) {
                ("forEach" | "map" | "filter" | "find" | "any" | "all", 2) => {
                    let f = match f {
                        "any" => "some",
                        "all" => "every",
                        f => f,
                    };
                    self.lodash_iterate(ctx, f, arg(1), arg(0), line)
                }
                ("reduce", 3) => self.reduce(ctx, arg(2), arg(0), arg(1), line, false),
                ("identity", 1) | ("always", 1) => arg(0),
                // Those whose arguments come as lodash's do.
                (
                    "curry" | "once" | "isNil" | "isEmpty" | "head" | "last" | "keys" | "values",
                    _,
                ) => self.lodash_call(ctx, f, argv, args, line),
                _ => {
                    self.run_callbacks(ctx, &argv, args, line);
                    Value::dynamic()
                }
            };
        }
        match name {
            "reduce" => self.reduce(ctx, arg(0), arg(1), arg(2), line, true),
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
            "curry" => super::curry::curried(arg(0)),
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
            "defaultTo" => match arg(0) {
                Value::Undef | Value::Null => arg(1),
                Value::Num(n) if n.is_nan() => arg(1),
                v if v.is_unknown() => match arg(1) {
                    Value::Str(d) => {
                        let when = format!("{} == null", texts.first().map_or("", String::as_str));
                        self.assume(&d, when)
                    }
                    _ => v,
                },
                v => v,
            },
            "castArray" => match arg(0) {
                Value::Arr(a) => Value::Arr(a),
                _ if argv.is_empty() => Value::array(Vec::new()),
                v => Value::array(vec![v]),
            },
            "head" | "first" | "last" => match arg(0) {
                Value::Arr(a) => {
                    let items = a.borrow();
                    let item = if name == "last" {
                        items.last()
                    } else {
                        items.first()
                    };
                    item.cloned().unwrap_or(Value::Undef)
                }
                _ => Value::dynamic(),
            },
            "isEmpty" => match arg(0) {
                Value::Arr(a) => Value::Bool(a.borrow().is_empty()),
                Value::Str(s) => Value::Bool(s.is_empty()),
                Value::Undef | Value::Null | Value::Bool(_) | Value::Num(_) => Value::Bool(true),
                _ => Value::dynamic(),
            },
            "kebabCase" | "snakeCase" | "camelCase" | "lowerCase" | "upperFirst" | "lowerFirst"
            | "capitalize" => match arg(0).as_text() {
                Some(t) if !arg(0).is_unknown() => Value::str(&case_of(name, &t)),
                _ => Value::dynamic(),
            },
            _ => {
                self.run_callbacks(ctx, &argv, &[], line);
                Value::external()
            }
        }
    }

    /// `_.reduce(coll, fn, acc)` / `R.reduce(fn, acc, list)`: `fn(acc,
    /// item)` over the items in order (lodash also passes the key and the
    /// collection), each result the next `acc`. Over a collection only
    /// known at run time, `fn` runs once with unknown items, inside a loop
    /// that says so.
    fn reduce(
        &mut self,
        ctx: &Ctx,
        coll: Value,
        cb: Value,
        init: Value,
        line: u32,
        lodash: bool,
    ) -> Value {
        let items = match &coll {
            Value::Obj(_) if !lodash => None,
            _ if crate::machine::says_nothing(&coll) => None,
            _ => items_of(&coll),
        };
        let Some(items) = items else {
            self.running
                .dyn_loops
                .push(DynLoop::new(ctx.file, line, "reduce(...)".to_string()));
            self.call_value_now(ctx, &cb, vec![init, Value::dynamic()], &[], line, None);
            self.pop_dyn_loop();
            return Value::dynamic();
        };
        let mut acc = init;
        for (v, k) in items.into_iter().take(MAX_ITERATIONS) {
            let argv = if lodash {
                vec![acc, v, k, coll.clone()]
            } else {
                vec![acc, v]
            };
            acc = self.call_value_now(ctx, &cb, argv, &[], line, None);
        }
        acc
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
        let Some(items) = items_of(&coll) else {
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

/// The items of an array (with their indexes) or an object (with their
/// keys), as lodash iterates them; `None` for any other value.
fn items_of(coll: &Value) -> Option<Vec<(Value, Value)>> {
    match coll {
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

/// lodash's words of `s`: runs of letters split where lower case turns to
/// upper (`fooBar`), before the last capital of a run followed by lower case
/// (`HTMLParser`), and runs of digits; everything else separates.
fn words(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    // The last character of `cur`, when it holds one.
    let mut prev: Option<char> = None;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let next = chars.peek().copied();
            let split = (p.is_ascii_digit() != c.is_ascii_digit())
                || (p.is_lowercase() && c.is_uppercase())
                || (p.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase));
            if split {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
        prev = Some(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `_.name(s)` for the case helpers.
fn case_of(name: &str, s: &str) -> String {
    let upper_first = |w: &str| {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    };
    let lower_first = |w: &str| {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_lowercase().chain(c).collect::<String>())
            .unwrap_or_default()
    };
    let lower = |w: &String| w.to_lowercase();
    match name {
        "kebabCase" => words(s).iter().map(lower).collect::<Vec<_>>().join("-"),
        "snakeCase" => words(s).iter().map(lower).collect::<Vec<_>>().join("_"),
        "lowerCase" => words(s).iter().map(lower).collect::<Vec<_>>().join(" "),
        "camelCase" => words(s)
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i == 0 {
                    w.to_lowercase()
                } else {
                    upper_first(&w.to_lowercase())
                }
            })
            .collect(),
        "upperFirst" => upper_first(s),
        "lowerFirst" => lower_first(s),
        "capitalize" => upper_first(&s.to_lowercase()),
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod case_tests {
    use super::case_of;

    #[test]
    fn case_helpers_split_words_as_lodash_does() {
        assert_eq!(case_of("kebabCase", "fooBar"), "foo-bar");
        assert_eq!(case_of("kebabCase", "__FOO_BAR__"), "foo-bar");
        assert_eq!(case_of("kebabCase", "HTMLParser"), "html-parser");
        assert_eq!(case_of("kebabCase", "userV2Api"), "user-v-2-api");
        assert_eq!(case_of("snakeCase", "Foo Bar"), "foo_bar");
        assert_eq!(case_of("camelCase", "--foo-bar--"), "fooBar");
        assert_eq!(case_of("capitalize", "FRED"), "Fred");
        assert_eq!(case_of("upperFirst", "fred"), "Fred");
        assert_eq!(case_of("lowerFirst", "Fred"), "fred");
        assert_eq!(case_of("lowerCase", "fooBar"), "foo bar");
    }
}
