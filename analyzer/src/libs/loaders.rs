//! Directory loader packages: a folder of the repository loaded as an object
//! of its modules.
//!
//! Captures `require-tree(dir)`, `require-all(dir | { dirname })`,
//! `require-directory(module, dir?)` and `auto-load(dir)`: an object whose keys
//! are the file names without their extension (folders give nested objects),
//! each holding what `require` of that file gives, in byte order. Example:
//! `const ctrl = require('auto-load')(path.join(__dirname, 'controllers')); app.use('/', ctrl.auth)`
//! mounts `controllers/auth.js`.
//!
//! Deliberately not: the packages' filters, renamers and `resolve` hooks
//! (every source file is loaded under its own name); `consign` and
//! `express-load` chains; folders the project does not contain (the call's
//! value stays unknown).

use crate::machine::node::to_rel;
use crate::machine::{Ctx, Interp};
use crate::value::{ObjData, Value};

/// Source extensions a loader requires (the `require` extensions of Node and
/// their TypeScript counterparts).
const LOADABLE: &[&str] = &[".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".json"];

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
