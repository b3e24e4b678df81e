//! What a caller gives an analysis ([`AnalyzeOptions`]), what stops one
//! from running ([`AnalyzeError`]), and what the project's `package.json`
//! says of itself ([`Package`]).

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

/// What the project's root `package.json` says of itself: each field only
/// when it is present and a string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Package {
    /// `name`.
    pub name: Option<String>,
    /// `version`.
    pub version: Option<String>,
    /// `license` (as written: an SPDX id, an expression or `SEE LICENSE IN …`).
    pub license: Option<String>,
}
