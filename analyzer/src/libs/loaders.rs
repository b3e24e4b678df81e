//! Directory loader packages: a folder of the repository loaded as an object
//! of its modules, or each of its modules handed the app.
//!
//! Captures `require-tree(dir)`, `require-all(dir | { dirname })`,
//! `require-directory(module, dir?)` and `auto-load(dir)`: an object whose keys
//! are the file names without their extension (folders give nested objects),
//! each holding what `require` of that file gives, in byte order. Example:
//! `const ctrl = require('auto-load')(path.join(__dirname, 'controllers')); app.use('/', ctrl.auth)`
//! mounts `controllers/auth.js`.
//!
//! Also the chains of `consign` and `express-load`, as their sources run them:
//! `consign({ cwd: 'app' }).include('models').then('controllers').exclude('x.js').into(app, db)`
//! and `load('controllers', { cwd: 'app' }).then('routes').into(app)`. Each
//! step lists files of the repository (folders depth first, hidden entries
//! skipped; consign in `readdir` order with `then` repeating the last
//! `include`/`exclude` and comma-separated entities; express-load a folder's
//! files before its sub-folders, `.js` only, a missing entity tried with
//! `.js`). `into(target, …)` requires each file in order (consign takes an
//! ES module's `default`); a module that is a function is called (consign:
//! with every argument of `into`; express-load: with the target), and its
//! result is kept on the target under its path from `cwd`
//! (`app.controllers.users`; express-load camel-cases `user-routes` to
//! `userRoutes`), so later modules read what earlier ones made. `cwd`
//! (default `process.cwd()`) is taken from the calling module's package
//! folder, else the repository's root.
//!
//! And `traverse-folders`' `traverse(dir, processor, { ignore, suffix })`:
//! the processor is called with the absolute path of each file under `dir`
//! (folders first descended, in `readdir` order) whose path ends with
//! `suffix` (default `.js`) and not with `ignore` (default `index.js`; a
//! string, as the package's default is), as its source does.
//!
//! Deliberately not: the packages' filters, renamers and `resolve` hooks
//! (every source file is loaded under its own name; express-load's `ignore`
//! and consign's `extensions` beyond the source extensions); folders the
//! project does not contain (the call's value stays unknown, a chain loads
//! nothing from them).

