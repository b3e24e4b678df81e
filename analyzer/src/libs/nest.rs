//! NestJS HTTP controllers on the Express adapter, and the DTO classes that
//! state their request schemas.
//!
//! Captures: `NestFactory.create(AppModule)` makes an app (or uses the
//! Express app handed in `new ExpressAdapter(server)`); the modules reachable
//! from the root module through `@Module({imports, controllers, providers})`
//! (dynamic modules returned by `forRoot()`-style calls and `forwardRef`
//! included); each `@Controller(path | [paths] | {path, version})` class's
//! methods decorated with `@Get/@Post/@Put/@Patch/@Delete/@Head/@Options/
//! @All/@Search/@Sse(path?)` (path arrays give several routes); the global
//! prefix (`app.setGlobalPrefix('api', {exclude})`); URI versioning
//! (`app.enableVersioning({type: VersioningType.URI, prefix, defaultVersion})`
//! with controller and `@Version(...)` versions, `VERSION_NEUTRAL`);
//! `@Body()/@Query()/@Param()` (whole or one property, `@Headers('x')`) with
//! their TypeScript types as request schemas, DTO classes read through their
//! class-validator decorators ([`Interp::dto_schema`]); `@HttpCode(n)` (else
//! 201 for POST) as the response status; `@UseGuards(...)` on the class or
//! method, `app.useGlobalGuards(...)` and `{provide: APP_GUARD, useClass}`
//! providers as middleware. Each operation is sited at its verb decorator.
//! A `@Controller` class that no module reachable from the root lists is an
//! `unmounted-router` finding (Nest does not serve it). A module decorator the
//! program makes by wrapping `Module(...)` is run with its arguments and the
//! metadata it hands to `Module` is read (the factory runs with the
//! decorator's arguments, then the function it returns with the class, as
//! TypeScript runs decorators; `MODULE_METADATA` of
//! `@nestjs/common/constants` is the table of metadata keys). `Module(meta)`
//! is applied when the class is defined (by TypeScript for `@Module(meta)`,
//! by the program for `Module(meta)(target)`): each key of `meta` becomes the
//! class's metadata (`Reflect.defineMetadata(key, meta[key], target)`), which
//! the walk over modules reads as Nest's scanner does, so `imports: this.modules`
//! in a builder's method and `imports` the program replaces are what Nest
//! sees; a class defined without it has its decorator evaluated again in its
//! scope. A module
//! decorator that cannot be followed makes that finding say Nest may serve
//! the controller. `RouterModule.register([{path, module, children}])`
//! puts each listed module's path (joined with its parents') in front of the
//! paths of the controllers that module declares, as Nest does.
//! `GraphQLModule.forRoot(options)`/`forRootAsync({ useFactory })` of
//! `@nestjs/graphql` in a module the root imports is one `POST` operation at
//! `options.path` (`/graphql` by default; under the global prefix only with
//! `useGlobalPrefix`), as `libs/dropins.rs` charts GraphQL on Express;
//! options only known at run time (a factory's from injected values, a
//! `useClass`'s), or a `path` that is, give a `dynamic-path` finding, not
//! the default.
//!
//! Example: `@Controller({path: 'cats', version: '1'}) class C { @Get(':id') f() {} }`
//! under `setGlobalPrefix('api')` and URI versioning is `GET /api/v1/cats/:id`.
//!
//! A controller serves the routes of the classes it extends too (Nest reads
//! route metadata through the prototype chain; a method of the same name in
//! the subclass overrides the inherited one), declared where the superclass
//! declares them.
//!
//! Deliberately not captured: host-bound controllers (`host` is ignored),
//! class-level decorators of a superclass, custom decorators composed with `applyDecorators`, header and
//! media-type versioning (no path change, so nothing to do), and what the
//! handlers return (Nest serialises it; no schema is read).

use crate::libs::schemas::{PartFields, SchemaLabel, SchemaSource};
use crate::machine::*;
use crate::paths;
use serde_json::{Map, Value as J, json};

/// The packages whose decorators this module reads.
pub(super) const COMMON: &str = "@nestjs/common";
/// `Module` of `@nestjs/common`: `Module(meta)` gives a class decorator.
pub(crate) const MODULE_FACTORY: &str = "@nestjs/common.Module";
/// The decorator `Module(meta)` gave, by this prefix and the index of its
/// metadata in [`NestState::module_metas`].
pub(crate) const MODULE_DECORATOR: &str = "@nestjs/common.Module#";
const ROUTER_MODULE_REGISTER: &str = "@nestjs/core.RouterModule.register";
/// `ConditionalModule.registerWhen` of `@nestjs/config`.
pub(crate) const REGISTER_WHEN: &str = "@nestjs/config.ConditionalModule.registerWhen";
/// `GraphQLModule.forRoot`/`forRootAsync` of `@nestjs/graphql`, by this prefix.
pub(crate) const GRAPHQL_MODULE: &str = "@nestjs/graphql.GraphQLModule.";
/// The dynamic module such a call gives, by this prefix and its index in
/// [`NestState::graphql`].
pub(super) const GRAPHQL_ENDPOINT: &str = "@nestjs/graphql.endpoint#";

/// A GraphQL endpoint `GraphQLModule.forRoot(options)` declares.
#[derive(Clone)]
pub(crate) struct GraphqlEndpoint {
    file: FileId,
    line: u32,
    /// `options.path`, `/graphql` when the options are known and name none;
    /// `None` when the options or their `path` are only known at run time.
    path: Option<String>,
    /// `options.useGlobalPrefix`: under the application's global prefix.
    global: bool,
}

/// One Nest application being assembled.
pub(crate) struct NestApp {
    router: u32,
    file: FileId,
    line: u32,
    root: Value,
    prefix: String,
    /// Route paths (without leading `/`) kept out of the global prefix, with the method (`None`: every one).
    exclude: Vec<(String, Option<String>)>,
    /// URI versioning: the segment prefix (`v`) and the default versions.
    versioning: Option<(String, Vec<Option<String>>)>,
    guards: Vec<String>,
    done: bool,
    /// `app.listen(...)` was called: a server, not a context the bootstrap
    /// code reads configuration from (`configApp.get(ConfigService)`).
    listens: bool,
}

