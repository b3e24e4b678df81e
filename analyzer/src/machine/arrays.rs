//! Arrays, `Map`s and `Set`s: their methods as JavaScript runs them (`push`,
//! `splice`, `unshift`, `pop`, `shift`, `slice` and `at` with indices below
//! zero counting from the end, `indexOf`/`includes` over known items, `findIndex` run
//! item by item, iteration, `get`/`set`/`has`), keeping what is known known: a
//! set holds each value once, a map each key once, and one built from entries
//! only known at run time (`new Set(ids)`) iterates as an unknown list, and
//! so does a list empty only by a default taken for a run-time value
//! (`(process.env.PLUGINS || '').split(',').filter(Boolean)`: the plug-ins
//! the variable names are registered when it is set).
//!
//! Deliberately not here: arrays' callbacks beyond what the methods call
//! (`call.rs` runs closures), typed arrays.

use super::*;

impl Interp {
    /// The texts of an array's items that are known strings (or numbers,
    /// booleans), in order; the others are left out.
    pub(crate) fn item_texts(&mut self, a: &Rc<RefCell<Vec<Value>>>) -> Vec<String> {
        let items = a.borrow().clone();
        items
            .into_iter()
            .filter_map(|v| self.force_deep(v).as_text())
            .collect()
    }

    /// `Set`/`Map` methods.
    pub(crate) fn coll_method(
        &mut self,
        ctx: &Ctx,
        c: &Rc<Coll>,
        name: &str,
        call: &Call,
    ) -> Value {
        let mut argv = self.eval_args(ctx, &call.args);
        // A key is compared by identity: an import's binding (a class, a
        // function) is read now, so `map.get(Users)` finds what another
        // module stored under `Users`.
        if let Some(k) = argv.first_mut()
            && matches!(k, Value::Lazy(..))
        {
            *k = self.force(std::mem::replace(k, Value::Undef), 0);
        }
        let arg = |i: usize| argv.get(i).cloned().unwrap_or(Value::Undef);
        match name {
            "add" | "set" => {
                self.note_write(argv.last());
                let entry = if c.map {
                    (arg(0), arg(1))
                } else {
                    (Value::Undef, arg(0))
                };
                insert_entry(&mut c.items.borrow_mut(), c.map, entry);
                Value::Coll(c.clone())
            }
            "get" => {
                let items = c.items.borrow();
                if let Some((_, v)) = items.iter().find(|(k2, _)| same_key(k2, &arg(0))) {
                    return v.clone();
                }
                let key = arg(0).as_text();
                // An unknown key: the entry that carries a socket or router, if any.
                let found = items
                    .iter()
                    .find(|(_, v)| v.is_tracked(0))
                    .map(|(_, v)| v.clone());
                drop(items);
                if found.is_none() && key.is_none() {
                    let table = match &call.callee {
                        Expr::Member(o, _) => expr_text(o),
                        e => expr_text(e),
                    };
                    self.map_lookup_by_run_time_name(c, &table, ctx.file, call.line);
                }
                found.unwrap_or(Value::dynamic())
            }
            // What these give is iterated as an unknown list when the
            // entries are only known at run time.
            "values" | "keys" | "entries" if c.entries_unknown => Value::dynamic(),
            "values" => Value::array(c.items.borrow().iter().map(|(_, v)| v.clone()).collect()),
            "keys" => Value::array(c.items.borrow().iter().map(|(k, _)| k.clone()).collect()),
            "entries" => Value::array(
                c.items
                    .borrow()
                    .iter()
                    .map(|(k, v)| Value::array(vec![k.clone(), v.clone()]))
                    .collect(),
            ),
            "forEach" => {
                let cb = arg(0);
                // Entries only known at run time: the callback runs once, with
                // unknown arguments, as a loop over an unknown list runs its body.
                let items: Vec<(Value, Value)> = if c.entries_unknown {
                    vec![(Value::dynamic(), Value::dynamic())]
                } else {
                    c.items.borrow().clone()
                };
                for (k, v) in items {
                    let k = if c.map { k } else { v.clone() };
                    self.call_value_now(ctx, &cb, vec![v, k], &[], call.line, None);
                }
                Value::Undef
            }
            "has" => Value::dynamic(),
            // After `delete` or `clear`, how many entries are left (`size`)
            // is no longer known, so a loop that empties the collection
            // (`while (pending.size) { …; pending.delete(k) }`) stops as over
            // an unknown test. The entries stay listed: the call may run on
            // a path only known at run time (a guard's branch), and readers
            // of what may be there still find it.
            "delete" | "clear" if !c.entries_unknown => {
                if !c.items.borrow().is_empty() {
                    c.lost.set(true);
                }
                if name == "clear" {
                    Value::Undef
                } else {
                    Value::dynamic()
                }
            }
            _ => Value::dynamic(),
        }
    }

