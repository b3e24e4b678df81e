//! FoalTS on Express: `createApp(AppController, options?)` serves the routes
//! of a root controller class and of its `subControllers`.
//!
//! Captures: `createApp(Root)` (a new Express app) and `createApp(Root,
//! {expressInstance})` (routes on that app); `subControllers = [controller(
//! '/api', ApiController), ...]` fields, recursively; `@Get/@Post/@Put/
//! @Patch/@Delete/@Head/@Options(path?)` methods; `@ValidateBody(schema)` as
//! the body's JSON Schema, `@ValidateQueryParam(name, schema, {required})`,
//! `@ValidatePathParam(name, schema)` and `@ValidateHeader(name, ...)` as
//! fields of their part; `@JWTRequired()`, `@UserRequired()`,
//! `@LoginRequired()` and `@TokenRequired()` as a guard (401). A hook on a
//! controller class applies to its methods and to every sub-controller's
//! route, as in Foal. Decorators count from `@foal/core`, `@foal/jwt` and
//! `@foal/typeorm`.
//!
//! Example: `class AppController { subControllers = [controller('/api',
//! Api)] }`, `class Api { @Get('/users/:id') one() {} }` and
//! `createApp(AppController)` is `GET /api/users/:id`.
//!
//! Deliberately not captured: a schema given as a function of the controller
//! (`@ValidateBody(c => c.schema)`), hooks written with `Hook(fn)` (their
//! function is not run), routes inherited from a superclass.

use crate::libs::schemas::{PartFields, RawContract, SchemaLabel, SchemaSource};
use crate::machine::*;
use crate::paths;

use super::nest::{callee_name, verb_of};
use super::routing_controllers::DecoratedMethod;

/// `createApp` and `controller` of `@foal/core`.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == "@foal/core" && matches!(prop, "createApp" | "controller"))
        .then(|| Value::Builtin(Builtin::Framework(Rc::from(format!("foal.{prop}")))))
}

/// Whether `pkg` gives verb decorators that declare a route on any class
/// (`@Get('/x')` from `@foal/core`; no controller decorator is needed).
pub(crate) fn routes_on_plain_classes(pkg: &str) -> bool {
    pkg == "@foal/core"
}

fn is_foal(pkg: &str) -> bool {
    matches!(pkg, "@foal/core" | "@foal/jwt" | "@foal/typeorm")
}

impl Interp {
    fn foal_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<String> {
        match self.decorator_origin(ctx, d) {
            Some((p, n)) if is_foal(&p) => Some(n),
            _ => None,
        }
    }

    /// `createApp(AppController, options?)`.
    pub(crate) fn foal_create_app(&mut self, ctx: &Ctx, argv: &[Value], line: u32) -> Value {
        let given = match argv.get(1).map(|v| self.force_deep(v.clone())) {
            Some(Value::Obj(o)) => o.get("expressInstance").map(|v| self.force_deep(v)),
            _ => None,
        };
        let router = match given {
            Some(Value::Router(id)) => id,
            _ => match self.new_router(ctx.file, line, true) {
                Value::Router(id) => id,
                _ => return Value::dynamic(),
            },
        };
        match argv.first().map(|v| self.force_deep(v.clone())) {
            Some(Value::Class(root)) => self.register_foal_controller(router, "", &root, &[], 0),
            _ => self.finding(
                FindingCode::DynamicMount,
                ctx.file,
                line,
                "the root controller of `createApp(...)` is only known at run time: its routes are not charted".into(),
            ),
        }
        Value::Router(router)
    }

