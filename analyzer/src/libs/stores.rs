//! State containers that keep what the program puts in them: zustand and
//! Pinia (and SWR's cache, in `libs/swr.rs`).
//!
//! A client socket often lives in a store rather than in a module variable:
//!
//! ```js
//! export const useChat = create((set, get) => ({
//!   socket: null,
//!   connect: () => set({ socket: io('/chat') }),
//!   send: (t) => get().socket.emit('chat:send', t),
//! }));
//! useChat((s) => s.socket).emit('chat:typing');   // a component's selector
//! useChat.getState().socket.emit('chat:leave');   // plain code
//! ```
//!
//! Captures: zustand's `create` (also `create<T>()(init)`, `createStore` from
//! `zustand/vanilla`, the default export of v3): the initializer runs with
//! `set` (merges an object, or what a function of the state returns) and `get`
//! (the state); the hook gives the state, or what a selector picks from it;
//! `getState()`/`setState()` on the hook. The middlewares of
//! `zustand/middleware` (`devtools`, `persist`, `subscribeWithSelector`,
//! `immer`) pass the initializer through. A property keeps every value written
//! to it the way a variable written in several branches does (`flow::join`:
//! `set({ socket: null })` after `set({ socket })` keeps the socket). Before
//! the state is first read from outside its initializer, the store's actions
//! that call `set` run once with unknown arguments, so what they put there is
//! in the state whichever code the analysis reaches first.
//!
//! Pinia's `defineStore(id, { state, actions })` (also `defineStore({ id, … })`
//! and the setup form `defineStore(id, () => ({ … }))`): `useStore()` gives one
//! store object per definition, holding what `state()` returns and the actions
//! bound to it (`this.socket.emit('x')`). When the store is defined, its actions
//! run once with unknown arguments, those that assign `this.<name>` first, so
//! code that reads `store.socket` finds what `connect()` put there; a property
//! they write keeps every value written (as above).
//!
//! Svelte's stores (`svelte/store`): `writable(v)` and `readable(v)` keep
//! `v` (`set(x)` and `update(fn)` write it, joined with what it held),
//! `subscribe(fn)` calls `fn` with it, `get(store)` reads it, and in a
//! `.svelte` component `$socket`, for a store `socket` in scope, is its value
//! (the auto-subscription Svelte compiles it to): `export const socket =
//! writable(io())` then `$socket.emit('join')`.
//!
//! Deliberately not: Redux (a socket is no serializable state; slices keep it
//! in module variables, which the machine follows), Vuex and stores reached
//! through `this.$store` or an injected hook (the existing findings apply),
//! Pinia getters, Vue `ref()`s in setup stores, `combine`, `subscribe`
//! listeners.

use crate::machine::*;

/// A zustand function the machine models (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum StoreFn {
    /// `create` / `createStore` (and the module itself, v3's default export).
    Create,
    /// A middleware of `zustand/middleware`: gives back the initializer.
    Middleware,
    /// A store's `set` / `setState` (index into the interpreter's stores).
    Set(u32),
    /// A store's `get` / `getState`.
    Get(u32),
    /// The hook `create` returns.
    Hook(u32),
    /// Pinia's `defineStore`.
    Define,
    /// The `useStore` a Pinia `defineStore` returns.
    Use(u32),
    /// An SWR function (see `libs/swr.rs`).
    Swr(super::swr::SwrFn),
    /// The `svelte/store` module.
    Svelte,
    /// Svelte's `writable` / `readable`.
    SvelteMake,
    /// Svelte's `get(store)`.
    SvelteGet,
    /// A Svelte store's `set` (index into the interpreter's stores).
    SvelteSet(u32),
    /// A Svelte store's `update`.
    SvelteUpdate(u32),
    /// A Svelte store's `subscribe`.
    SvelteSubscribe(u32),
}

/// A store made by `create`.
pub(crate) struct Store {
    pub(crate) state: Rc<ObjData>,
    /// Its actions that call `set`, run once before the state is first read
    /// (zustand; a Pinia store's actions run when it is defined).
    pub(crate) writers: Vec<Rc<Closure>>,
    /// The writers have run (or are running).
    pub(crate) warm: bool,
}

