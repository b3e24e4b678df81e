//! The documents' source fingerprint: a hash of every file under this
//! crate's `src/` and specgen's, given as `PORTOLAN_OUTPUT_SOURCE`. Stored
//! documents are keyed on it (`outcache.rs`), so a build that writes them
//! differently never reuses another build's, even at the same version.

use std::hash::{DefaultHasher, Hasher};
use std::path::Path;

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let dirs = ["src", "../specgen/src"];
    let mut all = Vec::new();
    for d in dirs {
        println!("cargo:rerun-if-changed={d}");
        files(Path::new(d), &mut all);
    }
    all.sort();
    let mut h = DefaultHasher::new();
    for p in &all {
        h.write(p.to_string_lossy().as_bytes());
        h.write(&std::fs::read(p).unwrap_or_default());
    }
    println!("cargo:rustc-env=PORTOLAN_OUTPUT_SOURCE={:016x}", h.finish());
}
