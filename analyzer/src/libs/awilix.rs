//! awilix-express: controllers whose routes are declared with the
//! decorators of `awilix-router-core` (re-exported by `awilix-express`) or
//! with its builder, served on an Express router by `loadControllers(glob,
//! options?)` or `controller(ControllerClass | [..])`.
//!
//! Captures: `@route(path)` on the class and on methods (several allowed),
//! `@GET()`, `@POST()`, `@PUT()`, `@PATCH()`, `@DELETE()`, `@HEAD()`,
//! `@OPTIONS()`, `@ALL()` and `@verbs([HttpVerbs.GET, …])` on methods,
//! `@before(mw | [mw])` on the class and on methods. As the library's
//! `rollUpState` does, a method's paths are each class path followed by each
//! of the method's (plain string concatenation: `@route('/todos')` and
//! `@route('/:id')` is `/todos/:id`; a method without `@route` answers at the
//! class's paths), and the class's `before` middleware runs ahead of the
//! method's; a method without a verb decorator registers nothing. The
//! builder: `createController(fn | Class).prefix(p).before(mw).get(path,
//! 'method', {before})` (also `post`, `put`, `patch`, `delete`, `head`,
//! `options`, `all`, `verbs([..], path, 'method')`), each route sited at its
//! verb call. `loadControllers(pattern, {cwd})` runs every file the glob
//! matches under `cwd` (default: the process's folder, the analyzed root)
//! and serves each controller the module exports (the module itself, else
//! each of its exports, as `findControllers` does); a `.js` pattern that
//! matches no file matches the TypeScript sources the build compiles to it
//! (`controllers/*.js` from `src/` is `src/controllers/*.ts`). Each route is
//! sited at its verb decorator; its handler is the method, read as an
//! Express handler `(req, res)` with its middleware.
//!
//! Example: `@route('/todos') class TodoApi { @route('/:id') @GET() get(req,
//! res) {} }` and `app.use('/api', loadControllers('routes/*.js', { cwd:
//! __dirname }))` is `GET /api/todos/:id`.
//!
//! Findings: a glob or `cwd` only known at run time (`dynamic-mount`; every
//! controller file of the project is taken), a path only known at run time
//! (`dynamic-path`), a controller only known at run time (`dynamic-mount`).
//!
//! Deliberately not captured: `@after` middleware (it runs only when the
//! handler calls `next`), routes inherited from a superclass, the Koa
//! flavour (`awilix-koa`), `findControllers`/`getStateAndTarget` read by the
//! program's own loader.

use crate::machine::*;

/// The packages whose decorators and functions are these.
const PKGS: &[&str] = &["awilix-express", "awilix-router-core"];

/// The verbs of the decorators and of the builder, by name.
const VERBS: &[&str] = &[
    "get", "head", "post", "put", "delete", "connect", "options", "patch", "all",
];

const BUILDER: &str = "awilix.builder";

/// What a run keeps: the builders made, and the controller classes served.
#[derive(Default)]
pub(crate) struct Awilix {
    builders: Vec<Builder>,
    /// Served classes, by (file, class line).
    served: HashSet<(FileId, u32)>,
}

/// A controller the builder describes (`createController(fn)`), one per
/// step of the chain (each step makes a new one, as the library does).
#[derive(Clone, Default)]
pub(crate) struct Builder {
    target: Option<Value>,
    /// `prefix(p)` paths.
    root: Vec<String>,
    /// `before(mw)`: (name, value).
    before: Vec<(String, Value)>,
    /// Routes in the order added.
    methods: Vec<BuiltRoute>,
}

#[derive(Clone)]
struct BuiltRoute {
    method: String,
    verbs: Vec<String>,
    paths: Vec<String>,
    before: Vec<(String, Value)>,
    file: FileId,
    line: u32,
}

/// `loadControllers`, `controller` and `createController`.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (PKGS.contains(&pkg) && matches!(prop, "loadControllers" | "controller" | "createController"))
        .then(|| crate::libs::framework(&format!("awilix.{prop}")))
}

