//! `express-openapi-validator` with `operationHandlers`: the operations of
//! an OpenAPI 3 document answered by functions the document names.
//!
//! Captures: `middleware({ apiSpec, operationHandlers })` (mounted with
//! `app.use(...)`), where `operationHandlers` is the folder handlers are
//! read from (a string, or `{ basePath }`). As the library's default
//! resolver does, an operation with `x-eov-operation-handler: routes/pets`
//! and an `operationId` (`x-eov-operation-id` first) is answered by that
//! export of the module `<basePath>/routes/pets` (else of its `default`,
//! else its `default`), at the document's path under each base path of
//! `servers` (`{id}` as `:id`), sited at the handler, with the document's
//! contract (see `oas3.rs`). `apiSpec` is a `.yaml`/`.yml`/`.json` path or
//! an object.
//!
//! Example: `app.use(middleware({ apiSpec: 'api.yaml', operationHandlers:
//! __dirname }))` with `/pets/{id}: get: { operationId: getPet,
//! x-eov-operation-handler: routes/pets }` is `GET /pets/:id`, answered by
//! `routes/pets.js`'s `getPet`.
//!
//! Findings (`package-router`, one at the call naming each problem): a
//! document that cannot be read, an `operationHandlers` only known at run
//! time or with its own `resolver` (not followed), and an operation whose
//! module or function is missing (the library throws).
//!
//! Version 3's `new OpenApiValidator(options).install(app)` (a promise;
//! with a callback, none) and `.installSync(app)` put the same middleware
//! and the same operation handlers on `app` itself: here a router of them,
//! mounted on `app` at the call. (v3's source, `src/index.ts` before
//! cdimascio/express-openapi-validator b806dd49: `installMiddleware(app,
//! spec)` calls `app.use(...)` and, with `operationHandlers`,
//! `app[method](expressRoute, handler)`.)
//!
//! Deliberately not captured: the validator used without
//! `operationHandlers` (the app's own routes answer; the document's request
//! schemas are not joined to them yet), `$ref`s to other files.

use super::oas3::{self, Kind, Node};
use crate::machine::*;

const PKG: &str = "express-openapi-validator";

/// Version 3's class, `new OpenApiValidator(options)`.
const CTOR: &str = "express-openapi-validator.OpenApiValidator";

/// An instance's `install` / `installSync`, with the instance's index in
/// [`Validators`].
const INSTALL: &str = "express-openapi-validator.install:";

/// The options of each `new OpenApiValidator(options)`, in the order made.
#[derive(Default)]
pub(crate) struct Validators(Vec<Value>);

/// A member of the package's module object.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    if pkg != PKG {
        return None;
    }
    match prop {
        "middleware" => Some(Value::Builtin(Builtin::Framework(Rc::from(
            "express-openapi-validator.middleware",
        )))),
        "default" => Some(Value::Builtin(Builtin::OpaqueModule(Rc::from(PKG)))),
        "OpenApiValidator" => Some(crate::libs::framework(CTOR)),
        _ => None,
    }
}

impl Interp {
    /// `middleware(options)`: a router answering the document's operations
    /// when `operationHandlers` is given, else middleware adding no route.
    pub(crate) fn openapi_validator_middleware(
        &mut self,
        ctx: &Ctx,
        argv: &[Value],
        line: u32,
    ) -> Value {
        let opts = match argv.first().map(|a| self.force_deep(a.clone())) {
            Some(Value::Obj(o)) => o,
            _ => return Value::external(),
        };
        let Some(handlers) = opts.get("operationHandlers").map(|h| self.force_deep(h)) else {
            return Value::external();
        };
        if matches!(handlers, Value::Bool(false) | Value::Undef) {
            return Value::external();
        }
        let Value::Router(router) = self.new_router(ctx.file, line, false) else {
            return Value::external();
        };
        if !self.modes.event_mode {
            let mut problems = Vec::new();
            self.openapi_validator_register(&opts, &handlers, router, &mut problems);
            if !problems.is_empty() {
                self.finding(
                    FindingCode::PackageRouter,
                    ctx.file,
                    line,
                    problems.join("; "),
                );
            }
        }
        Value::Router(router)
    }

    /// v3's `new OpenApiValidator(options)`: an object whose `install` and
    /// `installSync` the run follows.
    pub(crate) fn openapi_validator_new(&mut self, name: &str, argv: &[Value]) -> Option<Value> {
        if name != CTOR {
            return None;
        }
        let index = self.libs.openapi_validators.0.len();
        let opts = argv.first().cloned().unwrap_or(Value::Undef);
        self.libs.openapi_validators.0.push(opts);
        let api = ObjData::new();
        for m in ["install", "installSync"] {
            api.set(m, crate::libs::indexed(INSTALL, index));
        }
        Some(Value::Obj(api))
    }

