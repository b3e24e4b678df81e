//! `express-openapi` (the `openapi-framework` family): an Express app whose
//! routes are a folder of path modules, or the operations of an OpenAPI
//! document answered by named functions.
//!
//! Captures: `initialize({ app, apiDoc, paths?, operations?, routesGlob?,
//! dependencies?, exposeApiDocs?, docsPath? })`, as the library registers
//! on `app`:
//! - `paths`, a folder (or a list of folders and `{ path, module }` items):
//!   each file the glob (`routesGlob`, default `**/*.js`) matches is a
//!   route whose OpenAPI path is its file path without `index.js`/`.js`
//!   (`users/{id}.js` is `/users/{id}`; `users/index.js` is `/users/`); its
//!   module (`default` when it has one; a function is called with the
//!   `dependencies` its parameters name) exports one handler, or array of
//!   handlers, per method (`GET`, `post`, `del`, …);
//! - `operations`, `{ operationId: handler }`: each operation of the
//!   document's `paths` whose `operationId` it names (it replaces a path
//!   module's handler of the same method, as the library merges them).
//!
//! Each route is charted under each base path (`servers[].url`'s path for
//! OpenAPI 3, `basePath` for Swagger 2), `{id}` as `:id`, sited at its
//! handler (the last of an array), with the operation's document as its
//! contract: the handler's `apiDoc` property, else the document's operation
//! (see `oas3.rs` for what is read of it). Unless `exposeApiDocs: false`,
//! `GET <base><docsPath>` (default `/api-docs`) serves the document.
//!
//! `apiDoc` is an object, the path of a YAML or JSON file, or YAML text.
//!
//! Example: `initialize({ app, apiDoc: { basePath: '/v1', paths: {} },
//! paths: './api' })` with `api/users/{id}.js` exporting `GET` is
//! `GET /v1/users/:id` and `GET /v1/api-docs`.
//!
//! Findings (`package-router`, one at the `initialize` call naming each
//! problem): an `app` or `paths` only known at run time, a `paths` folder
//! the repository lacks (the library throws), a document that cannot be
//! read (folder routes are then charted without its base path and
//! contracts; `operations` are not charted), and an operation whose
//! `operationId` no handler answers.
//!
//! Deliberately not captured: `routesIndexFileRegExp` and `pathsIgnore`
//! (regular expressions: the defaults are used), `errorMiddleware`,
//! `securityHandlers` (access), `$ref`s to other files.

use super::oas3::{self, Kind, Node};
use crate::machine::*;

const PKG: &str = "express-openapi";

/// A member of the package's module object (or of its `default`).
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    if pkg != PKG {
        return None;
    }
    match prop {
        "initialize" => Some(Value::Builtin(Builtin::Framework(Rc::from(
            "express-openapi.initialize",
        )))),
        "default" => Some(Value::Builtin(Builtin::OpaqueModule(Rc::from(PKG)))),
        _ => None,
    }
}

/// `METHOD_ALIASES`: the keys of a path module that are methods.
fn method_of(key: &str) -> Option<&'static str> {
    Some(match key {
        "get" | "GET" => "get",
        "put" | "PUT" => "put",
        "post" | "POST" => "post",
        "delete" | "DELETE" | "del" | "DEL" => "delete",
        "options" | "OPTIONS" => "options",
        "head" | "HEAD" => "head",
        "patch" | "PATCH" => "patch",
        _ => return None,
    })
}

/// One route: its OpenAPI path and its handlers by method, in order.
struct Route {
    path: String,
    handlers: Vec<(&'static str, Value)>,
    /// The module's `parameters`, added to the path's.
    parameters: Vec<serde_json::Value>,
}

/// The base paths routes are registered under.
fn base_paths(doc: Option<&Node>) -> Vec<String> {
    match doc {
        Some(d) if d.get("openapi").is_some() => oas3::base_paths(d),
        Some(d) => vec![
            d.get("basePath")
                .and_then(Node::text)
                .unwrap_or_default()
                .trim_end_matches('/')
                .to_string(),
        ],
        None => vec![String::new()],
    }
}

/// `fs-routes`: the route of a file of the folder (`users/index.js` is
/// `/users/`, `a/{id}.js` is `/a/{id}`; the default `(?:index)?\.js$`
/// stripped).
fn file_route(name: &str) -> String {
    let stem = match name.strip_suffix(".js") {
        Some(s) => s.strip_suffix("index").unwrap_or(s),
        None => name,
    };
    format!("/{stem}")
}

impl Interp {
    /// `initialize(args)`: registers the routes on `args.app`.
    pub(crate) fn express_openapi_initialize(
        &mut self,
        ctx: &Ctx,
        argv: &[Value],
        line: u32,
    ) -> Value {
        if !self.modes.event_mode {
            self.express_openapi_register(ctx, argv, line);
        }
        Value::external()
    }

