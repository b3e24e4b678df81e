//! The layout the design holds the analyzer to (ARCHITECTURE.md): no source
//! file under `analyzer/src` over 1,500 lines, and each crate's `lib.rs` a
//! façade under 200.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .expect("a source file")
        .lines()
        .count()
}

#[test]
fn no_analyzer_file_is_over_1500_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 50, "the analyzer's sources are found");
    let long: Vec<String> = files
        .iter()
        .map(|f| (f, lines(f)))
        .filter(|&(_, n)| n > 1500)
        .map(|(f, n)| format!("{} ({n} lines)", f.display()))
        .collect();
    assert!(long.is_empty(), "split these: {long:?}");
}

#[test]
fn each_crate_lib_is_a_facade() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for krate in ["analyzer", "specgen", "server"] {
        let lib = workspace.join(krate).join("src/lib.rs");
        let n = lines(&lib);
        assert!(n < 200, "{} has {n} lines", lib.display());
    }
}