/// The value of a zustand module (`zustand`, `zustand/vanilla`,
/// `zustand/middleware`, `zustand/middleware/immer`).
pub(crate) fn module(pkg: &str) -> Value {
    let f = if pkg == "swr" || pkg == "swr/immutable" {
        StoreFn::Swr(super::swr::SwrFn::Hook)
    } else if pkg.starts_with("zustand/middleware") {
        StoreFn::Middleware
    } else if pkg == "pinia" {
        StoreFn::Define
    } else if pkg == "svelte/store" || pkg == "svelte" {
        StoreFn::Svelte
    } else {
        StoreFn::Create
    };
    Value::Builtin(Builtin::Store(f))
}

/// A member of a modelled zustand value.
pub(crate) fn member(f: StoreFn, prop: &str) -> Value {
    let v = |f| Value::Builtin(Builtin::Store(f));
    match (f, prop) {
        (StoreFn::Create, "create" | "createStore" | "default") => v(StoreFn::Create),
        (StoreFn::Middleware, _) => v(StoreFn::Middleware),
        (StoreFn::Hook(i), "getState" | "getInitialState") => v(StoreFn::Get(i)),
        (StoreFn::Hook(i), "setState") => v(StoreFn::Set(i)),
        (StoreFn::Define, "defineStore") => v(StoreFn::Define),
        (StoreFn::Swr(f), _) => super::swr::member(f, prop),
        (StoreFn::Svelte, "writable" | "readable") => v(StoreFn::SvelteMake),
        (StoreFn::Svelte, "get") => v(StoreFn::SvelteGet),
        _ => Value::external(),
    }
}

impl Interp {
    /// Call a modelled zustand function.
    pub(crate) fn store_call(
        &mut self,
        ctx: &Ctx,
        f: StoreFn,
        argv: Vec<Value>,
        line: u32,
    ) -> Value {
        let arg = argv.first().map(|a| self.force(a.clone(), 0));
        match f {
            StoreFn::Middleware => arg.unwrap_or(Value::Undef),
            StoreFn::Create => match arg {
                // `create<State>()(init)`: the curried form.
                None => Value::Builtin(Builtin::Store(StoreFn::Create)),
                Some(init @ Value::Func(_)) => self.create_store(ctx, &init, line),
                Some(_) => Value::dynamic(),
            },
            StoreFn::Set(i) => {
                let partial = match arg {
                    Some(g @ Value::Func(_)) => {
                        let state = self.store_state(i);
                        self.call_value_now(ctx, &g, vec![state], &[], line, None)
                    }
                    Some(v) => v,
                    None => Value::Undef,
                };
                self.store_merge(i, &partial);
                Value::Undef
            }
            StoreFn::Get(i) => {
                self.warm_store(i);
                self.store_state(i)
            }
            StoreFn::Define => self.define_pinia_store(ctx, &argv, line),
            StoreFn::Swr(f) => self.swr_call(ctx, f, &argv, line),
            StoreFn::Use(i) => self.store_state(i),
            StoreFn::Svelte => Value::external(),
            StoreFn::SvelteMake => {
                let i = self.libs.stores.len() as u32;
                let state = ObjData::new();
                state.set("value", arg.unwrap_or(Value::Undef));
                self.libs.stores.push(Store {
                    state,
                    writers: Vec::new(),
                    warm: true,
                });
                let store = ObjData::new();
                let f = |f| Value::Builtin(Builtin::Store(f));
                store.set("set", f(StoreFn::SvelteSet(i)));
                store.set("update", f(StoreFn::SvelteUpdate(i)));
                store.set("subscribe", f(StoreFn::SvelteSubscribe(i)));
                Value::Obj(store)
            }
            StoreFn::SvelteGet => match arg.and_then(|s| svelte_store_of(&s)) {
                Some(i) => self.svelte_value(i),
                None => Value::dynamic(),
            },
            StoreFn::SvelteSet(i) => {
                self.svelte_write(i, arg.unwrap_or(Value::Undef));
                Value::Undef
            }
            StoreFn::SvelteUpdate(i) => {
                if let Some(g @ Value::Func(_)) = arg {
                    let now = self.svelte_value(i);
                    let v = self.call_value_now(ctx, &g, vec![now], &[], line, None);
                    self.svelte_write(i, v);
                }
                Value::Undef
            }
            StoreFn::SvelteSubscribe(i) => {
                if let Some(g @ Value::Func(_)) = arg {
                    let now = self.svelte_value(i);
                    self.call_value_now(ctx, &g, vec![now], &[], line, None);
                }
                Value::dynamic()
            }
            StoreFn::Hook(i) => {
                self.warm_store(i);
                let state = self.store_state(i);
                match arg {
                    Some(sel @ Value::Func(_)) => {
                        self.call_value_now(ctx, &sel, vec![state], &[], line, None)
                    }
                    _ => state,
                }
            }
        }
    }

