//! `@overnightjs/core`: decorated controller classes that a `Server` (an
//! Express app the library creates) serves when `addControllers` is called.
//!
//! Captures: `class AppServer extends Server` (its constructor makes the
//! app, `this.app`) and `new Server()`; `addControllers(controllers,
//! routerLib?, globalMiddleware?)` (`this.`/`super.`/`server.`) with a
//! controller instance or an array of them: for each instance whose class
//! has `@Controller(path)`, a router mounted at `'/' + path` on the app
//! (after `globalMiddleware`), holding `@ClassMiddleware(mw | [mw])` first,
//! then a route per verb decorator on a method or property
//! (`@Get/@Post/@Put/@Patch/@Delete/@Head/@Options/@All/@Search(path?)`:
//! path `'/' + path`, or `''` without one; a regular expression with the
//! `/` the package puts in front, a `regex-path` finding) with its `@Middleware(mw | [mw])`, then
//! the `@ChildControllers([new Child()])` routers mounted at their own path,
//! as `Server.getRouter` does. Each operation is sited at its verb
//! decorator; its handler is the method, read for the contract as an
//! Express handler.
//!
//! Example: `@Controller('api/users') class Users { @Get(':id') one(req, res) {} }`
//! with `this.addControllers([new Users()])` is `GET /api/users/:id`.
//!
//! Findings: a controller only known at run time (`dynamic-mount`), a path
//! only known at run time (`dynamic-path`).
//!
//! Deliberately not captured: `@Wrapper`/`@ClassWrapper` and
//! `@ErrorMiddleware` (they wrap a handler, adding no route), `@ClassOptions`,
//! the rarer WebDAV verbs (`@Copy`, `@Lock`, …), a regular expression as a
//! controller's path, and the `routerLib` argument (a router with Express's
//! methods serves the same routes).

use crate::libs::nest::guard_name;
use crate::machine::*;

const PKG: &str = "@overnightjs/core";
const SERVER: &str = "@overnightjs/core.Server";

/// A member of the package that is not a decorator (decorators are the
/// package's functions, named by [`Interp::decorator_origin`]).
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (pkg == PKG && prop == "Server").then(|| Value::Builtin(Builtin::Framework(Rc::from(SERVER))))
}

/// Whether `v` is the package's `Server` class.
pub(crate) fn is_server(v: &Value) -> bool {
    matches!(v, Value::Builtin(Builtin::Framework(n)) if is_server_name(n))
}

/// Whether a `Framework` value's name is the package's `Server` class.
pub(crate) fn is_server_name(name: &str) -> bool {
    name == SERVER
}

/// `super(...)` in a subclass of `Server`: its constructor on `this`, the
/// app sited at the subclass. Whether `base` was `Server`.
pub(crate) fn super_construct(ip: &mut Interp, base: &Value, this: &Value) -> bool {
    if !is_server(base) {
        return false;
    }
    let at = match this {
        Value::Obj(o) => o.class.borrow().as_ref().map(|cv| (cv.file, cv.class.line)),
        _ => None,
    };
    if let Some((file, line)) = at {
        ip.overnight_server(this.clone(), file, line);
    }
    true
}

/// The verb a method decorator of the package stands for: Nest's names
/// (`@Get`, …, `@All`, `@Search`), without Nest's `@Sse`.
fn verb_of(name: &str) -> Option<&'static str> {
    (name != "Sse")
        .then(|| crate::libs::nest::verb_of(name))
        .flatten()
}

impl Interp {
    /// `Server`'s constructor on `this` (a subclass's instance, or a new
    /// object for `new Server()`): the app it creates, as `this.app`, and
    /// `addControllers` bound to it. Returns `this`.
    pub(crate) fn overnight_server(&mut self, this: Value, file: FileId, line: u32) -> Value {
        let this = match this {
            o @ Value::Obj(_) => o,
            _ => Value::Obj(ObjData::new()),
        };
        let Value::Router(app) = self.new_router(file, line, true) else {
            return this;
        };
        self.set_member(&this, "app", Value::Router(app));
        self.set_member(
            &this,
            "addControllers",
            Value::Builtin(Builtin::AddControllers(app)),
        );
        this
    }

