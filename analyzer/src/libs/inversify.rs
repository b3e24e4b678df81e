//! inversify-express-utils on Express: decorated controller classes served
//! by `new InversifyExpressServer(container, customRouter?, routingConfig?,
//! customApp?)` when its `build()` runs.
//!
//! Captures: `@controller(path, ...middleware)` classes; their methods'
//! `@httpGet/httpPost/httpPut/httpPatch/httpDelete/httpHead/httpOptions/all(path,
//! ...middleware)` and `@httpMethod('verb', path, ...middleware)`;
//! `routingConfig.rootPath` (default `/`); `setConfig(app => …)` (run on the
//! app before the controllers' routes) and `setErrorConfig(app => …)` (after
//! them); `@requestParam('id')`, `@queryParam('q')`, `@requestBody()` and
//! `@requestHeaders('x')` with their TypeScript types as the request's
//! contract. Each operation is sited at its verb decorator; a controller's
//! routes go on the server's router (a new one, or `customRouter`), mounted
//! at `rootPath` on the app (a new one, or `customApp`), as the library does.
//!
//! Which controllers: `@controller` records the class in global metadata when
//! its module loads, and `build()` serves every class recorded so far. So
//! the controllers are those declared in the modules the program that
//! builds the server loads: the import closure of the program roots above
//! the file calling `new InversifyExpressServer` (what its process imports,
//! also by a `require` inside a function, such as a container module's
//! registry callback), test files left out.
//!
//! Example: `@controller('/v1/items') class Items { @httpGet('/:id') one() {} }`
//! with `new InversifyExpressServer(c, null, { rootPath: '/api' }).build()`
//! is `GET /api/v1/items/:id`.
//!
//! Deliberately not captured: controllers bound in the container by hand
//! without `@controller` (the deprecated `TYPE.Controller` bindings),
//! `BaseMiddleware` classes resolved from the container (named by their
//! identifier), the auth provider, `@principal()` and `@cookies()`.

use crate::libs::nest::guard_name;
use crate::machine::*;
use crate::paths;
use std::collections::BTreeSet;

const PKG: &str = "inversify-express-utils";

/// A member of the package that makes an app (`InversifyExpressServer`); its
/// decorators are named by their callee.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == PKG && prop == "InversifyExpressServer")
        .then(|| Value::Builtin(Builtin::Framework(Rc::from(prop))))
}

/// One `new InversifyExpressServer(...)`: what `build()` needs.
#[derive(Clone)]
pub(crate) struct InversifyServer {
    /// The app `build()` returns.
    app: u32,
    /// The router the controllers' routes go on.
    router: u32,
    /// `routingConfig.rootPath`.
    root_path: String,
    /// `setConfig(fn)`.
    config: Option<Value>,
    /// `setErrorConfig(fn)`.
    error_config: Option<Value>,
    /// The file that creates it (its program's controllers are served).
    file: FileId,
    /// `build()` already ran (its routes are registered once).
    built: bool,
}

/// The verb an inversify-express-utils method decorator stands for.
fn verb_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "httpGet" => "get",
        "httpPost" => "post",
        "httpPut" => "put",
        "httpPatch" => "patch",
        "httpDelete" => "delete",
        "httpHead" => "head",
        "httpOptions" => "options",
        "all" => "all",
        _ => return None,
    })
}

/// `mergePaths(controller, method)`: each part gets a leading `/` and loses
/// a trailing one (`'/'` becomes empty), then they are concatenated.
fn merge_paths(parts: &[&str]) -> String {
    let mut out = String::new();
    for p in parts {
        let mut s = if p.starts_with('/') || p.starts_with('.') {
            p.to_string()
        } else {
            format!("/{p}")
        };
        if p.ends_with('/') {
            s.pop();
        }
        out.push_str(&s);
    }
    out
}

