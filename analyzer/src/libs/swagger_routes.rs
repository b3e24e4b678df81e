//! `swagger-routes-express`: the operations of an OpenAPI 3 or Swagger 2
//! document, each answered by the function of an `api` object its
//! `operationId` names.
//!
//! Captures: `connector(api, apiDefinition, options)`, which reads the
//! document, and the function it returns, called with the app
//! (`connect(app)`), which registers each operation on it as the library
//! does: for every path, each of `get`, `post`, `patch`, `put`, `delete`,
//! `head` the document states, at
//! - OpenAPI 3: the path under the first `servers[].url` that is a path
//!   (starts with `/`; absolute URLs are skipped), the operation's own
//!   `servers` first, `{name}` replaced by `options.variables.name`, one
//!   trailing `/` dropped;
//! - Swagger 2: the path under `basePath`, except for an operation whose
//!   first tag is `options.rootTag` (default `root`);
//!
//! `{id}` as `:id`, answered by `api[operationId]` (its `/`s replaced by
//! `options.apiSeparator`, default `_`): a function, or the last of an array
//! of functions. Each operation is sited at that function, with the
//! document's contract (see `oas3.rs`). `apiDefinition` is an object (a
//! JSON module, or a document a YAML loader read) or the path of a document.
//!
//! Example: `connector(api, { openapi: '3.0.0', servers: [{ url: '/v1' }],
//! paths: { '/pets/{id}': { get: { operationId: 'getPet' } } } })(app)` is
//! `GET /v1/pets/:id`, answered by `api.getPet`.
//!
//! Findings (`package-router`, at the `connector` call): a document that
//! cannot be read or is neither Swagger 2 nor OpenAPI 3 (the library
//! throws), and an operation without an `operationId` or whose handler is
//! not a function of `api` (the library answers it with its `notFound` or
//! `notImplemented` handler).
//!
//! Deliberately not captured: `options.security` and `options.middleware`
//! (`x-middleware`), `onCreateRoute`, `$ref`s to other files.

use super::oas3::{self, Kind, Node};
use crate::machine::*;

const PKG: &str = "swagger-routes-express";

/// The name of the function `connector(...)` returns, with its router.
const CONNECT: &str = "swagger-routes-express.connect:";

/// The methods the library registers, in its order.
const METHODS: [&str; 6] = ["get", "post", "patch", "put", "delete", "head"];

/// A member of the package's module object.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == PKG && prop == "connector").then(|| {
        Value::Builtin(Builtin::Framework(Rc::from(
            "swagger-routes-express.connector",
        )))
    })
}

/// `substituteVariables`: `{name}` replaced by each variable's text.
fn substitute(url: &str, variables: &[(String, String)]) -> String {
    let mut out = url.to_string();
    for (k, v) in variables {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// `basePath(servers)`: the first server URL that is a path, with the
/// variables substituted; `None` when `servers` is not a list.
fn v3_base(servers: Option<&Node>, variables: &[(String, String)]) -> Option<String> {
    let Kind::Seq(servers) = &servers?.kind else {
        return None;
    };
    Some(
        servers
            .iter()
            .filter_map(|s| s.get("url")?.text())
            .find(|u| u.starts_with('/'))
            .map(|u| substitute(u, variables))
            .unwrap_or_default(),
    )
}

/// The options the routes depend on.
struct Options {
    separator: String,
    root_tag: String,
    variables: Vec<(String, String)>,
}

/// One route the library registers: method, Express path, operation id,
/// the operation and its path item, and the operation's line.
struct Route<'a> {
    method: &'static str,
    path: String,
    id: Option<String>,
    item: &'a Node,
    op: &'a Node,
}

/// `extractPaths`: the routes of the document, in its order; `Err` when it is
/// neither Swagger 2 nor OpenAPI 3.
fn routes<'a>(doc: &'a Node, o: &Options) -> Result<Vec<Route<'a>>, String> {
    let major = |k: &str| {
        doc.get(k)
            .and_then(Node::text)
            .map(|v| v.trim_start_matches(|c: char| !c.is_ascii_digit()))
            .map(|v| v.split('.').next().unwrap_or_default().to_string())
    };
    let v2 = major("swagger").as_deref() == Some("2");
    if !v2 && major("openapi").as_deref() != Some("3") {
        return Err("states neither `swagger: 2` nor `openapi: 3`".into());
    }
    let default_base = v3_base(doc.get("servers"), &o.variables);
    let base_path = doc
        .get("basePath")
        .and_then(Node::text)
        .unwrap_or("undefined");
    let mut out = Vec::new();
    let Some(Kind::Map(paths)) = doc.get("paths").map(|p| &p.kind) else {
        return Ok(out);
    };
    for (path, item) in paths {
        for method in METHODS {
            let Some(op) = item.get(method) else {
                continue;
            };
            let base = if v2 {
                let root = match op.get("tags").map(|t| &t.kind) {
                    Some(Kind::Seq(tags)) => tags.first().and_then(Node::text) == Some(&o.root_tag),
                    _ => false,
                };
                if root {
                    String::new()
                } else {
                    base_path.to_string()
                }
            } else {
                let base = match op.get("servers") {
                    Some(s) => v3_base(Some(s), &o.variables),
                    None => default_base.clone(),
                }
                .unwrap_or_default();
                base.strip_suffix('/').map(str::to_string).unwrap_or(base)
            };
            out.push(Route {
                method,
                path: oas3::express_params(&format!("{base}{path}")),
                id: op
                    .get("operationId")
                    .and_then(Node::text)
                    .map(|id| id.replace('/', &o.separator)),
                item,
                op,
            });
        }
    }
    Ok(out)
}

