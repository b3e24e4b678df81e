//! Members of built-in values: what `x.p` gives when `x` is a module object,
//! namespace or constructor the machine models (`express.Router`,
//! `Object.keys`, `path.join`, `HttpStatus.NOT_FOUND`, a package's export).
//!
//! Deliberately not here: members of objects, arrays, strings and class
//! instances (`expr.rs`), and calls of what a member gives (`call.rs`).

use super::*;

/// The code of a status constant as the status-code packages name it
/// (`CREATED`, `NOT_FOUND`, `UNPROCESSABLE_ENTITY`; also `200`-style keys).
pub(crate) fn status_code_named(name: &str) -> Option<u16> {
    if let Ok(n) = name.parse::<u16>() {
        return (100..600).contains(&n).then_some(n);
    }
    Some(match name {
        "CONTINUE" => 100,
        "SWITCHING_PROTOCOLS" => 101,
        "PROCESSING" => 102,
        "OK" => 200,
        "CREATED" => 201,
        "ACCEPTED" => 202,
        "NON_AUTHORITATIVE_INFORMATION" => 203,
        "NO_CONTENT" => 204,
        "RESET_CONTENT" => 205,
        "PARTIAL_CONTENT" => 206,
        "MULTI_STATUS" => 207,
        "MULTIPLE_CHOICES" => 300,
        "MOVED_PERMANENTLY" => 301,
        "MOVED_TEMPORARILY" | "FOUND" => 302,
        "SEE_OTHER" => 303,
        "NOT_MODIFIED" => 304,
        "TEMPORARY_REDIRECT" => 307,
        "PERMANENT_REDIRECT" => 308,
        "BAD_REQUEST" => 400,
        "UNAUTHORIZED" => 401,
        "PAYMENT_REQUIRED" => 402,
        "FORBIDDEN" => 403,
        "NOT_FOUND" => 404,
        "METHOD_NOT_ALLOWED" => 405,
        "NOT_ACCEPTABLE" => 406,
        "PROXY_AUTHENTICATION_REQUIRED" => 407,
        "REQUEST_TIMEOUT" => 408,
        "CONFLICT" => 409,
        "GONE" => 410,
        "LENGTH_REQUIRED" => 411,
        "PRECONDITION_FAILED" => 412,
        "REQUEST_TOO_LONG" | "PAYLOAD_TOO_LARGE" | "REQUEST_ENTITY_TOO_LARGE" => 413,
        "REQUEST_URI_TOO_LONG" | "URI_TOO_LONG" => 414,
        "UNSUPPORTED_MEDIA_TYPE" => 415,
        "REQUESTED_RANGE_NOT_SATISFIABLE" | "RANGE_NOT_SATISFIABLE" => 416,
        "EXPECTATION_FAILED" => 417,
        "IM_A_TEAPOT" => 418,
        "MISDIRECTED_REQUEST" => 421,
        "UNPROCESSABLE_ENTITY" => 422,
        "LOCKED" => 423,
        "FAILED_DEPENDENCY" => 424,
        "TOO_EARLY" => 425,
        "UPGRADE_REQUIRED" => 426,
        "PRECONDITION_REQUIRED" => 428,
        "TOO_MANY_REQUESTS" => 429,
        "REQUEST_HEADER_FIELDS_TOO_LARGE" => 431,
        "UNAVAILABLE_FOR_LEGAL_REASONS" => 451,
        "INTERNAL_SERVER_ERROR" => 500,
        "NOT_IMPLEMENTED" => 501,
        "BAD_GATEWAY" => 502,
        "SERVICE_UNAVAILABLE" => 503,
        "GATEWAY_TIMEOUT" => 504,
        "HTTP_VERSION_NOT_SUPPORTED" => 505,
        "INSUFFICIENT_STORAGE" => 507,
        "NETWORK_AUTHENTICATION_REQUIRED" => 511,
        _ => return None,
    })
}

