//! The modules of a Nest application: the walk from the root module over
//! `@Module({imports, controllers, providers})` (dynamic modules, module
//! decorators of the program, `RouterModule` paths), split from `nest.rs`.

use super::nest::*;
use crate::machine::*;
use crate::paths;

/// Adds `cv` to `hooks` unless it is there.
fn note_class(hooks: &mut Vec<Rc<ClassVal>>, cv: &Rc<ClassVal>) {
    if !hooks.iter().any(|c| same_class(c, cv)) {
        hooks.push(cv.clone());
    }
}

impl Interp {
    /// Depth-first over `@Module` imports: the controllers, each with the
    /// condition its module is imported under (`None`: always), and the
    /// guards registered as `APP_GUARD` providers; `hooks` gets the classes
    /// Nest instantiates (modules, controllers, providers), in walk order,
    /// whose lifecycle methods it calls.
    ///
    /// A module is imported under a condition when a module imports it with
    /// `ConditionalModule.registerWhen(M, …)` of `@nestjs/config`, or picks it
    /// with a ternary whose test is only known at run time (`env.DRIVER ===
    /// 'local' ? LocalModule : S3Module`, see `Recorder::class_choices`):
    /// every module the environment can select is walked, conditional. A
    /// module reached both ways serves unconditionally.
    pub(crate) fn walk_modules(
        &mut self,
        root: Value,
        controllers: &mut Vec<(Rc<ClassVal>, Option<String>)>,
        guards: &mut Vec<String>,
        graphql: &mut Vec<usize>,
        hooks: &mut Vec<Rc<ClassVal>>,
    ) {
        // Modules walked, with whether one walk was unconditional.
        let mut seen: HashMap<(FileId, u32), bool> = HashMap::new();
        let mut stack: Vec<(Value, Vec<String>)> = vec![(root, Vec::new())];
        let mut steps = 0;
        while let Some((m, mut conds)) = stack.pop() {
            steps += 1;
            if steps > 2_000 {
                break;
            }
            // A dynamic module (`{module, controllers, imports}`) or a class.
            let mut metas: Vec<Rc<ObjData>> = Vec::new();
            let class = match self.force_deep(m) {
                Value::Class(cv) => {
                    for (kept, when, other, otherwise) in self.rec.class_choices.clone() {
                        if self.is_class(kept, &cv) {
                            let mut alt = conds.clone();
                            alt.push(otherwise);
                            stack.push((other, alt));
                            conds.push(when);
                        }
                    }
                    Some(cv)
                }
                Value::Builtin(Builtin::Framework(n)) => {
                    if let Some(i) = n
                        .strip_prefix(GRAPHQL_ENDPOINT)
                        .and_then(|i| i.parse().ok())
                        && !graphql.contains(&i)
                    {
                        graphql.push(i);
                    }
                    continue;
                }
                Value::Obj(o) => {
                    if let Some((_, when)) = self
                        .libs
                        .nest
                        .conditional
                        .iter()
                        .find(|(c, _)| Rc::ptr_eq(c, &o))
                    {
                        conds.push(when.clone());
                    }
                    let module = o.get("module").map(|v| self.force_deep(v));
                    metas.push(o);
                    match module {
                        Some(Value::Class(cv)) => Some(cv),
                        _ => None,
                    }
                }
                _ => None,
            };
            let cond = crate::conditions::conjunction(conds.iter().map(String::as_str));
            if let Some(cv) = &class {
                let key = (cv.file, cv.class.line);
                let again = match seen.get(&key) {
                    None => false,
                    // Walked under a condition; now reached unconditionally.
                    Some(false) if cond.is_none() => false,
                    Some(_) => true,
                };
                let always = cond.is_none() || seen.get(&key) == Some(&true);
                seen.insert(key, always);
                if again && metas.is_empty() {
                    continue;
                }
                note_class(hooks, cv);
                let ctx = self.class_ctx(cv);
                let decs = cv.class.decorators.clone();
                // What `Module(meta)` stored when the class was defined, as
                // Nest's scanner reads it; the decorators are evaluated again
                // (in the class's scope) only for a class defined without.
                let recorded = self.module_metadata(cv);
                for d in &decs {
                    match self.nest_common(&ctx, d).as_deref() {
                        Some("Module") => {
                            if let Some(a) = d.args.first() {
                                self.nest_package_modules(&ctx, a, cv);
                                if recorded.is_some() {
                                    continue;
                                }
                                let v = self.eval(&ctx, a);
                                if let Value::Obj(o) = self.force_deep(v) {
                                    metas.insert(0, o);
                                }
                            }
                        }
                        Some(_) => {}
                        None if recorded.is_some() => {}
                        None => {
                            if let Some(o) = self.module_meta_through(&ctx, d, cv) {
                                metas.insert(0, o);
                            }
                        }
                    }
                }
                if let Some(o) = recorded {
                    metas.insert(0, o);
                }
                if metas.is_empty() && !decs.is_empty() {
                    let at = format!(
                        "`{}` ({}:{})",
                        cv.class.name.clone().unwrap_or_default(),
                        self.loader.project.rel(cv.file),
                        cv.class.line
                    );
                    if !self.libs.nest.opaque_modules.contains(&at) {
                        self.libs.nest.opaque_modules.push(at);
                    }
                }
            }
            let module_path = class.as_ref().and_then(|cv| self.router_module_path(cv));
            let mut imports = Vec::new();
            for meta in metas {
                for key in ["controllers", "imports", "providers"] {
                    let Some(Value::Arr(items)) = meta.get(key).map(|v| self.force_deep(v)) else {
                        continue;
                    };
                    for it in items.borrow().clone() {
                        let it = self.force_deep(it);
                        match (key, it) {
                            ("controllers", Value::Class(c)) => {
                                note_class(hooks, &c);
                                if let Some(p) = &module_path {
                                    self.libs
                                        .nest
                                        .controller_prefix
                                        .insert((c.file, c.class.line), p.clone());
                                }
                                match controllers.iter_mut().find(|(x, _)| Rc::ptr_eq(x, &c)) {
                                    Some((_, had)) => {
                                        if cond.is_none() {
                                            *had = None;
                                        }
                                    }
                                    None => controllers.push((c, cond.clone())),
                                }
                            }
                            ("imports", it) => imports.push(it),
                            ("providers", Value::Class(c)) => note_class(hooks, &c),
                            ("providers", Value::Obj(p)) => {
                                if let Some(Value::Class(c)) =
                                    p.get("useClass").map(|v| self.force_deep(v))
                                {
                                    note_class(hooks, &c);
                                }
                                let provide = p.get("provide").map(|v| self.force_deep(v));
                                let is_guard = matches!(&provide,
                                    Some(Value::Builtin(Builtin::MiddlewareFactory(n))) if n.ends_with(".APP_GUARD"));
                                if is_guard
                                    && let Some(Value::Class(g)) = p
                                        .get("useClass")
                                        .or_else(|| p.get("useExisting"))
                                        .map(|v| self.force_deep(v))
                                {
                                    let name = g.class.name.clone().unwrap_or_default();
                                    self.note_guard_class(&name, &g);
                                    if !guards.contains(&name) {
                                        guards.push(name);
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
            // Depth-first in source order.
            for it in imports.into_iter().rev() {
                stack.push((it, conds.clone()));
            }
        }
    }

    /// The path `RouterModule.register(...)` gives module `cv`: its route's
    /// `path` after those of the routes whose `children` hold it (a child
    /// may be a route or the module itself).
    fn router_module_path(&mut self, cv: &Rc<ClassVal>) -> Option<String> {
        let mut stack: Vec<(Value, String, u32)> = self
            .libs
            .nest
            .module_routes
            .clone()
            .into_iter()
            .map(|r| (r, String::new(), 0))
            .collect();
        while let Some((v, prefix, depth)) = stack.pop() {
            if depth > 16 {
                continue;
            }
            match self.force_deep(v) {
                Value::Arr(items) => {
                    for it in items.borrow().iter().rev() {
                        stack.push((it.clone(), prefix.clone(), depth + 1));
                    }
                }
                Value::Class(m) if same_class(&m, cv) => return Some(prefix),
                Value::Obj(route) => {
                    let path = route.get("path").map(|p| self.force_deep(p));
                    let path = match path.as_ref().and_then(Value::as_text) {
                        Some(p) => paths::join(&prefix, &p),
                        None => prefix.clone(),
                    };
                    if let Some(Value::Class(m)) = route.get("module").map(|m| self.force_deep(m))
                        && same_class(&m, cv)
                    {
                        return Some(path);
                    }
                    if let Some(children) = route.get("children") {
                        stack.push((children, path, depth + 1));
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// `Module(meta)` of `@nestjs/common`: the class decorator that stores
    /// `meta` on the class it is applied to ([`MODULE_DECORATOR`]). Also
    /// what [`Interp::module_meta_through`] captures while it runs a
    /// decorator factory of the program.
    pub(crate) fn nest_module_factory(&mut self, argv: &[Value]) -> Value {
        let meta = argv.first().cloned().unwrap_or(Value::Undef);
        if let Some(got) = self.libs.nest.capture.as_mut() {
            got.push(meta.clone());
        }
        let metas = &mut self.libs.nest.module_metas;
        metas.push(meta);
        super::indexed(MODULE_DECORATOR, metas.len() - 1)
    }

    /// The decorator `Module(meta)` gave, applied to a class (by TypeScript
    /// when `@Module({...})` decorates a class, or by the program's own
    /// decorator calling `Module(meta)(target)`): as Nest's decorator does,
    /// each property of `meta` is defined as the class's metadata under its
    /// name (`Reflect.defineMetadata('imports', meta.imports, target)`), where
    /// the scanner reads it and where the program may read or replace it.
    /// `None` when `name` is no such decorator.
    pub(crate) fn nest_module_decorate(&mut self, name: &str, argv: &[Value]) -> Option<Value> {
        let i: usize = super::index_in(name, MODULE_DECORATOR)?;
        let meta = self.libs.nest.module_metas.get(i)?.clone();
        let target = argv.first().map(|v| self.force(v.clone(), 0));
        if let (Some(Value::Class(cv)), Value::Obj(o)) = (target, self.force_deep(meta)) {
            for (key, v) in o.entries() {
                let argv = vec![Value::str(&key), v, Value::Class(cv.clone())];
                self.reflect_metadata("defineMetadata", argv);
            }
            self.libs.nest.decorated.push((cv, o));
        }
        Some(Value::Undef)
    }

    /// The metadata Nest reads for module class `cv` when a `Module(meta)`
    /// decorator was applied to it: each key of `meta` as the class's
    /// metadata holds it now (the program may have replaced it with
    /// `Reflect.defineMetadata`), or as `meta` held it where that reads as
    /// only known at run time.
    fn module_metadata(&mut self, cv: &Rc<ClassVal>) -> Option<Rc<ObjData>> {
        let (_, meta) = self
            .libs
            .nest
            .decorated
            .iter()
            .rfind(|(c, _)| Rc::ptr_eq(c, cv))?
            .clone();
        let read = ObjData::new();
        for (key, v) in meta.entries() {
            let argv = vec![Value::str(&key), Value::Class(cv.clone())];
            let now = self.reflect_metadata("getMetadata", argv);
            read.set(&key, if now.is_unknown() { v } else { now });
        }
        Some(read)
    }

    /// A class decorator made by a function of the program that applies
    /// `Module(...)` (`const AppModule = (meta) => Module({ ...meta, imports:
    /// [...BASE, ...meta.imports] })`, then `@AppModule({...})`; or
    /// `(meta) => (target) => { Module(meta)(target) }`): the metadata it
    /// hands to `Module`, found as TypeScript runs a decorator when the
    /// class is defined: the factory with the decorator's arguments, then
    /// the function it returns with the class.
    pub(crate) fn module_meta_through(
        &mut self,
        ctx: &Ctx,
        d: &Decorator,
        class: &Rc<ClassVal>,
    ) -> Option<Rc<ObjData>> {
        let f = self.eval(ctx, &d.callee);
        let f = self.force(f, 0);
        if !matches!(f, Value::Func(_)) || self.libs.nest.capture.is_some() {
            return None;
        }
        let argv = self.eval_args(ctx, &d.args);
        self.libs.nest.capture = Some(Vec::new());
        let decorator = self.call_value_now(ctx, &f, argv, &d.args, d.line, None);
        if self
            .libs
            .nest
            .capture
            .as_ref()
            .is_some_and(|got| got.is_empty())
            && let decorator @ Value::Func(_) = self.force(decorator, 0)
        {
            let target = vec![Value::Class(class.clone())];
            let _ = self.call_value_now(ctx, &decorator, target, &[], d.line, None);
        }
        let got = self.libs.nest.capture.take().unwrap_or_default();
        got.into_iter().find_map(|v| match self.force_deep(v) {
            Value::Obj(o) => Some(o),
            _ => None,
        })
    }
}

/// The options of a package's dynamic module that say where it serves HTTP
/// (`BullBoardModule.forRoot({ route: '/admin/queues' })`,
/// `PrometheusModule.register({ path: '/metrics' })`), when their value is a
/// URL path. `ServeStaticModule`'s `serveRoot` is not one: a folder's files,
/// like `express.static`'s, are no operations.
const SERVED_AT: &[&str] = &["route", "path", "basePath", "endpoint"];

impl Interp {
    /// The dynamic modules of packages the analysis does not model that
    /// module `cv` imports (`imports: [BullBoardModule.forRoot({ route:
    /// '/admin/queues', … })]`) and that say they serve HTTP at a path
    /// ([`SERVED_AT`]): Nest serves what the package's module declares,
    /// which the analysis does not read, so a `package-router` finding names
    /// the package, the module and the path (as `use(path, x)` of such a
    /// package on Express does).
    fn nest_package_modules(&mut self, ctx: &Ctx, meta: &Expr, cv: &Rc<ClassVal>) {
        let Expr::Object(props) = meta else { return };
        let imports = props.iter().find_map(|p| match p {
            ObjProp::KeyValue(PropKey::Name(k), Expr::Array(items)) if k == "imports" => {
                Some(items)
            }
            _ => None,
        });
        for it in imports.into_iter().flatten() {
            let Expr::Call(call) = it else { continue };
            let Some(Expr::Object(options)) = call.args.first() else {
                continue;
            };
            let Some(pkg) = self.package_of(ctx, it) else {
                continue;
            };
            if crate::libs::is_modelled(&pkg) || !crate::libs::may_serve_routes(&pkg) {
                continue;
            }
            let mut at = Vec::new();
            for p in options {
                let ObjProp::KeyValue(PropKey::Name(k), e) = p else {
                    continue;
                };
                if !SERVED_AT.contains(&k.as_str()) {
                    continue;
                }
                let v = self.eval(ctx, e);
                if let Some(path) = self.force_deep(v).as_text()
                    && path.starts_with('/')
                {
                    at.push(format!("`{path}` (`{k}`)"));
                }
            }
            if at.is_empty() {
                continue;
            }
            let text = expr_text(&call.callee);
            let module = cv.class.name.clone().unwrap_or_default();
            self.finding(
                FindingCode::PackageRouter,
                ctx.file,
                call.line,
                format!(
                    "`{text}(…)`, imported by module `{module}`, is a dynamic module of the package `{pkg}`, which the analysis does not follow: the routes it serves at {} are not charted",
                    at.join(", ")
                ),
            );
        }
    }

    /// Whether `v` is class `cv`: the class, or an import not read yet of
    /// it (read when its module is loaded or the export has the class's
    /// name, so no module is run only to compare).
    fn is_class(&mut self, v: Value, cv: &Rc<ClassVal>) -> bool {
        let v = match v {
            Value::Lazy(f, name)
                if self.js.modules.contains_key(&f)
                    || cv.class.name.as_deref() == Some(name.as_ref()) =>
            {
                self.force_deep(Value::Lazy(f, name))
            }
            v => v,
        };
        matches!(v, Value::Class(k) if Rc::ptr_eq(&k, cv))
    }

    /// `ConditionalModule.registerWhen(M, condition)` of `@nestjs/config`: a
    /// dynamic module that imports `M` when the condition holds on
    /// `process.env` (a variable's name: set and not `false`; or a function
    /// of the environment), which only the run decides: `M` is walked, its
    /// controllers conditional on it.
    pub(crate) fn nest_register_when(
        &mut self,
        _ctx: &Ctx,
        argv: &[Value],
        args: &[Expr],
        _line: u32,
    ) -> Value {
        let module = argv.first().cloned().unwrap_or(Value::Undef);
        let name = args.first().map(expr_text).unwrap_or_default();
        let when = match argv.get(1).map(|v| self.force_deep(v.clone())) {
            Some(Value::Str(var)) => format!("process.env.{var}"),
            _ => format!("the condition of ConditionalModule.registerWhen({name}, …) holds"),
        };
        let o = ObjData::new();
        o.set("imports", Value::array(vec![module.clone()]));
        o.set("exports", Value::array(vec![module]));
        self.libs.nest.conditional.push((o.clone(), when));
        Value::Obj(o)
    }
}

/// Nest's WebSocket adapter packages: Socket.IO's, and plain WebSocket's.
const SOCKET_IO_ADAPTER: &str = "@nestjs/platform-socket.io";
const WS_ADAPTER: &str = "@nestjs/platform-ws";

impl Interp {
    /// Whether the gateways of `file` are served by `@nestjs/platform-ws`
    /// (`WsAdapter`, plain WebSocket): the nearest package.json at or above
    /// the file that lists one of Nest's adapter packages lists that one and
    /// not `@nestjs/platform-socket.io`, whose `IoAdapter` is Nest's default
    /// and the only Socket.IO one. Its messages are then no Socket.IO events.
    pub(crate) fn nest_ws_only(&self, file: FileId) -> bool {
        let project = &self.loader.project;
        let rel = project.rel(file);
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let lists = |json: &serde_json::Value, pkg: &str| {
            ["dependencies", "devDependencies", "peerDependencies"]
                .iter()
                .any(|k| json.get(k).and_then(|d| d.get(pkg)).is_some())
        };
        for d in crate::project::ancestors(dir) {
            let Some(p) = project.package_at(d) else {
                continue;
            };
            let (io, ws) = (
                lists(&p.json, SOCKET_IO_ADAPTER),
                lists(&p.json, WS_ADAPTER),
            );
            if io || ws {
                return ws && !io;
            }
        }
        false
    }
}

/// `IoAdapter` of `@nestjs/platform-socket.io`, a class programs extend.
pub(crate) const IO_ADAPTER: &str = "@nestjs/platform-socket.io.IoAdapter";

/// `IoAdapter` of `@nestjs/platform-socket.io`.
pub(crate) fn io_adapter_member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == SOCKET_IO_ADAPTER && prop == "IoAdapter")
        .then(|| Value::Builtin(Builtin::Framework(Rc::from(IO_ADAPTER))))
}

impl Interp {
    /// `super.createIOServer(port, options)` (or `super.create(...)`) in a
    /// subclass of `IoAdapter`: the Socket.IO server Nest's gateways use.
    pub(crate) fn io_adapter_super(
        &mut self,
        ctx: &Ctx,
        base: &Value,
        name: &str,
        line: u32,
    ) -> Option<Value> {
        let Value::Builtin(Builtin::Framework(n)) = base else {
            return None;
        };
        if n.as_ref() != IO_ADAPTER || !matches!(name, "createIOServer" | "create") {
            return None;
        }
        let server = self.nest_io_server(None, ctx.file, line);
        Some(crate::libs::socketio::sio(SioKind::Server, server, "/"))
    }

    /// `app.useWebSocketAdapter(adapter)` with an instance of a program's
    /// subclass of `IoAdapter`: Nest calls its `create(port, options)` to
    /// make each gateway server, then `bindClientConnect(server, callback)`
    /// with that server, so both run (what they register is charted on the
    /// gateways' server).
    pub(crate) fn nest_use_ws_adapter(&mut self, ctx: &Ctx, adapter: Value, line: u32) {
        let Value::Obj(o) = self.force_deep(adapter) else {
            return;
        };
        let Some(cv) = o.class.borrow().clone() else {
            return;
        };
        let mut sup = cv.superclass.clone();
        let mut is_io = false;
        for _ in 0..8 {
            match sup.map(|s| self.force_deep(s)) {
                Some(Value::Class(k)) => sup = k.superclass.clone(),
                Some(Value::Builtin(Builtin::Framework(n))) => {
                    is_io = n.as_ref() == IO_ADAPTER;
                    break;
                }
                _ => break,
            }
        }
        if !is_io {
            return;
        }
        let this = Value::Obj(o.clone());
        let index = self.nest_io_server(None, ctx.file, line);
        let mut server = crate::libs::socketio::sio(SioKind::Server, index, "/");
        if let Some(create) = self.find_method(&cv, "create", &this) {
            let options = Value::Obj(ObjData::new());
            let made = self.call_value_now(
                ctx,
                &create,
                vec![Value::dynamic(), options],
                &[],
                line,
                Some(this.clone()),
            );
            if let Value::Sio(_) = self.force_deep(made.clone()) {
                server = made;
            }
        }
        if let Some(bind) = self.find_method(&cv, "bindClientConnect", &this) {
            self.call_value_now(
                ctx,
                &bind,
                vec![server, Value::external()],
                &[],
                line,
                Some(this),
            );
        }
    }
}
