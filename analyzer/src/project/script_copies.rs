//! Files a package's scripts copy into place before the program runs:
//! `"prestart": "test -f app/src/config.js || cp app/src/config.template.js
//! app/src/config.js"`. The copy is not checked in (it is the user's local
//! configuration), so `require('./config')` reads the file it is copied
//! from, as the program started with `npm start` does on a fresh checkout.
//!
//! Captured: `cp`/`copy` (also behind `shx`/`npx`, with flags) of one file
//! to one file, in any script of a package.json enclosing the missing file,
//! the paths relative to that package's folder. Not captured: copies to a
//! folder, globs, copies in a Dockerfile or a README's set-up steps.

use super::{Project, ancestors, escapes_root, join_rel, normalize};

/// One copy a package script makes: root-relative paths, the source a file
/// of the project.
pub(super) struct ScriptCopy {
    /// The folder of the package.json whose script copies.
    pkg_dir: String,
    from: String,
    to: String,
}

impl Project {
    /// Every one-file copy the project's package scripts make whose source
    /// is a file (read once, when the project is read).
    pub(super) fn read_script_copies(&self) -> Vec<ScriptCopy> {
        let mut out = Vec::new();
        for pkg in &self.packages {
            let Some(scripts) = pkg.json.get("scripts").and_then(|s| s.as_object()) else {
                continue;
            };
            for cmd in scripts.values().filter_map(|v| v.as_str()) {
                for (src, dst) in copies(cmd) {
                    let to = normalize(&join_rel(&pkg.dir, dst));
                    let from = normalize(&join_rel(&pkg.dir, src));
                    if escapes_root(&to) || escapes_root(&from) || !self.root.join(&from).is_file()
                    {
                        continue;
                    }
                    out.push(ScriptCopy {
                        pkg_dir: pkg.dir.clone(),
                        from,
                        to,
                    });
                }
            }
        }
        out
    }

    /// The file a package script copies to `target` (a root-relative path,
    /// maybe without its extension), when `target` is not in the project;
    /// `None` when no script of a package.json enclosing it copies there.
    pub(super) fn copied_by_script(&self, target: &str) -> Option<String> {
        if self.script_copies.is_empty() {
            return None;
        }
        let dir = target.rsplit_once('/').map_or("", |(d, _)| d);
        ancestors(dir).find_map(|d| {
            self.script_copies
                .iter()
                .filter(|c| c.pkg_dir == d)
                .find(|c| {
                    c.to == target
                        || c.to.strip_prefix(target).is_some_and(|ext| {
                            ext.starts_with('.') && !ext[1..].contains(['.', '/'])
                        })
                })
                .map(|c| c.from.clone())
        })
    }
}

/// The `(from, to)` file pairs a script command copies: every `cp` or `copy`
/// with exactly two operands, in each part of a command line joined by
/// `&&`, `||`, `;` or `|`.
fn copies(cmd: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    for part in cmd.split(['&', '|', ';']) {
        let mut words = part.split_whitespace().skip_while(|w| {
            w.contains('=') && !w.starts_with('-') || matches!(*w, "shx" | "npx" | "cross-env")
        });
        if !matches!(words.next(), Some("cp" | "copy")) {
            continue;
        }
        let operands: Vec<&str> = words
            .filter(|w| !w.starts_with('-') && !w.starts_with('/'))
            .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
            .collect();
        if let [from, to] = operands[..]
            && !to.ends_with('/')
            && !from.contains(['*', '$'])
            && !to.contains(['*', '$'])
        {
            out.push((from, to));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::copies;

    #[test]
    fn script_copies_are_read_from_command_lines() {
        assert_eq!(
            copies("test -f app/src/config.js || cp app/src/config.template.js app/src/config.js"),
            vec![("app/src/config.template.js", "app/src/config.js")]
        );
        assert_eq!(
            copies("shx cp -n config.example.json config.json && node index.js"),
            vec![("config.example.json", "config.json")]
        );
        // A copy into a folder, of several files or of a glob is none.
        assert!(copies("cp a.js b.js dist/").is_empty());
        assert!(copies("cp src/*.json dist/x.json").is_empty());
        assert!(copies("cp -r public dist/").is_empty());
        assert!(copies("node server.js").is_empty());
    }
}
