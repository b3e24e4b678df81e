//! Currying packages: `currify(f)`, `R.curry(f)` (ramda), `curry(f)` of
//! `lodash.curry`, `just-curry-it` and `curry`, and lodash's `_.curry(f)`
//! (`libs/lodash.rs`). Each gives a curried function: `f` runs once its
//! calls gave as many arguments as `f` declares parameters
//! ([`crate::value::Builtin::Curried`]). So a connection listener built by
//! one (`io.on('connection', onConnection(config))` with `const
//! onConnection = currify((config, socket) => …)`) runs with the socket
//! Socket.IO hands it, as a route handler built by one runs with `req` and
//! `res`.
//!
//! Deliberately not: placeholders (`R.__`, `_.curry.placeholder`), an arity
//! given as a second argument, `curryRight`, uncurrying.

use crate::value::{Builtin, Curried, Value};
use std::rc::Rc;

/// The packages whose module (or a member named `curry`) curries.
const PACKAGES: &[(&str, Option<&str>)] = &[
    ("currify", None),
    ("curry", None),
    ("just-curry-it", None),
    ("lodash.curry", None),
    ("ramda", Some("curry")),
];

/// `pkg.name(f)` or `name(f)` imported from `pkg`: `f` curried when the
/// package is a currying one and `name` its curry function (any name for a
/// package whose module is the function).
pub(crate) fn external_call(pkg: &str, name: &str, argv: &[Value]) -> Option<Value> {
    let (_, member) = PACKAGES.iter().find(|(p, _)| *p == pkg)?;
    if member.is_some_and(|m| m != name) {
        return None;
    }
    Some(curried(argv.first().cloned().unwrap_or(Value::Undef)))
}

/// `f` curried (anything else: what currying it gives is not known).
pub(crate) fn curried(f: Value) -> Value {
    match f {
        Value::Func(func) => Value::Builtin(Builtin::Curried(Rc::new(Curried {
            func,
            held: Vec::new(),
        }))),
        _ => Value::external(),
    }
}
