//! `swagger-tools` and swagger-node (`swagger-express-mw`, a127): the
//! operations of a Swagger 2 document, each answered by a function of a
//! controllers folder that `x-swagger-router-controller` names.
//!
//! Captures:
//! - `initializeMiddleware(swaggerDoc, callback)`: the callback is called
//!   with the middleware object, whose `swaggerRouter({ controllers })`
//!   is a router answering the document's operations (mounted with
//!   `app.use(...)`); its other middleware adds no route;
//! - `SwaggerExpress.create({ appRoot, swaggerFile? }, callback)`: the
//!   callback is called with an object whose `register(app)` mounts the
//!   operations of `swaggerFile` (default `<appRoot>/api/swagger/swagger.yaml`)
//!   answered by the folder `<appRoot>/api/controllers` (the default
//!   `controllersDirs` of swagger-node's `config/default.yaml`).
//!
//! As the `SwaggerRouter` both share with oas3-tools does (see `oas3.rs`),
//! an operation whose `x-swagger-router-controller` (the operation's, else
//! its path's) is `hello_world` and whose `operationId` is `hello` is
//! answered by the `hello` export of `controllers/hello_world.js`, at the
//! document's path under `basePath` (`{id}` as `:id`), sited at the
//! function, with the document's contract.
//!
//! Findings (`package-router`, at the call): a document that cannot be read,
//! and an operation no controller function answers (the router passes the
//! request on).
//!
//! Deliberately not captured: swagger-node's `config/default.yaml` (its
//! default folders are used), mock mode, a list of controllers folders,
//! Swagger 1.2 documents.

use super::oas3::{self, Node};
use crate::machine::*;

/// The name of the middleware object's `swaggerRouter` (`<name><doc index>`).
const ROUTER: &str = "swagger-tools.swaggerRouter:";

/// The name of swagger-node's `register` (`<name><router>`).
const REGISTER: &str = "swagger-express-mw.register:";

/// A member of the packages' module objects.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    let name = match (pkg, prop) {
        ("swagger-tools", "initializeMiddleware") => "swagger-tools.initializeMiddleware",
        ("swagger-express-mw", "create") => "swagger-express-mw.create",
        ("swagger-express-mw" | "swagger-tools", "default") => {
            return Some(Value::Builtin(Builtin::OpaqueModule(Rc::from(pkg))));
        }
        _ => return None,
    };
    Some(Value::Builtin(Builtin::Framework(Rc::from(name))))
}

/// The documents `initializeMiddleware` was given, in order.
#[derive(Default)]
pub(crate) struct SwaggerDocs(Vec<(Result<Rc<Node>, String>, String)>);

/// The base paths of a document: `basePath` (Swagger 2), else `servers`.
fn bases(doc: &Node) -> Vec<String> {
    match doc.get("basePath").and_then(Node::text) {
        Some(b) => vec![oas3::express_params(b.trim_end_matches('/'))],
        None => oas3::base_paths(doc),
    }
}

impl Interp {
    /// The calls this module answers.
    pub(crate) fn swagger_tools_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        if name == "swagger-tools.initializeMiddleware" {
            let doc = self.document_of(argv.first().cloned()).map(Rc::new);
            let rel = match argv.first().and_then(Value::as_text) {
                Some(t) => t.to_string(),
                None => String::new(),
            };
            let index = self.libs.swagger_docs.0.len();
            self.libs.swagger_docs.0.push((doc, rel));
            let middleware = ObjData::new();
            for m in [
                "swaggerMetadata",
                "swaggerValidator",
                "swaggerSecurity",
                "swaggerUi",
            ] {
                middleware.set(m, Value::external());
            }
            middleware.set("swaggerRouter", crate::libs::indexed(ROUTER, index));
            self.swagger_callback(ctx, argv.get(1), vec![Value::Obj(middleware)], line);
            return Some(Value::external());
        }
        if name == "swagger-express-mw.create" {
            let runner = self.swagger_node_create(ctx, argv.first(), line);
            self.swagger_callback(ctx, argv.get(1), vec![Value::Undef, runner], line);
            return Some(Value::external());
        }
        if let Some(r) = crate::libs::index_in(name, REGISTER) {
            self.mount_router_on(ctx, r, argv.first(), line);
            return Some(Value::Undef);
        }
        let index: usize = crate::libs::index_in(name, ROUTER)?;
        let Value::Router(router) = self.new_router(ctx.file, line, false) else {
            return Some(Value::external());
        };
        if !self.modes.event_mode
            && let Some((doc, rel)) = self.libs.swagger_docs.0.get(index)
        {
            let (doc, rel) = (doc.clone(), rel.clone());
            match doc {
                Ok(doc) => {
                    let handlers = self.oas3_handlers(argv.first());
                    let bases = bases(&doc);
                    self.swagger_router_register((ctx.file, line), &rel, &doc, &bases, &handlers, router);
                }
                Err(why) => self.finding(
                    FindingCode::PackageRouter,
                    ctx.file,
                    line,
                    format!("the Swagger document given to `initializeMiddleware` {why}: the operations `swaggerRouter` answers are not charted"),
                ),
            }
        }
        Some(Value::Router(router))
    }

    /// Call a library's callback with `args`, now.
    fn swagger_callback(&mut self, ctx: &Ctx, f: Option<&Value>, args: Vec<Value>, line: u32) {
        if let Some(f @ Value::Func(_)) = f.map(|f| self.force_deep(f.clone())) {
            self.call_value_now(ctx, &f, args, &[], line, None);
        }
    }

    /// swagger-node's runner: an object whose `register(app)` mounts a router
    /// answering the document's operations.
    fn swagger_node_create(&mut self, ctx: &Ctx, config: Option<&Value>, line: u32) -> Value {
        let Value::Router(router) = self.new_router(ctx.file, line, false) else {
            return Value::external();
        };
        let runner = ObjData::new();
        runner.set("register", crate::libs::indexed(REGISTER, router));
        if self.modes.event_mode {
            return Value::Obj(runner);
        }
        let config = match config.map(|c| self.force_deep(c.clone())) {
            Some(Value::Obj(o)) => Some(o),
            _ => None,
        };
        let text = |me: &mut Self, k: &str| {
            config
                .as_ref()
                .and_then(|c| c.get(k))
                .and_then(|v| me.force_deep(v).as_text())
                .map(|t| t.to_string())
        };
        let Some(root) = text(self, "appRoot") else {
            self.finding(
                FindingCode::PackageRouter,
                ctx.file,
                line,
                "the `appRoot` of swagger-node's `create(...)` is only known at run time: its operations are not charted".into(),
            );
            return Value::Obj(runner);
        };
        let file =
            text(self, "swaggerFile").unwrap_or_else(|| format!("{root}/api/swagger/swagger.yaml"));
        let doc = self.document_of(Some(Value::str(&file)));
        match doc {
            Ok(doc) => {
                let options = ObjData::new();
                options.set(
                    "controllers",
                    Value::str(&format!("{root}/api/controllers")),
                );
                let handlers = self.oas3_handlers(Some(&Value::Obj(options)));
                let rel = crate::machine::node::to_rel(&file).unwrap_or(file);
                self.swagger_router_register(
                    (ctx.file, line),
                    &rel,
                    &doc,
                    &bases(&doc),
                    &handlers,
                    router,
                );
            }
            Err(why) => self.finding(
                FindingCode::PackageRouter,
                ctx.file,
                line,
                format!("swagger-node's Swagger document {why}: its operations are not charted"),
            ),
        }
        Value::Obj(runner)
    }
}
