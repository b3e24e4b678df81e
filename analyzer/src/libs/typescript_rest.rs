//! typescript-rest: decorated service classes whose routes
//! `Server.buildServices(router, ...classes)` or `Server.loadServices(router,
//! patterns, baseDir?)` (also `loadControllers`) add to an Express router.
//!
//! Captures: `@Path(path)` on a class and on its methods, the verb
//! decorators `@GET`, `@POST`, `@PUT`, `@DELETE`, `@HEAD`, `@OPTIONS` and
//! `@PATCH` (written without parentheses); the route's path as the package
//! resolves it (the class's path, trimmed, with a `/` put in front and a
//! trailing `/` dropped, then the method's path with a `/` put in front);
//! `buildServices` with the classes it lists, or without any every service
//! class the program loads (the package builds every class it registered);
//! `loadServices` over the files its glob patterns match (against
//! `baseDir`, or the analyzed root for `process.cwd()`), building the
//! functions those modules export; `@Abstract` classes are not built;
//! `@PathParam`, `@QueryParam`, `@HeaderParam`, `@FormParam` with their
//! TypeScript types as request schemas, and the first parameter without a
//! decorator (the entity the package parses from the body) by its type. Each operation is sited at its verb
//! decorator; its handler is the method.
//!
//! Example: `@Path('/users') class Users { @GET @Path(':id') one() {} }`
//! with `Server.buildServices(router, Users)` and `app.use('/api', router)`
//! is `GET /api/users/:id`.
//!
//! Findings: a path only known at run time (`dynamic-path`).
//!
//! Deliberately not captured: `@Security` (an authenticator's middleware,
//! only when one is registered), pre- and post-processors, routes a
//! subclass inherits from its service superclass, and the `all` handlers
//! the package adds to answer 405 for other methods (no operation).

use crate::machine::*;

const PKG: &str = "typescript-rest";
const SERVER: &str = "typescript-rest.Server";
const BUILD: &str = "typescript-rest.buildServices";
const LOAD: &str = "typescript-rest.loadServices";

/// The verb decorators, by the method they register.
const VERBS: &[(&str, &str)] = &[
    ("GET", "get"),
    ("POST", "post"),
    ("PUT", "put"),
    ("DELETE", "delete"),
    ("HEAD", "head"),
    ("OPTIONS", "options"),
    ("PATCH", "patch"),
];

/// `Server` of the package's module.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == PKG && prop == "Server").then(|| Value::Builtin(Builtin::Framework(Rc::from(SERVER))))
}

/// `Server.buildServices`, `Server.loadServices`, `Server.loadControllers`.
pub(crate) fn framework_member(name: &str, prop: &str) -> Option<Value> {
    if name != SERVER {
        return None;
    }
    let which = match prop {
        "buildServices" => BUILD,
        "loadServices" | "loadControllers" => LOAD,
        _ => return None,
    };
    Some(Value::Builtin(Builtin::Framework(Rc::from(which))))
}

/// A call of `buildServices` or `loadServices`.
pub(crate) fn call(ip: &mut Interp, name: &str, argv: &[Value]) -> Option<Value> {
    match name {
        BUILD => {
            let classes: Vec<Value> = argv.iter().skip(1).cloned().collect();
            ip.ts_rest_build(argv.first(), classes);
            Some(Value::Undef)
        }
        LOAD => {
            let classes = ip.ts_rest_load(argv);
            ip.ts_rest_build(argv.first(), classes);
            Some(Value::Undef)
        }
        _ => None,
    }
}

/// The class's path joined with the method's, as the package's
/// `resolvePath` does.
fn resolve_path(class: &str, method: Option<&str>) -> String {
    let class = class.trim();
    let mut out = if class.starts_with('/') {
        class.to_string()
    } else {
        format!("/{class}")
    };
    if out.ends_with('/') {
        out.pop();
    }
    if let Some(m) = method.filter(|m| !m.is_empty()) {
        let m = m.trim();
        if !m.starts_with('/') {
            out.push('/');
        }
        out.push_str(m);
    }
    out
}

impl Interp {
    /// The classes of the modules `loadServices(router, patterns, baseDir?)`
    /// matches (the package builds what they export).
    fn ts_rest_load(&mut self, argv: &[Value]) -> Vec<Value> {
        let patterns: Vec<String> = match argv.get(1).map(|v| self.force_deep(v.clone())) {
            Some(Value::Arr(a)) => self.item_texts(&a),
            Some(v) => v.as_text().into_iter().collect(),
            None => Vec::new(),
        };
        let cwd = argv
            .get(2)
            .and_then(|v| self.force_deep(v.clone()).as_text())
            .unwrap_or_else(|| "/".into());
        let mut out = Vec::new();
        for p in patterns {
            for f in self.files_of_glob(&p, &cwd) {
                self.run_module(f);
                out.extend(
                    self.rec
                        .classes
                        .iter()
                        .filter(|(c, _)| c.file == f)
                        .map(|(c, _)| Value::Class(c.clone())),
                );
            }
        }
        out
    }

