//! `openapi-backend`: the operations of an OpenAPI document, answered by
//! handlers registered by operation id, served by a function the app mounts.
//!
//! Captures: `new OpenAPIBackend({ definition, apiRoot?, handlers? })`,
//! `api.register({ operationId: handler })` and `api.register('operationId',
//! handler)` (also `registerHandler`), and the function mounted with
//! `app.use([path,] fn)` whose body calls `api.handleRequest(...)`: there
//! the app answers each operation of the document (every method of every
//! path; `servers` are not read, as the library matches paths after
//! `apiRoot`, default `/`), at `<mount><apiRoot><path>` (`{id}` as `:id`),
//! sited at its handler, else at the `notImplemented` handler (the library
//! calls it for an operation without one), with the document's contract
//! (see `oas3.rs`; handlers take `(context, req, res)`, so they are not read
//! as Express handlers). `notFound`, `methodNotAllowed`, `validationFail`,
//! `unauthorizedHandler` and `postResponseHandler` answer no operation of
//! their own. Handlers registered after the mount are not seen.
//!
//! Example: `new OpenAPIBackend({ definition: 'api.yml', handlers: {
//! getPet } })` with `/pets/{id}: get: operationId: getPet`, mounted with
//! `app.use('/v1', (req, res) => api.handleRequest(req, req, res))`, is
//! `GET /v1/pets/:id` answered by `getPet`.
//!
//! Findings (`package-router`, at the `new OpenAPIBackend` line): a
//! definition that cannot be read (the mounted function is then charted as
//! the route it is), and operations without an operation id
//! or without a handler and no `notImplemented` (the library throws
//! `501-notImplemented`).
//!
//! Deliberately not captured: security handlers (access), `$ref`s to other
//! files, a backend reached other than by a name in the mounted function.

use super::oas3::{self, Node};
use crate::machine::*;

const PKG: &str = "openapi-backend";

/// The constructor's name.
const CTOR: &str = "openapi-backend.OpenAPIBackend";

/// The prefix of a backend's methods' names (`<prefix><method>:<index>`).
const METHOD: &str = "openapi-backend.";

/// Handlers that answer no operation of their own.
const SPECIAL: [&str; 7] = [
    "notFound",
    "methodNotAllowed",
    "validationFail",
    "unauthorizedHandler",
    "postResponseHandler",
    "404",
    "405",
];

/// A member of the package's module object.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == PKG && matches!(prop, "OpenAPIBackend" | "default"))
        .then(|| Value::Builtin(Builtin::Framework(Rc::from(CTOR))))
}

/// The package's default export (`import OpenAPIBackend from
/// 'openapi-backend'`): the class. The machine gives `require` the same
/// value, so the class answers the module's names too (see
/// [`framework_member`]).
pub(crate) fn default_export(pkg: &str) -> Option<Value> {
    (pkg == PKG).then(|| Value::Builtin(Builtin::Framework(Rc::from(CTOR))))
}

/// `require('openapi-backend').default` and `.OpenAPIBackend`: the class.
pub(crate) fn framework_member(name: &str, prop: &str) -> Option<Value> {
    (name == CTOR && matches!(prop, "OpenAPIBackend" | "default"))
        .then(|| Value::Builtin(Builtin::Framework(Rc::from(CTOR))))
}

/// One `new OpenAPIBackend(...)`.
pub(crate) struct Backend {
    file: FileId,
    line: u32,
    doc: Result<Rc<Node>, String>,
    api_root: String,
    /// Handlers by operation id, in registration order (a later one wins).
    handlers: Vec<(String, Value)>,
}

/// The backends the run made, in order.
#[derive(Default)]
pub(crate) struct Backends(Vec<Backend>);

/// A backend's method: its name and the backend's index.
fn method_of(name: &str) -> Option<(&str, usize)> {
    let (m, i) = name.strip_prefix(METHOD)?.split_once(':')?;
    Some((m, i.parse().ok()?))
}

impl Interp {
    /// `new OpenAPIBackend(opts)`: an object whose methods the run follows.
    pub(crate) fn openapi_backend_new(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        if name != CTOR {
            return None;
        }
        let opts = match argv.first().map(|a| self.force_deep(a.clone())) {
            Some(Value::Obj(o)) => Some(o),
            _ => None,
        };
        let definition = opts.as_ref().and_then(|o| o.get("definition"));
        let doc = self.document_of(definition).map(Rc::new);
        let api_root = opts
            .as_ref()
            .and_then(|o| o.get("apiRoot"))
            .and_then(|v| self.force_deep(v).as_text())
            .map_or_else(|| "/".to_string(), |t| t.to_string());
        let index = self.libs.openapi_backends.0.len();
        self.libs.openapi_backends.0.push(Backend {
            file: ctx.file,
            line,
            doc,
            api_root,
            handlers: Vec::new(),
        });
        if let Some(h) = opts.as_ref().and_then(|o| o.get("handlers")) {
            self.openapi_backend_register(index, &[&h]);
        }
        let api = ObjData::new();
        for m in [
            "register",
            "registerHandler",
            "handleRequest",
            "init",
            "registerSecurityHandler",
        ] {
            api.set(
                m,
                Value::Builtin(Builtin::Framework(Rc::from(
                    format!("{METHOD}{m}:{index}").as_str(),
                ))),
            );
        }
        Some(Value::Obj(api))
    }