    /// `list.forEach(cb)` (`map`, `filter`, …) over a list that is empty only
    /// by a default taken for a run-time value (`(process.env.PLUGINS ||
    /// '').split(',').filter(Boolean)`): the callback runs once with unknown
    /// items, inside a loop that says which default made it empty, as over a
    /// list only known at run time. `None` for a method that does not loop.
    pub(crate) fn iterate_empty_by_default(
        &mut self,
        ctx: &Ctx,
        a: &Rc<RefCell<Vec<Value>>>,
        name: &str,
        argv: &[Value],
        call: &Call,
        when: String,
    ) -> Option<Value> {
        if !matches!(
            name,
            "forEach" | "map" | "flatMap" | "filter" | "reduce" | "some" | "every" | "find"
        ) {
            return None;
        }
        let cb = argv.first().cloned().unwrap_or(Value::Undef);
        let mut dl = DynLoop::new(
            ctx.file,
            call.line,
            format!("{}.{name}(...)", expr_text(callee_object(&call.callee))),
        );
        dl.empty_when = Some(when.clone());
        self.running.dyn_loops.push(dl);
        self.running.cond.push(crate::conditions::negated(&when));
        let args = match name {
            "reduce" => vec![
                argv.get(1).cloned().unwrap_or(Value::Undef),
                Value::dynamic(),
                Value::dynamic(),
            ],
            _ => vec![Value::dynamic(), Value::dynamic(), Value::Arr(a.clone())],
        };
        self.call_value_now(ctx, &cb, args, &[], call.line, None);
        self.running.cond.pop();
        self.pop_dyn_loop();
        Some(match name {
            "forEach" => Value::Undef,
            // Still empty by the same default: a loop over it says so too.
            "map" | "flatMap" | "filter" => {
                let out = Rc::new(RefCell::new(Vec::new()));
                self.assume_list(&out, when);
                Value::Arr(out)
            }
            _ => Value::dynamic(),
        })
    }

    /// What an array method gives from a list made from a default taken for
    /// a run-time value (`split(',')` of `process.env.X || ''`) is made
    /// from it too (`filter(Boolean)`, `map(trim)`, `slice(1)`).
    pub(crate) fn list_derived(&mut self, out: Value, from: &Rc<RefCell<Vec<Value>>>) -> Value {
        if let Value::Arr(items) = &out
            && !Rc::ptr_eq(items, from)
            && let Some(when) = self.list_assumption(from)
        {
            self.assume_list(items, when);
        }
        out
    }