    fn express_openapi_register(&mut self, ctx: &Ctx, argv: &[Value], line: u32) {
        let say = |me: &mut Self, why: String| {
            me.finding(FindingCode::PackageRouter, ctx.file, line, why);
        };
        let Some(Value::Obj(args)) = argv.first().map(|a| self.force_deep(a.clone())) else {
            return say(
                self,
                "the arguments of `express-openapi`'s `initialize(...)` are only known at run time: its routes are not charted".into(),
            );
        };
        let app = args.get("app").map(|v| self.force_deep(v));
        let Some(Value::Router(app)) = app else {
            return say(
                self,
                "the `app` of `express-openapi`'s `initialize(...)` is only known at run time: its routes are not charted".into(),
            );
        };
        // (One finding per call: what went wrong, each part named.)
        let mut problems: Vec<String> = Vec::new();
        let doc = match self.express_openapi_doc(args.get("apiDoc")) {
            Ok(d) => Some(d),
            Err(why) => {
                let lost = match (
                    args.get("paths").is_some(),
                    args.get("operations").is_some(),
                ) {
                    (_, false) => "its routes are charted without its base path and contracts",
                    (false, true) => "the operations its `operations` answer are not charted",
                    (true, true) => {
                        "the operations its `operations` answer are not charted, and its `paths` routes are charted without its base path and contracts"
                    }
                };
                problems.push(format!(
                    "the `apiDoc` of `express-openapi`'s `initialize(...)` {why}: {lost}"
                ));
                None
            }
        };
        let deps = args.get("dependencies").map(|d| self.force_deep(d));
        let mut routes: Vec<Route> = Vec::new();
        if let Some(paths) = args.get("paths").map(|p| self.force_deep(p)) {
            let items = match paths {
                Value::Arr(a) => a.borrow().clone(),
                p => vec![p],
            };
            let glob = args
                .get("routesGlob")
                .and_then(|g| self.force_deep(g).as_text())
                .unwrap_or_else(|| "**/*.js".to_string());
            for item in items {
                match self.force_deep(item) {
                    Value::Obj(o) => {
                        let path = o.get("path").and_then(|p| self.force_deep(p).as_text());
                        let (Some(path), Some(module)) = (path, o.get("module")) else {
                            problems.push(
                                "a `paths` item of `express-openapi`'s `initialize(...)` has a `path` or `module` only known at run time: its routes are not charted".into(),
                            );
                            continue;
                        };
                        let (handlers, parameters) =
                            self.express_openapi_handlers(ctx, &module, deps.as_ref(), line);
                        routes.push(Route {
                            path,
                            handlers,
                            parameters,
                        });
                    }
                    v => match v.as_text().and_then(|p| crate::machine::node::to_rel(&p)) {
                        Some(dir) if self.loader.project.is_dir(&dir) => {
                            for (route, file) in self.express_openapi_folder(&dir, &glob) {
                                let module = self.module_value(file);
                                let (handlers, parameters) =
                                    self.express_openapi_handlers(ctx, &module, deps.as_ref(), line);
                                routes.push(Route {
                                    path: route,
                                    handlers,
                                    parameters,
                                });
                            }
                        }
                        Some(dir) => problems.push(
                            format!("the `paths` folder `{dir}` of `express-openapi`'s `initialize(...)` is not in the repository (the library throws): its routes are not charted"),
                        ),
                        None => problems.push(
                            "a `paths` folder of `express-openapi`'s `initialize(...)` is only known at run time: its routes are not charted".into(),
                        ),
                    },
                }
            }
            routes.sort_by(|a, b| a.path.cmp(&b.path));
        }
        if let (Some(ops), Some(doc)) = (args.get("operations"), &doc) {
            let ops = self.force_deep(ops);
            self.express_openapi_operations(doc, &ops, &mut routes, &mut problems);
        }
        let bases = base_paths(doc.as_ref());
        let empty = Node::empty();
        for route in &routes {
            let doc_item = doc
                .as_ref()
                .and_then(|d| d.get("paths")?.get(&route.path))
                .unwrap_or(&empty);
            // (`pathModule.parameters` joins the path's own.)
            let joined = (!route.parameters.is_empty())
                .then(|| {
                    let mut params = match doc_item.get("parameters") {
                        Some(p) => match oas3::to_json(doc_item, p, 8) {
                            serde_json::Value::Array(a) => a,
                            _ => Vec::new(),
                        },
                        None => Vec::new(),
                    };
                    params.extend(route.parameters.iter().cloned());
                    oas3::parse(&serde_json::json!({ "parameters": params }).to_string()).ok()
                })
                .flatten();
            let item = joined.as_ref().unwrap_or(doc_item);
            let express_path = oas3::express_params(&route.path);
            for (method, handler) in &route.handlers {
                // (An array's last handler answers; its `apiDoc` is the operation's.)
                let last = match handler {
                    Value::Arr(a) => a.borrow().last().cloned().unwrap_or(Value::Undef),
                    h => h.clone(),
                };
                let last = self.force_deep(last);
                let Value::Func(c) = &last else { continue };
                let at = (c.file, c.func.line);
                let own_doc = self.member(&last, "apiDoc");
                let own_doc = crate::libs::schemas::const_json(&self.force_deep(own_doc))
                    .and_then(|j| oas3::parse(&j.to_string()).ok());
                let op = own_doc
                    .as_ref()
                    .or_else(|| doc_item.get(method))
                    .unwrap_or(&empty);
                let contract = oas3::stated(doc.as_ref().unwrap_or(op), item, op).contract(at);
                let funcs = match handler {
                    Value::Arr(a) => a.borrow().clone(),
                    h => vec![h.clone()],
                };
                for base in &bases {
                    let kind = RegKind::Route {
                        method: method.to_string(),
                        paths: vec![PathArg::Str(format!("{base}{express_path}"))],
                        middleware: Vec::new(),
                        handler: Some(HandlerRef {
                            name: c
                                .func
                                .name
                                .clone()
                                .unwrap_or_else(|| method.to_ascii_uppercase()),
                            at: Some(at),
                        }),
                        contract: Rc::new(RefCell::new(contract.clone())),
                        funcs: funcs.clone(),
                        subpaths: false,
                    };
                    self.push_reg(app, kind, at.0, at.1, c.func.doc.clone(), None);
                }
            }
        }
        if !problems.is_empty() {
            say(self, problems.join("; "));
        }
        let expose = args
            .get("exposeApiDocs")
            .map(|v| self.force_deep(v).truthy().unwrap_or(true))
            .unwrap_or(true);
        if expose {
            let docs_path = args
                .get("docsPath")
                .and_then(|v| self.force_deep(v).as_text())
                .unwrap_or_else(|| "/api-docs".to_string());
            for base in &bases {
                let kind = RegKind::Route {
                    method: "get".into(),
                    paths: vec![PathArg::Str(format!("{base}{docs_path}"))],
                    middleware: Vec::new(),
                    handler: Some(HandlerRef {
                        name: "express-openapi api-docs".into(),
                        at: None,
                    }),
                    contract: Rc::new(RefCell::new(RawContract::default())),
                    funcs: Vec::new(),
                    subpaths: false,
                };
                self.push_reg(app, kind, ctx.file, line, None, None);
            }
        }
    }

