//! LoopBack 3: `loopback()` apps set up by `loopback-boot` from the
//! configuration files of the app's folder.
//!
//! Captures: `require('loopback')` is Express's module (`loopback()` makes
//! an Express app, see the table in `libs/mod.rs`); `boot(app, dir[, cb])`
//! of `loopback-boot`, which, as the package does, in this order:
//! - reads `dir/config.json` (`restApiRoot`, `/api` unless given) and
//!   `dir/middleware.json`, one of whose phases (`routes`, `routes:before`,
//!   …) mounts `loopback#rest` at its `paths` (`${restApiRoot}` substituted);
//!   and makes `app.loopback` the module (`app.loopback.Router()`);
//! - defines each model of `dir/model-config.json` from the JSON definitions
//!   in its `_meta.sources` folders (`../common/models` and `./models`
//!   unless given; matched by their `name`), runs the definition's script
//!   (`coffee-shop.js` beside `coffee-shop.json`: `module.exports =
//!   function(CoffeeShop) {…}`) with the model, and, for a public model
//!   (`public` not `false`), charts its REST endpoints under the REST mount
//!   and the model's `http.path` (else `plural`, else the name made plural):
//!   the `PersistedModel` endpoints when its `base` chain reaches
//!   `PersistedModel` (the built-in models `User`, `AccessToken`, `ACL`,
//!   `Role`, `RoleMapping`, `Application` included), less those the script
//!   disables (`disableRemoteMethodByName('create')`), and each
//!   `remoteMethod(name, { http: { path, verb } })` the script declares
//!   (`path` `/name` and verb `post` unless given; an instance method,
//!   `isStatic: false` or a `prototype.` name, under `/:id`);
//! - runs each script of `dir/boot/` in file-name order with `(app, cb)`.
//!
//! Example: `CoffeeShop` (base `PersistedModel`, public) with `restApiRoot`
//! `/api` is `GET /api/CoffeeShops`, `POST /api/CoffeeShops`, `GET
//! /api/CoffeeShops/:id`, … and its script's `remoteMethod('status', {
//! http: { path: '/status', verb: 'get' } })` is `GET /api/CoffeeShops/status`.
//!
//! Findings (`package-router`): what the package adds that is not charted:
//! the endpoints of a model's `relations`, `User`'s own endpoints (`login`,
//! `logout`, …), a public model with no definition in the repository or
//! whose base is unknown, models with REST but no `loopback#rest` in
//! `middleware.json` (mounted in code with `loopback.rest()`, not followed);
//! `dynamic-path` for a folder only known at run time.
//!
//! Deliberately not captured: `config.<env>.json` and `model-config.<env>.json`
//! overrides, mixins, components (`component-config.json`), the remote
//! methods of a model's JSON `methods` and ACLs (access, not routes).

use crate::machine::*;
use serde_json::Value as J;

/// The endpoints `PersistedModel` shares over REST in LoopBack 3, in the
/// order it sets them up: (remote method, verb, path under the model).
const PERSISTED: &[(&str, &str, &str)] = &[
    ("create", "post", "/"),
    ("patchOrCreate", "patch", "/"),
    ("replaceOrCreate", "put", "/"),
    ("replaceOrCreate", "post", "/replaceOrCreate"),
    ("upsertWithWhere", "post", "/upsertWithWhere"),
    ("exists", "get", "/:id/exists"),
    ("exists", "head", "/:id"),
    ("findById", "get", "/:id"),
    ("replaceById", "put", "/:id"),
    ("replaceById", "post", "/:id/replace"),
    ("find", "get", "/"),
    ("findOne", "get", "/findOne"),
    ("updateAll", "post", "/update"),
    ("deleteById", "delete", "/:id"),
    ("count", "get", "/count"),
    ("prototype.patchAttributes", "patch", "/:id"),
    ("createChangeStream", "post", "/change-stream"),
    ("createChangeStream", "get", "/change-stream"),
];

