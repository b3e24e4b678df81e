//! Node's `EventEmitter` as a base class. `class Host extends EventEmitter`
//! gives each instance the listeners and emits that `events` keeps, as a
//! `new EventEmitter()` has them (`Value::Emitter`, `Interp::emitter_method`):
//! an extension's `host.on('web-configure', (app) => app.get(…))` runs with
//! the app the host's `this.emit('web-configure', app)` hands it.
//!
//! A plain `new EventEmitter()` is such an instance too: an object the
//! program may write properties on (pa11y-dashboard's `const app = new
//! EventEmitter(); app.express = express()`, read back as `app.express.get(…)`
//! in every route file), with the same listeners and emits.
//!
//! A method the program's class defines itself (an overridden `emit`), or a
//! function the program stores under a method's name on an instance, is the
//! program's.

use super::*;
use crate::value::Emitter;

/// Whether `name` is a method of an `EventEmitter` the machine models.
pub(crate) fn is_emitter_method(name: &str) -> bool {
    EMITTER_METHODS.contains(&name)
}

/// Whether `name` adds a listener to an `EventEmitter` (`on` and its
/// other names): what Socket.IO servers, namespaces and sockets, and the
/// census, read the same way.
pub(crate) fn is_listen_method(name: &str) -> bool {
    LISTEN_METHODS.contains(&name)
}

/// The names `EventEmitter.prototype` adds a listener under.
const LISTEN_METHODS: &[&str] = &[
    "on",
    "once",
    "addListener",
    "prependListener",
    "prependOnceListener",
];

/// The methods of `EventEmitter.prototype` a program calls on an instance.
const EMITTER_METHODS: &[&str] = &[
    "on",
    "once",
    "addListener",
    "prependListener",
    "prependOnceListener",
    "emit",
    "off",
    "removeListener",
    "removeAllListeners",
    "setMaxListeners",
];

impl Interp {
    /// `EventEmitter`'s constructor run for `this`, an instance of a
    /// program's subclass (`super()`, or a subclass with no constructor).
    pub(crate) fn emitter_instance(&mut self, this: &Value) {
        if let Value::Obj(o) = this
            && self.emitter_of(o).is_none()
        {
            self.js.emitters.push((o.clone(), Rc::default()));
        }
    }

    /// `new EventEmitter()` (or `EventEmitter()`): a fresh object whose
    /// listeners `events` keeps.
    pub(crate) fn new_emitter(&mut self) -> Value {
        let o = ObjData::new();
        self.js.emitters.push((o.clone(), Rc::default()));
        Value::Obj(o)
    }

    pub(crate) fn emitter_of(&self, o: &Rc<ObjData>) -> Option<Rc<Emitter>> {
        self.js
            .emitters
            .iter()
            .find(|(d, _)| Rc::ptr_eq(d, o))
            .map(|(_, e)| e.clone())
    }

    /// `instance.on(…)`, `instance.emit(…)`, … on an instance of a subclass
    /// of `EventEmitter` whose class does not define the method: the base
    /// class's, which returns the instance where it returns the emitter.
    /// `None` for any other object or method.
    pub(crate) fn inherited_emitter_method(
        &mut self,
        ctx: &Ctx,
        o: &Value,
        name: &str,
        call: &Call,
    ) -> Option<Value> {
        let Value::Obj(data) = o else {
            return None;
        };
        if !EMITTER_METHODS.contains(&name) {
            return None;
        }
        let em = self.emitter_of(data)?;
        if matches!(self.member(o, name), Value::Func(_)) {
            return None;
        }
        Some(match self.emitter_method(ctx, &em, name, call) {
            Value::Emitter(_) => o.clone(),
            v => v,
        })
    }
}
