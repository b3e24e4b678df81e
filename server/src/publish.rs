//! Writing a set of files all or nothing: `build --out DIR` and
//! `check --update`.
//!
//! Every file of the set is first written into a staging folder inside the
//! output folder (so on the same file system); only when all are written are
//! they renamed into place, each over its previous version, which is kept
//! aside until the whole set is in. A failure at any step puts every
//! previous file back and removes the new ones, so the folder holds the
//! previous complete set, or nothing when there was none, and the error says
//! which path failed and that nothing changed.
//!
//! Deliberately not done: removing files of the folder that are not part of
//! the set (the folder may hold other things), and syncing to disk (a power
//! loss is the file system's business).

use anyhow::{Context, Result, anyhow};
use std::path::{Path, PathBuf};

/// Test hook: the set fails when it writes the file with this relative path
/// (as a full disk would), so tests can check that nothing changes.
const FAIL_ENV: &str = "PORTOLAN_TEST_FAIL_WRITE";

/// Write `files` (relative path with `/`, bytes) under `out` all or nothing.
pub(crate) fn write_set(out: &Path, files: &[(&str, &[u8])]) -> Result<()> {
    let created = !out.exists();
    std::fs::create_dir_all(out).with_context(|| {
        format!(
            "cannot create the output folder {}; no document was written",
            out.display()
        )
    })?;
    let staging = out.join(format!(".portolan-staging-{}", std::process::id()));
    let result = stage(&staging, files).and_then(|()| swap_in(out, &staging, files));
    let _ = std::fs::remove_dir_all(&staging);
    if result.is_err() && created {
        let _ = std::fs::remove_dir_all(out);
    }
    result.map_err(|e| {
        e.context(if created {
            format!("no document was written to {}", out.display())
        } else {
            format!(
                "{} was left as it was (the previous documents are kept)",
                out.display()
            )
        })
    })
}

fn fail_here(rel: &str) -> Result<()> {
    match std::env::var(FAIL_ENV) {
        Ok(v) if v == rel => Err(anyhow!("simulated write failure ({FAIL_ENV})")),
        _ => Ok(()),
    }
}

/// Write every file under `staging`.
fn stage(staging: &Path, files: &[(&str, &[u8])]) -> Result<()> {
    std::fs::create_dir_all(staging)
        .with_context(|| format!("cannot write into {}", parent_of(staging).display()))?;
    for (rel, bytes) in files {
        let path = staging.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        fail_here(rel)
            .and_then(|()| std::fs::write(&path, bytes).map_err(Into::into))
            .with_context(|| format!("cannot write {rel} (staged at {})", path.display()))?;
    }
    Ok(())
}

fn parent_of(p: &Path) -> &Path {
    p.parent().unwrap_or(p)
}

/// Rename each staged file over its target, keeping the previous one aside;
/// on failure, undo every step.
fn swap_in(out: &Path, staging: &Path, files: &[(&str, &[u8])]) -> Result<()> {
    let aside = staging.join(".previous");
    // (target, previous copy if there was one)
    let mut done: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let mut result = Ok(());
    for (i, (rel, _)) in files.iter().enumerate() {
        let target = out.join(rel);
        let step = (|| -> Result<Option<PathBuf>> {
            if let Some(dir) = target.parent() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
            }
            let previous = if target.exists() {
                std::fs::create_dir_all(&aside)
                    .with_context(|| format!("cannot create {}", aside.display()))?;
                let keep = aside.join(i.to_string());
                std::fs::rename(&target, &keep)
                    .with_context(|| format!("cannot replace {}", target.display()))?;
                Some(keep)
            } else {
                None
            };
            if let Err(e) = std::fs::rename(staging.join(rel), &target) {
                if let Some(keep) = &previous {
                    let _ = std::fs::rename(keep, &target);
                }
                return Err(e).with_context(|| format!("cannot write {}", target.display()));
            }
            Ok(previous)
        })();
        match step {
            Ok(previous) => done.push((target, previous)),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    if result.is_err() {
        for (target, previous) in done.into_iter().rev() {
            match previous {
                Some(keep) => {
                    let _ = std::fs::rename(keep, &target);
                }
                None => {
                    let _ = std::fs::remove_file(&target);
                }
            }
        }
    }
    result
}

/// Replace one file atomically (a temporary file beside it, then a rename).
pub(crate) fn write_one(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    fail_here(&name)
        .and_then(|()| analyzer::cachefile::write_atomic(path, bytes).map_err(Into::into))
        .with_context(|| format!("cannot write {}; it was left as it was", path.display()))
}