/// LoopBack's own models that extend `PersistedModel`.
const BUILT_IN_PERSISTED: &[&str] = &[
    "User",
    "AccessToken",
    "ACL",
    "Role",
    "RoleMapping",
    "Application",
    "Change",
    "Checkpoint",
    "Scope",
];

/// The remote methods a model script declares and disables while it runs.
#[derive(Default)]
pub(crate) struct LoopBack {
    running: Vec<ModelScript>,
}

#[derive(Default)]
struct ModelScript {
    remote: Vec<(String, String, String, u32, FileId)>,
    disabled: Vec<String>,
}

/// The default export of `loopback-boot`, if `pkg` is it.
pub(crate) fn default_export(pkg: &str) -> Option<Value> {
    (pkg == "loopback-boot").then(|| Value::Builtin(Builtin::Framework(Rc::from("loopback-boot"))))
}

/// `inflection.pluralize` for the common English endings.
fn plural(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let vowel = |c: char| "aeiou".contains(c);
    if lower.ends_with('s')
        || lower.ends_with('x')
        || lower.ends_with('z')
        || lower.ends_with("ch")
        || lower.ends_with("sh")
    {
        format!("{name}es")
    } else if let Some(stem) = name.strip_suffix('y')
        && !stem.chars().last().is_some_and(vowel)
    {
        format!("{stem}ies")
    } else {
        format!("{name}s")
    }
}

/// Join a folder and a relative path written in a LoopBack config.
fn join_rel(dir: &str, rel: &str) -> Option<String> {
    crate::machine::node::to_rel(&format!("/{dir}/{rel}"))
}

impl Interp {
    /// `boot(app, dir, cb)`, the call of a `Builtin::Framework` named
    /// `loopback-boot`; the model methods (`loopback.remoteMethod`, …).
    pub(crate) fn loopback_call(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        match name {
            "loopback-boot" => {
                if !self.modes.event_mode {
                    self.loopback_boot(ctx, argv, line);
                }
                Some(Value::Undef)
            }
            "loopback.remoteMethod" => {
                let text = |i: usize| argv.get(i).and_then(Value::as_text);
                let Some(method) = text(0) else {
                    self.dynamic_path_at(ctx.file, line, "remoteMethod");
                    return Some(Value::Undef);
                };
                let opts = argv.get(1).cloned().map(|v| self.force_deep(v));
                let http = match &opts {
                    Some(o) => self.member(o, "http"),
                    None => Value::Undef,
                };
                let instance = method.starts_with("prototype.")
                    || opts
                        .as_ref()
                        .is_some_and(|o| matches!(self.member(o, "isStatic"), Value::Bool(false)));
                let bare = method.trim_start_matches("prototype.").to_string();
                let https = match http {
                    Value::Arr(a) => a.borrow().clone(),
                    Value::Undef => vec![Value::Undef],
                    v => vec![v],
                };
                // Only a string states a path or verb (a key the object
                // lacks is LoopBack's default, not the text `undefined`).
                let text = |v: Value| match v {
                    Value::Str(s) => Some(s.to_string()),
                    _ => None,
                };
                for h in https {
                    let path = text(self.member(&h, "path"));
                    let verb = text(self.member(&h, "verb"));
                    let mut path = path.unwrap_or_else(|| format!("/{bare}"));
                    if instance {
                        path = format!("/:id{path}");
                    }
                    let verb = verb.unwrap_or_else(|| "post".into()).to_ascii_lowercase();
                    let Some(verb) = crate::inventory::Method::parse(&verb) else {
                        self.finding(
                            FindingCode::DynamicMethod,
                            ctx.file,
                            line,
                            format!(
                                "the remote method `{method}` declares the verb `{verb}`, which is not an HTTP method; it is not charted"
                            ),
                        );
                        continue;
                    };
                    let verb = verb.as_str().to_string();
                    if let Some(s) = self.libs.loopback.running.last_mut() {
                        s.remote.push((method.clone(), verb, path, line, ctx.file));
                    }
                }
                Some(Value::Undef)
            }
            "loopback.disableRemoteMethodByName" | "loopback.disableRemoteMethod" => {
                let mut m = argv.first().and_then(Value::as_text)?;
                if name.ends_with("disableRemoteMethod")
                    && matches!(argv.get(1), Some(Value::Bool(false)))
                {
                    m = format!("prototype.{m}");
                }
                if let Some(s) = self.libs.loopback.running.last_mut() {
                    s.disabled.push(m);
                }
                Some(Value::Undef)
            }
            _ => None,
        }
    }