use crate::ir::Call;
use crate::machine::node::to_rel;
use crate::machine::{Ctx, Interp, NodeFn};
use crate::value::{Builtin, ObjData, Value};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Source extensions a loader requires (the `require` extensions of Node and
/// their TypeScript counterparts).
pub(crate) const LOADABLE: &[&str] = &[".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".json"];

/// Folder depth a loader descends to.
const MAX_DEPTH: u32 = 8;

impl Interp {
    /// Call a directory loader package.
    pub(crate) fn dir_loader(&mut self, ctx: &Ctx, pkg: &str, argv: &[Value], line: u32) -> Value {
        let text = |v: Option<&Value>| v.and_then(Value::as_text);
        let from_dir = || {
            let rel = self.loader.project.rel(ctx.file);
            rel.rsplit_once('/')
                .map(|(d, _)| d)
                .unwrap_or("")
                .to_string()
        };
        if matches!(pkg, "consign" | "express-load") {
            return self.load_chain(ctx, pkg, argv);
        }
        if pkg == "traverse-folders" {
            let dir = match text(argv.first()) {
                Some(d) if d.starts_with('/') => Some(d),
                Some(d) => Some(format!("/{}/{d}", from_dir())),
                None => None,
            };
            if let Some(rel) = dir.as_deref().and_then(to_rel)
                && self.loader.project.is_dir(&rel)
                && let Some(processor) = argv.get(1)
            {
                let option = |k: &str, default: &str| {
                    match argv.get(2) {
                        Some(Value::Obj(o)) => o.get(k).and_then(|v| v.as_text()),
                        _ => None,
                    }
                    .unwrap_or_else(|| default.to_string())
                };
                let (ignore, suffix) = (option("ignore", "index.js"), option("suffix", ".js"));
                let mut files = Vec::new();
                self.traversed_files(&rel, 0, &mut files);
                for f in files {
                    if f.ends_with(&suffix) && !f.ends_with(&ignore) {
                        let path = vec![Value::str(&format!("/{f}"))];
                        self.call_value(ctx, processor, path, &[], line, None);
                    }
                }
            }
            return Value::Undef;
        }
        let dir = match pkg {
            // `requireDirectory(module, './routes')`: relative to the calling module.
            "require-directory" => match text(argv.get(1)) {
                Some(d) if d.starts_with('/') => Some(d),
                Some(d) => Some(format!("/{}/{d}", from_dir())),
                None => Some(format!("/{}", from_dir())),
            },
            "require-all" => match argv.first() {
                Some(Value::Obj(o)) => o.get("dirname").and_then(|d| d.as_text()),
                v => text(v),
            },
            // require-tree and auto-load: a relative path is the caller's folder's.
            _ => match text(argv.first()) {
                Some(d) if d.starts_with('/') => Some(d),
                Some(d) => Some(format!("/{}/{d}", from_dir())),
                None => None,
            },
        };
        match dir.as_deref().and_then(to_rel) {
            Some(rel) if self.loader.project.is_dir(&rel) => self.load_folder(ctx, &rel, line, 0),
            _ => Value::dynamic(),
        }
    }

    /// The files under a folder, each folder's entries in `readdir` order
    /// with sub-folders descended where they stand.
    pub(crate) fn traversed_files(&self, rel: &str, depth: u32, out: &mut Vec<String>) {
        for (name, is_dir) in self.loader.project.list_dir(rel).unwrap_or_default() {
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if !is_dir {
                out.push(path);
            } else if depth < MAX_DEPTH {
                self.traversed_files(&path, depth + 1, out);
            }
        }
    }

    fn load_folder(&mut self, ctx: &Ctx, rel: &str, line: u32, depth: u32) -> Value {
        let obj = ObjData::new();
        let entries = self.loader.project.list_dir(rel).unwrap_or_default();
        for (name, is_dir) in entries {
            let path = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if is_dir {
                if depth < MAX_DEPTH {
                    let sub = self.load_folder(ctx, &path, line, depth + 1);
                    obj.set(&name, sub);
                }
                continue;
            }
            let Some(stem) = LOADABLE
                .iter()
                .find_map(|ext| name.strip_suffix(ext))
                .filter(|s| !s.ends_with(".d"))
            else {
                continue;
            };
            let v = self.require(ctx, Some(&Value::str(&format!("/{path}"))), line, false);
            obj.set(stem, v);
        }
        Value::Obj(obj)
    }
}

/// Which package a loading chain follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChainKind {
    Consign,
    ExpressLoad,
}

/// A consign step that `then` repeats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ListStep {
    Include,
    Exclude,
}

/// A file a chain will load, with its path from `cwd` (the namespace).
#[derive(Clone, Debug, PartialEq)]
struct Script {
    /// Root-relative path of the file.
    rel: String,
    /// Keys under the target (`["controllers", "users"]`).
    keys: Vec<String>,
}

/// A `consign()`/`load()` builder: the files it will load, in order.
#[derive(Debug, PartialEq)]
pub(crate) struct LoadChain {
    kind: ChainKind,
    /// Root-relative `cwd`.
    cwd: String,
    /// consign's `extensions` option (empty: every source file).
    extensions: Vec<String>,
    scripts: RefCell<Vec<Script>>,
    last: Cell<ListStep>,
}

/// express-load's key for a file or folder name: the base name without its
/// extension, camel-cased at every character that is not a letter or digit.
fn camel_name(name: &str) -> String {
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let mut out = String::new();
    for (i, part) in stem.split(|c: char| !c.is_ascii_alphanumeric()).enumerate() {
        if i == 0 {
            out.push_str(part);
        } else {
            let mut cs = part.chars();
            if let Some(c) = cs.next() {
                out.extend(c.to_uppercase());
                out.push_str(cs.as_str());
            }
        }
    }
    out
}

/// consign's key: the base name without its extension.
fn stem_name(name: &str) -> String {
    name.rsplit_once('.').map_or(name, |(s, _)| s).to_string()
}

