//! Socket.IO in the evaluator: servers, namespaces, sockets and broadcast
//! operators as values, and the event sites they produce.
//!
//! Captures: `new Server()` / `require('socket.io')(http, opts)` with the
//! `path` option; `io.of(ns)`, `io.sockets`; connection handlers (the
//! handler runs with a socket value, wherever it is defined); `on`/`once`
//! (payload parameter names, acknowledgement detected when the last
//! parameter is called), `onAny` and `socket.use` (catch-alls: see
//! `socketio_rpc`); `emit`, `emitWithAck`,
//! `send`/`write` (`message`), `broadcast`, `to`/`in`/`except`, `timeout`;
//! rooms from `join`/`leave`; the client (`io(url)`, `Manager`,
//! `manager.socket(ns)`). Event names that reach `emit` through a helper
//! are attributed to the helper's call site (`via` names the helper).
//! NestJS gateways are in `nest_ws.rs`.
//!
//! Deliberately not captured: other emitters (`ws`, `net`, streams, Node
//! `EventEmitter`s) — only values that came from `socket.io` or
//! `socket.io-client` count.

use crate::inventory::{Direction, Side};
use crate::libs::socketio_syntax::*;
use crate::machine::emitters::is_listen_method;
use crate::machine::*;

/// What the program writes on Socket.IO values, by kind, server and
/// namespace: `socket.request = function (type, data) { return new
/// Promise((r) => socket.emit(type, data, r)) }` (the mediasoup clients'
/// request helper), `socket.userId = id`. A later `socket.request('join')`
/// calls the function with the socket as `this`, so the helper's emit is
/// charted under each name its callers give; reads of a name Socket.IO
/// itself defines keep its meaning.
pub(crate) type SioProps = HashMap<(SioKind, u32, Rc<str>), Rc<ObjData>>;

/// Events Socket.IO itself uses; flagged as lifecycle, not API.
pub(crate) const RESERVED_EVENTS: &[&str] = &[
    "connect",
    "connection",
    "disconnect",
    "disconnecting",
    "connect_error",
    "error",
    "newListener",
    "removeListener",
    // The server's, for each namespace it creates.
    "new_namespace",
    // The client manager's own events (`socket.io.on('reconnect')`).
    "reconnect",
    "reconnect_attempt",
    "reconnect_error",
    "reconnect_failed",
];

/// Whether the reserved name `name` is an event the program sends like any
/// other: `error`, emitted (not only listened for) with Socket.IO 3 or
/// later. Socket.IO 2 kept `error` to itself (`socket.emit('error', x)` only
/// ran local listeners); from 3 on, the server and the client reserve only
/// `connect`, `connect_error`, `disconnect`, `disconnecting`,
/// `newListener` and `removeListener`, so `socket.emit('error', 'Game not
/// found')` is a packet the other side's `socket.on('error')` receives. The
/// version is the range the emitting file's package gives `socket.io` (or
/// `socket.io-client` on the client); one without a number (`latest`) is
/// the current one.
pub(crate) fn sent_as_message(
    project: &crate::project::Project,
    name: &str,
    sites: &[&RawSite],
) -> bool {
    name == "error"
        && sites.iter().any(|s| {
            if s.kind == "on" || s.kind == "once" {
                return false;
            }
            let pkg = match s.side {
                Side::Server => "socket.io",
                Side::Client => "socket.io-client",
            };
            v3_or_later(project, s.file, &[pkg])
        })
}

/// Whether the package of `file` gives the first of `pkgs` it depends on a
/// range of major version 3 or later (one without a number, `latest`, is the
/// current one); false when it depends on none of them.
pub(crate) fn v3_or_later(project: &crate::project::Project, file: FileId, pkgs: &[&str]) -> bool {
    let rel = project.rel(file);
    pkgs.iter()
        .find_map(|p| project.package_dep_version(rel, p))
        .is_some_and(|range| crate::project::range_major(&range).is_none_or(|m| m >= 3))
}

/// A Socket.IO server seen in the code.
#[derive(Clone, Debug)]
pub(crate) struct SioServer {
    pub(crate) file: FileId,
    pub(crate) line: u32,
    pub(crate) path: String,
    pub(crate) namespaces: BTreeSet<String>,
    /// Created by code the entries reach (not by a module only the event pass ran).
    pub(crate) reached: bool,
    /// Created by the top-level code of a module no entry reaches: a separate program.
    pub(crate) separate: bool,
}

/// One event site before it becomes public.
#[derive(Clone, Debug)]
pub(crate) struct RawSite {
    pub(crate) name: String,
    pub(crate) pattern: bool,
    pub(crate) ns: String,
    pub(crate) side: Side,
    pub(crate) direction: Direction,
    pub(crate) kind: &'static str,
    pub(crate) via: Option<String>,
    pub(crate) rooms: Vec<String>,
    pub(crate) args: Vec<String>,
    pub(crate) ack: bool,
    pub(crate) file: FileId,
    pub(crate) line: u32,
    /// The server the site belongs to (`u32::MAX` on the client side).
    pub(crate) server: u32,
    /// The acknowledgement's schema, when a typed event map states it.
    pub(crate) ack_schema: Option<serde_json::Value>,
    /// Where the payload schema came from, when not from a literal.
    pub(crate) payload_source: Option<&'static str>,
    /// The JSON Schema of the payload, when the code states it.
    pub(crate) payload: Option<serde_json::Value>,
    /// The receiver stood for a socket-named parameter of a function nobody
    /// called: the namespace is assumed.
    pub(crate) assumed: Option<Rc<crate::value::Assumed>>,
    /// A listener on the client's `Manager` (`socket.io.on('open')`): only
    /// the library emits there, nothing a server sends arrives.
    pub(crate) manager: bool,
}

impl RawSite {
    /// A server-side site with nothing known beyond where it is.
    pub(crate) fn server(
        name: String,
        ns: &str,
        direction: Direction,
        kind: &'static str,
        file: FileId,
        line: u32,
        server: u32,
    ) -> RawSite {
        RawSite {
            name,
            pattern: false,
            ns: ns.to_string(),
            side: Side::Server,
            direction,
            kind,
            via: None,
            rooms: Vec::new(),
            args: Vec::new(),
            ack: false,
            file,
            line,
            server,
            ack_schema: None,
            payload_source: None,
            payload: None,
            assumed: None,
            manager: false,
        }
    }
}

/// An object type's fields: (name, optional, type).
type TypeFields = Vec<(String, bool, TypeExpr)>;

