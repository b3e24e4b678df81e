//! Which Socket.IO-shaped items of the census count as event sites: a
//! receiver the evaluation saw as a socket, a file that imports Socket.IO, a
//! package that depends on it, and Node's own event names left out; and how
//! much a receiver's text looks like Socket.IO ([`socket_shape`]).

use super::account::RunView;
use super::{CensusItem, SocketShape};
use crate::ir::{Expr, FileFacts, Stmt};
use crate::machine::census_rec::Recv;
use crate::project::FileId;

/// Whether a Socket.IO-shaped `on`/`once`/`emit` item counts (see the
/// module doc). `sio_package` caches, per file, whether its package depends
/// on Socket.IO.
pub(super) fn socket_site(
    run: &RunView,
    file: FileId,
    item: &CensusItem,
    socket_file: bool,
    client: bool,
    sio_package: &mut Option<bool>,
) -> bool {
    let seen = run.interp.rec.census.sites.get(&(file, item.line));
    let recv = seen.and_then(|s| s.main.or(s.later));
    // (Not "an event site was charted at this line": that may be a helper's
    // call beside an emitter's `on`, `bus.on('x', d => relay('y', d))`.)
    if seen.is_some_and(|s| s.main == Some(Recv::Socket) || s.later == Some(Recv::Socket)) {
        return true;
    }
    let literal = item.first.starts_with('\'');
    let name = item.first.trim_matches('\'');
    match item.socket_shape {
        SocketShape::Io | SocketShape::SocketName | SocketShape::Connection if socket_file => {
            return true;
        }
        // The socket a Socket.IO connection listener gets, in a file of a
        // package that depends on Socket.IO: any name counts (it is no
        // `net`/`tls` socket), `message` and `error` too.
        SocketShape::Connection => {
            return *sio_package.get_or_insert_with(|| {
                run.project
                    .package_depends_on(run.project.rel(file), |n| n.starts_with("socket.io"))
            });
        }
        // A file of a package that depends on Socket.IO, with no Socket.IO
        // import of its own (`this.io.of(name).emit(...)` in a helper handed
        // the server): only Socket.IO's own vocabulary counts, as `socket`
        // names there are as often `net`/`tls` sockets.
        SocketShape::Io => {
            return (!literal || !NODE_EVENTS.contains(&name))
                && *sio_package.get_or_insert_with(|| {
                    run.project
                        .package_depends_on(run.project.rel(file), |n| n.starts_with("socket.io"))
                });
        }
        // Browser code of a package that depends on Socket.IO: a `socket`
        // there is not a `net`/`tls` one, and the file need not import
        // Socket.IO to use one (`this.props.socket.emit(…)` in a component
        // handed the socket by its parent). A name Node's objects also use
        // counts there when server code in the project uses it too (a
        // client's `socket.on('message', …)` where the server emits
        // `message`: browsers have no Node streams or processes).
        SocketShape::SocketName if client => {
            if (!literal || !NODE_EVENTS.contains(&name) || server_uses(run, name))
                && *sio_package.get_or_insert_with(|| {
                    run.project
                        .package_depends_on(run.project.rel(file), |n| n.starts_with("socket.io"))
                })
            {
                return true;
            }
        }
        SocketShape::SocketName | SocketShape::Plain => {}
    }
    // Any other receiver: in a file that imports Socket.IO, a literal name
    // that is not Node's, on a receiver that the evaluation did not see as
    // something else.
    let root = item
        .receiver
        .split(['.', '(', '[', '?'])
        .next()
        .unwrap_or("");
    let emitter = item.receiver.split(['.', '(', '[', '?']).any(|seg| {
        let l = seg.to_ascii_lowercase();
        [
            "emitter", "event", "bus", "queue", "redis", "stream", "pubsub",
        ]
        .iter()
        .any(|w| l.contains(w))
    });
    literal
        && !emitter
        && matches!(recv, None | Some(Recv::Dynamic | Recv::Param))
        && item.receiver_package.is_none()
        && !matches!(root, "process" | "window" | "document" | "console")
        && !NODE_EVENTS.contains(&name)
        && imports_socket_io_itself(&run.loader.get(file).facts)
}

/// Whether a charted server site emits or listens for the event `name`.
fn server_uses(run: &RunView, name: &str) -> bool {
    run.interp
        .rec
        .sites
        .iter()
        .any(|s| s.side == crate::inventory::Side::Server && s.name == name)
}

/// Whether a file imports the Socket.IO server or client itself (not a
/// parser, adapter or other package of the family), statically.
fn imports_socket_io_itself(facts: &FileFacts) -> bool {
    // (`import type { Server } from 'socket.io'` is erased: the file does not
    // use Socket.IO at run time.)
    let runtime = facts.body.iter().filter_map(|st| match st {
        Stmt::Import(imp) if !imp.type_only => Some(imp.source.as_str()),
        Stmt::ExportNames(_, Some(s), _) | Stmt::ExportAll(s, _, _) => Some(s.as_str()),
        _ => None,
    });
    runtime
        .chain(facts.eager.iter().map(String::as_str))
        .any(|s| matches!(s, "socket.io" | "socket.io-client") || s.starts_with("socket.io/"))
}

