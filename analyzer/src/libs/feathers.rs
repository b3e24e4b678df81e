//! Feathers on Express (`@feathersjs/express` 4 and 5) and on Koa
//! (`@feathersjs/koa` 5): an app made by `express(feathers())` or
//! `koa(feathers())`, whose services answer REST routes once
//! `app.configure(express.rest())` (4) or `app.configure(rest())` (5) ran.
//!
//! Captures: `express(feathers())` as an Express app (the module's other
//! members are Express's: `json`, `urlencoded`, `static`, `Router`, …);
//! `koa(feathers())` as one too, for what Feathers routes: its services'
//! REST operations (the Koa transport routes them as the Express one does)
//! and its Socket.IO transport; the package's other members (`bodyParser`,
//! `errorHandler`, `cors`, `serveStatic`, …) are middleware factories;
//! `app.configure(fn)`, which calls `fn` with the app as `this` and as its
//! argument; `app.use(path, service)` after `rest()` was configured, with
//! Express middleware around the service in 4 (`app.use(path, before…,
//! service, after…)`) and `{ methods, express: { before, after } }` options
//! in 5; `app.service(path)` gives the service back. Each standard method a
//! service has is one operation, as the REST provider routes it:
//! `find` GET `/path`, `get` GET `/path/:id`, `create` POST `/path`,
//! `update` PUT `/path/:id`, `patch` PATCH `/path/:id`, `remove` DELETE
//! `/path/:id`, where the id parameter is `:__feathersId` in 4 and `:__id`
//! in 5 (the version is the one the nearest package.json depends on).
//!
//! Which methods: those the service object or class has; a service made by
//! an installed package (a database adapter such as `feathers-mongoose`'s
//! `createService(options)`), or a class extending one, has all six, as the
//! adapters do; 5's `methods` option lists the exposed ones. Each operation
//! is sited at its `app.use`; its handler is the service method when the
//! program defines it.
//!
//! Example: `app.use('/messages', new Messages())` where `Messages` has
//! `find` and `create` is `GET /messages` and `POST /messages`.
//!
//! `@feathersjs/socketio`'s `socketio(options?, io => …)` makes a Socket.IO
//! server and hands it to the callback, so the program's own listeners are
//! charted. Once an app configured it, its services speak Feathers'
//! Socket.IO protocol on the main namespace: a client calls a method by
//! emitting its name with the service path first and an acknowledgement
//! last (`socket.emit('create', 'messages', data, params, (error, result)
//! => …)`), so each exposed standard method is a client-to-server event
//! (`find`, `get`, `create`, `update`, `patch`, `remove`) with a site at
//! each service's `use`; and once the app publishes (`app.publish(…)`, as
//! a generated `channels.js` does) the service events go to the channels'
//! connections as `path created`, `path updated`, `path patched` and
//! `path removed` (the path without its slashes), server-to-client, one
//! for each of `create`, `update`, `patch` and `remove` the service has.
//!
//! Deliberately not captured: custom service events (`events: [...]`), a
//! single service's `publish`, the Feathers client's calls (its socket
//! transport wraps the emits), the multi forms (`PATCH`, `PUT`, `DELETE` on
//! `/path` without an id, refused by the adapters unless `multi` is set),
//! custom methods of 5 (a `POST` told apart by the `X-Service-Method`
//! header: a finding names them), service hooks (`authenticate('jwt')`),
//! Feathers 2 (`feathers()` itself an Express app), and Koa's own routing
//! (a Koa app serves what its middleware answers; a Feathers app on Koa is
//! charted for its services alone).

use crate::inventory::Direction;
use crate::libs::socketio::RawSite;
use crate::machine::*;
use rustc_hash::FxHashMap;

const EXPRESS: &str = "@feathersjs/express";
const KOA: &str = "@feathersjs/koa";
const FEATHERS: &str = "@feathersjs/feathers";
const SOCKETIO: &str = "@feathersjs/socketio";
/// Feathers 3 and 4's own module for the REST provider (`require(
/// '@feathersjs/express/rest')`), the function `express.rest` is.
const EXPRESS_REST: &str = "@feathersjs/express/rest";
/// What `socketio()` gives `app.configure`, followed by its server's index.
const SOCKET_PROVIDER: &str = "feathers.socketio-provider:";

/// The standard service methods, with the verb and whether the route takes the id.
const METHODS: &[(&str, &str, bool)] = &[
    ("find", "get", false),
    ("get", "get", true),
    ("create", "post", false),
    ("update", "put", true),
    ("patch", "patch", true),
    ("remove", "delete", true),
];

