//! Plugin manifests that name hook functions by module and export (the
//! Etherpad `ep.json` convention), fired by hook name with an argument object.
//!
//! A plugin is a package whose folder holds an `ep.json` beside its
//! package.json: `{ "parts": [{ "name": "admin", "hooks": { "expressCreateServer":
//! "ep_x/node/admin:register" } }] }`. The host loads every manifest into a hook
//! table and fires a hook with `hooks.aCallAll('expressCreateServer', { app })`
//! (also `callAll`, `callAllSerial`, `callFirst`, `aCallFirst`): each function
//! named for that hook is called with `(hookName, context, cb)`. A hook's value
//! is `module[:export]`: the module is a specifier resolved from the folder
//! that holds the plugin package (`ep_x/node/admin` is `node/admin` in the
//! plugin named `ep_x`; an empty module is the plugin itself), the export is a
//! dotted path into that module, the hook's own name when left out.
//!
//! Why a library rule and not the host's loading code: the host finds the
//! manifests through its plugin installer and a root folder computed at run
//! time, reads them with `fs.readFile`, sorts the parts topologically and
//! `require`s absolute paths under `node_modules`; none of that is determined
//! by the repository's code alone, while the manifests and the modules they
//! name are.
//!
//! Captured: manifests of the project's own packages (every package.json
//! folder, the root included), read like a `require`d JSON file (so a changed
//! manifest invalidates the stored analysis); a hook name the firing call
//! gives as a known string; the context as passed (`{}` when left out). Parts
//! run in manifest order (the packages' folders in byte order), not the
//! host's `pre`/`post` order.
//!
//! Deliberately not: plugins installed under `node_modules` (not part of the
//! repository); `client_hooks` (the browser's hook set); a firing call whose
//! hook name only the run time knows (it runs as written, finding nothing
//! in the table); hooks the host disables; the host's own firing function
//! (for a declared hook the call is answered here and its body does not
//! run; its value, the hooks' results, is only known at run time).

use crate::inventory::FindingCode;
use crate::machine::{Ctx, Interp};
use crate::project::Resolved;
use crate::value::{ObjData, Value};
use std::rc::Rc;

/// The manifest file a plugin package holds beside its package.json.
const MANIFEST: &str = "ep.json";

/// The host's functions that fire a hook by name: `(hookName, context, …)`.
const FIRING: &[&str] = &[
    "callAll",
    "aCallAll",
    "callAllSerial",
    "callFirst",
    "aCallFirst",
];

/// One hook a manifest part declares.
#[derive(Debug)]
pub(crate) struct HookDecl {
    /// The hook's name (`expressCreateServer`).
    hook: String,
    /// The module specifier (`ep_x/node/admin`), resolved from `package_dir`'s parent.
    module: String,
    /// The export's dotted path in that module (`register`, or the hook's name).
    export: String,
    /// The folder of the plugin package (root-relative, `""` for the root).
    package_dir: String,
    /// The plugin package's name.
    plugin: String,
    /// The manifest, root-relative (for findings).
    manifest: String,
}

/// The manifests' hooks as the interpreter keeps them.
#[derive(Default)]
pub(crate) struct PluginHooks {
    /// Every hook the project's manifests declare, read at the first firing call.
    table: Option<Rc<Vec<HookDecl>>>,
    /// Hooks being fired now. A hook fired again from inside its own
    /// functions (`restartServer` fired by a socket handler that a
    /// `socketio` hook attached) calls nothing new: it is not followed again.
    firing: Vec<String>,
}

/// `module[:export]` as the host splits it: a single `:` separates the
/// export; the export defaults to the hook's name, the module to the plugin.
fn split_hook_value(value: &str, hook: &str, plugin: &str) -> (String, String) {
    let mut parts: Vec<&str> = value.split(':').collect();
    let export = if parts.len() > 1 { parts.pop() } else { None }
        .filter(|e| !e.is_empty())
        .unwrap_or(hook);
    let module = parts.join(":");
    let module = if module.is_empty() {
        plugin.to_string()
    } else {
        module
    };
    (module, export.to_string())
}

