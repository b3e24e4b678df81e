//! Where the analyzer's cache lives, and checking it: the cache folder
//! resolution (`PORTOLAN_CACHE_DIR`, XDG rules) and `portolan cache verify`.
//!
//! Deliberately not here: reading and writing the records (`cachefile`,
//! `loader`, `project`).

use crate::{loader, project};
use std::path::{Path, PathBuf};

/// The folder that holds every root's cache: `$PORTOLAN_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/portolan`, else `$HOME/.cache/portolan`, else the
/// system's temporary folder. As the XDG Base Directory specification says,
/// an empty variable counts as unset and a relative `XDG_CACHE_HOME` is
/// invalid and ignored (so is a relative `HOME`): a cache never lands in the
/// current directory by accident.
pub fn cache_base() -> PathBuf {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("PORTOLAN_CACHE_DIR")
        .or_else(|| {
            var("XDG_CACHE_HOME")
                .filter(|p| p.is_absolute())
                .map(|p| p.join("portolan"))
        })
        .or_else(|| {
            var("HOME")
                .filter(|p| p.is_absolute())
                .map(|h| h.join(".cache").join("portolan"))
        })
        .unwrap_or_else(|| std::env::temp_dir().join("portolan"))
}

/// The default cache folder for a root: one subfolder of [`cache_base`] per
/// (canonical) root.
pub fn default_cache_dir(root: &Path) -> PathBuf {
    let canon = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let key = blake3::hash(canon.to_string_lossy().as_bytes()).to_hex();
    cache_base().join(&key[..16])
}

/// What [`verify_cache`] found, one line per file or record group.
#[derive(Debug, Default)]
pub struct CacheReport {
    /// Intact parts.
    pub ok: Vec<String>,
    /// Damaged parts (each would be discarded and recomputed by a run).
    pub damaged: Vec<String>,
    /// What was removed (with `repair`).
    pub repaired: Vec<String>,
}

/// Check every record of the analyzer's cache for `root` in `cache_dir`
/// (the facts index and pack, the tree walk, stored inventories); with
/// `repair`, remove what is damaged (the next run recomputes it). Files of
/// other layers in the folder (the CLI's `out/`) are the caller's.
pub fn verify_cache(root: &Path, cache_dir: &Path, repair: bool) -> CacheReport {
    let mut report = CacheReport::default();
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    loader::verify_facts(cache_dir, &root, &mut report, repair);
    match project::verify_walk_cache(cache_dir, &root) {
        Ok(true) => report.ok.push("walk.bin: intact".into()),
        Ok(false) => {}
        Err(damage) => {
            report.damaged.push(format!("walk.bin: {damage}"));
            if repair && std::fs::remove_file(cache_dir.join("walk.bin")).is_ok() {
                report.repaired.push("removed walk.bin".into());
            }
        }
    }
    report
}
