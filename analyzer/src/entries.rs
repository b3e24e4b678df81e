//! Entry hints from a package manifest: the files a new user would expect
//! the server to start from, each with the reason it was chosen.
//!
//! Captures: `main`; the script that `scripts.start` (then `dev`, `serve`)
//! runs, through `npm run X` / `yarn X` / `pnpm [run] X` hops, `&&`/`;`
//! chains and `concurrently "…" "…"`, environment prefixes (`FOO=1`,
//! `cross-env`, `dotenv -e .env --`), and runners with their flags (`node -r
//! dotenv/config server`, `node --watch`, `nodemon --exec ts-node src/x.ts`,
//! `ts-node-dev --respawn`, `tsx watch`, `pm2 start`, `forever start`,
//! `babel-node`); a script named without an extension or as a folder
//! (`node server` → `server/index.js`, resolved by the caller); built output
//! that is not checked in mapped back to its TypeScript source
//! (`node dist/server.js` → `src/server.ts`); `bin` entries.
//!
//! Example: `{"scripts": {"start": "npm run serve", "serve": "cross-env
//! NODE_ENV=production node -r dotenv/config server"}}` gives `server`, the
//! folder, with the reason "scripts.start: `node server`".
//!
//! Deliberately not captured: runners configured elsewhere (`nodemon.json`,
//! `pm2` ecosystem files, Procfiles), scripts that start the server through
//! another package's CLI (`nest start`: those apps are found by what their
//! files call).
//!
//! Also here: the program roots above a file that creates an app
//! ([`import_roots`]): a file that calls `express()` but that other files
//! import is a module of a program, not the program. The roots are the files
//! above it in the static import graph (imports, re-exports, literal
//! `require`/`import()` anywhere in a file) that no file imports, e.g.
//! `app.js` → `src/start.js` → `src/webserver.js`. Test files are not
//! importers; of the roots, those nearest their package's folder are kept
//! (`app.js` rather than `src/upgrades/x.js`).

use crate::loader::Loader;
use crate::project::{FileId, Resolved};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// One file a manifest names as a way the program starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hint {
    /// The path as written, relative to the manifest's folder, without `./`.
    pub(crate) path: String,
    /// Why it is a candidate (for the summary).
    pub(crate) reason: String,
    /// Named with a source extension or as `main`: a missing file is worth a finding.
    pub(crate) firm: bool,
}

/// Script runners: the first argument that is not a flag is the script.
const RUNNERS: &[&str] = &[
    "node",
    "nodemon",
    "ts-node",
    "ts-node-dev",
    "tsnd",
    "tsx",
    "babel-node",
    "node-dev",
    "esno",
    "esr",
    "bun",
    "supervisor",
    "ndb",
];

/// Flags whose value is the next word (for any runner above).
const VALUE_FLAGS: &[&str] = &[
    "-r",
    "--require",
    "--loader",
    "--experimental-loader",
    "--import",
    "-C",
    "--conditions",
    "--inspect-port",
    "--env-file",
    "-P",
    "--project",
    "-O",
    "--compiler-options",
    "--tsconfig",
    // nodemon
    "-x",
    "--exec",
    "-e",
    "--ext",
    "-w",
    "-i",
    "--ignore",
    "--signal",
    "--delay",
    "--config",
];

/// Words after which the script name follows (`tsx watch x`, `pm2 start x`).
const SUBCOMMANDS: &[&str] = &["watch", "start", "run"];

/// Source extensions a script may be named with.
fn has_source_ext(w: &str) -> bool {
    crate::project::SOURCE_EXTS
        .iter()
        .any(|e| w.ends_with(&format!(".{e}")))
}

