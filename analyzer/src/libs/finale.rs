//! REST resource generators over Sequelize models: `finale-rest` and
//! `epilogue`, the package it was forked from (one API).
//!
//! Captures: `initialize({ app, sequelize, base?, updateMethod? })`, which
//! sets the module object's app, the `base` prefixed to every endpoint (by
//! string concatenation, as the library does: `base + endpoint`) and the
//! update method (`PUT` unless `PUT`/`POST`/`PATCH` is given); and each
//! `resource({ model, endpoints, actions? })`, which registers at once, on
//! that app and in the library's order, one route per action: `create`
//! (`POST` plural), `read` (`GET` singular), `update` (update method,
//! singular), `delete` (`DELETE` singular), `list` (`GET` plural), where
//! plural is `endpoints[0]` and singular `endpoints[1]` (else the plural).
//! Each route is sited at the `resource(` call; its handler is the
//! library's (named `finale-rest create`, …).
//!
//! Example: `finale.initialize({ app, sequelize, base: '/api' })` then
//! `finale.resource({ model: Note, endpoints: ['/notes', '/notes/:id'] })`
//! is `POST /api/notes`, `GET /api/notes/:id`, `PUT /api/notes/:id`,
//! `DELETE /api/notes/:id`, `GET /api/notes`.
//!
//! Findings (`package-router`, routes not charted): a `resource(...)` that
//! runs before any `initialize(...)` (the library would throw), and
//! `associations`, which adds a route per association of the model (only
//! known to Sequelize at run time); `dynamic-path` when the endpoints are
//! left to the model's name (`inflection.pluralize(model.name)`) or only
//! known at run time.
//!
//! Deliberately not captured: the milestone hooks (`resource.list.fetch.before(…)`,
//! `resource.use(…)`), which change what a route does and not which routes
//! there are; the request parameters the list action reads (`q`, `sort`,
//! `offset`, `count`, `page`).

use crate::machine::*;

/// The packages of this family, as code imports them.
const PACKAGES: [&str; 2] = ["finale-rest", "epilogue"];

/// What `initialize(...)` set on one package's module object.
#[derive(Clone, Debug)]
pub(crate) struct Initialized {
    app: u32,
    base: String,
    update_method: String,
}

/// The module objects initialized so far, by package.
#[derive(Default)]
pub(crate) struct Finale {
    initialized: Vec<(&'static str, Initialized)>,
}

/// A member of the module object (`finale.resource`), or of `default` for
/// an ES import.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    let pkg = PACKAGES.into_iter().find(|p| *p == pkg)?;
    match prop {
        "initialize" | "resource" => Some(Value::Builtin(Builtin::Framework(Rc::from(
            format!("{pkg}.{prop}").as_str(),
        )))),
        "default" => Some(Value::Builtin(Builtin::OpaqueModule(Rc::from(pkg)))),
        _ => None,
    }
}

/// The actions a resource has unless `actions` says otherwise, in the
/// order the library registers them.
const ACTIONS: [&str; 5] = ["create", "read", "update", "delete", "list"];

/// An action's method and whether it is served at the plural endpoint.
fn action_route<'a>(action: &str, update_method: &'a str) -> Option<(&'a str, bool)> {
    Some(match action {
        "create" => ("post", true),
        "read" => ("get", false),
        "update" => (update_method, false),
        "delete" => ("delete", false),
        "list" => ("get", true),
        _ => return None,
    })
}