/// A call being followed: who was called, from where, with what.
pub(crate) struct Frame {
    pub(crate) callee: String,
    pub(crate) file: FileId,
    pub(crate) line: u32,
    pub(crate) args: Vec<Value>,
}

pub(crate) fn sio(kind: SioKind, server: u32, ns: &str) -> Value {
    Value::Sio(Rc::new(sio_bare(kind, server, ns)))
}

fn sio_bare(kind: SioKind, server: u32, ns: &str) -> Sio {
    Sio {
        kind,
        server,
        ns: Rc::from(ns),
        also: Vec::new(),
        rooms: Vec::new(),
        from_socket: false,
        timeout: false,
        maps: None,
        assumed: None,
    }
}

/// The namespace named by a client URL (`http://h:1/ops` → `/ops`, `/ops` → `/ops`).
fn namespace_of_url(url: &str) -> String {
    let rest = match url.find("://") {
        Some(i) => {
            let after = &url[i + 3..];
            match after.find('/') {
                Some(j) => &after[j..],
                None => "",
            }
        }
        None if url.starts_with('/') => url,
        None => match url.find('/') {
            Some(j) => &url[j..],
            None => "",
        },
    };
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let rest = rest.trim_end_matches('/');
    if rest.is_empty() {
        "/".into()
    } else {
        rest.to_string()
    }
}

impl Interp {
    /// `new Server(http, opts)` / `require('socket.io')(http, opts)`.
    pub(crate) fn new_sio_server(&mut self, ctx: &Ctx, argv: &[Value], line: u32) -> Value {
        let mut path = "/socket.io".to_string();
        for a in argv {
            if let Value::Obj(o) = self.force(a.clone(), 0)
                && let Some(p) = o.get("path")
                && let Some(p) = self.force_deep(p).as_text()
            {
                path = p;
            }
        }
        // One server per creation site, however often the code runs.
        let reached = !self.modes.event_mode && !self.modes.unreached_mode;
        if let Some(i) = self
            .rec
            .sio_servers
            .iter()
            .position(|s| s.file == ctx.file && s.line == line)
        {
            let srv = &mut self.rec.sio_servers[i];
            srv.reached |= reached;
            if path != "/socket.io" {
                srv.path = path;
            }
            return sio(SioKind::Server, i as u32, "/");
        }
        self.rec.sio_servers.push(SioServer {
            file: ctx.file,
            line,
            path,
            namespaces: BTreeSet::from(["/".to_string()]),
            reached,
            separate: self.modes.loading_unreached && self.js.stack.is_empty(),
        });
        sio(SioKind::Server, self.rec.sio_servers.len() as u32 - 1, "/")
    }

    /// A namespace as `io.of(x)` and Nest's `namespace` option name it: a
    /// path (`chat` is `/chat`), a pattern, or `{dynamic}`.
    pub(crate) fn namespace_name(&mut self, v: Option<&Value>) -> String {
        let ns = match v.map(|a| self.force_deep(a.clone())) {
            Some(Value::Str(n)) => n.to_string(),
            Some(Value::Regex(r)) => r.to_string(),
            Some(Value::Pattern(p)) => p.to_string(),
            _ => "{dynamic}".to_string(),
        };
        if ns.starts_with('/') || ns.starts_with('{') {
            ns
        } else {
            format!("/{ns}")
        }
    }

    /// `io(url, opts)` / `io.connect(url)` / `new Manager(url).socket(ns)`,
    /// written with `args`. The namespace is the URL's path: of a URL built
    /// from a run-time origin and a known path (`` `${base}/admin` ``,
    /// `base + '/admin'`), that path; of one ending in a run-time part
    /// (`base + namespace`), not known (`{dynamic}`); of a URL only known
    /// at run time, `/` (`io(SERVER_URL)` connects to an origin).
    pub(crate) fn new_sio_client(&mut self, argv: &[Value], args: &[Expr], manager: bool) -> Value {
        let ns = match argv.first().map(|a| self.force_deep(a.clone())) {
            Some(Value::Str(s)) => namespace_of_url(&s),
            Some(Value::Pattern(p)) => {
                let ns = namespace_of_url(&p);
                if ns.contains('{') {
                    "{dynamic}".to_string()
                } else {
                    ns
                }
            }
            _ => match args.first() {
                Some(Expr::Add(_, r)) => match r.as_ref() {
                    Expr::Str(path) if path.starts_with('/') => namespace_of_url(path),
                    Expr::Str(_) => "/".to_string(),
                    _ => "{dynamic}".to_string(),
                },
                _ => "/".to_string(),
            },
        };
        let kind = if manager {
            SioKind::Manager
        } else {
            SioKind::Client
        };
        sio(kind, u32::MAX, if manager { "/" } else { &ns })
    }

    /// `socket.prop = v`: kept for the socket's kind, server and namespace
    /// (see [`SioProps`]).
    pub(crate) fn set_sio_prop(&mut self, s: &Sio, prop: &str, v: Value) {
        self.libs
            .sio_props
            .entry((s.kind, s.server, s.ns.clone()))
            .or_insert_with(ObjData::new)
            .set(prop, v);
    }

    /// What the program wrote under `prop` on a Socket.IO value like `s`.
    fn sio_prop(&self, s: &Sio, prop: &str) -> Option<Value> {
        self.libs
            .sio_props
            .get(&(s.kind, s.server, s.ns.clone()))?
            .get(prop)
    }

    pub(crate) fn sio_member(&mut self, s: &Rc<Sio>, prop: &str) -> Value {
        match (s.kind, prop) {
            (SioKind::Server, "sockets") => s.derive(SioKind::Namespace),
            // v1/v2: `connected` (and `sockets`) are objects of sockets by id.
            (SioKind::Namespace, "sockets" | "connected") => s.derive(SioKind::SocketSet),
            (SioKind::Server | SioKind::Namespace, "local" | "volatile") => s.derive(s.kind),
            (SioKind::Socket, "broadcast") => Value::Sio(Rc::new(Sio {
                kind: SioKind::Target,
                from_socket: true,
                ..(**s).clone()
            })),
            (SioKind::Socket, "nsp") => s.derive(SioKind::Namespace),
            (SioKind::Socket, "server") => Value::Sio(Rc::new(Sio {
                kind: SioKind::Server,
                ns: Rc::from("/"),
                also: Vec::new(),
                ..(**s).clone()
            })),
            (SioKind::Socket | SioKind::Client | SioKind::Target, "volatile" | "local") => {
                Value::Sio(s.clone())
            }
            (SioKind::Client, "io") => s.derive(SioKind::Manager),
            // The engine.io server under it: its `use(mw)` runs middleware on
            // the transport's own requests, and its `on` hears engine
            // events, neither a route nor a Socket.IO event.
            (SioKind::Server, "engine") => Value::of_package("engine.io"),
            _ => self.sio_prop(s, prop).unwrap_or_else(Value::dynamic),
        }
    }

