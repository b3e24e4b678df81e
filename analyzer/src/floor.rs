//! The parse floor: what tree-sitter alone costs for a set of files, so a
//! benchmark can state Portolan's time as a multiple of it on any machine.
//!
//! Example: the bench (`server/benches/scan.rs`) times a cold `build`, then
//! [`parse_floor`] over the files that run parsed ([`crate::Timings::parsed_files`]),
//! and prints `build / floor`.
//!
//! Each file is parsed once with the grammar the analysis would pick (the
//! scripts of markup files, as the analysis reads them). The bytes are read
//! before the clock starts. Deliberately not here: the recovery ladder (a
//! file with syntax errors is parsed once), lowering, and anything else the
//! analysis does.

use crate::syntax::{Grammar, SyntaxContext};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What [`parse_floor`] measured.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseFloor {
    /// Files parsed (those read and given a grammar).
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Wall time of parsing them all on the threads asked for.
    pub elapsed: Duration,
}

/// Parse `files` (paths relative to `root`) with tree-sitter on `threads`
/// threads and time it. Files that cannot be read are left out of every
/// figure.
pub fn parse_floor(root: &Path, files: &[String], threads: usize) -> ParseFloor {
    let sources: Vec<(Grammar, Vec<u8>)> = files
        .iter()
        .filter_map(|rel| {
            // A file with no grammar of its name is a Node script (`bin/www`).
            let mut grammar = Grammar::for_path(rel).unwrap_or(Grammar::JavaScript);
            let bytes = std::fs::read(root.join(rel)).ok()?;
            if Grammar::is_markup(rel) {
                let (scripts, ts) = crate::syntax::markup_scripts(&bytes, rel);
                if ts {
                    grammar = Grammar::TypeScript;
                }
                return Some((grammar, scripts));
            }
            Some((grammar, bytes))
        })
        .collect();
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let mut ctx = SyntaxContext::new();
                while let Some((grammar, src)) = sources.get(next.fetch_add(1, Ordering::Relaxed)) {
                    ctx.parse_only(*grammar, src);
                }
            });
        }
    });
    ParseFloor {
        files: sources.len(),
        bytes: sources.iter().map(|(_, b)| b.len() as u64).sum(),
        elapsed: start.elapsed(),
    }
}
