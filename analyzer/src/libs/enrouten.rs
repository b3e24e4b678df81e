//! `express-enrouten` (krakenjs/express-enrouten 1.x) and the router
//! `kraken-js` (2.x) mounts with it from its configuration.
//!
//! express-enrouten: `enrouten(options)` gives middleware that, once
//! mounted (`app.use(prefix, enrouten({ … }))`), mounts one router at the
//! same place, filled as the library's `lib/index.js` and
//! `lib/directory.js` do:
//! - `index`: the module at that path (relative to `options.basedir`,
//!   default the calling module's folder), its `default` when it is an
//!   object with one, called with the router;
//! - `directory`: every file under that folder (sub-folders descended,
//!   dotfiles skipped, source and JSON extensions only) whose export, or
//!   its `default`, is a function declaring exactly one parameter
//!   (`module.exports = function (router) {…}`) is called with a fresh
//!   router mounted at the file's path from the folder, its folders then
//!   its name without extension, `index` giving none
//!   (`controllers/users/index.js` at `/users`, `controllers/a/b.js` at
//!   `/a/b`).
//!
//! kraken-js: `kraken(options)` configures the app it is mounted on from
//! `config/config.json` and `config/development.json` (NODE_ENV unset is
//! kraken's `development`) under `options.basedir` (default the calling
//! module's folder), over kraken's own defaults, whose `middleware.router`
//! is express-enrouten with `{ index: 'path:./routes' }`: the merged
//! `middleware.router`, when enabled and its module is `express-enrouten`,
//! is that call with its first argument, shortstop's `path:` values
//! resolved against the base folder. `app.use(kraken(options))` thus mounts
//! the routes of `routes.js` (or of the folder the configuration names).
//!
//! Deliberately not captured: enrouten's `routes` option (a list of route
//! definitions, not registration calls of the program: no census item is
//! lost) and named routes (`router({ path, name })`); kraken's other
//! middleware entries (none of them routes), its `onconfig` hook (run by
//! kraken after the configuration is read; the routes do not depend on
//! it here), other environments' files, and shortstop handlers other than
//! `path:`.

use super::loaders::LOADABLE;
use crate::machine::modules::json_value;
use crate::machine::node::to_rel;
use crate::machine::*;

const ENROUTEN: &str = "express-enrouten";
const KRAKEN: &str = "kraken-js";

/// The value of a package's default export.
pub(crate) fn default_export(pkg: &str) -> Option<Value> {
    matches!(pkg, ENROUTEN | KRAKEN).then(|| Value::Builtin(Builtin::Framework(Rc::from(pkg))))
}

/// `import enrouten from 'express-enrouten'` through `.default`.
pub(crate) fn member(pkg: &str, prop: &str) -> Option<Value> {
    (prop == "default").then(|| default_export(pkg))?
}

/// A call of one of the packages' factories.
pub(crate) fn call(
    ip: &mut Interp,
    ctx: &Ctx,
    name: &str,
    argv: &[Value],
    line: u32,
) -> Option<Value> {
    match name {
        ENROUTEN => Some(ip.enrouten(ctx, argv.first(), None, line)),
        KRAKEN => Some(ip.kraken(ctx, argv.first(), line)),
        _ => None,
    }
}

/// A string's text (an option left out is no path).
fn string(v: Value) -> Option<String> {
    match v {
        Value::Str(_) => v.as_text(),
        _ => None,
    }
}

/// JavaScript's `Function.length`: the parameters before the first with a
/// default.
fn arity(f: &Value) -> Option<usize> {
    match f {
        Value::Func(c) => Some(
            c.func
                .params
                .iter()
                .take_while(|p| !matches!(p, Pattern::Default(..)))
                .count(),
        ),
        _ => None,
    }
}

/// The folder of the calling module, as the machine writes paths (`/dir`).
fn caller_dir(ip: &Interp, ctx: &Ctx) -> String {
    let rel = ip.loader.project.rel(ctx.file);
    format!("/{}", rel.rsplit_once('/').map_or("", |(d, _)| d))
}

/// `path.join(basedir, p)` unless `p` is absolute.
fn resolve(basedir: &str, p: &str) -> String {
    let joined = if p.starts_with('/') {
        p.to_string()
    } else {
        format!("{basedir}/{p}")
    };
    format!("/{}", to_rel(&joined).unwrap_or_default())
}

impl Interp {
    /// `enrouten(options)`: the router it mounts (see the module doc).
    /// `basedir` overrides the option's (kraken resolves its paths first).
    fn enrouten(
        &mut self,
        ctx: &Ctx,
        options: Option<&Value>,
        basedir: Option<String>,
        line: u32,
    ) -> Value {
        let router = self.new_router(ctx.file, line, false);
        let Value::Router(id) = router else {
            return router;
        };
        let opts = options.cloned().map(|o| self.force_deep(o));
        let text = |ip: &mut Interp, k: &str| -> Option<String> {
            let o = opts.as_ref().filter(|o| matches!(o, Value::Obj(_)))?;
            let v = ip.member(o, k);
            string(ip.force_deep(v))
        };
        let basedir = basedir
            .or_else(|| text(self, "basedir"))
            .unwrap_or_else(|| caller_dir(self, ctx));
        if let Some(index) = text(self, "index") {
            let m = self.require(
                ctx,
                Some(&Value::str(&resolve(&basedir, &index))),
                line,
                false,
            );
            let mut m = self.force_deep(m);
            if matches!(m, Value::Obj(_)) {
                let d = self.member(&m, "default");
                if !matches!(d, Value::Undef | Value::Unknown(_)) {
                    m = self.force_deep(d);
                }
            }
            if matches!(m, Value::Func(_)) {
                self.js.reentry.discard_armed = false;
                self.call_value(ctx, &m, vec![Value::Router(id)], &[], line, None);
            }
        }
        if let Some(dir) = text(self, "directory")
            && let Some(rel) = to_rel(&resolve(&basedir, &dir))
            && self.loader.project.is_dir(&rel)
        {
            let mut files = Vec::new();
            self.traversed_files(&rel, 0, &mut files);
            for f in files {
                self.enrouten_file(ctx, id, &rel, &f, line);
            }
        }
        router
    }