/// What the run learned about Nest applications.
#[derive(Default)]
pub(crate) struct NestState {
    pub(super) apps: Vec<NestApp>,
    /// The GraphQL endpoints `GraphQLModule.forRoot(...)` calls declared.
    pub(super) graphql: Vec<GraphqlEndpoint>,
    /// Controller classes some application serves, by (application, file, class line).
    pub(super) served: HashSet<(usize, FileId, u32)>,
    /// Classes a served controller extends (their routes are served through
    /// it), by (file, class line), with that controller's name.
    pub(super) inherited: HashMap<(FileId, u32), String>,
    /// While a decorator factory of the program runs (see
    /// [`Interp::module_meta_through`]): the metadata its `Module(...)` calls got.
    pub(super) capture: Option<Vec<Value>>,
    /// Modules reached whose metadata no decorator gave (a decorator the
    /// analysis could not follow): `name (file:line)`.
    pub(super) opaque_modules: Vec<String>,
    /// The route trees handed to `RouterModule.register(...)`.
    pub(super) module_routes: Vec<Value>,
    /// The `RouterModule` path of the module that declares a controller, by
    /// the controller's (file, class line).
    pub(super) controller_prefix: HashMap<(FileId, u32), String>,
    /// The dynamic modules `ConditionalModule.registerWhen(...)` made, with
    /// the condition they are imported under.
    pub(super) conditional: Vec<(Rc<ObjData>, String)>,
    /// The condition of the module whose controller is being registered.
    pub(super) route_cond: Option<String>,
    /// The metadata of each `Module(meta)` call, by the index its decorator
    /// value ([`MODULE_DECORATOR`]) names.
    pub(super) module_metas: Vec<Value>,
    /// The classes a `Module(meta)` decorator was applied to, with that
    /// metadata (see [`Interp::nest_module_decorate`]).
    pub(super) decorated: Vec<(Rc<ClassVal>, Rc<ObjData>)>,
}

impl NestState {
    pub(crate) fn is_app(&self, router: u32) -> bool {
        self.apps.iter().any(|a| a.router == router)
    }

    /// The global prefix a Nest application has now (`setGlobalPrefix`);
    /// `None` for an app Nest did not make.
    pub(crate) fn global_prefix(&self, router: u32) -> Option<String> {
        self.apps
            .iter()
            .rfind(|a| a.router == router)
            .map(|a| a.prefix.clone())
    }
}

/// Nest's verb decorators and the Express method they register.
pub(crate) fn verb_of(decorator: &str) -> Option<&'static str> {
    Some(match decorator {
        "Get" | "Sse" => "get",
        "Post" => "post",
        "Put" => "put",
        "Patch" => "patch",
        "Delete" => "delete",
        "Head" => "head",
        "Options" => "options",
        "All" => "all",
        "Search" => "search",
        _ => return None,
    })
}

/// Members of Nest's packages that are plain data: `MODULE_METADATA` of
/// `@nestjs/common/constants`, the keys of `@Module` metadata, which module
/// decorators of the program use to pick them (`pick(meta,
/// Object.values(MODULE_METADATA))`).
///
/// Also `HttpStatus` of `@nestjs/common` (the status table of
/// http-status-codes), `NestFactory` and `forwardRef`, and the decorators of
/// `@nestjs/websockets`.
pub(crate) fn member(module: &str, prop: &str) -> Option<Value> {
    match (module, prop) {
        ("@nestjs/common", "HttpStatus") => Some(Value::Builtin(Builtin::HttpStatus)),
        ("@nestjs/core" | "@nestjs/common", p @ ("NestFactory" | "forwardRef")) => {
            Some(Value::Builtin(Builtin::Framework(Rc::from(p))))
        }
        ("@nestjs/core", "HttpAdapterHost") => Some(Value::Builtin(Builtin::Framework(Rc::from(
            HTTP_ADAPTER_HOST,
        )))),
        ("@nestjs/core", "RouterModule") => {
            let o = ObjData::new();
            o.set(
                "register",
                Value::Builtin(Builtin::MiddlewareFactory(Rc::from(ROUTER_MODULE_REGISTER))),
            );
            Some(Value::Obj(o))
        }
        ("@nestjs/common/constants", "MODULE_METADATA") => {
            let keys = ObjData::new();
            for (k, v) in [
                ("IMPORTS", "imports"),
                ("PROVIDERS", "providers"),
                ("CONTROLLERS", "controllers"),
                ("EXPORTS", "exports"),
            ] {
                keys.set(k, Value::str(v));
            }
            Some(Value::Obj(keys))
        }
        ("@nestjs/graphql", "GraphQLModule") => {
            let o = ObjData::new();
            for m in ["forRoot", "forRootAsync"] {
                o.set(
                    m,
                    Value::Builtin(Builtin::MiddlewareFactory(Rc::from(format!(
                        "{GRAPHQL_MODULE}{m}"
                    )))),
                );
            }
            Some(Value::Obj(o))
        }
        ("@nestjs/config", "ConditionalModule") => {
            let o = ObjData::new();
            o.set(
                "registerWhen",
                Value::Builtin(Builtin::MiddlewareFactory(Rc::from(REGISTER_WHEN))),
            );
            Some(Value::Obj(o))
        }
        ("@nestjs/websockets", p) => Some(Value::Builtin(Builtin::NestWs(Rc::from(p)))),
        _ => None,
    }
}

/// `@nestjs/core`'s `HttpAdapterHost` class: a constructor parameter of
/// this type gets [`Interp::nest_adapter_host`].
pub(crate) const HTTP_ADAPTER_HOST: &str = "@nestjs/core#HttpAdapterHost";

/// A member of a value `member` gave: `NestFactory.create`.
pub(crate) fn framework_member(name: &str, prop: &str) -> Option<Value> {
    (name == "NestFactory" && prop == "create")
        .then(|| Value::Builtin(Builtin::Framework(Rc::from("create"))))
}

pub(super) fn same_class(a: &ClassVal, b: &ClassVal) -> bool {
    (a.file, a.class.line) == (b.file, b.class.line)
}

/// The last name of a decorator's callee (`Get`, `common.Get` → `Get`).
pub(crate) fn callee_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Ident(n) | Expr::Member(_, n) => Some(n),
        _ => None,
    }
}

/// A guard as the middleware chain names it: `AuthGuard('jwt')` is
/// `AuthGuard()`, `new RolesGuard()` and `RolesGuard` are `RolesGuard`.
pub(crate) fn guard_name(e: &Expr) -> String {
    match e {
        Expr::Call(c) => format!("{}()", expr_text(&c.callee)),
        Expr::New(c, _, _) => expr_text(c),
        e => expr_text(e),
    }
}

/// One route of a decorated controller method, before it is registered.
pub(crate) struct ControllerRoute {
    pub(crate) method: String,
    pub(crate) paths: Vec<PathArg>,
    pub(crate) middleware: Vec<String>,
    /// `Class.method`.
    pub(crate) handler: String,
    pub(crate) contract: Rc<RefCell<RawContract>>,
    /// The verb decorator's line.
    pub(crate) line: u32,
}

