//! Ts.ED on Express: a server class whose `@Configuration({mount})` (or
//! `@ServerSettings` in Ts.ED 5) lists the controllers, bootstrapped with
//! `PlatformExpress.bootstrap(Server, settings?)` (`ServerLoader.bootstrap`
//! in Ts.ED 5).
//!
//! Captures: `mount` as `{'/rest': [CtrlA, 'glob']}` or `{'/rest': 'glob'}`
//! from the class decorator and from `bootstrap`'s settings (which win);
//! glob strings list the repository's files, `${rootDir}` in them replaced by
//! the `rootDir` setting (relative ones are relative to the process's
//! folder, the analyzed root); controllers `@Controller('/path')`,
//! `@Controller({path, children})` and Ts.ED 5's `@Controller('/path',
//! ChildA, ...)`, whose children are served under the parent's path (and are
//! not mounted again on their own); `@Get/@Post/@Put/@Patch/@Delete/@Head/
//! @Options/@All(path?)` methods; `@BodyParams()`, `@QueryParams('x')`,
//! `@PathParams('id')`, `@HeaderParams('x')` with their TypeScript types
//! (model classes through their decorators) as request schemas;
//! `@Status(n)`/`@Returns(n)` as responses; `@UseBefore(...)`/`@Use(...)` as
//! middleware; `@UseAuth(X)` and `@Authorize(...)` (class or method) as a
//! guard (401). Decorators count from any `@tsed/` package (`@tsed/common`,
//! `@tsed/di`, `@tsed/schema`, `@tsed/platform-params`, `@tsed/passport`).
//!
//! Example: `@Configuration({mount: {'/rest': [UsersCtrl]}}) class Server {}`,
//! `PlatformExpress.bootstrap(Server)` and `@Controller('/users') class
//! UsersCtrl { @Get('/:id') one() {} }` is `GET /rest/users/:id`.
//!
//! Deliberately not captured: the Koa platform, `@Redirect`, interceptors,
//! routes inherited from a superclass, `componentsScan` (services, not routes),
//! controllers no `mount` lists (not charted, no finding yet).

use crate::machine::*;
use crate::paths;

use super::nest::{guard_name, verb_of};
use super::routing_controllers::DecoratedMethod;

const FAMILY: &str = "@tsed/";

/// Ts.ED's application and router types: a value declared with one is the
/// app a Ts.ED platform made (its `use` and verbs register on the Express
/// app underneath), never some other package's object.
pub(crate) const APP_TYPES: &[&str] = &["PlatformApplication", "PlatformRouter"];

/// The hooks Ts.ED calls on the server class and on its providers while it
/// bootstraps (`$beforeRoutesInit`, …): a function named so in a module
/// that imports Ts.ED is called by the framework, not by the program.
pub(crate) const HOOKS: &[&str] = &[
    "$beforeInit",
    "$afterInit",
    "$onInit",
    "$beforeRoutesInit",
    "$onRoutesInit",
    "$afterRoutesInit",
    "$beforeListen",
    "$afterListen",
    "$onReady",
    "$onServerReady",
    "$onDestroy",
];

/// Whether `pkg` is a Ts.ED package.
pub(crate) fn is_tsed(pkg: &str) -> bool {
    pkg.starts_with(FAMILY)
}

/// A controller class's `@Controller` path (`None`: none known) and children.
type Controller = (Option<String>, Vec<Rc<ClassVal>>);

/// `PlatformExpress` / `ServerLoader` of a Ts.ED package: their `bootstrap`
/// makes the app.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg.starts_with(FAMILY) && matches!(prop, "PlatformExpress" | "ServerLoader"))
        .then(|| Value::Builtin(Builtin::Framework(Rc::from("tsed.platform"))))
}

/// `PlatformExpress.bootstrap`.
pub(crate) fn framework_member(name: &str, prop: &str) -> Option<Value> {
    (name == "tsed.platform" && prop == "bootstrap")
        .then(|| Value::Builtin(Builtin::Framework(Rc::from("tsed.bootstrap"))))
}

