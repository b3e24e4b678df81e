//! SWR's cache: what a key holds is what every hook reading that key gives.
//!
//! A client socket is sometimes kept in SWR's cache rather than in a module
//! variable or React state:
//!
//! ```js
//! const useSocket = (ns) => {
//!   const res = useSWRImmutable(ns, null);
//!   if (res.data === undefined) res.mutate(io(ns));
//!   return res;
//! };
//! const { data: socket } = useSocket('/admin');   // any component
//! useEffect(() => { socket?.on('admin:progress', onProgress) }, [socket]);
//! ```
//!
//! Captures: `useSWR` / `useSWRImmutable` (the default exports of `swr` and
//! `swr/immutable`, and `useSWR` by name) with a key that is a string (or a
//! function returning one): the response's `data` is what the cache holds
//! for the key, else what the fetcher returns for it (awaited), else the
//! configuration's `fallbackData`; its `mutate(value)` (a value, a promise,
//! or a function of the current data, awaited) writes the key, joined with
//! what it held the way a variable written on two paths is (`flow::join`),
//! and every response given for the key so far sees it. `useSWRConfig()`
//! gives the global `mutate(key, value)` and `cache.get(key)` (`{ data }`).
//! A function component that read a key renders again once a write brings
//! it a socket, function or object holding one (`libs/react_render.rs`).
//!
//! Deliberately not: array and object keys (their reads give a run-time
//! value), `swr/infinite`, `swr/mutation`, revalidation, `populateCache`
//! and the other `mutate` options, a `Provider`'s separate cache, global
//! `mutate` with a key filter function.

use crate::machine::*;
use std::collections::HashMap;

/// Most responses kept per key (each sees later writes).
const MAX_RESPONSES: usize = 64;

/// An SWR function the machine models (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum SwrFn {
    /// `useSWR` / `useSWRImmutable` (the module itself is the hook).
    Hook,
    /// The `mutate` of a response: writes the key at this index.
    Mutate(u32),
    /// The global `mutate(key, value)`.
    GlobalMutate,
    /// `useSWRConfig`.
    Config,
    /// `cache.get(key)` of `useSWRConfig()`.
    CacheGet,
}

/// One key of the cache.
struct Entry {
    /// What the key holds (`Undef` before anything wrote it).
    value: Value,
    /// The function component instances that read it.
    readers: Vec<usize>,
    /// The responses given for it, whose `data` each write updates.
    responses: Vec<Rc<ObjData>>,
}

/// SWR's cache during a run (held in `LibState`).
#[derive(Default)]
pub(crate) struct SwrCache {
    entries: Vec<Entry>,
    by_key: HashMap<String, u32>,
}

/// A member of a modelled SWR value.
pub(crate) fn member(f: SwrFn, prop: &str) -> Value {
    let v = |f| Value::Builtin(Builtin::Store(super::stores::StoreFn::Swr(f)));
    match (f, prop) {
        (SwrFn::Hook, "default" | "useSWR" | "useSWRImmutable") => v(SwrFn::Hook),
        (SwrFn::Hook, "useSWRConfig") => v(SwrFn::Config),
        (SwrFn::Hook, "mutate") => v(SwrFn::GlobalMutate),
        _ => Value::external(),
    }
}

impl Interp {
    /// Call a modelled SWR function.
    pub(crate) fn swr_call(&mut self, ctx: &Ctx, f: SwrFn, argv: &[Value], line: u32) -> Value {
        match f {
            SwrFn::Hook => self.swr_use(ctx, argv, line),
            SwrFn::Mutate(i) => self.swr_write(ctx, i, argv.first(), line),
            SwrFn::GlobalMutate => match argv.first().and_then(|k| self.swr_key(ctx, k, line)) {
                Some(k) => {
                    let i = self.swr_entry(&k);
                    self.swr_write(ctx, i, argv.get(1), line)
                }
                None => Value::dynamic(),
            },
            SwrFn::Config => {
                let config = ObjData::new();
                config.set("mutate", swr_value(SwrFn::GlobalMutate));
                let cache = ObjData::new();
                cache.set("get", swr_value(SwrFn::CacheGet));
                config.set("cache", Value::Obj(cache));
                Value::Obj(config)
            }
            SwrFn::CacheGet => match argv.first().and_then(|k| self.swr_key(ctx, k, line)) {
                Some(k) => match self.libs.swr.by_key.get(&k) {
                    Some(&i) => {
                        let state = ObjData::new();
                        state.set("data", self.libs.swr.entries[i as usize].value.clone());
                        Value::Obj(state)
                    }
                    None => Value::Undef,
                },
                None => Value::dynamic(),
            },
        }
    }