    fn create_store(&mut self, ctx: &Ctx, init: &Value, line: u32) -> Value {
        let i = self.libs.stores.len() as u32;
        self.libs.stores.push(Store {
            state: ObjData::new(),
            writers: Vec::new(),
            warm: false,
        });
        let set = Value::Builtin(Builtin::Store(StoreFn::Set(i)));
        let get = Value::Builtin(Builtin::Store(StoreFn::Get(i)));
        let api = ObjData::new();
        api.set("setState", set.clone());
        api.set("getState", get.clone());
        // The initializer runs while `create` runs; reading the state there is no
        // reason to run the actions.
        self.libs.stores[i as usize].warm = true;
        let initial =
            self.call_value_now(ctx, init, vec![set, get, Value::Obj(api)], &[], line, None);
        self.libs.stores[i as usize].warm = false;
        self.store_merge(i, &initial);
        let set_name = match init {
            Value::Func(c) => c.func.params.first().and_then(|p| match p {
                Pattern::Ident(n) => Some(n.clone()),
                _ => None,
            }),
            _ => None,
        };
        if let (Some(set_name), Value::Obj(o)) = (set_name, self.force(initial, 0)) {
            let writers = o
                .entries()
                .into_iter()
                .filter_map(|(_, v)| match v {
                    Value::Func(c)
                        if crate::libs::socketio_syntax::calls_name(&c.func.body, &set_name) =>
                    {
                        Some(c)
                    }
                    _ => None,
                })
                .collect();
            self.libs.stores[i as usize].writers = writers;
        }
        Value::Builtin(Builtin::Store(StoreFn::Hook(i)))
    }

    /// `defineStore(...)`: the store object, its actions run once (see the module doc).
    fn define_pinia_store(&mut self, ctx: &Ctx, argv: &[Value], line: u32) -> Value {
        let args: Vec<Value> = argv.iter().map(|a| self.force(a.clone(), 0)).collect();
        let def = match args.as_slice() {
            [Value::Obj(o), ..] => Value::Obj(o.clone()),
            [_, d, ..] => d.clone(),
            _ => return Value::dynamic(),
        };
        let store = ObjData::new();
        let i = self.libs.stores.len() as u32;
        let this = Value::Obj(store.clone());
        let mut actions = Vec::new();
        match def {
            Value::Obj(o) => {
                if let Some(f @ Value::Func(_)) = o.get("state").map(|f| self.force(f, 0)) {
                    let initial = self.call_value_now(ctx, &f, Vec::new(), &[], line, None);
                    if let Value::Obj(init) = self.force(initial, 0) {
                        for (k, v) in init.entries() {
                            store.set(&k, v);
                        }
                    }
                }
                if let Some(Value::Obj(acts)) = o.get("actions").map(|a| self.force(a, 0)) {
                    for (k, v) in acts.entries() {
                        if let Value::Func(c) = self.force(v, 0) {
                            let bound = self.bind_this(&c, Some(this.clone()));
                            store.set(&k, bound.clone());
                            actions.push((assigns_this(&c.func.body), bound));
                        }
                    }
                }
            }
            f @ Value::Func(_) => {
                let out = self.call_value_now(ctx, &f, Vec::new(), &[], line, None);
                if let Value::Obj(o) = self.force(out, 0) {
                    for (k, v) in o.entries() {
                        store.set(&k, v);
                    }
                }
            }
            _ => return Value::dynamic(),
        }
        self.libs.stores.push(Store {
            state: store.clone(),
            writers: Vec::new(),
            warm: true,
        });
        // Writers first, each write joined with what the property held.
        actions.sort_by_key(|(writes, _)| !*writes);
        for (_, f) in actions {
            let Value::Func(c) = &f else {
                continue;
            };
            let before = store.entries();
            let n = c.func.params.len();
            self.call_value_now(
                ctx,
                &f,
                vec![Value::dynamic(); n],
                &[],
                line,
                Some(this.clone()),
            );
            for (k, old) in before {
                if let Some(new) = store.get(&k) {
                    store.set(&k, crate::machine::flow::join(&old, old.clone(), new));
                }
            }
        }
        Value::Builtin(Builtin::Store(StoreFn::Use(i)))
    }

