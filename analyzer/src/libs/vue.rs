//! Vue's global properties, where client code keeps its socket: Vue 2's
//! `Vue.prototype.$socket = socket` and Vue 3's
//! `app.config.globalProperties.$socket = socket` (also inside a plugin's
//! `install(app)` that `Vue.use(plugin)` / `app.use(plugin)` runs) make
//! `this.$socket` the socket in every component.
//!
//! Captures: the assignments above and `use` running a plugin (an object
//! with `install`, or a function) with the constructor or app and the
//! options. A component's `this.$name` (in a `.vue` file's script, a mixin,
//! an options object) reads the global property when the component does not
//! define the name itself: only names that start with `$`, as Vue reserves
//! them for globals.
//!
//! Example: `Vue.prototype.$socket = io()` then, in a component,
//! `this.$socket.emit('ping')` is a client emit of `ping`.
//!
//! Socket.IO plugins: `vue-socket.io`'s `Vue.use(new VueSocketIO({
//! connection }))` (a URL, for which it opens a client socket, or a socket)
//! and `vue-socket.io-extended`'s `Vue.use(VueSocketIOExt, socket)` make
//! `this.$socket` the socket (the extended plugin's `this.$socket.client`),
//! and every component's `sockets: { name(payload) {…} }` option listens
//! for `name` on it: a client listener sited at the method, whenever the
//! component was evaluated (before or after the plugin was installed).
//!
//! Options API components (`data()` with `methods` or lifecycle hooks,
//! also through `defineComponent`): mounted once the programs have loaded,
//! their hooks and methods run on an instance holding what `data()`
//! returned (see [`Interp::vue_options_component`]).
//!
//! Deliberately not captured: `provide`/`inject`, props a parent's template
//! gives, the plugins' Vuex options and `this.sockets.subscribe(name, fn)`,
//! the rest of Vue.

use crate::inventory::{Direction, Side};
use crate::libs::socketio::RawSite;
use crate::machine::*;
use rustc_hash::FxHashMap;

/// `vue-socket.io`'s default export: the plugin's class.
pub(crate) const VUE_SOCKET_IO: &str = "vue-socket.io";
/// `vue-socket.io-extended`'s default export: the plugin itself.
const VUE_SOCKET_IO_EXTENDED: &str = "vue-socket.io-extended";
/// A `new VueSocketIO(…)`, followed by its index in [`VueState::plugins`].
const PLUGIN: &str = "vue-socket.io.plugin:";

/// The global properties the program gave its components.
#[derive(Default)]
pub(crate) struct VueState {
    globals: FxHashMap<String, Value>,
    /// The socket of each `new VueSocketIO(…)`.
    plugins: Vec<Value>,
    /// The socket a Socket.IO plugin gave the components, once installed.
    socket: Option<Rc<Sio>>,
    /// Components' `sockets` options seen so far, and whether each is charted.
    options: Vec<(Rc<ObjData>, bool)>,
    /// The Options API components seen so far (by their `data` function).
    components: rustc_hash::FxHashSet<(FileId, u32)>,
    /// Those not mounted yet, with where their literal was evaluated.
    pending: Vec<(Ctx, Rc<ObjData>)>,
}

/// The lifecycle hooks Vue calls on a component instance, in order.
const VUE_HOOKS: &[&str] = &[
    "beforeCreate",
    "created",
    "beforeMount",
    "mounted",
    "activated",
    "beforeUpdate",
    "updated",
    "beforeUnmount",
    "unmounted",
    "beforeDestroy",
    "destroyed",
];

/// A Socket.IO plugin package's module.
pub(crate) fn socket_plugin_module(pkg: &str) -> Value {
    framework(pkg)
}

use crate::libs::{framework, index_in, indexed};

/// The `vue` module.
pub(crate) fn module() -> Value {
    framework("vue")
}

/// A member of Vue's module, of an app `createApp` made, or of its config.
pub(crate) fn member(base: &str, prop: &str) -> Option<Value> {
    Some(match (base, prop) {
        ("vue", "default" | "Vue") => module(),
        (p @ (VUE_SOCKET_IO | VUE_SOCKET_IO_EXTENDED), "default") => framework(p),
        ("vue", "prototype") | ("vue.config", "globalProperties") => framework("vue.globals"),
        ("vue", "createApp" | "createSSRApp") => framework("vue.createApp"),
        ("vue", "use") => framework("vue.use"),
        ("vue", "defineComponent") => framework("vue.defineComponent"),
        ("vue.app", "config") => framework("vue.config"),
        ("vue.app", "use") => framework("vue.app.use"),
        ("vue.app", "component" | "directive" | "mixin" | "provide" | "mount") => {
            framework("vue.app.chain")
        }
        _ => return None,
    })
}