/// Events Node's own objects emit (processes, streams, servers, child
/// processes, emitters): an `on`/`emit` of one of these on a receiver that
/// does not look like Socket.IO is taken for Node's.
const NODE_EVENTS: &[&str] = &[
    "close",
    "data",
    "end",
    "error",
    "finish",
    "drain",
    "readable",
    "pipe",
    "unpipe",
    "listening",
    "request",
    "upgrade",
    "checkContinue",
    "clientError",
    "exit",
    "spawn",
    "message",
    "online",
    "open",
    "response",
    "timeout",
    "abort",
    "aborted",
    "socket",
    "secureConnection",
    "newListener",
    "removeListener",
    "uncaughtException",
    "unhandledRejection",
    "warning",
    "beforeExit",
    "SIGINT",
    "SIGTERM",
    "SIGHUP",
    "SIGUSR1",
    "SIGUSR2",
    "SIGQUIT",
];

/// Whether a file imports Socket.IO (server or client), statically, at its
/// top level or in a function.
pub(super) fn imports_socket_io(facts: &FileFacts) -> bool {
    let sio = |s: &str| s.starts_with("socket.io") || s.starts_with("@nestjs/websockets");
    facts.static_sources().any(sio)
        || facts.eager.iter().any(|s| sio(s))
        || facts
            .fn_imports
            .iter()
            .any(|(_, v)| v.iter().any(|s| sio(s)))
}

/// How much a receiver looks like Socket.IO; `None` for Engine.IO and
/// adapter objects (`io.engine`, `nsp.adapter`, `socket.conn`,
/// `socket.request`), which are not.
pub(super) fn socket_shape(e: &Expr) -> Option<SocketShape> {
    let mut e = e;
    let mut named = false;
    for _ in 0..32 {
        match e {
            Expr::Member(_, n)
                if matches!(n.as_str(), "engine" | "adapter" | "conn" | "request") =>
            {
                return None;
            }
            Expr::Ident(n) | Expr::Member(_, n)
                if matches!(n.to_ascii_lowercase().as_str(), "io" | "nsp" | "namespace") =>
            {
                return Some(SocketShape::Io);
            }
            Expr::Ident(n) | Expr::Member(_, n) if socket_name(n) => named = true,
            Expr::Member(_, n) if matches!(n.as_str(), "broadcast" | "volatile" | "local") => {
                return Some(SocketShape::Io);
            }
            _ => {}
        }
        e = match e {
            Expr::Member(o, _) => o,
            Expr::Call(c) => match &c.callee {
                Expr::Member(o, m) => {
                    if matches!(m.as_str(), "to" | "in" | "except" | "of" | "timeout") {
                        return Some(SocketShape::Io);
                    }
                    o
                }
                _ => break,
            },
            _ => break,
        };
    }
    Some(if named {
        SocketShape::SocketName
    } else {
        SocketShape::Plain
    })
}

/// Whether a receiver looks like Socket.IO (see the module doc).
pub(super) fn socket_like(e: &Expr) -> bool {
    matches!(
        socket_shape(e),
        Some(SocketShape::Io | SocketShape::SocketName)
    )
}

pub(super) fn socket_name(n: &str) -> bool {
    n.to_ascii_lowercase().contains("socket")
}

/// The file's functions a Socket.IO connection listener hands its socket to:
/// (name, argument index) of each call in the listener (`io.on('connection',
/// (socket) => { this.attach(socket) })`, `register(io, socket)`) of a
/// method or function by name. Their parameter there is the connection's
/// socket too, as the listener's own is ([`SocketShape::Connection`]).
pub(super) fn socket_handoffs(body: &[Stmt]) -> Vec<(String, usize)> {
    use crate::libs::socketio_syntax::any_expr;
    use std::cell::RefCell;
    let out: RefCell<Vec<(String, usize)>> = RefCell::new(Vec::new());
    // The file's top level, and the constructors and methods of the classes
    // it declares (`any_expr` reads class expressions' methods only).
    let mut bodies: Vec<&[Stmt]> = vec![body];
    for st in body {
        let st = match st {
            Stmt::ExportDecl(inner, _) => inner.as_ref(),
            st => st,
        };
        if let Stmt::Class(_, c) = st {
            bodies.extend(c.constructor.iter().map(|k| k.body.as_slice()));
            bodies.extend(c.methods.iter().map(|(_, f)| f.body.as_slice()));
        }
    }
    let find = |e: &Expr| {
        let Expr::Call(c) = e else { return false };
        if !super::connection_listener(c) {
            return false;
        }
        for a in &c.args {
            let Expr::Func(f) = a else { continue };
            let Some(crate::ir::Pattern::Ident(socket)) = f.params.first() else {
                continue;
            };
            any_expr(&f.body, &|e| {
                let Expr::Call(inner) = e else { return false };
                let callee = match &inner.callee {
                    Expr::Ident(m) => m,
                    Expr::Member(o, m) if matches!(o.as_ref(), Expr::This) => m,
                    _ => return false,
                };
                for (i, x) in inner.args.iter().enumerate() {
                    if matches!(x, Expr::Ident(n) if n == socket) {
                        let k = (callee.clone(), i);
                        let mut v = out.borrow_mut();
                        if !v.contains(&k) {
                            v.push(k);
                        }
                    }
                }
                false
            });
        }
        false
    };
    for b in bodies {
        any_expr(b, &find);
    }
    out.into_inner()
}
