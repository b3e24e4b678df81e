//! bluebird: a Promise implementation whose module is a Promise constructor
//! with more statics. The machine treats a promise as the value it settles
//! to (`then` calls back with it, `await` gives it), so bluebird's promise
//! methods that work on that value (`.map(fn)` on a promise of an array)
//! are the value's own.
//!
//! ```js
//! const BBPromise = require('bluebird')
//! const fs = BBPromise.promisifyAll(require('fs'))
//! fs.readdirAsync(`${__dirname}/routes`).map((f) => BBPromise.try(() => require(`./routes/${f}`)(app)))
//! ```
//!
//! Captures: the module as `Promise` (`new BBPromise(executor)` runs the
//! executor, `BBPromise.resolve(v)` is `v`); `try`/`attempt` call their
//! function now and give what it returns; `promisify`, `promisifyAll`,
//! `method`, `props` and `coroutine` give their argument (a promisified
//! function called without a callback gives what the function does);
//! `map`, `each`, `mapSeries`, `filter` and `reduce` over a list as
//! lodash's functions of those names do; and the `…Async` methods
//! `promisifyAll` adds to Node's `fs` (`readdirAsync`), which are fs's own.
//!
//! Deliberately not: cancellation, `timeout`, `delay` and `spread` on a
//! promise (what they give stays unknown), `fromCallback`, and `…Async`
//! methods of objects other than `fs`.

use crate::machine::*;

/// A member of bluebird's module (the Promise constructor the machine
/// models), or one `promisifyAll` adds to Node's `fs`.
pub(crate) fn builtin_member(b: &Builtin, prop: &str) -> Option<Value> {
    match (b, prop) {
        (Builtin::PromiseNs, "attempt") => Some(Value::Builtin(Builtin::Node(NodeFn::CallsArg(0)))),
        (Builtin::PromiseNs, "promisify" | "promisifyAll" | "method" | "props" | "coroutine") => {
            Some(Value::Builtin(Builtin::Identity))
        }
        (Builtin::PromiseNs, "map" | "each" | "mapSeries" | "filter" | "reduce") => {
            let name = if prop == "mapSeries" { "map" } else { prop };
            Some(Value::Builtin(Builtin::Lodash(Rc::from(name))))
        }
        (Builtin::PromiseNs, "Promise" | "default") => Some(Value::Builtin(Builtin::PromiseNs)),
        (Builtin::FsModule, p) if p.len() > 5 && p.ends_with("Async") => {
            Some(crate::machine::node::fs_member(&p[..p.len() - 5]))
        }
        _ => None,
    }
}
