//! routing-controllers on Express: decorated controller classes registered
//! by `createExpressServer(options)` or `useExpressServer(app, options)`.
//!
//! Captures: `@JsonController(path?)` and `@Controller(path?)` classes; their
//! methods' `@Get/@Post/@Put/@Patch/@Delete/@Head/@All(path?)` and
//! `@Method('verb', path?)`; `routePrefix`; `controllers` as classes or as
//! glob strings over the repository's files (`src/api/controllers/**/*.ts`,
//! or absolute from `__dirname`: `path.join(__dirname, 'controllers/*.js')`,
//! whose `.js` also names the TypeScript sources that compile to it; a
//! glob a choice only known at run time made, such as the build output's in
//! production and the source's otherwise, matches every way's files);
//! `@Body()`, `@BodyParam('x')`, `@Param('id')`, `@Params()`,
//! `@QueryParam('x')`, `@QueryParams()`, `@HeaderParam('x')` with their
//! TypeScript types (DTO classes through their class-validator decorators) as
//! request schemas; `@HttpCode(n)` and `@OnUndefined(n)` as responses;
//! `@UseBefore(...)` as middleware; `@Authorized()` as a guard (401). Each
//! operation is sited at its verb decorator.
//!
//! When `controllers` is missing or only known at run time (an environment
//! variable), routing-controllers serves
//! every decorated controller class the program loads: every such class in
//! the project is charted, and a `dynamic-mount` finding says so.
//!
//! Example: `useExpressServer(app, {routePrefix: '/api', controllers: [UserController]})`
//! with `@JsonController('/users') class UserController { @Get('/:id') one() {} }`
//! is `GET /api/users/:id`.
//!
//! Deliberately not captured: the Koa driver, `@UseAfter` and interceptors
//! (they do not change who may call), routes inherited from a superclass.

use crate::libs::nest::{guard_name, verb_of};
use crate::machine::*;
use crate::paths;

const PKG: &str = "routing-controllers";

/// What the routes of one decorated controller method share.
pub(crate) struct DecoratedMethod<'a> {
    /// `Class.method`.
    pub(crate) handler: String,
    /// The prefixes and the controller's path.
    pub(crate) base: &'a str,
    pub(crate) middleware: &'a [String],
    pub(crate) contract: &'a RawContract,
}

/// A member of the package that makes an app (`createExpressServer`,
/// `useExpressServer`); its decorators are named by their callee.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == PKG && matches!(prop, "createExpressServer" | "useExpressServer"))
        .then(|| Value::Builtin(Builtin::Framework(Rc::from(prop))))
}

/// Whether a repository path matches a glob (`**` any folders, `*` any name part).
pub(crate) fn glob_match(pattern: &str, path: &str) -> bool {
    fn go(p: &[u8], s: &[u8]) -> bool {
        match p {
            [] => s.is_empty(),
            [b'*', b'*', b'/', rest @ ..] => {
                go(rest, s)
                    || s.iter()
                        .enumerate()
                        .any(|(i, &c)| c == b'/' && go(rest, &s[i + 1..]))
            }
            [b'*', b'*', rest @ ..] => (0..=s.len()).any(|i| go(rest, &s[i..])),
            [b'*', rest @ ..] => (0..=s.len())
                .take_while(|&i| i == 0 || s[i - 1] != b'/')
                .any(|i| go(rest, &s[i..])),
            [c, rest @ ..] => s.first() == Some(c) && go(rest, &s[1..]),
        }
    }
    go(pattern.as_bytes(), path.as_bytes())
}

/// An absolute glob with its `.` and `..` segments folded (a `..` after a
/// glob segment is kept).
pub(crate) fn fold_dots(pattern: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for seg in pattern.split('/') {
        match seg {
            "" | "." => {}
            ".." if out
                .last()
                .is_some_and(|l| !l.contains(['*', '?', '{', '['])) =>
            {
                out.pop();
            }
            s => out.push(s),
        }
    }
    format!("/{}", out.join("/"))
}

