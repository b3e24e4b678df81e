//! LoopBack 4 (`@loopback/rest`, which serves its REST API through
//! Express): the application a program's subclass of `RestApplication`
//! makes, and the routes of the controller classes it serves.
//!
//! Captures: `class App extends BootMixin(RepositoryMixin(RestApplication))`
//! (a package's function handed the application class is a mixin: it gives
//! a subclass, whose routes are the class's) makes an app when constructed,
//! sited at the subclass; `super(options)` reads `options.rest.basePath`.
//! Its members (unless the program's class defines its own):
//! `app.controller(C)`; `app.boot()`, which runs the controller booter over
//! `projectRoot` (`this.projectRoot = __dirname` or `bootOptions.projectRoot`)
//! with `bootOptions.controllers` (`dirs`, default `['controllers']`;
//! `extensions`, default `['.controller.js']`, a `.js` one also matching the
//! TypeScript source the program is read from; `nested`, default `true`):
//! every class each matching file exports is a controller; `app.component(C)`
//! (an instance of `C`, whose constructor parameter injected with
//! `CoreBindings.APPLICATION_INSTANCE` is the app: each class of its
//! `controllers` is a controller, each of its `booters` runs at `boot()`, as
//! does a booter `app.booter(C)` adds: a subclass of `@loopback/boot`'s
//! `BaseBooter` or `ControllerBooter` whose `load()` (`super.load()` from the
//! program's own) fills `this.classes` with the classes its `projectRoot`
//! and `options` select, `ControllerBooter`'s serving each), or any class of
//! the program's own (`implements Booter`) whose `configure`, `discover` and
//! `load` run in turn, with `discoverFiles(glob, root)` (the files the glob
//! matches under `root`; a glob only known at run time is the one the
//! booter's `options` make) and `loadClassesFromFiles(files)` (the classes
//! they export); `app.basePath(p)`
//! and `app.restServer.basePath(p)` (a prefix of every route, whenever it is
//! set); `app.mountExpressRouter(base, router)` (an Express router's routes
//! under `base`); `app.route(verb, path, spec, handler)`. `super.boot()` in a
//! subclass that overrides `boot` runs the booter.
//!
//! A controller's routes: `@get(path, spec?)`, `@post`, `@put`, `@patch`,
//! `@del` and `@operation(verb, path, spec?)` on its methods, under the
//! class's `@api({basePath})`; OpenAPI's `{id}` is written `:id`. The
//! contract: `@param.path.<type>('id')` (required), `@param.query.<type>`,
//! `@param.filter(Model)` and `@param.where(Model)` (the `filter`/`where`
//! query parameters), `@param.header.<type>` (a header read), `@param({name,
//! in})`, and `@requestBody(spec?)` (the parameter's TypeScript type, or the
//! JSON schema `getModelSchemaRef(Model, {exclude, optional, partial})`
//! gives: the model class's typed fields); the status codes of the spec's
//! `responses`, each with its `application/json` schema when the code states
//! one. `@authenticate(strategy)` of `@loopback/authentication` on the class
//! or the method is a guard answering 401 (`@authenticate.skip()` lifts it).
//! Each operation is sited at its verb decorator.
//!
//! Example: `class App extends BootMixin(RestApplication)` with
//! `this.projectRoot = __dirname` and `src/controllers/shelf.controller.ts`
//! exporting `@api({basePath: '/v1'}) class Shelf { @get('/shelves/{id}') one() {} }`
//! is `GET /v1/shelves/:id` once `app.boot()` runs.
//!
//! Deliberately not captured: `app.static` (files, no operation),
//! `app.redirect`, `@api({paths})` specs, `Route` objects given to
//! `app.route(route)`, booters of other artifacts,
//! dependencies injected with other keys, `Application` with
//! `RestComponent`, and `@authorize` (it needs authentication first).
//! LoopBack 3 is `libs/loopback.rs`.

use crate::libs::nest::ControllerRoute;
use crate::libs::schemas::{PartFields, SchemaLabel, SchemaSource};
use crate::machine::*;
use crate::paths;
use serde_json::{Value as J, json};

const REST: &str = "@loopback/rest";
/// The package that gives the same decorators (`@loopback/rest` re-exports them).
const OPENAPI: &str = "@loopback/openapi-v3";
const AUTHENTICATION: &str = "@loopback/authentication";
const REST_APP: &str = "@loopback/rest.RestApplication";
const SCHEMA_REF: &str = "@loopback/rest.getModelSchemaRef";
const BASE_BOOTER: &str = "@loopback/boot.BaseBooter";
const CONTROLLER_BOOTER: &str = "@loopback/boot.ControllerBooter";
const DISCOVER_FILES: &str = "@loopback/boot.discoverFiles";
const LOAD_CLASSES: &str = "@loopback/boot.loadClassesFromFiles";
/// The phases LoopBack's bootstrapper runs on every booter, in order.
const BOOT_PHASES: [&str; 3] = ["configure", "discover", "load"];
/// The members of an application, called as `Framework("{APP_FN}{index}.{member}")`.
const APP_FN: &str = "@loopback/rest.app#";
const APP_MEMBERS: &[&str] = &[
    "controller",
    "boot",
    "basePath",
    "mountExpressRouter",
    "route",
    "component",
    "booter",
];