    fn dynamic_path_at(&mut self, file: FileId, line: u32, what: &str) {
        self.finding(
            FindingCode::DynamicPath,
            file,
            line,
            format!("the name given to LoopBack's `{what}` is only known at run time: its endpoint is not charted"),
        );
    }

    fn loopback_boot(&mut self, ctx: &Ctx, argv: &[Value], line: u32) {
        let app = argv.first().cloned().map(|v| self.force_deep(v));
        let Some(Value::Router(app)) = app else {
            return;
        };
        let dir = match argv.get(1).cloned().map(|v| self.force_deep(v)) {
            Some(o @ Value::Obj(_)) => self.member(&o, "appRootDir").as_text(),
            Some(v) => v.as_text(),
            None => None,
        };
        let Some(dir) = dir.as_deref().and_then(crate::machine::node::to_rel) else {
            self.finding(
                FindingCode::DynamicPath,
                ctx.file,
                line,
                "the folder `loopback-boot` sets the app up from is only known at run time: its models' REST endpoints and boot scripts are not charted".into(),
            );
            return;
        };
        let file = |name: &str| {
            if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            }
        };
        let config = self.data_module(&file("config.json"));
        let root = self
            .member(&config, "restApiRoot")
            .as_text()
            .unwrap_or_else(|| "/api".into());
        // `app.loopback` is the module (`app.loopback.Router()` in boot scripts).
        self.rec.routers[app as usize]
            .props
            .insert("loopback".into(), Value::Builtin(Builtin::Express));
        let mounts = self.loopback_rest_mounts(&file("middleware.json"), &root);
        self.loopback_models(ctx, app, &dir, &mounts, line);
        let scripts = file("boot");
        let names = self.loader.project.list_dir(&scripts).unwrap_or_default();
        for (name, is_dir) in names {
            if is_dir
                || !(name.ends_with(".js") || name.ends_with(".ts"))
                || name.ends_with(".d.ts")
            {
                continue;
            }
            let script = self.require(
                ctx,
                Some(&Value::str(&format!("/{scripts}/{name}"))),
                line,
                false,
            );
            let script = self.force_deep(script);
            if matches!(script, Value::Func(_)) {
                let cb = Value::dynamic();
                self.call_value_now(ctx, &script, vec![Value::Router(app), cb], &[], line, None);
            }
        }
    }

    /// A JSON file of the repository (`None`: missing or not JSON).
    fn loopback_json(&self, rel: &str) -> Option<J> {
        let bytes = std::fs::read(self.loader.project.root.join(rel)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Where `middleware.json` mounts `loopback#rest` (none: no such entry).
    fn loopback_rest_mounts(&mut self, rel: &str, root: &str) -> Vec<String> {
        let Some(json) = self.loopback_json(rel) else {
            return Vec::new();
        };
        // Any phase may hold it (`routes`, `routes:before`, …).
        let phases = json.as_object().into_iter().flat_map(|o| o.values());
        let Some(rest) = phases.filter_map(|p| p.get("loopback#rest")).next() else {
            return Vec::new();
        };
        let paths = match rest.get("paths") {
            Some(J::String(s)) => vec![s.clone()],
            Some(J::Array(a)) => a
                .iter()
                .filter_map(|p| p.as_str().map(str::to_string))
                .collect(),
            _ => vec!["/".to_string()],
        };
        paths
            .into_iter()
            .map(|p| p.replace("${restApiRoot}", root))
            .collect()
    }

    /// The JSON model definitions of the source folders, by model name.
    fn loopback_definitions(&self, dir: &str, sources: &[String]) -> Vec<(String, String, J)> {
        let mut out = Vec::new();
        for src in sources.iter().filter(|s| s.starts_with('.')) {
            let Some(folder) = join_rel(dir, src) else {
                continue;
            };
            let Ok(read) = std::fs::read_dir(self.loader.project.root.join(&folder)) else {
                continue;
            };
            let mut names: Vec<String> = read
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.ends_with(".json"))
                .collect();
            names.sort();
            for n in names {
                let rel = format!("{folder}/{n}");
                let Some(json) = self.loopback_json(&rel) else {
                    continue;
                };
                if let Some(name) = json.get("name").and_then(J::as_str) {
                    out.push((name.to_string(), rel, json));
                }
            }
        }
        out
    }

    fn loopback_models(&mut self, ctx: &Ctx, app: u32, dir: &str, mounts: &[String], line: u32) {
        let config_rel = join_rel(dir, "model-config.json").unwrap_or_default();
        let Some(J::Object(config)) = self.loopback_json(&config_rel) else {
            return;
        };
        let sources: Vec<String> = match config.get("_meta").and_then(|m| m.get("sources")) {
            Some(J::Array(a)) => a
                .iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect(),
            _ => vec!["../common/models".into(), "./models".into()],
        };
        let defs = self.loopback_definitions(dir, &sources);
        let mut without_rest = Vec::new();
        // One finding per `boot(` call, naming each model's loss.
        let mut notes: Vec<String> = Vec::new();
        for (name, opts) in config.iter().filter(|(k, _)| *k != "_meta") {
            let public = opts.get("public").and_then(J::as_bool) != Some(false);
            let def = defs.iter().find(|(n, _, _)| n == name);
            let script = self.loopback_script(ctx, def.map(|(_, rel, _)| rel.as_str()), name, line);
            if !public {
                continue;
            }
            let persisted = match def {
                Some((_, _, json)) => self.loopback_persisted(&defs, json, 0),
                None if BUILT_IN_PERSISTED.contains(&name.as_str()) => Some(true),
                None => None,
            };
            let Some(persisted) = persisted else {
                notes.push(format!("the public LoopBack model `{name}` of {config_rel} has no definition (or base) in the repository: its REST endpoints are not charted"));
                continue;
            };
            if mounts.is_empty() {
                without_rest.push(name.clone());
                continue;
            }
            let json = def.map(|(_, _, j)| j);
            let at = json
                .and_then(|j| j.pointer("/http/path").or_else(|| j.get("plural")))
                .and_then(J::as_str)
                .map(|p| p.trim_start_matches('/').to_string())
                .unwrap_or_else(|| plural(name));
            if json
                .and_then(|j| j.get("relations"))
                .and_then(J::as_object)
                .is_some_and(|r| !r.is_empty())
            {
                notes.push(format!("the relations of the LoopBack model `{name}` add REST endpoints under /{at}/:id/ that are not charted"));
            }
            if name == "User" || json.is_some_and(|j| self.loopback_extends(&defs, j, "User", 0)) {
                notes.push(format!("the own endpoints of LoopBack's `User` (`login`, `logout`, `verify`, `reset`, …) that the model `{name}` has are not charted"));
            }
            let mut routes: Vec<(String, String, String, FileId, u32)> = Vec::new();
            if persisted {
                for (m, verb, path) in PERSISTED {
                    if !script.disabled.iter().any(|d| d == m) {
                        routes.push((
                            m.to_string(),
                            verb.to_string(),
                            path.to_string(),
                            ctx.file,
                            line,
                        ));
                    }
                }
            }
            for (m, verb, path, l, f) in &script.remote {
                if !script.disabled.contains(m) {
                    routes.push((m.clone(), verb.clone(), path.clone(), *f, *l));
                }
            }
            for mount in mounts {
                for (m, verb, path, f, l) in &routes {
                    let full = format!(
                        "{}/{at}{}",
                        mount.trim_end_matches('/'),
                        path.trim_end_matches('/')
                    );
                    let handler = format!("loopback {name}.{m}");
                    let kind =
                        RegKind::package_route(verb, vec![PathArg::Str(full)], &handler, false);
                    self.push_reg(app, kind, *f, *l, None, None);
                }
            }
        }
        if !without_rest.is_empty() {
            notes.push(format!("{} has no `loopback#rest`: the REST endpoints of the public models ({}) are served where code mounts `loopback.rest()`, which is not followed", join_rel(dir, "middleware.json").unwrap_or_default(), without_rest.join(", ")));
        }
        if !notes.is_empty() {
            self.finding(FindingCode::PackageRouter, ctx.file, line, notes.join("; "));
        }
    }

    /// Run a model's script (beside its definition) with the model, and
    /// gather the remote methods it declares and disables.
    fn loopback_script(
        &mut self,
        ctx: &Ctx,
        def: Option<&str>,
        name: &str,
        line: u32,
    ) -> ModelScript {
        let Some(def) = def else {
            return ModelScript::default();
        };
        let stem = def.trim_end_matches(".json");
        let script = [".js", ".ts"]
            .iter()
            .find_map(|ext| self.loader.project.file_id(&format!("{stem}{ext}")));
        let Some(id) = script else {
            return ModelScript::default();
        };
        let f = self.module_value(id);
        let f = self.force_deep(f);
        let model = ObjData::new();
        model.set("modelName", Value::str(name));
        for m in [
            "remoteMethod",
            "disableRemoteMethodByName",
            "disableRemoteMethod",
        ] {
            let b = Value::Builtin(Builtin::Framework(Rc::from(
                format!("loopback.{m}").as_str(),
            )));
            model.set(m, b);
        }
        self.libs.loopback.running.push(ModelScript::default());
        if matches!(f, Value::Func(_)) {
            self.call_value_now(ctx, &f, vec![Value::Obj(model)], &[], line, None);
        }
        self.libs.loopback.running.pop().unwrap_or_default()
    }

    /// Whether a definition's `base` chain reaches `PersistedModel` (`None`:
    /// a base neither in the repository nor LoopBack's own).
    fn loopback_persisted(
        &self,
        defs: &[(String, String, J)],
        json: &J,
        depth: u32,
    ) -> Option<bool> {
        let base = json
            .get("base")
            .and_then(J::as_str)
            .unwrap_or("PersistedModel");
        match base {
            "PersistedModel" | "KeyValueModel" => Some(base == "PersistedModel"),
            "Model" => Some(false),
            b if BUILT_IN_PERSISTED.contains(&b) => Some(true),
            b if depth < 8 => {
                let (_, _, parent) = defs.iter().find(|(n, _, _)| n == b)?;
                self.loopback_persisted(defs, parent, depth + 1)
            }
            _ => None,
        }
    }

    fn loopback_extends(
        &self,
        defs: &[(String, String, J)],
        json: &J,
        target: &str,
        depth: u32,
    ) -> bool {
        let Some(base) = json.get("base").and_then(J::as_str) else {
            return false;
        };
        base == target
            || depth < 8
                && defs
                    .iter()
                    .find(|(n, _, _)| n == base)
                    .is_some_and(|(_, _, p)| self.loopback_extends(defs, p, target, depth + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::plural;

    #[test]
    fn names_are_made_plural_as_inflection_does() {
        assert_eq!(plural("CoffeeShop"), "CoffeeShops");
        assert_eq!(plural("Category"), "Categories");
        assert_eq!(plural("Day"), "Days");
        assert_eq!(plural("Address"), "Addresses");
    }
}
