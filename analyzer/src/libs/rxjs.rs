//! RxJS over Socket.IO: `fromEvent(socket, 'name')` makes an Observable of
//! the events `name` that `socket` emits, by adding a listener to it (RxJS
//! calls the target's `addListener`/`on`), as Angular clients commonly
//! listen (`fromEvent<Payload>(this.socket, Events.SYNC).pipe(…)`).
//!
//! Captures: a `fromEvent` of the `rxjs` package whose target is a Socket.IO
//! value, charted as that value's `on(name)` at the call (client or server
//! side as the value is); the Observable it returns is a package's value,
//! whose `pipe(…)`/`subscribe(…)` callbacks run as any package's do.
//!
//! Deliberately not here: other RxJS creators over sockets (`fromEventPattern`
//! with handlers written by the program are run as code), and which
//! payload the operators pass on.

use crate::ir::{Call, Expr};
use crate::machine::{Ctx, Interp};
use crate::value::Value;

/// The package.
const PACKAGE: &str = "rxjs";

/// `pkg.name(…)` (or `name(…)` imported from `pkg`), a function of a package
/// the analysis does not model, if it is `fromEvent` of RxJS over a
/// Socket.IO value: the listener charted, the Observable returned.
pub(crate) fn external_call(
    ip: &mut Interp,
    ctx: &Ctx,
    pkg: &str,
    name: &str,
    call: &Call,
    argv: &[Value],
) -> Option<Value> {
    if pkg != PACKAGE || name != "fromEvent" || call.args.len() < 2 {
        return None;
    }
    let Value::Sio(s) = ip.force_deep(argv.first()?.clone()) else {
        return None;
    };
    // Charted as `target.on(name)` written at the call.
    let on = Call {
        callee: Expr::Member(Box::new(call.args[0].clone()), "on".into()),
        args: call.args[1..2].to_vec(),
        line: call.line,
        type_args: Vec::new(),
        doc: call.doc.clone(),
    };
    ip.sio_method(ctx, &s, "on", &on);
    Some(Value::external())
}

/// Whether a call is `fromEvent(target, name, …)` by its callee's name: the
/// census's listener site (its receiver is the first argument).
pub(crate) fn census_from_event(callee: &Expr, args: &[Expr]) -> bool {
    let named = match callee {
        Expr::Ident(n) | Expr::Member(_, n) => n == "fromEvent",
        _ => false,
    };
    named && args.len() >= 2 && !matches!(args[1], Expr::Func(_) | Expr::Object(_))
}
