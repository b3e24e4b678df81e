//! The literal loads inside functions (`require('./x')`, `import('./x')` in
//! a function body) and what they explain: a file no entry reaches that a
//! reached file loads from a function the run never entered is not a
//! program of its own (see [`blocked_load`]).
//!
//! Deliberately not here: computed specifiers (`dynamic-import`, in
//! `account.rs`), and loads at a module's top level (those run whenever the
//! module does, so they reach the file or the module is unreached too).

use super::account::{RunView, Why};
use crate::project::FileId;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// A `require('x')` or `import('x')` with a literal specifier inside a
/// function: the module loads only when that function runs. The census
/// accounts with it for a file no entry reaches (the load's function was
/// never called, or was handed to a package that calls it).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct LoadSite {
    /// The specifier as written.
    pub(crate) spec: String,
    /// `import('x')` rather than `require('x')`.
    pub(crate) dynamic: bool,
    /// The call's line.
    pub(crate) line: u32,
    /// Enclosing functions, outermost first: (function id, name, line).
    pub(crate) enclosing: Vec<(u32, String, u32)>,
}

/// For a file no entry reaches: the literal `require`/`import()` that would
/// load it (directly, or through files that import it in turn), written in
/// a reached file inside a function the run never entered. The advice to
/// pass the file as an entry would be wrong there: the module is loaded by
/// the program, only not by any call the analysis followed (the function is
/// never called, or a package it is handed to calls it).
pub(super) fn blocked_load(run: &RunView, target: FileId) -> Option<Why> {
    /// How many files up from the target the search climbs.
    const LEVELS: usize = 4;
    let project = run.project;
    let rec = &run.interp.rec.census;
    let here = |f: FileId, l: u32| format!("{}:{l}", project.rel(f));
    let loads_of = |i: FileId, t: FileId| {
        let facts = run.loader.get(i).facts.clone();
        let named = facts
            .named_modules()
            .any(|s| project.resolve(i, s) == crate::project::Resolved::File(t));
        (facts, named)
    };
    let mut seen: HashSet<FileId> = HashSet::from([target]);
    // (a file to climb from, the files between it and the target)
    let mut level: Vec<(FileId, Vec<FileId>)> = vec![(target, Vec::new())];
    for _ in 0..LEVELS {
        let mut next = Vec::new();
        for (t, between) in &level {
            for &i in run.loader.byte_importers(*t) {
                let f = &project.files[i as usize];
                if crate::is_test_path(&f.rel) || f.size > 2 << 20 || !seen.insert(i) {
                    continue;
                }
                let (facts, named) = loads_of(i, *t);
                if !named {
                    continue;
                }
                if !run.reached.contains(&i) {
                    let mut b = between.clone();
                    b.push(i);
                    next.push((i, b));
                    continue;
                }
                for load in facts
                    .loads
                    .iter()
                    .filter(|l| project.resolve(i, &l.spec) == crate::project::Resolved::File(*t))
                {
                    let Some((id, name, line)) = load
                        .enclosing
                        .iter()
                        .find(|(id, _, _)| !rec.entered.contains(&(i, *id)))
                    else {
                        continue;
                    };
                    let through = if between.is_empty() {
                        String::new()
                    } else {
                        let files: Vec<&str> =
                            between.iter().rev().map(|&b| project.rel(b)).collect();
                        format!(" (through {})", files.join(", "))
                    };
                    let loaded = format!(
                        "no entry reaches this file: it is loaded by `{}('{}')` at {}{through}, in `{name}` ({})",
                        if load.dynamic { "import" } else { "require" },
                        load.spec,
                        here(i, load.line),
                        here(i, *line)
                    );
                    if let Some(&(hf, hl)) = rec
                        .handed
                        .get(&(i, *id))
                        .map(|h| &h.at)
                        .or_else(|| rec.handed_names.get(&(i, name.clone())))
                    {
                        return Some(Why {
                            cause: "external-host",
                            reason: format!(
                                "{loaded}, a function handed to a package's function at {}, which is not followed",
                                here(hf, hl)
                            ),
                        });
                    }
                    return Some(Why {
                        cause: "uncalled-function",
                        reason: format!("{loaded}, which is never called"),
                    });
                }
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    None
}