    /// `addControllers(controllers, routerLib?, globalMiddleware?)` on the
    /// server whose app is `app`.
    pub(crate) fn overnight_add_controllers(
        &mut self,
        ctx: &Ctx,
        app: u32,
        argv: &[Value],
        args: &[Expr],
        line: u32,
    ) -> Value {
        if self.modes.event_mode {
            return Value::Undef;
        }
        let given = argv.first().map(|v| self.force_deep(v.clone()));
        let controllers = match given {
            Some(Value::Arr(a)) => a.borrow().clone(),
            Some(v) => vec![v],
            None => Vec::new(),
        };
        let global_mw = args.get(2).map(guard_name);
        for c in controllers {
            let c = self.force_deep(c);
            if matches!(c, Value::Undef | Value::Null) {
                continue;
            }
            let Some((base, router)) = self.overnight_router(&c) else {
                if c.is_unknown() {
                    let text = args.first().map(expr_text).unwrap_or_default();
                    self.finding(
                        FindingCode::DynamicMount,
                        ctx.file,
                        line,
                        format!("a controller in `addControllers({text})` is only known at run time: its routes are not charted"),
                    );
                }
                continue;
            };
            let mut handlers: Vec<UseHandler> = global_mw
                .iter()
                .cloned()
                .map(|n| UseHandler::Middleware(n, None))
                .collect();
            handlers.push(UseHandler::Router(router));
            self.rec.routers[router as usize].mounted = true;
            let kind = RegKind::Use {
                paths: vec![PathArg::Str(base)],
                handlers,
            };
            self.push_reg(app, kind, ctx.file, line, None, None);
        }
        Value::Undef
    }

