//! Classic browser scripts of one page share one global scope. A page's
//! `<script src="…">` files (not `type="module"`) and its inline scripts run
//! in the same realm: a top-level `function`, `var`, `let`, `const` or
//! `class` of one is visible by its bare name to the others (`var`s and
//! functions as properties of `window`, the lexical ones in the global
//! declarative environment). So `rc = new RoomClient(socket)` in `Room.js`
//! makes the class `RoomClient.js` declares, when one page loads both.
//!
//! The analysis runs each file as a module of its own; a name a page script
//! does not declare is looked up here, among the top-level declarations of
//! the other classic scripts of the pages that load it (the declaring script
//! is run first if it has not run yet, as the page would have run it).
//! Files no page loads keep Node's rule: a free name is a global.

use super::*;
use std::collections::{HashMap, HashSet};

/// The pages' script groups, read on first use (see the module comment).
#[derive(Default)]
pub(crate) struct PageScripts {
    /// Each page script (and each page, for its inline scripts) → the other
    /// files of the pages that load it, in page order.
    groups: Option<HashMap<FileId, Vec<FileId>>>,
    /// The names a classic script declares at its top level; `None` for a
    /// module (one with `import` or `export`), whose declarations stay its own.
    declared: HashMap<FileId, Option<HashSet<String>>>,
    /// The files the module scripts of the pages that load the Socket.IO
    /// client loaded (see [`Interp::page_module_programs`]): browser code,
    /// whatever its folder is called.
    pub(crate) program_files: HashSet<FileId>,
}

/// Markup files whose `<script src>` tags a browser loads into one page.
const PAGE_EXTS: &[&str] = &["html", "htm", "ejs", "hbs", "handlebars"];

/// The `src` of each classic `<script>` tag of a page, in document order.
fn script_srcs(page: &str) -> Vec<String> {
    tagged_srcs(page)
        .into_iter()
        .filter(|(_, module)| !module)
        .map(|(src, _)| src)
        .collect()
}

/// The `src` of each `<script>` tag of a page, in document order, with
/// whether it is a module script (`type="module"`).
fn tagged_srcs(page: &str) -> Vec<(String, bool)> {
    let lower = page.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(i) = lower[pos..].find("<script") {
        let open = pos + i;
        let Some(j) = lower[open..].find('>') else {
            break;
        };
        let tag = &page[open..open + j];
        let tag_lower = &lower[open..open + j];
        pos = open + j;
        let module = tag_lower.contains("type=\"module\"") || tag_lower.contains("type='module'");
        let Some(k) = tag_lower.find(" src=") else {
            continue;
        };
        let rest = &tag[k + 5..];
        let src = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => rest[1..].split(q).next().unwrap_or(""),
            _ => rest.split([' ', '\t', '\n']).next().unwrap_or(""),
        };
        out.push((src.to_string(), module));
    }
    out
}

/// Whether a script `src` is the Socket.IO client that a Socket.IO server
/// serves (`/socket.io/socket.io.js`, `socket.io.min.js`), which defines the
/// page's global `io`.
fn is_socket_io_client(src: &str) -> bool {
    let path = src.split(['?', '#']).next().unwrap_or("");
    let file = path.rsplit('/').next().unwrap_or("");
    file.starts_with("socket.io") && file.ends_with(".js")
}

impl Interp {
    /// The value of `name`, a name the script `file` does not declare, as the
    /// page that loads `file` binds it: a top-level declaration of another
    /// classic script of that page. `None` when no page script declares it.
    pub(crate) fn page_global(&mut self, file: FileId, name: &str) -> Option<Value> {
        if self.js.pages.groups.is_none() {
            self.js.pages.groups = Some(self.read_pages());
        }
        let siblings = self.js.pages.groups.as_ref()?.get(&file)?.clone();
        if !self.declares_at_top(file) {
            return None;
        }
        for s in siblings {
            if !self.declares_at_top(s) {
                continue;
            }
            let declared = self.js.pages.declared.get(&s).and_then(|d| d.as_ref());
            if !declared.is_some_and(|d| d.contains(name)) {
                continue;
            }
            // A script still running its top level (the two scripts use each
            // other's names at once) has no scope to read yet.
            if self.js.modules.get(&s).is_some_and(|r| !r.done.get()) {
                continue;
            }
            let rec = self.load_module(s);
            let live = rec.live.borrow();
            if let Some((scope, _)) = live.as_ref()
                && let Some(v) = scope.vars.borrow().get(name)
            {
                return Some(v.clone());
            }
        }
        None
    }

    /// Whether `file` is a classic script (no `import`, no `export`), its
    /// top-level names recorded for [`Interp::page_global`].
    fn declares_at_top(&mut self, file: FileId) -> bool {
        if let Some(d) = self.js.pages.declared.get(&file) {
            return d.is_some();
        }
        let facts = self.loader.get(file).facts.clone();
        let mut names = HashSet::new();
        let mut module = false;
        for stmt in &facts.body {
            match stmt {
                Stmt::Var(decls) => {
                    for (p, _) in decls {
                        if let Pattern::Ident(n) = p {
                            names.insert(n.to_string());
                        }
                    }
                }
                Stmt::Function(n, _) | Stmt::Class(n, _) => {
                    names.insert(n.clone());
                }
                Stmt::Import(_)
                | Stmt::ExportNames(..)
                | Stmt::ExportAll(..)
                | Stmt::ExportDecl(..)
                | Stmt::ExportDefault(_) => module = true,
                _ => {}
            }
        }
        let entry = (!module).then_some(names);
        let classic = entry.is_some();
        self.js.pages.declared.insert(file, entry);
        classic
    }