    /// A method call on a Socket.IO value.
    pub(crate) fn sio_method(&mut self, ctx: &Ctx, s: &Rc<Sio>, name: &str, call: &Call) -> Value {
        let side = if s.kind == SioKind::Client || s.kind == SioKind::Manager {
            Side::Client
        } else {
            Side::Server
        };
        match (s.kind, name) {
            // Node's EventEmitter names for `on` and `once` too: a server
            // and a namespace are emitters (`io.prependListener('connection',
            // …)`, socket.io-admin-ui's instrumentation).
            (SioKind::Server | SioKind::Namespace, m)
                if is_listen_method(m)
                    && self.first_text(ctx, call).is_some_and(|n| {
                        n == "connection"
                            || n == "connect"
                            || (n == "new_namespace" && s.kind == SioKind::Server)
                    }) =>
            {
                let argv = self.eval_args(ctx, &call.args);
                let ev = self.first_text_of(&argv).unwrap_or_default();
                self.push_site(
                    ctx,
                    call,
                    s,
                    &ev,
                    false,
                    side,
                    Direction::ClientToServer,
                    "on",
                    &[],
                    false,
                    None,
                );
                // `io.on('new_namespace', (nsp) => …)`: the server hands each
                // namespace it creates, whose name the analysis cannot know.
                let sock = if ev == "new_namespace" {
                    sio(SioKind::Namespace, s.server, "{dynamic}")
                } else {
                    s.derive(SioKind::Socket)
                };
                if let Some(h) = argv.get(1) {
                    let h = self.force_deep(h.clone());
                    self.running.socket_handlers += 1;
                    self.call_value_now(ctx, &h, vec![sock], &[], call.line, None);
                    self.running.socket_handlers -= 1;
                }
                Value::Sio(s.clone())
            }
            // express.io's socket routes (`app.io.route('rooms', { list })`):
            // a Socket.IO server has no `route` of its own.
            (SioKind::Server, "route") if self.sio_prop(s, "route").is_none() => {
                self.express_io_route(ctx, s, call)
            }
            (SioKind::Server, "of") => {
                let argv = self.eval_args(ctx, &call.args);
                let ns = self.namespace_name(argv.first());
                if let Some(srv) = self.rec.sio_servers.get_mut(s.server as usize) {
                    srv.namespaces.insert(ns.clone());
                }
                sio(SioKind::Namespace, s.server, &ns)
            }
            (SioKind::Socket | SioKind::Client, m) if is_listen_method(m) => {
                let argv = self.eval_args(ctx, &call.args);
                let direction = if side == Side::Server {
                    Direction::ClientToServer
                } else {
                    Direction::ServerToClient
                };
                let listener = argv.get(1).map(|h| self.force_deep(h.clone()));
                let (params, ack) = match &listener {
                    Some(Value::Func(c)) => closure_listener_shape(c),
                    _ => (Vec::new(), false),
                };
                let mut recorded = false;
                for (ev, pattern) in self.event_names(ctx, call, &argv) {
                    recorded = !self.modes.sio_quiet;
                    let kind = if matches!(name, "once" | "prependOnceListener") {
                        "once"
                    } else {
                        "on"
                    };
                    let mut payload = match &listener {
                        Some(Value::Func(c)) => self.payload_from_params(c),
                        _ => None,
                    };
                    let mut ack_schema = None;
                    if payload.is_none()
                        && let Some((p, a)) = self.map_payload(s, &ev, side == Side::Server)
                    {
                        payload = Some(p);
                        ack_schema = a;
                    }
                    self.push_site(
                        ctx, call, s, &ev, pattern, side, direction, kind, &params, ack, payload,
                    );
                    if let (Some(a), Some(site)) = (ack_schema, self.rec.sites.last_mut()) {
                        site.ack_schema = Some(a);
                    }
                }
                if let Some(l @ Value::Func(c)) = &listener {
                    let n = c.func.params.len();
                    let this = Some(Value::Sio(Rc::new((**s).clone())));
                    // The first argument is the payload: a schema applied to it is the payload's.
                    let mut args = vec![Value::dynamic(); n];
                    let site = self.rec.sites.len().checked_sub(1).filter(|_| recorded);
                    if let (Some(first), Some(_)) = (args.first_mut(), site) {
                        *first = Value::Http(HttpVal::Part(RequestPart::Payload));
                    }
                    self.run_listener(ctx, l, args, call.line, this, site);
                }
                Value::Sio(s.clone())
            }
            (SioKind::Socket, "onAny" | "prependAny") => {
                let argv = self.eval_args(ctx, &call.args);
                let (key, ack) =
                    self.catch_all(s, ctx.file, call.line, Some(expr_text(&call.callee)));
                if let Some(l @ Value::Func(_)) = argv.first().map(|h| self.force_deep(h.clone())) {
                    self.running.socket_handlers += 1;
                    self.call_value_now(
                        ctx,
                        &l,
                        vec![key, Value::dynamic(), ack],
                        &[],
                        call.line,
                        None,
                    );
                    self.running.socket_handlers -= 1;
                }
                Value::Sio(s.clone())
            }
            (SioKind::Socket | SioKind::Client, "onAny" | "prependAny" | "onAnyOutgoing") => {
                let argv = self.eval_args(ctx, &call.args);
                self.finding(
                    FindingCode::CatchAllListener,
                    ctx.file,
                    call.line,
                    format!(
                        "`{}` receives every event; the events it handles are not listed",
                        expr_text(&call.callee)
                    ),
                );
                if let Some(Value::Func(c)) = argv.first().map(|h| self.force_deep(h.clone())) {
                    let n = c.func.params.len();
                    let l = Value::Func(c);
                    self.call_value_now(ctx, &l, vec![Value::dynamic(); n], &[], call.line, None);
                }
                Value::Sio(s.clone())
            }
            (
                SioKind::Server
                | SioKind::Namespace
                | SioKind::Socket
                | SioKind::Target
                | SioKind::Client,
                "emit" | "emitWithAck" | "send" | "write",
            ) => {
                let argv = self.eval_args(ctx, &call.args);
                let direction = if side == Side::Server {
                    Direction::ServerToClient
                } else {
                    Direction::ClientToServer
                };
                let (names, rest) = if name == "send" || name == "write" {
                    (vec![("message".to_string(), false)], 0usize)
                } else if let Some(both) = self.alternative_names(ctx, call) {
                    // `emit(cond ? 'a' : 'b', ...)`: either may be sent.
                    (both, 1usize)
                } else {
                    (self.event_names(ctx, call, &argv), 1usize)
                };
                for (ev, pattern) in names {
                    let last_is_fn = argv.last().is_some_and(|a| matches!(a, Value::Func(_)))
                        || call.args.last().is_some_and(writes_a_function);
                    let ack =
                        name == "emitWithAck" || s.timeout || (argv.len() > rest && last_is_fn);
                    let payload_args: Vec<&Expr> = call
                        .args
                        .iter()
                        .skip(rest)
                        .take(call.args.len().saturating_sub(
                            rest + usize::from(last_is_fn && name != "emitWithAck"),
                        ))
                        .collect();
                    let args: Vec<String> = payload_args.iter().map(|a| arg_label(a)).collect();
                    let payload = self
                        .map_payload(s, &ev, side != Side::Server)
                        .map(|(p, _)| p)
                        .or_else(|| payload_schema(&payload_args));
                    let kind = match (s.kind, name) {
                        (_, "emitWithAck") => "emitWithAck",
                        (_, "send" | "write") => "send",
                        (SioKind::Target, _) if s.from_socket && s.rooms.is_empty() => "broadcast",
                        (SioKind::Target, _) => "to-room",
                        (SioKind::Server | SioKind::Namespace, _) => "broadcast",
                        _ => "emit",
                    };
                    self.push_site(
                        ctx, call, s, &ev, pattern, side, direction, kind, &args, ack, payload,
                    );
                }
                // Callbacks passed along (acks) may emit too.
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::Sio(s.clone())
            }
            (
                SioKind::Server | SioKind::Namespace | SioKind::Socket | SioKind::Target,
                "to" | "in" | "except",
            ) => {
                let argv = self.eval_args(ctx, &call.args);
                let mut rooms = s.rooms.clone();
                if name != "except" {
                    for a in &argv {
                        let a = self.force_deep(a.clone());
                        let items = match &a {
                            Value::Arr(items) => items.borrow().clone(),
                            _ => vec![a.clone()],
                        };
                        for it in items {
                            let label = it
                                .as_text()
                                .or_else(|| match &it {
                                    Value::Pattern(p) => Some(p.to_string()),
                                    _ => None,
                                })
                                .unwrap_or_else(|| {
                                    call.args.first().map(expr_text).unwrap_or_default()
                                });
                            rooms.push(Rc::from(label.as_str()));
                        }
                    }
                }
                Value::Sio(Rc::new(Sio {
                    kind: SioKind::Target,
                    rooms,
                    from_socket: s.from_socket || s.kind == SioKind::Socket,
                    ..(**s).clone()
                }))
            }
            (_, "timeout") => {
                self.eval_args(ctx, &call.args);
                Value::Sio(Rc::new(Sio {
                    timeout: true,
                    ..(**s).clone()
                }))
            }
            // `io.connect(url)` is the client library's: a parameter named
            // `io` assumed to be a server is the client's `io` when the code
            // connects with it (`(function (window, io) { io.connect() })`).
            (SioKind::Server, "connect") if s.assumed.is_some() => {
                self.eval_args(ctx, &call.args);
                s.derive(SioKind::Client)
            }
            (_, "compress" | "volatile" | "local" | "listen" | "attach" | "connect" | "open") => {
                self.eval_args(ctx, &call.args);
                Value::Sio(s.clone())
            }
            (SioKind::Socket, "join" | "leave") => {
                let argv = self.eval_args(ctx, &call.args);
                for a in argv {
                    if let Some(r) = self.force_deep(a).as_text() {
                        self.rec.rooms_joined.insert(r);
                    }
                }
                Value::Undef
            }
            (SioKind::SocketSet, "forEach") => {
                let argv = self.eval_args(ctx, &call.args);
                if let Some(cb) = argv.first() {
                    let sock = s.derive(SioKind::Socket);
                    self.call_value_now(
                        ctx,
                        cb,
                        vec![sock.clone(), Value::dynamic()],
                        &[],
                        call.line,
                        None,
                    );
                }
                Value::Undef
            }
            (SioKind::SocketSet, "values") => Value::array(vec![s.derive(SioKind::Socket)]),
            (SioKind::SocketSet, "keys") => Value::array(vec![Value::dynamic()]),
            (SioKind::SocketSet, "entries") => Value::array(vec![Value::array(vec![
                Value::dynamic(),
                s.derive(SioKind::Socket),
            ])]),
            // socket.io 0.9: `io.sockets.clients(room)` is the array of the
            // room's sockets (from v1 on, `clients(cb)` passes ids to a callback).
            (SioKind::Server | SioKind::Namespace | SioKind::Target, "clients")
                if !matches!(call.args.first(), Some(crate::ir::Expr::Func(_))) =>
            {
                self.eval_args(ctx, &call.args);
                Value::array(vec![s.derive(SioKind::Socket)])
            }
            (SioKind::SocketSet, "get") => {
                self.eval_args(ctx, &call.args);
                s.derive(SioKind::Socket)
            }
            (SioKind::Manager, "on" | "once") => {
                let argv = self.eval_args(ctx, &call.args);
                if let Some((ev, pattern)) = self.event_name(ctx, call, &argv) {
                    self.push_site(
                        ctx,
                        call,
                        s,
                        &ev,
                        pattern,
                        side,
                        Direction::ServerToClient,
                        "on",
                        &[],
                        false,
                        None,
                    );
                }
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::Sio(s.clone())
            }
            (SioKind::Server | SioKind::Namespace | SioKind::Target, "fetchSockets") => {
                self.eval_args(ctx, &call.args);
                Value::array(vec![s.derive(SioKind::Socket)])
            }
            (SioKind::Manager, "socket") => {
                let argv = self.eval_args(ctx, &call.args);
                let ns = argv
                    .first()
                    .and_then(|a| self.force_deep(a.clone()).as_text())
                    .unwrap_or_else(|| "/".into());
                sio(SioKind::Client, u32::MAX, &ns)
            }
            (SioKind::Server | SioKind::Namespace | SioKind::Socket, "use") => {
                let argv = self.eval_args(ctx, &call.args);
                let sock = if s.kind == SioKind::Socket {
                    // Each packet, `[event, ...args]`: a catch-all that is no
                    // finding when no table resolves its name (most only check
                    // and call `next`).
                    let (key, ack) = self.catch_all(s, ctx.file, call.line, None);
                    Value::array(vec![key, Value::dynamic(), ack])
                } else {
                    s.derive(SioKind::Socket)
                };
                if let Some(f @ Value::Func(_)) = argv.first().map(|a| self.force_deep(a.clone())) {
                    self.call_value_now(
                        ctx,
                        &f,
                        vec![sock, Value::dynamic()],
                        &[],
                        call.line,
                        None,
                    );
                }
                Value::Sio(s.clone())
            }
            // A listener for a name a server or namespace never emits
            // (`io.on('disconnect', …)`, `nsp.on('error', …)`): no event;
            // the census account says so. `on` returns the emitter, so a
            // chain (`io.of(p).on('connection', h).on('error', f)`) goes on.
            (SioKind::Server | SioKind::Namespace, m)
                if is_listen_method(m) && matches!(call.args.first(), Some(Expr::Str(_))) =>
            {
                self.rec.census.host_listens.insert((ctx.file, call.line));
                let argv = self.eval_args(ctx, &call.args);
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::Sio(s.clone())
            }
            _ => {
                // A method the program wrote on the socket (`socket.request
                // = function (type, data) {…}`): its body runs.
                if let Some(f @ Value::Func(_)) = self.sio_prop(s, name) {
                    return self.call_written_method(ctx, &f, call, Value::Sio(s.clone()));
                }
                let argv = self.eval_args(ctx, &call.args);
                self.run_callbacks(ctx, &argv, &call.args, call.line);
                Value::dynamic()
            }
        }
    }

