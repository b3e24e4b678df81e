//! The analyzer's source fingerprint: a hash of every file under `src/`,
//! given to the crate as `PORTOLAN_ANALYZER_SOURCE`. A stored inventory is
//! keyed on it (`pipeline::input_key`), so a build whose evaluation differs
//! never reuses what another build derived, even at the same version.

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
    println!("cargo:rerun-if-changed=src");
    let mut all = Vec::new();
    files(Path::new("src"), &mut all);
    all.sort();
    let mut h = DefaultHasher::new();
    for p in &all {
        h.write(p.to_string_lossy().as_bytes());
        h.write(&std::fs::read(p).unwrap_or_default());
    }
    println!(
        "cargo:rustc-env=PORTOLAN_ANALYZER_SOURCE={:016x}",
        h.finish()
    );
}