/// One LoopBack 4 application the program constructed.
pub(crate) struct Lb4App {
    /// The instance (`this` in its constructor).
    this: Rc<ObjData>,
    /// The inner router every route goes on, mounted on the app at the base path.
    inner: u32,
    /// The app, and the index of the mount of `inner` among its registrations.
    app: u32,
    mount: usize,
    booted: bool,
    /// The controller classes served, by (file, class line).
    controllers: HashSet<(FileId, u32)>,
    /// The component classes mounted, by (file, class line).
    components: HashSet<(FileId, u32)>,
    /// The booter classes `boot()` runs besides the controller booter.
    booters: Vec<Rc<ClassVal>>,
}

/// The applications, in the order made.
#[derive(Default)]
pub(crate) struct Lb4State {
    apps: Vec<Lb4App>,
    /// The app whose booters are running (`ControllerBooter`'s `load` serves
    /// its classes there).
    booting: Option<usize>,
    /// The booter instance whose phases are running.
    booter: Option<Value>,
}

impl Lb4State {
    /// Whether an application registered the component class declared at
    /// `file`:`line` (`app.component(C)`).
    pub(crate) fn registers(&self, file: FileId, line: u32) -> bool {
        self.apps
            .iter()
            .any(|a| a.components.contains(&(file, line)))
    }
}

/// Whether `pkg` gives verb decorators that declare a route on a class with
/// no controller decorator (`@get('/x')` from `@loopback/rest`, or from
/// `@loopback/openapi-v3`, where `@loopback/rest` takes them from).
pub(crate) fn routes_on_plain_classes(pkg: &str) -> bool {
    pkg == REST || pkg == OPENAPI
}

/// `RestApplication` and `getModelSchemaRef` of `@loopback/rest` (its
/// decorators are the package's functions, named by `decorator_origin`).
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    match (pkg, prop) {
        (REST, "RestApplication") => Some(crate::libs::framework(REST_APP)),
        (REST, "getModelSchemaRef") => Some(crate::libs::framework(SCHEMA_REF)),
        ("@loopback/boot", "BaseBooter") => Some(crate::libs::framework(BASE_BOOTER)),
        ("@loopback/boot", "ControllerBooter") => Some(crate::libs::framework(CONTROLLER_BOOTER)),
        ("@loopback/boot", "discoverFiles") => Some(crate::libs::framework(DISCOVER_FILES)),
        ("@loopback/boot", "loadClassesFromFiles") => Some(crate::libs::framework(LOAD_CLASSES)),
        _ => None,
    }
}

/// Whether `v` is `RestApplication` or a program's class derived from it.
fn is_app_class(ip: &mut Interp, v: &Value) -> bool {
    let mut v = v.clone();
    for _ in 0..12 {
        match ip.force_deep(v) {
            Value::Builtin(Builtin::Framework(n)) => return n.as_ref() == REST_APP,
            Value::Class(c) => match c.superclass.clone() {
                Some(s) => v = s,
                None => return false,
            },
            _ => return false,
        }
    }
    false
}

/// The booter class of `@loopback/boot` at the root of `v`'s superclasses,
/// if it is one.
fn booter_kind(ip: &mut Interp, v: &Value) -> Option<&'static str> {
    let mut v = v.clone();
    for _ in 0..12 {
        match ip.force_deep(v) {
            Value::Builtin(Builtin::Framework(n)) => {
                return [BASE_BOOTER, CONTROLLER_BOOTER]
                    .into_iter()
                    .find(|k| *k == n.as_ref());
            }
            Value::Class(c) => v = c.superclass.clone()?,
            _ => return None,
        }
    }
    None
}

/// A package's function handed the application class (`BootMixin(...)`,
/// `RepositoryMixin(RestApplication)`): a mixin, which gives a subclass that
/// serves the same routes; the class itself stands for it.
pub(crate) fn mixin(ip: &mut Interp, argv: &[Value]) -> Option<Value> {
    let first = argv.first()?;
    is_app_class(ip, first).then(|| first.clone())
}

/// `super(options)` in a subclass of `RestApplication`: the app, sited at
/// the subclass. Whether `base` was the application class.
pub(crate) fn super_construct(ip: &mut Interp, base: &Value, this: &Value, argv: &[Value]) -> bool {
    // A booter's constructor: its `projectRoot` and `options` are read when it loads.
    if booter_kind(ip, base).is_some() {
        return true;
    }
    if !matches!(ip.force_deep(base.clone()), Value::Builtin(Builtin::Framework(n)) if n.as_ref() == REST_APP)
    {
        return false;
    }
    let Value::Obj(o) = this else {
        return true;
    };
    let Some(cv) = o.class.borrow().clone() else {
        return true;
    };
    if ip
        .libs
        .loopback4
        .apps
        .iter()
        .any(|a| Rc::ptr_eq(&a.this, o))
    {
        return true;
    }
    let (file, line) = (cv.file, cv.class.line);
    let base_path = argv
        .first()
        .map(|v| ip.force_deep(v.clone()))
        .and_then(|v| match ip.member(&v, "rest") {
            Value::Obj(r) => r.get("basePath"),
            _ => None,
        })
        .and_then(|v| ip.force_deep(v).as_text())
        .unwrap_or_default();
    let (Value::Router(app), Value::Router(inner)) = (
        ip.new_router(file, line, true),
        ip.new_router(file, line, false),
    ) else {
        return true;
    };
    ip.rec.routers[inner as usize].mounted = true;
    let mount = ip.rec.routers[app as usize].regs.len();
    ip.push_reg(
        app,
        RegKind::Use {
            paths: vec![PathArg::Str(paths::join("/", &base_path))],
            handlers: vec![UseHandler::Router(inner)],
        },
        file,
        line,
        None,
        None,
    );
    let index = ip.libs.loopback4.apps.len();
    ip.libs.loopback4.apps.push(Lb4App {
        this: o.clone(),
        inner,
        app,
        mount,
        booted: false,
        controllers: HashSet::new(),
        components: HashSet::new(),
        booters: Vec::new(),
    });
    let server = ObjData::new();
    for m in APP_MEMBERS {
        let f = crate::libs::framework(&format!("{APP_FN}{index}.{m}"));
        server.set(m, f.clone());
        // The program's own method of that name (`async boot() { … }`) wins.
        if ip.find_method(&cv, m, this).is_none() {
            ip.set_member(this, m, f);
        }
    }
    ip.set_member(this, "restServer", Value::Obj(server));
    true
}

