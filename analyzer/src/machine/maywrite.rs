//! Writes that may or may not have happened to a key: a source only known at
//! run time copied over an object (`Object.assign({}, defaults, user)`,
//! `{ ...defaults, ...user }`, `_.merge({}, defaults, user)`), a write under
//! a key only known at run time (`for (const k of Object.keys(user)) o[k] =
//! user[k]`, or a merge of each key's object with the run-time one, `o[k] =
//! { ...o[k], ...user[k] }`), or an object with such keys copied over another. JavaScript may
//! have replaced any key the object had, so what a key holds afterwards is the
//! join of the two possibilities, never the value before taken as certain.
//!
//! Example: `const config = Object.assign({}, { hideSecrets: false, root: '/'
//! }, JSON.parse(text))` leaves `config.hideSecrets` unknown (so `if
//! (config.hideSecrets) app.get(…)` is charted, conditional) and `config.root`
//! the default `'/'` taken for `JSON.parse(text).root`, applying when that is
//! `undefined` (a route at it is charted under the default, conditional).
//!
//! What a key holds after such a write: a flag (`true`, `false`, `null`,
//! `undefined`) is unknown; a string is a default taken for the run-time value
//! (`Interp::assume`); a plain object of the program's is a copy whose keys
//! are treated the same way (the source may replace it whole, or a deep merge
//! its keys), and so is an instance that holds only data (`new RateLimits()`,
//! a configuration class's defaults; the copy keeps its class); anything else (a number, a function, an app, a list) is kept,
//! as `flow::join` keeps it.
//!
//! Also here: keys a source may lack, written on one way of a test only
//! known at run time (`if (env[v]) map[k] = env[v]`, `...(env.X ? { k } :
//! {})`): copied over a target that has the key, the target's value is the
//! default on the way the key is absent (`JsState::maybe_absent`).
//!
//! Deliberately not here: writes under a branch that may not run (`if
//! (env.X) config.debug = true`, `flow.rs`'s `join_writes`), and keys the
//! object lacks (they read unknown once its shape is open, see
//! `ObjData::shape_known`).

use super::*;

/// How many levels of nested plain objects a may-write reaches.
const MAX_DEPTH: u32 = 2;

impl Interp {
    /// `old`, which a value only known at run time may have replaced, unless
    /// `when` holds (`user.root === undefined`).
    pub(crate) fn maybe_overwritten(&mut self, old: &Value, when: &str, depth: u32) -> Value {
        match old {
            Value::Bool(_) | Value::Undef | Value::Null => Value::dynamic(),
            Value::Str(s) => {
                let mut all: Vec<String> =
                    self.assumptions(old).into_iter().map(|(_, c)| c).collect();
                all.push(when.to_string());
                let all = crate::conditions::conjunction(all.iter().map(String::as_str))
                    .unwrap_or_default();
                self.assume(&s.clone(), all)
            }
            Value::Obj(o) if depth < MAX_DEPTH && (plain(o) || data_instance(o)) => {
                let copy = ObjData::new();
                // (An instance's copy keeps its class and prototype, so its
                // methods still resolve.)
                copy.class.replace(o.class.borrow().clone());
                copy.proto.replace(o.proto.borrow().clone());
                let base = when.strip_suffix(" === undefined");
                for (k, v) in o.entries() {
                    let inner = match base {
                        Some(b) => format!("{b}.{k} === undefined"),
                        None => when.to_string(),
                    };
                    let v = self.maybe_overwritten(&v, &inner, depth + 1);
                    copy.set(&k, v);
                }
                copy.keyed_at_run_time.set(true);
                Value::Obj(copy)
            }
            v => v.clone(),
        }
    }