/// Entry hints from one package.json, in a stable order.
pub(crate) fn package_hints(json: &serde_json::Value) -> Vec<Hint> {
    let mut out: Vec<Hint> = Vec::new();
    if let Some(m) = json.get("main").and_then(|m| m.as_str()) {
        out.push(Hint {
            path: m.trim_start_matches("./").to_string(),
            reason: "main".into(),
            firm: true,
        });
    }
    let scripts = json.get("scripts").and_then(|s| s.as_object());
    for key in ["start", "dev", "serve"] {
        let Some(cmd) = scripts.and_then(|s| s.get(key)).and_then(|s| s.as_str()) else {
            continue;
        };
        let mut found = Vec::new();
        script_targets(json, cmd, 0, &mut found);
        for (path, runner) in found {
            let firm = has_source_ext(&path);
            let hint = Hint {
                reason: format!("scripts.{key}: `{runner} {path}`"),
                path,
                firm,
            };
            if !out.iter().any(|h| h.path == hint.path) {
                out.push(hint);
            }
        }
    }
    let bins: Vec<String> = match json.get("bin") {
        Some(serde_json::Value::String(b)) => vec![b.clone()],
        Some(serde_json::Value::Object(m)) => m
            .values()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    for b in bins {
        let path = b.trim_start_matches("./").to_string();
        if !out.iter().any(|h| h.path == path) {
            out.push(Hint {
                reason: "bin".into(),
                firm: false,
                path,
            });
        }
    }
    out
}

/// The scripts one command line runs: (script, runner).
fn script_targets(
    json: &serde_json::Value,
    cmd: &str,
    depth: u32,
    out: &mut Vec<(String, String)>,
) {
    if depth > 4 {
        return;
    }
    // `a && b; c | d`, and the quoted commands of `concurrently "a" "b"`.
    for part in cmd.split(['"', '\'', ';', '|', '&']) {
        let mut words = part.split_whitespace().peekable();
        // Environment prefixes and wrappers.
        while let Some(w) = words.peek() {
            let w = *w;
            if (w.contains('=') && !w.starts_with('-'))
                || matches!(w, "cross-env" | "env" | "npx" | "exec" | "time" | "nice")
            {
                words.next();
            } else if w == "dotenv" {
                // `dotenv -e .env -- cmd`
                words.next();
                for x in words.by_ref() {
                    if x == "--" {
                        break;
                    }
                }
            } else {
                break;
            }
        }
        let Some(prog) = words.next() else {
            continue;
        };
        let prog_name = prog.rsplit('/').next().unwrap_or(prog);
        match prog_name {
            "npm" | "pnpm" | "yarn" => {
                let rest: Vec<&str> = words.filter(|w| !w.starts_with('-')).collect();
                let name = match rest.as_slice() {
                    ["run" | "run-script", name, ..] => Some(*name),
                    ["start", ..] => Some("start"),
                    [name, ..]
                        if prog_name != "npm"
                            && !matches!(*name, "workspace" | "exec" | "dlx" | "install") =>
                    {
                        Some(*name)
                    }
                    _ => None,
                };
                if let Some(next) = name
                    .and_then(|n| json.get("scripts").and_then(|s| s.get(n)))
                    .and_then(|s| s.as_str())
                {
                    script_targets(json, next, depth + 1, out);
                }
            }
            "pm2" | "forever" => {
                let words: Vec<&str> = words.collect();
                if let Some(t) = first_script(&words, true, false) {
                    out.push((t, prog_name.to_string()));
                }
            }
            p if RUNNERS.contains(&p) => {
                let words: Vec<&str> = words.collect();
                // `node --watch x` watches x; nodemon's `--watch dir` names a folder.
                let watch_value = matches!(
                    p,
                    "nodemon" | "ts-node-dev" | "tsnd" | "node-dev" | "supervisor"
                );
                if let Some(t) = first_script(&words, p == "tsx" || p == "bun", watch_value) {
                    out.push((t, p.to_string()));
                }
            }
            _ => {}
        }
    }
}

/// The first word that is neither a flag nor a flag's value.
fn first_script(words: &[&str], subcommands: bool, watch_takes_value: bool) -> Option<String> {
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w.starts_with('-') {
            if VALUE_FLAGS.contains(&w) || (watch_takes_value && w == "--watch") {
                i += 1;
            }
        } else if subcommands && SUBCOMMANDS.contains(&w) {
        } else {
            let w = w.trim_start_matches("./").trim_end_matches('/');
            return (!w.is_empty()).then(|| w.to_string());
        }
        i += 1;
    }
    None
}

/// For a script named as built output that is not in the repository, the
/// TypeScript source it is usually built from (`dist/server.js` →
/// `src/server`): candidates, to be resolved by the caller.
pub(crate) fn source_of_built(path: &str) -> Vec<String> {
    let stem = path
        .strip_suffix(".js")
        .or_else(|| path.strip_suffix(".mjs"))
        .or_else(|| path.strip_suffix(".cjs"))
        .unwrap_or(path);
    let mut out = Vec::new();
    for built in ["dist/", "build/", "lib/", "out/"] {
        if let Some(rest) = stem.strip_prefix(built) {
            out.push(format!("src/{rest}"));
            // `dist/src/main.js` (rootDir is the project root).
            if let Some(inner) = rest.strip_prefix("src/") {
                out.push(format!("src/{inner}"));
            }
        }
    }
    out
}

/// The most files the climb visits above one app-creating file.
const CLIMB_LIMIT: usize = 4000;

