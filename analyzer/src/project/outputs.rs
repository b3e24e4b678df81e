//! Build output checked in beside its source, and where TypeScript's
//! default `rootDir` lies.
//!
//! Example: tsc's `outDir: "dist-lib"` with `include: ["lib/**/*"]`, both
//! folders committed: `dist-lib/app.js` is a copy of `lib/app.js`, so it is
//! left out of the analyzed files and `require('../dist-lib/app')` leads to
//! `lib/app.js`, as for output that is not checked in. Not captured: output
//! whose source is not in the project (it stays, read as it is), `files`
//! lists and `references`.

use super::{FileId, Project, join_rel, normalize};

impl Project {
    /// Build output that is checked in beside its source (tsc's `outDir`
    /// `dist-lib/` of `lib/`, both committed) is a copy of the program, not
    /// a second one: each output script whose source file is in the project
    /// is left out, so imports of it lead to the source as for output that
    /// is not checked in ([`Project::source_of_output`]), and the program is
    /// charted once, at its source lines. Output with no source here stays.
    pub(super) fn set_aside_built_copies(&mut self) {
        let copies: std::collections::HashSet<String> = self
            .files
            .iter()
            .filter(|f| self.source_of_copy(&f.rel).is_some())
            .map(|f| f.rel.clone())
            .collect();
        if copies.is_empty() {
            return;
        }
        self.files.retain(|f| !copies.contains(&f.rel));
        self.by_rel = self
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.rel.clone(), i as FileId))
            .collect();
    }

    /// The source file a checked-in output script `rel` was built from, when
    /// an output folder holds it and its source is a project file.
    fn source_of_copy(&self, rel: &str) -> Option<FileId> {
        self.outputs.iter().find_map(|o| {
            if o.out.is_empty() {
                return None;
            }
            let rest = rel.strip_prefix(o.out.as_str())?.strip_prefix('/')?;
            let stem = [".js", ".mjs", ".cjs", ".jsx"]
                .iter()
                .find_map(|e| rest.strip_suffix(e))?;
            let sources = match &o.source {
                Some(s) => vec![s.clone()],
                None => vec![join_rel(&o.config_dir, "src"), o.config_dir.clone()],
            };
            sources.into_iter().find_map(|src| {
                // A source folder inside the output (`outDir: "."`): no copies.
                if src == o.out || src.starts_with(&format!("{}/", o.out)) {
                    return None;
                }
                let candidate = normalize(&join_rel(&src, stem));
                if candidate.starts_with(&format!("{}/", o.out)) {
                    return None;
                }
                self.resolve_file(&candidate)
            })
        })
    }
}

/// The folder every `include` pattern of a tsconfig in `dir` lies in
/// (`["lib/**/*"]` → `lib`): TypeScript's default `rootDir` is the common
/// folder of the inputs. `None` when the patterns start at the config's own
/// folder (`**/*.ts`), which says nothing of where the inputs are.
pub(super) fn include_root(patterns: &[serde_json::Value], dir: &str) -> Option<String> {
    // The part of each pattern before its first wildcard segment.
    let stems: Vec<String> = patterns
        .iter()
        .filter_map(|p| p.as_str())
        .map(|p| {
            let fixed: Vec<&str> = p
                .split('/')
                .take_while(|seg| !seg.contains(['*', '?']))
                .collect();
            // `src/index.ts`: a file names its folder.
            let fixed = match fixed.last() {
                Some(last) if fixed.len() == p.split('/').count() && last.contains('.') => {
                    &fixed[..fixed.len() - 1]
                }
                _ => &fixed[..],
            };
            normalize(&join_rel(dir, &fixed.join("/")))
        })
        .collect();
    let common = stems.split_first().map(|(first, rest)| {
        rest.iter().fold(first.clone(), |common, s| {
            common
                .split('/')
                .zip(s.split('/'))
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect::<Vec<_>>()
                .join("/")
        })
    });
    // Patterns from the config's own folder (`**/*.ts`) say nothing
    // of where the inputs are: the default guess stands.
    common.filter(|c| {
        if dir.is_empty() {
            !c.is_empty()
        } else {
            c.starts_with(&format!("{dir}/"))
        }
    })
}