impl Interp {
    /// The controller classes an options object's `controllers` lists
    /// (classes, or globs of files), and why every controller class is
    /// taken instead when the list is missing or only known at run time
    /// (routing-controllers and socket-controllers read it alike).
    pub(crate) fn listed_controllers(
        &mut self,
        opts: Option<&Rc<ObjData>>,
    ) -> (Vec<Rc<ClassVal>>, Option<&'static str>) {
        let mut classes: Vec<Rc<ClassVal>> = Vec::new();
        let mut everything = None;
        match opts
            .and_then(|o| o.get("controllers"))
            .map(|v| self.force_deep(v))
        {
            Some(Value::Arr(items)) => {
                for it in items.borrow().clone() {
                    match self.force_deep(it) {
                        Value::Class(c) => classes.push(c),
                        // A glob a choice made (`NODE_ENV === 'production'
                        // ? 'dist/…/*.js' : 'src/…/*.ts'`): every way's
                        // files; those not in the repository match none.
                        v @ Value::Str(_) => {
                            let globs: Vec<Rc<str>> = match self.chosen_ways(&v) {
                                Some(ways) => ways.iter().map(|(g, _)| g.clone()).collect(),
                                None => v
                                    .as_text()
                                    .map(|t| Rc::from(t.as_str()))
                                    .into_iter()
                                    .collect(),
                            };
                            for g in globs {
                                for c in self.classes_of_glob(g.trim_start_matches("./")) {
                                    if !classes.iter().any(|k| Rc::ptr_eq(k, &c)) {
                                        classes.push(c);
                                    }
                                }
                            }
                        }
                        _ => {
                            everything =
                                Some("an element of `controllers` is only known at run time")
                        }
                    }
                }
            }
            Some(Value::Undef) | None => everything = Some("no `controllers` option is given"),
            Some(_) => everything = Some("`controllers` is only known at run time"),
        }
        (classes, everything)
    }

    /// `createExpressServer(options)` / `useExpressServer(app, options)`.
    pub(crate) fn routing_controllers_server(
        &mut self,
        ctx: &Ctx,
        which: &str,
        argv: &[Value],
        line: u32,
    ) -> Value {
        let (app, opts) = if which == "useExpressServer" {
            let app = argv.first().map(|v| self.force_deep(v.clone()));
            (app, argv.get(1).cloned())
        } else {
            (None, argv.first().cloned())
        };
        let router = match app {
            Some(Value::Router(id)) => id,
            _ => match self.new_router(ctx.file, line, true) {
                Value::Router(id) => id,
                _ => return Value::dynamic(),
            },
        };
        let opts = match opts.map(|o| self.force_deep(o)) {
            Some(Value::Obj(o)) => Some(o),
            _ => None,
        };
        let prefix = match &opts {
            Some(o) => self.path_option(
                ctx,
                line,
                o,
                "routePrefix",
                &format!("the `routePrefix` of `{which}(...)`"),
            ),
            None => None,
        }
        .unwrap_or_default();
        let authorization = opts
            .as_ref()
            .is_some_and(|o| o.get("authorizationChecker").is_some());
        // The controller classes: listed, matched by globs, or all of them.
        let (mut classes, everything) = self.listed_controllers(opts.as_ref());
        if let Some(why) = everything {
            let files: Vec<FileId> = (0..self.loader.project.files.len() as FileId)
                .filter(|&f| {
                    self.loader.needles_of(f) & needle::CONTROLLER != 0
                        && !crate::is_test_path(self.loader.project.rel(f))
                })
                .collect();
            for f in files {
                self.run_module(f);
            }
            classes = self.rec.classes.iter().map(|(c, _)| c.clone()).collect();
            self.finding(
                FindingCode::DynamicMount,
                ctx.file,
                line,
                format!("{why} in `{which}(...)`: every routing-controllers controller class in the project is charted, as routing-controllers serves every one the program loads"),
            );
        }
        let mut done: HashSet<(FileId, u32)> = HashSet::new();
        for cv in classes {
            if done.insert((cv.file, cv.class.line)) {
                self.register_rc_controller(router, &prefix, &cv, authorization);
            }
        }
        // Controller classes of the project that are not listed.
        let at = format!("{}:{line}", self.loader.project.rel(ctx.file));
        self.load_controller_files();
        let loaded: Vec<Rc<ClassVal>> = self.rec.classes.iter().map(|(c, _)| c.clone()).collect();
        for cv in loaded {
            if done.contains(&(cv.file, cv.class.line)) {
                continue;
            }
            let cctx = self.class_ctx(&cv);
            for d in cv.class.decorators.clone() {
                if matches!(
                    self.rc_decorator(&cctx, &d).as_deref(),
                    Some("JsonController" | "Controller")
                ) {
                    let name = cv.class.name.clone().unwrap_or_default();
                    self.finding(
                        FindingCode::UnmountedRouter,
                        cv.file,
                        d.line,
                        format!("controller `{name}` is not among the `controllers` of `{which}(...)` ({at}); routing-controllers does not serve it"),
                    );
                }
            }
        }
        Value::Router(router)
    }

