//! Sails.js (`sails`): the routes of `config/routes.js` and the policies of
//! `config/policies.js`.
//!
//! A Sails application never calls `express()` itself: `sails.lift()` makes
//! the Express app and binds the routes the project's configuration lists.
//! The repository determines them, so they are charted as Sails binds them.
//!
//! Captures: for every package.json that depends on `sails` and has
//! `config/routes.js` beside it, one app, sited at that package.json. Each
//! key of `module.exports.routes` is a route: `'VERB /path'` (any case; no
//! verb is every method, as Sails binds it), its value the target: an action
//! path (`'users/index'` is `api/controllers/users/index.js`, an actions2
//! machine whose `fn` is the handler, or a function), a controller action
//! (`'UserController.find'`, `{ controller: 'User', action: 'find' }`),
//! `{ action: 'x/y' }`, a view (`{ view: 'pages/home' }`), a response
//! (`{ response: 'notFound' }`) or a function. The route's middleware are
//! its action's policies in `config/policies.js` (the action's own entry,
//! else its controller's, else `'*'`; `true` is none, `false` is Sails'
//! refusal).
//!
//! Deliberately not captured, each said by a finding: routes whose action
//! is in no file of `api/controllers/` (Sails ignores them at lift, unless an
//! installed hook provides the action), blueprint routes (the
//! REST and shortcut routes Sails makes for every model of `api/models`
//! unless `config/blueprints.js` turns them off), regular-expression route
//! keys, targets the analysis cannot read, and the socket messages of
//! `sails.sockets` (`broadcast`, `blast`, `join`): Sails' own protocol over
//! Socket.IO, which the event inventory does not model.

use crate::machine::*;
use crate::project::Project;
use std::collections::HashMap;

/// The folders of Sails applications: each package.json that depends on
/// `sails` and has `config/routes.js` beside it, as (its folder with a
/// trailing `/`, or `""` at the root).
fn sails_dirs(project: &Project) -> Vec<String> {
    project
        .packages
        .iter()
        .filter(|p| {
            ["dependencies", "devDependencies"]
                .iter()
                .filter_map(|k| p.json.get(k).and_then(|d| d.as_object()))
                .any(|d| d.contains_key("sails"))
        })
        .map(|p| {
            if p.dir.is_empty() {
                String::new()
            } else {
                format!("{}/", p.dir)
            }
        })
        .filter(|dir| project.file_id(&format!("{dir}config/routes.js")).is_some())
        .collect()
}

/// A route key: (method, path); `None` for a key Sails reads as a regular
/// expression (`r|^/x|`) or that is not a route.
fn route_key(key: &str) -> Option<(String, String)> {
    let key = key.trim();
    if key.starts_with("r|") {
        return None;
    }
    let (verb, path) = match key.split_once(char::is_whitespace) {
        Some((v, p)) if !v.starts_with('/') => (v.to_ascii_lowercase(), p.trim()),
        _ => ("all".to_string(), key),
    };
    if !path.starts_with('/') || path.starts_with("r|") {
        return None;
    }
    let known = [
        "get", "post", "put", "patch", "delete", "head", "options", "all",
    ];
    known
        .contains(&verb.as_str())
        .then(|| (verb, path.to_string()))
}

/// What a route's target names: an action (`users/index`,
/// `UserController.find` as `user/find`), or a handler that is no action
/// (a view, a response) with its label.
enum Target {
    Action(String),
    Other(String),
    Func(Value),
    /// Middleware and a handler, the handler last.
    Funcs(Vec<Value>),
}

