//! Client-side code the analysis did not read, for the `unemitted-event`
//! cross-check: "no client emits it" is only as good as the client code read.
//!
//! Captures: files under the project root (outside `node_modules`, `.git` and
//! other dot-folders) that the project did not read (ignored folders such as
//! build output, prebuilt bundles `*.min.js` / `*.bundle.js`, template types
//! without script extraction such as `.pug`) among scripts, pages and
//! templates (`.js`, `.mjs`, `.cjs`, `.ts`, `.jsx`, `.tsx`, `.html`, `.htm`,
//! `.vue`, `.svelte`, `.ejs`, `.hbs`, `.handlebars`, `.pug`), counted only
//! when their bytes mention `emit(` and `io(` or `socket.io-client` and not
//! a `connection` listener (a stale server build is not client code). The note names
//! each kind with its count and folders.
//!
//! Deliberately not: parsing those files (their scripts are not analysed),
//! files larger than 4 MB, more than 20,000 directory entries or folders
//! deeper than 12 levels (the walk stops there, silently shortening the note
//! only, never the analysis).

use std::collections::BTreeMap;
use std::path::Path;

const KINDS: &[&str] = &[
    ".min.js",
    ".bundle.js",
    ".js",
    ".mjs",
    ".cjs",
    ".ts",
    ".jsx",
    ".tsx",
    ".html",
    ".htm",
    ".vue",
    ".svelte",
    ".ejs",
    ".hbs",
    ".handlebars",
    ".pug",
];

/// ` (client code the analysis did not read may emit it: 2 `.html` files in public/)`, or `None`.
pub(crate) fn note(root: &Path, read: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut found: BTreeMap<&'static str, (usize, Vec<String>)> = BTreeMap::new();
    let mut budget = 20_000usize;
    walk(root, "", 0, &mut budget, read, &mut found);
    if found.is_empty() {
        return None;
    }
    let parts: Vec<String> = found
        .iter()
        .map(|(kind, (n, dirs))| {
            let shown: Vec<&str> = dirs.iter().take(3).map(String::as_str).collect();
            format!(
                "{n} `{}` file{} in {}{}",
                if kind.ends_with(".js") {
                    format!("*{kind}")
                } else {
                    kind.to_string()
                },
                if *n == 1 { "" } else { "s" },
                shown.join(", "),
                if dirs.len() > 3 { ", …" } else { "" }
            )
        })
        .collect();
    Some(format!(
        " (client code the analysis did not read may emit it: {})",
        parts.join("; ")
    ))
}

fn walk(
    dir: &Path,
    rel: &str,
    depth: u32,
    budget: &mut usize,
    read: &dyn Fn(&str) -> bool,
    found: &mut BTreeMap<&'static str, (usize, Vec<String>)>,
) {
    if depth > 12 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(ty) = e.file_type() else { continue };
        if ty.is_dir() {
            if name.starts_with('.') || name == "node_modules" || name == "bower_components" {
                continue;
            }
            let sub = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            walk(&e.path(), &sub, depth + 1, budget, read, found);
            continue;
        }
        if !ty.is_file() {
            continue;
        }
        let lower = name.to_ascii_lowercase();
        let Some(kind) = KINDS.iter().find(|k| lower.ends_with(*k)) else {
            continue;
        };
        let path = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if read(&path) || e.metadata().map_or(true, |m| m.len() > 4 << 20) {
            continue;
        }
        let Ok(bytes) = std::fs::read(e.path()) else {
            continue;
        };
        let has = |n: &[u8]| bytes.windows(n.len()).any(|w| w == n);
        // Client-side: it emits and connects (`io(`, `socket.io-client`), and
        // is not a Socket.IO server (a stale server build accepts `connection`).
        let server = has(b"'connection'") || has(b"\"connection\"") || has(b"`connection`");
        if has(b"emit(") && (has(b"io(") || has(b"socket.io-client")) && !server {
            let slot = found.entry(kind).or_default();
            slot.0 += 1;
            let folder = if rel.is_empty() {
                "the root folder".to_string()
            } else {
                format!("{rel}/")
            };
            if !slot.1.contains(&folder) {
                slot.1.push(folder);
            }
        }
    }
}
