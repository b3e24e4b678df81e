//! What the workspace's tests share, so each test file states only what it
//! checks: the workspace folder and copies of sample projects in temporary
//! folders (this module), the one text rendering of an inventory the
//! fixture and project tests compare ([`render`]), and pinned snapshot files
//! with `UPDATE_SNAPSHOTS=1` ([`snapshot`]).
//!
//! A dev-dependency of `analyzer` and `portolan` only. Deliberately not
//! here: helpers one test file uses (running the binary, HTTP requests to
//! the router), which stay beside their tests.

pub mod render;
pub mod snapshot;

use std::path::{Path, PathBuf};

/// The workspace root (the folder with the top `Cargo.toml`).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("tests/support sits two folders below the workspace")
        .to_path_buf()
}

/// Copy a folder tree, as it is.
pub fn copy_tree(from: &Path, to: &Path) {
    copy(from, to, false);
}

/// A copy of `from` (a folder) under a new temporary folder, named as the
/// original (`…/tmpXYZ/harbor`); the copy lives as long as the returned
/// [`tempfile::TempDir`].
pub fn temp_copy(from: &Path) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let root = tmp
        .path()
        .join(from.file_name().expect("a folder with a name"));
    copy_tree(from, &root);
    (tmp, root)
}

/// A copy of the workspace's sample project `tests/projects/NAME` that a
/// test may edit (see [`temp_copy`]).
pub fn project_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    temp_copy(&workspace().join("tests/projects").join(name))
}

/// A fixture case ready to analyze: the case folder itself, or, when it has
/// a `_node_modules/` folder, a temporary copy with it installed as
/// `node_modules/` (the repository tracks no `node_modules/`). The copy
/// lives as long as the returned folder.
pub fn staged_fixture(case: &Path) -> (Option<tempfile::TempDir>, PathBuf) {
    if !case.join("_node_modules").is_dir() {
        return (None, case.to_path_buf());
    }
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let root = tmp.path().join(case.file_name().expect("a named case"));
    copy(case, &root, true);
    (Some(tmp), root)
}

fn copy(from: &Path, to: &Path, install_node_modules: bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let name = if install_node_modules && name == "_node_modules" {
            "node_modules".into()
        } else {
            name
        };
        let target = to.join(name);
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target, install_node_modules);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