    /// `old`, over which `new` may have been written, unless `when` holds:
    /// a write under a key only known at run time.
    fn maybe_written(&mut self, old: &Value, new: &Value, when: &str) -> Value {
        let flag = |v: &Value| matches!(v, Value::Bool(_) | Value::Undef | Value::Null);
        // An object whose keys a value only known at run time may have set
        // (`{ ...defaults[k], ...user[k] }`) may hold anything under any key
        // the old value had: a merge of the old value with the run-time one.
        let open =
            matches!(new, Value::Obj(n) if n.unknown_rest.is_some() || n.keyed_at_run_time.get());
        // Each key of an old section keeps its value when the run-time key is
        // another, or when the run-time source merged in does not set it.
        if let (Value::Obj(n), Value::Obj(o)) = (new, old)
            && open
            && plain(o)
            && let Some(src) = n.merged_from.borrow().clone()
        {
            let copy = ObjData::new();
            for (k, v) in o.entries() {
                let cond = format!("({when} || {src}.{k} === undefined)");
                let v = self.maybe_overwritten(&v, &cond, 1);
                copy.set(&k, v);
            }
            copy.keyed_at_run_time.set(true);
            return Value::Obj(copy);
        }
        if new.is_unknown() || open {
            return self.maybe_overwritten(old, when, 0);
        }
        if super::flow::same(old, new) {
            return old.clone();
        }
        match (old, new) {
            (a, b) if flag(a) && flag(b) => Value::dynamic(),
            (Value::Str(_), Value::Str(_)) => self.maybe_overwritten(old, when, 0),
            _ => old.clone(),
        }
    }

    /// Every key of `target` may have been replaced by a source only known
    /// at run time (`source`, its text), except the keys `known` holds (the
    /// part of the source the analysis knows, written already).
    pub(crate) fn overwrite_keys_maybe(
        &mut self,
        target: &Rc<ObjData>,
        source: &str,
        known: Option<&Rc<ObjData>>,
    ) {
        target.keyed_at_run_time.set(true);
        target.shape_known.set(false);
        *target.merged_from.borrow_mut() = Some(source.into());
        for (k, old) in target.entries() {
            if known.is_some_and(|s| s.props.borrow().contains_key(&k)) {
                continue;
            }
            let v = self.maybe_overwritten(&old, &format!("{source}.{k} === undefined"), 0);
            target.set(&k, v);
        }
    }

    /// `o[k] = v` with `k` only known at run time (`key`, its text): `v` may
    /// have replaced any key `o` had.
    pub(crate) fn write_under_run_time_key(&mut self, target: &Rc<ObjData>, key: &str, v: &Value) {
        target.keyed_at_run_time.set(true);
        for (k, old) in target.entries() {
            let kept = self.maybe_written(&old, v, &format!("{key} !== '{k}'"));
            target.set(&k, kept);
        }
    }

    /// Notes that `obj` may lack `key` (see `JsState::maybe_absent`).
    pub(crate) fn note_maybe_absent(
        &mut self,
        obj: &Rc<ObjData>,
        key: &str,
        value: Value,
        present: String,
        absent: String,
    ) {
        let entry = self
            .js
            .maybe_absent
            .entry(Rc::as_ptr(obj) as usize)
            .or_insert_with(|| (obj.clone(), Vec::new()));
        if !Rc::ptr_eq(&entry.0, obj) {
            *entry = (obj.clone(), Vec::new());
        }
        entry.1.retain(|m| m.key != key);
        entry.1.push(state::MaybeAbsent {
            key: key.to_string(),
            value,
            present,
            absent,
        });
    }

    /// Notes that every key of `obj` (an object literal a test only known
    /// at run time may leave out whole) is there only when `present` holds.
    pub(crate) fn keys_maybe_absent(&mut self, obj: &Rc<ObjData>, present: &str, absent: &str) {
        for (k, v) in obj.entries() {
            self.note_maybe_absent(obj, &k, v, present.to_string(), absent.to_string());
        }
    }