impl Interp {
    /// `new InversifyExpressServer(container, customRouter?, routingConfig?, customApp?)`.
    pub(crate) fn inversify_server(&mut self, ctx: &Ctx, argv: &[Value], line: u32) -> Value {
        let arg = |i: usize| argv.get(i).cloned().unwrap_or(Value::Undef);
        let router = match self.force_deep(arg(1)) {
            Value::Router(id) => id,
            _ => match self.new_router(ctx.file, line, false) {
                Value::Router(id) => id,
                _ => return Value::dynamic(),
            },
        };
        let app = match self.force_deep(arg(3)) {
            Value::Router(id) => id,
            _ => match self.new_router(ctx.file, line, true) {
                Value::Router(id) => id,
                _ => return Value::dynamic(),
            },
        };
        let root_path = match self.force_deep(arg(2)) {
            Value::Obj(o) => self.path_option(
                ctx,
                line,
                &o,
                "rootPath",
                "the `rootPath` of `new InversifyExpressServer(...)`",
            ),
            _ => None,
        }
        .unwrap_or_else(|| String::from("/"));
        self.libs.inversify_servers.push(InversifyServer {
            app,
            router,
            root_path,
            config: None,
            error_config: None,
            file: ctx.file,
            built: false,
        });
        Value::Builtin(Builtin::InversifyServer(
            self.libs.inversify_servers.len() as u32 - 1,
        ))
    }

