//! microframework (`microframework-w3tec`, and pleerock's `microframework`
//! it forks): `bootstrapMicroframework({ loaders })` (or the list of loaders
//! itself) calls each loader, in order, with the one `MicroframeworkSettings`
//! object of the run, as the library does; the loaders are where such a
//! program makes its Express app (`createExpressServer(...)` of
//! routing-controllers) and adds its routes.
//!
//! Example: `bootstrapMicroframework({ loaders: [expressLoader, monitorLoader] })`
//! runs `expressLoader(settings)`, whose `createExpressServer({...})` makes
//! the app, then `monitorLoader(settings)`, whose
//! `settings.getData('express_app').use('/monitor', …)` adds to it.
//!
//! The settings object keeps what the loaders store with `setData(key,
//! value)` and answers `getData(key)` with it, as the library's
//! `MicroframeworkSettings` does (one per run; a key nothing stored, or one
//! only known at run time, reads as only known at run time); its other
//! members are only known at run time. Not modelled: the `config` option,
//! `onShutdown` callbacks, loaders that return promises (each is called, not
//! awaited).

use crate::machine::{Ctx, Interp};
use crate::value::{Builtin, ObjData, Unknown, Value};
use std::rc::Rc;

/// `bootstrapMicroframework`, as a package function's name.
pub(crate) const BOOTSTRAP: &str = "microframework.bootstrapMicroframework";

/// The settings object's `getData`/`setData`, as values a library made.
const GET_DATA: &str = "microframework.getData";
const SET_DATA: &str = "microframework.setData";

/// A member of `microframework-w3tec` or `microframework` this module models.
pub(crate) fn member(module: &str, prop: &str) -> Option<Value> {
    match (module, prop) {
        ("microframework-w3tec" | "microframework", "bootstrapMicroframework") => Some(
            Value::Builtin(Builtin::MiddlewareFactory(Rc::from(BOOTSTRAP))),
        ),
        _ => None,
    }
}

impl Interp {
    /// `bootstrapMicroframework(options | loaders)`: each loader called with
    /// the settings object (see the module doc).
    pub(crate) fn microframework_bootstrap(
        &mut self,
        ctx: &Ctx,
        argv: &[Value],
        line: u32,
    ) -> Value {
        let loaders = match argv.first().map(|v| self.force_deep(v.clone())) {
            Some(Value::Obj(o)) => o.get("loaders").map(|v| self.force_deep(v)),
            other => other,
        };
        let settings = ObjData::over_unknown(Unknown::Dynamic);
        settings.set("getData", super::framework(GET_DATA));
        settings.set("setData", super::framework(SET_DATA));
        let settings = Value::Obj(settings);
        if let Some(Value::Arr(items)) = loaders {
            let items = items.borrow().clone();
            for loader in items {
                let loader = self.force(loader, 0);
                if matches!(loader, Value::Func(_)) {
                    self.call_value_now(ctx, &loader, vec![settings.clone()], &[], line, None);
                }
            }
        }
        Value::dynamic()
    }

    /// `settings.getData(key)` / `settings.setData(key, value)` on the
    /// settings object (see the module doc); `None` for other names.
    pub(crate) fn microframework_data(&mut self, name: &str, argv: &[Value]) -> Option<Value> {
        let key = argv
            .first()
            .and_then(|k| self.force(k.clone(), 0).as_text());
        match name {
            SET_DATA => {
                if let Some(key) = key {
                    let v = argv.get(1).cloned().unwrap_or(Value::Undef);
                    self.libs.microframework_data.insert(key, v);
                }
                Some(Value::Undef)
            }
            GET_DATA => Some(
                key.and_then(|k| self.libs.microframework_data.get(&k).cloned())
                    .unwrap_or_else(Value::dynamic),
            ),
            _ => None,
        }
    }
}