    /// `buildServices(router, ...classes)`: the routes of each listed
    /// service class (every loaded one when none is listed) on `router`.
    fn ts_rest_build(&mut self, router: Option<&Value>, classes: Vec<Value>) {
        if self.modes.event_mode {
            return;
        }
        let Some(Value::Router(router)) = router.map(|r| self.force_deep(r.clone())) else {
            return;
        };
        let mut listed: Vec<Rc<ClassVal>> = Vec::new();
        for c in classes {
            if let Value::Class(cv) = self.force_deep(c) {
                listed.push(cv);
            }
        }
        if listed.is_empty() {
            self.load_controller_files();
            listed = self.rec.classes.iter().map(|(c, _)| c.clone()).collect();
        }
        let mut done: HashSet<(FileId, u32)> = HashSet::new();
        for cv in listed {
            if done.insert((cv.file, cv.class.line)) {
                self.ts_rest_service(router, &cv);
            }
        }
    }

    /// The package's decorator this is, if it is one.
    fn ts_rest_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<String> {
        match self.decorator_origin(ctx, d) {
            Some((p, n)) if p == PKG => Some(n),
            _ => None,
        }
    }

    /// A `@Path(path)` decorator's path; `None`, with a `dynamic-path`
    /// finding, when it is only known at run time.
    fn ts_rest_path(&mut self, ctx: &Ctx, file: FileId, d: &Decorator) -> Option<String> {
        let v = d.args.first().map(|a| self.eval(ctx, a))?;
        let text = self.force_deep(v).as_text();
        if text.is_none() {
            self.finding(
                FindingCode::DynamicPath,
                file,
                d.line,
                format!(
                    "the path of `@Path({})` is only known at run time: its routes are not charted",
                    d.args.first().map(expr_text).unwrap_or_default()
                ),
            );
        }
        text
    }

    /// The body a service method takes: its first parameter without a
    /// decorator (the package hands it the parsed body), by its type.
    fn ts_rest_entity(
        &mut self,
        cv: &Rc<ClassVal>,
        method: &str,
        f: &Arc<crate::ir::Func>,
        contract: &mut RawContract,
    ) {
        let decorated: HashSet<usize> = cv
            .class
            .param_decorators_of(method)
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        let Some(Some(ty)) = (0..f.param_types.len())
            .find(|i| !decorated.contains(i))
            .map(|i| f.param_types[i].clone())
        else {
            return;
        };
        let schema = self.ts_schema(&cv.env, &ty, 0);
        let label = self.param_type_label(cv, Some(&ty));
        *contract.part_mut(RequestPart::Body) = Some((schema, label, cv.file, f.line));
    }

    /// The routes of one service class.
    fn ts_rest_service(&mut self, router: u32, cv: &Rc<ClassVal>) {
        let ctx = self.class_ctx(cv);
        let c = cv.class.clone();
        let mut base = None;
        for d in &c.decorators {
            match self.ts_rest_decorator(&ctx, d).as_deref() {
                Some("Path") => match self.ts_rest_path(&ctx, cv.file, d) {
                    Some(p) => base = Some(p),
                    None => return,
                },
                Some("Abstract") => return,
                _ => {}
            }
        }
        let class_name = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        for (name, f) in &c.methods {
            let mut verbs: Vec<(&'static str, u32)> = Vec::new();
            let mut sub: Option<String> = None;
            for d in &c.decorators_of(name) {
                match self.ts_rest_decorator(&ctx, d) {
                    Some(n) if n == "Path" => match self.ts_rest_path(&ctx, cv.file, d) {
                        Some(p) => sub = Some(p),
                        None => verbs.clear(),
                    },
                    Some(n) => {
                        if let Some((_, verb)) = VERBS.iter().find(|(v, _)| *v == n) {
                            verbs.push((verb, d.line));
                        }
                    }
                    None => {}
                }
            }
            // A service method needs a verb; a class without `@Path` serves
            // its methods from `/` (the package's path of `''`).
            if verbs.is_empty() {
                continue;
            }
            let full = resolve_path(base.as_deref().unwrap_or(""), sub.as_deref());
            let mut contract = self.nest_request_contract(&ctx, cv, name, f, PKG);
            if contract.part_mut(RequestPart::Body).is_none() {
                self.ts_rest_entity(cv, name, f, &mut contract);
            }
            let method = crate::libs::routing_controllers::DecoratedMethod {
                handler: format!("{class_name}.{name}"),
                base: &full,
                middleware: &[],
                contract: &contract,
            };
            let verbs = verbs
                .into_iter()
                .map(|(v, l)| (v.to_string(), l, None))
                .collect();
            self.push_decorated_routes(router, &ctx, cv, f, verbs, method);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::resolve_path;

    #[test]
    fn paths_join_as_the_package_resolves_them() {
        assert_eq!(resolve_path("/users", Some(":id")), "/users/:id");
        assert_eq!(resolve_path("users/", Some("/all")), "/users/all");
        assert_eq!(resolve_path(" /hello ", None), "/hello");
        assert_eq!(resolve_path("", Some("ping")), "/ping");
        assert_eq!(resolve_path("/", None), "");
    }
}