    /// One file of enrouten's `directory`: mounted when it exports a
    /// function of one parameter (or its `default` is one).
    fn enrouten_file(&mut self, ctx: &Ctx, id: u32, dir: &str, file: &str, line: u32) {
        let from_dir = file
            .strip_prefix(dir)
            .unwrap_or(file)
            .trim_start_matches('/');
        let (ancestors, name) = from_dir.rsplit_once('/').unwrap_or(("", from_dir));
        let Some(stem) = LOADABLE
            .iter()
            .find_map(|ext| name.strip_suffix(ext))
            .filter(|s| !s.ends_with(".d") && !s.starts_with('.'))
        else {
            return;
        };
        let m = self.require(ctx, Some(&Value::str(&format!("/{file}"))), line, false);
        let m = self.force_deep(m);
        let handler = if arity(&m) == Some(1) {
            m
        } else {
            let d = self.member(&m, "default");
            match self.force_deep(d) {
                d if arity(&d) == Some(1) => d,
                _ => return,
            }
        };
        let mut segs: Vec<&str> = ancestors.split('/').filter(|s| !s.is_empty()).collect();
        if stem != "index" {
            segs.push(stem);
        }
        let mountpath = format!("/{}", segs.join("/"));
        let Value::Router(sub) = self.new_router(ctx.file, line, false) else {
            return;
        };
        self.js.reentry.discard_armed = false;
        self.call_value(ctx, &handler, vec![Value::Router(sub)], &[], line, None);
        self.rec.routers[sub as usize].mounted = true;
        let kind = RegKind::Use {
            paths: vec![PathArg::Str(mountpath)],
            handlers: vec![UseHandler::Router(sub)],
        };
        self.push_reg(id, kind, ctx.file, line, None, None);
    }

    /// `kraken(options)`: the router of its configured express-enrouten
    /// (see the module doc); a router with nothing when the configuration
    /// disables it or names another router module.
    fn kraken(&mut self, ctx: &Ctx, options: Option<&Value>, line: u32) -> Value {
        let opts = options.cloned().map(|o| self.force_deep(o));
        let basedir = match &opts {
            Some(o @ Value::Obj(_)) => {
                let v = self.member(o, "basedir");
                string(self.force_deep(v))
            }
            _ => None,
        }
        .unwrap_or_else(|| caller_dir(self, ctx));
        let mut router = serde_json::json!({
            "enabled": true,
            "module": { "name": ENROUTEN, "arguments": [{ "index": "path:./routes" }] }
        });
        for name in ["config.json", "development.json"] {
            let Some(rel) = to_rel(&format!("{basedir}/config/{name}")) else {
                continue;
            };
            let Some(text) = self.read_repo_file(&rel).as_text() else {
                continue;
            };
            let text = crate::jsonc::strip_json_comments(&text);
            if let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text)
                && let Some(r) = doc.get("middleware").and_then(|m| m.get("router"))
            {
                merge(&mut router, r);
            }
        }
        let enabled = router.get("enabled").and_then(|e| e.as_bool()) != Some(false);
        let module = router.get("module");
        let name = module
            .and_then(|m| m.get("name").or(Some(m)))
            .and_then(|n| n.as_str());
        if !enabled || name != Some(ENROUTEN) {
            return self.new_router(ctx.file, line, false);
        }
        let mut arg = module
            .and_then(|m| m.get("arguments"))
            .and_then(|a| a.get(0))
            .cloned()
            .unwrap_or_default();
        shortstop_paths(&mut arg, &basedir);
        let arg = json_value(&arg);
        self.enrouten(ctx, Some(&arg), Some(basedir), line)
    }
}

/// confit's merge: objects key by key, anything else replaced.
fn merge(into: &mut serde_json::Value, from: &serde_json::Value) {
    match (into, from) {
        (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        a.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

/// shortstop's `path:` handler: the rest resolved against the base folder.
fn shortstop_paths(v: &mut serde_json::Value, basedir: &str) {
    match v {
        serde_json::Value::String(s) => {
            if let Some(p) = s.strip_prefix("path:") {
                *s = resolve(basedir, p);
            }
        }
        serde_json::Value::Object(o) => o.values_mut().for_each(|v| shortstop_paths(v, basedir)),
        serde_json::Value::Array(a) => a.iter_mut().for_each(|v| shortstop_paths(v, basedir)),
        _ => {}
    }
}
