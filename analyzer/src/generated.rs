//! Generated scripts, told by their bytes: minifier and bundler output that is
//! not named `*.min.js` or `*.bundle.js` (hashed chunks such as
//! `public/monaco/editor.api-CalNCsUg.js`, a vendored `prism.js`). Such files
//! are left out of the project at discovery, like the named bundles (see
//! `DEFAULT_IGNORES` in `project.rs`), and each folder holding some is named
//! once in a `generated-code` info finding.
//!
//! A script is generated when, in its first [`SAMPLE`] bytes, lines of at
//! least [`LONG_LINE`] bytes hold half the bytes or more, and those lines read
//! as code (a `;` or `(` per 100 bytes). Example: `define("vs/abap",["exports"],
//! (function(e){"use strict";const t={…` on one 14 KB line.
//!
//! A script is generated, too, when a bundler's module runtime opens it: in
//! its first [`PRELUDE`] bytes stands one of [`BUNDLER_RUNTIMES`], such as
//! browserify's `var c="function"==typeof require&&require` or webpack's
//! `/******/ (function(modules) { // webpackBootstrap`. Such a bundle has
//! short lines when it was built without minifying (Strider's 2.7 MB
//! `dist/scripts/app.js`), and its modules are the browser's copies of
//! packages and of the repository's own client code, whose sources are read
//! where they stand.
//!
//! Deliberately not generated: TypeScript and markup (never minified in a
//! repository), scripts under 1,000 bytes (cheap to read), long lines of text
//! or data (prompt templates, base64, JSON fixtures: few `;` or `(`), a
//! runtime's name further in (a test quoting a stack trace through
//! `__webpack_modules__`), and compiled output that only ends in a
//! `sourceMappingURL` comment (a vendored library compiled from TypeScript is
//! what the server runs).

use crate::inventory::{Finding, FindingCode, Location};
use crate::project::SourceFile;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// How much of a script is read to judge it.
const SAMPLE: usize = 64 << 10;
/// A line this long (in bytes) is minified-looking.
const LONG_LINE: usize = 500;
/// Smaller scripts are always read.
const MIN_SIZE: u64 = 1000;
/// How far into a script a bundler's runtime is looked for: bundlers write
/// it first, after at most a licence banner.
const PRELUDE: usize = 2048;
/// Words only a bundler's module runtime writes.
const BUNDLER_RUNTIMES: [&[u8]; 5] = [
    b"\"function\"==typeof require&&require",
    b"webpackBootstrap",
    b"function __webpack_require__(",
    b"var __webpack_modules__",
    b"parcelRequire",
];

/// Whether a script whose path and size these are is judged by its bytes.
pub(crate) fn may_be_generated(rel: &str, size: u64) -> bool {
    size >= MIN_SIZE && (rel.ends_with(".js") || rel.ends_with(".mjs") || rel.ends_with(".cjs"))
}

/// Whether the file at `abs` (a script [`may_be_generated`] admits) is
/// generated; an unreadable file is not (loading reports it).
pub(crate) fn is_generated_file(abs: &Path) -> bool {
    let Ok(f) = std::fs::File::open(abs) else {
        return false;
    };
    let mut sample = Vec::with_capacity(SAMPLE);
    if f.take(SAMPLE as u64).read_to_end(&mut sample).is_err() {
        return false;
    }
    is_generated(&sample)
}

/// The rules (see the module doc) over the first bytes of a script.
fn is_generated(sample: &[u8]) -> bool {
    is_minified(sample) || is_bundle(sample)
}

/// Whether a bundler's module runtime opens the script.
fn is_bundle(sample: &[u8]) -> bool {
    let head = &sample[..sample.len().min(PRELUDE)];
    BUNDLER_RUNTIMES
        .iter()
        .any(|word| head.windows(word.len()).any(|w| w == *word))
}

/// Whether long lines of code hold half the sample or more.
fn is_minified(sample: &[u8]) -> bool {
    let (mut long, mut code) = (0usize, 0usize);
    for line in sample.split(|&b| b == b'\n') {
        if line.len() >= LONG_LINE {
            long += line.len();
            code += line.iter().filter(|&&b| b == b';' || b == b'(').count();
        }
    }
    long > 0 && long * 2 >= sample.len() && code * 100 >= long
}

