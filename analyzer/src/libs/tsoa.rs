//! tsoa on Express: decorated controller classes whose routes tsoa's
//! generator writes into a `routes.ts` that `RegisterRoutes(app)` registers.
//!
//! Captures: `RegisterRoutes` imported from the generated file when that
//! file is not in the repository (it is build output, usually ignored), in a
//! project that depends on `tsoa` or `@tsoa/runtime`: calling it on an app or
//! router registers, as the generated code would, every `@Route(path)` class
//! of the controller files (tsoa.json's `controllerPathGlobs`, else every
//! file with a `@Route` class): for each method's
//! `@Get/@Post/@Put/@Patch/@Delete/@Head/@Options(path?)`, the path
//! `routes.basePath` + the class's path + the method's path, with tsoa's
//! `{id}` parameters written as Express's `:id`; `@Security(...)` on the
//! class or method as a guard (401); `@Middlewares(...)` as middleware;
//! `@SuccessResponse(status)` and `@Response(status)` as responses;
//! `@Body()` (the parameter's type as the body's schema), `@Query(name?)`,
//! `@Path(name?)` and `@Header(name?)` (named by the decorator or the
//! parameter) as request fields. Each operation is sited at its verb
//! decorator. A generated file that is in the repository is run as any
//! module (it calls `app.get(...)` itself).
//!
//! Example: tsoa.json `{"routes": {"basePath": "/api"}}` and
//! `@Route('users') class UsersController { @Get('{userId}') one() {} }` is
//! `GET /api/users/:userId`.
//!
//! Deliberately not captured: tsoa's Koa and Hapi templates, `@Hidden`
//! (hidden from tsoa's spec, still served: charted), controllers reached
//! only through `entryFile` when `controllerPathGlobs` is absent (every
//! `@Route` class of the project is taken instead).

use crate::libs::nest::{ControllerRoute, guard_name, verb_of};
use crate::libs::schemas::{PartFields, SchemaLabel, SchemaSource};
use crate::machine::*;
use crate::paths;
use serde_json::json;

/// The packages tsoa's decorators come from.
const PKGS: &[&str] = &["tsoa", "@tsoa/runtime"];

/// What a tsoa.json says about the generated routes.
#[derive(Default)]
struct Config {
    /// `routes.basePath` (tsoa's default: `/`).
    base_path: String,
    /// `controllerPathGlobs`, relative to the project root.
    globs: Vec<String>,
    /// Where it was read, for findings.
    at: Option<String>,
}

