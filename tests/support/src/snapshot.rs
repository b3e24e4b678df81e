//! Pinned snapshot files: compare what a test produced with the file in the
//! repository, or rewrite it when `UPDATE_SNAPSHOTS` is set (then review the
//! diff). A pinned file nothing produces any more is stale: an error, or
//! removed when updating.
//!
//! Deliberately not here: what a snapshot contains (the analyzer's table is
//! [`crate::render`]; documents are `portolan build`'s bytes).

use std::collections::BTreeSet;
use std::path::Path;

/// Whether `UPDATE_SNAPSHOTS` is set: snapshots are rewritten and stale
/// ones removed instead of compared.
pub fn updating() -> bool {
    std::env::var_os("UPDATE_SNAPSHOTS").is_some()
}

/// Compare `got` with the pinned file at `path` (with `UPDATE_SNAPSHOTS`,
/// write it instead). The error says where the two first differ, and holds
/// both texts when they are short.
pub fn compare(path: &Path, got: &[u8]) -> Result<(), String> {
    let pinned = std::fs::read(path).ok();
    if pinned.as_deref() == Some(got) {
        return Ok(());
    }
    if updating() {
        std::fs::create_dir_all(path.parent().expect("a file in a folder")).unwrap();
        std::fs::write(path, got).unwrap();
        return Ok(());
    }
    let Some(want) = pinned else {
        return Err(format!(
            "{} is missing; run the test with UPDATE_SNAPSHOTS=1 and review it",
            path.display()
        ));
    };
    let (g, w) = (String::from_utf8_lossy(got), String::from_utf8_lossy(&want));
    let line = g
        .lines()
        .zip(w.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(g.lines().count().min(w.lines().count()));
    let (gl, wl) = (
        g.lines().nth(line).unwrap_or("<end>"),
        w.lines().nth(line).unwrap_or("<end>"),
    );
    // Long (minified) lines: a window around the first differing byte.
    let col = gl
        .bytes()
        .zip(wl.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(gl.len().min(wl.len()));
    let window = |s: &str| -> String {
        let from = col.saturating_sub(60);
        s.char_indices()
            .skip_while(|(i, _)| *i < from)
            .take(140)
            .map(|(_, c)| c)
            .collect()
    };
    let mut message = format!(
        "{} differs (UPDATE_SNAPSHOTS=1 rewrites it, after checking): first difference at line {}, byte {}\n  got:    …{}\n  pinned: …{}",
        path.display(),
        line + 1,
        col + 1,
        window(gl),
        window(wl)
    );
    if got.len() + want.len() <= 32 * 1024 {
        message.push_str(&format!("\n--- want ---\n{w}\n--- got ---\n{g}"));
    }
    Err(message)
}

/// A pinned file nothing produces any more: removed with
/// `UPDATE_SNAPSHOTS`, else an error naming it.
pub fn stale(path: &Path) -> Result<(), String> {
    if updating() {
        std::fs::remove_file(path).unwrap();
        Ok(())
    } else {
        Err(format!(
            "stale snapshot, nothing produces it: {}",
            path.display()
        ))
    }
}

/// The files under `dir`, as paths relative to it with `/` (none when the
/// folder does not exist).
pub fn files_under(dir: &Path) -> BTreeSet<String> {
    fn walk(dir: &Path, base: &Path, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, base, out);
            } else if let Ok(rel) = p.strip_prefix(base) {
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}