/// `super.m(...)` in a subclass of `RestApplication` that defines `m`
/// itself (`async boot() { await super.boot(); }`).
pub(crate) fn super_method(
    ip: &mut Interp,
    ctx: &Ctx,
    base: &Value,
    name: &str,
    argv: &[Value],
    line: u32,
) -> Option<Value> {
    if let Some(kind) = booter_kind(ip, base) {
        if name == "load" {
            ip.lb4_booter_load(&ctx.this, kind);
        }
        return Some(Value::Undef);
    }
    if !matches!(base, Value::Builtin(Builtin::Framework(n)) if n.as_ref() == REST_APP) {
        return None;
    }
    let Value::Obj(o) = &ctx.this else {
        return None;
    };
    let index = ip
        .libs
        .loopback4
        .apps
        .iter()
        .position(|a| Rc::ptr_eq(&a.this, o))?;
    APP_MEMBERS
        .contains(&name)
        .then(|| ip.lb4_app_call(ctx, index, name, argv, line))
}

/// A call of an application's member or of `getModelSchemaRef`.
pub(crate) fn call(
    ip: &mut Interp,
    ctx: &Ctx,
    name: &str,
    argv: &[Value],
    line: u32,
) -> Option<Value> {
    match name {
        SCHEMA_REF => return Some(ip.lb4_model_schema(argv)),
        DISCOVER_FILES => return Some(ip.lb4_discover_files(argv)),
        LOAD_CLASSES => return Some(ip.lb4_load_classes(argv)),
        _ => {}
    }
    let (index, member) = name.strip_prefix(APP_FN)?.split_once('.')?;
    let index: usize = index.parse().ok()?;
    Some(ip.lb4_app_call(ctx, index, member, argv, line))
}

/// What the controller booter's options select: the folders under the
/// project root, the file name endings, and whether sub-folders count.
struct BootSelection {
    dirs: Vec<String>,
    extensions: Vec<String>,
    nested: bool,
}

impl BootSelection {
    /// Whether a root-relative file is one the booter loads. A `.js` ending
    /// (`.controller.js`, of the build output) also matches the TypeScript
    /// source the output is built from.
    fn selects(&self, root: &str, rel: &str) -> bool {
        if rel.ends_with(".d.ts") {
            return false;
        }
        self.dirs.iter().any(|d| {
            let dir = paths::join(root, d);
            let dir = dir.trim_start_matches('/');
            let Some(rest) = rel.strip_prefix(dir).and_then(|r| r.strip_prefix('/')) else {
                return false;
            };
            (self.nested || !rest.contains('/'))
                && self.extensions.iter().any(|e| {
                    rest.ends_with(e.as_str())
                        || e.strip_suffix(".js").is_some_and(|stem| {
                            [".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts"]
                                .iter()
                                .any(|x| rest.ends_with(&format!("{stem}{x}")))
                        })
                })
        })
    }
}

impl Interp {
    fn lb4_app_call(
        &mut self,
        ctx: &Ctx,
        index: usize,
        member: &str,
        argv: &[Value],
        line: u32,
    ) -> Value {
        if index >= self.libs.loopback4.apps.len() {
            return Value::dynamic();
        }
        match member {
            "controller" => {
                if let Some(Value::Class(cv)) = argv.first().map(|v| self.force_deep(v.clone())) {
                    self.lb4_controller(index, &cv);
                }
            }
            "boot" => self.lb4_boot(ctx, index, line),
            "booter" => {
                for b in argv {
                    self.lb4_add_booter(index, b.clone());
                }
            }
            "basePath" => {
                if let Some(p) = argv
                    .first()
                    .and_then(|v| self.force_deep(v.clone()).as_text())
                {
                    let (app, mount) = {
                        let a = &self.libs.loopback4.apps[index];
                        (a.app, a.mount)
                    };
                    if let Some(reg) = self.rec.routers[app as usize].regs.get_mut(mount)
                        && let RegKind::Use { paths: ps, .. } = &mut reg.kind
                    {
                        *ps = vec![PathArg::Str(paths::join("/", &p))];
                    }
                }
            }
            "mountExpressRouter" => {
                let base = argv
                    .first()
                    .and_then(|v| self.force_deep(v.clone()).as_text());
                let router = argv.get(1).map(|v| self.force_deep(v.clone()));
                match (base, router) {
                    (Some(base), Some(Value::Router(r))) => {
                        self.rec.routers[r as usize].mounted = true;
                        let inner = self.libs.loopback4.apps[index].inner;
                        self.push_reg(
                            inner,
                            RegKind::Use {
                                paths: vec![PathArg::Str(base)],
                                handlers: vec![UseHandler::Router(r)],
                            },
                            ctx.file,
                            line,
                            None,
                            None,
                        );
                    }
                    _ => self.finding(
                        FindingCode::DynamicMount,
                        ctx.file,
                        line,
                        "the base path or the router of `mountExpressRouter(...)` is only known at run time: its routes are not charted".into(),
                    ),
                }
            }
            "route" => self.lb4_route(ctx, index, argv, line),
            "component" => {
                if let Some(Value::Class(cv)) = argv.first().map(|v| self.force_deep(v.clone())) {
                    self.lb4_component(ctx, index, &cv);
                }
            }
            _ => {}
        }
        Value::Undef
    }

