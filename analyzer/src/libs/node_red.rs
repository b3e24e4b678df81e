//! Node-RED node packages: the modules a package's `node-red` manifest
//! lists, which Node-RED loads and calls with its runtime API, `RED`.
//!
//! A node package never calls `express()`: its package.json says
//! `"node-red": { "nodes": { "ui_base": "nodes/ui_base.js" } }` (and
//! `"plugins"` alike), and Node-RED `require`s each module and calls its
//! export, `module.exports = function (RED) { … }`, with one `RED` for every
//! module: `RED.httpAdmin` is the editor's Express app (mounted at the
//! settings' `httpAdminRoot`), `RED.httpNode` the app that serves the flows'
//! HTTP endpoints (at `httpNodeRoot`). The manifest and the modules are in
//! the repository; the host is not. So each listed module is an entry, run
//! and then called with a `RED` whose `httpAdmin` and `httpNode` are one
//! root app sited at the manifest (both roots are `/` unless the user's
//! settings say otherwise, so one server answers both apps' routes at the
//! paths they write), and whose `settings.httpAdminRoot`/`httpNodeRoot` are
//! Node-RED's default `/`, taken for the value the user's settings file may
//! set (a path built from one is charted under the default, conditional,
//! with a `dynamic-path` finding).
//!
//! Captured: manifests of the project's own packages (every package.json
//! folder, the root included; test folders left out), `nodes` and
//! `plugins`, each value a path from the package's folder.
//!
//! Deliberately not: the runtime's other members (`RED.nodes`, `RED.util`,
//! `RED.comms`, `RED.server`, …: values only known at run time; a node's
//! constructor registered with `RED.nodes.registerType` runs with the code
//! nobody calls); roots other than the default `/` as mount prefixes of
//! the two apps' own routes;
//! the access `RED.auth.needsPermission(…)` grants; packages installed under
//! `node_modules`.

use crate::machine::budget::Share;
use crate::machine::*;
use crate::project::{Project, is_test_path};
use crate::value::{ObjData, Unknown};

/// The manifest keys whose values list modules Node-RED loads.
const LISTS: &[&str] = &["nodes", "plugins"];

/// Node-RED's defaults for where its two apps are mounted.
const ROOT_SETTINGS: &[&str] = &["httpAdminRoot", "httpNodeRoot"];

/// One package's `node-red` manifest: where it is, its line, and the
/// modules it lists with the key that lists each (`nodes.ui_base`).
struct Manifest {
    path: String,
    line: u32,
    modules: Vec<(FileId, String)>,
}

fn manifests(project: &Project) -> Vec<Manifest> {
    let mut out = Vec::new();
    for p in &project.packages {
        let Some(red) = p.json.get("node-red") else {
            continue;
        };
        if is_test_path(&format!("{}/", p.dir)) {
            continue;
        }
        let path = crate::project::manifest_of(&p.dir);
        let mut modules = Vec::new();
        for list in LISTS {
            let Some(entries) = red.get(list).and_then(|v| v.as_object()) else {
                continue;
            };
            for (name, rel) in entries {
                let Some(rel) = rel.as_str() else { continue };
                let target = crate::project::normalize(&format!("{}/{rel}", p.dir));
                if let Some(id) = project.resolve_checked_in(&target)
                    && !modules.iter().any(|(m, _)| *m == id)
                {
                    modules.push((id, format!("{list}.{name}")));
                }
            }
        }
        if modules.is_empty() {
            continue;
        }
        let line = crate::entry_advice::manifest_line(&project.root, &path, "\"node-red\"");
        out.push(Manifest {
            path,
            line,
            modules,
        });
    }
    out
}

impl Interp {
    /// Runs the modules of every `node-red` manifest and calls each one's
    /// export with that package's `RED` (see the module doc). Gives the
    /// modules run, each with why it is an entry.
    pub(crate) fn node_red_nodes(&mut self) -> Vec<(FileId, String)> {
        let project = self.loader.project.clone();
        let mut run = Vec::new();
        for m in manifests(&project) {
            let Some(&(first, _)) = m.modules.first() else {
                continue;
            };
            let red = self.node_red_runtime(&m, first);
            for (file, key) in &m.modules {
                let (file, red) = (*file, red.clone());
                self.as_program(file, Share::Entry, |interp| {
                    interp.run_module(file);
                    let export = interp.export_of(file, "default", 0);
                    let export = interp.force(export, 0);
                    if matches!(export, Value::Func(_)) {
                        let ctx = Ctx {
                            file,
                            scope: Scope::new(Some(interp.js.globals.clone())),
                            this: Value::Undef,
                            home: None,
                        };
                        interp.call_value_now(&ctx, &export, vec![red], &[], 1, None);
                    }
                });
                run.push((
                    file,
                    format!(
                        "{} node-red.{key}: Node-RED loads it and calls its export with its runtime API",
                        m.path
                    ),
                ));
            }
        }
        run
    }

    /// The `RED` Node-RED hands one package's modules: its apps (one app,
    /// sited at the manifest) and the settings that say where they are
    /// mounted.
    fn node_red_runtime(&mut self, m: &Manifest, first: FileId) -> Value {
        let red = ObjData::over_unknown(Unknown::External(None));
        let app = self.new_router(first, m.line, true);
        if let Value::Router(id) = app {
            self.rec.routers[id as usize].manifest = Some(Rc::from(m.path.as_str()));
        }
        for name in ["httpAdmin", "httpNode"] {
            red.set(name, app.clone());
        }
        let settings = ObjData::over_unknown(Unknown::External(None));
        for key in ROOT_SETTINGS {
            let root = self.assume("/", format!("the settings file does not set {key}"));
            settings.set(key, root);
        }
        red.set("settings", Value::Obj(settings));
        Value::Obj(red)
    }
}