impl Interp {
    /// The Ts.ED decorator this is (from any `@tsed/` package), if it is one.
    fn tsed_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<String> {
        match self.decorator_origin(ctx, d) {
            Some((p, n)) if p.starts_with(FAMILY) => Some(n),
            _ => None,
        }
    }

    /// `PlatformExpress.bootstrap(Server, settings?)`: an Express app serving
    /// the controllers `mount` lists.
    pub(crate) fn tsed_bootstrap(&mut self, ctx: &Ctx, argv: &[Value], line: u32) -> Value {
        let router = match self.new_router(ctx.file, line, true) {
            Value::Router(id) => id,
            _ => return Value::dynamic(),
        };
        let server = match argv.first().map(|v| self.force_deep(v.clone())) {
            Some(Value::Class(server)) => Some(server),
            _ => None,
        };
        // Ts.ED calls the server class's `$beforeRoutesInit` before it
        // mounts the controllers, `$afterRoutesInit` after.
        let instance = server
            .as_ref()
            .map(|s| self.tsed_server_instance(ctx, s, router, line));
        if let (Some(s), Some(inst)) = (&server, &instance) {
            self.tsed_hook(ctx, s, inst, "$beforeRoutesInit", line);
        }
        let value = self.tsed_mount(ctx, argv, server.clone(), router, line);
        if let (Some(s), Some(inst)) = (&server, &instance) {
            self.tsed_hook(ctx, s, inst, "$afterRoutesInit", line);
        }
        value
    }