/// A builder's methods (`createController(api).prefix('/x')`).
pub(crate) fn framework_member(name: &str, prop: &str) -> Option<Value> {
    crate::libs::index_in::<usize>(name, BUILDER)?;
    (VERBS.contains(&prop) || matches!(prop, "verbs" | "prefix" | "before" | "after"))
        .then(|| crate::libs::framework(&format!("{name}.{prop}")))
}

/// The names and values of the middleware `before(mw | [mw, …])` gives.
fn named_middleware(ip: &mut Interp, ctx: &Ctx, arg: Option<&Expr>) -> Vec<(String, Value)> {
    let Some(e) = arg else {
        return Vec::new();
    };
    let v = ip.eval(ctx, e);
    let v = ip.force_deep(v);
    let mut names = Vec::new();
    ip.handler_names(e, &v, &mut names, 0);
    let values: Vec<Value> = match &v {
        Value::Arr(a) => a.borrow().iter().cloned().collect(),
        v => vec![v.clone()],
    };
    names
        .into_iter()
        .enumerate()
        .map(|(i, (n, _))| (n, values.get(i).cloned().unwrap_or(Value::Undef)))
        .collect()
}

impl Interp {
    /// A call of a value this module made: `None` for every other name.
    pub(crate) fn awilix_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        args: &[Expr],
        line: u32,
    ) -> Option<Value> {
        match name {
            "awilix.loadControllers" => return Some(self.awilix_load(ctx, argv, line)),
            "awilix.controller" => {
                let Value::Router(router) = self.new_router(ctx.file, line, false) else {
                    return Some(Value::dynamic());
                };
                let items = match argv.first().map(|v| self.force_deep(v.clone())) {
                    Some(Value::Arr(a)) => a.borrow().clone(),
                    Some(v) => vec![v],
                    None => Vec::new(),
                };
                for it in items {
                    let it = self.force_deep(it);
                    if !self.awilix_serve(router, &it) {
                        self.finding(
                            FindingCode::DynamicMount,
                            ctx.file,
                            line,
                            "a controller given to `controller(...)` is only known at run time (or has no routes): its routes are not charted".into(),
                        );
                    }
                }
                return Some(Value::Router(router));
            }
            "awilix.createController" => {
                let b = Builder {
                    target: argv.first().cloned(),
                    ..Builder::default()
                };
                return Some(self.awilix_builder(b));
            }
            _ => {}
        }
        let rest = name.strip_prefix(BUILDER)?;
        let (index, prop) = rest.split_once('.')?;
        let mut b = self
            .libs
            .awilix
            .builders
            .get(index.parse::<usize>().ok()?)?
            .clone();
        let text = |ip: &mut Interp, v: Option<&Value>| {
            v.map(|v| ip.force_deep(v.clone()))
                .and_then(|v| v.as_text())
        };
        match prop {
            "prefix" => match text(self, argv.first()) {
                Some(p) => b.root.push(p),
                None => {
                    self.finding(
                        FindingCode::DynamicPath,
                        ctx.file,
                        line,
                        "the `prefix(...)` of this controller is only known at run time: its routes are not charted".into(),
                    );
                    b.target = None;
                }
            },
            "before" => b.before.extend(named_middleware(self, ctx, args.first())),
            "after" => {}
            _ => {
                let (verbs, at) = if prop == "verbs" {
                    let verbs = match argv.first().map(|v| self.force_deep(v.clone())) {
                        Some(Value::Arr(a)) => a
                            .borrow()
                            .iter()
                            .filter_map(|v| v.as_text())
                            .map(|v| v.to_ascii_lowercase())
                            .collect(),
                        _ => Vec::new(),
                    };
                    (verbs, 1)
                } else {
                    (vec![prop.to_string()], 0)
                };
                let path = text(self, argv.get(at));
                let method = text(self, argv.get(at + 1));
                let mut before = Vec::new();
                if let Some(Expr::Object(props)) = args.get(at + 2) {
                    for p in props {
                        if let ObjProp::KeyValue(PropKey::Name(k), v) = p
                            && k == "before"
                        {
                            before = named_middleware(self, ctx, Some(v));
                        }
                    }
                }
                match (path, method) {
                    (Some(path), Some(method)) => {
                        let paths = match b.methods.iter_mut().find(|m| m.method == method) {
                            Some(m) => {
                                m.verbs.extend(verbs.iter().cloned());
                                m.paths.push(path.clone());
                                m.before.extend(before.iter().cloned());
                                None
                            }
                            None => Some(path),
                        };
                        if let Some(path) = paths {
                            b.methods.push(BuiltRoute {
                                method,
                                verbs,
                                paths: vec![path],
                                before,
                                file: ctx.file,
                                line,
                            });
                        }
                    }
                    _ => self.finding(
                        FindingCode::DynamicPath,
                        ctx.file,
                        line,
                        format!("the path or method name of `.{prop}(...)` is only known at run time: this route is not charted"),
                    ),
                }
            }
        }
        Some(self.awilix_builder(b))
    }

    fn awilix_builder(&mut self, b: Builder) -> Value {
        self.libs.awilix.builders.push(b);
        crate::libs::indexed(BUILDER, self.libs.awilix.builders.len() - 1)
    }

    /// `loadControllers(pattern, options?)`: a router serving the
    /// controllers of the files the glob matches.
    fn awilix_load(&mut self, ctx: &Ctx, argv: &[Value], line: u32) -> Value {
        let Value::Router(router) = self.new_router(ctx.file, line, false) else {
            return Value::dynamic();
        };
        let pattern = argv
            .first()
            .map(|v| self.force_deep(v.clone()))
            .and_then(|v| v.as_text());
        let cwd = match argv.get(1).map(|v| self.force_deep(v.clone())) {
            Some(Value::Obj(o)) => match o.get("cwd").map(|v| self.force_deep(v)) {
                None | Some(Value::Undef) => Some(String::from("/")),
                Some(v) => v.as_text(),
            },
            _ => Some(String::from("/")),
        };
        let files = match (pattern, cwd) {
            (Some(p), Some(cwd)) => self.files_of_glob(&p, &cwd),
            _ => {
                self.finding(
                    FindingCode::DynamicMount,
                    ctx.file,
                    line,
                    "the glob or `cwd` of `loadControllers(...)` is only known at run time: every awilix-express controller file in the project is charted".into(),
                );
                (0..self.loader.project.files.len() as FileId)
                    .filter(|&f| {
                        self.loader.needles_of(f) & needle::CONTROLLER != 0
                            && !crate::is_test_path(self.loader.project.rel(f))
                    })
                    .collect()
            }
        };
        for f in files {
            for v in self.awilix_exports(f) {
                self.awilix_serve(router, &v);
            }
        }
        Value::Router(router)
    }

    /// What `findControllers` takes from a module: the module itself when it
    /// is a controller, else each of its exports.
    fn awilix_exports(&mut self, f: FileId) -> Vec<Value> {
        let m = self.module_value(f);
        let m = self.force_deep(m);
        if self.awilix_controller(&m) {
            return vec![m];
        }
        let values: Vec<Value> = match m {
            Value::Module(id) => self
                .namespace_entries(id)
                .into_iter()
                .map(|(_, v)| v)
                .collect(),
            Value::Obj(o) => o.entries().into_iter().map(|(_, v)| v).collect(),
            _ => Vec::new(),
        };
        let mut out = Vec::new();
        for v in values {
            let v = self.force_deep(v);
            if self.awilix_controller(&v) {
                out.push(v);
            }
        }
        out
    }

    /// Whether `v` has routing state: a builder, or a class with a
    /// decorator of the package.
    fn awilix_controller(&mut self, v: &Value) -> bool {
        match v {
            Value::Builtin(Builtin::Framework(n)) => {
                crate::libs::index_in::<usize>(n, BUILDER).is_some()
            }
            Value::Class(cv) => {
                let ctx = self.class_ctx(cv);
                let c = cv.class.clone();
                c.decorators
                    .iter()
                    .chain(c.member_decorators.iter().flat_map(|(_, d)| d))
                    .any(|d| self.awilix_decorator(&ctx, d).is_some())
            }
            _ => false,
        }
    }

    fn awilix_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<String> {
        match self.decorator_origin(ctx, d) {
            Some((p, n)) if PKGS.contains(&p.as_str()) => Some(n),
            _ => None,
        }
    }

    /// Registers a controller's routes on `router`: whether it was one.
    fn awilix_serve(&mut self, router: u32, v: &Value) -> bool {
        match v {
            Value::Class(cv) if self.awilix_controller(v) => {
                self.awilix_class(router, cv);
                true
            }
            Value::Builtin(Builtin::Framework(n)) => {
                let Some(b) = crate::libs::index_in::<usize>(n, BUILDER)
                    .and_then(|i| self.libs.awilix.builders.get(i).cloned())
                else {
                    return false;
                };
                self.awilix_built(router, &b);
                true
            }
            _ => false,
        }
    }

    /// The paths of `@route(...)` decorators, applied bottom-up as the
    /// library does; `None` (with a finding) when one is only known at run time.
    fn awilix_paths(&mut self, ctx: &Ctx, file: FileId, decs: &[Decorator]) -> Option<Vec<String>> {
        let mut out: Vec<String> = Vec::new();
        for d in decs.iter().rev() {
            if self.awilix_decorator(ctx, d).as_deref() != Some("route") {
                continue;
            }
            let v = d.args.first().map(|a| self.eval(ctx, a));
            match v.map(|v| self.force_deep(v)).and_then(|v| v.as_text()) {
                Some(p) => {
                    if !out.contains(&p) {
                        out.push(p);
                    }
                }
                None => {
                    let text = d.args.first().map(expr_text).unwrap_or_default();
                    self.finding(
                        FindingCode::DynamicPath,
                        file,
                        d.line,
                        format!("the path of `@route({text})` is only known at run time: its routes are not charted"),
                    );
                    return None;
                }
            }
        }
        Some(out)
    }

    /// A decorated controller class's routes.
    fn awilix_class(&mut self, router: u32, cv: &Rc<ClassVal>) {
        self.libs.awilix.served.insert((cv.file, cv.class.line));
        let ctx = self.class_ctx(cv);
        let c = cv.class.clone();
        let Some(root) = self.awilix_paths(&ctx, cv.file, &c.decorators) else {
            return;
        };
        let mut class_before = Vec::new();
        for d in c.decorators.iter().rev() {
            if self.awilix_decorator(&ctx, d).as_deref() == Some("before") {
                class_before.extend(named_middleware(self, &ctx, d.args.first()));
            }
        }
        let class_name = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        let proto = Value::Obj(self.class_prototype(cv));
        for (name, f) in &c.methods {
            let decs = c.decorators_of(name);
            let mut verbs: Vec<(String, u32)> = Vec::new();
            let mut before = class_before.clone();
            for d in decs.iter().rev() {
                match self.awilix_decorator(&ctx, d).as_deref() {
                    Some("before") => before.extend(named_middleware(self, &ctx, d.args.first())),
                    Some("verbs") => {
                        let v = d.args.first().map(|a| self.eval(&ctx, a));
                        if let Some(Value::Arr(a)) = v.map(|v| self.force_deep(v)) {
                            let list: Vec<Value> = a.borrow().clone();
                            for x in list {
                                if let Some(t) = self.force_deep(x).as_text() {
                                    verbs.push((t.to_ascii_lowercase(), d.line));
                                }
                            }
                        }
                    }
                    Some(n) if VERBS.contains(&n.to_ascii_lowercase().as_str()) => {
                        verbs.push((n.to_ascii_lowercase(), d.line));
                    }
                    _ => {}
                }
            }
            if verbs.is_empty() {
                continue;
            }
            let Some(own) = self.awilix_paths(&ctx, cv.file, &decs) else {
                continue;
            };
            let paths = concat_paths(&root, &own);
            let handler = self.member(&proto, name);
            let at = Some((cv.file, f.line));
            for (verb, line) in verbs {
                self.awilix_route(
                    router,
                    &ctx,
                    AwilixRoute {
                        verb,
                        paths: paths.clone(),
                        before: before.clone(),
                        handler: handler.clone(),
                        name: format!("{class_name}.{name}"),
                        at,
                        file: cv.file,
                        line,
                        doc: f.doc.clone(),
                    },
                );
            }
        }
    }

    /// A builder's routes.
    fn awilix_built(&mut self, router: u32, b: &Builder) {
        let Some(target) = b.target.clone().map(|t| self.force_deep(t)) else {
            return;
        };
        // What `makeInvoker` calls: a class's method, or the method of the
        // object a factory function returns.
        let (owner, target_name, ctx) = match &target {
            Value::Class(cv) => (
                Value::Obj(self.class_prototype(cv)),
                cv.class.name.clone().unwrap_or_default(),
                self.class_ctx(cv),
            ),
            f @ Value::Func(c) => {
                let ctx = Ctx {
                    file: c.file,
                    scope: c.env.clone(),
                    this: Value::Undef,
                    home: None,
                };
                let made =
                    self.call_value_now(&ctx, f, vec![Value::dynamic()], &[], c.func.line, None);
                let name = c.func.name.clone().unwrap_or_default();
                (self.force_deep(made), name, ctx)
            }
            _ => return,
        };
        for m in &b.methods {
            let handler = self.member(&owner, &m.method);
            let handler = self.force_deep(handler);
            let at = match &handler {
                Value::Func(c) => Some((c.file, c.func.line)),
                _ => None,
            };
            let mut before = b.before.clone();
            before.extend(m.before.iter().cloned());
            let name = if target_name.is_empty() {
                m.method.clone()
            } else {
                format!("{target_name}.{}", m.method)
            };
            for verb in &m.verbs {
                self.awilix_route(
                    router,
                    &ctx,
                    AwilixRoute {
                        verb: verb.clone(),
                        paths: concat_paths(&b.root, &m.paths),
                        before: before.clone(),
                        handler: handler.clone(),
                        name: name.clone(),
                        at,
                        file: m.file,
                        line: m.line,
                        doc: None,
                    },
                );
            }
        }
    }

    /// After the entries ran: each decorated controller class of a file
    /// that imports the package and that nothing served gets an
    /// `unmounted-router` finding at its `@route` (the census accounts its
    /// routes with it), naming the program's own reading of the routing
    /// state (`rollUpState`, `getStateAndTarget`, `findControllers`) when
    /// there is one.
    pub(crate) fn awilix_unserved(&mut self) {
        let n = self.loader.project.files.len() as FileId;
        let mut files = Vec::new();
        let mut own_loader = None;
        for f in 0..n {
            if crate::is_test_path(self.loader.project.rel(f))
                || (self.loader.needles_of(f) & needle::CONTROLLER == 0
                    && !self.js.modules.contains_key(&f))
            {
                continue;
            }
            let facts = self.loader.get(f).facts.clone();
            let imports: Vec<&crate::ir::Import> = facts
                .body
                .iter()
                .filter_map(|st| match st {
                    crate::ir::Stmt::Import(i) if PKGS.contains(&i.source.as_str()) => Some(i),
                    _ => None,
                })
                .collect();
            if imports.is_empty() {
                continue;
            }
            if own_loader.is_none()
                && let Some((name, line)) = imports.iter().find_map(|i| {
                    i.named
                        .iter()
                        .find(|(n, _)| {
                            matches!(
                                n.as_str(),
                                "rollUpState" | "getStateAndTarget" | "findControllers"
                            )
                        })
                        .map(|(n, _)| (n.clone(), i.line))
                })
            {
                own_loader = Some(format!("`{name}` at {}:{line}", self.loader.project.rel(f)));
            }
            if self.loader.needles_of(f) & needle::CONTROLLER != 0 {
                files.push(f);
            }
        }
        if files.is_empty() {
            return;
        }
        self.with_mode(Mode::Unreached, true, |me| {
            for &f in &files {
                me.run_module(f);
            }
        });
        let classes = self.rec.classes_in(&files);
        let mut seen = HashSet::new();
        for cv in classes {
            let key = (cv.file, cv.class.line);
            if self.libs.awilix.served.contains(&key) || !seen.insert(key) {
                continue;
            }
            let ctx = self.class_ctx(&cv);
            let mut at = None;
            for d in cv.class.decorators.clone() {
                if self.awilix_decorator(&ctx, &d).as_deref() == Some("route") {
                    at = Some(d.line);
                    break;
                }
            }
            let Some(line) = at else {
                continue;
            };
            let name = cv.class.name.clone().unwrap_or_default();
            let also = match &own_loader {
                Some(l) => format!(
                    "; the program reads the package's routing state itself ({l}), which the analysis does not follow"
                ),
                None => String::new(),
            };
            self.finding(
                FindingCode::UnmountedRouter,
                cv.file,
                line,
                format!("controller `{name}` is declared with awilix-express's decorators, but no `loadControllers(...)` or `controller(...)` the analysis followed serves it{also}: its routes are not charted"),
            );
        }
    }

    /// `router[verb](paths, ...before, invoker)`.
    fn awilix_route(&mut self, router: u32, ctx: &Ctx, r: AwilixRoute) {
        if r.paths.is_empty() {
            return;
        }
        let contract = Rc::new(RefCell::new(RawContract::default()));
        let mut funcs = Vec::new();
        for (name, v) in &r.before {
            self.note_middleware(name, v);
            self.route_funcs(ctx, v, &contract, &mut funcs, r.line, 0);
        }
        if matches!(r.handler, Value::Func(_)) {
            self.route_funcs(ctx, &r.handler, &contract, &mut funcs, r.line, 0);
        } else {
            contract.borrow_mut().unrun = true;
        }
        let kind = RegKind::Route {
            method: if r.verb == "all" {
                "all".into()
            } else {
                r.verb
            },
            paths: r.paths.into_iter().map(PathArg::Str).collect(),
            middleware: r.before.into_iter().map(|(n, _)| n).collect(),
            handler: Some(HandlerRef {
                name: r.name,
                at: r.at,
            }),
            contract,
            funcs,
            subpaths: false,
        };
        self.push_reg(router, kind, r.file, r.line, r.doc, None);
    }
}