impl Interp {
    /// `initialize(options)` and `resource(options)` of one of the packages
    /// (`name` is `finale-rest.resource`), if `name` is one.
    pub(crate) fn finale_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        let (pkg, f) = name.split_once('.')?;
        let pkg = PACKAGES.into_iter().find(|p| *p == pkg)?;
        let opts = match argv.first().map(|v| self.force_deep(v.clone())) {
            Some(Value::Obj(o)) => Some(o),
            _ => None,
        };
        match f {
            "initialize" => {
                self.finale_initialize(ctx, pkg, opts, line);
                Some(Value::Undef)
            }
            "resource" => {
                if !self.modes.event_mode {
                    self.finale_resource(ctx, pkg, opts, line);
                }
                // The package's `Resource`: its `use(milestones)` and hooks
                // are no Express registrations.
                Some(Value::external())
            }
            _ => None,
        }
    }

    fn finale_initialize(
        &mut self,
        ctx: &Ctx,
        pkg: &'static str,
        opts: Option<Rc<ObjData>>,
        line: u32,
    ) {
        let app = opts
            .as_ref()
            .and_then(|o| o.get("app"))
            .map(|v| self.force_deep(v));
        let Some((Value::Router(app), o)) = app.zip(opts) else {
            self.finding(
                FindingCode::PackageRouter,
                ctx.file,
                line,
                format!("the `app` of `{pkg}`'s `initialize(...)` is only known at run time: the routes of its resources are not charted"),
            );
            return;
        };
        let what = format!("the `base` of `{pkg}`'s `initialize(...)`");
        let base = self
            .path_option(ctx, line, &o, "base", &what)
            .unwrap_or_default();
        let update_method = o
            .get("updateMethod")
            .and_then(|v| self.force_deep(v).as_text())
            .map(|m| m.to_ascii_lowercase())
            .filter(|m| matches!(m.as_str(), "put" | "post" | "patch"))
            .unwrap_or_else(|| "put".to_string());
        let init = Initialized {
            app,
            base,
            update_method,
        };
        let slot = &mut self.libs.finale.initialized;
        slot.retain(|(p, _)| *p != pkg);
        slot.push((pkg, init));
    }

    fn finale_resource(
        &mut self,
        ctx: &Ctx,
        pkg: &'static str,
        opts: Option<Rc<ObjData>>,
        line: u32,
    ) {
        let init = self
            .libs
            .finale
            .initialized
            .iter()
            .find(|(p, _)| *p == pkg)
            .map(|(_, i)| i.clone());
        let Some(init) = init else {
            self.finding(
                FindingCode::PackageRouter,
                ctx.file,
                line,
                format!("this `{pkg}` resource is declared before any `initialize({{ app }})` ran (the package would throw): its routes are not charted"),
            );
            return;
        };
        let Some(o) = opts else {
            return;
        };
        let endpoints = match o.get("endpoints").map(|v| self.force_deep(v)) {
            Some(Value::Arr(a)) => {
                let items = a.borrow().clone();
                let texts: Option<Vec<String>> = items
                    .into_iter()
                    .map(|v| self.force_deep(v).as_text())
                    .collect();
                texts
                    .filter(|t| !t.is_empty())
                    .ok_or("only known at run time")
            }
            None | Some(Value::Undef) => Err(
                "named after the model (`inflection.pluralize(model.name)`), only known at run time",
            ),
            Some(_) => Err("only known at run time"),
        };
        let endpoints = match endpoints {
            Ok(e) => e,
            Err(why) => {
                self.finding(
                    FindingCode::DynamicPath,
                    ctx.file,
                    line,
                    format!("the endpoints of this `{pkg}` resource are {why}: its routes are not charted"),
                );
                return;
            }
        };
        if o.get("associations")
            .map(|v| self.force_deep(v))
            .is_some_and(|v| !matches!(v, Value::Undef | Value::Bool(false)))
        {
            self.finding(
                FindingCode::PackageRouter,
                ctx.file,
                line,
                format!("`associations` makes `{pkg}` add routes for each association of the model, which only Sequelize knows at run time: those are not charted"),
            );
        }
        let actions: Vec<String> = match o.get("actions").map(|v| self.force_deep(v)) {
            Some(Value::Arr(a)) => self.item_texts(&a),
            _ => ACTIONS.iter().map(|a| a.to_string()).collect(),
        };
        let plural = format!("{}{}", init.base, endpoints[0]);
        let singular = format!("{}{}", init.base, endpoints.get(1).unwrap_or(&endpoints[0]));
        for action in &actions {
            let Some((method, at_plural)) = action_route(action, &init.update_method) else {
                self.finding(
                    FindingCode::DynamicMethod,
                    ctx.file,
                    line,
                    format!(
                        "`{}` is not an action `{pkg}` has (the package would throw): not charted",
                        action.escape_debug()
                    ),
                );
                continue;
            };
            let path = if at_plural { &plural } else { &singular };
            let handler = format!("{pkg} {action}");
            let kind =
                RegKind::package_route(method, vec![PathArg::Str(path.clone())], &handler, false);
            self.push_reg(init.app, kind, ctx.file, line, None, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::action_route;

    #[test]
    fn actions_map_to_the_library_methods() {
        assert_eq!(action_route("update", "patch"), Some(("patch", false)));
        assert_eq!(action_route("list", "put"), Some(("get", true)));
        assert_eq!(action_route("destroy", "put"), None);
    }
}
