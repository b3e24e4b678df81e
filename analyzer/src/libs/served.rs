//! Middleware packages that answer fixed paths themselves: what
//! `app.use(pkg(options))` serves, charted as operations whose handler is
//! named after the package.
//!
//! Captures, one arm per package in `served_routes` (each package is a
//! row of `libs::PACKAGES`), as each package's source does it:
//! - `express-actuator` (rcruzper/express-actuator 1.8, `lib/index.js`):
//!   a router with `GET basePath + '/info'`, `'/metrics'`, `'/health'`
//!   (`basePath` default `''`; a string argument is the base path) and
//!   `GET basePath + '/' + id` per `customEndpoints` entry (replacing a
//!   default of the same id). Paths are relative to the `use` mount.
//! - `prometheus-api-metrics` (PayU/prometheus-api-metrics,
//!   `src/metrics-middleware.js`, `src/express-middleware.js`): the default
//!   export and `expressMiddleware`; answers when `req.originalUrl` equals
//!   `metricsPath` (default `/metrics`), and `metricsPath + '.json'`, for any
//!   method.
//! - `express-prom-bundle` (jochen-schweizer/express-prom-bundle 8,
//!   `src/index.js`): answers when `req.originalUrl` matches
//!   `^metricsPath/?$` (default `/metrics`), any method, unless
//!   `autoregister: false`; with `metricsApp`, `GET metricsPath` on that
//!   app instead.
//! - `express-status-monitor` (RafalWilinski/express-status-monitor 1.3,
//!   `src/middleware-wrapper.js`, `src/helpers/default-config.js`): answers
//!   when `req.path` (relative to the mount) equals `path` (default
//!   `/status`), any method.
//! - `swagger-ui-express` (scottie1984/swagger-ui-express 5,
//!   `index.js`): `setup(doc)` is `(req, res) => res.send(html)`, the page at
//!   the mount and every path under it, any method (`serve` is its assets).
//! - `@nestjs/swagger` (nestjs/swagger 8.1 to 11, `lib/swagger-module.ts`):
//!   `SwaggerModule.setup(path, app, document, options?)` adds `GET` routes
//!   to the Nest app itself: the UI at `path` and every path under it (its
//!   `swagger-ui-init.js`, `index.html` and static assets), unless `ui: false`
//!   (or the older `swaggerUiEnabled: false`); the document at `path-json`
//!   and `path-yaml`, or at `jsonDocumentUrl`/`yamlDocumentUrl`, as `raw`
//!   allows (`true` by default, `false`, or a list of `'json'`/`'yaml'`).
//!   The global prefix set so far (`app.setGlobalPrefix`) is put in front
//!   only with `useGlobalPrefix: true`, as the library does (a prefix of `/`
//!   counts as none). `createDocument` adds no routes.
//!
//! Paths the packages match against `req.originalUrl` do not take the mount
//! prefix: they are charted at their own path on the app or router that
//! uses them, which is exact on an app (their usual place).
//!
//! Example: `app.use('/manage', actuator({ basePath: '/ops' }))` is
//! `GET /manage/ops/health`, `/manage/ops/info`, `/manage/ops/metrics`.
//!
//! Deliberately not captured: the response bodies (only the operations),
//! `@nestjs/swagger` before 8.1 (no `ui`/`raw`; before 6 no YAML route and
//! `jsonDocumentUrl` joined to the prefix without a `/`), Fastify's trailing
//! slash route,
//! `express-status-monitor`'s Socket.IO channel, a `metricsPath` given as a
//! RegExp (a `dynamic-path` finding). Middleware of other packages stays a
//! named middleware (an app handed to a package is a `package-router`
//! finding elsewhere).

use crate::machine::*;

/// The name a factory of these packages carries as a `Framework` value.
const PREFIX: &str = "served:";

