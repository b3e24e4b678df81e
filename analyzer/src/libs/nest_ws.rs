//! NestJS WebSocket gateways in the evaluator: `@WebSocketGateway` classes
//! (port, namespace and path options, one Socket.IO server per port),
//! `@SubscribeMessage` handlers run with a socket and their payload,
//! `@WebSocketServer` properties, `@ConnectedSocket` and `@MessageBody`
//! parameters, and decorators of the program that compose the package's.
//!
//! Deliberately not captured: other Nest transports (`ws` adapters,
//! microservices).

use crate::inventory::Direction;
use crate::libs::socketio::sio;
use crate::libs::socketio_syntax::*;
use crate::machine::*;

/// An `@nestjs/websockets` decorator a decorator of the program applies:
/// its name and the arguments it was handed.
pub(crate) type NestWsApplied = (Rc<str>, Vec<Value>);

impl Interp {
    /// Which `@nestjs/websockets` decorator this is, if any: the package's
    /// own, or the one a decorator of the program composes (see
    /// [`Interp::nest_ws_composed`]).
    pub(crate) fn nest_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<Rc<str>> {
        let v = self.eval(ctx, &d.callee);
        match self.force(v, 0) {
            Value::Builtin(Builtin::NestWs(name)) => Some(name),
            f @ Value::Func(_) => self.nest_ws_composed(ctx, d, &f).map(|(name, _)| name),
            _ => None,
        }
    }

    /// The arguments of an `@nestjs/websockets` decorator: its own, or those
    /// the decorator of the program that composes it handed it.
    fn nest_decorator_args(&mut self, ctx: &Ctx, d: &Decorator) -> Vec<Value> {
        let v = self.eval(ctx, &d.callee);
        match self.force(v, 0) {
            f @ Value::Func(_) => self
                .nest_ws_composed(ctx, d, &f)
                .map(|(_, argv)| argv)
                .unwrap_or_default(),
            _ => self.eval_args(ctx, &d.args),
        }
    }

    /// The `@nestjs/websockets` decorator a decorator factory of the program
    /// applies when TypeScript evaluates `@f(args)`: `const SubscribeMessage
    /// = (event) => applyDecorators(Metric(event), RawSubscribeMessage(event))`
    /// (Nest's documented way to compose decorators) is `SubscribeMessage`
    /// with `event`. The factory runs once per decorator, with the
    /// decorator's arguments; the package's decorator calls it makes are
    /// what it composes (the first one). Not followed: a factory that only
    /// applies the package's decorator inside the function it returns.
    fn nest_ws_composed(&mut self, ctx: &Ctx, d: &Decorator, f: &Value) -> Option<NestWsApplied> {
        if !d.called || self.libs.nest_ws_capture.is_some() {
            return None;
        }
        let key = (ctx.file, d.line, expr_text(&d.callee));
        if let Some(known) = self.libs.nest_ws_composed.get(&key) {
            return known.clone();
        }
        // (Noted first: a factory that reaches this decorator again stops.)
        self.libs.nest_ws_composed.insert(key.clone(), None);
        let argv = self.eval_args(ctx, &d.args);
        self.libs.nest_ws_capture = Some(Vec::new());
        self.call_value_now(ctx, f, argv, &d.args, d.line, None);
        let got = self.libs.nest_ws_capture.take().unwrap_or_default();
        let found = got.into_iter().next();
        self.libs.nest_ws_composed.insert(key, found.clone());
        found
    }

    /// A call of an `@nestjs/websockets` decorator factory: noted while
    /// [`Interp::nest_ws_composed`] runs a factory of the program; the
    /// machine then treats it as before (`None`).
    pub(crate) fn nest_ws_call(&mut self, name: &Rc<str>, argv: &[Value]) -> Option<Value> {
        if let Some(got) = self.libs.nest_ws_capture.as_mut() {
            got.push((name.clone(), argv.to_vec()));
        }
        None
    }

