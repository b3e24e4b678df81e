//! Programs the server starts as child processes: `child_process.fork(file)`
//! runs another module of the repository as its own program, so the file is
//! an entry of its own (its apps and servers are separate processes).
//!
//! Captures: `fork('./worker.js')`, `fork('workers/index')` (relative to the
//! calling file's folder, else to the project root, as a process started from
//! the root resolves it). `cluster.fork()` re-runs the same file and adds no
//! entry, unless `cluster.setupPrimary({ exec: './lib/worker.js' })` (or the
//! older `setupMaster`) names the file the workers run: that file is then
//! started as `fork` would.
//!
//! Deliberately not captured: paths only known at run time (`__dirname` joins
//! are run-time values here), `spawn('node', [...])` and worker threads.

use super::*;

impl Interp {
    /// `child_process.fork(path, ...)`: remember the module it starts.
    pub(crate) fn note_fork(&mut self, ctx: &Ctx, argv: &[Value], line: u32, how: &'static str) {
        let Some(path) = argv
            .first()
            .and_then(|v| self.force_deep(v.clone()).as_text())
        else {
            return;
        };
        let here = self.loader.project.rel(ctx.file).to_string();
        let dir = here.rsplit_once('/').map_or("", |(d, _)| d);
        let path = path.trim_start_matches("./");
        let candidates = [
            crate::project::normalize(&format!("{dir}/{path}")),
            crate::project::normalize(path),
        ];
        if let Some(id) = candidates
            .iter()
            .find_map(|c| self.loader.project.resolve_path(c))
            && !self.deferred.forked.iter().any(|(f, ..)| *f == id)
        {
            self.deferred.forked.push((id, ctx.file, line, how));
        }
    }

    /// `cluster.setupPrimary({ exec })`: the workers `cluster.fork()` starts
    /// run `exec` instead of the primary's own file.
    pub(crate) fn note_cluster_exec(&mut self, ctx: &Ctx, argv: &[Value], line: u32) {
        let Some(Value::Obj(settings)) = argv.first() else {
            return;
        };
        let exec = settings.props.borrow().get("exec").cloned();
        if let Some(exec) = exec {
            self.note_fork(ctx, &[exec], line, "cluster.setupPrimary({ exec })");
        }
    }

    /// The modules started with `fork`, with where: (module, file, line, how).
    pub(crate) fn forked(&self) -> Vec<(FileId, FileId, u32, &'static str)> {
        self.deferred.forked.clone()
    }
}