    /// The module scripts (`<script type="module" src>`) of the pages that
    /// load the Socket.IO client script: the programs of a browser client,
    /// whose imports reach the code that connects with the page's `io`
    /// (a page's own files; no bundler is involved).
    pub(crate) fn page_module_programs(&self) -> Vec<FileId> {
        let mut out = Vec::new();
        for (_, dir, page) in self.page_texts() {
            let srcs = tagged_srcs(&page);
            if !srcs.iter().any(|(s, _)| is_socket_io_client(s)) {
                continue;
            }
            for (src, module) in srcs {
                if module
                    && let Some(id) = self.page_script_file(dir, &src)
                    && !out.contains(&id)
                {
                    out.push(id);
                }
            }
        }
        out
    }

    /// Run a browser client's program from its top (a page's module script)
    /// as its start-up code runs: its calls are followed as an entry's are, since the socket
    /// is made inside them (`await link.open()` → `io.connect()`), which
    /// the events pass's rule (follow a call only when it is handed a socket
    /// or an event name) would not reach.
    pub(crate) fn run_client_program(&mut self, root: FileId) {
        self.with_mode(crate::passes::Mode::Events, false, |me| me.run_module(root));
    }

    /// Every page of the project and the script files it loads, as groups.
    fn read_pages(&self) -> HashMap<FileId, Vec<FileId>> {
        let mut groups: HashMap<FileId, Vec<FileId>> = HashMap::new();
        for (i, dir, page) in self.page_texts() {
            let mut members = vec![i];
            for src in script_srcs(&page) {
                if let Some(id) = self.page_script_file(dir, &src)
                    && !members.contains(&id)
                {
                    members.push(id);
                }
            }
            if members.len() < 2 {
                continue;
            }
            for &m in &members {
                let g = groups.entry(m).or_default();
                for &o in &members {
                    if o != m && !g.contains(&o) {
                        g.push(o);
                    }
                }
            }
        }
        groups
    }

    /// Every readable page of the project (an HTML or template file), with
    /// its folder and its text.
    fn page_texts(&self) -> impl Iterator<Item = (FileId, &str, String)> + '_ {
        let project = &self.loader.project;
        project.files.iter().enumerate().filter_map(|(i, f)| {
            let ext = f.rel.rsplit('.').next().unwrap_or("");
            if !PAGE_EXTS.contains(&ext) {
                return None;
            }
            let bytes = std::fs::read(project.abs(i as FileId)).ok()?;
            let dir = f.rel.rsplit_once('/').map_or("", |(d, _)| d);
            Some((
                i as FileId,
                dir,
                String::from_utf8_lossy(&bytes).into_owned(),
            ))
        })
    }

    /// The project file a page's `<script src>` names: the path relative to
    /// the page's folder when that file is there, else the one project file
    /// whose path ends with the URL's path (a static folder serves it at
    /// `/js/x.js`, the page itself being served at another path), the one
    /// nearest the page when several do. URLs of other hosts, and paths the
    /// server's template fills in, name no project file.
    fn page_script_file(&self, dir: &str, src: &str) -> Option<FileId> {
        let project = &self.loader.project;
        let src = src.split(['?', '#']).next().unwrap_or("");
        if src.is_empty()
            || src.contains("://")
            || src.starts_with("//")
            || src.contains("<%")
            || src.contains("{{")
        {
            return None;
        }
        if !src.starts_with('/') {
            let joined = if dir.is_empty() {
                src.to_string()
            } else {
                format!("{dir}/{src}")
            };
            if let Some(id) = project.file_id(&crate::project::normalize(&joined)) {
                return Some(id);
            }
        }
        let mut tail = src;
        loop {
            let t = tail
                .trim_start_matches('/')
                .trim_start_matches("./")
                .trim_start_matches("../");
            if t == tail {
                break;
            }
            tail = t;
        }
        if tail.is_empty() {
            return None;
        }
        let suffix = format!("/{tail}");
        let shared = |rel: &str| {
            rel.split('/')
                .zip(dir.split('/'))
                .take_while(|(a, b)| a == b)
                .count()
        };
        project
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.rel == tail || f.rel.ends_with(&suffix))
            .max_by_key(|(_, f)| shared(&f.rel))
            .map(|(i, _)| i as FileId)
    }
}

#[cfg(test)]
mod tests {
    use super::script_srcs;

    #[test]
    fn classic_script_sources_in_order() {
        let page = "<script defer src=\"/socket.io/socket.io.js\"></script>\n\
            <script type=\"module\" src=\"./m.js\"></script>\n\
            <SCRIPT src='../js/a.js?v=2'></SCRIPT><script>var x = 1;</script>\n\
            <script async src=b.js></script>";
        assert_eq!(
            script_srcs(page),
            ["/socket.io/socket.io.js", "../js/a.js?v=2", "b.js"]
        );
    }
}