/// The program roots above `target` (see the module doc), each with the
/// chain of files from it down to `target`; empty when nothing but tests
/// imports `target` (it is its own root) or when every importer is imported
/// in turn (a cycle with no way in).
pub(crate) fn import_roots(loader: &Arc<Loader>, target: FileId) -> Vec<(FileId, Vec<FileId>)> {
    let project = &loader.project;
    // Who imports whom, found level by level: `below[f]` is a file `f` imports.
    let mut below: BTreeMap<FileId, FileId> = BTreeMap::new();
    let mut importers: BTreeMap<FileId, BTreeSet<FileId>> = BTreeMap::new();
    let mut seen: BTreeSet<FileId> = BTreeSet::from([target]);
    let mut frontier: BTreeSet<FileId> = BTreeSet::from([target]);
    while !frontier.is_empty() && seen.len() < CLIMB_LIMIT {
        let found = importers_of(loader, &frontier);
        let mut next = BTreeSet::new();
        for (t, froms) in found {
            for f in froms {
                importers.entry(t).or_default().insert(f);
                if seen.insert(f) {
                    below.insert(f, t);
                    next.insert(f);
                }
            }
        }
        frontier = next;
    }
    if seen.len() == 1 {
        return Vec::new();
    }
    let roots: Vec<FileId> = seen
        .iter()
        .copied()
        .filter(|f| !importers.contains_key(f))
        .collect();
    // Nearest the folder of the package.json it belongs to (or the root).
    let depth = |f: FileId| {
        let rel = project.rel(f);
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let pkg = project.package_dir_of(dir);
        dir[pkg.len()..]
            .split('/')
            .filter(|s| !s.is_empty())
            .count()
    };
    let Some(best) = roots.iter().map(|&f| depth(f)).min() else {
        return Vec::new();
    };
    roots
        .into_iter()
        .filter(|&f| depth(f) == best)
        .map(|f| {
            let mut chain = vec![f];
            let mut at = f;
            while let Some(&next) = below.get(&at) {
                chain.push(next);
                at = next;
            }
            (f, chain)
        })
        .collect()
}

/// For each file of `targets`, the project files (tests aside) whose
/// imports resolve to it. Only files whose bytes name a target's file stem
/// (or folder, for an `index`) are parsed.
fn importers_of(
    loader: &Arc<Loader>,
    targets: &BTreeSet<FileId>,
) -> BTreeMap<FileId, BTreeSet<FileId>> {
    use rayon::prelude::*;
    let project = &loader.project;
    let mut words: Vec<String> = Vec::new();
    for &t in targets {
        let rel = project.rel(t);
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        let stem = name.split('.').next().unwrap_or(name);
        if stem == "index" {
            let folder = dir.rsplit('/').next().unwrap_or(dir);
            words.push(if folder.is_empty() {
                ".".into()
            } else {
                folder.into()
            });
        } else {
            words.push(stem.to_string());
        }
    }
    words.sort();
    words.dedup();
    let finders: Vec<memchr::memmem::Finder> = words
        .iter()
        .map(|w| memchr::memmem::Finder::new(w.as_bytes()))
        .collect();
    let candidates: Vec<FileId> = (0..project.files.len() as FileId)
        .into_par_iter()
        .filter(|&i| {
            let f = &project.files[i as usize];
            !crate::is_test_path(&f.rel)
                && f.size <= 2 << 20
                && std::fs::read(project.abs(i))
                    .is_ok_and(|b| finders.iter().any(|w| w.find(&b).is_some()))
        })
        .collect();
    loader.prefetch(candidates.iter().copied());
    let mut out: BTreeMap<FileId, BTreeSet<FileId>> = BTreeMap::new();
    for f in candidates {
        let loaded = loader.get(f);
        for spec in loaded.facts.named_modules() {
            if let Resolved::File(t) = project.resolve(f, spec)
                && t != f
                && targets.contains(&t)
            {
                out.entry(t).or_default().insert(f);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(j: serde_json::Value) -> Vec<String> {
        package_hints(&j).into_iter().map(|h| h.path).collect()
    }

    #[test]
    fn start_scripts_name_their_script() {
        assert_eq!(
            paths(json!({"scripts": {"start": "node server"}})),
            ["server"]
        );
        assert_eq!(
            paths(
                json!({"scripts": {"start": "npm run start-server", "start-server": "node server/server.js"}})
            ),
            ["server/server.js"]
        );
        assert_eq!(
            paths(
                json!({"scripts": {"start": "cross-env NODE_ENV=production node -r dotenv/config ./src/index.js"}})
            ),
            ["src/index.js"]
        );
        assert_eq!(
            paths(
                json!({"scripts": {"dev": "nodemon --watch src -e ts --exec ts-node src/main.ts"}})
            ),
            ["src/main.ts"]
        );
        assert_eq!(
            paths(json!({"scripts": {"dev": "tsx watch src/app.ts"}})),
            ["src/app.ts"]
        );
        assert_eq!(
            paths(json!({"scripts": {"start": "node --watch server.js"}})),
            ["server.js"]
        );
        assert_eq!(
            paths(
                json!({"scripts": {"dev": "concurrently \"npm run api\" \"npm run web\"", "api": "ts-node-dev --respawn api/index.ts", "web": "vite"}})
            ),
            ["api/index.ts"]
        );
        assert_eq!(
            paths(json!({"scripts": {"start": "nest start"}})),
            Vec::<String>::new()
        );
        assert_eq!(
            paths(json!({"main": "app.js", "bin": {"srv": "./bin/srv.js"}})),
            ["app.js", "bin/srv.js"]
        );
    }

    #[test]
    fn built_output_maps_to_its_source() {
        assert_eq!(source_of_built("dist/server.js"), ["src/server"]);
        assert_eq!(
            source_of_built("dist/src/main.js"),
            ["src/src/main", "src/main"]
        );
        assert!(source_of_built("server.js").is_empty());
    }
}