    /// `app.route(verb, path, spec, handler)`.
    fn lb4_route(&mut self, ctx: &Ctx, index: usize, argv: &[Value], line: u32) {
        if argv.len() < 4 {
            return;
        }
        let verb = self.force_deep(argv[0].clone()).as_text();
        let path = self.force_deep(argv[1].clone()).as_text();
        let (Some(verb), Some(path)) = (verb, path) else {
            self.finding(
                FindingCode::DynamicPath,
                ctx.file,
                line,
                "the verb or path of `route(...)` is only known at run time: its route is not charted".into(),
            );
            return;
        };
        let handler = self.force_deep(argv[3].clone());
        let contract = self.lb4_spec_contract(&argv[2], ctx.file, line, RawContract::default());
        let inner = self.libs.loopback4.apps[index].inner;
        self.push_reg(
            inner,
            RegKind::Route {
                method: verb.to_ascii_lowercase(),
                paths: vec![PathArg::Str(express_params(&path))],
                middleware: Vec::new(),
                handler: None,
                contract: Rc::new(RefCell::new(contract)),
                funcs: matches!(handler, Value::Func(_))
                    .then_some(handler)
                    .into_iter()
                    .collect(),
                subpaths: false,
            },
            ctx.file,
            line,
            None,
            None,
        );
    }

    /// `app.component(C)`: LoopBack makes an instance of `C` (a constructor
    /// parameter injected with `CoreBindings.APPLICATION_INSTANCE` is the
    /// app) and serves each class of its `controllers`.
    fn lb4_component(&mut self, ctx: &Ctx, index: usize, cv: &Rc<ClassVal>) {
        let key = (cv.file, cv.class.line);
        if !self.libs.loopback4.apps[index].components.insert(key) {
            return;
        }
        let instance = self.lb4_make(ctx, index, cv);
        let controllers = self.member(&instance, "controllers");
        if let Value::Arr(items) = self.force_deep(controllers) {
            for c in items.borrow().clone() {
                if let Value::Class(c) = self.force_deep(c) {
                    self.lb4_controller(index, &c);
                }
            }
        }
        let booters = self.member(&instance, "booters");
        if let Value::Arr(items) = self.force_deep(booters) {
            for b in items.borrow().clone() {
                self.lb4_add_booter(index, b);
            }
        }
    }

    /// `app.booter(C)`, or a class of a component's `booters`: run at `boot()`.
    fn lb4_add_booter(&mut self, index: usize, b: Value) {
        if let Value::Class(b) = self.force_deep(b) {
            let app = &mut self.libs.loopback4.apps[index];
            if !app.booters.iter().any(|k| Rc::ptr_eq(k, &b)) {
                app.booters.push(b);
            }
        }
    }

    /// `app.boot()`: the controller booter (every class exported by the
    /// files `bootOptions.controllers` selects under the project root is a
    /// controller), then the booters components and `app.booter(C)` added.
    fn lb4_boot(&mut self, ctx: &Ctx, index: usize, line: u32) {
        if std::mem::replace(&mut self.libs.loopback4.apps[index].booted, true) {
            return;
        }
        let this = Value::Obj(self.libs.loopback4.apps[index].this.clone());
        let options = self.member(&this, "bootOptions");
        let options = self.force_deep(options);
        let root = match self.member(&this, "projectRoot") {
            Value::Str(s) => Some(s.to_string()),
            _ => None,
        }
        .or_else(|| {
            let v = self.member(&options, "projectRoot");
            self.force_deep(v).as_text()
        });
        if let Some(root) = root {
            let conv = self.member(&options, "controllers");
            for cv in self.lb4_artifacts(&root, &conv) {
                self.lb4_controller(index, &cv);
            }
        }
        let booters = self.libs.loopback4.apps[index].booters.clone();
        for b in booters {
            self.lb4_run_booter(ctx, index, &b, line);
        }
    }

    /// The classes exported by the files a booter's options (`dirs`,
    /// `extensions`, `nested`) select under `root`.
    fn lb4_artifacts(&mut self, root: &str, options: &Value) -> Vec<Rc<ClassVal>> {
        let options = self.force_deep(options.clone());
        let selection = self.lb4_selection(&options);
        let files: Vec<FileId> = (0..self.loader.project.files.len() as FileId)
            .filter(|&f| selection.selects(root, self.loader.project.rel(f)))
            .collect();
        self.lb4_exported_classes(files)
    }

