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
//! Deliberately not captured: `provide`/`inject`, `vue-socket.io`'s
//! `sockets: { event() {} }` component option, the rest of Vue.

use crate::machine::*;
use rustc_hash::FxHashMap;

/// The global properties the program gave its components.
#[derive(Default)]
pub(crate) struct VueState {
    globals: FxHashMap<String, Value>,
}

fn framework(n: &str) -> Value {
    Value::Builtin(Builtin::Framework(Rc::from(n)))
}

/// The `vue` module.
pub(crate) fn module() -> Value {
    framework("vue")
}

/// A member of Vue's module, of an app `createApp` made, or of its config.
pub(crate) fn member(base: &str, prop: &str) -> Option<Value> {
    Some(match (base, prop) {
        ("vue", "default" | "Vue") => module(),
        ("vue", "prototype") | ("vue.config", "globalProperties") => framework("vue.globals"),
        ("vue", "createApp" | "createSSRApp") => framework("vue.createApp"),
        ("vue", "use") => framework("vue.use"),
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
            "vue.use" => (module(), module()),
            "vue.app.use" => (framework("vue.app"), framework("vue.app")),
            _ => return None,
        };
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

    /// A global property a component reads as `this.$name`, if the program set one.
    pub(crate) fn vue_global(&self, prop: &str) -> Option<Value> {
        if !prop.starts_with('$') {
            return None;
        }
        self.libs.vue.globals.get(prop).cloned()
    }
}