impl Interp {
    /// `connector(api, apiDefinition, options)`: a function registering the
    /// document's operations on the app it is given.
    pub(crate) fn swagger_routes_connector(
        &mut self,
        ctx: &Ctx,
        argv: &[Value],
        line: u32,
    ) -> Value {
        let Value::Router(router) = self.new_router(ctx.file, line, false) else {
            return Value::external();
        };
        if !self.modes.event_mode {
            self.swagger_routes_register(ctx, argv, router, line);
        }
        crate::libs::indexed(CONNECT, router)
    }

    /// `connect(app)`: the routes on the app (as a router mounted at `/`).
    pub(crate) fn swagger_routes_connect(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        let router: u32 = crate::libs::index_in(name, CONNECT)?;
        self.mount_router_on(ctx, router, argv.first(), line);
        Some(Value::Undef)
    }

    /// A library's function given the app (`connect(app)`,
    /// `register(app)`): `router`'s routes on the app, as a router mounted
    /// at `/`.
    pub(super) fn mount_router_on(
        &mut self,
        ctx: &Ctx,
        router: u32,
        app: Option<&Value>,
        line: u32,
    ) {
        if let Some(Value::Router(app)) = app.map(|a| self.force_deep(a.clone())) {
            self.rec.routers[router as usize].mounted = true;
            self.push_reg(
                app,
                RegKind::Use {
                    paths: vec![PathArg::Str("/".into())],
                    handlers: vec![UseHandler::Router(router)],
                },
                ctx.file,
                line,
                None,
                None,
            );
        }
    }

    fn swagger_routes_register(&mut self, ctx: &Ctx, argv: &[Value], router: u32, line: u32) {
        let say = |me: &mut Self, why: String| {
            me.finding(FindingCode::PackageRouter, ctx.file, line, why);
        };
        // (A document given as an object has no lines of its own.)
        let from_file = argv.get(1).is_some_and(|v| v.as_text().is_some());
        let doc = match self.document_of(argv.get(1).cloned()) {
            Ok(d) => d,
            Err(why) => {
                return say(
                    self,
                    format!(
                        "the API definition given to `connector` {why}: its operations are not charted"
                    ),
                );
            }
        };
        let options = self.swagger_routes_options(argv.get(2));
        let routes = match routes(&doc, &options) {
            Ok(r) => r,
            Err(why) => {
                return say(
                    self,
                    format!(
                        "the API definition given to `connector` {why} (the library throws): its operations are not charted"
                    ),
                );
            }
        };
        let api = argv.first().map(|a| self.force_deep(a.clone()));
        let mut missing = Vec::new();
        for r in routes {
            let mut what = format!("`{} {}`", r.method.to_ascii_uppercase(), r.path);
            if from_file {
                what.push_str(&format!(" (line {})", r.op.line));
            }
            let Some(id) = &r.id else {
                missing.push(format!("{what} has no `operationId`"));
                continue;
            };
            let handler = match &api {
                Some(api) => {
                    let v = self.member(api, id);
                    match self.force_deep(v) {
                        Value::Arr(items) => {
                            let last = items.borrow().last().cloned();
                            last.map(|v| self.force_deep(v)).unwrap_or(Value::Undef)
                        }
                        v => v,
                    }
                }
                None => Value::Undef,
            };
            if !matches!(handler, Value::Func(_)) {
                missing.push(format!("no function `api.{id}` answers {what}"));
                continue;
            }
            let stated = oas3::stated(&doc, r.item, r.op);
            self.push_operation(
                router,
                r.method,
                r.path.clone(),
                id,
                &handler,
                &stated,
                true,
            );
        }
        if !missing.is_empty() {
            say(
                self,
                format!(
                    "{}: the library answers them with its `notFound`/`notImplemented` handler, they are not charted",
                    missing.join("; ")
                ),
            );
        }
    }

    /// `apiSeparator`, `rootTag` and `variables` of the options.
    fn swagger_routes_options(&mut self, v: Option<&Value>) -> Options {
        let mut o = Options {
            separator: "_".into(),
            root_tag: "root".into(),
            variables: Vec::new(),
        };
        let Some(Value::Obj(opts)) = v.map(|v| self.force_deep(v.clone())) else {
            return o;
        };
        let text = |me: &mut Self, k: &str| opts.get(k).and_then(|v| me.force_deep(v).as_text());
        if let Some(s) = text(self, "apiSeparator") {
            o.separator = s.to_string();
        }
        if let Some(s) = text(self, "rootTag") {
            o.root_tag = s.to_string();
        }
        if let Some(Value::Obj(vars)) = opts.get("variables").map(|v| self.force_deep(v)) {
            let props: Vec<(String, Value)> = vars
                .props
                .borrow()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            for (k, v) in props {
                if let Some(t) = self.force_deep(v).as_text() {
                    o.variables.push((k, t.to_string()));
                }
            }
        }
        o
    }
}
