//! Members of built-in values: what `x.p` gives when `x` is a module object,
//! namespace or constructor the machine models (`Object.keys`, `path.join`,
//! `Promise.all`, a package's export), after the libraries answered for the
//! values they own (`libs::member`: `express.Router`, `HttpStatus.NOT_FOUND`).
//!
//! Deliberately not here: members of objects, arrays, strings and class
//! instances (`expr.rs`), and calls of what a member gives (`call.rs`).

use super::*;

pub(crate) fn member_of_builtin(base: &Value, prop: &str) -> Value {
    let Value::Builtin(b) = base else {
        return Value::dynamic();
    };
    match (b, prop) {
        // Values a library owns: `libs/mod.rs` asks the libraries.
        _ if let Some(v) = crate::libs::member(b, prop) => v,
        (Builtin::EventEmitterCtor, "EventEmitter" | "default") => {
            Value::Builtin(Builtin::EventEmitterCtor)
        }
        (Builtin::PathModule, "join" | "normalize") => Value::Builtin(Builtin::PathJoin),
        (Builtin::PathModule, p) if let Some(v) = node::path_member(p) => v,
        (Builtin::PathModule, "posix" | "default") => Value::Builtin(Builtin::PathModule),
        (
            Builtin::ObjectNs,
            f @ ("keys"
            | "values"
            | "entries"
            | "assign"
            | "freeze"
            | "fromEntries"
            | "defineProperty"
            | "create"
            | "setPrototypeOf"
            | "getPrototypeOf"
            | "getOwnPropertyNames"),
        ) => Value::Builtin(Builtin::ObjectFn(match f {
            "keys" => "keys",
            "values" => "values",
            "entries" => "entries",
            "assign" => "assign",
            "freeze" => "freeze",
            "fromEntries" => "fromEntries",
            "create" => "create",
            "setPrototypeOf" => "setPrototypeOf",
            "getPrototypeOf" => "getPrototypeOf",
            "getOwnPropertyNames" => "getOwnPropertyNames",
            _ => "defineProperty",
        })),
        (Builtin::ReflectNs, m) => match metadata::REFLECT_METADATA.iter().find(|n| **n == m) {
            Some(m) => Value::Builtin(Builtin::ReflectFn(m)),
            // `Reflect.get`, `Reflect.ownKeys`, …: not modelled.
            None => Value::external(),
        },
        (Builtin::ArrayNs, "prototype") => Value::array(Vec::new()),
        // `x.constructor.name`.
        (Builtin::ObjectNs, "name") => Value::str("Object"),
        (Builtin::ArrayNs, "name") => Value::str("Array"),
        (Builtin::FunctionCtor(n), "name") => Value::str(n),
        (Builtin::FunctionCtor("Symbol"), "for") => {
            Value::Builtin(Builtin::FunctionCtor("Symbol.for"))
        }
        (Builtin::ArrayNs, "from") => Value::Builtin(Builtin::ArrayFrom),
        (Builtin::ArrayNs, "isArray") => Value::Builtin(Builtin::ArrayIsArray),
        (Builtin::PromiseNs, "all" | "resolve") => Value::Builtin(Builtin::Identity),
        // `Promise.try(f, ...args)` (ES2025) calls `f` now.
        (Builtin::PromiseNs, "try") => Value::Builtin(Builtin::Node(NodeFn::CallsArg(0))),
        (Builtin::PromiseNs, "allSettled") => Value::Builtin(Builtin::PromiseAllSettled),
        (Builtin::FsModule, p) => node::fs_member(p),
        (Builtin::Require, "resolve") => Value::Builtin(Builtin::Node(NodeFn::RequireResolve)),
        (Builtin::Node(n), p) => node::member(n, p),
        (Builtin::OpaqueModule(m), p) => Value::Builtin(Builtin::MiddlewareFactory(Rc::from(
            format!("{m}.{p}").as_str(),
        ))),
        _ => Value::external(),
    }
}