impl Interp {
    /// Registers one route of a decorated controller method (NestJS,
    /// routing-controllers), sited at its verb decorator.
    pub(crate) fn push_controller_route(
        &mut self,
        router: u32,
        cv: &Rc<ClassVal>,
        f: &crate::ir::Func,
        route: ControllerRoute,
    ) {
        // A method name Express has no router method for (`@Method('fetch')`)
        // registers nothing.
        if crate::Method::parse(&route.method).is_none() {
            self.finding(
                FindingCode::DynamicMethod,
                cv.file,
                route.line,
                format!(
                    "`{}` is not an HTTP method an Express router serves; `{}` is not charted",
                    route.method.escape_debug(),
                    route.handler
                ),
            );
            return;
        }
        let reg = Reg {
            kind: RegKind::Route {
                method: route.method,
                paths: route.paths,
                middleware: route.middleware,
                handler: Some(HandlerRef {
                    name: route.handler,
                    at: Some((cv.file, f.line)),
                }),
                contract: route.contract,
                funcs: Vec::new(),
                subpaths: false,
            },
            file: cv.file,
            line: route.line,
            cond: self.libs.nest.route_cond.clone(),
            doc: f.doc.clone(),
            via: None,
            declared: None,
        };
        self.rec.routers[router as usize].regs.push(reg);
        self.js.reentry.registered += 1;
    }

    /// Runs, as unreached code, every non-test file that declares a decorated
    /// controller class (NestJS, routing-controllers) and no module loaded, so
    /// the classes a framework was not told about can be named in findings.
    pub(crate) fn load_controller_files(&mut self) {
        let pending: Vec<FileId> = (0..self.loader.project.files.len() as FileId)
            .filter(|&f| {
                self.loader.needles_of(f) & needle::CONTROLLER != 0
                    && !self.js.modules.contains_key(&f)
                    && !crate::is_test_path(self.loader.project.rel(f))
            })
            .collect();
        self.with_mode(Mode::Unreached, true, |me| {
            for f in pending {
                me.run_module(f);
            }
        });
    }

    /// The context a class's decorators are evaluated in.
    pub(crate) fn class_ctx(&self, cv: &Rc<ClassVal>) -> Ctx {
        Ctx {
            file: cv.file,
            scope: cv.env.clone(),
            this: Value::Undef,
            home: None,
        }
    }

    /// The package and exported name a decorator comes from, when it comes
    /// from a modelled package (`@Get()` from `@nestjs/common` is
    /// `("@nestjs/common", "Get")`).
    pub(crate) fn decorator_origin(
        &mut self,
        ctx: &Ctx,
        d: &Decorator,
    ) -> Option<(String, String)> {
        let v = self.eval(ctx, &d.callee);
        match self.force(v, 0) {
            Value::Builtin(Builtin::MiddlewareFactory(n)) => {
                let (pkg, name) = n.rsplit_once('.')?;
                Some((pkg.to_string(), name.to_string()))
            }
            _ => None,
        }
    }

    /// The `@nestjs/common` decorator this is, if it is one.
    pub(super) fn nest_common(&mut self, ctx: &Ctx, d: &Decorator) -> Option<String> {
        match self.decorator_origin(ctx, d) {
            Some((pkg, name)) if pkg == COMMON => Some(name),
            _ => None,
        }
    }

    /// `NestFactory.create(AppModule, adapter?, options?)`: an Express app
    /// whose routes are the controllers of the modules the root reaches
    /// (registered by [`Interp::finish_nest_apps`], once the bootstrap code
    /// has set the prefix, versioning and global guards).
    pub(crate) fn nest_create(
        &mut self,
        ctx: &Ctx,
        argv: &[Value],
        args: &[Expr],
        line: u32,
    ) -> Value {
        let root = argv
            .first()
            .cloned()
            .map(|v| self.force_deep(v))
            .unwrap_or(Value::Undef);
        // `new ExpressAdapter(server)`: the routes go on that Express app.
        let mut router = None;
        if let Some(Expr::New(callee, cargs, _)) = args.get(1)
            && callee_name(callee) == Some("ExpressAdapter")
            && let Some(a) = cargs.first()
        {
            let v = self.eval(ctx, a);
            if let Value::Router(id) = self.force_deep(v) {
                router = Some(id);
            }
        }
        let router = match router {
            Some(r) => r,
            None => match self.new_router(ctx.file, line, true) {
                Value::Router(id) => id,
                _ => return Value::dynamic(),
            },
        };
        self.libs.nest.apps.push(NestApp {
            router,
            file: ctx.file,
            line,
            root,
            prefix: String::new(),
            exclude: Vec::new(),
            versioning: None,
            guards: Vec::new(),
            done: false,
            listens: false,
        });
        Value::Router(router)
    }