    /// The server class's instance as Ts.ED's injector makes it: the
    /// application (`@Inject() app: PlatformApplication`, or a constructor
    /// parameter of that type) is the app `bootstrap` made.
    fn tsed_server_instance(
        &mut self,
        ctx: &Ctx,
        server: &Rc<ClassVal>,
        router: u32,
        line: u32,
    ) -> Value {
        let is_app = |t: &crate::ir::TypeExpr| matches!(t, crate::ir::TypeExpr::Ref(n, _) if APP_TYPES.contains(&n.as_str()));
        let args: Vec<Value> = server
            .class
            .constructor
            .as_ref()
            .map(|k| {
                k.param_types
                    .iter()
                    .map(|t| match t {
                        Some(t) if is_app(t) => Value::Router(router),
                        _ => Value::dynamic(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let inst = self.construct(ctx, &Value::Class(server.clone()), args, &[], line);
        let inst = self.force_deep(inst);
        if let Value::Obj(o) = &inst {
            for (name, _, t) in &server.class.field_types {
                if is_app(t) {
                    o.set(name, Value::Router(router));
                }
            }
        }
        inst
    }

    /// Calls the hook `name` of the server class, if it has one, on `inst`.
    fn tsed_hook(&mut self, ctx: &Ctx, server: &Rc<ClassVal>, inst: &Value, name: &str, line: u32) {
        if !server.class.methods.iter().any(|(n, _)| n == name) {
            return;
        }
        let f = self.member(inst, name);
        let f = self.force_deep(f);
        if matches!(f, Value::Func(_)) {
            self.call_value_now(ctx, &f, Vec::new(), &[], line, Some(inst.clone()));
        }
    }

    /// The controllers `mount` lists, registered on `router`.
    fn tsed_mount(
        &mut self,
        ctx: &Ctx,
        argv: &[Value],
        server: Option<Rc<ClassVal>>,
        router: u32,
        line: u32,
    ) -> Value {
        // The settings: the server class's decorator, then bootstrap's own.
        let mut settings: Vec<Rc<ObjData>> = Vec::new();
        if let Some(server) = server {
            let cctx = self.class_ctx(&server);
            for d in server.class.decorators.clone() {
                if matches!(
                    self.tsed_decorator(&cctx, &d).as_deref(),
                    Some("Configuration" | "ServerSettings")
                ) && let Some(a) = d.args.first()
                {
                    let v = self.eval(&cctx, a);
                    if let Value::Obj(o) = self.force_deep(v) {
                        settings.push(o);
                    }
                }
            }
        }
        if let Some(Value::Obj(o)) = argv.get(1).map(|v| self.force_deep(v.clone())) {
            settings.push(o);
        }
        let setting = |k: &str| settings.iter().rev().find_map(|o| o.get(k));
        let root_dir = setting("rootDir")
            .and_then(|v| v.as_text())
            .unwrap_or_else(|| "/".into());
        let Some(mount) = setting("mount").map(|v| self.force_deep(v)) else {
            self.finding(
                FindingCode::DynamicMount,
                ctx.file,
                line,
                "no `mount` setting is known for this Ts.ED server: its controllers are not charted".into(),
            );
            return Value::Router(router);
        };
        let Value::Obj(mount) = mount else {
            self.finding(
                FindingCode::DynamicMount,
                ctx.file,
                line,
                "the `mount` setting of this Ts.ED server is only known at run time: its controllers are not charted".into(),
            );
            return Value::Router(router);
        };
        let entries: Vec<(String, Value)> = mount
            .props
            .borrow()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (prefix, v) in entries {
            let items = match self.force_deep(v) {
                Value::Arr(a) => a.borrow().clone(),
                v => vec![v],
            };
            let mut classes: Vec<Rc<ClassVal>> = Vec::new();
            for it in items {
                match self.force_deep(it) {
                    Value::Class(c) => classes.push(c),
                    Value::Str(g) => {
                        let g = g.replace("${rootDir}", &root_dir);
                        match crate::machine::node::to_rel(&g) {
                            Some(rel) => {
                                // Only the controllers of the files (not what they import).
                                let found = self.classes_of_glob(&rel);
                                classes.extend(found);
                            }
                            None => self.finding(
                                FindingCode::DynamicMount,
                                ctx.file,
                                line,
                                format!("the glob `{g}` of `mount['{prefix}']` is outside the analyzed folder"),
                            ),
                        }
                    }
                    _ => self.finding(
                        FindingCode::DynamicMount,
                        ctx.file,
                        line,
                        format!("an element of `mount['{prefix}']` is only known at run time; its controllers are not charted"),
                    ),
                }
            }
            // Ts.ED mounts children under their parent only.
            let mut children: HashSet<(FileId, u32)> = HashSet::new();
            let mut controllers: Vec<(Rc<ClassVal>, Controller)> = Vec::new();
            for cv in classes {
                let (path, kids) = self.tsed_controller(&cv);
                children.extend(kids.iter().map(|k| (k.file, k.class.line)));
                controllers.push((cv, (path, kids)));
            }
            let mut done: HashSet<(FileId, u32)> = HashSet::new();
            for (cv, (path, kids)) in controllers {
                let key = (cv.file, cv.class.line);
                if path.is_none() || children.contains(&key) || !done.insert(key) {
                    continue;
                }
                self.register_tsed_controller(router, &prefix, &cv, path, kids, 0);
            }
        }
        Value::Router(router)
    }

    /// A class's `@Controller` path and children (`None` path: not a Ts.ED
    /// controller, or its path is only known at run time, which a finding says).
    fn tsed_controller(&mut self, cv: &Rc<ClassVal>) -> Controller {
        let ctx = self.class_ctx(cv);
        for d in cv.class.decorators.clone() {
            if self.tsed_decorator(&ctx, &d).as_deref() != Some("Controller") {
                continue;
            }
            let first = d.args.first().map(|a| {
                let v = self.eval(&ctx, a);
                self.force_deep(v)
            });
            let mut kids: Vec<Value> = Vec::new();
            let path = match first {
                None | Some(Value::Undef) => Some(String::new()),
                Some(Value::Obj(o)) => {
                    for k in ["children", "dependencies"] {
                        if let Some(Value::Arr(a)) = o.get(k).map(|v| self.force_deep(v)) {
                            kids.extend(a.borrow().iter().cloned());
                        }
                    }
                    o.get("path").and_then(|p| self.force_deep(p).as_text())
                }
                Some(v) => {
                    // Ts.ED 5: `@Controller('/path', ChildA, ChildB)`.
                    for a in &d.args[1..] {
                        kids.push(self.eval(&ctx, a));
                    }
                    v.as_text()
                }
            };
            if path.is_none() {
                self.finding(
                    FindingCode::DynamicPath,
                    cv.file,
                    d.line,
                    "the path of this controller is only known at run time".into(),
                );
            }
            let kids = kids
                .into_iter()
                .filter_map(|k| match self.force_deep(k) {
                    Value::Class(c) => Some(c),
                    _ => None,
                })
                .collect();
            return (path, kids);
        }
        (None, Vec::new())
    }

    fn register_tsed_controller(
        &mut self,
        router: u32,
        prefix: &str,
        cv: &Rc<ClassVal>,
        path: Option<String>,
        kids: Vec<Rc<ClassVal>>,
        depth: u32,
    ) {
        let Some(path) = path else {
            return;
        };
        let base = paths::join(prefix, &path);
        let ctx = self.class_ctx(cv);
        let c = cv.class.clone();
        let mut class_mw: Vec<String> = Vec::new();
        for d in &c.decorators {
            if let Some(n) = self.tsed_decorator(&ctx, d) {
                self.tsed_middleware(cv.file, &n, d, &mut class_mw);
            }
        }
        let class_name = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        for (name, f) in &c.methods {
            let mut verbs: Vec<(String, u32, Option<Expr>)> = Vec::new();
            let mut statuses: Vec<(u16, u32)> = Vec::new();
            let mut mw = class_mw.clone();
            for d in &c.decorators_of(name) {
                let Some(n) = self.tsed_decorator(&ctx, d) else {
                    continue;
                };
                if let Some(verb) = verb_of(&n).filter(|_| n != "Search" && n != "Sse") {
                    verbs.push((verb.to_string(), d.line, d.args.first().cloned()));
                } else if matches!(n.as_str(), "Status" | "Returns") {
                    let v = d.args.first().map(|a| self.eval(&ctx, a));
                    if let Some(s) = v.and_then(|v| crate::libs::http_status(&self.force_deep(v))) {
                        statuses.push((s, d.line));
                    }
                } else {
                    self.tsed_middleware(cv.file, &n, d, &mut mw);
                }
            }
            if verbs.is_empty() {
                continue;
            }
            let contract = self
                .nest_request_contract(&ctx, cv, name, f, FAMILY)
                .with_statuses(&statuses, cv.file);
            let method = DecoratedMethod {
                handler: format!("{class_name}.{name}"),
                base: &base,
                middleware: &mw,
                contract: &contract,
            };
            self.push_decorated_routes(router, &ctx, cv, f, verbs, method);
        }
        if depth < 8 {
            for kid in kids {
                let (p, k) = self.tsed_controller(&kid);
                self.register_tsed_controller(router, &base, &kid, p, k, depth + 1);
            }
        }
    }

    /// A middleware decorator's names added to `mw`: `@UseBefore(a, b)`,
    /// `@Use(a)`; `@UseAuth(X)` and `@Authorize(...)` also a guard (401).
    fn tsed_middleware(&mut self, file: FileId, n: &str, d: &Decorator, mw: &mut Vec<String>) {
        match n {
            "UseBefore" | "Use" => mw.extend(d.args.iter().map(guard_name)),
            "UseAuth" | "Authorize" | "Authenticated" => {
                let name = match n {
                    "UseAuth" => d.args.first().map(guard_name),
                    _ => None,
                }
                .unwrap_or_else(|| format!("{n}()"));
                mw.push(self.decorator_guard(name, file, d.line));
            }
            _ => {}
        }
    }
}