impl Interp {
    /// `consign(options)` / `load(entity, options)`: a chain with nothing listed yet
    /// (express-load lists its first entity at once).
    fn load_chain(&mut self, ctx: &Ctx, pkg: &str, argv: &[Value]) -> Value {
        let kind = if pkg == "consign" {
            ChainKind::Consign
        } else {
            ChainKind::ExpressLoad
        };
        let opts = match kind {
            ChainKind::Consign => argv.first(),
            ChainKind::ExpressLoad => argv.get(1),
        };
        let opt = |k: &str| match opts {
            Some(Value::Obj(o)) => o.get(k),
            _ => None,
        };
        let cwd_opt = opt("cwd").and_then(|v| v.as_text());
        let extensions = match opt("extensions") {
            Some(Value::Arr(a)) => a.borrow().iter().filter_map(Value::as_text).collect(),
            _ => Vec::new(),
        };
        // `process.cwd()`: the calling module's package folder, else the root.
        let rel = self.loader.project.rel(ctx.file);
        let caller_dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let package_dir = self.loader.project.package_dir_of(caller_dir).to_string();
        let cwd = [package_dir.as_str(), ""]
            .iter()
            .filter_map(|base| match cwd_opt.as_deref() {
                Some(c) if c.starts_with('/') => to_rel(c),
                Some(c) => to_rel(&format!("{base}/{c}")),
                None => Some(base.to_string()),
            })
            .find(|d| self.loader.project.is_dir(d));
        let Some(cwd) = cwd else {
            return Value::dynamic();
        };
        let chain = Rc::new(LoadChain {
            kind,
            cwd,
            extensions,
            scripts: RefCell::new(Vec::new()),
            last: Cell::new(ListStep::Include),
        });
        if kind == ChainKind::ExpressLoad
            && let Some(entity) = argv.first().and_then(Value::as_text)
        {
            self.list_entity(&chain, &entity, ListStep::Include);
        }
        Value::Builtin(Builtin::Node(NodeFn::LoadChain(chain)))
    }

    /// `include`, `then`, `exclude` and `into` on a loading chain; each gives the chain back.
    pub(crate) fn load_chain_method(
        &mut self,
        ctx: &Ctx,
        chain: &Rc<LoadChain>,
        name: &str,
        call: &Call,
    ) -> Value {
        let argv = self.eval_args(ctx, &call.args);
        let argv: Vec<Value> = argv.into_iter().map(|a| self.force_deep(a)).collect();
        let step = match (chain.kind, name) {
            (ChainKind::Consign, "include") => Some(ListStep::Include),
            (ChainKind::Consign, "exclude") => Some(ListStep::Exclude),
            (ChainKind::Consign, "then") => Some(chain.last.get()),
            (ChainKind::ExpressLoad, "then") => Some(ListStep::Include),
            (_, "into") => {
                self.load_into(ctx, chain, &argv, call.line);
                None
            }
            _ => return Value::dynamic(),
        };
        if let Some(step) = step {
            chain.last.set(step);
            if let Some(entity) = argv.first().and_then(Value::as_text) {
                self.list_entity(chain, &entity, step);
            }
        }
        Value::Builtin(Builtin::Node(NodeFn::LoadChain(chain.clone())))
    }

    /// Add (or remove) the files an entity names, relative to the chain's `cwd`.
    fn list_entity(&self, chain: &LoadChain, entity: &str, step: ListStep) {
        let entities: Vec<&str> = match chain.kind {
            ChainKind::Consign => entity.split(',').map(str::trim).collect(),
            ChainKind::ExpressLoad => vec![entity],
        };
        for entity in entities {
            let Some(rel) = to_rel(&format!("{}/{entity}", chain.cwd)) else {
                continue;
            };
            let project = &self.loader.project;
            let target = if project.is_dir(&rel) || project.file_id(&rel).is_some() {
                rel
            } else if chain.kind == ChainKind::ExpressLoad
                && project.file_id(&format!("{rel}.js")).is_some()
            {
                format!("{rel}.js")
            } else {
                continue;
            };
            let mut found = Vec::new();
            self.chain_files(chain, &target, 0, &mut found);
            let mut scripts = chain.scripts.borrow_mut();
            for rel in found {
                let present = scripts.iter().position(|s| s.rel == rel);
                match (step, present) {
                    (ListStep::Include, None) => {
                        let local = rel
                            .strip_prefix(chain.cwd.as_str())
                            .unwrap_or(&rel)
                            .trim_start_matches('/');
                        let key = match chain.kind {
                            ChainKind::Consign => stem_name,
                            ChainKind::ExpressLoad => camel_name,
                        };
                        let keys = local.split('/').map(key).collect();
                        scripts.push(Script { rel, keys });
                    }
                    (ListStep::Exclude, Some(i)) => {
                        scripts.remove(i);
                    }
                    _ => {}
                }
            }
        }
    }