    pub(crate) fn array_method(
        &mut self,
        ctx: &Ctx,
        a: &Rc<RefCell<Vec<Value>>>,
        name: &str,
        argv: Vec<Value>,
        call: &Call,
    ) -> Value {
        // Growing an array does not copy it (a counted loop pushes once per index).
        match name {
            "push" | "unshift" => {
                let mut items = a.borrow_mut();
                let room = MAX_ITERATIONS.saturating_sub(items.len());
                let added = argv.into_iter().take(room);
                if name == "push" {
                    items.extend(added);
                } else {
                    // `unshift` puts its arguments first, in their order.
                    items.splice(0..0, added);
                }
                return Value::Num(items.len() as f64);
            }
            "splice" => return splice(a, &argv),
            // `pop`/`shift` take the item out, as `splice` does.
            "pop" | "shift" => {
                let mut items = a.borrow_mut();
                return match name {
                    "pop" => items.pop().unwrap_or(Value::Undef),
                    _ if items.is_empty() => Value::Undef,
                    _ => items.remove(0),
                };
            }
            "indexOf" | "lastIndexOf" | "includes" => {
                // What another module made (an import, a call not run yet) is
                // compared as what it gives. A value only known at run time
                // is found or not at run time: the items need no look (a
                // list of 20,000 names searched in every handler).
                let argv: Vec<Value> = argv.into_iter().map(|v| self.force_deep(v)).collect();
                if argv.first().is_some_and(|n| !primitive(n)) && !a.borrow().is_empty() {
                    return Value::dynamic();
                }
                let items: Vec<Value> = a.borrow().clone();
                let items: Vec<Value> = items.into_iter().map(|v| self.force_deep(v)).collect();
                return search(name, &items, &argv);
            }
            _ => {}
        }
        let items: Vec<Value> = a.borrow().clone();
        let cb = argv.first().cloned().unwrap_or(Value::Undef);
        let arr = Value::Arr(a.clone());
        match name {
            "forEach" | "map" | "flatMap" | "filter" | "some" | "every" | "find" => {
                let mut out = Vec::new();
                // `filter`: how many items certainly kept come first.
                let mut certain: Option<usize> = None;
                for (i, item) in items.iter().enumerate().take(MAX_ITERATIONS) {
                    let r = self.call_value_now(
                        ctx,
                        &cb,
                        vec![item.clone(), Value::Num(i as f64), arr.clone()],
                        &[],
                        call.line,
                        None,
                    );
                    match name {
                        "map" => out.push(r),
                        "flatMap" => match r {
                            Value::Arr(inner) => out.extend(inner.borrow().iter().cloned()),
                            r => out.push(r),
                        },
                        "filter" if r.truthy() != Some(false) => {
                            if r.truthy().is_none() && certain.is_none() {
                                certain = Some(out.len());
                            }
                            out.push(item.clone());
                        }
                        "find" if r.truthy() == Some(true) => return item.clone(),
                        _ => {}
                    }
                }
                match name {
                    "forEach" => Value::Undef,
                    "some" | "every" | "find" => Value::dynamic(),
                    "filter" if let Some(n) = certain => {
                        let a = Rc::new(RefCell::new(out));
                        let key = Rc::as_ptr(&a) as usize;
                        self.js.maybe_items.insert(key, (a.clone(), n));
                        Value::Arr(a)
                    }
                    _ => Value::array(out),
                }
            }
            "reduce" => {
                let mut acc = argv.get(1).cloned().unwrap_or(Value::Undef);
                for (i, item) in items.iter().enumerate().take(MAX_ITERATIONS) {
                    acc = self.call_value_now(
                        ctx,
                        &cb,
                        vec![acc, item.clone(), Value::Num(i as f64)],
                        &[],
                        call.line,
                        None,
                    );
                }
                acc
            }
            "concat" | "flat" => {
                let (mut out, parts) = if name == "concat" {
                    (items, argv)
                } else {
                    (Vec::new(), items)
                };
                let len = |v: &Value| match v {
                    Value::Arr(x) => x.borrow().len(),
                    _ => 1,
                };
                let grown = out.len() + parts.iter().map(len).sum::<usize>();
                if !self.charge(ctx.file, grown * budget::SLOT_BYTES) {
                    return Value::dynamic();
                }
                for v in parts {
                    match v {
                        Value::Arr(x) => out.extend(x.borrow().iter().cloned()),
                        v => out.push(v),
                    }
                }
                Value::array(out)
            }
            // A bound only known at run time (`rows.slice(0, limit)`): every
            // item may be in the copy, and it is still a list.
            "slice" => match slice_range(items.len(), &argv) {
                Some((from, to)) => Value::array(items[from..to].to_vec()),
                None => Value::array(items),
            },
            "at" => match argv.first().map(integer) {
                None => items.first().cloned().unwrap_or(Value::Undef),
                Some(Some(n)) => relative_index(n, items.len())
                    .and_then(|i| items.get(i).cloned())
                    .unwrap_or(Value::Undef),
                Some(None) => Value::dynamic(),
            },
            "sort" | "reverse" | "values" => Value::array(items),
            "join" => {
                // `join()` and `join(undefined)` separate with a comma; an
                // `undefined` or `null` item joins as the empty string
                // (`[settings.route, 'api'].join('/')` is `/api`).
                let sep = match argv.first() {
                    None | Some(Value::Undef) => Some(",".into()),
                    Some(v) => v.as_text(),
                };
                let joined = |v: &Value| match v {
                    Value::Undef | Value::Null => Some(String::new()),
                    v => v.as_text(),
                };
                let parts: Option<Vec<String>> = items.iter().map(joined).collect();
                match parts.zip(sep) {
                    Some((p, sep)) => {
                        let text = p.join(&sep);
                        if self.charge(ctx.file, text.len()) {
                            Value::str(&text)
                        } else {
                            Value::dynamic()
                        }
                    }
                    None => Value::dynamic(),
                }
            }
            "entries" => Value::array(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| Value::array(vec![Value::Num(i as f64), v]))
                    .collect(),
            ),
            "keys" => Value::array((0..items.len()).map(|i| Value::Num(i as f64)).collect()),
            "findIndex" => self.find_index(ctx, &arr, &cb, call.line),
            _ => Value::dynamic(),
        }
    }

    /// `findIndex(cb)`: the callback runs item by item until it answers truthy,
    /// as JavaScript runs it; the index is known while its answers are
    /// (`_.findIndex` over an array too).
    pub(crate) fn find_index(&mut self, ctx: &Ctx, arr: &Value, cb: &Value, line: u32) -> Value {
        let Value::Arr(a) = arr else {
            return Value::dynamic();
        };
        let items: Vec<Value> = a.borrow().clone();
        if items.len() > MAX_ITERATIONS {
            return Value::dynamic();
        }
        for (i, item) in items.into_iter().enumerate() {
            // The callback inspects the item: what another module made is
            // what it gives (`m.name` of a factory's middleware).
            let item = self.force_deep(item);
            let at = Value::Num(i as f64);
            let r = self.call_value_now(ctx, cb, vec![item, at, arr.clone()], &[], line, None);
            match self.force(r, 0).truthy() {
                Some(true) => return Value::Num(i as f64),
                Some(false) => {}
                None => return Value::dynamic(),
            }
        }
        Value::Num(-1.0)
    }
}