    /// What a booter's options (`dirs`, default `['controllers']`;
    /// `extensions`, default `['.controller.js']`; `nested`, default
    /// `true`) select.
    fn lb4_selection(&mut self, options: &Value) -> BootSelection {
        let list = |ip: &mut Interp, key: &str, default: &str| -> Vec<String> {
            let v = ip.member(options, key);
            match ip.force_deep(v) {
                Value::Arr(a) => a
                    .borrow()
                    .clone()
                    .into_iter()
                    .filter_map(|x| ip.force_deep(x).as_text())
                    .collect(),
                Value::Str(s) => vec![s.to_string()],
                _ => vec![default.to_string()],
            }
        };
        BootSelection {
            dirs: list(self, "dirs", "controllers"),
            extensions: list(self, "extensions", ".controller.js"),
            nested: !matches!(self.member(options, "nested"), Value::Bool(false)),
        }
    }

    /// The classes `files` export, each file run.
    fn lb4_exported_classes(&mut self, files: Vec<FileId>) -> Vec<Rc<ClassVal>> {
        let mut classes = Vec::new();
        for f in files {
            let exports = self.load_module(f).exports.clone();
            let values: Vec<Value> = exports.props.borrow().values().cloned().collect();
            for v in values {
                if let Value::Class(cv) = self.force_deep(v) {
                    classes.push(cv);
                }
            }
        }
        classes
    }

    /// One booter class at `app.boot()`: LoopBack makes it (a constructor
    /// parameter injected with `CoreBindings.APPLICATION_INSTANCE` is the
    /// app) and calls its `configure`, `discover` and `load`, those it has:
    /// a booter is any class with these phases (`implements Booter`), the
    /// program's own or, for a subclass of `@loopback/boot`'s `BaseBooter`
    /// or `ControllerBooter`, the base class's `load` (its `super.load()`
    /// is [`super_method`]'s).
    fn lb4_run_booter(&mut self, ctx: &Ctx, index: usize, cv: &Rc<ClassVal>, line: u32) {
        let kind = booter_kind(self, &Value::Class(cv.clone()));
        let instance = self.lb4_make(ctx, index, cv);
        let outer = self.libs.loopback4.booting.replace(index);
        let outer_booter = self.libs.loopback4.booter.replace(instance.clone());
        for phase in BOOT_PHASES {
            match self.member(&instance, phase) {
                f @ Value::Func(_) => {
                    self.call_value_now(ctx, &f, Vec::new(), &[], line, Some(instance.clone()));
                }
                _ => {
                    if let Some(kind) = kind.filter(|_| phase == "load") {
                        self.lb4_booter_load(&instance, kind);
                    }
                }
            }
        }
        self.libs.loopback4.booting = outer;
        self.libs.loopback4.booter = outer_booter;
    }

    /// `discoverFiles(pattern, root)` of `@loopback/boot`: the files under
    /// `root` its glob matches (a pattern opening with `/` is mounted on
    /// `root`; an extglob `@(a|b)` is the alternatives `{a,b}`), as the
    /// absolute paths `glob` gives; a `.js` pattern also matches the
    /// TypeScript sources built to such files. A pattern only known at run
    /// time, in a booter's `discover`, is the one the booter's `options`
    /// (`@loopback/boot`'s `ArtifactOptions`: `dirs`, `extensions`,
    /// `nested`) make, as LoopBack's `BaseBooter.configure` builds it (a
    /// booter of the program's own builds it alike, in code whose branches
    /// on the count of `dirs` the analysis does not decide).
    fn lb4_discover_files(&mut self, argv: &[Value]) -> Value {
        let text = |ip: &mut Interp, i: usize| {
            argv.get(i).and_then(|v| ip.force_deep(v.clone()).as_text())
        };
        let Some(root) = text(self, 1) else {
            return Value::dynamic();
        };
        let files = match text(self, 0) {
            // (glob resolves a pattern not opening with `/` against the
            // process's folder, only known at run time.)
            Some(pattern) if !pattern.starts_with('/') => return Value::dynamic(),
            Some(pattern) => {
                let full = format!(
                    "{}{}",
                    root.trim_end_matches('/'),
                    extglob_alternatives(&pattern)
                );
                self.files_of_glob(&full, "/")
            }
            None => {
                let Some(booter) = self.libs.loopback4.booter.clone() else {
                    return Value::dynamic();
                };
                let options = self.member(&booter, "options");
                let options = self.force_deep(options);
                let given = |ip: &mut Interp, k: &str| {
                    let v = ip.member(&options, k);
                    !ip.force_deep(v).is_unknown()
                };
                if !matches!(options, Value::Obj(_))
                    || !given(self, "dirs")
                    || !given(self, "extensions")
                {
                    return Value::dynamic();
                }
                let selection = self.lb4_selection(&options);
                (0..self.loader.project.files.len() as FileId)
                    .filter(|&f| selection.selects(&root, self.loader.project.rel(f)))
                    .collect()
            }
        };
        Value::array(
            files
                .into_iter()
                .map(|f| Value::str(&format!("/{}", self.loader.project.rel(f))))
                .collect(),
        )
    }