impl Interp {
    /// The declared hooks of every manifest in the project.
    fn hook_table(&mut self) -> Rc<Vec<HookDecl>> {
        if let Some(t) = &self.libs.plugin_hooks.table {
            return t.clone();
        }
        let project = self.loader.project.clone();
        let mut decls = Vec::new();
        let mut dirs: Vec<&str> = project.packages.iter().map(|p| p.dir.as_str()).collect();
        dirs.sort_unstable();
        for dir in dirs {
            let rel = if dir.is_empty() {
                MANIFEST.to_string()
            } else {
                format!("{dir}/{MANIFEST}")
            };
            if !project.root.join(&rel).is_file() {
                continue;
            }
            let plugin = project
                .package_at(dir)
                .and_then(|p| p.json.get("name"))
                .and_then(|n| n.as_str())
                .unwrap_or_default()
                .to_string();
            let manifest = self.data_module(&rel);
            let parts = match self.member(&manifest, "parts") {
                Value::Arr(a) => a.borrow().clone(),
                _ => Vec::new(),
            };
            for part in parts {
                let Value::Obj(hooks) = self.member(&part, "hooks") else {
                    continue;
                };
                for (hook, value) in hooks.entries() {
                    let Some(value) = value.as_text() else {
                        continue;
                    };
                    let (module, export) = split_hook_value(&value, &hook, &plugin);
                    decls.push(HookDecl {
                        hook,
                        module,
                        export,
                        package_dir: dir.to_string(),
                        plugin: plugin.clone(),
                        manifest: rel.clone(),
                    });
                }
            }
        }
        let table = Rc::new(decls);
        self.libs.plugin_hooks.table = Some(table.clone());
        table
    }

    /// `hooks.aCallAll('expressCreateServer', { app })`: call every hook
    /// function the project's manifests declare for that name with
    /// `(hookName, context, cb)`. `None` when the call is no firing call of
    /// a declared hook (it then runs as written).
    pub(crate) fn fire_plugin_hooks(
        &mut self,
        ctx: &Ctx,
        name: &str,
        argv: &[Value],
        line: u32,
    ) -> Option<Value> {
        if !FIRING.contains(&name) {
            return None;
        }
        let hook = argv.first()?.as_text()?;
        let table = self.hook_table();
        let declared: Vec<&HookDecl> = table.iter().filter(|d| d.hook == hook).collect();
        if declared.is_empty() {
            return None;
        }
        if self.libs.plugin_hooks.firing.contains(&hook) {
            return Some(Value::dynamic());
        }
        self.libs.plugin_hooks.firing.push(hook);
        let context = match argv.get(1) {
            None | Some(Value::Undef | Value::Null) => Value::Obj(ObjData::new()),
            Some(v) => v.clone(),
        };
        for d in declared {
            let Some(f) = self.hook_function(ctx, d, line) else {
                continue;
            };
            let args = vec![Value::str(&d.hook), context.clone(), Value::Undef];
            self.js.reentry.discard_armed = false;
            self.call_value(ctx, &f, args, &[], line, None);
        }
        self.libs.plugin_hooks.firing.pop();
        // The hooks' results, flattened: only known at run time.
        Some(Value::dynamic())
    }

    /// The function a declaration names, or a finding at the firing call
    /// when its module is not in the project.
    fn hook_function(&mut self, ctx: &Ctx, d: &HookDecl, line: u32) -> Option<Value> {
        // The plugin's own modules are under its folder; others are packages
        // resolved from where the plugin is installed.
        let own = d
            .module
            .strip_prefix(d.plugin.as_str())
            .filter(|rest| !d.plugin.is_empty() && (rest.is_empty() || rest.starts_with('/')));
        let resolved = match own {
            Some(rest) => self
                .loader
                .project
                .resolve_in(&d.package_dir, &format!(".{rest}")),
            None => self.loader.project.resolve_in(&d.package_dir, &d.module),
        };
        let module = match resolved {
            Resolved::File(id) => self.module_value(id),
            // An installed plugin's module: not part of the repository.
            Resolved::External(_) | Resolved::Known(_) => return None,
            Resolved::Data(_) | Resolved::Missing => {
                self.finding(
                    FindingCode::UnresolvedImport,
                    ctx.file,
                    line,
                    format!(
                        "the plugin manifest {} names `{}` for the hook `{}`, which is no module of the project",
                        d.manifest, d.module, d.hook
                    ),
                );
                return None;
            }
        };
        let mut f = module;
        for name in d.export.split('.') {
            f = self.member(&f, name);
        }
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    use super::split_hook_value;

    #[test]
    fn hook_values_split_as_the_host_splits_them() {
        let s = |v: &str| split_hook_value(v, "expressCreateServer", "ep_x");
        assert_eq!(
            s("ep_x/node/admin"),
            ("ep_x/node/admin".into(), "expressCreateServer".into())
        );
        assert_eq!(
            s("ep_x/node/admin:register"),
            ("ep_x/node/admin".into(), "register".into())
        );
        assert_eq!(s(":register"), ("ep_x".into(), "register".into()));
        assert_eq!(
            s("ep_x/a:"),
            ("ep_x/a".into(), "expressCreateServer".into())
        );
    }
}