    fn first_text(&mut self, ctx: &Ctx, call: &Call) -> Option<String> {
        match call.args.first() {
            Some(Expr::Str(s)) => Some(s.clone()),
            Some(e) => {
                let v = self.eval(ctx, e);
                self.force_deep(v).as_text()
            }
            None => None,
        }
    }

    fn first_text_of(&mut self, argv: &[Value]) -> Option<String> {
        argv.first()
            .and_then(|a| self.force_deep(a.clone()).as_text())
    }

    /// The event name of an `on`/`emit` call: a constant, or a pattern with `{name}` parts.
    /// The event names of a site: each a choice only known at run time may
    /// give (`const ev = env.LEGACY ? 'legacy:update' : 'update'`, see
    /// `machine/choices.rs`), else the one [`Interp::event_name`] reads.
    fn event_names(&mut self, ctx: &Ctx, call: &Call, argv: &[Value]) -> Vec<(String, bool)> {
        let first = argv.first().map(|v| self.force_deep(v.clone()));
        match first.and_then(|v| self.chosen_ways(&v)) {
            Some(ways) => ways.iter().map(|(t, _)| (t.to_string(), false)).collect(),
            None => self.event_name(ctx, call, argv).into_iter().collect(),
        }
    }

    fn event_name(&mut self, ctx: &Ctx, call: &Call, argv: &[Value]) -> Option<(String, bool)> {
        self.event_name_of(ctx, argv.first(), call.args.first(), call.line)
    }