/// `a.splice(start, deleteCount, ...items)` with a known start (and count):
/// the items are removed and inserted in place and the removed ones given
/// back, as JavaScript does; with a start or count only known at run time the
/// array is left as it was.
fn splice(a: &Rc<RefCell<Vec<Value>>>, argv: &[Value]) -> Value {
    let mut items = a.borrow_mut();
    let len = items.len() as f64;
    let start = match argv.first().map(integer) {
        None => return Value::array(Vec::new()),
        Some(None) => return Value::dynamic(),
        Some(Some(n)) => relative_bound(n, items.len()),
    };
    let count = match argv.get(1).map(integer) {
        None => len - start,
        Some(None) => return Value::dynamic(),
        Some(Some(n)) => n.clamp(0.0, len - start),
    };
    let (start, count) = (start as usize, count as usize);
    let room = MAX_ITERATIONS.saturating_sub(items.len() - count);
    let inserted = argv.iter().skip(2).take(room).cloned();
    let removed: Vec<Value> = items.splice(start..start + count, inserted).collect();
    Value::array(removed)
}

/// `ToIntegerOrInfinity` of a known argument: `undefined` and NaN are 0,
/// fractions go toward 0; `None` for a value only known at run time.
pub(crate) fn integer(v: &Value) -> Option<f64> {
    match v {
        Value::Num(n) if n.is_nan() => Some(0.0),
        Value::Num(n) => Some(n.trunc()),
        Value::Undef | Value::Null => Some(0.0),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// A start or end of `slice`/`splice` as the spec reads it: below zero it
/// counts from the end (`-1` is the last item), then it is clamped to
/// `0..=len`.
pub(crate) fn relative_bound(n: f64, len: usize) -> f64 {
    let len = len as f64;
    if n < 0.0 {
        (len + n).max(0.0)
    } else {
        n.min(len)
    }
}

/// The item `at(n)` reads: below zero counts from the end; `None` outside.
pub(crate) fn relative_index(n: f64, len: usize) -> Option<usize> {
    let i = if n < 0.0 { len as f64 + n } else { n };
    (i >= 0.0 && i < len as f64).then_some(i as usize)
}

/// `slice(start, end)` over `len` items: the range it copies, with either
/// bound below zero counting from the end and an absent or `undefined` end
/// meaning the length (`f.split('.').slice(0, -1)` drops the extension);
/// `None` when a bound is only known at run time.
pub(crate) fn slice_range(len: usize, argv: &[Value]) -> Option<(usize, usize)> {
    let from = match argv.first() {
        None => 0.0,
        Some(v) => relative_bound(integer(v)?, len),
    };
    let to = match argv.get(1) {
        None | Some(Value::Undef) => len as f64,
        Some(v) => relative_bound(integer(v)?, len),
    };
    let (from, to) = (from as usize, to as usize);
    Some((from, to.max(from)))
}

/// `indexOf`/`lastIndexOf` (strict equality) and `includes` (SameValueZero)
/// when the items and the value searched for are known primitives; only known
/// at run time otherwise, or when a `fromIndex` is given.
fn search(name: &str, items: &[Value], argv: &[Value]) -> Value {
    if argv.len() > 1 {
        return Value::dynamic();
    }
    let needle = argv.first().cloned().unwrap_or(Value::Undef);
    let same = |item: &Value| -> Option<bool> {
        Some(match (item, &needle) {
            (Value::Num(x), Value::Num(y)) => {
                x == y || (name == "includes" && x.is_nan() && y.is_nan())
            }
            (Value::Str(x), Value::Str(y)) => x == y,
            (Value::Bool(x), Value::Bool(y)) => x == y,
            (Value::Undef, Value::Undef) | (Value::Null, Value::Null) => true,
            (x, y) if primitive(x) && primitive(y) => false,
            _ => return None,
        })
    };
    let mut order: Vec<usize> = (0..items.len()).collect();
    if name == "lastIndexOf" {
        order.reverse();
    }
    let mut found = None;
    for i in order {
        match same(&items[i]) {
            Some(true) => {
                found = Some(i);
                break;
            }
            Some(false) => {}
            None => return Value::dynamic(),
        }
    }
    match (name, found) {
        ("includes", f) => Value::Bool(f.is_some()),
        (_, Some(i)) => Value::Num(i as f64),
        (_, None) => Value::Num(-1.0),
    }
}

/// A value `===` compares by its content.
pub(crate) fn primitive(v: &Value) -> bool {
    matches!(
        v,
        Value::Undef | Value::Null | Value::Bool(_) | Value::Num(_) | Value::Str(_)
    )
}

/// Whether two `Map` keys are one key: the same object, class, function or
/// array, or equal known text.
/// `new Set(iterable)`, `new Map(entries)`: the entries the argument yields,
/// in order, each set value once and each map key with its last value.
/// An argument that is neither absent nor a list, set, map or string the
/// analysis knows (a parameter, a call's result), or a map entry that is no
/// known `[key, value]` pair, leaves the entries unknown.
pub(crate) fn new_coll(map: bool, init: Option<Value>) -> Value {
    let listed = match init {
        None | Some(Value::Undef | Value::Null) => Some(Vec::new()),
        Some(Value::Arr(a)) => Some(a.borrow().clone()),
        Some(Value::Coll(c)) => c.iterated(),
        Some(Value::Str(s)) if !map => {
            Some(s.chars().map(|c| Value::str(&c.to_string())).collect())
        }
        _ => None,
    };
    let mut items = Vec::new();
    let mut entries_unknown = listed.is_none();
    for it in listed.unwrap_or_default() {
        let entry = match (map, &it) {
            (false, _) => (Value::Undef, it.clone()),
            (true, Value::Arr(pair)) => {
                let pair = pair.borrow();
                (
                    pair.first().cloned().unwrap_or(Value::Undef),
                    pair.get(1).cloned().unwrap_or(Value::Undef),
                )
            }
            (true, _) => {
                entries_unknown = true;
                continue;
            }
        };
        insert_entry(&mut items, map, entry);
    }
    Value::Coll(Rc::new(Coll {
        map,
        items: RefCell::new(items),
        entries_unknown,
        lost: Cell::new(false),
    }))
}

/// `[...set]`: its values, or one unknown value when they are only known at
/// run time (as spreading any unknown list gives).
pub(crate) fn spread_coll(out: &mut Vec<Value>, c: &Coll) {
    match c.iterated() {
        Some(items) => out.extend(items),
        None => out.push(Value::dynamic()),
    }
}

/// `set.add(v)`, `map.set(k, v)`: a value a set already holds, or a key a
/// map already has, is not added again (a map's entry takes the new value).
/// Values only known at run time are never the same as another.
fn insert_entry(items: &mut Vec<(Value, Value)>, map: bool, entry: (Value, Value)) {
    let same = |(k, v): &(Value, Value)| {
        if map {
            same_key(k, &entry.0)
        } else {
            same_key(v, &entry.1)
        }
    };
    if let Some(slot) = items.iter_mut().find(|e| same(e)) {
        *slot = entry;
    } else if items.len() < Coll::LIMIT {
        items.push(entry);
    }
}

fn same_key(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Obj(x), Value::Obj(y)) => Rc::ptr_eq(x, y),
        (Value::Class(x), Value::Class(y)) => Rc::ptr_eq(x, y),
        (Value::Func(x), Value::Func(y)) => Rc::ptr_eq(x, y),
        (Value::Arr(x), Value::Arr(y)) => Rc::ptr_eq(x, y),
        _ => matches!((a.as_text(), b.as_text()), (Some(x), Some(y)) if x == y),
    }
}