    /// `validator.install(app)` / `installSync(app)`: what
    /// `app.use(middleware(options))` mounts, on `app` at this call. An
    /// unknown value for what it returns (a promise: `.then(cb)` and `await`
    /// go on past it).
    pub(crate) fn openapi_validator_install(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        let index: usize = crate::libs::index_in(name, INSTALL)?;
        let opts = self.libs.openapi_validators.0.get(index)?.clone();
        let app = argv.first().map(|a| self.force_deep(a.clone()));
        if let Some(Value::Router(app)) = app
            && let Value::Router(router) = self.openapi_validator_middleware(ctx, &[opts], line)
            && !self.modes.event_mode
        {
            self.rec.routers[router as usize].mounted = true;
            let kind = RegKind::Use {
                paths: vec![PathArg::Str("/".into())],
                handlers: vec![UseHandler::Router(router)],
            };
            self.push_reg(app, kind, ctx.file, line, None, None);
        }
        Some(Value::external())
    }

    fn openapi_validator_register(
        &mut self,
        opts: &ObjData,
        handlers: &Value,
        router: u32,
        problems: &mut Vec<String>,
    ) {
        let base = match handlers {
            Value::Obj(o) if o.get("resolver").is_some() => {
                problems.push("`operationHandlers` has its own `resolver`, which is not followed: the document's operations are not charted".into());
                return;
            }
            Value::Obj(o) => o.get("basePath").and_then(|b| self.force_deep(b).as_text()),
            v => v.as_text(),
        };
        let Some(base) = base.and_then(|b| crate::machine::node::to_rel(&b)) else {
            problems.push("the `operationHandlers` folder is only known at run time: the document's operations are not charted".into());
            return;
        };
        let spec = opts.get("apiSpec");
        let doc = self.document_of(spec);
        let doc = match doc {
            Ok(d) => d,
            Err(why) => {
                problems.push(format!(
                    "the `apiSpec` {why}: the operations its `operationHandlers` answer are not charted"
                ));
                return;
            }
        };
        let Some(Kind::Map(paths)) = doc.get("paths").map(|p| &p.kind) else {
            return;
        };
        let bases = oas3::base_paths(&doc);
        for (path, item) in paths {
            let Kind::Map(entries) = &item.kind else {
                continue;
            };
            for (method, op) in entries {
                if !oas3::METHODS.contains(&method.as_str()) {
                    continue;
                }
                let module_name = op.get("x-eov-operation-handler").and_then(Node::text);
                let id = op
                    .get("x-eov-operation-id")
                    .or_else(|| op.get("operationId"))
                    .and_then(Node::text);
                let (Some(module_name), Some(id)) = (module_name, id) else {
                    continue;
                };
                let what = format!(
                    "`{} {path}` (line {})",
                    method.to_ascii_uppercase(),
                    op.line
                );
                let target = if base.is_empty() {
                    module_name.to_string()
                } else {
                    format!("{base}/{module_name}")
                };
                let Some(file) = crate::machine::node::to_rel(&target)
                    .and_then(|t| self.loader.project.resolve_path(&t))
                else {
                    problems.push(format!(
                        "no module `{target}` answers {what}: it is not charted"
                    ));
                    continue;
                };
                let module = self.module_value(file);
                let module = self.force_deep(module);
                let handler = self.openapi_validator_handler(&module, id);
                let Value::Func(c) = &handler else {
                    problems.push(format!(
                        "`{target}` exports no function `{id}` for {what}: it is not charted"
                    ));
                    continue;
                };
                let at = (c.file, c.func.line);
                let contract = oas3::stated(&doc, item, op).contract(at);
                for b in &bases {
                    let kind = RegKind::Route {
                        method: method.clone(),
                        paths: vec![PathArg::Str(format!("{b}{}", oas3::express_params(path)))],
                        middleware: Vec::new(),
                        handler: Some(HandlerRef {
                            name: id.to_string(),
                            at: Some(at),
                        }),
                        contract: Rc::new(RefCell::new(contract.clone())),
                        funcs: vec![handler.clone()],
                        subpaths: false,
                    };
                    self.push_reg(router, kind, at.0, at.1, c.func.doc.clone(), None);
                }
            }
        }
    }

    /// `module[id] || module.default[id] || module.default`.
    fn openapi_validator_handler(&mut self, module: &Value, id: &str) -> Value {
        let own = self.member(module, id);
        if let f @ Value::Func(_) = self.force_deep(own) {
            return f;
        }
        let default = self.member(module, "default");
        let default = self.force_deep(default);
        let inner = self.member(&default, id);
        match self.force_deep(inner) {
            f @ Value::Func(_) => f,
            _ => default,
        }
    }
}
