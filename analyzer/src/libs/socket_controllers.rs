//! socket-controllers: decorated Socket.IO controller classes, the Socket.IO
//! sibling of routing-controllers.
//!
//! Captures: `new SocketControllers({ io, controllers })` (0.1 and later)
//! and `useSocketServer(io, { controllers })` (0.0.x) on a Socket.IO server;
//! `controllers` as classes or as glob strings over the repository's files.
//! Each `@SocketController(namespace?)` class is a namespace of that server
//! (`/` by default); its methods' `@OnConnect()` and `@OnDisconnect()` are
//! the `connection` and `disconnect` listeners, `@OnMessage(name)` a
//! listener (the `@MessageBody()` parameter's TypeScript type is the
//! payload), `@EmitOnSuccess(name)` and `@EmitOnFail(name)` emits to the
//! socket, each sited at its decorator. The methods run with the socket in
//! `@ConnectedSocket()` parameters and the server in `@SocketIO()` ones, so
//! what they emit themselves is charted too.
//!
//! When `controllers` is missing or only known at run time, every
//! `@SocketController` class the project declares is charted and a
//! `dynamic-mount` finding says so (as for routing-controllers).
//!
//! Example: `@SocketController('/chat') class C { @OnMessage('save')
//! @EmitOnSuccess('saved') save() {} }` is `save` (client to server) and
//! `saved` (server to client) in namespace `/chat`.
//!
//! Deliberately not captured: `@SocketQueryParam`, `@SocketRooms`, socket
//! middlewares (`@Middleware`), and `@EmitNamespaceBroadcastOnSuccess`
//! variants (their names are read as emits to the namespace only when written
//! as `@EmitOnSuccess`).

use crate::Direction;
use crate::libs::socketio::{RawSite, SioServer};
use crate::machine::*;

const PKG: &str = "socket-controllers";
/// The values of the package that serve controllers, by these names.
const NEW: &str = "socket-controllers.SocketControllers";
const USE: &str = "socket-controllers.useSocketServer";

/// A member of the package that serves controllers.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == PKG && matches!(prop, "SocketControllers" | "useSocketServer"))
        .then(|| Value::Builtin(Builtin::Framework(Rc::from(format!("{PKG}.{prop}")))))
}

/// `new SocketControllers(options)`.
pub(crate) fn construct(
    ip: &mut Interp,
    ctx: &Ctx,
    name: &str,
    argv: &[Value],
    line: u32,
) -> Option<Value> {
    (name == NEW).then(|| {
        let opts = argv.first().cloned();
        ip.socket_controllers(ctx, None, opts, line, "new SocketControllers(...)");
        Value::external()
    })
}

/// `useSocketServer(io, options)`.
pub(crate) fn call(
    ip: &mut Interp,
    ctx: &Ctx,
    name: &str,
    argv: &[Value],
    line: u32,
) -> Option<Value> {
    (name == USE).then(|| {
        let io = argv.first().cloned();
        let opts = argv.get(1).cloned();
        ip.socket_controllers(ctx, io, opts, line, "useSocketServer(...)");
        io_or_external(argv.first())
    })
}

fn io_or_external(v: Option<&Value>) -> Value {
    v.cloned().unwrap_or_else(Value::external)
}

impl Interp {
    fn socket_controllers(
        &mut self,
        ctx: &Ctx,
        io: Option<Value>,
        opts: Option<Value>,
        line: u32,
        what: &str,
    ) {
        let opts = match opts.map(|o| self.force_deep(o)) {
            Some(Value::Obj(o)) => Some(o),
            _ => None,
        };
        let io = io.or_else(|| opts.as_ref().and_then(|o| o.get("io")));
        // The server: the one handed in, else the one the package makes (`port`).
        let server = match io.map(|v| self.force_deep(v)) {
            Some(Value::Sio(s)) if s.server != u32::MAX => s.server,
            _ => {
                self.rec.sio_servers.push(SioServer {
                    file: ctx.file,
                    line,
                    path: "/socket.io".into(),
                    namespaces: ["/".to_string()].into(),
                    reached: true,
                    separate: false,
                });
                self.rec.sio_servers.len() as u32 - 1
            }
        };
        let (mut classes, everything) = self.listed_controllers(opts.as_ref());
        if let Some(why) = everything {
            self.load_controller_files();
            classes = self.rec.classes.iter().map(|(c, _)| c.clone()).collect();
            self.finding(
                FindingCode::DynamicMount,
                ctx.file,
                line,
                format!("{why} in `{what}`: every socket-controllers controller class in the project is charted, as the package serves every one the program loads"),
            );
        }
        let mut done: HashSet<(FileId, u32)> = HashSet::new();
        for cv in classes {
            if done.insert((cv.file, cv.class.line)) {
                self.socket_controller(server, &cv);
            }
        }
    }