/// One route before it is registered.
struct AwilixRoute {
    verb: String,
    paths: Vec<String>,
    before: Vec<(String, Value)>,
    handler: Value,
    name: String,
    at: Option<(FileId, u32)>,
    file: FileId,
    line: u32,
    doc: Option<String>,
}

/// The library's `concatPaths`: each class path followed by each method
/// path (no class path: the method's; no method path: the class's).
fn concat_paths(root: &[String], own: &[String]) -> Vec<String> {
    if root.is_empty() {
        return own.to_vec();
    }
    let mut out = Vec::new();
    for r in root {
        if own.is_empty() {
            out.push(r.clone());
        }
        for m in own {
            out.push(format!("{r}{m}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::concat_paths;
    use crate::libs::routing_controllers::fold_dots;

    #[test]
    fn globs_resolve_against_their_folder() {
        assert_eq!(
            fold_dots("/app/config/ioc/../../**/*.api.js"),
            "/app/**/*.api.js"
        );
        assert_eq!(
            fold_dots("/src/./controllers/*.ts"),
            "/src/controllers/*.ts"
        );
    }

    #[test]
    fn paths_concatenate_as_the_library_does() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            concat_paths(&s(&["/todos"]), &s(&["/:id"])),
            s(&["/todos/:id"])
        );
        assert_eq!(concat_paths(&s(&["/todos"]), &[]), s(&["/todos"]));
        assert_eq!(concat_paths(&[], &s(&["/x"])), s(&["/x"]));
        assert_eq!(
            concat_paths(&s(&["/a", "/b"]), &s(&["/c"])),
            s(&["/a/c", "/b/c"])
        );
    }
}
