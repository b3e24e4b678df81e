//! Portolan's analyzer: a JavaScript/TypeScript source tree in, an
//! [`Inventory`] of mounted Express operations (with findings for what could
//! not be resolved) out. Nothing is executed.
//!
//! Three stages: syntax (tree-sitter → per-file facts, cached by content
//! hash), facts loading with a byte prefilter and parallel prefetch, and
//! resolve (a small evaluator over the facts, then a walk of the mount graph
//! from every root app).
//!
//! This file is the façade: the options, the error, [`analyze`] and the
//! input key. `pipeline` runs one analysis; `mounts` builds the HTTP
//! inventory and `events` the Socket.IO one from what `machine` recorded;
//! `cachedir` says where the cache lives and checks it.

mod cachedir;
pub mod cachefile;
mod census;
mod entries;
mod events;
mod generated;
mod inventory;
mod ir;
mod libs;
mod loader;
mod machine;
mod mounts;
mod paths;
mod pipeline;
mod project;
mod salvaged;
mod syntax;
mod unread_client;
mod value;

pub use cachedir::{CacheReport, cache_base, default_cache_dir, verify_cache};
pub use inventory::{
    App, CensusEntry, Contract, Coverage, Declaration, Direction, Event, EventSite, EventStats,
    Finding, FindingCode, Guard, Handler, Inventory, Location, Method, MountStep, Operation,
    Reached, ResponseInfo, SchemaInfo, Severity, Side, SocketServer, SourceFile, Stats, Timings,
    UNKNOWN_PREFIX, UNKNOWN_PREFIX_PARAM,
};
pub use loader::INTERNAL_ERROR;
pub use paths::{PathParam, PathPattern, join as join_paths};
pub(crate) use project::is_test_path;

use pipeline::{analyze_here, configure_pool};
use std::path::PathBuf;

/// What stops an analysis from running at all (per-file trouble is a [`Finding`]).
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// The root cannot be used.
    #[error("cannot analyze `{0}`: {1}")]
    Root(String, String),
    /// A named entry file does not exist.
    #[error(
        "entry `{0}` is not a JavaScript or TypeScript file under the root (check --entry; paths are relative to the root)"
    )]
    Entry(String),
    /// The cache directory cannot be used.
    #[error("cannot use the cache at `{0}`: {1} (pass --cache-dir DIR or --no-cache)")]
    Cache(String, String),
    /// A bug: the analysis panicked (the panic message was printed).
    #[error("internal error: {0} (a bug in portolan; please report it with the message above)")]
    Internal(String),
}

/// How to analyze.
#[derive(Debug, Clone, Default)]
pub struct AnalyzeOptions {
    /// The project root.
    pub root: PathBuf,
    /// Entry files relative to the root; empty means auto-detect.
    pub entries: Vec<String>,
    /// Where the facts cache lives; `None` means the default location.
    pub cache_dir: Option<PathBuf>,
    /// Do not read or write the cache.
    pub no_cache: bool,
    /// Leave out the Socket.IO inventory (and the code read only to find it):
    /// for callers that need the HTTP inventory alone.
    pub skip_events: bool,
    /// Folders (relative to the root) whose Socket.IO sites are server code,
    /// whatever the values say.
    pub server_dirs: Vec<String>,
    /// Folders whose Socket.IO sites are client code.
    pub client_dirs: Vec<String>,
}

/// Analyze a project.
pub fn analyze(opts: &AnalyzeOptions) -> Result<Inventory, AnalyzeError> {
    configure_pool();
    let opts = opts.clone();
    std::thread::Builder::new()
        .name("portolan-analyze".into())
        .stack_size(256 << 20)
        .spawn(move || {
            // Test hook: an internal error, for the exit-code tests.
            if std::env::var_os("PORTOLAN_TEST_PANIC").is_some() {
                panic!("PORTOLAN_TEST_PANIC is set");
            }
            analyze_here(&opts)
        })
        .map_err(|e| AnalyzeError::Internal(format!("cannot start the analysis thread: {e}")))?
        .join()
        .unwrap_or_else(|_| Err(AnalyzeError::Internal("the analysis panicked".into())))
}

/// The input key of an analysis without running it (see [`analyze`]): callers
/// that cache what they derive from an inventory key it with this (the same
/// key as [`Inventory::input_key`]). `None` when the cache is off, or empty:
/// then nothing can be stored under any key, and computing one would read
/// every file before the analysis does.
pub fn fingerprint(opts: &AnalyzeOptions) -> Result<Option<String>, AnalyzeError> {
    fingerprint_noting(opts).map(|(key, _)| key)
}

/// [`fingerprint`], with the cache records it found damaged and discarded
/// (one line each, as in [`Timings::cache_notes`]).
pub fn fingerprint_noting(
    opts: &AnalyzeOptions,
) -> Result<(Option<String>, Vec<String>), AnalyzeError> {
    pipeline::fingerprint_noting(opts)
}