    /// The Nest-only methods of an application (`setGlobalPrefix`,
    /// `enableVersioning`, `useGlobalGuards`); `None` for the Express ones.
    pub(crate) fn nest_app_method(
        &mut self,
        ctx: &Ctx,
        id: u32,
        name: &str,
        call: &Call,
    ) -> Option<Value> {
        let i = self.libs.nest.apps.iter().rposition(|a| a.router == id)?;
        match name {
            "setGlobalPrefix" => {
                let argv = self.eval_args(ctx, &call.args);
                let prefix = argv
                    .first()
                    .and_then(|v| self.force_deep(v.clone()).as_text());
                let mut exclude = Vec::new();
                if let Some(Value::Obj(o)) = argv.get(1).map(|v| self.force_deep(v.clone()))
                    && let Some(Value::Arr(items)) = o.get("exclude").map(|v| self.force_deep(v))
                {
                    for it in items.borrow().clone() {
                        match self.force_deep(it) {
                            Value::Obj(r) => {
                                let path = r.get("path").and_then(|p| self.force_deep(p).as_text());
                                let method = self.request_method(ctx, call, &r);
                                if let Some(p) = path {
                                    exclude.push((p.trim_matches('/').to_string(), method));
                                }
                            }
                            v => {
                                if let Some(p) = v.as_text() {
                                    exclude.push((p.trim_matches('/').to_string(), None));
                                }
                            }
                        }
                    }
                }
                match prefix {
                    Some(p) => {
                        let app = &mut self.libs.nest.apps[i];
                        app.prefix = p;
                        app.exclude = exclude;
                    }
                    None => self.dynamic_path(ctx, call, "setGlobalPrefix"),
                }
                Some(Value::Router(id))
            }
            "enableVersioning" => {
                let mut uri = true;
                let mut seg = "v".to_string();
                let mut defaults = Vec::new();
                if let Some(Expr::Object(props)) = call.args.first() {
                    for p in props {
                        let ObjProp::KeyValue(PropKey::Name(k), e) = p else {
                            continue;
                        };
                        match k.as_str() {
                            // `VersioningType.URI` (an enum member; URI is 0).
                            "type" => {
                                uri = match e {
                                    Expr::Member(_, m) => m == "URI",
                                    Expr::Num(n) => *n == 0.0,
                                    _ => true,
                                }
                            }
                            "prefix" => {
                                let v = self.eval(ctx, e);
                                match self.force_deep(v) {
                                    Value::Bool(false) => seg.clear(),
                                    v => {
                                        if let Some(t) = v.as_text() {
                                            seg = t;
                                        }
                                    }
                                }
                            }
                            "defaultVersion" => defaults = self.versions(ctx, e),
                            _ => {}
                        }
                    }
                }
                self.libs.nest.apps[i].versioning = uri.then_some((seg, defaults));
                Some(Value::Router(id))
            }
            "listen" | "init" => {
                self.libs.nest.apps[i].listens = true;
                None
            }
            // `app.get(Roster)`: the instance Nest's dependency injection made
            // (one per class, the one gateways get).
            "get" if call.args.len() == 1 => {
                let v = self.eval(ctx, &call.args[0]);
                match self.force_deep(v) {
                    Value::Class(cv) => Some(self.nest_instance(ctx, &cv, 0)),
                    _ => None,
                }
            }
            "getHttpAdapter" => {
                self.eval_args(ctx, &call.args);
                Some(self.nest_http_adapter(id))
            }
            "useWebSocketAdapter" => {
                let argv = self.eval_args(ctx, &call.args);
                if let Some(a) = argv.into_iter().next() {
                    self.nest_use_ws_adapter(ctx, a, call.line);
                }
                Some(Value::Router(id))
            }
            "useGlobalGuards" => {
                let names = self.nest_guards(ctx, &call.args, call.line);
                self.libs.nest.apps[i].guards.extend(names);
                Some(Value::Router(id))
            }
            _ => None,
        }
    }

    /// The guards `@UseGuards(...)`/`useGlobalGuards(...)` name; those
    /// that deny (passport's `AuthGuard(...)`, guard classes of the
    /// program) are noted as guards.
    fn nest_guards(&mut self, ctx: &Ctx, args: &[Expr], line: u32) -> Vec<String> {
        let mut out = Vec::new();
        for a in args {
            let name = guard_name(a);
            let target = match a {
                Expr::New(c, _, _) => c.as_ref(),
                e => e,
            };
            match target {
                Expr::Call(c) if callee_name(&c.callee) == Some("AuthGuard") => {
                    let v = self.eval(ctx, &c.callee);
                    let passport = matches!(self.force(v, 0),
                        Value::Builtin(Builtin::MiddlewareFactory(n)) if n.starts_with("@nestjs/passport."));
                    if passport && !self.rec.guards.contains_key(&name) {
                        self.rec.guards.insert(
                            name.clone(),
                            GuardInfo {
                                status: 401,
                                file: ctx.file,
                                line,
                                credential: None,
                            },
                        );
                    }
                }
                e => {
                    let v = self.eval(ctx, e);
                    if let Value::Class(g) = self.force_deep(v) {
                        self.note_guard_class(&name, &g);
                    }
                }
            }
            out.push(name);
        }
        out
    }

    /// A guard class of the program: it denies with 403 when `canActivate`
    /// answers false, 401 when it extends passport's `AuthGuard(...)`.
    pub(super) fn note_guard_class(&mut self, name: &str, g: &Rc<ClassVal>) {
        if self.rec.guards.contains_key(name) {
            return;
        }
        let passport = matches!(&g.class.superclass, Some(Expr::Call(c)) if callee_name(&c.callee) == Some("AuthGuard"));
        let can_activate = g.class.methods.iter().any(|(n, _)| n == "canActivate");
        // Rate limiting and the like deny with other statuses.
        let not_access = name.contains("Throttler") || name.contains("RateLimit");
        if (passport || can_activate) && !not_access {
            self.rec.guards.insert(
                name.to_string(),
                GuardInfo {
                    status: if passport { 401 } else { 403 },
                    file: g.file,
                    line: g.class.line,
                    credential: None,
                },
            );
        }
    }

    /// `method: RequestMethod.GET` in an exclude entry.
    fn request_method(&mut self, _ctx: &Ctx, _call: &Call, r: &Rc<ObjData>) -> Option<String> {
        match r.get("method").map(|m| self.force_deep(m)) {
            Some(Value::Builtin(Builtin::MiddlewareFactory(n))) => n
                .rsplit('.')
                .next()
                .filter(|m| *m != "ALL")
                .map(|m| m.to_ascii_lowercase()),
            Some(v) => v.as_text().map(|m| m.to_ascii_lowercase()),
            None => None,
        }
    }

    /// The versions a `version`/`defaultVersion`/`@Version` value names
    /// (`None`: `VERSION_NEUTRAL`, no segment).
    fn versions(&mut self, ctx: &Ctx, e: &Expr) -> Vec<Option<String>> {
        let items: Vec<Expr> = match e {
            Expr::Array(items) => items.clone(),
            e => vec![e.clone()],
        };
        let mut out = Vec::new();
        for it in &items {
            if callee_name(it) == Some("VERSION_NEUTRAL") {
                out.push(None);
                continue;
            }
            let v = self.eval(ctx, it);
            match self.force_deep(v) {
                Value::Arr(a) => {
                    for x in a.borrow().iter() {
                        if let Some(t) = x.as_text() {
                            out.push(Some(t));
                        }
                    }
                }
                v => {
                    if let Some(t) = v.as_text() {
                        out.push(Some(t));
                    }
                }
            }
        }
        out
    }

    /// The strings a path argument names (`'x'`, `['a', 'b']`; none: `""`).
    pub(crate) fn path_list(&mut self, ctx: &Ctx, e: Option<&Expr>) -> Option<Vec<String>> {
        let Some(e) = e else {
            return Some(vec![String::new()]);
        };
        let v = self.eval(ctx, e);
        match self.force_deep(v) {
            Value::Undef => Some(vec![String::new()]),
            Value::Arr(a) => a.borrow().iter().map(|x| x.as_text()).collect(),
            v => v.as_text().map(|t| vec![t]),
        }
    }