    /// The socket-controllers decorator this is, if it is one.
    fn sc_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<String> {
        match self.decorator_origin(ctx, d) {
            Some((p, n)) if p == PKG => Some(n),
            _ => None,
        }
    }

    /// One `@SocketController(namespace?)` class on server `server`.
    fn socket_controller(&mut self, server: u32, cv: &Rc<ClassVal>) {
        let ctx = self.class_ctx(cv);
        let c = cv.class.clone();
        let mut ns = None;
        for d in &c.decorators {
            if self.sc_decorator(&ctx, d).as_deref() == Some("SocketController") {
                ns = Some(match d.args.first() {
                    Some(a) => {
                        let v = self.eval(&ctx, a);
                        self.namespace_name(Some(&v))
                    }
                    None => "/".to_string(),
                });
            }
        }
        let Some(ns) = ns else { return };
        if let Some(srv) = self.rec.sio_servers.get_mut(server as usize) {
            srv.namespaces.insert(ns.clone());
        }
        let kind = if ns == "/" {
            SioKind::Server
        } else {
            SioKind::Namespace
        };
        let nsv = Value::Sio(Rc::new(Sio {
            kind,
            server,
            ns: Rc::from(ns.as_str()),
            also: Vec::new(),
            rooms: Vec::new(),
            from_socket: false,
            timeout: false,
            maps: None,
            assumed: None,
        }));
        let Value::Sio(nsv) = nsv else { return };
        let inst = self.construct(&ctx, &Value::Class(cv.clone()), Vec::new(), &[], c.line);
        for (name, f) in &c.methods {
            let decs: Vec<Decorator> = c.decorators_of(name);
            let mut listens: Vec<(String, u32)> = Vec::new();
            let mut emits: Vec<(String, u32)> = Vec::new();
            for d in &decs {
                let Some(n) = self.sc_decorator(&ctx, d) else {
                    continue;
                };
                let arg = || d.args.first();
                let event = |me: &mut Interp| {
                    let v = arg().map(|a| me.eval(&ctx, a));
                    v.and_then(|v| me.force_deep(v).as_text())
                };
                match n.as_str() {
                    "OnConnect" => listens.push(("connection".into(), d.line)),
                    "OnDisconnect" => listens.push(("disconnect".into(), d.line)),
                    "OnDisconnecting" => listens.push(("disconnecting".into(), d.line)),
                    "OnMessage" | "EmitOnSuccess" | "EmitOnFail" => match event(self) {
                        Some(ev) if n == "OnMessage" => listens.push((ev, d.line)),
                        Some(ev) => emits.push((ev, d.line)),
                        None => {
                            let text = arg().map(expr_text).unwrap_or_default();
                            self.finding(
                                FindingCode::DynamicEvent,
                                cv.file,
                                d.line,
                                format!(
                                    "the event name of `@{n}({text})` is only known at run time"
                                ),
                            );
                        }
                    },
                    _ => {}
                }
            }
            if listens.is_empty() {
                continue;
            }
            let n = f.params.len();
            let mut args = vec![Value::dynamic(); n];
            let mut body = None;
            for (i, d) in c.param_decorators_of(name) {
                if i >= n {
                    continue;
                }
                match self.sc_decorator(&ctx, &d).as_deref() {
                    Some("ConnectedSocket") => args[i] = nsv.derive(SioKind::Socket),
                    Some("SocketIO") => args[i] = Value::Sio(nsv.clone()),
                    Some("MessageBody") => body = Some(i),
                    _ => {}
                }
            }
            let mut site = None;
            if !self.modes.sio_quiet {
                for (ev, line) in &listens {
                    let lifecycle =
                        matches!(ev.as_str(), "connection" | "disconnect" | "disconnecting");
                    let payload = body
                        .filter(|_| !lifecycle)
                        .and_then(|i| f.param_types.get(i).cloned().flatten())
                        .map(|t| self.ts_schema(&cv.env, &t, 0));
                    self.rec.sites.push(RawSite {
                        payload,
                        ..RawSite::server(
                            ev.clone(),
                            &ns,
                            Direction::ClientToServer,
                            "on",
                            cv.file,
                            *line,
                            server,
                        )
                    });
                    site = Some(self.rec.sites.len() - 1);
                }
                for (ev, line) in emits {
                    self.rec.sites.push(RawSite {
                        args: vec!["result".into()],
                        ..RawSite::server(
                            ev,
                            &ns,
                            Direction::ServerToClient,
                            "emit",
                            cv.file,
                            line,
                            server,
                        )
                    });
                }
            }
            if let Some(i) = body {
                args[i] = Value::Http(HttpVal::Part(RequestPart::Payload));
            }
            let clo = Closure::method(cv, f, &inst);
            let saved = std::mem::replace(&mut self.running.listener_site, site);
            self.invoke(&clo, args, Some(inst.clone()));
            self.running.listener_site = saved;
        }
    }
}