/// The event each method that changes data sends when it succeeds.
const SERVICE_EVENTS: &[(&str, &str)] = &[
    ("create", "created"),
    ("update", "updated"),
    ("patch", "patched"),
    ("remove", "removed"),
];

/// What a client emits after a method's name: the service path, the
/// method's arguments, then the acknowledgement.
fn method_args(method: &str) -> Vec<String> {
    let args: &[&str] = match method {
        "find" => &["path", "params"],
        "get" | "remove" => &["path", "id", "params"],
        "create" => &["path", "data", "params"],
        _ => &["path", "id", "data", "params"],
    };
    args.iter().map(|a| a.to_string()).collect()
}

/// One Feathers app.
#[derive(Clone)]
struct FeathersApp {
    /// The id parameter of the REST routes (`__feathersId` in 4, `__id` in 5).
    id_param: &'static str,
    /// `rest()` was configured: services registered from now on answer REST.
    rest: bool,
    /// The services registered, by path without slashes (for `app.service(path)`).
    services: FxHashMap<String, Value>,
    /// The Socket.IO server `socketio()` made, once the app configured it.
    socket: Option<u32>,
    /// `app.publish(…)` ran: service events reach the channels' connections.
    publishes: bool,
    /// Each service's registration, for the Socket.IO protocol (which may
    /// be configured, or published, after the services).
    registered: Vec<Registered>,
}

/// A service an app's `use` registered, as the Socket.IO protocol sees it.
#[derive(Clone)]
struct Registered {
    /// The path without its slashes.
    path: String,
    /// The standard methods it has, in [`METHODS`] order.
    methods: Vec<&'static str>,
    /// Those a transport exposes (5's `methods` option can hide some).
    exposed: Vec<&'static str>,
    file: FileId,
    line: u32,
    /// Its method events were charted (the app had a Socket.IO server).
    called: bool,
    /// Its service events were charted (the app published).
    published: bool,
}

/// The Feathers apps of a run, by router.
#[derive(Default)]
pub(crate) struct FeathersState {
    apps: FxHashMap<u32, FeathersApp>,
}

impl FeathersState {
    pub(crate) fn is_app(&self, router: u32) -> bool {
        self.apps.contains_key(&router)
    }
}

use crate::libs::{framework, index_in, indexed};

/// The value of a Feathers package's default export (`require` in CommonJS).
pub(crate) fn default_export(pkg: &str) -> Option<Value> {
    match pkg {
        EXPRESS => Some(framework("feathers-express")),
        KOA => Some(framework("feathers-koa")),
        FEATHERS => Some(framework("feathers")),
        SOCKETIO => Some(framework("feathers.socketio")),
        EXPRESS_REST => Some(framework("feathers.rest")),
        _ => None,
    }
}

/// A member of a Feathers package, or of `@feathersjs/express`'s default
/// export (`express.rest()`, `express.json()`).
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    match (pkg, prop) {
        (EXPRESS, "default") => Some(framework("feathers-express")),
        (EXPRESS, "rest") => Some(framework("feathers.rest")),
        (EXPRESS, "original") => Some(Value::Builtin(Builtin::Express)),
        (EXPRESS, "Router") => Some(Value::Builtin(Builtin::RouterCtor)),
        (EXPRESS, "serveStatic") => Some(Value::Builtin(Builtin::MiddlewareFactory(Rc::from(
            "express.static",
        )))),
        (EXPRESS, p @ ("json" | "urlencoded" | "raw" | "text" | "static")) => Some(Value::Builtin(
            Builtin::MiddlewareFactory(Rc::from(format!("express.{p}").as_str())),
        )),
        (EXPRESS, p) => Some(Value::Builtin(Builtin::MiddlewareFactory(Rc::from(
            format!("{EXPRESS}.{p}").as_str(),
        )))),
        (KOA, "default" | "koa") => Some(framework("feathers-koa")),
        (KOA, "rest") => Some(framework("feathers.rest")),
        (KOA, p) => Some(Value::Builtin(Builtin::MiddlewareFactory(Rc::from(
            format!("{KOA}.{p}").as_str(),
        )))),
        (FEATHERS, "default" | "feathers") => Some(framework("feathers")),
        (SOCKETIO, "default" | "socketio") => Some(framework("feathers.socketio")),
        (EXPRESS_REST, "default") => Some(framework("feathers.rest")),
        _ => None,
    }
}