/// The value of a package's default export, when it is a factory.
pub(crate) fn default_export(pkg: &str) -> Option<Value> {
    matches!(
        pkg,
        "express-actuator"
            | "prometheus-api-metrics"
            | "express-prom-bundle"
            | "express-status-monitor"
    )
    .then(|| factory(pkg))
}

/// A member of one of these packages.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    match (pkg, prop) {
        ("prometheus-api-metrics", "expressMiddleware" | "default")
        | ("express-actuator" | "express-prom-bundle" | "express-status-monitor", "default") => {
            Some(factory(pkg))
        }
        ("swagger-ui-express", "setup") => Some(factory(pkg)),
        ("@nestjs/swagger", "SwaggerModule") => Some(factory(SWAGGER_MODULE)),
        (SWAGGER_MODULE, "setup") => Some(factory(SWAGGER_SETUP)),
        _ => None,
    }
}

/// A member of a factory [`member`] gave (`SwaggerModule.setup`).
pub(crate) fn framework_member(name: &str, prop: &str) -> Option<Value> {
    member(name.strip_prefix(PREFIX)?, prop)
}

/// `@nestjs/swagger`'s `SwaggerModule` class and its static `setup`.
const SWAGGER_MODULE: &str = "@nestjs/swagger#SwaggerModule";
const SWAGGER_SETUP: &str = "@nestjs/swagger#SwaggerModule.setup";

fn factory(pkg: &str) -> Value {
    Value::Builtin(Builtin::Framework(Rc::from(
        format!("{PREFIX}{pkg}").as_str(),
    )))
}

/// One path a package's middleware answers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ServedRoute {
    /// `get`, or `all` when the package does not look at the method.
    pub(crate) method: &'static str,
    pub(crate) path: String,
    /// Matched against the whole URL (`req.originalUrl`), not under the mount.
    pub(crate) absolute: bool,
    /// Answers every path under `path` too.
    pub(crate) subpaths: bool,
}

/// What the middleware a package's factory made answers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Served {
    pub(crate) package: Rc<str>,
    pub(crate) routes: Vec<ServedRoute>,
}

/// A string option, its default when absent; `Err` when it is only known at
/// run time (or not a string).
fn text_option(o: Option<&Rc<ObjData>>, key: &str, default: &str) -> Result<String, ()> {
    match o.and_then(|o| o.get(key)) {
        None | Some(Value::Undef) => Ok(default.to_string()),
        Some(v) => v.as_text().ok_or(()),
    }
}

/// The routes the middleware made by `pkg(argv...)` answers; `Err` when an
/// option they depend on is only known at run time.
fn served_routes(interp: &mut Interp, pkg: &str, argv: &[Value]) -> Result<Vec<ServedRoute>, ()> {
    let first = argv.first().map(|v| interp.force_deep(v.clone()));
    let opts = match &first {
        Some(Value::Obj(o)) => Some(o.clone()),
        _ => None,
    };
    let opts = opts.as_ref();
    let route = |method, path: String, absolute, subpaths| ServedRoute {
        method,
        path,
        absolute,
        subpaths,
    };
    Ok(match pkg {
        "express-actuator" => {
            let base = match &first {
                Some(Value::Str(s)) => s.to_string(),
                _ => text_option(opts, "basePath", "")?,
            };
            let mut ids: Vec<String> = Vec::new();
            if let Some(Value::Arr(list)) = opts.and_then(|o| o.get("customEndpoints")) {
                for e in list.borrow().iter() {
                    let Value::Obj(e) = interp.force_deep(e.clone()) else {
                        return Err(());
                    };
                    let id = text_option(Some(&e), "id", "")
                        .and_then(|s| if s.is_empty() { Err(()) } else { Ok(s) })?;
                    ids.push(if id.starts_with('/') {
                        id
                    } else {
                        format!("/{id}")
                    });
                }
            }
            let mut out: Vec<ServedRoute> = ["/info", "/metrics", "/health"]
                .into_iter()
                .filter(|d| !ids.iter().any(|i| i == d))
                .map(|d| route("get", format!("{base}{d}"), false, false))
                .collect();
            out.extend(
                ids.into_iter()
                    .map(|i| route("get", format!("{base}{i}"), false, false)),
            );
            out
        }
        "prometheus-api-metrics" => {
            let p = text_option(opts, "metricsPath", "/metrics")?;
            vec![
                route("all", p.clone(), true, false),
                route("all", format!("{p}.json"), true, false),
            ]
        }
        "express-prom-bundle" => {
            if matches!(
                opts.and_then(|o| o.get("autoregister")),
                Some(Value::Bool(false))
            ) {
                Vec::new()
            } else {
                vec![route(
                    "all",
                    text_option(opts, "metricsPath", "/metrics")?,
                    true,
                    false,
                )]
            }
        }
        "express-status-monitor" => {
            vec![route(
                "all",
                text_option(opts, "path", "/status")?,
                false,
                false,
            )]
        }
        "swagger-ui-express" => vec![route("all", "/".into(), false, true)],
        _ => Vec::new(),
    })
}