    /// The one instance Nest's dependency injection makes of a class: each
    /// constructor parameter typed with a class of the program gets that
    /// class's instance (`constructor(private readonly chat: ChatService)`).
    pub(crate) fn nest_instance(&mut self, ctx: &Ctx, cv: &Rc<ClassVal>, depth: u32) -> Value {
        let key = (cv.file, cv.class.line);
        if let Some(v) = self.libs.nest_instances.get(&key) {
            return v.clone();
        }
        let mut args = Vec::new();
        if let Some(ctor) = cv.class.constructor.clone() {
            for t in &ctor.param_types {
                let dep = match t {
                    Some(TypeExpr::Ref(name, _)) if depth < 4 => {
                        match cv.env.lookup(name).map(|v| self.force(v, 0)) {
                            Some(Value::Class(k)) if !Rc::ptr_eq(&k, cv) => {
                                self.nest_instance(ctx, &k, depth + 1)
                            }
                            Some(Value::Builtin(Builtin::Framework(n)))
                                if n.as_ref() == super::nest::HTTP_ADAPTER_HOST =>
                            {
                                self.nest_adapter_host()
                            }
                            _ => Value::dynamic(),
                        }
                    }
                    _ => Value::dynamic(),
                };
                args.push(dep);
            }
        }
        let inst = self.construct(ctx, &Value::Class(cv.clone()), args, &[], cv.class.line);
        self.libs.nest_instances.insert(key, inst.clone());
        inst
    }

    /// The Socket.IO server Nest makes for the gateways on `port` (`None`:
    /// the HTTP server's), made at `file:line` when it is the first.
    pub(crate) fn nest_io_server(&mut self, port: Option<i64>, file: FileId, line: u32) -> u32 {
        if let Some(&i) = self.libs.nest_servers.get(&port) {
            return i;
        }
        self.rec.sio_servers.push(SioServer {
            file,
            line,
            path: "/socket.io".into(),
            namespaces: BTreeSet::from(["/".to_string()]),
            reached: true,
            separate: false,
        });
        let i = self.rec.sio_servers.len() as u32 - 1;
        self.libs.nest_servers.insert(port, i);
        i
    }

