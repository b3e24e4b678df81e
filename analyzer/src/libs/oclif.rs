//! oclif command-line programs: the `bin` script's `run()` of `@oclif/core`
//! (or `@oclif/command`) runs the command its arguments name, a class in the
//! folder the package's `package.json` gives as `oclif.commands`.
//!
//! Captures: `run()`/`execute()` of those packages, from a module of a
//! package whose manifest has `oclif.commands` (a folder, or the `target`
//! folder of `{ strategy: 'pattern', target }`): the folder as the repository
//! has it, else the TypeScript source it is built from (`./dist/commands` →
//! `src/commands`, `entries::source_of_built`). Each command module (folders
//! descended, in `readdir` order; declaration files left out) is required,
//! its command class (the default export, else the module itself) made with
//! `new` and its `run()` called, as oclif does for the command it runs:
//! which one that is depends on the arguments, so every one is followed.
//!
//! Example: `bin/run` calling `require('@oclif/core').run()` in a package
//! with `"oclif": { "commands": "./dist/commands" }` runs `run()` of
//! `src/commands/start.ts`'s `export default class Start extends Command`.
//!
//! Deliberately not: flags and arguments (the commands read them as values
//! only known at run time), hooks, plugins, the `explicit` strategy, and
//! commands of other packages.

use crate::machine::{Ctx, Interp};
use crate::value::{Builtin, Value};
use std::rc::Rc;

/// `run`/`execute` of oclif's packages, as a package function's name.
pub(crate) const RUN: &str = "@oclif/core.run";

/// Source extensions of command modules.
const COMMAND_EXTS: &[&str] = &[".js", ".cjs", ".mjs", ".ts", ".cts", ".mts"];

/// A member of `@oclif/core` or `@oclif/command` this module models.
pub(crate) fn member(module: &str, prop: &str) -> Option<Value> {
    match (module, prop) {
        ("@oclif/core" | "@oclif/command", "run" | "execute") => {
            Some(Value::Builtin(Builtin::MiddlewareFactory(Rc::from(RUN))))
        }
        _ => None,
    }
}

impl Interp {
    /// `run()`: every command of the calling module's package, made and run.
    pub(crate) fn oclif_run(&mut self, ctx: &Ctx, line: u32) -> Value {
        for path in self.oclif_commands(ctx) {
            let m = self.require(ctx, Some(&Value::str(&format!("/{path}"))), line, false);
            let m = self.force_deep(m);
            let default = self.member(&m, "default");
            let class = match self.force_deep(default) {
                c @ Value::Class(_) => c,
                _ if matches!(m, Value::Class(_)) => m,
                _ => continue,
            };
            let argv = vec![Value::dynamic(), Value::dynamic()];
            let command = self.construct(ctx, &class, argv, &[], line);
            let run = self.member(&command, "run");
            let run = self.force_deep(run);
            if matches!(run, Value::Func(_)) {
                self.call_value_now(ctx, &run, Vec::new(), &[], line, Some(command));
            }
        }
        Value::external()
    }

    /// The command modules (root-relative paths) of the package holding the
    /// calling module.
    fn oclif_commands(&self, ctx: &Ctx) -> Vec<String> {
        let project = &self.loader.project;
        let rel = project.rel(ctx.file);
        let pkg = project.package_dir_of(rel.rsplit_once('/').map_or("", |(d, _)| d));
        let Some(target) = project.package_at(pkg).and_then(|p| {
            let c = p.json.get("oclif")?.get("commands")?;
            c.as_str()
                .or_else(|| c.get("target")?.as_str())
                .map(str::to_string)
        }) else {
            return Vec::new();
        };
        let target = target.trim_start_matches("./").trim_end_matches('/');
        let within = |d: &str| {
            if pkg.is_empty() {
                d.to_string()
            } else {
                format!("{pkg}/{d}")
            }
        };
        let Some(folder) = std::iter::once(target.to_string())
            .chain(crate::entries::source_of_built(target))
            .map(|d| within(&d))
            .find(|d| project.is_dir(d))
        else {
            return Vec::new();
        };
        let mut files = Vec::new();
        self.traversed_files(&folder, 0, &mut files);
        files.retain(|f| {
            COMMAND_EXTS.iter().any(|e| f.ends_with(e))
                && !f.ends_with(".d.ts")
                && !crate::is_test_path(f)
        });
        files
    }
}