    /// Register the routes of every Nest application created so far, and
    /// report controllers no application serves.
    pub(crate) fn finish_nest_apps(&mut self) {
        if self.libs.nest.apps.iter().all(|a| a.done) {
            return;
        }
        // Apps that only serve as a context (never listening) get no routes
        // when another one listens.
        let any_listens = self.libs.nest.apps.iter().any(|a| a.listens);
        for i in 0..self.libs.nest.apps.len() {
            if self.libs.nest.apps[i].done || (any_listens && !self.libs.nest.apps[i].listens) {
                continue;
            }
            self.libs.nest.apps[i].done = true;
            let root = self.libs.nest.apps[i].root.clone();
            let mut controllers = Vec::new();
            let mut guards = self.libs.nest.apps[i].guards.clone();
            let mut graphql = Vec::new();
            let mut hooks = Vec::new();
            self.walk_modules(
                root,
                &mut controllers,
                &mut guards,
                &mut graphql,
                &mut hooks,
            );
            for (cv, cond) in controllers {
                self.libs.nest.route_cond = cond;
                self.register_controller(i, &cv, &guards);
                self.libs.nest.route_cond = None;
            }
            self.lifecycle_hooks(&hooks);
            for g in graphql {
                self.register_graphql(i, g);
            }
        }
        // Controllers in files no module reached: loaded to be named.
        self.load_controller_files();
        let classes: Vec<Rc<ClassVal>> = self.rec.classes.iter().map(|(c, _)| c.clone()).collect();
        for cv in classes {
            if self
                .libs
                .nest
                .served
                .iter()
                .any(|&(_, f, l)| (f, l) == (cv.file, cv.class.line))
            {
                continue;
            }
            let ctx = self.class_ctx(&cv);
            let decs = cv.class.decorators.clone();
            for d in &decs {
                if self.nest_common(&ctx, d).as_deref() == Some("Controller") {
                    // The application of the controller's own package (a
                    // repository may hold several programs), listening first.
                    let project = &self.loader.project;
                    let package = |f: FileId| {
                        let rel = project.rel(f);
                        project.package_dir_of(rel.rsplit_once('/').map_or("", |(d, _)| d))
                    };
                    let own = package(cv.file);
                    let apps = &self.libs.nest.apps;
                    let app = apps
                        .iter()
                        .find(|a| a.listens && package(a.file) == own)
                        .or_else(|| apps.iter().find(|a| package(a.file) == own))
                        .or_else(|| apps.iter().find(|a| a.listens))
                        .unwrap_or(&apps[0]);
                    let at = format!("{}:{}", self.loader.project.rel(app.file), app.line);
                    let name = cv.class.name.clone().unwrap_or_default();
                    let message = match self.libs.nest.inherited.get(&(cv.file, cv.class.line)) {
                        Some(sub) => format!(
                            "controller `{name}` is not in the `controllers` of any module the root module of the Nest application ({at}) imports; Nest does not serve it under its own path (its routes are served through `{sub}`, which extends it)"
                        ),
                        None if !self.libs.nest.opaque_modules.is_empty() => format!(
                            "controller `{name}` is not in the `controllers` of any module the root module of the Nest application ({at}) imports, as far as the analysis can read them: the metadata of {} is made by a decorator it could not follow, so Nest may serve it",
                            self.libs.nest.opaque_modules.join(", ")
                        ),
                        None => format!(
                            "controller `{name}` is not in the `controllers` of any module the root module of the Nest application ({at}) imports; Nest does not serve its routes"
                        ),
                    };
                    self.finding(FindingCode::UnmountedRouter, cv.file, d.line, message);
                }
            }
        }
    }

    /// Nest's lifecycle hooks, as `app.init()` (or `listen`) calls them after
    /// it registered the controllers' routes: `onModuleInit()` of every
    /// module, controller and provider instance, then
    /// `onApplicationBootstrap()` of each. A hook may register routes on the
    /// Express app it gets from `HttpAdapterHost` (`this.adapterHost
    /// .httpAdapter.getInstance().get(...)`); the instances are the ones
    /// dependency injection makes ([`Interp::nest_instance`]).
    fn lifecycle_hooks(&mut self, classes: &[Rc<ClassVal>]) {
        for hook in ["onModuleInit", "onApplicationBootstrap"] {
            for cv in classes {
                let Some(f) = cv.class.methods.iter().find(|(n, _)| n == hook) else {
                    continue;
                };
                let line = f.1.line;
                let ctx = self.class_ctx(cv);
                let inst = self.nest_instance(&ctx, cv, 0);
                let method = self.member(&inst, hook);
                self.call_value_now(&ctx, &method, Vec::new(), &[], line, Some(inst));
            }
        }
    }

    /// `app.getHttpAdapter()` of a Nest application, and the `httpAdapter`
    /// of the `HttpAdapterHost` Nest injects: its `getInstance()` is the
    /// Express app the routes go on.
    pub(crate) fn nest_http_adapter(&self, router: u32) -> Value {
        let adapter = ObjData::new();
        adapter.set("getInstance", Value::Builtin(Builtin::AppGetter(router)));
        Value::Obj(adapter)
    }

    /// The `HttpAdapterHost` Nest injects: the adapter of the application
    /// that listens (else the last one made).
    pub(crate) fn nest_adapter_host(&self) -> Value {
        let apps = &self.libs.nest.apps;
        let Some(app) = apps.iter().find(|a| a.listens).or(apps.last()) else {
            return Value::dynamic();
        };
        let host = ObjData::new();
        host.set("httpAdapter", self.nest_http_adapter(app.router));
        Value::Obj(host)
    }

    /// `GraphQLModule.forRoot(options)` or `forRootAsync({ useFactory })`
    /// (`method`): the dynamic module serving the schema, at `options.path`
    /// (`/graphql` by default, as `@nestjs/graphql` has it); the factory of
    /// `forRootAsync` runs with what it injects unknown.
    pub(crate) fn nest_graphql_module(
        &mut self,
        ctx: &Ctx,
        method: &str,
        argv: &[Value],
        line: u32,
    ) -> Value {
        let mut options = argv.first().map(|v| self.force_deep(v.clone()));
        if method == "forRootAsync"
            && let Some(Value::Obj(o)) = &options
        {
            options = match o.get("useFactory").map(|f| self.force_deep(f)) {
                Some(f @ Value::Func(_)) => {
                    let made = self.call_value_now(ctx, &f, Vec::new(), &[], line, None);
                    Some(self.force_deep(made))
                }
                _ => None,
            };
        }
        let get = |k: &str| match &options {
            Some(Value::Obj(o)) => o.get(k),
            _ => None,
        };
        // The default holds only for options known to name no `path`:
        // options a factory or class makes at run time may name any.
        let path = match (&options, get("path").map(|v| self.force_deep(v))) {
            (Some(Value::Obj(_)), None | Some(Value::Undef)) => Some("/graphql".to_string()),
            (Some(Value::Obj(_)), Some(v)) => v.as_text(),
            _ => None,
        };
        let global = get("useGlobalPrefix").and_then(|v| v.truthy()) == Some(true);
        let graphql = &mut self.libs.nest.graphql;
        graphql.push(GraphqlEndpoint {
            file: ctx.file,
            line,
            path,
            global,
        });
        let i = graphql.len() - 1;
        Value::Builtin(Builtin::Framework(Rc::from(format!(
            "{GRAPHQL_ENDPOINT}{i}"
        ))))
    }