    /// A call of a backend's method: `register` keeps handlers.
    pub(crate) fn openapi_backend_call(&mut self, name: &str, argv: &[Value]) -> Option<Value> {
        let (m, index) = method_of(name)?;
        if matches!(m, "register" | "registerHandler") {
            let args: Vec<Value> = argv.to_vec();
            let refs: Vec<&Value> = args.iter().collect();
            self.openapi_backend_register(index, &refs);
        }
        Some(Value::external())
    }

    /// `register(map)` or `register(id, handler)`.
    fn openapi_backend_register(&mut self, index: usize, argv: &[&Value]) {
        let first = argv.first().map(|v| self.force_deep((*v).clone()));
        let pairs: Vec<(String, Value)> = match first {
            Some(Value::Obj(o)) => o
                .props
                .borrow()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            Some(v) => match (v.as_text(), argv.get(1)) {
                (Some(id), Some(h)) => vec![(id.to_string(), (*h).clone())],
                _ => Vec::new(),
            },
            None => Vec::new(),
        };
        for (k, v) in pairs {
            let v = self.force_deep(v);
            if let Some(b) = self.libs.openapi_backends.0.get_mut(index) {
                b.handlers.push((k, v));
            }
        }
    }

    /// `app.use([path,] fn)` where `fn` calls a backend's `handleRequest`:
    /// the backend's operations, on a router mounted there. Whether it was.
    pub(crate) fn openapi_backend_mount(
        &mut self,
        ctx: &Ctx,
        app: u32,
        paths: &[PathArg],
        values: &[Value],
        line: u32,
    ) -> bool {
        let Some(index) = values.iter().find_map(|v| self.handled_backend(v)) else {
            return false;
        };
        if self.modes.event_mode {
            return true;
        }
        // (A definition that cannot be read: the mounted function stays the
        // route it is, answering every path under the mount.)
        if let Some(Err(why)) = self.libs.openapi_backends.0.get(index).map(|b| &b.doc) {
            let (file, at) = (
                self.libs.openapi_backends.0[index].file,
                self.libs.openapi_backends.0[index].line,
            );
            let why = format!(
                "the `definition` of `new OpenAPIBackend` {why}: its operations are not charted, only the function mounted at line {line} that serves them"
            );
            self.finding(FindingCode::PackageRouter, file, at, why);
            return false;
        }
        let Value::Router(router) = self.new_router(ctx.file, line, false) else {
            return false;
        };
        self.openapi_backend_routes(index, router);
        self.rec.routers[router as usize].mounted = true;
        self.push_reg(
            app,
            RegKind::Use {
                paths: paths.to_vec(),
                handlers: vec![UseHandler::Router(router)],
            },
            ctx.file,
            line,
            None,
            None,
        );
        true
    }

    /// The backend whose `handleRequest` a function calls on a name it sees.
    fn handled_backend(&mut self, v: &Value) -> Option<usize> {
        let Value::Func(c) = v else { return None };
        let names = RefCell::new(Vec::new());
        crate::libs::socketio_syntax::any_expr(&c.func.body, &|e| {
            if let Expr::Call(call) = e
                && let Expr::Member(o, p) = &call.callee
                && p == "handleRequest"
                && let Expr::Ident(n) = o.as_ref()
            {
                names.borrow_mut().push(n.clone());
            }
            false
        });
        names.into_inner().into_iter().find_map(|n| {
            let api = c.env.lookup(&n).map(|v| self.force_deep(v));
            let Some(Value::Obj(api)) = api else {
                return None;
            };
            let Some(Value::Builtin(Builtin::Framework(f))) = api.get("handleRequest") else {
                return None;
            };
            method_of(&f).map(|(_, i)| i)
        })
    }

    /// The operations of backend `index` on `router`.
    fn openapi_backend_routes(&mut self, index: usize, router: u32) {
        let Some(b) = self.libs.openapi_backends.0.get(index) else {
            return;
        };
        let (file, line) = (b.file, b.line);
        let say = |me: &mut Self, why: String| {
            me.finding(FindingCode::PackageRouter, file, line, why);
        };
        let Ok(doc) = b.doc.clone() else {
            return;
        };
        let root = b.api_root.trim_end_matches('/').to_string();
        let handler = |id: &str| {
            b.handlers
                .iter()
                .rev()
                .find(|(k, v)| k == id && matches!(v, Value::Func(_)))
                .map(|(k, v)| (k.clone(), v.clone()))
        };
        let fallback = handler("notImplemented");
        let mut missing = Vec::new();
        let mut routes = Vec::new();
        for (path, item, method, op) in oas3::path_operations(&doc) {
            let what = format!(
                "`{} {path}` (line {})",
                method.to_ascii_uppercase(),
                op.line
            );
            let id = op.get("operationId").and_then(Node::text);
            let Some((name, f)) = id
                .filter(|id| !SPECIAL.contains(id))
                .and_then(handler)
                .or_else(|| fallback.clone())
            else {
                missing.push(match id {
                    Some(id) => format!("no handler `{id}` answers {what}"),
                    None => format!("{what} has no `operationId`"),
                });
                continue;
            };
            let stated = oas3::stated(&doc, item, op);
            routes.push((
                method.to_string(),
                format!("{root}{}", oas3::express_params(path)),
                name,
                f,
                stated,
            ));
        }
        for (method, path, name, f, stated) in routes {
            // (Handlers take `(context, req, res)`: not read as Express's.)
            self.push_operation(router, &method, path, &name, &f, &stated, false);
        }
        if !missing.is_empty() {
            say(
                self,
                format!(
                    "{}: without a `notImplemented` handler the library throws `501-notImplemented` for them, they are not charted",
                    missing.join("; ")
                ),
            );
        }
    }
}