    /// `server.setConfig(fn)`, `server.setErrorConfig(fn)`, `server.build()`.
    pub(crate) fn inversify_method(
        &mut self,
        ctx: &Ctx,
        id: u32,
        name: &str,
        call: &Call,
    ) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        let this = Value::Builtin(Builtin::InversifyServer(id));
        let Some(server) = self.libs.inversify_servers.get(id as usize).cloned() else {
            return Value::dynamic();
        };
        match name {
            "setConfig" | "setErrorConfig" => {
                let slot = &mut self.libs.inversify_servers[id as usize];
                let f = argv.into_iter().next();
                if name == "setConfig" {
                    slot.config = f;
                } else {
                    slot.error_config = f;
                }
                this
            }
            "build" => {
                let app = Value::Router(server.app);
                // (Looking for events, the routes are not registered again.)
                if server.built || self.modes.event_mode {
                    return app;
                }
                self.libs.inversify_servers[id as usize].built = true;
                if let Some(f) = &server.config {
                    self.call_value_now(ctx, f, vec![app.clone()], &[], call.line, None);
                }
                self.inversify_register(ctx, &server, call.line);
                if let Some(f) = &server.error_config {
                    self.call_value_now(ctx, f, vec![app.clone()], &[], call.line, None);
                }
                app
            }
            _ => Value::dynamic(),
        }
    }

    /// The controllers' routes on the server's router, and the router mounted
    /// at `rootPath` on the app.
    fn inversify_register(&mut self, ctx: &Ctx, server: &InversifyServer, line: u32) {
        let files = self.inversify_program_files(server.file);
        for &f in &files {
            if self.loader.needles_of(f) & needle::CONTROLLER != 0 {
                self.run_module(f);
            }
        }
        let classes: Vec<Rc<ClassVal>> = self
            .rec
            .classes
            .iter()
            .map(|(c, _)| c.clone())
            .filter(|c| files.contains(&c.file))
            .collect();
        let mut done: HashSet<(FileId, u32)> = HashSet::new();
        for cv in classes {
            if done.insert((cv.file, cv.class.line)) {
                self.register_inversify_controller(server.router, &cv);
            }
        }
        self.rec.routers[server.router as usize].mounted = true;
        self.push_reg(
            server.app,
            RegKind::Use {
                paths: vec![PathArg::Str(server.root_path.clone())],
                handlers: vec![UseHandler::Router(server.router)],
            },
            ctx.file,
            line,
            None,
            None,
        );
    }

    /// The files of the program that creates the server at `file`: the
    /// import closure of the roots above it (the files nobody imports that
    /// import it), or of the file itself when nobody imports it. Imports
    /// inside functions count (`new AsyncContainerModule(async () => {
    /// await require('./controllers/x') })`): the program loads them when
    /// they run.
    fn inversify_program_files(&mut self, file: FileId) -> BTreeSet<FileId> {
        let project = &self.loader.project;
        let mut frontier: Vec<FileId> = crate::entries::import_roots(&self.loader, file, false)
            .into_iter()
            .map(|(root, _)| root)
            .collect();
        frontier.push(file);
        let mut seen: BTreeSet<FileId> = frontier.iter().copied().collect();
        while let Some(f) = frontier.pop() {
            let facts = self.loader.get(f).facts.clone();
            let specs = facts
                .named_modules()
                .chain(facts.eager.iter().map(String::as_str));
            for spec in specs {
                if let crate::project::Resolved::File(t) = project.resolve(f, spec)
                    && !crate::is_test_path(project.rel(t))
                    && seen.insert(t)
                {
                    frontier.push(t);
                }
            }
        }
        seen
    }

    /// The inversify-express-utils decorator this is, if it is one.
    fn inversify_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<String> {
        match self.decorator_origin(ctx, d) {
            Some((p, n)) if p == PKG => Some(n),
            _ => None,
        }
    }

    fn register_inversify_controller(&mut self, router: u32, cv: &Rc<ClassVal>) {
        let ctx = self.class_ctx(cv);
        let c = cv.class.clone();
        let mut base = None;
        let mut class_mw: Vec<String> = Vec::new();
        for d in &c.decorators {
            if self.inversify_decorator(&ctx, d).as_deref() != Some("controller") {
                continue;
            }
            let path = d.args.first().map(|a| {
                let v = self.eval(&ctx, a);
                self.force_deep(v)
            });
            match path.as_ref().and_then(Value::as_text) {
                Some(p) => base = Some(p),
                None => {
                    self.finding(
                        FindingCode::DynamicPath,
                        cv.file,
                        d.line,
                        "the path of this controller is only known at run time".into(),
                    );
                    return;
                }
            }
            class_mw.extend(d.args.iter().skip(1).map(guard_name));
        }
        let Some(base) = base else {
            return;
        };
        let class_name = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        for (name, f) in &c.methods {
            let decs: Vec<Decorator> = c.decorators_of(name);
            let mut verbs: Vec<(String, u32, Option<Expr>, Vec<String>)> = Vec::new();
            for d in &decs {
                let Some(n) = self.inversify_decorator(&ctx, d) else {
                    continue;
                };
                if let Some(verb) = verb_of(&n) {
                    let mw = d.args.iter().skip(1).map(guard_name).collect();
                    verbs.push((verb.to_string(), d.line, d.args.first().cloned(), mw));
                } else if n == "httpMethod" {
                    let m = d.args.first().map(|a| self.eval(&ctx, a));
                    if let Some(m) = m.and_then(|m| self.force_deep(m).as_text()) {
                        let mw = d.args.iter().skip(2).map(guard_name).collect();
                        verbs.push((m.to_ascii_lowercase(), d.line, d.args.get(1).cloned(), mw));
                    }
                }
            }
            if verbs.is_empty() {
                continue;
            }
            let contract = self.nest_request_contract(&ctx, cv, name, f, PKG);
            for (verb, line, path, mw) in verbs {
                let value = path.as_ref().map(|p| {
                    let v = self.eval(&ctx, p);
                    self.force_deep(v)
                });
                let Some(text) = value.as_ref().and_then(Value::as_text) else {
                    let text = path.as_ref().map(expr_text).unwrap_or_default();
                    self.finding(
                        FindingCode::DynamicPath,
                        cv.file,
                        line,
                        format!("the path of `@{verb}({text})` is only known at run time"),
                    );
                    continue;
                };
                let full = paths::join("/", &merge_paths(&[&base, &text]));
                // (`paths::join` gives an empty merge Express's `/`.)
                let mut middleware = class_mw.clone();
                middleware.extend(mw);
                let route = crate::libs::nest::ControllerRoute {
                    method: verb,
                    paths: vec![PathArg::Str(full)],
                    middleware,
                    handler: format!("{class_name}.{name}"),
                    contract: Rc::new(RefCell::new(contract.clone())),
                    line,
                };
                self.push_controller_route(router, cv, f, route);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::merge_paths;

    #[test]
    fn paths_merge_as_the_library_does() {
        assert_eq!(merge_paths(&["/v1/items", "/"]), "/v1/items");
        assert_eq!(merge_paths(&["items", ":id"]), "/items/:id");
        assert_eq!(merge_paths(&["/", "/health"]), "/health");
    }
}