    /// `Server.getRouter(controller)`: the controller's base path and its
    /// router, if its class has `@Controller(path)`.
    fn overnight_router(&mut self, instance: &Value) -> Option<(String, u32)> {
        let Value::Obj(o) = instance else {
            return None;
        };
        let cv = o.class.borrow().clone()?;
        let ctx = self.class_ctx(&cv);
        let c = cv.class.clone();
        let mut base = None;
        let mut class_mw: Vec<(u32, Vec<String>)> = Vec::new();
        let mut children: Vec<Value> = Vec::new();
        for d in &c.decorators {
            let Some(name) = self.overnight_decorator(&ctx, d) else {
                continue;
            };
            match name.as_str() {
                // (`'/' + path`, so `@Controller()` serves `/undefined`.)
                "Controller" => {
                    let p = match self.overnight_path(&ctx, cv.file, d)? {
                        Some(PathArg::Str(p)) => p,
                        // (Not captured: `'/' + /re/` is a string of the literal.)
                        Some(PathArg::Regex(_)) => return None,
                        None => "undefined".into(),
                    };
                    base = Some(format!("/{p}"));
                }
                "ClassMiddleware" => class_mw.push((d.line, middleware_names(&d.args))),
                "ChildControllers" | "Children" => {
                    if let Some(a) = d.args.first() {
                        let v = self.eval(&ctx, a);
                        match self.force_deep(v) {
                            Value::Arr(items) => children.extend(items.borrow().iter().cloned()),
                            v => children.push(v),
                        }
                    }
                }
                _ => {}
            }
        }
        let base = base?;
        let Value::Router(router) = self.new_router(cv.file, c.line, false) else {
            return None;
        };
        for (line, names) in class_mw {
            let handlers = names
                .into_iter()
                .map(|n| UseHandler::Middleware(n, None))
                .collect();
            let kind = RegKind::Use {
                paths: vec![PathArg::Str("/".into())],
                handlers,
            };
            self.push_reg(router, kind, cv.file, line, None, None);
        }
        let class_name = c.name.clone().unwrap_or_else(|| "<anonymous>".into());
        for (member, decs) in &c.member_decorators {
            let mut mw: Vec<String> = Vec::new();
            let mut verbs: Vec<(&'static str, &Decorator)> = Vec::new();
            for d in decs {
                match self.overnight_decorator(&ctx, d).as_deref() {
                    Some("Middleware") => mw.extend(middleware_names(&d.args)),
                    Some(n) => verbs.extend(verb_of(n).map(|v| (v, d))),
                    None => {}
                }
            }
            if verbs.is_empty() {
                continue;
            }
            let handler = match self.member(instance, member) {
                f @ Value::Func(_) => Some(f),
                _ => None,
            };
            let at = c
                .methods
                .iter()
                .find(|(n, _)| n == member)
                .map(|(_, f)| (cv.file, f.line));
            for (verb, d) in verbs {
                let Some(path) = self.overnight_path(&ctx, cv.file, d) else {
                    continue;
                };
                let kind = RegKind::Route {
                    method: verb.to_string(),
                    paths: vec![match path {
                        Some(PathArg::Str(p)) => PathArg::Str(format!("/{p}")),
                        Some(r) => r,
                        None => PathArg::Str(String::new()),
                    }],
                    middleware: mw.clone(),
                    handler: Some(HandlerRef {
                        name: format!("{class_name}.{member}"),
                        at,
                    }),
                    contract: Rc::default(),
                    funcs: handler.iter().cloned().collect(),
                    subpaths: false,
                };
                self.push_reg(router, kind, cv.file, d.line, None, None);
            }
        }
        for child in children {
            let child = self.force_deep(child);
            if let Some((path, r)) = self.overnight_router(&child) {
                self.rec.routers[r as usize].mounted = true;
                let kind = RegKind::Use {
                    paths: vec![PathArg::Str(path)],
                    handlers: vec![UseHandler::Router(r)],
                };
                self.push_reg(router, kind, cv.file, c.line, None, None);
            }
        }
        Some((base, router))
    }

    /// The package's decorator this is, if it is one.
    fn overnight_decorator(&mut self, ctx: &Ctx, d: &Decorator) -> Option<String> {
        match self.decorator_origin(ctx, d) {
            Some((p, n)) if p == PKG => Some(n),
            _ => None,
        }
    }

    /// A decorator's path argument: `Some(None)` when there is none,
    /// `None` (with a `dynamic-path` finding) when it is only known at run
    /// time.
    fn overnight_path(
        &mut self,
        ctx: &Ctx,
        file: FileId,
        d: &Decorator,
    ) -> Option<Option<PathArg>> {
        let Some(a) = d.args.first() else {
            return Some(None);
        };
        let v = self.eval(ctx, a);
        match self.force_deep(v) {
            Value::Undef => Some(None),
            Value::Regex(r) => {
                let r = front_slash(&r);
                self.finding(
                    FindingCode::RegexPath,
                    file,
                    d.line,
                    format!("route path is a regular expression `{r}`; OpenAPI cannot express it exactly"),
                );
                Some(Some(PathArg::Regex(r)))
            }
            v => match v.as_text() {
                Some(t) => Some(Some(PathArg::Str(t))),
                None => {
                    self.finding(
                        FindingCode::DynamicPath,
                        file,
                        d.line,
                        format!(
                            "the path of `@{}({})` is only known at run time: its routes are not charted",
                            expr_text(&d.callee),
                            expr_text(a)
                        ),
                    );
                    None
                }
            },
        }
    }
}

/// A verb decorator's regular expression as the package rewrites it
/// (`addForwardSlashToFrontOfRegex`, flags dropped): `/^api$/` becomes
/// `/\/api$/`, `/api/` becomes `/\/.*api/`.
fn front_slash(literal: &str) -> String {
    let body = literal.strip_prefix('/').unwrap_or(literal);
    let body = body.rsplit_once('/').map_or(body, |(b, _)| b);
    match body.strip_prefix('^') {
        Some(rest) => format!("/\\/{rest}/"),
        None => format!("/\\/.*{body}/"),
    }
}

/// The names of middleware given as `mw` or `[mw, …]`.
fn middleware_names(args: &[Expr]) -> Vec<String> {
    match args.first() {
        Some(Expr::Array(items)) => items.iter().map(guard_name).collect(),
        Some(e) => vec![guard_name(e)],
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::front_slash;

    #[test]
    fn regex_paths_get_the_leading_slash_the_package_adds() {
        assert_eq!(front_slash("/^rain$/"), "/\\/rain$/");
        assert_eq!(front_slash("/ane/"), "/\\/.*ane/");
    }
}