    /// A NestJS gateway, `@WebSocketGateway(port?, options?) class G`: a
    /// namespace of a Socket.IO server (one per port) that Nest creates. Its
    /// `@SubscribeMessage(name)` methods are listeners (the `@MessageBody()`
    /// parameter is the payload, a returned value the acknowledgement, a
    /// returned `{event, data}` an emit); `@WebSocketServer()` fields hold the
    /// server (or namespace); `@ConnectedSocket()` parameters, and the first
    /// parameter of `handleConnection`/`handleDisconnect`, hold the socket.
    pub(crate) fn nest_gateway(&mut self, ctx: &Ctx, cv: &Rc<ClassVal>) {
        let c = cv.class.clone();
        let mut gateway = None;
        for d in &c.decorators {
            if self.nest_decorator(ctx, d).as_deref() == Some("WebSocketGateway") {
                gateway = Some(d.clone());
            }
        }
        let Some(gw) = gateway else {
            return;
        };
        if !self.libs.nest_gateways.insert((ctx.file, c.line)) {
            return;
        }
        if self.nest_ws_only(ctx.file) {
            let name = c.name.clone().unwrap_or_default();
            self.finding(
                FindingCode::PackageRouter,
                ctx.file,
                gw.line,
                format!(
                    "gateway `{name}` is served by `@nestjs/platform-ws` (`WsAdapter`, plain WebSocket: the package.json lists it and not `@nestjs/platform-socket.io`): its messages are not Socket.IO events, and the analysis does not chart plain WebSocket messages"
                ),
            );
            // Nest still builds the gateway (its constructor's dependencies too).
            self.nest_instance(ctx, cv, 0);
            return;
        }
        let mut port = None;
        let mut ns = "/".to_string();
        let mut path = None;
        for a in &gw.args {
            let v = self.eval(ctx, a);
            match self.force_deep(v) {
                Value::Num(n) => port = Some(n as i64),
                Value::Obj(o) => {
                    if let Some(n) = o.get("namespace") {
                        ns = self.namespace_name(Some(&n));
                    }
                    if let Some(p) = o.get("path") {
                        path = self.force_deep(p).as_text();
                    }
                }
                _ => {}
            }
        }
        let server = self.nest_io_server(port, ctx.file, gw.line);
        if let Some(srv) = self.rec.sio_servers.get_mut(server as usize) {
            srv.namespaces.insert(ns.clone());
            if let Some(p) = path {
                srv.path = p;
            }
        }
        let kind = if ns == "/" {
            SioKind::Server
        } else {
            SioKind::Namespace
        };
        let Value::Sio(nsv) = sio(kind, server, &ns) else {
            return;
        };
        // Nest builds the instance; its constructor arguments come from DI.
        let inst = self.nest_instance(ctx, cv, 0);
        for (member, decs) in &c.member_decorators {
            for d in decs {
                if self.nest_decorator(ctx, d).as_deref() == Some("WebSocketServer") {
                    self.set_member(&inst, member, Value::Sio(nsv.clone()));
                }
            }
        }
        for (name, f) in &c.methods {
            let decs: Vec<Decorator> = c.decorators_of(name);
            let mut sub = None;
            for d in &decs {
                if self.nest_decorator(ctx, d).as_deref() == Some("SubscribeMessage") {
                    sub = Some(d.clone());
                }
            }
            let hook = matches!(
                name.as_str(),
                "handleConnection" | "handleDisconnect" | "afterInit"
            );
            if sub.is_none() && !hook {
                continue;
            }
            let n = f.params.len();
            let mut args = vec![Value::dynamic(); n];
            let (mut body, mut socket, mut decorated) = (None, None, false);
            for (m, i, d) in &c.param_decorators {
                if m != name {
                    continue;
                }
                decorated = true;
                match self.nest_decorator(ctx, d).as_deref() {
                    Some("MessageBody") if d.args.is_empty() => body = Some(*i),
                    Some("ConnectedSocket") => socket = Some(*i),
                    _ => {}
                }
            }
            if !decorated {
                // Undecorated handlers get (socket, data); hooks get the socket.
                socket = (n > 0 && name != "afterInit").then_some(0);
                body = (sub.is_some() && n > 1).then_some(1);
            }
            if let Some(i) = socket.filter(|&i| i < n) {
                args[i] = nsv.derive(SioKind::Socket);
            }
            if name == "afterInit" && n > 0 {
                args[0] = Value::Sio(nsv.clone());
            }
            let mut site = None;
            if let Some(d) = &sub {
                let first = self.nest_decorator_args(ctx, d).into_iter().next();
                let ev = self.event_name_of(ctx, first.as_ref(), d.args.first(), d.line);
                let responses = ws_responses(&f.body);
                let (acks, ack_schema) = returns_value(&f.body);
                if let Some((ev, pattern)) = ev
                    && !self.modes.sio_quiet
                {
                    let payload = body
                        .and_then(|i| f.param_types.get(i).cloned().flatten())
                        .map(|t| self.ts_schema(&cv.env, &t, 0));
                    let params = body
                        .and_then(|i| f.params.get(i))
                        .map(|p| vec![pattern_label(p)])
                        .unwrap_or_default();
                    self.rec.sites.push(RawSite {
                        pattern,
                        args: params,
                        ack: acks,
                        ack_schema,
                        payload,
                        ..RawSite::server(
                            ev,
                            &ns,
                            Direction::ClientToServer,
                            "on",
                            ctx.file,
                            d.line,
                            server,
                        )
                    });
                    site = Some(self.rec.sites.len() - 1);
                    for (ev, line, data) in responses {
                        let line = line.unwrap_or(f.line);
                        self.rec.sites.push(RawSite {
                            args: vec!["data".into()],
                            payload: data,
                            ..RawSite::server(
                                ev,
                                &ns,
                                Direction::ServerToClient,
                                "emit",
                                ctx.file,
                                line,
                                server,
                            )
                        });
                    }
                }
                if let (Some(i), Some(_)) = (body.filter(|&i| i < n), site) {
                    args[i] = Value::Http(HttpVal::Part(RequestPart::Payload));
                }
            }
            // The connection hooks are the gateway's `connection` and `disconnect` listeners.
            let lifecycle = match name.as_str() {
                "handleConnection" => Some("connection"),
                "handleDisconnect" => Some("disconnect"),
                _ => None,
            };
            if let Some(ev) = lifecycle
                && !self.modes.sio_quiet
            {
                self.rec.sites.push(RawSite::server(
                    ev.into(),
                    &ns,
                    Direction::ClientToServer,
                    "on",
                    ctx.file,
                    f.line,
                    server,
                ));
            }
            let clo = Closure::method(cv, f, &inst);
            let saved = std::mem::replace(&mut self.running.listener_site, site);
            // A listener runs once clients send, after start-up: program state
            // it reads (a provider's `sessions` map, filled by other handlers)
            // decides nothing, as in a `socket.on` listener. `afterInit` runs
            // at start-up.
            let listener = name != "afterInit";
            self.running.socket_handlers += u32::from(listener);
            self.invoke(&clo, args, Some(inst.clone()));
            self.running.socket_handlers -= u32::from(listener);
            self.running.listener_site = saved;
        }
        self.nest_ws_filters(ctx, &c, &nsv);
    }