    /// What Svelte store `i` holds.
    fn svelte_value(&self, i: u32) -> Value {
        self.libs
            .stores
            .get(i as usize)
            .and_then(|s| s.state.get("value"))
            .unwrap_or_else(Value::dynamic)
    }

    /// `store.set(v)`: it keeps what it held and `v`.
    fn svelte_write(&mut self, i: u32, v: Value) {
        let Some(state) = self.libs.stores.get(i as usize).map(|s| s.state.clone()) else {
            return;
        };
        let v = match state.get("value") {
            Some(old) if !matches!(old, Value::Undef | Value::Null) => {
                crate::machine::flow::join(&old, old.clone(), v)
            }
            _ => v,
        };
        state.set("value", v);
    }

    /// `$name` in a `.svelte` component, where no binding of that name is in
    /// scope: the value of the store `name` (Svelte's auto-subscription).
    pub(crate) fn svelte_auto_subscription(&mut self, ctx: &Ctx, name: &str) -> Option<Value> {
        let store = name.strip_prefix('$').filter(|s| !s.is_empty())?;
        if !self.loader.project.rel(ctx.file).ends_with(".svelte") {
            return None;
        }
        let v = ctx.scope.lookup(store)?;
        let v = self.force_deep(v);
        svelte_store_of(&v).map(|i| self.svelte_value(i))
    }

    fn store_state(&self, i: u32) -> Value {
        self.libs
            .stores
            .get(i as usize)
            .map_or(Value::dynamic(), |s| Value::Obj(s.state.clone()))
    }

    /// `set(partial)`: each property keeps what it held and what is written.
    fn store_merge(&mut self, i: u32, partial: &Value) {
        let Some(state) = self.libs.stores.get(i as usize).map(|s| s.state.clone()) else {
            return;
        };
        if let Value::Obj(p) = self.force(partial.clone(), 0) {
            for (k, v) in p.entries() {
                let v = match state.get(&k) {
                    Some(old) => crate::machine::flow::join(&old, old.clone(), v),
                    None => v,
                };
                state.set(&k, v);
            }
        }
    }

    /// Run the store's writers once, before its state is first read.
    fn warm_store(&mut self, i: u32) {
        let Some(s) = self.libs.stores.get_mut(i as usize) else {
            return;
        };
        if s.warm {
            return;
        }
        s.warm = true;
        let writers = s.writers.clone();
        for w in writers {
            if self.deferred.called.contains(&(w.file, w.func.id)) {
                continue;
            }
            let n = w.func.params.len();
            self.invoke(&w, vec![Value::dynamic(); n], None);
        }
    }
}

/// Whether a function assigns a property of `this` (`this.socket = io()`).
fn assigns_this(body: &[Stmt]) -> bool {
    crate::libs::socketio_syntax::any_expr(body, &|e| {
        matches!(e, Expr::Assign(p, _) if matches!(p.as_ref(), Pattern::Target(t)
            if matches!(t.as_ref(), Expr::Member(o, _) if matches!(o.as_ref(), Expr::This))))
    })
}

/// The index of the Svelte store `v` is (by its `subscribe`).
fn svelte_store_of(v: &Value) -> Option<u32> {
    match v {
        Value::Obj(o) => match o.get("subscribe") {
            Some(Value::Builtin(Builtin::Store(StoreFn::SvelteSubscribe(i)))) => Some(i),
            _ => None,
        },
        _ => None,
    }
}