/// An adapter package's module: its functions and classes make services
/// (`createService(options)`, `new MongoDBService(options)`, `class S
/// extends KnexService`).
pub(crate) fn adapter(pkg: &str) -> Value {
    framework(&format!("feathers.adapter:{pkg}"))
}

/// A member of an adapter's module, or what calling or constructing one of
/// its functions gives: the package's functions and classes make services.
pub(crate) fn adapter_value(name: &str, made: bool) -> Option<Value> {
    let pkg = name.strip_prefix("feathers.adapter:")?;
    Some(match made {
        true => framework(&format!("feathers.service:{pkg}")),
        false => adapter(pkg),
    })
}

/// The standard methods the services of an adapter package have.
fn adapter_methods(pkg: &str) -> &'static [&'static str] {
    match pkg {
        "feathers-blob" => &["get", "create", "remove"],
        "feathers-mailer" => &["create"],
        // `AuthenticationService`: log in, log out.
        "@feathersjs/authentication" => &["create", "remove"],
        _ => &["find", "get", "create", "update", "patch", "remove"],
    }
}

/// The adapter package a service comes from: made by one of its functions
/// or classes, or an instance of a class extending one of its classes.
fn adapter_package(service: &Value) -> Option<String> {
    let of = |v: &Value| match v {
        Value::Builtin(Builtin::Framework(n)) => n
            .strip_prefix("feathers.service:")
            .or_else(|| n.strip_prefix("feathers.adapter:"))
            .map(str::to_string),
        _ => None,
    };
    match service {
        Value::Obj(_) => outside_base(service).and_then(|(_, v)| of(&v)),
        _ => of(service),
    }
}

/// Where an instance's class chain leaves the program: the last class the
/// program defines and the superclass value it extends (an adapter's class,
/// an unknown package's); `None` when the chain ends in the program.
fn outside_base(service: &Value) -> Option<(Rc<ClassVal>, Value)> {
    let Value::Obj(o) = service else {
        return None;
    };
    let mut class = o.class.borrow().clone();
    while let Some(c) = class {
        match &c.superclass {
            Some(Value::Class(s)) => class = Some(s.clone()),
            Some(v) => return Some((c.clone(), v.clone())),
            None => return None,
        }
    }
    None
}

/// The package whose default export a framework value is (its members are
/// the package's): `@feathersjs/express`'s or `@feathersjs/koa`'s.
fn transport_export(name: &str) -> Option<&'static str> {
    match name {
        "feathers-express" => Some(EXPRESS),
        "feathers-koa" => Some(KOA),
        _ => None,
    }
}

/// A member of a value these packages made: of an adapter's module, or of
/// `@feathersjs/express`'s or `@feathersjs/koa`'s default export.
pub(crate) fn framework_member(name: &str, prop: &str) -> Option<Value> {
    if let Some(v) = adapter_value(name, false) {
        return Some(v);
    }
    transport_export(name).map(|pkg| member(pkg, prop).unwrap_or_else(Value::external))
}

/// The id parameter of the major version `spec` (a semver range) names.
fn id_param(spec: Option<&str>) -> &'static str {
    let major = spec.and_then(crate::project::range_major);
    match major {
        Some(m) if m >= 5 => "__id",
        // Also when the manifest does not say (`workspace:`, `latest`): 5 is the current major.
        None => "__id",
        Some(_) => "__feathersId",
    }
}

