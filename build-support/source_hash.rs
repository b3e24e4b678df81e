// Shared by the crates' build scripts (`include!`d): a fingerprint of the
// source files under some folders, so stored results can be keyed on the
// sources of the build that made them.

/// Every file under `dir`, recursively.
fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
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

/// A hash of the paths and bytes of every file under `dirs` (relative to
/// the crate), 16 hex digits; Cargo is told to run the script again when
/// one of them changes.
fn source_hash(dirs: &[&str]) -> String {
    use std::hash::{DefaultHasher, Hasher};
    let mut all = Vec::new();
    for d in dirs {
        println!("cargo:rerun-if-changed={d}");
        files(std::path::Path::new(d), &mut all);
    }
    all.sort();
    let mut h = DefaultHasher::new();
    for p in &all {
        h.write(p.to_string_lossy().as_bytes());
        h.write(&std::fs::read(p).unwrap_or_default());
    }
    format!("{:016x}", h.finish())
}