    /// `loadClassesFromFiles(files, root)` of `@loopback/boot`: the classes
    /// the files export (each file run).
    fn lb4_load_classes(&mut self, argv: &[Value]) -> Value {
        let Some(Value::Arr(items)) = argv.first().map(|v| self.force_deep(v.clone())) else {
            return Value::dynamic();
        };
        let mut files = Vec::new();
        for it in items.borrow().clone() {
            let rel = self
                .force_deep(it)
                .as_text()
                .and_then(|t| crate::machine::node::to_rel(&t));
            match rel.and_then(|r| self.loader.project.file_id(&r)) {
                Some(f) => files.push(f),
                None => return Value::dynamic(),
            }
        }
        let classes = self.lb4_exported_classes(files);
        Value::array(classes.into_iter().map(Value::Class).collect())
    }

    /// `BaseBooter`'s `load()` on a booter instance: `this.classes`, the
    /// classes its `projectRoot` and `options` select; `ControllerBooter`'s
    /// also serves each as a controller of the app booting.
    fn lb4_booter_load(&mut self, instance: &Value, kind: &str) {
        let root = self.member(instance, "projectRoot");
        let Some(root) = self.force_deep(root).as_text() else {
            return;
        };
        let options = self.member(instance, "options");
        let classes = self.lb4_artifacts(&root, &options);
        self.set_member(
            instance,
            "classes",
            Value::array(classes.iter().map(|c| Value::Class(c.clone())).collect()),
        );
        if kind == CONTROLLER_BOOTER
            && let Some(index) = self.libs.loopback4.booting
        {
            for cv in classes {
                self.lb4_controller(index, &cv);
            }
        }
    }

    /// An instance LoopBack's dependency injection makes of a class of the
    /// program: a constructor parameter injected with
    /// `CoreBindings.APPLICATION_INSTANCE` is the app, any other unknown (a
    /// class with no constructor of its own takes its superclass's
    /// injections, as their metadata is inherited).
    fn lb4_make(&mut self, ctx: &Ctx, index: usize, cv: &Rc<ClassVal>) -> Value {
        let app = Value::Obj(self.libs.loopback4.apps[index].this.clone());
        let mut declaring = cv.clone();
        for _ in 0..8 {
            if declaring.class.constructor.is_some() {
                break;
            }
            match declaring.superclass.clone().map(|s| self.force_deep(s)) {
                Some(Value::Class(s)) => declaring = s,
                _ => break,
            }
        }
        let count = declaring
            .class
            .constructor
            .as_ref()
            .map_or(0, |c| c.param_types.len());
        let mut argv = vec![Value::dynamic(); count];
        for (i, d) in declaring.class.param_decorators_of("constructor") {
            if i < count
                && d.args
                    .iter()
                    .any(|a| expr_text(a).contains("APPLICATION_INSTANCE"))
            {
                argv[i] = app.clone();
            }
        }
        self.construct(ctx, &Value::Class(cv.clone()), argv, &[], cv.class.line)
    }

    /// The LoopBack 4 decorator this is, by the chain of names it is read
    /// through (`param.path.string`, `authenticate.skip`) and its package.
    fn lb4_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<(&'static str, String)> {
        let mut chain: Vec<&str> = Vec::new();
        let mut e = &d.callee;
        while let Expr::Member(o, n) = e {
            chain.push(n);
            e = o;
        }
        let root = self.eval(ctx, e);
        let Value::Builtin(Builtin::MiddlewareFactory(n)) = self.force(root, 0) else {
            return None;
        };
        let (pkg, name) = n.rsplit_once('.')?;
        let pkg = [REST, OPENAPI, AUTHENTICATION]
            .into_iter()
            .find(|p| *p == pkg)?;
        chain.push(name);
        chain.reverse();
        Some((pkg, chain.join(".")))
    }

