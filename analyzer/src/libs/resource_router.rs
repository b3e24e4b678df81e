//! `resource-router-middleware`: an Express router made from a resource
//! object (the REST boilerplates' `export default ({ config, db }) =>
//! resource({ id: 'order', load, list, create, read, update, delete })`,
//! mounted with `api.use('/order', …)`).
//!
//! Captures what the package does (version 0.7): `resource(route)` makes an
//! Express `Router()`, and for each key of `route`, in order, the method
//! `map[key] || key` (`index`/`list`/`read` → `get`, `create` → `post`,
//! `update` → `put`, `modify` → `patch`) registers the key's function when
//! the router has that method (`get`, `post`, `put`, `patch`, `delete`,
//! `all`, …; not `del`, which an Express 4 router lacks), at `'/:' +
//! route.id` for the keyed actions (`get`, `read`, `put`, `patch`,
//! `update`, `delete`) and `/` for the others. Each route is sited at the
//! `resource(` call, its handler the key's function (its contract read as
//! any route's); `route.middleware` runs before them (`router.use`).
//!
//! Example: `api.use('/order', resource({ id: 'order', list, create, read }))`
//! is `GET /order`, `POST /order`, `GET /order/:order`.
//!
//! Deliberately not captured: `load`, which `router.param(route.id, …)`
//! runs to load the resource (a 404 when it fails), and `mergeParams`.
//! A resource object only known at run time is a `package-router` finding.

use crate::ir::{Call, Expr, ObjProp, PropKey};
use crate::machine::*;

/// The package.
pub(crate) const PACKAGE: &str = "resource-router-middleware";

/// The value of the package's default export (the `resource` function).
pub(crate) fn default_export(pkg: &str) -> Option<Value> {
    (pkg == PACKAGE).then(|| Value::Builtin(Builtin::Framework(Rc::from(PACKAGE))))
}

/// A member of the package's module: `default` for an ES import.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (prop == "default").then(|| default_export(pkg)).flatten()
}

/// The router method a resource key registers with (`map[key] || key`),
/// when an Express router has it, and whether it is served at `/:id`.
fn key_route(key: &str) -> Option<(&'static str, bool)> {
    let method = match key {
        "index" | "list" | "read" => "get",
        "create" => "post",
        "update" => "put",
        "modify" => "patch",
        // (`del` is no method of an Express 4 router.)
        "del" => return None,
        k => HTTP_VERBS.iter().copied().find(|v| *v == k)?,
    };
    let keyed = matches!(key, "get" | "read" | "put" | "patch" | "update" | "delete");
    Some((method, keyed))
}

/// The census's routes of `resource({ … })` written with an object: the
/// keys that register, each with its method (see [`key_route`]).
pub(crate) fn census_routes(args: &[Expr]) -> Vec<&'static str> {
    let Some(Expr::Object(props)) = args.first() else {
        return Vec::new();
    };
    props
        .iter()
        .filter_map(|p| match p {
            ObjProp::Method(PropKey::Name(k), _) => Some(k),
            ObjProp::KeyValue(
                PropKey::Name(k),
                Expr::Func(_) | Expr::Ident(_) | Expr::Member(..) | Expr::Call(_),
            ) => Some(k),
            _ => None,
        })
        .filter_map(|k| key_route(k).map(|(m, _)| m))
        .collect()
}

impl Interp {
    /// `resource(route)` (see the module doc): the router it makes.
    pub(crate) fn resource_router(&mut self, ctx: &Ctx, argv: &[Value], line: u32) -> Value {
        let router = self.new_router(ctx.file, line, false);
        let Value::Router(id) = router else {
            return router;
        };
        let route = match argv.first().map(|v| self.force_deep(v.clone())) {
            Some(Value::Obj(o)) => o,
            _ => {
                if !self.modes.event_mode {
                    self.finding(
                        FindingCode::PackageRouter,
                        ctx.file,
                        line,
                        format!("the resource handed to `{PACKAGE}` is only known at run time: the routes of its router are not charted"),
                    );
                }
                return router;
            }
        };
        // The handlers are bound, under their keys, in a scope of their own,
        // and registered by calls written as the package makes them.
        let scope = Scope::new(Some(ctx.scope.clone()));
        let here = Ctx {
            scope: scope.clone(),
            ..ctx.clone()
        };
        let call = |callee: &str, args: Vec<Expr>| Call {
            callee: Expr::Member(Box::new(Expr::Ident("router".into())), callee.into()),
            args,
            line,
            type_args: Vec::new(),
            doc: None,
        };
        scope.define("router", router.clone());
        if let Some(mw) = route.get("middleware") {
            // Named as the function is (`middleware: audit` is `audit`).
            let name = match self.force_deep(mw.clone()) {
                Value::Func(c) => c.func.name.clone(),
                _ => None,
            }
            .unwrap_or_else(|| "middleware".into());
            scope.define(&name, mw);
            self.register_use(&here, id, &call("use", vec![Expr::Ident(name)]));
        }
        let id_text = match route.get("id").map(|v| self.force_deep(v)) {
            Some(v @ Value::Str(_)) => v.as_text(),
            None | Some(Value::Undef) => Some("undefined".to_string()),
            Some(_) => None,
        };
        for (key, handler) in route.entries() {
            let Some((method, keyed)) = key_route(&key) else {
                continue;
            };
            if !matches!(self.force_deep(handler.clone()), Value::Func(_)) {
                continue;
            }
            let path = match (&id_text, keyed) {
                (_, false) => "/".to_string(),
                (Some(id), true) => format!("/:{id}"),
                (None, true) => {
                    if !self.modes.event_mode {
                        self.finding(
                            FindingCode::DynamicPath,
                            ctx.file,
                            line,
                            format!("the `id` of this `{PACKAGE}` resource is only known at run time: its `{key}` route at `/:id` is not charted"),
                        );
                    }
                    continue;
                }
            };
            scope.define(&key, handler);
            let c = call(method, vec![Expr::Str(path), Expr::Ident(key.clone())]);
            self.router_method(&here, id, method, &c);
        }
        router
    }
}

#[cfg(test)]
mod tests {
    use super::key_route;

    #[test]
    fn keys_map_to_the_package_methods() {
        assert_eq!(key_route("list"), Some(("get", false)));
        assert_eq!(key_route("read"), Some(("get", true)));
        assert_eq!(key_route("update"), Some(("put", true)));
        assert_eq!(key_route("modify"), Some(("patch", false)));
        assert_eq!(key_route("delete"), Some(("delete", true)));
        assert_eq!(key_route("del"), None);
        assert_eq!(key_route("load"), None);
        assert_eq!(key_route("id"), None);
    }
}