    /// The loadable files at `rel` (a file, or a folder walked as the package walks it).
    fn chain_files(&self, chain: &LoadChain, rel: &str, depth: u32, out: &mut Vec<String>) {
        let project = &self.loader.project;
        if !project.is_dir(rel) {
            let name = rel.rsplit('/').next().unwrap_or(rel);
            let loadable = match chain.kind {
                ChainKind::ExpressLoad => name.ends_with(".js"),
                ChainKind::Consign if !chain.extensions.is_empty() => {
                    chain.extensions.iter().any(|e| name.ends_with(e.as_str()))
                }
                ChainKind::Consign => LOADABLE.iter().any(|e| name.ends_with(e)),
            };
            if loadable && !name.ends_with(".d.ts") {
                out.push(rel.to_string());
            }
            return;
        }
        if depth >= MAX_DEPTH {
            return;
        }
        let entries = project.list_dir(rel).unwrap_or_default();
        let visible = entries.iter().filter(|(n, _)| !n.starts_with('.'));
        let path = |n: &str| {
            if rel.is_empty() {
                n.to_string()
            } else {
                format!("{rel}/{n}")
            }
        };
        match chain.kind {
            ChainKind::Consign => {
                for (name, _) in visible {
                    self.chain_files(chain, &path(name), depth + 1, out);
                }
            }
            // A folder's files first, then its sub-folders.
            ChainKind::ExpressLoad => {
                let (dirs, files): (Vec<_>, Vec<_>) = visible.partition(|(_, d)| *d);
                for (name, _) in files.into_iter().chain(dirs) {
                    self.chain_files(chain, &path(name), depth + 1, out);
                }
            }
        }
    }

    /// `into(target, …)`: require each listed file, call it when it is a
    /// function, and keep the result on the target under its keys.
    fn load_into(&mut self, ctx: &Ctx, chain: &LoadChain, argv: &[Value], line: u32) {
        let Some(target) = argv.first().cloned() else {
            return;
        };
        let scripts = chain.scripts.borrow().clone();
        for script in scripts {
            let m = self.require(
                ctx,
                Some(&Value::str(&format!("/{}", script.rel))),
                line,
                false,
            );
            let mut m = self.force_deep(m);
            if chain.kind == ChainKind::Consign {
                let d = self.member(&m, "default");
                if !matches!(d, Value::Undef | Value::Null | Value::Unknown(_)) {
                    m = self.force_deep(d);
                }
            }
            let result = match &m {
                // A router is a function too: called as middleware, it adds nothing.
                Value::Router(_) => Value::Undef,
                Value::Func(_) | Value::Class(_) => {
                    // consign: `mod.apply(mod, args)`; express-load:
                    // `mod.call(script, instance)` (its record, not modelled).
                    let (args, this) = match chain.kind {
                        ChainKind::Consign => (argv.to_vec(), Some(m.clone())),
                        ChainKind::ExpressLoad => (vec![target.clone()], None),
                    };
                    // Its result is kept: never a repeat skipped as discarded.
                    self.js.reentry.discard_armed = false;
                    self.call_value(ctx, &m, args, &[], line, this)
                }
                _ => m.clone(),
            };
            self.keep_under(&target, &script.keys, result);
        }
    }

    /// `target.a.b.c = v`, creating the objects on the way.
    fn keep_under(&mut self, target: &Value, keys: &[String], v: Value) {
        let Some((last, dirs)) = keys.split_last() else {
            return;
        };
        let mut cur = target.clone();
        for k in dirs {
            let next = self.member(&cur, k);
            cur = match next {
                Value::Obj(_) => next,
                _ => {
                    let o = Value::Obj(ObjData::new());
                    self.set_member(&cur, k, o.clone());
                    o
                }
            };
        }
        self.set_member(&cur, last, v);
    }
}
