//! Members of an Express app that Express itself defines, read before (or
//! without) the program assigning them; and the members of the `express`
//! module ([`module_member`]).
//!
//! Captures:
//! - `app.locals`: the object Express creates with every app, which the
//!   program writes and reads (`app.locals.basePath = ''` where the app is
//!   made, `listenOpts.basePath || app.locals.basePath` where it is mounted).
//!   It stands for an object the analysis cannot see whole: the keys the
//!   program writes read what it wrote, any other key is only known at run
//!   time (Express and packages write their own, `settings`, view helpers).
//! - `app.router`: Express 3's middleware that runs the app's own routes at
//!   the place it is mounted (`app.use(app.router)`; Express 4 throws when it
//!   is read). It adds no route of its own: a package's value, not a value
//!   only known at run time that could hide a router.
//!
//! Deliberately not here: what the program assigns on the app (kept in
//! `RouterData::props` and read first), `app.settings` (`app.set`/`app.get`
//! keep their own table), and routers made by `express.Router()`, which have
//! neither member.

use crate::machine::Interp;
use crate::value::{Builtin, ObjData, Unknown, Value};
use std::rc::Rc;

impl Interp {
    /// The member `prop` Express defines on the app `id`, when the program
    /// has not assigned it; `None` for any other member or a router.
    pub(crate) fn express_app_member(&mut self, id: u32, prop: &str) -> Option<Value> {
        let r = &mut self.rec.routers[id as usize];
        if !r.is_app {
            return None;
        }
        match prop {
            "locals" => {
                let locals = Value::Obj(ObjData::over_unknown(Unknown::Dynamic));
                r.props.insert(prop.to_string(), locals.clone());
                Some(locals)
            }
            "router" => Some(Value::of_package("express")),
            _ => None,
        }
    }
}

/// A member of the `express` module: `Router`, the module itself as `default`,
/// and its middleware factories (`express.json`, `express.static`).
pub(crate) fn module_member(b: &Builtin, prop: &str) -> Option<Value> {
    Some(match (b, prop) {
        (Builtin::Express, "Router") => Value::Builtin(Builtin::RouterCtor),
        (Builtin::Express, "default") => Value::Builtin(Builtin::Express),
        (Builtin::Express, p) => Value::Builtin(Builtin::MiddlewareFactory(Rc::from(
            format!("express.{p}").as_str(),
        ))),
        _ => return None,
    })
}