impl Interp {
    /// The apps Sails makes from the repository's route configuration (see
    /// the module doc).
    pub(crate) fn sails_apps(&mut self) {
        let project = self.loader.project.clone();
        for dir in sails_dirs(&project) {
            let Some(routes_file) = project.file_id(&format!("{dir}config/routes.js")) else {
                continue;
            };
            self.run_module(routes_file);
            let routes = self.export_of(routes_file, "routes", 0);
            let routes = self.force_deep(routes);
            let Value::Obj(routes) = routes else {
                self.finding(
                    FindingCode::UnmodelledFramework,
                    routes_file,
                    1,
                    "Sails' `module.exports.routes` of this file is only known at run time: its routes are not charted".into(),
                );
                continue;
            };
            let policies = self.sails_policies(&project, &dir);
            let identities = action_identities(&project, &dir);
            let Value::Router(app) = self.new_router(routes_file, 1, true) else {
                continue;
            };
            let manifest = format!("{dir}package.json");
            self.rec.routers[app as usize].manifest = Some(Rc::from(manifest.as_str()));
            let text = std::fs::read_to_string(project.abs(routes_file)).unwrap_or_default();
            for (key, target) in routes.entries() {
                let key_line = line_of_key(&text, &key);
                let Some((method, path)) = route_key(&key) else {
                    self.finding(
                        FindingCode::RegexPath,
                        routes_file,
                        key_line,
                        format!("the Sails route `{key}` is not a `VERB /path` key (a regular expression, or no path): it is not charted"),
                    );
                    continue;
                };
                let target = self.force_deep(target);
                let target = match self.sails_target(target) {
                    Some(t) => t,
                    None => {
                        self.finding(
                            FindingCode::DynamicCall,
                            routes_file,
                            key_line,
                            format!("the target of the Sails route `{key}` is only known at run time: the route is not charted"),
                        );
                        continue;
                    }
                };
                // The route's own middleware (`fn: [mw, handler]`) run after its policies.
                let mut own_mw = Vec::new();
                let (name, funcs, at) = match target {
                    Target::Action(action) => {
                        let (funcs, at) = self.sails_action(&project, &identities, &action);
                        if at.is_none() {
                            self.finding(
                                FindingCode::UnresolvedImport,
                                routes_file,
                                key_line,
                                format!("the action `{action}` of the Sails route `{key}` is in no file of `{dir}api/controllers/` (an installed hook may provide it; else Sails ignores the route): it is not charted"),
                            );
                            continue;
                        }
                        (action, funcs, at)
                    }
                    Target::Other(label) => (label, Vec::new(), None),
                    Target::Func(f) => {
                        let at = match &f {
                            Value::Func(c) => Some((c.file, c.func.line)),
                            _ => None,
                        };
                        ("function".to_string(), vec![f], at)
                    }
                    Target::Funcs(fs) => {
                        let at = match fs.last() {
                            Some(Value::Func(c)) => Some((c.file, c.func.line)),
                            _ => None,
                        };
                        own_mw = fs[..fs.len() - 1]
                            .iter()
                            .map(|f| match f {
                                Value::Func(c) => c
                                    .func
                                    .name
                                    .clone()
                                    .unwrap_or_else(|| "<anonymous>".to_string()),
                                _ => "<unknown>".to_string(),
                            })
                            .collect();
                        ("function".to_string(), fs, at)
                    }
                };
                let mut middleware = policies_of(&policies, &name);
                middleware.extend(own_mw);
                let (file, line) = at.unwrap_or((routes_file, key_line));
                let kind = RegKind::Route {
                    method,
                    paths: vec![PathArg::Str(path)],
                    middleware,
                    handler: Some(HandlerRef { name, at }),
                    contract: Rc::new(RefCell::new(RawContract::default())),
                    funcs,
                    subpaths: false,
                };
                self.push_reg(app, kind, file, line, None, None);
            }
            self.sails_unmodelled(&project, &dir, routes_file);
        }
    }