/// One `generated-code` finding per folder of skipped scripts, at its first
/// script (in byte order). A folder below another one that holds skipped
/// scripts is part of it (`ckeditor/` and `ckeditor/plugins/link/dialogs/`
/// make one finding).
pub(crate) fn findings(skipped: &[SourceFile]) -> Vec<Finding> {
    let dir_of = |f: &SourceFile| f.rel.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    let dirs: std::collections::BTreeSet<String> = skipped.iter().map(dir_of).collect();
    let mut by_dir: BTreeMap<&str, Vec<&SourceFile>> = BTreeMap::new();
    for f in skipped {
        let own = dir_of(f);
        // The shallowest folder of skipped scripts that holds this one.
        let top = dirs
            .iter()
            .find(|d| d.is_empty() || own == **d || own.starts_with(&format!("{d}/")))
            .map_or("", String::as_str);
        by_dir.entry(top).or_default().push(f);
    }
    by_dir
        .into_iter()
        .map(|(dir, mut files)| {
            files.sort_by(|a, b| a.rel.cmp(&b.rel));
            let bytes: u64 = files.iter().map(|f| f.size).sum();
            let mut largest = files.clone();
            largest.sort_by(|a, b| b.size.cmp(&a.size).then(a.rel.cmp(&b.rel)));
            let shown: Vec<&str> = largest
                .iter()
                .take(3)
                .map(|f| f.rel.strip_prefix(dir).unwrap_or(&f.rel).trim_start_matches('/'))
                .collect();
            let folder = if dir.is_empty() {
                "the root folder".to_string()
            } else {
                format!("{dir}/")
            };
            let n = files.len();
            Finding {
                code: FindingCode::GeneratedCode,
                at: Location {
                    file: files[0].rel.clone(),
                    line: 1,
                },
                message: format!(
                    "{n} generated script{} under {folder} ({}) not analyzed: minified or bundled code, as bundlers write it, left out like `*.min.js`{}",
                    if n == 1 { "" } else { "s" },
                    size_text(bytes),
                    if n == 1 {
                        String::new()
                    } else {
                        format!(
                            "; the largest: {}{}",
                            shown.join(", "),
                            if n > 3 { ", …" } else { "" }
                        )
                    }
                ),
                cause: None,
            }
        })
        .collect()
}

fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / (1 << 20) as f64)
    } else {
        format!("{} KB", bytes.div_ceil(1024))
    }
}

#[cfg(test)]
mod tests {
    use super::is_generated;

    #[test]
    fn minified_code_is_generated() {
        let line = "function a(b){return b+1};var c=a(2);".repeat(40);
        assert!(is_generated(format!("/*! banner */\n{line}\n").as_bytes()));
    }

    #[test]
    fn long_text_and_short_lines_are_not() {
        // A prompt template or a base64 blob on one line: text, not code.
        let text = format!(
            "export const prompt = `{}`;\n",
            "Write the summary. ".repeat(60)
        );
        assert!(!is_generated(text.as_bytes()));
        let source = "app.get('/x', (req, res) => res.send('ok'));\n".repeat(200);
        assert!(!is_generated(source.as_bytes()));
        // One long line among much ordinary code.
        let mixed = format!("{source}{}\n", "f(a);".repeat(120));
        assert!(!is_generated(mixed.as_bytes()));
    }

    #[test]
    fn a_bundler_runtime_at_the_top_is_generated() {
        let body = "var $ = require('jquery');\nsocket.on('x', f);\n".repeat(100);
        let browserify = format!(
            "(function(){{function r(e,n,t){{function o(i,f){{if(!n[i]){{if(!e[i]){{var c=\"function\"==typeof require&&require;}}}}}}}}}})()({{1:[function(require,module,exports){{\n{body}"
        );
        assert!(is_generated(browserify.as_bytes()));
        let webpack = format!(
            "/******/ (function(modules) {{ // webpackBootstrap\n/******/ \tvar installedModules = {{}};\n{body}"
        );
        assert!(is_generated(webpack.as_bytes()));
        // The same words quoted further into ordinary code.
        let quoted = format!("{body}// at __webpack_modules__ webpackBootstrap\n");
        assert!(!is_generated(quoted.as_bytes()));
    }
}
