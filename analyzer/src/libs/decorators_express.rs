//! `@decorators/express`: decorated controller classes attached to an
//! Express app or router by `attachControllers(app, [Ctrl, …])` or
//! `attachControllerInstances(app, [new Ctrl(), …])`.
//!
//! Captures, as the package's `registerController` does: per controller a
//! new router mounted with `app.use(url, router)` at `@Controller(url,
//! middleware?)` (or `@Controller(url, routerOptions, middleware)`), holding
//! the controller's middleware first (`router.use(...)`), then a route per
//! `@Get/@Post/@Put/@Patch/@Delete/@Options/@Head/@All(url, middleware?)` on a
//! method, with that decorator's middleware; `@Params('id')`, `@Query('q')`,
//! `@Body()` and `@Headers('x')` with their TypeScript types as the request's
//! contract; `@Status(n)` as the response. Each operation is sited at its
//! verb decorator.
//!
//! Example: `@Controller('/users') class Users { @Get('/:id') one() {} }` with
//! `attachControllers(app, [Users])` is `GET /users/:id`.
//!
//! Findings: a controller only known at run time (`dynamic-mount`), a path
//! only known at run time (`dynamic-path`).
//!
//! Deliberately not captured: `@decorators/server` (the package's newer
//! module system), middleware classes resolved from its container (named by
//! their class), routes inherited from a superclass.

use super::nest::{guard_name, verb_of};
use super::routing_controllers::DecoratedMethod;
use crate::machine::*;

const PKG: &str = "@decorators/express";

/// `attachControllers` and `attachControllerInstances`.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == PKG && matches!(prop, "attachControllers" | "attachControllerInstances"))
        .then(|| crate::libs::framework(&format!("decorators-express.{prop}")))
}

/// The middleware names an optional array argument lists.
fn names(e: Option<&Expr>) -> Vec<String> {
    match e {
        Some(Expr::Array(items)) => items.iter().map(guard_name).collect(),
        Some(e) => vec![guard_name(e)],
        None => Vec::new(),
    }
}

impl Interp {
    /// `attachControllers(app, controllers)` / `attachControllerInstances(app, instances)`.
    pub(crate) fn decorators_express_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        let which = name.strip_prefix("decorators-express.")?;
        let app = match argv.first().map(|v| self.force_deep(v.clone())) {
            Some(Value::Router(id)) => id,
            _ => {
                self.finding(
                    FindingCode::DynamicMount,
                    ctx.file,
                    line,
                    format!("the app `{which}(...)` attaches controllers to is only known at run time: their routes are not charted"),
                );
                return Some(Value::dynamic());
            }
        };
        let items = match argv.get(1).map(|v| self.force_deep(v.clone())) {
            Some(Value::Arr(a)) => a.borrow().clone(),
            _ => vec![Value::dynamic()],
        };
        for it in items {
            let class = match self.force_deep(it) {
                Value::Class(c) => Some(c),
                Value::Obj(o) => o.class.borrow().clone(),
                _ => None,
            };
            match class {
                Some(cv) => self.decorators_express_controller(ctx, app, &cv, line),
                None => self.finding(
                    FindingCode::DynamicMount,
                    ctx.file,
                    line,
                    format!("a controller given to `{which}(...)` is only known at run time: its routes are not charted"),
                ),
            }
        }
        Some(Value::dynamic())
    }

    fn dx_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<String> {
        match self.decorator_origin(ctx, d) {
            Some((p, n)) if p == PKG => Some(n),
            _ => None,
        }
    }

    fn decorators_express_controller(&mut self, ctx: &Ctx, app: u32, cv: &Rc<ClassVal>, line: u32) {
        let cctx = self.class_ctx(cv);
        let c = cv.class.clone();
        let mut url = None;
        let mut class_mw = Vec::new();
        let mut at = c.line;
        for d in &c.decorators {
            if self.dx_decorator(&cctx, d).as_deref() != Some("Controller") {
                continue;
            }
            at = d.line;
            let v = d.args.first().map(|a| self.eval(&cctx, a));
            url = v.map(|v| self.force_deep(v)).and_then(|v| v.as_text());
            if url.is_none() {
                self.finding(
                    FindingCode::DynamicPath,
                    cv.file,
                    d.line,
                    "the url of this controller is only known at run time: its routes are not charted".into(),
                );
                return;
            }
            // `(url, middleware)` or `(url, routerOptions, middleware)`.
            class_mw = match d.args.get(1) {
                Some(e @ Expr::Array(_)) => names(Some(e)),
                _ => names(d.args.get(2)),
            };
        }
        let Some(url) = url else {
            let name = c.name.clone().unwrap_or_default();
            self.finding(
                FindingCode::DynamicMount,
                ctx.file,
                line,
                format!("`{name}` has no `@Controller(url)`: `attachControllers` mounts it at an undefined url, its routes are not charted"),
            );
            return;
        };
        let Value::Router(router) = self.new_router(cv.file, at, false) else {
            return;
        };
        if !class_mw.is_empty() {
            let kind = RegKind::Use {
                paths: vec![PathArg::Str("/".into())],
                handlers: class_mw
                    .into_iter()
                    .map(|n| UseHandler::Middleware(n, None))
                    .collect(),
            };
            self.push_reg(router, kind, cv.file, at, None, None);
        }
        let class_name = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        for (name, f) in &c.methods {
            let mut verbs: Vec<(String, u32, Option<Expr>)> = Vec::new();
            let mut statuses: Vec<(u16, u32)> = Vec::new();
            let mut mw = Vec::new();
            for d in &c.decorators_of(name) {
                let Some(n) = self.dx_decorator(&cctx, d) else {
                    continue;
                };
                if n == "Status" {
                    let v = d.args.first().map(|a| self.eval(&cctx, a));
                    if let Some(s) = v.and_then(|v| crate::libs::http_status(&self.force_deep(v))) {
                        statuses.push((s, d.line));
                    }
                } else if let Some(verb) = verb_of(&n).filter(|_| n != "Search" && n != "Sse") {
                    verbs.push((verb.to_string(), d.line, d.args.first().cloned()));
                    mw.extend(names(d.args.get(1)));
                }
            }
            if verbs.is_empty() {
                continue;
            }
            let contract = self
                .nest_request_contract(&cctx, cv, name, f, PKG)
                .with_statuses(&statuses, cv.file);
            let method = DecoratedMethod {
                handler: format!("{class_name}.{name}"),
                base: "",
                middleware: &mw,
                contract: &contract,
            };
            self.push_decorated_routes(router, &cctx, cv, f, verbs, method);
        }
        self.rec.routers[router as usize].mounted = true;
        let kind = RegKind::Use {
            paths: vec![PathArg::Str(url)],
            handlers: vec![UseHandler::Router(router)],
        };
        self.push_reg(app, kind, ctx.file, line, None, None);
    }
}