    /// The routing-controllers decorator this is, if it is one.
    fn rc_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<String> {
        match self.decorator_origin(ctx, d) {
            Some((p, n)) if p == PKG => Some(n),
            _ => None,
        }
    }

    fn register_rc_controller(
        &mut self,
        router: u32,
        prefix: &str,
        cv: &Rc<ClassVal>,
        authorization: bool,
    ) {
        let ctx = self.class_ctx(cv);
        let c = cv.class.clone();
        let mut base = None;
        let mut class_mw: Vec<String> = Vec::new();
        for d in &c.decorators {
            match self.rc_decorator(&ctx, d).as_deref() {
                Some("JsonController" | "Controller") => {
                    base = self.path_list(&ctx, d.args.first()).map(|p| p.concat());
                    if base.is_none() {
                        self.finding(
                            FindingCode::DynamicPath,
                            cv.file,
                            d.line,
                            "the path of this controller is only known at run time".into(),
                        );
                        return;
                    }
                }
                Some("UseBefore") => class_mw.extend(d.args.iter().map(guard_name)),
                Some("Authorized") => {
                    class_mw.push(self.rc_authorized(cv.file, d.line, authorization))
                }
                _ => {}
            }
        }
        let Some(base) = base else {
            return;
        };
        let class_name = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        for (name, f) in &c.methods {
            let decs: Vec<Decorator> = c.decorators_of(name);
            let mut verbs: Vec<(String, u32, Option<Expr>)> = Vec::new();
            let mut statuses: Vec<(u16, u32)> = Vec::new();
            let mut mw = class_mw.clone();
            for d in &decs {
                let Some(n) = self.rc_decorator(&ctx, d) else {
                    continue;
                };
                if let Some(verb) = verb_of(&n).filter(|_| n != "Search" && n != "Sse") {
                    verbs.push((verb.to_string(), d.line, d.args.first().cloned()));
                    continue;
                }
                match n.as_str() {
                    "Method" => {
                        let m = d.args.first().map(|a| self.eval(&ctx, a));
                        if let Some(m) = m.and_then(|m| self.force_deep(m).as_text()) {
                            verbs.push((m.to_ascii_lowercase(), d.line, d.args.get(1).cloned()));
                        }
                    }
                    "HttpCode" | "OnUndefined" | "OnNull" => {
                        let v = d.args.first().map(|a| self.eval(&ctx, a));
                        if let Some(s) =
                            v.and_then(|v| crate::libs::http_status(&self.force_deep(v)))
                        {
                            statuses.push((s, d.line));
                        }
                    }
                    "UseBefore" => mw.extend(d.args.iter().map(guard_name)),
                    "Authorized" => mw.push(self.rc_authorized(cv.file, d.line, authorization)),
                    _ => {}
                }
            }
            if verbs.is_empty() {
                continue;
            }
            let contract = self
                .nest_request_contract(&ctx, cv, name, f, PKG)
                .with_statuses(&statuses, cv.file);
            let full = paths::join(prefix, &base);
            let method = DecoratedMethod {
                handler: format!("{class_name}.{name}"),
                base: &full,
                middleware: &mw,
                contract: &contract,
            };
            self.push_decorated_routes(router, &ctx, cv, f, verbs, method);
        }
    }

    /// Registers a decorated method's routes, one per verb decorator
    /// `(verb, line, path argument)`, each sited at its decorator.
    pub(crate) fn push_decorated_routes(
        &mut self,
        router: u32,
        ctx: &Ctx,
        cv: &Rc<ClassVal>,
        f: &crate::ir::Func,
        verbs: Vec<(String, u32, Option<Expr>)>,
        m: DecoratedMethod,
    ) {
        for (verb, line, path) in verbs {
            let Some(paths) =
                self.decorated_route_paths(ctx, cv.file, line, &verb, m.base, path.as_ref())
            else {
                continue;
            };
            let route = crate::libs::nest::ControllerRoute {
                method: verb,
                paths,
                middleware: m.middleware.to_vec(),
                handler: m.handler.clone(),
                contract: Rc::new(RefCell::new(m.contract.clone())),
                line,
            };
            self.push_controller_route(router, cv, f, route);
        }
    }

    /// A guard a decorator names that refuses with 401 (`@Authorized()`,
    /// `@Security('jwt')`, `@UseAuth(X)`, `@JWTRequired()`): its middleware name.
    pub(crate) fn decorator_guard(&mut self, name: String, file: FileId, line: u32) -> String {
        self.rec.guards.entry(name.clone()).or_insert(GuardInfo {
            status: 401,
            file,
            line,
            credential: None,
        });
        name
    }