impl Interp {
    /// Calls of the functions above.
    pub(crate) fn vue_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        let (target, result) = match name {
            "vue.createApp" | "vue.app.chain" => return Some(framework("vue.app")),
            // `defineComponent(options)` gives the options back (a type helper).
            "vue.defineComponent" => return Some(argv.first().cloned().unwrap_or(Value::Undef)),
            "vue.use" => (module(), module()),
            "vue.app.use" => (framework("vue.app"), framework("vue.app")),
            _ => return None,
        };
        // The Socket.IO plugins: what they install is known.
        if let Some(Value::Builtin(Builtin::Framework(n))) =
            argv.first().map(|v| self.force_deep(v.clone()))
        {
            if let Some(i) = index_in::<usize>(&n, PLUGIN) {
                let socket = self.libs.vue.plugins.get(i).cloned();
                self.vue_install_socket(socket.clone(), socket);
                return Some(result);
            }
            if n.as_ref() == VUE_SOCKET_IO_EXTENDED {
                let socket = argv.get(1).map(|v| self.force_deep(v.clone()));
                let global = socket.clone().map(|s| {
                    let o = ObjData::new();
                    o.set("client", s);
                    Value::Obj(o)
                });
                self.vue_install_socket(global, socket);
                return Some(result);
            }
        }
        // `use(plugin, ...options)`: `plugin.install(target, ...options)`, or the plugin itself.
        let mut args = vec![target];
        args.extend(argv.iter().skip(1).cloned());
        match argv.first().map(|v| self.force_deep(v.clone())) {
            Some(p @ Value::Func(_)) => {
                self.call_value_now(ctx, &p, args, &[], line, None);
            }
            Some(p @ Value::Obj(_)) => {
                if let f @ Value::Func(_) = self.member(&p, "install") {
                    self.call_value_now(ctx, &f, args, &[], line, Some(p));
                }
            }
            _ => {}
        }
        Some(result)
    }

    /// `Vue.prototype.name = v` / `app.config.globalProperties.name = v`.
    pub(crate) fn vue_set_global(&mut self, base: &str, prop: &str, v: &Value) -> bool {
        if base != "vue.globals" {
            return false;
        }
        self.libs.vue.globals.insert(prop.to_string(), v.clone());
        true
    }

    /// `Vue.prototype.name` read back.
    pub(crate) fn vue_globals_member(&self, base: &str, prop: &str) -> Option<Value> {
        (base == "vue.globals").then(|| {
            self.libs
                .vue
                .globals
                .get(prop)
                .cloned()
                .unwrap_or_else(Value::dynamic)
        })
    }

    /// `new VueSocketIO({ connection, … })`: the plugin, with the socket it
    /// opens for a URL (or is given).
    pub(crate) fn vue_socket_plugin(&mut self, ctx: &Ctx, argv: &[Value], line: u32) -> Value {
        let connection = match argv.first().map(|v| self.force_deep(v.clone())) {
            Some(Value::Obj(o)) => o.get("connection").map(|c| self.force_deep(c)),
            _ => None,
        };
        let socket = match connection {
            Some(s @ Value::Sio(_)) => s,
            Some(url @ Value::Str(_)) => {
                let io = Value::Builtin(Builtin::SocketIoClient);
                self.call_value_now(ctx, &io, vec![url], &[], line, None)
            }
            _ => {
                let io = Value::Builtin(Builtin::SocketIoClient);
                self.call_value_now(ctx, &io, Vec::new(), &[], line, None)
            }
        };
        self.libs.vue.plugins.push(socket);
        indexed(PLUGIN, self.libs.vue.plugins.len() - 1)
    }

    /// A Socket.IO plugin installed: `this.$socket` is `global`, and the
    /// components' `sockets` options listen on `socket`.
    fn vue_install_socket(&mut self, global: Option<Value>, socket: Option<Value>) {
        if let Some(g) = global {
            self.libs.vue.globals.insert("$socket".into(), g);
        }
        if let Some(Value::Sio(s)) = socket {
            self.libs.vue.socket = Some(s);
            self.vue_socket_listeners();
        }
    }

    /// An object literal with a `sockets` option of functions: a component's
    /// listeners, charted once a Socket.IO plugin is installed.
    pub(crate) fn vue_socket_option(&mut self, _: &Ctx, obj: &Rc<ObjData>) {
        let Some(Value::Obj(sockets)) = obj.get("sockets") else {
            return;
        };
        let vue = &mut self.libs.vue;
        if !sockets
            .entries()
            .iter()
            .any(|(_, v)| matches!(v, Value::Func(_)))
            || vue.options.iter().any(|(o, _)| Rc::ptr_eq(o, &sockets))
        {
            return;
        }
        vue.options.push((sockets, false));
        self.vue_socket_listeners();
    }

    /// An Options API component (an object literal with a `data()` function
    /// and `methods` or a lifecycle hook, in a file that mentions sockets,
    /// while looking for events): Vue makes an instance whose properties are
    /// what `data()` returns, the `methods` and the `computed` values, and
    /// calls the hooks and, on the user's events, the methods (bound to it)
    /// with `this` that instance; so does this, once per component, when
    /// the programs have loaded ([`Interp::mount_vue_components`]). So
    /// `this.socket` in a method is the `io()` socket `data()` made. The
    /// instance's other properties (props, `$route`, …) are only known at
    /// run time.
    pub(crate) fn vue_options_component(&mut self, ctx: &Ctx, obj: &Rc<ObjData>) {
        if !self.modes.event_mode
            || self.loader.needles_of(ctx.file) & crate::loader::needle::SOCKET == 0
        {
            return;
        }
        let Some(Value::Func(data)) = obj.get("data") else {
            return;
        };
        let has_methods =
            matches!(obj.get("methods"), Some(Value::Obj(m)) if !m.props.borrow().is_empty());
        if !has_methods && !VUE_HOOKS.iter().any(|h| obj.get(h).is_some()) {
            return;
        }
        if self.libs.vue.components.insert((data.file, data.func.id)) {
            self.libs.vue.pending.push((ctx.clone(), obj.clone()));
        }
    }

    /// The Options API components seen while the programs loaded, mounted
    /// once they all have (as `app.mount()` renders them after the imports
    /// ran, when a root's mixin method or a global property is in place).
    pub(crate) fn mount_vue_components(&mut self) {
        for (ctx, obj) in std::mem::take(&mut self.libs.vue.pending) {
            self.vue_mount(&ctx, &obj);
        }
    }

    /// One component instance (see [`Interp::vue_options_component`]).
    fn vue_mount(&mut self, ctx: &Ctx, obj: &Rc<ObjData>) {
        let methods = match obj.get("methods") {
            Some(Value::Obj(m)) => m.entries(),
            _ => Vec::new(),
        };
        let hooks: Vec<Value> = VUE_HOOKS.iter().filter_map(|h| obj.get(h)).collect();
        let this = Value::Obj(ObjData::over_unknown(Unknown::Dynamic));
        let Value::Obj(inst) = &this else { return };
        // Vue binds the methods to the instance (`addEventListener('x',
        // this.onX)` keeps it).
        let methods: Vec<(String, Value)> = methods
            .into_iter()
            .map(|(k, f)| match &f {
                Value::Func(c) => (k, self.bind_this(c, Some(this.clone()))),
                _ => (k, f),
            })
            .collect();
        for (k, f) in &methods {
            inst.set(k, f.clone());
        }
        let data = obj.get("data");
        let line = match &data {
            Some(Value::Func(c)) => c.func.line,
            _ => 0,
        };
        if let Some(data) = data {
            let v = self.call_value_now(ctx, &data, Vec::new(), &[], line, Some(this.clone()));
            if let Value::Obj(d) = self.force_deep(v) {
                for (k, v) in d.entries() {
                    inst.set(&k, v);
                }
            }
        }
        if let Some(Value::Obj(computed)) = obj.get("computed") {
            for (k, f) in computed.entries() {
                if matches!(f, Value::Func(_)) {
                    let v = self.call_value_now(ctx, &f, Vec::new(), &[], line, Some(this.clone()));
                    inst.set(&k, v);
                }
            }
        }
        for h in hooks.iter().chain(methods.iter().map(|(_, f)| f)) {
            if let Value::Func(c) = h {
                let argv = self.placeholder_args(c);
                self.call_value_now(ctx, h, argv, &[], line, Some(this.clone()));
            }
        }
    }

    /// The client listeners of the `sockets` options not charted yet, when a
    /// plugin gave the components a socket.
    fn vue_socket_listeners(&mut self) {
        let Some(socket) = self.libs.vue.socket.clone() else {
            return;
        };
        if self.modes.sio_quiet {
            return;
        }
        let mut sites = Vec::new();
        for (option, charted) in self.libs.vue.options.iter_mut().filter(|(_, c)| !*c) {
            *charted = true;
            for (name, v) in option.entries() {
                let Value::Func(c) = v else {
                    continue;
                };
                let (args, ack) = crate::libs::socketio_syntax::closure_listener_shape(&c);
                sites.push(RawSite {
                    name,
                    pattern: false,
                    ns: socket.ns.to_string(),
                    side: Side::Client,
                    direction: Direction::ServerToClient,
                    kind: "on",
                    via: None,
                    rooms: Vec::new(),
                    args,
                    ack,
                    file: c.file,
                    line: c.func.line,
                    server: u32::MAX,
                    ack_schema: None,
                    payload_source: None,
                    payload: None,
                    assumed: None,
                    manager: false,
                });
            }
        }
        for s in &sites {
            self.rec.census.event_sources.insert((s.file, s.line));
        }
        self.rec.sites.extend(sites);
    }

    /// A global property a component reads as `this.$name`, if the program set one.
    pub(crate) fn vue_global(&self, prop: &str) -> Option<Value> {
        if !prop.starts_with('$') {
            return None;
        }
        self.libs.vue.globals.get(prop).cloned()
    }
}