    /// `app.controller(C)`: the routes of controller class `C`.
    fn lb4_controller(&mut self, index: usize, cv: &Rc<ClassVal>) {
        if !self.libs.loopback4.apps[index]
            .controllers
            .insert((cv.file, cv.class.line))
        {
            return;
        }
        let router = self.libs.loopback4.apps[index].inner;
        let ctx = self.class_ctx(cv);
        let c = cv.class.clone();
        let mut base = String::new();
        let mut class_guard = None;
        for d in &c.decorators {
            match self.lb4_decorator(&ctx, d) {
                Some((REST | OPENAPI, n)) if n == "api" => {
                    let spec = d.args.first().map(|a| self.eval(&ctx, a));
                    if let Some(p) = spec.and_then(|s| {
                        let v = self.member(&s, "basePath");
                        self.force_deep(v).as_text()
                    }) {
                        base = p;
                    }
                }
                Some((AUTHENTICATION, n)) if n == "authenticate" => {
                    class_guard =
                        Some(self.decorator_guard("authenticate()".into(), cv.file, d.line));
                }
                _ => {}
            }
        }
        let class_name = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        for (name, f) in &c.methods {
            let mut verbs: Vec<(String, u32, Option<Expr>, Option<Expr>)> = Vec::new();
            let mut guard = class_guard.clone();
            for d in c.decorators_of(name) {
                match self.lb4_decorator(&ctx, &d) {
                    Some((REST | OPENAPI, n)) => match n.as_str() {
                        "get" | "post" | "put" | "patch" => {
                            verbs.push((n, d.line, d.args.first().cloned(), d.args.get(1).cloned()))
                        }
                        "del" => verbs.push((
                            "delete".into(),
                            d.line,
                            d.args.first().cloned(),
                            d.args.get(1).cloned(),
                        )),
                        "operation" => {
                            let v = d.args.first().map(|a| self.eval(&ctx, a));
                            if let Some(m) = v.and_then(|v| self.force_deep(v).as_text()) {
                                verbs.push((
                                    m.to_ascii_lowercase(),
                                    d.line,
                                    d.args.get(1).cloned(),
                                    d.args.get(2).cloned(),
                                ));
                            }
                        }
                        _ => {}
                    },
                    Some((AUTHENTICATION, n)) if n == "authenticate" => {
                        guard =
                            Some(self.decorator_guard("authenticate()".into(), cv.file, d.line));
                    }
                    Some((AUTHENTICATION, n)) if n == "authenticate.skip" => guard = None,
                    _ => {}
                }
            }
            if verbs.is_empty() {
                continue;
            }
            let request = self.lb4_request_contract(&ctx, cv, name, f);
            for (verb, line, path, spec) in verbs {
                let Some(paths) =
                    self.decorated_route_paths(&ctx, cv.file, line, &verb, &base, path.as_ref())
                else {
                    continue;
                };
                let paths = paths
                    .into_iter()
                    .map(|p| match p {
                        PathArg::Str(s) => PathArg::Str(express_params(&s)),
                        p => p,
                    })
                    .collect();
                let contract = match spec {
                    Some(s) => {
                        let v = self.eval(&ctx, &s);
                        self.lb4_spec_contract(&v, cv.file, line, request.clone())
                    }
                    None => request.clone(),
                };
                let route = ControllerRoute {
                    method: verb,
                    paths,
                    middleware: guard.iter().cloned().collect(),
                    handler: format!("{class_name}.{name}"),
                    contract: Rc::new(RefCell::new(contract)),
                    line,
                };
                self.push_controller_route(router, cv, f, route);
            }
        }
    }

    /// The responses an operation spec states: each status of `responses`,
    /// with its `application/json` schema when it is data.
    fn lb4_spec_contract(
        &mut self,
        spec: &Value,
        file: FileId,
        line: u32,
        mut contract: RawContract,
    ) -> RawContract {
        let spec = self.force_deep(spec.clone());
        let Value::Obj(responses) = self.member(&spec, "responses") else {
            return contract;
        };
        let entries: Vec<(String, Value)> = responses
            .props
            .borrow()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (code, response) in entries {
            let Ok(status) = code.parse::<u16>() else {
                continue;
            };
            if !(100..600).contains(&status) {
                continue;
            }
            let content = self.member(&response, "content");
            let json = self.member(&content, "application/json");
            let schema = self.member(&json, "schema");
            let schema = match self.force_deep(schema) {
                s @ (Value::Obj(_) | Value::Zod(_)) => Some(self.lb4_schema_json(&s)),
                _ => None,
            };
            contract.responses.push((status, schema, file, line));
        }
        contract
    }

    /// A schema value as JSON: a `getModelSchemaRef` result or data.
    fn lb4_schema_json(&mut self, v: &Value) -> J {
        match v {
            Value::Zod(z) => z.schema.clone(),
            v => self.plain_json(v, 0),
        }
    }

    /// `getModelSchemaRef(Model, {exclude, optional, partial})`: the JSON
    /// schema of the model class's typed fields.
    fn lb4_model_schema(&mut self, argv: &[Value]) -> Value {
        let Some(Value::Class(cv)) = argv.first().map(|v| self.force_deep(v.clone())) else {
            return Value::dynamic();
        };
        let mut schema = self.dto_schema(&cv, 0);
        let options = argv.get(1).map(|v| self.force_deep(v.clone()));
        let names = |ip: &mut Interp, key: &str| -> Vec<String> {
            let v = options.as_ref().map(|o| ip.member(o, key));
            match v.map(|v| ip.force_deep(v)) {
                Some(Value::Arr(a)) => a
                    .borrow()
                    .clone()
                    .into_iter()
                    .filter_map(|x| ip.force_deep(x).as_text())
                    .collect(),
                _ => Vec::new(),
            }
        };
        let exclude = names(self, "exclude");
        let optional = names(self, "optional");
        let partial = options
            .as_ref()
            .map(|o| self.member(o, "partial"))
            .is_some_and(|v| matches!(v, Value::Bool(true)));
        if let J::Object(m) = &mut schema {
            if let Some(J::Object(props)) = m.get_mut("properties") {
                for k in &exclude {
                    props.shift_remove(k);
                }
            }
            if partial {
                m.remove("required");
            } else if let Some(J::Array(req)) = m.get_mut("required") {
                req.retain(|k| {
                    k.as_str()
                        .is_some_and(|k| !exclude.iter().chain(&optional).any(|x| x == k))
                });
                if req.is_empty() {
                    m.remove("required");
                }
            }
        }
        crate::libs::json_schema(schema)
    }