    /// The exception filters of a gateway (`@UseFilters(F)` on the class or
    /// a handler, a class Nest builds or an instance): each one's
    /// `catch(exception, host)` runs as a listener does, with a `host` whose
    /// `switchToWs().getClient()` is the client socket of the gateway's
    /// namespace (`socket.emit('exception', …)` in the filter).
    fn nest_ws_filters(&mut self, ctx: &Ctx, c: &Class, nsv: &Rc<Sio>) {
        let mut decs: Vec<Decorator> = c.decorators.clone();
        for (name, _) in &c.methods {
            decs.extend(c.decorators_of(name));
        }
        let mut filters = Vec::new();
        for d in &decs {
            if self.nest_common(ctx, d).as_deref() != Some("UseFilters") {
                continue;
            }
            for a in &d.args {
                let v = self.eval(ctx, a);
                match self.force_deep(v) {
                    Value::Class(cv) => filters.push(self.nest_instance(ctx, &cv, 0)),
                    v @ Value::Obj(_) => filters.push(v),
                    _ => {}
                }
            }
        }
        for inst in filters {
            let Value::Func(f) = self.member(&inst, "catch") else {
                continue;
            };
            self.libs.nest_ws_clients.push(nsv.derive(SioKind::Socket));
            let host = crate::libs::indexed(WS_HOST, self.libs.nest_ws_clients.len() - 1);
            let args = vec![Value::dynamic(), host];
            self.running.socket_handlers += 1;
            self.invoke(&f, args, Some(inst.clone()));
            self.running.socket_handlers -= 1;
        }
    }

    /// A call of an exception filter's `host.switchToWs` or of its
    /// context's `getClient`.
    pub(crate) fn nest_ws_host_call(&mut self, name: &str) -> Option<Value> {
        if let Some(i) = crate::libs::index_in::<usize>(name, WS_SWITCH) {
            return Some(crate::libs::indexed(WS_CONTEXT, i));
        }
        let i = crate::libs::index_in::<usize>(name, WS_CLIENT)?;
        self.libs.nest_ws_clients.get(i).cloned()
    }
}

/// A gateway exception filter's `host` (`ArgumentsHost`), its
/// `switchToWs`, the context that gives, and its `getClient`, each followed
/// by the index of the client socket in `LibState::nest_ws_clients`.
const WS_HOST: &str = "nest.ws-host:";
const WS_SWITCH: &str = "nest.ws-host.switchToWs:";
const WS_CONTEXT: &str = "nest.ws-context:";
const WS_CLIENT: &str = "nest.ws-context.getClient:";

/// `host.switchToWs` and the context's `getClient`.
pub(crate) fn host_member(name: &str, prop: &str) -> Option<Value> {
    if let Some(i) = name.strip_prefix(WS_HOST) {
        return (prop == "switchToWs").then(|| crate::libs::framework(&format!("{WS_SWITCH}{i}")));
    }
    let i = name.strip_prefix(WS_CONTEXT)?;
    (prop == "getClient").then(|| crate::libs::framework(&format!("{WS_CLIENT}{i}")))
}