    /// The document `apiDoc` gives: an object, a file's path (`.yaml`,
    /// `.yml`, `.json`), or YAML text (`handleFilePath`, `handleYaml`).
    fn express_openapi_doc(&mut self, v: Option<Value>) -> Result<Node, String> {
        let v = v.map(|v| self.force_deep(v));
        match v.as_ref().and_then(Value::as_text) {
            Some(t) if ![".yaml", ".yml", ".json"].iter().any(|e| t.ends_with(e)) => {
                oas3::parse(&t)
            }
            _ => self.document_of(v),
        }
    }

    /// The files of folder `dir` that `glob` matches, with their routes,
    /// in the order of their routes.
    fn express_openapi_folder(&self, dir: &str, glob: &str) -> Vec<(String, FileId)> {
        let Some(matcher) = crate::project::glob::Glob::new(glob) else {
            return Vec::new();
        };
        let project = &self.loader.project;
        let mut out: Vec<(String, FileId)> = (0..project.files.len() as FileId)
            .filter_map(|i| {
                let rel = project.rel(i);
                let name = rel.strip_prefix(dir)?.strip_prefix('/')?;
                matcher.is_match(name).then(|| (file_route(name), i))
            })
            .collect();
        out.sort();
        out
    }

    /// A path module's handlers by method (`injectDependencies`: a function
    /// module is called with the `dependencies` its parameters name).
    fn express_openapi_handlers(
        &mut self,
        ctx: &Ctx,
        module: &Value,
        deps: Option<&Value>,
        line: u32,
    ) -> (Vec<(&'static str, Value)>, Vec<serde_json::Value>) {
        let mut module = self.force_deep(module.clone());
        let default = self.member(&module, "default");
        if !matches!(self.force_deep(default.clone()), Value::Undef) && !default.is_unknown() {
            module = self.force_deep(default);
        }
        if let Value::Func(c) = &module {
            let argv: Vec<Value> = c
                .func
                .params
                .iter()
                .map(|p| match (p, deps) {
                    (crate::ir::Pattern::Ident(n), Some(d)) => self.member(d, n),
                    _ => Value::dynamic(),
                })
                .collect();
            let m = module.clone();
            let out = self.call_value_now(ctx, &m, argv, &[], line, None);
            module = self.force_deep(out);
        }
        let keys: Vec<String> = match &module {
            Value::Obj(o) => o.props.borrow().keys().cloned().collect(),
            Value::Module(id) => self.namespace_names(*id, 0).into_iter().collect(),
            _ => Vec::new(),
        };
        let mut out: Vec<(&'static str, Value)> = Vec::new();
        for k in keys {
            let Some(method) = method_of(&k) else {
                continue;
            };
            if out.iter().any(|(m, _)| *m == method) {
                continue;
            }
            let h = self.member(&module, &k);
            out.push((method, self.force_deep(h)));
        }
        let params = self.member(&module, "parameters");
        let params = match crate::libs::schemas::const_json(&self.force_deep(params)) {
            Some(serde_json::Value::Array(a)) => a,
            _ => Vec::new(),
        };
        (out, params)
    }

    /// `operations`: each operation of the document whose `operationId`
    /// names one of its handlers replaces the path's method.
    fn express_openapi_operations(
        &mut self,
        doc: &Node,
        ops: &Value,
        routes: &mut Vec<Route>,
        problems: &mut Vec<String>,
    ) {
        let Some(Kind::Map(paths)) = doc.get("paths").map(|p| &p.kind) else {
            return;
        };
        for (path, item) in paths {
            let Kind::Map(entries) = &item.kind else {
                continue;
            };
            let mut handlers = Vec::new();
            for (key, op) in entries {
                let Some(method) = method_of(key.as_str()) else {
                    continue;
                };
                let Some(id) = op.get("operationId").and_then(Node::text) else {
                    continue;
                };
                let h = self.member(ops, id);
                match self.force_deep(h) {
                    Value::Undef => problems.push(
                        format!("no handler in `operations` answers `{}` (`{} {path}`, line {}): it is not charted", id, method.to_ascii_uppercase(), op.line),
                    ),
                    h => handlers.push((method, h)),
                }
            }
            match routes.iter_mut().find(|r| r.path == *path) {
                Some(r) => {
                    for (m, h) in handlers {
                        r.handlers.retain(|(m2, _)| *m2 != m);
                        r.handlers.push((m, h));
                    }
                }
                None => routes.push(Route {
                    path: path.clone(),
                    handlers,
                    parameters: Vec::new(),
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_routes_follow_fs_routes() {
        assert_eq!(file_route("users/{id}.js"), "/users/{id}");
        assert_eq!(file_route("users/index.js"), "/users/");
        assert_eq!(file_route("index.js"), "/");
    }

    #[test]
    fn swagger_two_base_path_is_used() {
        let doc = oas3::parse("swagger: '2.0'\nbasePath: /v1/\npaths: {}\n").unwrap();
        assert_eq!(base_paths(Some(&doc)), vec!["/v1".to_string()]);
    }

    #[test]
    fn method_aliases_include_del() {
        assert_eq!(method_of("DEL"), Some("delete"));
        assert_eq!(method_of("apiDoc"), None);
    }
}