    /// What a controller method's decorated parameters state.
    fn lb4_request_contract(
        &mut self,
        ctx: &Ctx,
        cv: &Rc<ClassVal>,
        method: &str,
        f: &std::sync::Arc<crate::ir::Func>,
    ) -> RawContract {
        let mut contract = RawContract::default();
        let mut parts = PartFields::default();
        for (i, d) in cv.class.param_decorators_of(method) {
            let Some((REST | OPENAPI, n)) = self.lb4_decorator(ctx, &d) else {
                continue;
            };
            let argv = self.eval_args(ctx, &d.args);
            let text = |ip: &mut Interp, k: usize| {
                argv.get(k).and_then(|v| ip.force_deep(v.clone()).as_text())
            };
            let mut segs = n.split('.');
            match (segs.next(), segs.next(), segs.next()) {
                (Some("param"), Some(place @ ("path" | "query" | "header")), Some(ty)) => {
                    let Some(name) = text(self, 0) else {
                        continue;
                    };
                    let schema = match argv.get(1).map(|v| self.force_deep(v.clone())) {
                        Some(s @ (Value::Obj(_) | Value::Zod(_))) => self.lb4_schema_json(&s),
                        _ => type_schema(ty),
                    };
                    match place {
                        "path" => parts.add(RequestPart::Params, &name, schema, true),
                        "query" => parts.add(RequestPart::Query, &name, schema, false),
                        _ => {
                            contract.headers_read.insert(name.to_ascii_lowercase());
                        }
                    }
                }
                (Some("param"), Some(which @ ("filter" | "where")), None) => {
                    parts.add(RequestPart::Query, which, json!({"type": "object"}), false);
                }
                (Some("param"), None, None) => {
                    let Some(spec) = argv.first().map(|v| self.force_deep(v.clone())) else {
                        continue;
                    };
                    let field = |ip: &mut Interp, k: &str| {
                        let v = ip.member(&spec, k);
                        ip.force_deep(v).as_text()
                    };
                    let (Some(name), Some(place)) = (field(self, "name"), field(self, "in")) else {
                        continue;
                    };
                    let schema = match self.member(&spec, "schema") {
                        s @ (Value::Obj(_) | Value::Zod(_)) => self.lb4_schema_json(&s),
                        _ => json!({}),
                    };
                    let required = matches!(self.member(&spec, "required"), Value::Bool(true));
                    match place.as_str() {
                        "path" => parts.add(RequestPart::Params, &name, schema, true),
                        "query" => parts.add(RequestPart::Query, &name, schema, required),
                        "header" => {
                            contract.headers_read.insert(name.to_ascii_lowercase());
                        }
                        _ => {}
                    }
                }
                (Some("requestBody"), None, None) => {
                    let stated = argv.first().map(|v| {
                        let content = self.member(v, "content");
                        let json = self.member(&content, "application/json");
                        let s = self.member(&json, "schema");
                        self.force_deep(s)
                    });
                    let (schema, label) = match stated {
                        Some(s @ (Value::Obj(_) | Value::Zod(_))) => (
                            self.lb4_schema_json(&s),
                            SchemaLabel::new(SchemaSource::JsonSchema, ""),
                        ),
                        _ => match f.param_types.get(i).cloned().flatten() {
                            Some(t) => {
                                let label = match &t {
                                    TypeExpr::Ref(n, _) => {
                                        SchemaLabel::new(SchemaSource::TypeScript, n)
                                    }
                                    _ => SchemaLabel::new(SchemaSource::TypeScript, ""),
                                };
                                (self.ts_schema(&cv.env, &t, 0), label)
                            }
                            None => continue,
                        },
                    };
                    contract.body = Some((schema, label, cv.file, d.line));
                }
                _ => {}
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
}

/// `{id}` as `:id`.
/// A glob with its extglob groups `@(a|b)` written as the alternatives
/// `{a,b}` (what both match).
fn extglob_alternatives(pattern: &str) -> String {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(i) = rest.find("@(") {
        let Some(j) = rest[i..].find(')') else {
            break;
        };
        out.push_str(&rest[..i]);
        out.push('{');
        out.push_str(&rest[i + 2..i + j].replace('|', ","));
        out.push('}');
        rest = &rest[i + j + 1..];
    }
    out.push_str(rest);
    out
}

fn express_params(path: &str) -> String {
    path.replace('{', ":").replace('}', "")
}

/// The JSON schema of `@param.path.<type>`'s type word.
fn type_schema(ty: &str) -> J {
    match ty {
        "string" | "password" | "byte" | "binary" => json!({"type": "string"}),
        "date" => json!({"type": "string", "format": "date"}),
        "dateTime" => json!({"type": "string", "format": "date-time"}),
        "number" | "float" | "double" => json!({"type": "number"}),
        "integer" | "long" => json!({"type": "integer"}),
        "boolean" => json!({"type": "boolean"}),
        "object" => json!({"type": "object"}),
        "array" => json!({"type": "array"}),
        _ => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use super::BootSelection;

    #[test]
    fn the_booter_selects_controller_files_under_the_project_root() {
        let s = BootSelection {
            dirs: vec!["controllers".into()],
            extensions: vec![".controller.js".into()],
            nested: true,
        };
        assert!(s.selects("/src", "src/controllers/a.controller.ts"));
        assert!(s.selects("/src", "src/controllers/v1/a.controller.js"));
        assert!(!s.selects("/src", "src/controllers/index.ts"));
        assert!(!s.selects("/src", "lib/controllers/a.controller.ts"));
        let flat = BootSelection { nested: false, ..s };
        assert!(!flat.selects("/src", "src/controllers/v1/a.controller.ts"));
    }
}
