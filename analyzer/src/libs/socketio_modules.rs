//! The members of the `socket.io` and `socket.io-client` modules' values:
//! the server class (and 0.9/1.x's `listen`/`attach`), the client's `io`,
//! `connect` and `Manager`.
//!
//! Deliberately not: what calling them makes (`socketio.rs`,
//! `socketio_client.rs`).

use crate::value::{Builtin, Value};

/// A member of the `socket.io` or `socket.io-client` module.
pub(crate) fn module_member(b: &Builtin, prop: &str) -> Option<Value> {
    Some(match (b, prop) {
        (Builtin::SocketIo, "Server" | "default") => Value::Builtin(Builtin::SocketIoServer),
        // Socket.IO 0.9/1.x: `require('socket.io').listen(server, opts)`.
        (Builtin::SocketIo, "listen" | "attach") => Value::Builtin(Builtin::SocketIo),
        (Builtin::SocketIoClient, "io" | "connect" | "default") => {
            Value::Builtin(Builtin::SocketIoClient)
        }
        (Builtin::SocketIoClient, "Manager") => Value::Builtin(Builtin::SocketIoManager),
        _ => return None,
    })
}