    fn register_foal_controller(
        &mut self,
        router: u32,
        base: &str,
        cv: &Rc<ClassVal>,
        outer: &[String],
        depth: u32,
    ) {
        let ctx = self.class_ctx(cv);
        let c = cv.class.clone();
        let mut class_mw: Vec<String> = outer.to_vec();
        for d in &c.decorators {
            if let Some(n) = self.foal_decorator(&ctx, d) {
                self.foal_guard(cv.file, &n, d, &mut class_mw);
            }
        }
        let class_name = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        for (name, f) in &c.methods {
            let mut verbs: Vec<(String, u32, Option<Expr>)> = Vec::new();
            let mut mw = class_mw.clone();
            let mut contract = RawContract::default();
            let mut parts = PartFields::default();
            for d in &c.decorators_of(name) {
                let Some(n) = self.foal_decorator(&ctx, d) else {
                    continue;
                };
                if let Some(verb) =
                    verb_of(&n).filter(|_| !matches!(n.as_str(), "Search" | "Sse" | "All"))
                {
                    verbs.push((verb.to_string(), d.line, d.args.first().cloned()));
                    continue;
                }
                let arg = |ip: &mut Interp, i: usize| {
                    d.args.get(i).map(|a| {
                        let v = ip.eval(&ctx, a);
                        ip.force_deep(v)
                    })
                };
                match n.as_str() {
                    "ValidateBody" => {
                        if let Some(v @ Value::Obj(_)) = arg(self, 0) {
                            let schema = self.plain_json(&v, 0);
                            let label = SchemaLabel::new(
                                SchemaSource::JsonSchema,
                                d.args.first().and_then(callee_name).unwrap_or(""),
                            );
                            contract.body = Some((schema, label, cv.file, d.line));
                        }
                    }
                    "ValidateQueryParam" | "ValidatePathParam" | "ValidateHeader" => {
                        let Some(key) = arg(self, 0).and_then(|k| k.as_text()) else {
                            continue;
                        };
                        if n == "ValidateHeader" {
                            contract.headers_read.insert(key.to_ascii_lowercase());
                            continue;
                        }
                        let schema = match arg(self, 1) {
                            Some(v @ Value::Obj(_)) => self.plain_json(&v, 0),
                            _ => serde_json::json!({}),
                        };
                        // Foal's default: required unless `{required: false}`.
                        let required = !matches!(arg(self, 2), Some(Value::Obj(o)) if matches!(o.get("required"), Some(Value::Bool(false))));
                        let part = if n == "ValidatePathParam" {
                            RequestPart::Params
                        } else {
                            RequestPart::Query
                        };
                        parts.add(part, &key, schema, part == RequestPart::Params || required);
                    }
                    _ => self.foal_guard(cv.file, &n, d, &mut mw),
                }
            }
            if verbs.is_empty() {
                continue;
            }
            for (part, o) in parts.into_schemas() {
                let label = SchemaLabel::new(SchemaSource::JsonSchema, "");
                *contract.part_mut(part) = Some((o, label, cv.file, f.line));
            }
            let method = DecoratedMethod {
                handler: format!("{class_name}.{name}"),
                base,
                middleware: &mw,
                contract: &contract,
            };
            self.push_decorated_routes(router, &ctx, cv, f, verbs, method);
        }
        // `subControllers = [controller('/api', Api), ...]`.
        let Some(init) = c
            .fields
            .iter()
            .find(|(n, _)| n == "subControllers")
            .and_then(|(_, e)| e.clone())
        else {
            return;
        };
        let Expr::Array(items) = &init else {
            self.finding(
                FindingCode::DynamicMount,
                cv.file,
                c.line,
                format!("the `subControllers` of `{class_name}` are only known at run time: their routes are not charted"),
            );
            return;
        };
        for it in items {
            let sub = match it {
                Expr::Call(call) => {
                    let f = self.eval(&ctx, &call.callee);
                    let is_controller = matches!(self.force(f, 0), Value::Builtin(Builtin::Framework(n)) if &*n == "foal.controller");
                    let path = call.args.first().map(|a| {
                        let v = self.eval(&ctx, a);
                        self.force_deep(v).as_text()
                    });
                    let class = call.args.get(1).map(|a| {
                        let v = self.eval(&ctx, a);
                        self.force_deep(v)
                    });
                    match (is_controller, path, class) {
                        (true, Some(Some(p)), Some(Value::Class(k))) => Some((p, k)),
                        _ => None,
                    }
                }
                _ => None,
            };
            match sub {
                Some((p, k)) if depth < 16 => {
                    let full = paths::join(base, &p);
                    self.register_foal_controller(router, &full, &k, &class_mw, depth + 1);
                }
                Some(_) => {}
                None => self.finding(
                    FindingCode::DynamicMount,
                    cv.file,
                    c.line,
                    format!("a sub-controller of `{class_name}` (`{}`) is only known at run time: its routes are not charted", expr_text(it)),
                ),
            }
        }
    }

    /// A Foal hook that refuses with 401 unless the request is authenticated.
    fn foal_guard(&mut self, file: FileId, n: &str, d: &Decorator, mw: &mut Vec<String>) {
        if matches!(
            n,
            "JWTRequired" | "UserRequired" | "LoginRequired" | "TokenRequired"
        ) {
            mw.push(self.decorator_guard(format!("{n}()"), file, d.line));
        }
    }
}
