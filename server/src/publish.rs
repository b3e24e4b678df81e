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
//! A run that was killed part way leaves its staging folder behind. The
//! next run into the same folder finds it (its process is gone) and puts
//! the folder back as it was before that run: the journal written between
//! staging and swapping lists the set, so every file moved aside is renamed
//! back and every file that was new is removed. A staging folder without a
//! journal never touched the documents and is simply removed. Each repair
//! is said in one `info` line.
//!
//! Deliberately not done: removing files of the folder that are not part of
//! the set (the folder may hold other things), syncing to disk (a power
//! loss is the file system's business), and repairing a staging folder whose
//! process still runs (another build into the same folder).

use anyhow::{Context, Result, anyhow};
use std::path::{Path, PathBuf};

/// Test hook: the set fails when it writes the file with this relative path
/// (as a full disk would), so tests can check that nothing changes.
const FAIL_ENV: &str = "PORTOLAN_TEST_FAIL_WRITE";
/// Test hook: the process aborts (as when killed) after this many files of
/// the set were swapped in, so tests can check the next run's repair.
const ABORT_ENV: &str = "PORTOLAN_TEST_ABORT_AFTER";

/// Write `files` (relative path with `/`, bytes) under `out` all or nothing.
pub(crate) fn write_set(out: &Path, files: &[(&str, &[u8])]) -> Result<()> {
    let created = !out.exists();
    std::fs::create_dir_all(out).with_context(|| {
        format!(
            "cannot create the output folder {}; no document was written",
            out.display()
        )
    })?;
    for note in recover_stale(out) {
        eprintln!("info: {note}");
    }
    let staging = out.join(format!("{STAGING_PREFIX}{}", std::process::id()));
    let result = stage(&staging, files)
        .and_then(|()| write_journal(&staging, files))
        .and_then(|()| swap_in(out, &staging, files));
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

/// Staging folders are named this plus the writing process's id.
const STAGING_PREFIX: &str = ".portolan-staging-";
/// The set's relative paths, one per line, written once staging is complete.
const JOURNAL: &str = ".journal";

/// Whether the process with this id still runs (Linux: `/proc/ID`; where
/// there is no `/proc`, every other process counts as running).
fn running(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

/// Put `out` back as it was before any killed run that staged into it; one
/// note per repaired folder.
pub(crate) fn recover_stale(out: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    let Ok(entries) = std::fs::read_dir(out) else {
        return notes;
    };
    let mut stale: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_prefix(STAGING_PREFIX))
                .and_then(|pid| pid.parse::<u32>().ok())
                .is_some_and(|pid| !running(pid))
        })
        .map(|e| e.path())
        .collect();
    stale.sort();
    for staging in stale {
        let name = staging
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let journal = std::fs::read_to_string(staging.join(JOURNAL)).ok();
        let (mut restored, mut removed) = (0, 0);
        if let Some(journal) = &journal {
            let aside = staging.join(".previous");
            for (i, rel) in journal.lines().enumerate().filter(|(_, l)| !l.is_empty()) {
                let target = out.join(rel);
                let keep = aside.join(i.to_string());
                if keep.exists() {
                    if std::fs::rename(&keep, &target).is_ok() {
                        restored += 1;
                    }
                } else if !staging.join(rel).exists() && target.exists() {
                    // Moved in by the killed run, with nothing before it.
                    if std::fs::remove_file(&target).is_ok() {
                        removed += 1;
                    }
                }
            }
        }
        let _ = std::fs::remove_dir_all(&staging);
        notes.push(match (journal.is_some(), restored + removed) {
            (true, n) if n > 0 => format!(
                "{}: a build that was stopped part way had replaced {n} file(s); \
                 restored {restored} previous version(s), removed {removed} new file(s), \
                 and removed its staging folder {name}",
                out.display()
            ),
            _ => format!(
                "{}: removed the staging folder {name} of a build that was stopped \
                 before it changed any document",
                out.display()
            ),
        });
    }
    notes
}

/// Record the set before any file is moved, so a killed swap can be undone.
fn write_journal(staging: &Path, files: &[(&str, &[u8])]) -> Result<()> {
    let mut text = String::new();
    for (rel, _) in files {
        text.push_str(rel);
        text.push('\n');
    }
    std::fs::write(staging.join(JOURNAL), text)
        .with_context(|| format!("cannot write into {}", staging.display()))
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
            Ok(previous) => {
                done.push((target, previous));
                if std::env::var(ABORT_ENV).is_ok_and(|n| n == done.len().to_string()) {
                    std::process::abort();
                }
            }
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