    /// The classes declared in the project files a glob matches (relative to
    /// the analyzed root, or absolute as `__dirname` makes it:
    /// `src/controllers/**/*.ts`, `/src/controllers/*.js`), each file run first.
    pub(crate) fn classes_of_glob(&mut self, pattern: &str) -> Vec<Rc<ClassVal>> {
        let files = self.files_of_glob(pattern, "/");
        let mut classes = Vec::new();
        for f in files {
            self.run_module(f);
            classes.extend(
                self.rec
                    .classes
                    .iter()
                    .filter(|(c, _)| c.file == f)
                    .map(|(c, _)| c.clone()),
            );
        }
        classes
    }

    /// The project files a glob matches, resolved against the virtual folder
    /// `cwd` (`/` is the analyzed root; an absolute pattern such as
    /// `path.join(__dirname, 'controllers/*.js')` is its own), in byte order;
    /// for a `.js` pattern, also the TypeScript sources the build compiles
    /// to such files (`x.ts` where no `x.js` is there).
    pub(crate) fn files_of_glob(&mut self, pattern: &str, cwd: &str) -> Vec<FileId> {
        // (fast-glob resolves a pattern against `cwd`; `..` segments are
        // folded here, as the file system would.)
        let full = if pattern.starts_with('/') {
            pattern.to_string()
        } else {
            format!("{}/{pattern}", cwd.trim_end_matches('/'))
        };
        let pattern = fold_dots(&full);
        let opts = ObjData::new();
        opts.set("absolute", Value::Bool(true));
        let mut found: Vec<String> = Vec::new();
        let mut patterns = vec![pattern.clone()];
        if pattern.contains(".js") {
            patterns.push(pattern.replace(".js", ".ts"));
        }
        for (i, p) in patterns.iter().enumerate() {
            if let Value::Arr(a) = self.glob(&[Value::str(p), Value::Obj(opts.clone())], false) {
                for t in a.borrow().iter().filter_map(|v| v.as_text()) {
                    let stem = t.trim_end_matches(".ts");
                    let compiled = i > 0
                        && (t.ends_with(".d.ts")
                            || found.iter().any(|f| f.trim_end_matches(".js") == stem));
                    if !compiled {
                        found.push(t);
                    }
                }
            }
        }
        found.sort();
        found
            .iter()
            .filter_map(|t| crate::machine::node::to_rel(t))
            .filter_map(|r| self.loader.project.file_id(&r))
            .collect()
    }

    /// The full paths of a decorated method's route: `full` (the prefixes
    /// and the controller's path) joined with the verb decorator's path
    /// argument (none: `full` itself; a regex: appended). `None`, with a
    /// `dynamic-path` finding, when the argument is only known at run time.
    pub(crate) fn decorated_route_paths(
        &mut self,
        ctx: &Ctx,
        file: FileId,
        line: u32,
        verb: &str,
        full: &str,
        path: Option<&Expr>,
    ) -> Option<Vec<PathArg>> {
        let v = path.map(|p| {
            let v = self.eval(ctx, p);
            self.force_deep(v)
        });
        match v {
            None | Some(Value::Undef) => Some(vec![PathArg::Str(full.to_string())]),
            Some(Value::Regex(r)) => Some(vec![PathArg::Regex(format!(
                "{}{r}",
                full.trim_end_matches('/')
            ))]),
            Some(v) => match v.as_text() {
                Some(t) => Some(vec![PathArg::Str(paths::join(full, &t))]),
                None => {
                    let text = path.map(expr_text).unwrap_or_default();
                    self.finding(
                        FindingCode::DynamicPath,
                        file,
                        line,
                        format!("the path of `@{verb}({text})` is only known at run time"),
                    );
                    None
                }
            },
        }
    }

    /// `@Authorized()`: routing-controllers runs the `authorizationChecker`
    /// and answers 401 (403 for a missing role) when it says no.
    fn rc_authorized(&mut self, file: FileId, line: u32, _checker: bool) -> String {
        self.decorator_guard("Authorized()".to_string(), file, line)
    }
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs_match_repository_paths() {
        assert!(glob_match(
            "src/api/controllers/**/*Controller.ts",
            "src/api/controllers/UserController.ts"
        ));
        assert!(glob_match(
            "src/api/controllers/**/*Controller.ts",
            "src/api/controllers/v1/PetController.ts"
        ));
        assert!(!glob_match(
            "src/api/controllers/*.ts",
            "src/api/controllers/v1/PetController.ts"
        ));
        assert!(!glob_match("src/**/*.ts", "lib/a.ts"));
    }
}