    /// A key as text: a string, or what a function given as the key returns.
    fn swr_key(&mut self, ctx: &Ctx, k: &Value, line: u32) -> Option<String> {
        let k = match self.force(k.clone(), 0) {
            f @ Value::Func(_) => self.call_value_now(ctx, &f, Vec::new(), &[], line, None),
            v => v,
        };
        match self.force_deep(k) {
            Value::Str(s) => Some(s.to_string()),
            _ => None,
        }
    }

    fn swr_entry(&mut self, key: &str) -> u32 {
        let c = &mut self.libs.swr;
        if let Some(&i) = c.by_key.get(key) {
            return i;
        }
        let i = c.entries.len() as u32;
        c.entries.push(Entry {
            value: Value::Undef,
            readers: Vec::new(),
            responses: Vec::new(),
        });
        c.by_key.insert(key.to_string(), i);
        i
    }

    /// `useSWR(key, fetcher, config)`: the response (see the module doc).
    fn swr_use(&mut self, ctx: &Ctx, argv: &[Value], line: u32) -> Value {
        let resp = ObjData::new();
        resp.set("error", Value::Undef);
        resp.set("isLoading", Value::Unknown(Unknown::Bool));
        resp.set("isValidating", Value::Unknown(Unknown::Bool));
        let Some(key) = argv.first().and_then(|k| self.swr_key(ctx, k, line)) else {
            resp.set("data", Value::dynamic());
            resp.set("mutate", Value::dynamic());
            return Value::Obj(resp);
        };
        let i = self.swr_entry(&key);
        if let Some(inst) = self.rendering_instance() {
            let readers = &mut self.libs.swr.entries[i as usize].readers;
            if !readers.contains(&inst) {
                readers.push(inst);
            }
        }
        if matches!(self.libs.swr.entries[i as usize].value, Value::Undef)
            && let Some(f @ Value::Func(_)) = argv.get(1).map(|f| self.force(f.clone(), 0))
        {
            let fetched = self.call_value_now(
                ctx,
                &f,
                vec![Value::Str(Rc::from(key.as_str()))],
                &[],
                line,
                None,
            );
            let fetched = self.force(fetched, 0);
            self.libs.swr.entries[i as usize].value = fetched;
        }
        let mut data = self.libs.swr.entries[i as usize].value.clone();
        if matches!(data, Value::Undef)
            && let Some(Value::Obj(config)) = argv.get(2).map(|c| self.force(c.clone(), 0))
            && let Some(fallback) = config.get("fallbackData")
        {
            data = fallback;
        }
        resp.set("data", data);
        resp.set("mutate", swr_value(SwrFn::Mutate(i)));
        let e = &mut self.libs.swr.entries[i as usize];
        if e.responses.len() < MAX_RESPONSES {
            e.responses.push(resp.clone());
        }
        Value::Obj(resp)
    }

    /// `mutate(value)` on key `i`: the key holds what it held and the value
    /// (a function is called with the current data; what it gives, as a
    /// promise's, is awaited); every response for the key sees it, and the
    /// instances that read it render again when it brings them more.
    fn swr_write(&mut self, ctx: &Ctx, i: u32, arg: Option<&Value>, line: u32) -> Value {
        let Some(old) = self
            .libs
            .swr
            .entries
            .get(i as usize)
            .map(|e| e.value.clone())
        else {
            return Value::Undef;
        };
        let new = match arg.map(|a| self.force(a.clone(), 0)) {
            None => return old,
            Some(f @ Value::Func(_)) => {
                let out = self.call_value_now(ctx, &f, vec![old.clone()], &[], line, None);
                self.force(out, 0)
            }
            Some(v) => v,
        };
        let joined = match old {
            Value::Undef => new,
            _ => crate::machine::flow::join(&old, old.clone(), new),
        };
        let more = super::react_render::brings_more(&old, &joined);
        self.note_write(Some(&joined));
        let e = &mut self.libs.swr.entries[i as usize];
        e.value = joined.clone();
        for r in &e.responses {
            r.set("data", joined.clone());
        }
        let readers = e.readers.clone();
        if more && !readers.is_empty() {
            self.render_again(&readers);
        }
        joined
    }
}

fn swr_value(f: SwrFn) -> Value {
    Value::Builtin(Builtin::Store(super::stores::StoreFn::Swr(f)))
}
