//! express.io and its fork express.oi: Express with Socket.IO attached to
//! the app. Their default export is Express's (see `PACKAGES`), whose app
//! gains `http()`/`https(options)` (make the app's server, return the app)
//! and `io(options)`, which attaches a Socket.IO server as `app.io` and
//! returns the app. `app.io` is a plain Socket.IO server (`emit`, `to`,
//! `on('connection')` are Socket.IO's) with one method more, `route`:
//!
//! - `app.io.route('ping', fn)` listens for `ping` on every connection;
//! - `app.io.route('rooms', { list, join })` for `rooms:list` and
//!   `rooms:join`, a nested object adding `:key` at each level, and
//!   `app.io.route({ list })` for the bare keys;
//! - `req.io.route('rooms:list')` (three arguments inside the library)
//!   forwards an HTTP request to a socket route: a call, not a listener.
//!
//! A route's handler gets `(req, res)`: express.oi's `req` holds the socket
//! (`req.socket`) and the payload (`req.data`, `req.param(name)`), its `res`
//! answers the acknowledgement (`res.json`, `res.send`); express.io's `req.io`
//! is the socket's side (`req.io.emit`, `req.io.join`), whose `respond`
//! answers the acknowledgement.
//! Captures: one listener site per event name at the `route` call, and the
//! handler run with those values, so the sites it reaches are charted.
//!
//! Deliberately not here: express.io's `req.io.broadcast(…)` and
//! `req.io.room(r).broadcast(…)` (functions, not Socket.IO's `broadcast`
//! flag), and the session sharing `app.io.session(…)` sets up.

use super::socketio_syntax::any_expr;
use crate::inventory::{Direction, Side};
use crate::ir::{Call, Expr};
use crate::machine::{Ctx, Interp};
use crate::value::{HttpVal, ObjData, RequestPart, Sio, SioKind, Unknown, Value};
use std::rc::Rc;

/// How deep nested handler objects are followed (`{ a: { b: { … } } }`).
const MAX_DEPTH: u32 = 8;

impl Interp {
    /// `app.io(options)` on the app `id`: a Socket.IO server made at the
    /// call, kept as the app's `io`; the app is returned.
    pub(crate) fn express_io_attach(&mut self, ctx: &Ctx, id: u32, call: &Call) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        let server = self.new_sio_server(ctx, &argv, call.line);
        self.rec.routers[id as usize]
            .props
            .insert("io".to_string(), server);
        Value::Router(id)
    }

    /// `io.route(…)` on a Socket.IO server `s` the program did not give a
    /// `route` of its own (see the module doc).
    pub(crate) fn express_io_route(&mut self, ctx: &Ctx, s: &Rc<Sio>, call: &Call) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        // `io.route(name, req, res)`: the library forwarding a request.
        if argv.len() >= 3 {
            return Value::Undef;
        }
        let (prefix, handlers) = match argv.as_slice() {
            [handlers] => (Some(String::new()), handlers.clone()),
            [name, handlers] => (self.force_deep(name.clone()).as_text(), handlers.clone()),
            _ => return Value::Undef,
        };
        let Some(prefix) = prefix else {
            // The name is only known at run time: said as for `socket.on`.
            self.event_name_of(ctx, argv.first(), call.args.first(), call.line);
            return Value::Undef;
        };
        let mut routes = Vec::new();
        self.express_io_routes(prefix, handlers, 0, &mut routes);
        let sock = s.derive(SioKind::Socket);
        for (name, handler) in routes {
            let Value::Func(c) = &handler else { continue };
            let recorded = !self.modes.sio_quiet;
            // express.oi answers with `res`, express.io with `req.io.respond`.
            let ack = c.func.params.len() >= 2
                || any_expr(
                    &c.func.body,
                    &|e| matches!(e, Expr::Call(k) if matches!(&k.callee, Expr::Member(_, m) if m == "respond")),
                );
            self.push_site(
                ctx,
                call,
                s,
                &name,
                false,
                Side::Server,
                Direction::ClientToServer,
                "on",
                &[],
                ack,
                None,
            );
            let site = self.rec.sites.len().checked_sub(1).filter(|_| recorded);
            let req = ObjData::over_unknown(Unknown::Dynamic);
            req.set("socket", sock.clone());
            req.set("io", sock.clone());
            req.set("data", Value::Http(HttpVal::Part(RequestPart::Payload)));
            let res = Value::Obj(ObjData::over_unknown(Unknown::Dynamic));
            let args = vec![Value::Obj(req), res];
            self.run_listener(ctx, &handler, args, call.line, None, site);
        }
        Value::Undef
    }

    /// The event names `handlers` listens for under `prefix`, each with its
    /// handler, in the order the object lists them (the library's `for…in`).
    fn express_io_routes(
        &mut self,
        prefix: String,
        handlers: Value,
        depth: u32,
        out: &mut Vec<(String, Value)>,
    ) {
        match self.force_deep(handlers) {
            f @ Value::Func(_) => out.push((prefix, f)),
            Value::Obj(o) if depth < MAX_DEPTH => {
                let ns = if prefix.is_empty() {
                    String::new()
                } else {
                    format!("{prefix}:")
                };
                for (k, v) in o.entries() {
                    self.express_io_routes(format!("{ns}{k}"), v, depth + 1, out);
                }
            }
            _ => {}
        }
    }
}

/// Whether a call's callee is `<x>.io.route` or `io.route` with a name (or
/// object) and handlers: the census's express.io route (see the module doc).
pub(crate) fn census_route(recv: &Expr, args: &[Expr]) -> bool {
    let io = match recv {
        Expr::Member(_, n) | Expr::Ident(n) => n == "io",
        _ => false,
    };
    io && matches!(
        args,
        [Expr::Object(_)]
            | [
                Expr::Str(_) | Expr::Ident(_) | Expr::Member(..),
                Expr::Func(_) | Expr::Object(_) | Expr::Ident(_) | Expr::Member(..)
            ]
    )
}