pub(crate) fn member_of_builtin(base: &Value, prop: &str) -> Value {
    let Value::Builtin(b) = base else {
        return Value::dynamic();
    };
    match (b, prop) {
        // Values a library owns: `libs/mod.rs` asks the libraries.
        _ if let Some(v) = crate::libs::member(b, prop) => v,
        (Builtin::Express, "Router") => Value::Builtin(Builtin::RouterCtor),
        (Builtin::Ajv, "default" | "Ajv" | "Ajv2019" | "Ajv2020") => Value::Builtin(Builtin::Ajv),
        (Builtin::AjvInstance, m) => match m {
            "compile" => Value::Builtin(Builtin::AjvMethod("compile")),
            "validate" => Value::Builtin(Builtin::AjvMethod("validate")),
            "addSchema" | "addFormat" | "addKeyword" | "addVocabulary" | "removeSchema" => {
                Value::Builtin(Builtin::AjvMethod("chain"))
            }
            _ => Value::external(),
        },
        (Builtin::EventEmitterCtor, "EventEmitter" | "default") => {
            Value::Builtin(Builtin::EventEmitterCtor)
        }
        (Builtin::HttpStatus, "default" | "StatusCodes" | "status" | "httpStatus") => {
            Value::Builtin(Builtin::HttpStatus)
        }
        (Builtin::HttpStatus, name) => match status_code_named(name) {
            Some(code) => Value::Num(code as f64),
            None => Value::external(),
        },
        (Builtin::JsonValidator, "Validator" | "default") => Value::Builtin(Builtin::JsonValidator),
        (Builtin::JsonValidator, "validate") => Value::Builtin(Builtin::JsonValidate),
        (Builtin::JsonValidator, "ajv") => Value::Builtin(Builtin::AjvInstance),
        (Builtin::Express, "default") => Value::Builtin(Builtin::Express),
        (Builtin::Express, p) => Value::Builtin(Builtin::MiddlewareFactory(Rc::from(
            format!("express.{p}").as_str(),
        ))),
        (Builtin::PathModule, "join" | "normalize") => Value::Builtin(Builtin::PathJoin),
        (Builtin::PathModule, p) if let Some(v) = node::path_member(p) => v,
        (Builtin::PathModule, "posix" | "default") => Value::Builtin(Builtin::PathModule),
        (Builtin::UrlJoin, "default") => Value::Builtin(Builtin::UrlJoin),
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
        (Builtin::ArrayNs, "from") => Value::Builtin(Builtin::ArrayFrom),
        (Builtin::ArrayNs, "isArray") => Value::Builtin(Builtin::ArrayIsArray),
        (Builtin::SocketIo, "Server" | "default") => Value::Builtin(Builtin::SocketIoServer),
        // Socket.IO 0.9/1.x: `require('socket.io').listen(server, opts)`.
        (Builtin::SocketIo, "listen" | "attach") => Value::Builtin(Builtin::SocketIo),
        (Builtin::Zod, "z" | "default" | "coerce" | "zod") => Value::Builtin(Builtin::Zod),
        (Builtin::Zod, p) => Value::Builtin(Builtin::ZodBuilder(Rc::from(p))),
        (Builtin::ZodBuilder(ns), p) if ns.as_ref() == "iso" || ns.as_ref() == "string" => {
            Value::Builtin(Builtin::ZodBuilder(Rc::from(format!("iso.{p}").as_str())))
        }
        (Builtin::Joi, "default" | "Joi") => Value::Builtin(Builtin::Joi),
        (Builtin::Joi, p) => Value::Builtin(Builtin::JoiBuilder(Rc::from(p))),
        (Builtin::Celebrate, "Joi") => Value::Builtin(Builtin::Joi),
        (Builtin::Celebrate, "celebrate" | "default") => Value::Builtin(Builtin::Celebrate),
        (Builtin::Celebrate, "Segments") => {
            let o = ObjData::new();
            for (k, v) in [
                ("BODY", "body"),
                ("QUERY", "query"),
                ("PARAMS", "params"),
                ("HEADERS", "headers"),
                ("COOKIES", "cookies"),
            ] {
                o.set(k, Value::str(v));
            }
            Value::Obj(o)
        }
        (Builtin::CheckField(CheckField::Module), p) => {
            Value::Builtin(Builtin::CheckField(match p {
                "body" | "check" | "checkBody" => CheckField::Part(RequestPart::Body),
                "query" | "checkQuery" => CheckField::Part(RequestPart::Query),
                "param" | "checkParams" => CheckField::Part(RequestPart::Params),
                "header" | "checkHeaders" => CheckField::Part(RequestPart::Headers),
                "cookie" => CheckField::Part(RequestPart::Cookies),
                "checkSchema" => CheckField::Schema,
                _ => return Value::external(),
            }))
        }
        (Builtin::SocketIoClient, "io" | "connect" | "default") => {
            Value::Builtin(Builtin::SocketIoClient)
        }
        (Builtin::SocketIoClient, "Manager") => Value::Builtin(Builtin::SocketIoManager),
        (Builtin::PromiseNs, "all" | "resolve") => Value::Builtin(Builtin::Identity),
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