    /// The keys `obj` may lack (see `JsState::maybe_absent`).
    fn maybe_absent_of(&self, obj: &Rc<ObjData>) -> Option<&[state::MaybeAbsent]> {
        self.js
            .maybe_absent
            .get(&(Rc::as_ptr(obj) as usize))
            .filter(|(o, _)| Rc::ptr_eq(o, obj))
            .map(|(_, keys)| keys.as_slice())
    }

    /// Whether `obj` may lack a key it has (see `JsState::maybe_absent`).
    pub(crate) fn may_lack_keys(&self, obj: &Rc<ObjData>) -> bool {
        self.maybe_absent_of(obj).is_some()
    }

    /// `v`, the value of `key` of `src`, copied onto `target` (`{ ...target,
    /// ...src }`, `Object.assign(target, src)`): what `target` holds there
    /// afterwards. When `src` may lack the key (written under a test only
    /// known at run time), `target` keeps its own value on that way: `{
    /// base: '', ...env }` with `if (process.env.X) env.base =
    /// process.env.X` is the default `''` taken for the run-time value, when
    /// `!(process.env.X)`, as `process.env.X || ''` is. A key `target` lacks
    /// is copied and may stay absent on `target` too.
    pub(crate) fn copied_key(
        &mut self,
        target: &Rc<ObjData>,
        src: &Rc<ObjData>,
        key: &str,
        v: Value,
    ) -> Value {
        let Some(m) = self
            .maybe_absent_of(src)
            .and_then(|keys| keys.iter().find(|m| m.key == key))
            .filter(|m| flow::same(&m.value, &v))
            .cloned()
        else {
            return v;
        };
        let old = target.props.borrow().get(key).cloned();
        match old {
            Some(old) if !matches!(old, Value::Undef) => {
                self.join_paths(&old, (v, m.present), (old.clone(), m.absent))
            }
            _ => {
                self.note_maybe_absent(target, key, v.clone(), m.present, m.absent);
                v
            }
        }
    }

    /// What copying `src` over `target` (`Object.assign`, a spread, a merge)
    /// leaves in the keys of `target` that `src` does not hold: `src` may hold
    /// any key when it is only known at run time (or a value the analysis
    /// does not see with keys written on it), or had keys written at run
    /// time. `text` is the source's expression.
    pub(crate) fn copied_over(&mut self, target: &Rc<ObjData>, src: &Value, text: &str) {
        match src {
            Value::Unknown(_) | Value::Deferred(_) | Value::Http(_) => {
                self.overwrite_keys_maybe(target, text, None)
            }
            Value::Obj(s) if s.unknown_rest.is_some() || s.keyed_at_run_time.get() => {
                self.overwrite_keys_maybe(target, text, Some(s))
            }
            _ => {}
        }
    }
}

/// An instance of a class of the program's that holds only data (flags,
/// strings, numbers, lists, objects: `new RateLimits()` with `enabled =
/// false`, a configuration class's defaults), with no accessor, module
/// object or unknown part: a source only known at run time may replace its
/// keys as it may a plain object's (a JSON file's or a database's values
/// merged over `new ConfigValue()`).
fn data_instance(o: &ObjData) -> bool {
    o.class.borrow().is_some()
        && o.unknown_rest.is_none()
        && !o.is_module_obj.get()
        && o.getters.borrow().is_empty()
        && o.props.borrow().values().all(|v| {
            matches!(
                v,
                Value::Undef
                    | Value::Null
                    | Value::Bool(_)
                    | Value::Num(_)
                    | Value::Str(_)
                    | Value::Arr(_)
                    | Value::Obj(_)
                    | Value::Unknown(_)
            )
        })
}

/// An object the program made with known keys (no instance, module object,
/// accessor or object standing for an unknown value): one a may-write can
/// copy with its keys joined.
fn plain(o: &ObjData) -> bool {
    o.class.borrow().is_none()
        && o.unknown_rest.is_none()
        && !o.is_module_obj.get()
        && o.getters.borrow().is_empty()
        && o.proto.borrow().is_none()
}