    /// An event name from its value (and the expression that gave it, for
    /// the finding when it is only known at run time).
    pub(super) fn event_name_of(
        &mut self,
        ctx: &Ctx,
        v: Option<&Value>,
        e: Option<&Expr>,
        line: u32,
    ) -> Option<(String, bool)> {
        match v.map(|a| self.force_deep(a.clone())) {
            Some(Value::Str(s)) => Some((s.to_string(), false)),
            Some(Value::Pattern(p)) => Some((p.to_string(), true)),
            // A helper run without a caller: its callers name the events.
            Some(Value::Unknown(Unknown::Param)) => None,
            _ => {
                let text = e.map(expr_text).unwrap_or_default();
                self.finding(
                    FindingCode::DynamicEvent,
                    ctx.file,
                    line,
                    format!("the event name `{text}` is only known at run time"),
                );
                if let Some(e) = e {
                    self.note_relayed_name(e, ctx.file, line);
                }
                None
            }
        }
    }

    /// Run the listener `l` of the site at `site` (an index of the sites
    /// recorded, when it was) with `args`, as a socket handler.
    pub(super) fn run_listener(
        &mut self,
        ctx: &Ctx,
        l: &Value,
        args: Vec<Value>,
        line: u32,
        this: Option<Value>,
        site: Option<usize>,
    ) {
        let saved = std::mem::replace(&mut self.running.listener_site, site);
        self.running.socket_handlers += 1;
        self.call_value_now(ctx, l, args, &[], line, this);
        self.running.socket_handlers -= 1;
        self.running.listener_site = saved;
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn push_site(
        &mut self,
        ctx: &Ctx,
        call: &Call,
        s: &Sio,
        name: &str,
        pattern: bool,
        side: Side,
        direction: Direction,
        kind: &'static str,
        args: &[String],
        ack: bool,
        payload: Option<serde_json::Value>,
    ) {
        if self.modes.sio_quiet {
            return;
        }
        self.rec.census.event_sources.insert((ctx.file, call.line));
        self.rec.made += 1;
        let census = &mut self.rec.census;
        let sited_in = census.sited_in.entry((ctx.file, call.line)).or_default();
        for fr in &self.js.frames {
            let key = ((fr.file, fr.line), fr.callee.clone());
            if !sited_in.contains(&key) {
                sited_in.push(key);
            }
        }
        // A name that came in through helper parameters is sited at the outermost
        // call that passed it (`broadcastToApps('apps:changed', ...)`).
        let (mut file, mut line, mut via) = (ctx.file, call.line, None);
        let literal = matches!(call.args.first(), Some(Expr::Str(_)));
        if !literal && kind != "send" {
            for fr in self.js.frames.iter().rev() {
                let carries = fr.args.iter().any(|a| match a {
                    Value::Str(x) => {
                        x.as_ref() == name || (x.len() >= 2 && name.contains(x.as_ref()))
                    }
                    Value::Pattern(x) => x.as_ref() == name,
                    _ => false,
                });
                if !carries || fr.callee == "<anonymous>" {
                    continue;
                }
                file = fr.file;
                line = fr.line;
                via = Some(fr.callee.clone());
            }
        }
        // On a choice of namespaces, a site on each (the first last, so
        // that callers reading the last site pushed read the value's own).
        for ns in s.also.iter().chain(std::iter::once(&s.ns)) {
            self.rec.sites.push(RawSite {
                name: name.to_string(),
                pattern,
                ns: ns.to_string(),
                side,
                direction,
                kind,
                via: via.clone(),
                rooms: s.rooms.iter().map(|r| r.to_string()).collect(),
                args: args.to_vec(),
                ack,
                file,
                line,
                server: s.server,
                ack_schema: None,
                payload_source: None,
                payload: payload.clone(),
                assumed: s.assumed.clone(),
                manager: s.kind == SioKind::Manager,
            });
        }
    }

    /// `cond ? guest : admin` with a test only known at run time, both ways
    /// Socket.IO values of one kind on one server differing only by
    /// namespace: the first, with the other's namespaces as its `also`.
    pub(crate) fn sio_choice(&self, x: &Value, y: &Value) -> Option<Value> {
        let (Value::Sio(a), Value::Sio(b)) = (x, y) else {
            return None;
        };
        let alike = a.kind == b.kind
            && a.server == b.server
            && a.rooms == b.rooms
            && a.from_socket == b.from_socket
            && a.ns != b.ns;
        if !alike {
            return None;
        }
        let mut also = a.also.clone();
        for ns in b.also.iter().chain(std::iter::once(&b.ns)) {
            if *ns != a.ns && !also.contains(ns) {
                also.push(ns.clone());
            }
        }
        Some(Value::Sio(Rc::new(Sio {
            also,
            ..(**a).clone()
        })))
    }

    /// Whether `v` is, or holds one level down (`{ emit }`, `[emit]`), a function
    /// whose body emits: a callback such as `(event, data) => socket.emit(event, data)`
    /// handed to a helper, which must be followed so the names it is called with are
    /// sited where the helper calls it.
    pub(crate) fn carries_emitter(&self, v: &Value, depth: u32) -> bool {
        match v {
            Value::Func(c) => self.deferred.emits.get(&(c.file, c.func.id)) == Some(&true),
            Value::Arr(a) if depth < 1 => a
                .borrow()
                .iter()
                .any(|x| self.carries_emitter(x, depth + 1)),
            Value::Obj(o) if depth < 1 => o
                .props
                .borrow()
                .values()
                .any(|x| self.carries_emitter(x, depth + 1)),
            _ => false,
        }
    }

    /// Both names of `emit(cond ? 'a' : 'b', ...)` when each branch is a known name.
    fn alternative_names(&mut self, ctx: &Ctx, call: &Call) -> Option<Vec<(String, bool)>> {
        // `case 'a': case 'b': emit(event.name)` in `switch (event.name)`.
        if let Some(first) = call
            .args
            .first()
            .filter(|e| crate::machine::flow::narrowable(e))
            && let Some(labels) = self.narrowed_labels(&expr_text(first))
            && labels.len() > 1
        {
            return Some(labels.iter().map(|l| (l.to_string(), false)).collect());
        }
        let Some(Expr::Cond(_, _, a, b)) = call.args.first() else {
            return None;
        };
        let mut out = Vec::new();
        for e in [a, b] {
            let v = self.eval(ctx, e);
            out.push((self.force_deep(v).as_text()?, false));
        }
        out.dedup();
        Some(out)
    }

    /// Payload schema from a TypeScript-typed listener's parameters.
    fn payload_from_params(&mut self, c: &Closure) -> Option<serde_json::Value> {
        let first = c.func.param_types.first()?.clone()?;
        let env = c.env.clone();
        Some(self.ts_schema(&env, &first, 0))
    }

    /// Payload (and ack) schemas from the value's typed event maps: the
    /// listen map for events the server receives, the emit map otherwise.
    fn map_payload(
        &mut self,
        s: &Sio,
        event: &str,
        listen: bool,
    ) -> Option<(serde_json::Value, Option<serde_json::Value>)> {
        let maps = s.maps.clone()?;
        let map = if listen { &maps.listen } else { &maps.emit };
        let (fields, home) = self.resolve_object_type(&maps.env, map, 0)?;
        let (_, _, ty) = fields.iter().find(|(n, _, _)| n == event)?;
        let TypeExpr::Function(params) = ty else {
            return None;
        };
        let mut params: Vec<&(String, bool, TypeExpr)> = params.iter().collect();
        // A trailing function parameter is the acknowledgement.
        let ack = match params.last() {
            Some((_, _, TypeExpr::Function(ack_params))) => {
                let schema = match ack_params.first() {
                    Some((_, _, t)) => self.ts_schema(&home, t, 0),
                    None => serde_json::json!({}),
                };
                params.pop();
                Some(schema)
            }
            _ => None,
        };
        let payload = match params.as_slice() {
            [] => serde_json::json!({"type": "null"}),
            [(_, _, t)] => self.ts_schema(&home, t, 0),
            many => {
                let items: Vec<serde_json::Value> = many
                    .iter()
                    .map(|(_, _, t)| self.ts_schema(&home, t, 0))
                    .collect();
                let n = items.len();
                serde_json::json!({"type": "array", "prefixItems": items, "minItems": n, "maxItems": n})
            }
        };
        Some((payload, ack))
    }

    /// The fields of an object type, following declared names.
    fn resolve_object_type(
        &mut self,
        env: &Rc<Scope>,
        t: &TypeExpr,
        depth: u32,
    ) -> Option<(TypeFields, Rc<Scope>)> {
        if depth > 8 {
            return None;
        }
        match t {
            TypeExpr::Object(fields) => Some((fields.clone(), env.clone())),
            TypeExpr::Ref(name, _) => {
                let v = env.lookup(name)?;
                match self.force(v, 0) {
                    Value::Type(decl, home) => self.resolve_object_type(&home, &decl, depth + 1),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A parameter declared `Socket<Listen, Emit>` / `Server<Listen, Emit>`
    /// (directly or through an alias) gives its Socket.IO value event maps.
    pub(crate) fn typed_sio(&mut self, env: &Rc<Scope>, t: &TypeExpr, v: &Value) -> Option<Value> {
        let Value::Sio(s) = v else {
            return None;
        };
        let mut t = t.clone();
        let mut env = env.clone();
        for _ in 0..8 {
            match &t {
                TypeExpr::Ref(name, args)
                    if args.len() >= 2
                        && matches!(
                            name.rsplit('.').next(),
                            Some("Socket" | "Server" | "Namespace" | "BroadcastOperator")
                        ) =>
                {
                    return Some(Value::Sio(Rc::new(Sio {
                        maps: Some(Rc::new(EventMaps {
                            env,
                            listen: args[0].clone(),
                            emit: args[1].clone(),
                        })),
                        ..(**s).clone()
                    })));
                }
                TypeExpr::Ref(name, args) if args.is_empty() => {
                    let v = self.force(env.lookup(name)?, 0);
                    match v {
                        // An alias (`type ChatSocket = Socket<A, B>`): its names resolve where it was declared.
                        Value::Type(decl, home) => {
                            t = (*decl).clone();
                            env = home;
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        None
    }
}

/// An argument that is a function whatever its parts evaluate to: a function
/// written in place, or `f.bind(…)` (`Function.prototype.bind` returns a
/// function, or throws): `socket.emit('init', true, this.onInit.bind(this))`
/// asks for an acknowledgement even when `this.onInit` is only known at run time.
fn writes_a_function(arg: &Expr) -> bool {
    match arg {
        Expr::Func(_) => true,
        Expr::Call(c) => matches!(&c.callee, Expr::Member(_, p) if p == "bind"),
        _ => false,
    }
}

/// Packages whose sockets are not Socket.IO's: a module that imports one
/// keeps its socket-named parameters unknown.
const OTHER_SOCKET_PACKAGES: &[&str] = &[
    "ws",
    "net",
    "tls",
    "dgram",
    "engine.io",
    "engine.io-client",
    "sockjs",
    "sockjs-client",
    "primus",
    "websocket",
    "faye-websocket",
    "isomorphic-ws",
    "uWebSockets.js",
    "express-ws",
    "@fastify/websocket",
    "reconnecting-websocket",
];

/// Whether a declared type names Socket.IO's own `Socket`, `Server` or
/// `Namespace`: through the global namespace of `@types/socket.io` 2.x
/// (`SocketIO.Server`), a namespace or default import of `socket.io`
/// (`sio.Socket`), or a name imported from it (`import { Socket } from
/// 'socket.io'`).
fn is_socketio_type(facts: &crate::ir::FileFacts, t: &str) -> bool {
    let (qual, last) = match t.rsplit_once('.') {
        Some((q, l)) => (Some(q), l),
        None => (None, t),
    };
    if !matches!(last, "Socket" | "Server" | "Namespace") {
        return false;
    }
    if qual == Some("SocketIO") {
        return true;
    }
    facts.body.iter().any(|st| match st {
        Stmt::Import(imp) if imp.source == "socket.io" => match qual {
            Some(q) => imp.namespace.as_deref() == Some(q) || imp.default.as_deref() == Some(q),
            None => imp.named.iter().any(|(_, local)| local == last),
        },
        _ => false,
    })
}

/// What a parameter of a function nobody called stands for, judged by its
/// name and declared type: a Socket.IO socket, server or namespace.
fn socket_param(name: &str, ty: Option<&TypeExpr>) -> Option<SioKind> {
    if let Some(TypeExpr::Ref(t, _)) = ty {
        match t.rsplit('.').next() {
            Some("Socket") => return Some(SioKind::Socket),
            Some("Server") if name.to_ascii_lowercase().contains("io") => {
                return Some(SioKind::Server);
            }
            Some("Namespace") => return Some(SioKind::Namespace),
            Some(_) => return None,
            None => {}
        }
    }
    let l = name.to_ascii_lowercase();
    // Sockets of other kinds: `tlsSocket`, `rawSocket`, `webSocket`, `ws`.
    let other = [
        "tls", "tcp", "udp", "net", "raw", "web", "ws", "unix", "ipc", "dgram", "zmq", "mqtt",
        "engine", "server",
    ];
    if other.iter().any(|p| l.starts_with(p)) {
        return None;
    }
    if l == "socket" || l == "sock" || (l.ends_with("socket") && l.len() > 6) {
        Some(SioKind::Socket)
    } else if matches!(
        l.as_str(),
        "io" | "sio" | "ioserver" | "socketserver" | "socketio" | "socketioserver"
    ) {
        Some(SioKind::Server)
    } else if matches!(l.as_str(), "nsp" | "namespace") {
        Some(SioKind::Namespace)
    } else {
        None
    }
}

impl Interp {
    /// The arguments of a function run without a caller: placeholders, except
    /// that in a program that uses Socket.IO a parameter named or typed like
    /// a Socket.IO socket, server or namespace (`socket`, `io`, `nsp`,
    /// `client: Socket`) stands for one, its namespace assumed: the one
    /// namespace the program's servers serve, else `/`. Its sites are charted
    /// and marked as assumed. A module that imports another socket library
    /// (`ws`, `net`, …) keeps plain placeholders.
    pub(crate) fn placeholder_args(&mut self, c: &Closure) -> Vec<Value> {
        let n = c.func.params.len();
        let mut argv = vec![Value::Unknown(Unknown::Param); n];
        // A callback handed to a package gets its arguments from that package.
        if self.rec.census.handed.contains_key(&(c.file, c.func.id)) {
            return argv;
        }
        let uses_sio = !self.rec.sio_servers.is_empty()
            || self.rec.sites.iter().any(|s| s.side == Side::Client);
        if !uses_sio || n == 0 {
            return argv;
        }
        let kinds: Vec<Option<SioKind>> = c
            .func
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| match p {
                Pattern::Ident(name) => {
                    socket_param(name, c.func.param_types.get(i).and_then(|t| t.as_ref()))
                }
                _ => None,
            })
            .collect();
        if kinds.iter().all(Option::is_none) || self.loader.needles_of(c.file) & needle::SOCKET == 0
        {
            return argv;
        }
        let facts = self.loader.get(c.file).facts.clone();
        let other = |s: &str| {
            let s = s.strip_prefix("node:").unwrap_or(s);
            OTHER_SOCKET_PACKAGES.contains(&s)
        };
        let mut kinds = kinds;
        if facts.static_sources().any(other)
            || facts.eager.iter().any(|s| other(s))
            || facts
                .fn_imports
                .iter()
                .any(|(_, v)| v.iter().any(|s| other(s)))
        {
            // Beside another socket library a name proves nothing; a type
            // that is Socket.IO's (`io: SocketIO.Server`, `s: Socket` imported
            // from `socket.io`) still does.
            for (i, k) in kinds.iter_mut().enumerate() {
                let typed = match c.func.param_types.get(i).and_then(|t| t.as_ref()) {
                    Some(TypeExpr::Ref(t, _)) => is_socketio_type(&facts, t),
                    _ => false,
                };
                if !typed {
                    *k = None;
                }
            }
            if kinds.iter().all(Option::is_none) {
                return argv;
            }
        }
        let (client, server, ns) = self.assumed_home(c, &facts);
        let assumed = Rc::new(crate::value::Assumed {
            func: c.func.name.clone().unwrap_or_else(|| "<anonymous>".into()),
            file: c.file,
            line: c.func.line,
        });
        for (i, k) in kinds.into_iter().enumerate() {
            let Some(kind) = k else { continue };
            let kind = match (kind, client) {
                (SioKind::Socket, true) => SioKind::Client,
                (_, true) => continue,
                (k, false) => k,
            };
            argv[i] = Value::Sio(Rc::new(Sio {
                assumed: Some(assumed.clone()),
                ..sio_bare(kind, server, &ns)
            }));
        }
        argv
    }

    /// Where a Socket.IO value assumed for a parameter of `c` lives: on the
    /// client (its file is a client's), or on the server and namespace the
    /// program's sockets connect to (the one namespace its servers serve,
    /// else `/`).
    fn assumed_home(&self, c: &Closure, facts: &crate::ir::FileFacts) -> (bool, u32, String) {
        let rel = self.loader.project.rel(c.file).to_string();
        let client =
            crate::census::is_client_path(&rel) || crate::census::imports_client_framework(facts);
        let (server, ns) = if client {
            (u32::MAX, "/".to_string())
        } else {
            // The namespaces sockets connect to (a `connection` listener),
            // else every namespace the servers the entries reach use.
            let mut served: BTreeSet<(String, u32)> = self
                .rec
                .sites
                .iter()
                .filter(|s| {
                    s.side == Side::Server
                        && s.name == "connection"
                        && s.assumed.is_none()
                        && self
                            .rec
                            .sio_servers
                            .get(s.server as usize)
                            .is_some_and(|v| v.reached)
                })
                .map(|s| (s.ns.clone(), s.server))
                .collect();
            if served.is_empty() {
                served = self
                    .rec
                    .sio_servers
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.reached)
                    .flat_map(|(i, s)| s.namespaces.iter().map(move |n| (n.clone(), i as u32)))
                    .collect();
            }
            let names: BTreeSet<&String> = served.iter().map(|(n, _)| n).collect();
            let pick = if names.len() == 1 || !names.contains(&"/".to_string()) {
                served.iter().next().cloned()
            } else {
                served.iter().find(|(n, _)| n == "/").cloned()
            };
            let (ns, server) = pick.unwrap_or_else(|| ("/".into(), 0));
            (server, ns)
        };
        (client, server, ns)
    }

    /// An argument only known at run time handed to a parameter declared
    /// with Socket.IO's own type (`constructor(io: Server)` with `Server`
    /// imported from `socket.io`, given `this.io` before it is attached):
    /// that parameter is a Socket.IO server, socket or namespace all the
    /// same, its namespace assumed as for a function run without a caller
    /// ([`Interp::placeholder_args`]).
    /// (`libs::typed_unknown_arg` asks only for a value only known at run
    /// time and a parameter with a declared type.)
    pub(crate) fn typed_unknown_sio(&mut self, c: &Closure, i: usize, v: &Value) -> Option<Value> {
        let Some(Some(TypeExpr::Ref(t, _))) = c.func.param_types.get(i) else {
            return None;
        };
        // An options object of a declared type (`options:
        // VerifierOptions`, an interface with `socket: Socket`): its
        // members of Socket.IO's types that are only known at run time are
        // those values, as the parameter itself would be.
        if let Value::Obj(o) = v {
            let decl = match c.env.lookup(t).map(|d| self.force(d, 0)) {
                Some(Value::Type(decl, _)) => decl,
                _ => return None,
            };
            let TypeExpr::Object(fields) = &*decl else {
                return None;
            };
            for (name, _, ty) in fields {
                let TypeExpr::Ref(ft, _) = ty else {
                    continue;
                };
                if matches!(o.get(name), Some(Value::Unknown(_)))
                    && let Some(s) = self.assumed_sio(c, ft)
                {
                    o.set(name, s);
                }
            }
            return None;
        }
        self.assumed_sio(c, t)
    }

    /// The Socket.IO value a declared type `t` of Socket.IO's (`Server`,
    /// `Socket`, `Namespace` imported from `socket.io`) stands for in `c`'s
    /// module when the value is only known at run time, its namespace
    /// assumed; `None` for any other type or in a client's module.
    fn assumed_sio(&mut self, c: &Closure, t: &str) -> Option<Value> {
        let kind = match t.rsplit('.').next() {
            Some("Server") => SioKind::Server,
            Some("Socket") => SioKind::Socket,
            Some("Namespace") => SioKind::Namespace,
            _ => return None,
        };
        let facts = self.loader.get(c.file).facts.clone();
        if !is_socketio_type(&facts, t) {
            return None;
        }
        let (client, server, ns) = self.assumed_home(c, &facts);
        if client {
            return None;
        }
        let assumed = Rc::new(crate::value::Assumed {
            func: c.func.name.clone().unwrap_or_else(|| "<anonymous>".into()),
            file: c.file,
            line: c.func.line,
        });
        Some(Value::Sio(Rc::new(Sio {
            assumed: Some(assumed),
            ..sio_bare(kind, server, &ns)
        })))
    }
}

/// Iterating the connected sockets (a `Map` since v3) gives `[id, socket]`
/// pairs; other Socket.IO values are not iterable.
pub(crate) fn iterated(s: &Rc<Sio>) -> Option<Vec<Value>> {
    (s.kind == SioKind::SocketSet).then(|| {
        vec![Value::array(vec![
            Value::dynamic(),
            s.derive(SioKind::Socket),
        ])]
    })
}

#[cfg(test)]
mod tests {
    use super::namespace_of_url;

    #[test]
    fn namespace_from_client_urls() {
        assert_eq!(namespace_of_url("http://localhost:3000/ops"), "/ops");
        assert_eq!(namespace_of_url("http://localhost:3000"), "/");
        assert_eq!(namespace_of_url("http://localhost:3000/"), "/");
        assert_eq!(namespace_of_url("/admin"), "/admin");
        assert_eq!(namespace_of_url("wss://h/chat?x=1"), "/chat");
        assert_eq!(namespace_of_url(""), "/");
    }
}