/// The most elements a spread argument is expanded into (see
/// [`Interp::spread_args`]).
const MAX_SPREAD: usize = 32;

impl Interp {
    /// A call's arguments with each spread of a known array read in place
    /// (`app.get(...route)` with `route = ['/x', auth, handler]` is
    /// `app.get(route[0], route[1], route[2])`), for library calls that take
    /// their arguments as expressions (a route's path, its handlers' names).
    /// Only a spread of a plain read (a name, `this`, a property) is
    /// expanded, since its elements are read again; `None` when no spread was
    /// expanded.
    pub(crate) fn spread_args(&mut self, ctx: &Ctx, args: &[Expr]) -> Option<Vec<Expr>> {
        fn plain_read(e: &Expr) -> bool {
            match e {
                Expr::Ident(_) | Expr::This => true,
                Expr::Member(o, _) => plain_read(o),
                Expr::Index(o, k) => {
                    plain_read(o) && matches!(k.as_ref(), Expr::Str(_) | Expr::Num(_))
                }
                _ => false,
            }
        }
        let mut out = Vec::with_capacity(args.len());
        let mut expanded = false;
        for a in args {
            if let Expr::Spread(inner) = a
                && plain_read(inner)
            {
                let v = self.eval(ctx, inner);
                if let Value::Arr(items) = self.force_deep(v) {
                    let n = items.borrow().len();
                    if n <= MAX_SPREAD {
                        out.extend(
                            (0..n)
                                .map(|i| Expr::Index(inner.clone(), Box::new(Expr::Num(i as f64)))),
                        );
                        expanded = true;
                        continue;
                    }
                }
            }
            out.push(a.clone());
        }
        expanded.then_some(out)
    }
}