    /// A GraphQL endpoint a module of application `app` imports: one `POST`
    /// operation, as `libs/dropins.rs` charts GraphQL servers on Express.
    fn register_graphql(&mut self, app: usize, i: usize) {
        let g = self.libs.nest.graphql[i].clone();
        let Some(path) = g.path.clone() else {
            self.finding(
                FindingCode::DynamicPath,
                g.file,
                g.line,
                "the path of this `GraphQLModule` endpoint is only known at run time (the options that name it are made at run time); it is not charted".into(),
            );
            return;
        };
        let a = &self.libs.nest.apps[app];
        let path = if g.global {
            paths::join(&a.prefix, &path)
        } else {
            path
        };
        let router = a.router;
        let kind = RegKind::package_route("post", vec![PathArg::Str(path)], "graphql", false);
        self.push_reg(router, kind, g.file, g.line, None, None);
    }

    /// A call of a package's factory: `RouterModule.register(routes)`.
    pub(crate) fn note_factory_call(&mut self, name: &str, argv: &[Value]) {
        if name == ROUTER_MODULE_REGISTER
            && let Some(routes) = argv.first()
        {
            self.libs.nest.module_routes.push(routes.clone());
        }
    }

    /// The routes of one controller class, on the application's router.
    fn register_controller(&mut self, app: usize, cv: &Rc<ClassVal>, global_guards: &[String]) {
        if !self.libs.nest.served.insert((app, cv.file, cv.class.line)) {
            return;
        }
        let ctx = self.class_ctx(cv);
        let c = cv.class.clone();
        let mut base = vec![String::new()];
        let mut class_versions: Vec<Option<String>> = Vec::new();
        let mut class_guards: Vec<String> = Vec::new();
        let mut is_controller = false;
        for d in &c.decorators {
            match self.nest_common(&ctx, d).as_deref() {
                Some("Controller") => {
                    is_controller = true;
                    match d.args.first() {
                        Some(Expr::Object(props)) => {
                            for p in props {
                                let ObjProp::KeyValue(PropKey::Name(k), e) = p else {
                                    continue;
                                };
                                match k.as_str() {
                                    "path" => {
                                        if let Some(p) = self.path_list(&ctx, Some(e)) {
                                            base = p;
                                        }
                                    }
                                    "version" => class_versions = self.versions(&ctx, e),
                                    _ => {}
                                }
                            }
                        }
                        a => match self.path_list(&ctx, a) {
                            Some(p) => base = p,
                            None => {
                                let text = a.map(expr_text).unwrap_or_default();
                                self.finding(
                                    FindingCode::DynamicPath,
                                    cv.file,
                                    d.line,
                                    format!("the path of `@Controller({text})` is only known at run time"),
                                );
                                return;
                            }
                        },
                    }
                }
                Some("UseGuards") => class_guards.extend(self.nest_guards(&ctx, &d.args, d.line)),
                _ => {}
            }
        }
        if !is_controller {
            return;
        }
        if let Some(p) = self
            .libs
            .nest
            .controller_prefix
            .get(&(cv.file, cv.class.line))
        {
            for b in &mut base {
                *b = paths::join(p, b);
            }
        }
        let class_name = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        let (prefix, exclude, versioning) = {
            let a = &self.libs.nest.apps[app];
            (a.prefix.clone(), a.exclude.clone(), a.versioning.clone())
        };
        let router = self.libs.nest.apps[app].router;
        // The class's methods, then those it inherits that it does not override.
        let mut methods: Vec<(Rc<ClassVal>, String, Arc<Func>)> = Vec::new();
        let mut owner = cv.clone();
        for depth in 0..8 {
            for (name, f) in &owner.class.methods {
                if !methods.iter().any(|(_, n, _)| n == name) {
                    methods.push((owner.clone(), name.clone(), f.clone()));
                }
            }
            if depth > 0 {
                self.libs
                    .nest
                    .inherited
                    .entry((owner.file, owner.class.line))
                    .or_insert_with(|| class_name.clone());
            }
            let sup = owner.superclass.clone().map(|v| self.force_deep(v));
            match sup {
                Some(Value::Class(s)) => owner = s,
                _ => break,
            }
        }
        for (owner, name, f) in &methods {
            let (cv, c) = (owner, &owner.class);
            let ctx = self.class_ctx(cv);
            let decs: Vec<Decorator> = c.decorators_of(name);
            let mut verbs: Vec<(&'static str, u32, Vec<String>)> = Vec::new();
            let mut versions = None;
            let mut status = None;
            // `@Public()`-style metadata turns the global guards off for a route.
            let public = decs.iter().chain(&c.decorators).any(|d| {
                matches!(
                    callee_name(&d.callee),
                    Some(
                        "Public"
                            | "IsPublic"
                            | "SkipAuth"
                            | "AllowAnonymous"
                            | "NoAuth"
                            | "Anonymous"
                    )
                )
            });
            let mut guards: Vec<String> = if public {
                Vec::new()
            } else {
                global_guards.to_vec()
            };
            guards.extend(class_guards.iter().cloned());
            for d in &decs {
                let Some(n) = self.nest_common(&ctx, d) else {
                    continue;
                };
                if let Some(verb) = verb_of(&n) {
                    match self.path_list(&ctx, d.args.first()) {
                        Some(p) => verbs.push((verb, d.line, p)),
                        None => {
                            let text = d.args.first().map(expr_text).unwrap_or_default();
                            self.finding(
                                FindingCode::DynamicPath,
                                cv.file,
                                d.line,
                                format!("the path of `@{n}({text})` is only known at run time"),
                            );
                        }
                    }
                    continue;
                }
                match n.as_str() {
                    "Version" => versions = d.args.first().map(|a| self.versions(&ctx, a)),
                    "HttpCode" => {
                        let v = d.args.first().map(|a| self.eval(&ctx, a));
                        if let Some(s) =
                            v.and_then(|v| crate::libs::http_status(&self.force_deep(v)))
                        {
                            status = Some((s, d.line));
                        }
                    }
                    "UseGuards" => guards.extend(self.nest_guards(&ctx, &d.args, d.line)),
                    _ => {}
                }
            }
            if verbs.is_empty() {
                continue;
            }
            let versions = match versions {
                Some(v) if !v.is_empty() => v,
                _ if !class_versions.is_empty() => class_versions.clone(),
                _ => versioning
                    .as_ref()
                    .map(|(_, d)| d.clone())
                    .filter(|d| !d.is_empty())
                    .unwrap_or_else(|| vec![None]),
            };
            let contract = self.nest_request_contract(&ctx, cv, name, f, COMMON);
            for (verb, line, own) in verbs {
                let mut full = Vec::new();
                for b in &base {
                    for p in &own {
                        let route = paths::join(b, p);
                        let rel = route.trim_matches('/').to_string();
                        let excluded = exclude.iter().any(|(x, m)| {
                            let path_hit = x == &rel
                                || x.strip_suffix("(.*)")
                                    .or_else(|| x.strip_suffix('*'))
                                    .is_some_and(|head| rel.starts_with(head));
                            path_hit && m.as_deref().is_none_or(|m| m == verb)
                        });
                        let head = if excluded { "" } else { prefix.as_str() };
                        for v in &versions {
                            let seg = match (&versioning, v) {
                                (Some((seg, _)), Some(v)) => format!("{seg}{v}"),
                                _ => String::new(),
                            };
                            let path = paths::join(&paths::join(head, &seg), &route);
                            if !full.contains(&path) {
                                full.push(path);
                            }
                        }
                    }
                }
                let contract = Rc::new(RefCell::new(contract.clone()));
                {
                    let mut c = contract.borrow_mut();
                    match status {
                        Some((s, l)) => c.responses.push((s, None, cv.file, l)),
                        None if verb == "post" => c.responses.push((201, None, cv.file, line)),
                        None => {}
                    }
                }
                let route = ControllerRoute {
                    method: verb.to_string(),
                    paths: full.into_iter().map(PathArg::Str).collect(),
                    middleware: guards.clone(),
                    handler: format!("{class_name}.{name}"),
                    contract,
                    line,
                };
                self.push_controller_route(router, cv, f, route);
            }
        }
    }

    /// What a handler's decorated parameters state: `@Body() dto: Dto` is
    /// the body's schema, `@Param('id') id: string` one property of the
    /// parameters, `@Headers('x-id')` a header read.
    pub(crate) fn nest_request_contract(
        &mut self,
        ctx: &Ctx,
        cv: &Rc<ClassVal>,
        method: &str,
        f: &Arc<Func>,
        pkg: &str,
    ) -> RawContract {
        let mut contract = RawContract::default();
        let mut parts = PartFields::default();
        for (i, d) in cv.class.param_decorators_of(method) {
            // `pkg` ending in `/` is a family of packages (`@tsed/`).
            let n = match self.decorator_origin(ctx, &d) {
                Some((p, n)) if p == pkg || (pkg.ends_with('/') && p.starts_with(pkg)) => n,
                _ => continue,
            };
            // Nest's names, routing-controllers' own, inversify-express-utils',
            // then Ts.ED's.
            let part = match n.as_str() {
                "Body" | "BodyParam" | "requestBody" | "BodyParams" | "FormParam" => {
                    RequestPart::Body
                }
                "Query" | "QueryParam" | "QueryParams" | "queryParam" => RequestPart::Query,
                "Param" | "Params" | "requestParam" | "PathParams" | "PathParam" => {
                    RequestPart::Params
                }
                "Headers" | "HeaderParam" | "requestHeaders" | "HeaderParams" => {
                    if let Some(h) = d.args.first().and_then(|a| {
                        let v = self.eval(ctx, a);
                        self.force_deep(v).as_text()
                    }) {
                        contract.headers_read.insert(h.to_ascii_lowercase());
                    }
                    continue;
                }
                _ => continue,
            };
            let ty = f.param_types.get(i).cloned().flatten();
            let schema = match &ty {
                Some(t) => self.ts_schema(&cv.env, t, 0),
                None => json!({}),
            };
            let label = self.param_type_label(cv, ty.as_ref());
            let key = d.args.first().and_then(|a| {
                let v = self.eval(ctx, a);
                self.force_deep(v).as_text()
            });
            match key {
                Some(k) => {
                    // Path parameters are always there; a query or body
                    // property only when the decorator says `{required: true}`.
                    let required_opt = d.args.get(1).is_some_and(|o| {
                        let v = self.eval(ctx, o);
                        matches!(self.force_deep(v), Value::Obj(o) if matches!(o.get("required"), Some(Value::Bool(true))))
                    });
                    parts.add(
                        part,
                        &k,
                        schema,
                        part == RequestPart::Params || required_opt,
                    );
                }
                None => {
                    *contract.part_mut(part) = Some((schema, label, cv.file, d.line));
                }
            }
        }
        for (part, o) in parts.into_schemas() {
            let slot = contract.part_mut(part);
            if slot.is_none() {
                let label = SchemaLabel::new(SchemaSource::TypeScript, "");
                *slot = Some((o, label, cv.file, f.line));
            }
        }
        contract
    }

    /// Where a parameter's schema comes from, for the contract's `source`:
    /// a class of the program (class-validator's DTO) or a TypeScript type.
    pub(crate) fn param_type_label(
        &mut self,
        cv: &Rc<ClassVal>,
        ty: Option<&TypeExpr>,
    ) -> SchemaLabel {
        match ty {
            Some(TypeExpr::Ref(n, _)) => match cv.env.lookup(n).map(|v| self.force(v, 0)) {
                Some(Value::Class(_)) => SchemaLabel::new(SchemaSource::ClassValidator, n),
                _ => SchemaLabel::new(SchemaSource::TypeScript, n),
            },
            _ => SchemaLabel::new(SchemaSource::TypeScript, ""),
        }
    }

    /// The JSON Schema of a DTO class: its typed fields, narrowed by their
    /// class-validator decorators (`@IsOptional()`, `@IsInt()`, `@Min(0)`,
    /// `@IsIn([...])`, `@IsEnum(E)`, `{each: true}` for array items, ...);
    /// `extends PartialType(X)` / `PickType` / `OmitType` and plain
    /// superclasses contribute their fields.
    pub(crate) fn dto_schema(&mut self, cv: &Rc<ClassVal>, depth: u32) -> J {
        let mut props = Map::new();
        let mut required: Vec<J> = Vec::new();
        if depth > 6 {
            return json!({"type": "object"});
        }
        let ctx = self.class_ctx(cv);
        // Fields of the class it extends, maybe reshaped by a mapped type.
        if let Some(sup) = cv.class.superclass.clone() {
            let (inner, mapper, keys) = match &sup {
                Expr::Call(c) => match callee_name(&c.callee) {
                    Some(m @ ("PartialType" | "PickType" | "OmitType" | "IntersectionType")) => {
                        let keys: Vec<String> = match c.args.get(1) {
                            Some(Expr::Array(items)) => items
                                .iter()
                                .filter_map(|x| match x {
                                    Expr::Str(s) => Some(s.clone()),
                                    _ => None,
                                })
                                .collect(),
                            _ => Vec::new(),
                        };
                        (c.args.first().cloned(), Some(m), keys)
                    }
                    _ => (None, None, Vec::new()),
                },
                e => (Some(e.clone()), None, Vec::new()),
            };
            if let Some(e) = inner {
                let v = self.eval(&ctx, &e);
                if let Value::Class(base) = self.force_deep(v)
                    && let J::Object(s) = self.dto_schema(&base, depth + 1)
                {
                    let req: Vec<J> = s
                        .get("required")
                        .and_then(|r| r.as_array())
                        .cloned()
                        .unwrap_or_default();
                    if let Some(J::Object(p)) = s.get("properties") {
                        for (k, v) in p {
                            let keep = match mapper {
                                Some("PickType") => keys.contains(k),
                                Some("OmitType") => !keys.contains(k),
                                _ => true,
                            };
                            if keep {
                                props.insert(k.clone(), v.clone());
                                if mapper != Some("PartialType") && req.contains(&json!(k)) {
                                    required.push(json!(k));
                                }
                            }
                        }
                    }
                }
            }
        }
        let c = cv.class.clone();
        for (name, init) in &c.fields {
            let typed = c.field_types.iter().find(|(n, _, _)| n == name);
            let mut schema = match typed {
                Some((_, _, t)) => self.ts_schema(&cv.env, t, depth + 1),
                None => json!({}),
            };
            let mut optional = typed.is_some_and(|(_, o, _)| *o) || init.is_some();
            let decs: Vec<Decorator> = c.decorators_of(name);
            for d in &decs {
                let name = match self.decorator_origin(&ctx, d) {
                    Some((pkg, n)) if pkg == "class-validator" => n,
                    _ => continue,
                };
                if name == "IsOptional" {
                    optional = true;
                    continue;
                }
                let argv = self.eval_args(&ctx, &d.args);
                let argv: Vec<Value> = argv.into_iter().map(|v| self.force_deep(v)).collect();
                let each = argv.iter().any(|a| {
                    matches!(a, Value::Obj(o) if matches!(o.get("each"), Some(Value::Bool(true))))
                });
                let target = if each {
                    let J::Object(m) = &mut schema else { continue };
                    m.entry("type").or_insert(json!("array"));
                    m.entry("items").or_insert(json!({}))
                } else {
                    &mut schema
                };
                apply_validator(target, &name, &argv);
            }
            props.insert(name.clone(), schema);
            if !optional {
                required.push(json!(name));
            } else {
                required.retain(|r| r != &json!(name));
            }
        }
        let mut o = Map::new();
        o.insert("type".into(), json!("object"));
        o.insert("properties".into(), J::Object(props));
        if !required.is_empty() {
            o.insert("required".into(), J::Array(required));
        }
        J::Object(o)
    }
}

/// What one class-validator decorator says about a property's schema.
fn apply_validator(schema: &mut J, name: &str, argv: &[Value]) {
    let J::Object(m) = schema else {
        return;
    };
    let num = |i: usize| match argv.get(i) {
        Some(Value::Num(n)) => Some(number(*n)),
        _ => None,
    };
    let mut set = |k: &str, v: J| {
        m.insert(k.to_string(), v);
    };
    let (ty, fmt) = match name {
        "IsString" | "IsNotEmptyString" | "IsAlpha" | "IsAlphanumeric" => (Some("string"), None),
        "IsInt" => (Some("integer"), None),
        "IsNumber" | "IsDecimal" => (Some("number"), None),
        "IsBoolean" => (Some("boolean"), None),
        "IsArray" => (Some("array"), None),
        "IsObject" => (Some("object"), None),
        "IsEmail" => (Some("string"), Some("email")),
        "IsUUID" => (Some("string"), Some("uuid")),
        "IsUrl" | "IsURL" => (Some("string"), Some("uri")),
        "IsDate" | "IsDateString" | "IsISO8601" => (Some("string"), Some("date-time")),
        _ => (None, None),
    };
    if let Some(t) = ty {
        set("type", json!(t));
    }
    if let Some(f) = fmt {
        set("format", json!(f));
    }
    let values = |v: Option<&Value>| -> Option<Vec<J>> {
        let items: Vec<Value> = match v? {
            Value::Arr(a) => a.borrow().clone(),
            Value::Obj(o) => o.props.borrow().values().cloned().collect(),
            _ => return None,
        };
        let out: Vec<J> = items
            .iter()
            .filter_map(|x| match x {
                Value::Str(s) => Some(json!(s.as_ref())),
                Value::Num(n) => Some(number(*n)),
                _ => None,
            })
            .collect();
        (!out.is_empty()).then_some(out)
    };
    // Numeric bounds: the decorator's arguments, by position, and the keyword each sets.
    let bounds: &[(usize, &str)] = match name {
        "Min" => &[(0, "minimum")],
        "Max" => &[(0, "maximum")],
        "MinLength" => &[(0, "minLength")],
        "MaxLength" => &[(0, "maxLength")],
        "Length" => &[(0, "minLength"), (1, "maxLength")],
        "ArrayMinSize" => &[(0, "minItems")],
        "ArrayMaxSize" => &[(0, "maxItems")],
        _ => &[],
    };
    for &(i, keyword) in bounds {
        if let Some(n) = num(i) {
            set(keyword, n);
        }
    }
    match name {
        "IsPositive" => set("exclusiveMinimum", json!(0)),
        "Matches" => {
            if let Some(Value::Regex(r)) = argv.first() {
                let body = r.trim_start_matches('/');
                let body = body.rsplit_once('/').map_or(body, |(b, _)| b);
                set("pattern", json!(body));
            }
        }
        "IsIn" | "IsEnum" => {
            if let Some(vals) = values(argv.first()) {
                set("enum", J::Array(vals));
            }
        }
        _ => {}
    }
}

/// A number as JSON (integers without a fraction).
fn number(n: f64) -> J {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}