impl Interp {
    /// Calls of the functions above: `express(feathers())` makes an app,
    /// `rest()` the provider `app.configure` takes.
    pub(crate) fn feathers_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        match name {
            "feathers-express" | "feathers-koa" => {
                let app = self.new_router(ctx.file, line, true);
                if let Value::Router(id) = app {
                    let rel = self.loader.project.rel(ctx.file).to_string();
                    let pkg = transport_export(name).unwrap_or(EXPRESS);
                    let spec = self.loader.project.package_dep_version(&rel, pkg);
                    self.libs.feathers.apps.insert(
                        id,
                        FeathersApp {
                            id_param: id_param(spec.as_deref()),
                            rest: false,
                            services: FxHashMap::default(),
                            socket: None,
                            publishes: false,
                            registered: Vec::new(),
                        },
                    );
                }
                Some(app)
            }
            // A Feathers app without a transport: not served over HTTP by itself.
            "feathers" => Some(Value::external()),
            "feathers.rest" => Some(framework("feathers.rest-provider")),
            // `socketio(options?, io => …)`: the Socket.IO server the
            // transport makes, handed to the callback.
            "feathers.socketio" => {
                let options: Vec<Value> = argv
                    .iter()
                    .filter(|v| matches!(v, Value::Obj(_)))
                    .cloned()
                    .collect();
                let io = self.new_sio_server(ctx, &options, line);
                for f in argv.iter().filter(|v| matches!(v, Value::Func(_))) {
                    self.call_value_now(ctx, f, vec![io.clone()], &[], line, None);
                }
                let server = match &io {
                    Value::Sio(s) => s.server,
                    _ => u32::MAX,
                };
                Some(indexed(SOCKET_PROVIDER, server))
            }
            n => adapter_value(n, true),
        }
    }

    /// `configure`, `use` with a service and `service` on a Feathers app;
    /// `None` leaves the call to Express.
    pub(crate) fn feathers_app_method(
        &mut self,
        ctx: &Ctx,
        id: u32,
        name: &str,
        call: &Call,
    ) -> Option<Value> {
        match name {
            "configure" => {
                let argv = self.eval_args(ctx, &call.args);
                match argv.first().map(|v| self.force_deep(v.clone())) {
                    Some(Value::Builtin(Builtin::Framework(n)))
                        if n.as_ref() == "feathers.rest-provider" =>
                    {
                        if let Some(app) = self.libs.feathers.apps.get_mut(&id) {
                            app.rest = true;
                        }
                    }
                    Some(Value::Builtin(Builtin::Framework(n)))
                        if n.starts_with(SOCKET_PROVIDER) =>
                    {
                        let server = index_in::<u32>(&n, SOCKET_PROVIDER);
                        if let Some(app) = self.libs.feathers.apps.get_mut(&id) {
                            app.socket = server.filter(|&s| s != u32::MAX);
                        }
                        self.feathers_protocol(id);
                    }
                    Some(f @ Value::Func(_)) => {
                        self.call_value_now(
                            ctx,
                            &f,
                            vec![Value::Router(id)],
                            &call.args,
                            call.line,
                            Some(Value::Router(id)),
                        );
                    }
                    // A plugin from a package: it gets the app.
                    Some(Value::Unknown(k))
                        if !self.modes.event_mode && !self.salvage_blocks(id) =>
                    {
                        if let Some(arg) = call.args.first() {
                            let from = match k {
                                Unknown::External(from) => from.clone(),
                                _ => None,
                            };
                            let argv = vec![Value::Router(id)];
                            self.package_router(ctx, arg, from.as_deref(), call.line, &argv);
                        }
                    }
                    _ => {}
                }
                Some(Value::Router(id))
            }
            "service" if call.args.len() == 1 => {
                let argv = self.eval_args(ctx, &call.args);
                let path = argv.first().and_then(|v| v.as_text());
                let app = self.libs.feathers.apps.get(&id);
                Some(
                    path.and_then(|p| app?.services.get(p.trim_matches('/')).cloned())
                        .unwrap_or_else(Value::external),
                )
            }
            "use" => self.feathers_use(ctx, id, call),
            // `app.publish(…)`: service events go to the channels it picks.
            "publish" => {
                self.eval_args(ctx, &call.args);
                if let Some(app) = self.libs.feathers.apps.get_mut(&id) {
                    app.publishes = true;
                }
                self.feathers_protocol(id);
                Some(Value::Router(id))
            }
            _ => None,
        }
    }

    /// `app.use(path, …, service, …)`: the service's REST operations, or
    /// (no service among the arguments) Express's `use`.
    fn feathers_use(&mut self, ctx: &Ctx, id: u32, call: &Call) -> Option<Value> {
        let mut argv = Vec::new();
        for a in &call.args {
            let v = self.eval(ctx, a);
            let v = self.force_deep(v);
            argv.push((a, v));
        }
        let service_at = match argv.first() {
            Some((_, Value::Str(_))) => argv
                .iter()
                .enumerate()
                .skip(1)
                .find(|(_, (_, v))| Self::is_service(v))
                .map(|(i, _)| i),
            _ => None,
        };
        let Some(at) = service_at else {
            if !self.modes.event_mode && !self.salvage_blocks(id) {
                self.register_use_values(ctx, id, call, argv);
            }
            return Some(Value::Router(id));
        };
        let path = argv[0].1.as_text().unwrap_or_default();
        let path = path.trim_matches('/').to_string();
        let service = argv[at].1.clone();
        let app = self.libs.feathers.apps.get_mut(&id)?;
        app.services.insert(path.clone(), service.clone());
        let (rest, id_param) = (app.rest, app.id_param);
        // 5's `methods` option: the methods a transport exposes.
        let options = argv.get(at + 1).map(|(_, v)| v.clone());
        let exposed: Option<Vec<String>> = match &options {
            Some(Value::Obj(o)) => match o.get("methods").map(|m| self.force_deep(m)) {
                Some(Value::Arr(a)) => {
                    Some(a.borrow().iter().filter_map(|m| m.as_text()).collect())
                }
                _ => None,
            },
            _ => None,
        };
        let has = self.service_methods(&service);
        self.feathers_register(id, &path, &has, exposed.as_deref(), ctx.file, call.line);
        if !rest || self.modes.event_mode || self.salvage_blocks(id) {
            return Some(Value::Router(id));
        }
        // 4: Express middleware before and after the service; 5: the options' `express`.
        let (before, after) = match &options {
            Some(Value::Obj(o)) => {
                let express = o.get("express").map(|v| self.force_deep(v));
                let list = |k: &str| match &express {
                    Some(Value::Obj(e)) => match e.get(k) {
                        Some(Value::Arr(a)) => a.borrow().clone(),
                        Some(v) => vec![v],
                        None => Vec::new(),
                    },
                    _ => Vec::new(),
                };
                (list("before"), list("after"))
            }
            _ => {
                let before: Vec<Value> = argv[1..at].iter().map(|(_, v)| v.clone()).collect();
                let after: Vec<Value> = argv[at + 1..].iter().map(|(_, v)| v.clone()).collect();
                (before, after)
            }
        };
        let mut middleware = Vec::new();
        if options.as_ref().is_some_and(|v| matches!(v, Value::Obj(_))) {
            for v in &before {
                middleware.push(value_name(v).unwrap_or_else(|| "<expression>".into()));
            }
        } else {
            let exprs: Vec<&Expr> = argv[1..at].iter().map(|(e, _)| *e).collect();
            for (e, v) in exprs.iter().zip(&before) {
                let mut names = Vec::new();
                self.handler_names(e, v, &mut names, 0);
                middleware.extend(names.into_iter().map(|(n, _)| n));
            }
        }
        let label = self.service_label(argv[at].0, &service, &path);
        if let Some(list) = &exposed {
            let custom: Vec<&String> = list
                .iter()
                .filter(|m| !METHODS.iter().any(|(n, ..)| n == m))
                .collect();
            if !custom.is_empty() {
                let names: Vec<String> = custom.iter().map(|m| format!("`{m}`")).collect();
                self.finding(
                    FindingCode::DynamicMethod,
                    ctx.file,
                    call.line,
                    format!(
                        "the service at `/{path}` exposes the custom methods {}: each is a `POST /{path}` told apart by the `X-Service-Method` header, which one operation per method and path cannot show",
                        names.join(", ")
                    ),
                );
            }
        }
        if has.is_empty()
            && let Some(base) = self.unmodelled_base(&service)
        {
            self.finding(
                FindingCode::PackageRouter,
                ctx.file,
                call.line,
                format!(
                    "the service at `/{path}` extends `{base}`, which the analysis does not model: the REST operations of the methods it inherits are not charted"
                ),
            );
        }
        let mut funcs = before.clone();
        funcs.extend(after);
        let mut routes: Vec<(&str, &str, bool)> = METHODS.to_vec();
        // `AuthenticationService.remove(null)` is the logout: `DELETE /authentication`.
        if adapter_package(&service).as_deref() == Some("@feathersjs/authentication") {
            routes.push(("remove", "delete", false));
        }
        for (method, verb, with_id) in &routes {
            let Some(at) = has.get(*method) else {
                continue;
            };
            if exposed
                .as_ref()
                .is_some_and(|l| !l.iter().any(|m| m == method))
            {
                continue;
            }
            let route = if *with_id {
                format!("/{path}/:{id_param}")
            } else {
                format!("/{path}")
            };
            let kind = RegKind::Route {
                method: verb.to_string(),
                paths: vec![PathArg::Str(route)],
                middleware: middleware.clone(),
                handler: Some(HandlerRef {
                    name: format!("{label}.{method}"),
                    at: *at,
                }),
                contract: Rc::new(RefCell::new(RawContract::default())),
                funcs: funcs.clone(),
                subpaths: false,
            };
            self.push_reg(id, kind, ctx.file, call.line, call.doc.clone(), None);
        }
        Some(Value::Router(id))
    }

    /// Keep a service's registration for the Socket.IO protocol, and chart
    /// what the app's transport and publishing already give it.
    fn feathers_register(
        &mut self,
        id: u32,
        path: &str,
        has: &FxHashMap<&'static str, Option<(FileId, u32)>>,
        exposed: Option<&[String]>,
        file: FileId,
        line: u32,
    ) {
        let Some(app) = self.libs.feathers.apps.get_mut(&id) else {
            return;
        };
        if app
            .registered
            .iter()
            .any(|r| r.path == path && r.file == file && r.line == line)
        {
            return;
        }
        let own: Vec<&'static str> = METHODS
            .iter()
            .map(|(m, ..)| *m)
            .filter(|m| has.contains_key(m))
            .collect();
        app.registered.push(Registered {
            path: path.to_string(),
            exposed: own
                .iter()
                .copied()
                .filter(|m| exposed.is_none_or(|l| l.iter().any(|e| e == m)))
                .collect(),
            methods: own,
            file,
            line,
            called: false,
            published: false,
        });
        self.feathers_protocol(id);
    }

    /// The Socket.IO protocol of an app's services (see the module doc): the
    /// method events of each service not charted yet, once the app has a
    /// Socket.IO server; its service events, once the app also publishes.
    fn feathers_protocol(&mut self, id: u32) {
        if self.modes.sio_quiet {
            return;
        }
        let Some(app) = self.libs.feathers.apps.get_mut(&id) else {
            return;
        };
        let Some(server) = app.socket else {
            return;
        };
        let mut sites = Vec::new();
        for r in &mut app.registered {
            if !r.called {
                r.called = true;
                for m in &r.exposed {
                    sites.push(RawSite {
                        args: method_args(m),
                        ack: true,
                        ..RawSite::server(
                            m.to_string(),
                            "/",
                            Direction::ClientToServer,
                            "on",
                            r.file,
                            r.line,
                            server,
                        )
                    });
                }
            }
            if app.publishes && !r.published {
                r.published = true;
                for (m, event) in SERVICE_EVENTS {
                    if r.methods.contains(m) {
                        sites.push(RawSite {
                            args: vec!["data".into()],
                            ..RawSite::server(
                                format!("{} {event}", r.path),
                                "/",
                                Direction::ServerToClient,
                                "emit",
                                r.file,
                                r.line,
                                server,
                            )
                        });
                    }
                }
            }
        }
        self.rec.sites.extend(sites);
    }

    /// Whether an argument of a Feathers app's `use` is a service: an object
    /// that is not a function or router, or what a function of an installed
    /// Feathers adapter package made.
    fn is_service(v: &Value) -> bool {
        match v {
            Value::Obj(o) => !o.is_module_obj.get(),
            Value::Builtin(Builtin::Framework(n)) => n.starts_with("feathers.service:"),
            _ => false,
        }
    }

    /// The standard methods a service has, with where the program defines each.
    fn service_methods(
        &mut self,
        service: &Value,
    ) -> FxHashMap<&'static str, Option<(FileId, u32)>> {
        let mut out = FxHashMap::default();
        // An adapter's service, or a class extending an adapter's: the
        // adapter's methods.
        let inherited = adapter_package(service).map_or(&[][..], |p| adapter_methods(&p));
        if !matches!(service, Value::Obj(_)) {
            for m in inherited {
                out.insert(*m, None);
            }
            return out;
        }
        for (m, ..) in METHODS {
            match self.member(service, m) {
                Value::Func(f) => {
                    out.insert(*m, Some((f.file, f.func.line)));
                }
                _ if inherited.contains(m) => {
                    out.insert(*m, None);
                }
                _ => {}
            }
        }
        out
    }

    /// The superclass text of a service whose class chain ends in a class
    /// the program does not define and no modelled package gives.
    fn unmodelled_base(&self, service: &Value) -> Option<String> {
        match outside_base(service)? {
            (c, Value::Unknown(_)) => c.class.superclass.as_ref().map(expr_text),
            _ => None,
        }
    }

    /// How an operation's handler names its service: the class, or the code.
    fn service_label(&self, e: &Expr, service: &Value, path: &str) -> String {
        if let Value::Obj(o) = service
            && let Some(c) = o.class.borrow().as_ref()
            && let Some(n) = &c.class.name
        {
            return n.clone();
        }
        let text = expr_text(e);
        let text = text.split('(').next().unwrap_or_default().trim();
        match text {
            "" | "<expression>" => format!("service({path})"),
            t => t.to_string(),
        }
    }
}