/// tsoa's `{name}` path parameters as Express's `:name`.
fn express_path(p: &str) -> String {
    let mut out = String::new();
    let mut rest = p;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        match rest[i..].find('}') {
            Some(j) => {
                out.push(':');
                out.push_str(&rest[i + 1..i + j]);
                rest = &rest[i + j + 1..];
            }
            None => {
                rest = &rest[i..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

impl Interp {
    /// Whether a package of the project depends on tsoa.
    fn uses_tsoa(&self) -> bool {
        self.loader.project.packages.iter().any(|p| {
            ["dependencies", "devDependencies", "peerDependencies"]
                .iter()
                .filter_map(|k| p.json.get(k).and_then(|d| d.as_object()))
                .any(|deps| PKGS.iter().any(|n| deps.contains_key(*n)))
        })
    }

    /// The value of `name` imported from a specifier with no file behind it:
    /// tsoa's `RegisterRoutes` when the project uses tsoa (the generated
    /// routes file is build output).
    pub(crate) fn tsoa_generated_import(&self, name: &str) -> Option<Value> {
        (name == "RegisterRoutes" && self.uses_tsoa())
            .then(|| Value::Builtin(Builtin::Framework(Rc::from("tsoa.RegisterRoutes"))))
    }

    /// The first tsoa.json at the root or in a package folder.
    fn tsoa_config(&self) -> Config {
        let project = &self.loader.project;
        let mut dirs: Vec<&str> = vec![""];
        dirs.extend(project.packages.iter().map(|p| p.dir.as_str()));
        for dir in dirs {
            let rel = if dir.is_empty() {
                "tsoa.json".to_string()
            } else {
                format!("{dir}/tsoa.json")
            };
            let Ok(bytes) = std::fs::read(project.root.join(&rel)) else {
                continue;
            };
            let Ok(j) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
                continue;
            };
            let base_path = j
                .pointer("/routes/basePath")
                .and_then(|v| v.as_str())
                .unwrap_or("/")
                .to_string();
            let globs = j
                .get("controllerPathGlobs")
                .and_then(|g| g.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|g| g.as_str())
                        .map(|g| {
                            let g = g.trim_start_matches("./");
                            if dir.is_empty() {
                                g.to_string()
                            } else {
                                format!("{dir}/{g}")
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            return Config {
                base_path,
                globs,
                at: Some(rel),
            };
        }
        Config {
            base_path: "/".into(),
            ..Config::default()
        }
    }

    /// `RegisterRoutes(app)`: every tsoa controller, as the generated code registers it.
    pub(crate) fn tsoa_register_routes(&mut self, ctx: &Ctx, argv: &[Value], line: u32) -> Value {
        let router = match argv.first().map(|v| self.force_deep(v.clone())) {
            Some(Value::Router(id)) => id,
            _ => return Value::Undef,
        };
        let config = self.tsoa_config();
        let project = self.loader.project.clone();
        let files: Vec<FileId> = (0..project.files.len() as FileId)
            .filter(|&f| {
                let rel = project.rel(f);
                self.loader.needles_of(f) & needle::CONTROLLER != 0
                    && !crate::is_test_path(rel)
                    && (config.globs.is_empty()
                        || config
                            .globs
                            .iter()
                            .any(|g| crate::libs::routing_controllers::glob_match(g, rel)))
            })
            .collect();
        for &f in &files {
            self.run_module(f);
        }
        let classes = self.rec.classes_in(&files);
        let mut done: HashSet<(FileId, u32)> = HashSet::new();
        let mut charted = 0;
        for cv in classes {
            if done.insert((cv.file, cv.class.line)) {
                charted += self.register_tsoa_controller(router, &config.base_path, &cv);
            }
        }
        if charted == 0 {
            let from = config
                .at
                .as_deref()
                .map_or(String::new(), |a| format!(" (controllers from {a})"));
            self.finding(
                FindingCode::DynamicMount,
                ctx.file,
                line,
                format!("`RegisterRoutes` comes from tsoa's generated routes file, which is not in the repository, and no `@Route` controller was found{from}"),
            );
        }
        Value::Undef
    }

    /// The tsoa decorator this is, if it is one.
    fn tsoa_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<String> {
        match self.decorator_origin(ctx, d) {
            Some((p, n)) if PKGS.contains(&p.as_str()) => Some(n),
            _ => None,
        }
    }

    /// A text argument of a decorator, if it is one.
    fn decorator_text(&mut self, ctx: &Ctx, e: Option<&Expr>) -> Option<String> {
        let v = self.eval(ctx, e?);
        self.force_deep(v).as_text()
    }

    /// A status argument of a decorator (`201`, `'201'`), if it is one.
    fn decorator_status(&mut self, ctx: &Ctx, e: Option<&Expr>) -> Option<u16> {
        let e = e?;
        let v = self.eval(ctx, e);
        match self.force_deep(v) {
            Value::Num(n) if (100.0..600.0).contains(&n) => Some(n as u16),
            Value::Str(s) => s.parse().ok().filter(|n| (100..600).contains(n)),
            _ => None,
        }
    }

    /// `@Security(...)`: tsoa's generated code answers 401 when the
    /// authentication module refuses.
    fn tsoa_security(&mut self, ctx: &Ctx, d: &Decorator, file: FileId) -> String {
        // `@Security('jwt')`; `@Security({ jwt: [], api_key: [] })` (every
        // scheme named) is `jwt+api_key`.
        let scheme = match d.args.first() {
            Some(Expr::Object(props)) => props
                .iter()
                .filter_map(|p| match p {
                    crate::ir::ObjProp::KeyValue(crate::ir::PropKey::Name(n), _) => {
                        Some(n.as_str())
                    }
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("+"),
            first => self
                .decorator_text(ctx, first)
                .unwrap_or_else(|| first.map(expr_text).unwrap_or_default()),
        };
        self.decorator_guard(format!("Security({scheme})"), file, d.line)
    }

    /// Registers one `@Route` class's methods; returns how many operations.
    fn register_tsoa_controller(&mut self, router: u32, base: &str, cv: &Rc<ClassVal>) -> usize {
        let ctx = self.class_ctx(cv);
        let c = cv.class.clone();
        let mut route = None;
        let mut class_mw: Vec<String> = Vec::new();
        for d in &c.decorators {
            match self.tsoa_decorator(&ctx, d).as_deref() {
                Some("Route") => {
                    route = match d.args.first() {
                        None => Some(String::new()),
                        Some(_) => self.decorator_text(&ctx, d.args.first()),
                    };
                    if route.is_none() {
                        self.finding(
                            FindingCode::DynamicPath,
                            cv.file,
                            d.line,
                            "the path of this tsoa controller is only known at run time".into(),
                        );
                        return 0;
                    }
                }
                Some("Security") => class_mw.push(self.tsoa_security(&ctx, d, cv.file)),
                Some("Middlewares") => class_mw.extend(d.args.iter().map(guard_name)),
                _ => {}
            }
        }
        let Some(route) = route else {
            return 0;
        };
        let prefix = paths::join(base, &express_path(&route));
        let class_name = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        let mut charted = 0;
        for (name, f) in &c.methods {
            let mut verbs: Vec<(&'static str, u32, Option<Expr>)> = Vec::new();
            let mut statuses: Vec<(u16, u32)> = Vec::new();
            let mut mw = class_mw.clone();
            for d in c.decorators_of(name) {
                let Some(n) = self.tsoa_decorator(&ctx, &d) else {
                    continue;
                };
                match n.as_str() {
                    "Get" | "Post" | "Put" | "Patch" | "Delete" | "Head" | "Options" => {
                        if let Some(v) = verb_of(&n) {
                            verbs.push((v, d.line, d.args.first().cloned()));
                        }
                    }
                    "SuccessResponse" | "Response" => {
                        if let Some(s) = self.decorator_status(&ctx, d.args.first()) {
                            statuses.push((s, d.line));
                        }
                    }
                    "Security" => mw.push(self.tsoa_security(&ctx, &d, cv.file)),
                    "Middlewares" => mw.extend(d.args.iter().map(guard_name)),
                    _ => {}
                }
            }
            if verbs.is_empty() {
                continue;
            }
            let contract = self.tsoa_request_contract(&ctx, cv, name, f);
            for (verb, line, path) in verbs {
                let own = match &path {
                    None => String::new(),
                    Some(p) => match self.decorator_text(&ctx, Some(p)) {
                        Some(t) => t,
                        None => {
                            self.finding(
                                FindingCode::DynamicPath,
                                cv.file,
                                line,
                                format!(
                                    "the path of `@{}({})` is only known at run time",
                                    verb,
                                    expr_text(p)
                                ),
                            );
                            continue;
                        }
                    },
                };
                let contract = Rc::new(RefCell::new(contract.with_statuses(&statuses, cv.file)));
                let route = ControllerRoute {
                    method: verb.to_string(),
                    paths: vec![PathArg::Str(paths::join(&prefix, &express_path(&own)))],
                    middleware: mw.clone(),
                    handler: format!("{class_name}.{name}"),
                    contract,
                    line,
                };
                self.push_controller_route(router, cv, f, route);
                charted += 1;
            }
        }
        charted
    }

    /// The request a tsoa method states with its parameter decorators.
    fn tsoa_request_contract(
        &mut self,
        ctx: &Ctx,
        cv: &Rc<ClassVal>,
        method: &str,
        f: &Arc<crate::ir::Func>,
    ) -> RawContract {
        let mut contract = RawContract::default();
        let mut parts = PartFields::default();
        for (i, d) in cv.class.param_decorators_of(method) {
            let Some(n) = self.tsoa_decorator(ctx, &d) else {
                continue;
            };
            let part = match n.as_str() {
                "Body" => RequestPart::Body,
                "Query" => RequestPart::Query,
                "Path" => RequestPart::Params,
                "Header" => RequestPart::Headers,
                _ => continue,
            };
            let ty = f.param_types.get(i).cloned().flatten();
            let schema = match &ty {
                Some(t) => self.ts_schema(&cv.env, t, 0),
                None => json!({}),
            };
            if part == RequestPart::Body {
                let label = match &ty {
                    Some(TypeExpr::Ref(n, _)) => SchemaLabel::new(SchemaSource::TypeScript, n),
                    _ => SchemaLabel::new(SchemaSource::TypeScript, ""),
                };
                contract.body = Some((schema, label, cv.file, d.line));
                continue;
            }
            // Named by the decorator, else by the parameter.
            let key = self
                .decorator_text(ctx, d.args.first())
                .or_else(|| match f.params.get(i) {
                    Some(Pattern::Ident(n)) => Some(n.clone()),
                    Some(Pattern::Default(p, _)) => match p.as_ref() {
                        Pattern::Ident(n) => Some(n.clone()),
                        _ => None,
                    },
                    _ => None,
                });
            let Some(key) = key else { continue };
            if part == RequestPart::Headers {
                contract.headers_read.insert(key.to_ascii_lowercase());
                continue;
            }
            parts.add(part, &key, schema, part == RequestPart::Params);
        }
        for (part, o) in parts.into_schemas() {
            let slot = contract.part_mut(part);
            if slot.is_none() {
                *slot = Some((
                    o,
                    SchemaLabel::new(SchemaSource::TypeScript, ""),
                    cv.file,
                    f.line,
                ));
            }
        }
        contract
    }
}

#[cfg(test)]
mod tests {
    use super::express_path;

    #[test]
    fn braces_become_express_parameters() {
        assert_eq!(express_path("{userId}"), "/:userId".trim_start_matches('/'));
        assert_eq!(
            express_path("users/{id}/posts/{postId}"),
            "users/:id/posts/:postId"
        );
        assert_eq!(express_path("plain"), "plain");
        assert_eq!(express_path("broken/{x"), "broken/{x");
    }
}