impl Interp {
    /// A call of a factory of these packages: the middleware it makes, carrying
    /// what it answers. `express-prom-bundle`'s `metricsApp` gets its route
    /// now, as the package adds it.
    pub(crate) fn served_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        let pkg = name.strip_prefix(PREFIX)?;
        if pkg == SWAGGER_SETUP {
            self.nest_swagger_setup(ctx, argv, line);
            return Some(Value::Undef);
        }
        if pkg == SWAGGER_MODULE {
            return None;
        }
        let routes = match served_routes(self, pkg, argv) {
            Ok(r) => r,
            Err(()) => {
                self.finding(
                    FindingCode::DynamicPath,
                    ctx.file,
                    line,
                    format!("the paths `{pkg}` serves depend on options only known at run time"),
                );
                Vec::new()
            }
        };
        if pkg == "express-prom-bundle"
            && let Some(Value::Obj(o)) = argv.first().map(|v| self.force_deep(v.clone()))
            && let Some(Value::Router(app)) = o.get("metricsApp").map(|v| self.force_deep(v))
            && let Ok(path) = text_option(Some(&o), "metricsPath", "/metrics")
        {
            let routes = vec![ServedRoute {
                method: "get",
                path,
                absolute: false,
                subpaths: false,
            }];
            self.served_regs(
                ctx,
                app,
                &[PathArg::Str("/".into())],
                pkg,
                &routes,
                line,
                None,
            );
            return Some(Value::Builtin(Builtin::Served(Rc::new(Served {
                package: Rc::from(pkg),
                routes: Vec::new(),
            }))));
        }
        Some(Value::Builtin(Builtin::Served(Rc::new(Served {
            package: Rc::from(pkg),
            routes,
        }))))
    }

    /// `SwaggerModule.setup(path, app, document, options?)`: the UI and the
    /// document routes on `app`, at paths computed as the library does.
    fn nest_swagger_setup(&mut self, ctx: &Ctx, argv: &[Value], line: u32) {
        const PKG: &str = "@nestjs/swagger";
        let app = match argv.get(1).map(|v| self.force_deep(v.clone())) {
            Some(Value::Router(id)) => id,
            _ => {
                self.finding(
                    FindingCode::PackageRouter,
                    ctx.file,
                    line,
                    format!("`SwaggerModule.setup` of `{PKG}` is handed an application the analysis could not follow: the documentation routes it adds are not charted"),
                );
                return;
            }
        };
        let path = argv.first().map(|v| self.force_deep(v.clone()));
        let opts = match argv.get(3).map(|v| self.force_deep(v.clone())) {
            Some(Value::Obj(o)) => Some(o),
            _ => None,
        };
        let opts = opts.as_ref();
        let flag = |o: Option<&Rc<ObjData>>, k: &str| match o.and_then(|o| o.get(k)) {
            Some(Value::Bool(b)) => Some(b),
            _ => None,
        };
        let use_prefix = flag(opts, "useGlobalPrefix") == Some(true);
        let ui = flag(opts, "ui")
            .or_else(|| flag(opts, "swaggerUiEnabled"))
            .unwrap_or(true);
        let (json, yaml) = match opts.and_then(|o| o.get("raw")).map(|v| self.force_deep(v)) {
            Some(Value::Bool(b)) => (b, b),
            Some(Value::Arr(a)) => {
                let kinds: Vec<Option<String>> = a.borrow().iter().map(|v| v.as_text()).collect();
                let has = |k: &str| kinds.iter().any(|x| x.as_deref() == Some(k));
                (has("json"), has("yaml"))
            }
            _ => (true, true),
        };
        let slash = |p: &str| {
            if p.starts_with('/') {
                p.to_string()
            } else {
                format!("/{p}")
            }
        };
        let prefix = self
            .libs
            .nest
            .global_prefix(app)
            .filter(|p| use_prefix && !p.is_empty() && p != "/");
        let paths = (|| {
            let path = path.as_ref()?.as_text()?;
            let fin = slash(&match &prefix {
                Some(g) => format!("{g}{}", slash(&path)),
                None => path,
            });
            let head = prefix.as_deref().map(slash).unwrap_or_default();
            let url = |key: &str, ext: &str| match opts.and_then(|o| o.get(key)) {
                None | Some(Value::Undef) => Some(format!("{fin}-{ext}")),
                Some(v) => Some(format!("{head}{}", slash(&v.as_text()?))),
            };
            Some((
                fin.clone(),
                url("jsonDocumentUrl", "json")?,
                url("yamlDocumentUrl", "yaml")?,
            ))
        })();
        let Some((fin, json_url, yaml_url)) = paths else {
            self.finding(
                FindingCode::DynamicPath,
                ctx.file,
                line,
                format!("the paths `SwaggerModule.setup` of `{PKG}` serves depend on values only known at run time"),
            );
            return;
        };
        let get = |path: String, subpaths| ServedRoute {
            method: "get",
            path,
            absolute: true,
            subpaths,
        };
        let mut routes = Vec::new();
        if ui {
            routes.push(get(fin, true));
        }
        if json {
            routes.push(get(json_url, false));
        }
        if yaml {
            routes.push(get(yaml_url, false));
        }
        self.served_regs(ctx, app, &[], PKG, &routes, line, None);
    }

    /// `use(paths, ..., servingMiddleware)`: the routes it answers, on this
    /// router, under the `use` paths (or at their own path when the package
    /// matches the whole URL).
    pub(crate) fn served_mounts(
        &mut self,
        ctx: &Ctx,
        id: u32,
        paths: &[PathArg],
        argv: &[Value],
        call: &Call,
    ) {
        for v in argv {
            let items = match v {
                Value::Arr(a) => a.borrow().clone(),
                v => vec![v.clone()],
            };
            for v in items {
                if let Value::Builtin(Builtin::Served(s)) = v {
                    let pkg = s.package.to_string();
                    self.served_regs(ctx, id, paths, &pkg, &s.routes, call.line, call.doc.clone());
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)] // one registration's parts
    fn served_regs(
        &mut self,
        ctx: &Ctx,
        id: u32,
        paths: &[PathArg],
        pkg: &str,
        routes: &[ServedRoute],
        line: u32,
        doc: Option<String>,
    ) {
        if self.modes.event_mode || self.salvage_blocks(id) {
            return;
        }
        for r in routes {
            let full: Vec<PathArg> = if r.absolute {
                vec![PathArg::Str(r.path.clone())]
            } else {
                paths
                    .iter()
                    .filter_map(|p| match p {
                        PathArg::Str(s) => Some(PathArg::Str(crate::paths::join(s, &r.path))),
                        PathArg::Regex(_) => None,
                    })
                    .collect()
            };
            let kind = RegKind::package_route(r.method, full, pkg, r.subpaths);
            self.push_reg(id, kind, ctx.file, line, doc.clone(), None);
        }
    }
}
