//! nconf: hierarchical configuration, a process-wide store the program
//! fills at start-up and reads anywhere, often for the path a router is
//! mounted at.
//!
//! ```js
//! const nconf = require('nconf')
//! nconf.argv().env().file({ file: 'config.json' })
//! nconf.defaults({ server: { baseurl: '/' } })
//! app.use(nconf.get('server:baseurl'), router)
//! ```
//!
//! Captures: the module's store. `get(key)` (keys separated by `:`) looks
//! in what `overrides(obj)` gave, then what `set(key, value)` wrote (the
//! key itself, or a key above it whose value holds it), then what
//! `defaults(obj)` gave; `any([keys])` is the first key found. A default
//! read after `argv`, `env`, `file`, `use` or `add` gave the store values
//! only known at run time is what the key may be, not what it is: a string
//! is a default taken for a run-time value (the route is charted under it,
//! conditional, with a `dynamic-path` finding of cause `assumed-default`),
//! as `process.env.X || '/x'` is, and a flag is only known at run time
//! (its default decides no test). With no such store a default is the
//! value. The chaining methods give the module back. A key found nowhere
//! is only known at run time.
//!
//! Deliberately not: reading the config file a `file` store names (a
//! deployment's own settings, usually not in the repository), separate
//! `new nconf.Provider()` stores (their reads stay unknown), `set` of a key
//! below a read one (`set('a:b', 1)` then `get('a')` gives `a`'s default),
//! and `save`/`load`/`remove`, which change nothing here.

use crate::machine::*;
use std::collections::HashMap;

/// The package's name, which is also its module's.
const PKG: &str = "nconf";

/// What the program put in nconf's store.
#[derive(Default)]
pub(crate) struct Nconf {
    /// `defaults(obj)`, the last given.
    defaults: Option<Value>,
    /// `overrides(obj)`, the last given.
    overrides: Option<Value>,
    /// `set(key, value)`, by key, the last written.
    set: HashMap<String, Value>,
    /// Whether a store with values only known at run time (`argv`, `env`,
    /// `file`, `use`, `add`) was added.
    run_time_stores: bool,
}

/// Methods of nconf's module the machine models.
const METHODS: &[&str] = &[
    "get",
    "any",
    "set",
    "defaults",
    "overrides",
    "argv",
    "env",
    "file",
    "use",
    "add",
    "required",
    "load",
    "save",
    "remove",
    "reset",
    "clear",
];

/// A member of nconf's module.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == PKG && METHODS.contains(&prop))
        .then(|| Value::Builtin(Builtin::Framework(Rc::from(format!("{PKG}.{prop}")))))
}

/// `v`'s member at the `:`-separated `path`.
fn at_path(v: &Value, path: &[&str]) -> Option<Value> {
    let mut cur = v.clone();
    for part in path {
        cur = match &cur {
            Value::Obj(o) => o.get(part)?,
            _ => return None,
        };
    }
    Some(cur)
}

impl Interp {
    /// A call of one of nconf's module methods (`nconf.<method>`); `None`
    /// for other names.
    pub(crate) fn nconf_call(&mut self, name: &str, argv: &[Value]) -> Option<Value> {
        let method = name.strip_prefix("nconf.")?;
        let module = Value::Builtin(Builtin::OpaqueModule(Rc::from(PKG)));
        let arg = |ip: &mut Interp, i: usize| {
            argv.get(i)
                .map(|v| ip.force_deep(v.clone()))
                .unwrap_or(Value::Undef)
        };
        Some(match method {
            "get" => match arg(self, 0) {
                Value::Undef => self
                    .libs
                    .nconf
                    .defaults
                    .clone()
                    .unwrap_or_else(Value::dynamic),
                key => match key.as_text() {
                    Some(key) => self.nconf_get(&key).unwrap_or_else(Value::dynamic),
                    None => Value::dynamic(),
                },
            },
            "any" => {
                let keys: Vec<String> = match arg(self, 0) {
                    Value::Arr(items) => items.borrow().iter().filter_map(Value::as_text).collect(),
                    _ => argv
                        .iter()
                        .filter_map(|v| self.force(v.clone(), 0).as_text())
                        .collect(),
                };
                keys.iter()
                    .find_map(|k| self.nconf_get(k))
                    .unwrap_or_else(Value::dynamic)
            }
            "set" => {
                if let Some(key) = arg(self, 0).as_text() {
                    let value = arg(self, 1);
                    self.libs.nconf.set.insert(key, value);
                }
                module
            }
            "defaults" => {
                self.libs.nconf.defaults = Some(arg(self, 0));
                module
            }
            "overrides" => {
                self.libs.nconf.overrides = Some(arg(self, 0));
                module
            }
            "argv" | "env" | "file" | "use" | "add" => {
                self.libs.nconf.run_time_stores = true;
                module
            }
            _ => module,
        })
    }

    /// What `get(key)` gives (see the module doc); `None` when no store
    /// the program filled holds it.
    fn nconf_get(&mut self, key: &str) -> Option<Value> {
        let path: Vec<&str> = key.split(':').collect();
        let state = &self.libs.nconf;
        if let Some(v) = state.overrides.as_ref().and_then(|o| at_path(o, &path)) {
            return Some(v);
        }
        let written = (1..=path.len()).rev().find_map(|n| {
            let above = path[..n].join(":");
            state.set.get(&above).and_then(|v| at_path(v, &path[n..]))
        });
        if written.is_some() {
            return written;
        }
        let default = state.defaults.as_ref().and_then(|d| at_path(d, &path))?;
        if !state.run_time_stores {
            return Some(default);
        }
        Some(self.nconf_assumed(key, default, 0))
    }

    /// A default read where run-time stores may hold another value: its
    /// strings (and those of the objects it holds) are defaults taken for
    /// a run-time value.
    fn nconf_assumed(&mut self, key: &str, v: Value, depth: u32) -> Value {
        match v {
            Value::Str(s) => {
                let when = format!(
                    "nconf's `{key}` is `{s}`, its default (the command line, the environment or a config file may give another)"
                );
                self.assume(&s, when)
            }
            Value::Obj(o) if depth < 4 && o.class.borrow().is_none() => {
                let copy = ObjData::new();
                for (k, item) in o.entries() {
                    let item = self.nconf_assumed(&format!("{key}:{k}"), item, depth + 1);
                    copy.set(&k, item);
                }
                Value::Obj(copy)
            }
            // A flag decides which way a test goes; its default does not
            // say which way it goes where the program runs.
            Value::Bool(_) => Value::dynamic(),
            v => v,
        }
    }
}
