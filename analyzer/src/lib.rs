//! Portolan's analyzer: a JavaScript/TypeScript source tree in, an
//! [`Inventory`] of mounted Express operations (with findings for what could
//! not be resolved) out. Nothing is executed.
//!
//! Three stages: syntax (tree-sitter → per-file facts, cached by content
//! hash), facts loading with a byte prefilter and parallel prefetch, and
//! resolve (a small evaluator over the facts, then a walk of the mount graph
//! from every root app).
//!
//! This file is the façade: the [`Analyzer`] handle (which owns the threads
//! analyses run on, so a long-lived host can keep one), [`analyze`] for
//! one-shot callers, and the input key; `options` holds what a caller gives
//! and the error. `pipeline` runs one analysis; `mounts` builds the HTTP
//! inventory and `events` the Socket.IO one from what `machine` recorded;
//! `cachedir` says where the cache lives and checks it.

mod cachedir;
pub mod cachefile;
mod census;
mod conditions;
mod entries;
mod entry_advice;
mod events;
mod floor;
mod generated;
mod inventory;
mod ir;
mod jsonc;
mod libs;
mod loader;
mod machine;
mod mounts;
mod opaque;
mod options;
mod passes;
mod paths;
mod pipeline;
mod project;
mod salvaged;
mod syntax;
mod unread_client;
mod value;

pub use cachedir::{CacheReport, cache_base, default_cache_dir, verify_cache};
pub use floor::{ParseFloor, parse_floor};
pub use inventory::{
    App, CensusEntry, Contract, Coverage, Declaration, Direction, Event, EventSite, EventStats,
    Finding, FindingCode, Guard, Handler, Inventory, Location, Method, MountStep, Operation,
    PhaseTiming, Reached, ResponseInfo, SchemaInfo, Severity, Side, SocketServer, SourceFile,
    Stats, Timings, UNKNOWN_PREFIX, UNKNOWN_PREFIX_PARAM,
};
pub use loader::INTERNAL_ERROR;
pub use options::{AnalyzeError, AnalyzeOptions, Package};
pub use paths::{PathParam, PathPattern, join as join_paths};
pub use syntax::Doc;

/// Whether a file with no extension whose first bytes are `head` is a Node
/// script the analysis reads (`bin/www` with `#!/usr/bin/env node`).
pub fn is_node_script(head: &[u8]) -> bool {
    syntax::Grammar::is_node_script(head)
}
pub(crate) use project::is_test_path;

use pipeline::analyze_here;
use std::sync::Arc;

/// A project opened for analysis: its options and the threads its analyses
/// run on. A long-lived host (`portolan serve --watch`) keeps one and calls
/// [`Analyzer::run`] again after an edit; every run is independent (its own
/// [`Timings`], its own input key), and nothing is process-wide.
pub struct Analyzer {
    opts: AnalyzeOptions,
    /// Runs each analysis and its parallel steps (one thread per core).
    /// Deeply nested sources recurse deeply: the stacks are generous.
    workers: rayon::ThreadPool,
    /// Parses files ahead of the evaluator (all cores but one).
    prefetch: Option<Arc<rayon::ThreadPool>>,
}

impl Analyzer {
    /// Open a project: start the analysis threads. Nothing is read yet.
    pub fn open(opts: AnalyzeOptions) -> Result<Analyzer, AnalyzeError> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(cores)
            .thread_name(|i| format!("portolan-analyze-{i}"))
            .stack_size(256 << 20)
            .build()
            .map_err(|e| {
                AnalyzeError::Internal(format!("cannot start the analysis threads: {e}"))
            })?;
        Ok(Analyzer {
            opts,
            workers,
            prefetch: loader::prefetch_pool(),
        })
    }

    /// The options this project was opened with.
    pub fn options(&self) -> &AnalyzeOptions {
        &self.opts
    }

    /// Analyze the project as it is on disk now. The inventory carries the
    /// run's [`Timings`] and input key. A panic anywhere is an
    /// [`AnalyzeError::Internal`] (its message was printed).
    pub fn run(&self) -> Result<Inventory, AnalyzeError> {
        let opts = &self.opts;
        let prefetch = self.prefetch.clone();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.workers.install(|| {
                // Test hook: an internal error, for the exit-code tests.
                if std::env::var_os("PORTOLAN_TEST_PANIC").is_some() {
                    panic!("PORTOLAN_TEST_PANIC is set");
                }
                analyze_here(opts, prefetch)
            })
        }))
        .unwrap_or_else(|_| Err(AnalyzeError::Internal("the analysis panicked".into())))
    }

    /// The input key [`Analyzer::run`] would give, without running it, with
    /// the cache records found damaged and discarded (one line each, as in
    /// [`Timings::cache_notes`]). `None` when the cache is off, or empty:
    /// then nothing can be stored under any key, and computing one would
    /// read every file before the analysis does.
    pub fn fingerprint(&self) -> Result<(Option<String>, Vec<String>), AnalyzeError> {
        self.workers
            .install(|| pipeline::fingerprint_noting(&self.opts))
    }

    /// The root `package.json`'s name, version and license (all `None` when
    /// it is missing or not JSON).
    pub fn package(&self) -> Package {
        let json: Option<serde_json::Value> = std::fs::read(self.opts.root.join("package.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let field = |k: &str| {
            json.as_ref()
                .and_then(|p| p.get(k))
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        Package {
            name: field("name"),
            version: field("version"),
            license: field("license"),
        }
    }
}

/// Analyze a project once (an [`Analyzer`] opened and run).
pub fn analyze(opts: &AnalyzeOptions) -> Result<Inventory, AnalyzeError> {
    Analyzer::open(opts.clone())?.run()
}

/// The input key of an analysis without running it (see
/// [`Analyzer::fingerprint`]): callers that cache what they derive from an
/// inventory key it with this (the same key as [`Inventory::input_key`]).
pub fn fingerprint(opts: &AnalyzeOptions) -> Result<Option<String>, AnalyzeError> {
    fingerprint_noting(opts).map(|(key, _)| key)
}

/// [`fingerprint`], with the cache records it found damaged and discarded
/// (one line each, as in [`Timings::cache_notes`]).
pub fn fingerprint_noting(
    opts: &AnalyzeOptions,
) -> Result<(Option<String>, Vec<String>), AnalyzeError> {
    Analyzer::open(opts.clone())?.fingerprint()
}