    /// A route's target (see [`Target`]).
    fn sails_target(&mut self, v: Value) -> Option<Target> {
        match v {
            Value::Func(_) => Some(Target::Func(v)),
            Value::Obj(o) => {
                let text = |k: &str| o.get(k).and_then(|v| v.as_text());
                if let Some(action) = text("action") {
                    return Some(Target::Action(match text("controller") {
                        Some(c) => controller_action(&format!("{c}.{action}")),
                        None => controller_action(&action),
                    }));
                }
                if let Some(view) = text("view") {
                    return Some(Target::Other(format!("view {view}")));
                }
                if let Some(response) = text("response") {
                    return Some(Target::Other(format!("response {response}")));
                }
                // `fn: [middleware..., handler]` runs as a route's functions do.
                match o.get("fn") {
                    Some(f @ Value::Func(_)) => Some(Target::Func(f)),
                    Some(Value::Arr(a)) => {
                        let fs = a.borrow().clone();
                        match fs.last() {
                            Some(Value::Func(_)) => Some(Target::Funcs(fs)),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            v => Some(Target::Action(controller_action(&v.as_text()?))),
        }
    }

    /// The functions of an action and where its handler is: an actions2
    /// machine's `fn`, a module that is a function, or a controller's method.
    fn sails_action(
        &mut self,
        project: &Project,
        identities: &HashMap<String, Vec<FileId>>,
        action: &str,
    ) -> (Vec<Value>, Option<(FileId, u32)>) {
        let wanted = action.to_ascii_lowercase();
        let file = identities.get(&wanted).and_then(|files| {
            files
                .iter()
                .copied()
                .find(|&f| !project.rel(f).ends_with(".d.ts"))
        });
        if let Some(file) = file {
            self.run_module(file);
            let module = self.export_of(file, "default", 0);
            let module = match self.force(module, 0) {
                Value::Obj(o) => o.get("fn").unwrap_or(Value::Undef),
                v => v,
            };
            return match module {
                Value::Func(c) => {
                    let at = Some((c.file, c.func.line));
                    (vec![Value::Func(c)], at)
                }
                _ => (Vec::new(), Some((file, 1))),
            };
        }
        // `user/find` of a controller file (`api/controllers/UserController.js`).
        let Some((controller, method)) = action.rsplit_once('/') else {
            return (Vec::new(), None);
        };
        let wanted = format!("{controller}controller");
        let Some(&file) = identities.get(&wanted).and_then(|files| files.first()) else {
            return (Vec::new(), None);
        };
        self.run_module(file);
        match self.export_of(file, method, 0) {
            Value::Func(c) => {
                let at = Some((c.file, c.func.line));
                (vec![Value::Func(c)], at)
            }
            _ => (Vec::new(), Some((file, 1))),
        }
    }

    /// `config/policies.js`: (action or controller key, policy names), in order.
    fn sails_policies(&mut self, project: &Project, dir: &str) -> Vec<(String, Vec<String>)> {
        let Some(file) = project.file_id(&format!("{dir}config/policies.js")) else {
            return Vec::new();
        };
        self.run_module(file);
        let v = self.export_of(file, "policies", 0);
        let Value::Obj(o) = self.force_deep(v) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, v) in o.entries() {
            let names = |v: &Value| -> Vec<String> {
                match v {
                    Value::Arr(a) => a.borrow().iter().filter_map(|p| p.as_text()).collect(),
                    Value::Bool(false) => vec!["policy false (refused)".to_string()],
                    Value::Bool(true) => Vec::new(),
                    v => v.as_text().into_iter().collect(),
                }
            };
            match self.force_deep(v) {
                // `UserController: { '*': 'isLoggedIn', find: true }`.
                Value::Obj(inner) => {
                    let controller = controller_key(&key);
                    for (k, v) in inner.entries() {
                        let v = self.force_deep(v);
                        out.push((format!("{controller}/{k}"), names(&v)));
                    }
                }
                v => out.push((key, names(&v))),
            }
        }
        out
    }

    /// Findings for what Sails serves that is not charted: blueprint routes
    /// of the models, and `sails.sockets` messages.
    fn sails_unmodelled(&mut self, project: &Project, dir: &str, routes_file: FileId) {
        let models = format!("{dir}api/models/");
        let count = project
            .files
            .iter()
            .filter(|f| {
                f.rel
                    .strip_prefix(&models)
                    .is_some_and(|m| !m.contains('/') && (m.ends_with(".js") || m.ends_with(".ts")))
            })
            .count();
        let blueprints = project
            .file_id(&format!("{dir}config/blueprints.js"))
            .map(|file| {
                self.run_module(file);
                let v = self.export_of(file, "blueprints", 0);
                (file, self.force_deep(v))
            });
        let off = |k: &str| match &blueprints {
            Some((_, Value::Obj(o))) => matches!(o.get(k), Some(Value::Bool(false))),
            _ => false,
        };
        let on: Vec<&str> = ["rest", "shortcuts"]
            .into_iter()
            .filter(|k| !off(k))
            .collect();
        if count > 0 && !on.is_empty() {
            let (file, why) = match &blueprints {
                Some((f, _)) => (*f, "as this file leaves them on"),
                None => (
                    routes_file,
                    "Sails' default, as no config/blueprints.js turns them off",
                ),
            };
            self.finding(
                FindingCode::UnmodelledFramework,
                file,
                1,
                format!(
                    "Sails makes blueprint routes ({}) for the {count} model{} of `{models}` ({why}): they are not charted",
                    on.join(", "),
                    if count == 1 { "" } else { "s" }
                ),
            );
        }
        let socket_site = project.files.iter().enumerate().find_map(|(i, f)| {
            // (`sails.sockets.` holds the prefilter's word `socket`.)
            if !f.rel.starts_with(dir)
                || !(f.rel.ends_with(".js") || f.rel.ends_with(".ts"))
                || self.loader.needles_of(i as FileId) & needle::SOCKET == 0
            {
                return None;
            }
            let text = std::fs::read_to_string(project.abs(i as FileId)).ok()?;
            let at = text.find("sails.sockets.")?;
            Some((i as FileId, text[..at].matches('\n').count() as u32 + 1))
        });
        if let Some((file, line)) = socket_site {
            self.finding(
                FindingCode::UnmodelledFramework,
                file,
                line,
                "Sails' socket messages (`sails.sockets.broadcast`, `blast`, `join`) are Sails' own protocol over Socket.IO: they are not charted as events".into(),
            );
        }
    }
}

/// Sails' identity of each file below `api/controllers/`: its path without
/// the extension, lower-cased (`Auth/login.js` is `auth/login`), with the
/// files that have it in the project's order.
fn action_identities(project: &Project, dir: &str) -> HashMap<String, Vec<FileId>> {
    let controllers = format!("{dir}api/controllers/");
    let mut out: HashMap<String, Vec<FileId>> = HashMap::new();
    for (i, f) in project.files.iter().enumerate() {
        let Some(below) = f.rel.strip_prefix(&controllers) else {
            continue;
        };
        let Some((stem, ext)) = below.rsplit_once('.') else {
            continue;
        };
        if matches!(ext, "js" | "ts" | "cjs" | "mjs") {
            out.entry(stem.to_ascii_lowercase())
                .or_default()
                .push(i as FileId);
        }
    }
    out
}

/// The line of a route key in the routes file's text (`'GET /x':`), 1 when
/// it is not written as a quoted key.
fn line_of_key(text: &str, key: &str) -> u32 {
    ['\'', '"', '`']
        .iter()
        .find_map(|q| text.find(&format!("{q}{key}{q}")))
        .map_or(1, |at| text[..at].matches('\n').count() as u32 + 1)
}

/// `UserController.find` and `User.find` as Sails' action path `user/find`;
/// a path (`users/index`) as it is.
fn controller_action(target: &str) -> String {
    match target.rsplit_once('.') {
        Some((controller, method)) if !controller.contains('/') => {
            format!("{}/{method}", controller_key(controller))
        }
        _ => target.to_string(),
    }
}

/// `UserController` as `user` (Sails lower-cases a controller's identity).
fn controller_key(controller: &str) -> String {
    controller
        .strip_suffix("Controller")
        .unwrap_or(controller)
        .to_ascii_lowercase()
}

/// The policies of an action: its own entry, its controller's `'*'`, else
/// the global `'*'`; `true` (no names) is none.
fn policies_of(policies: &[(String, Vec<String>)], action: &str) -> Vec<String> {
    let controller_star = action.rsplit_once('/').map(|(c, _)| format!("{c}/*"));
    let find = |k: &str| {
        policies
            .iter()
            .find(|(p, _)| p.eq_ignore_ascii_case(k))
            .map(|(_, v)| v.clone())
    };
    find(action)
        .or_else(|| controller_star.as_deref().and_then(find))
        .or_else(|| find("*"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_targets_and_policies() {
        assert_eq!(
            route_key("GET /api/users/:id"),
            Some(("get".into(), "/api/users/:id".into()))
        );
        assert_eq!(route_key("/about"), Some(("all".into(), "/about".into())));
        assert_eq!(route_key("patch  /x"), Some(("patch".into(), "/x".into())));
        assert_eq!(route_key("r|^/x|"), None);
        assert_eq!(route_key("GET r|^/x|"), None);
        assert_eq!(route_key("FETCH /x"), None);
        assert_eq!(controller_action("UserController.find"), "user/find");
        assert_eq!(
            controller_action("BoardMembershipController.create"),
            "boardmembership/create"
        );
        assert_eq!(controller_action("users/index"), "users/index");
        let p = vec![
            ("*".to_string(), vec!["is-authenticated".to_string()]),
            ("users/create".to_string(), vec!["is-admin".to_string()]),
            ("users/show".to_string(), vec![]),
        ];
        assert_eq!(policies_of(&p, "users/create"), vec!["is-admin"]);
        assert_eq!(policies_of(&p, "users/show"), Vec::<String>::new());
        assert_eq!(policies_of(&p, "boards/index"), vec!["is-authenticated"]);
    }
}
