//! The inventory: what the analyzer found, in a form specgen and the CLI read.
//!
//! Captures: apps (roots), operations with every declaration that produces
//! them (file, line, router, mount chain, middleware in run order, handler,
//! condition, JSDoc), findings, and the source files read with their hashes.
//!
//! Deliberately not captured: anything derived for documents (domains,
//! summaries, access classes, operationIds) — that is specgen's job.

use crate::paths::PathPattern;
use serde::Serialize;

/// A source location.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Location {
    /// Path relative to the analyzed root, with `/`.
    pub file: String,
    /// 1-based line.
    pub line: u32,
}

/// An Express application that is a root of the mount graph.
#[derive(Debug, Clone, Serialize)]
pub struct App {
    /// Where `express()` was called.
    pub at: Location,
    /// Operations mounted under it.
    pub operations: usize,
}

/// One `use()` step on the way from the app to a route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MountStep {
    /// The prefix as written (Express form).
    pub prefix: String,
    /// Where the `use()` call is.
    pub at: Location,
}

/// The function that finally handles a route.
#[derive(Debug, Clone, Serialize)]
pub struct Handler {
    /// Its name, or `<anonymous>`.
    pub name: String,
    /// Where it is defined, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Location>,
}

/// One route declaration reached from an app.
#[derive(Debug, Clone, Serialize)]
pub struct Declaration {
    /// Where the verb is called.
    pub at: Location,
    /// The path as written on the route (before mount prefixes).
    pub route_path: String,
    /// Where the router holding the route was created.
    pub router: Location,
    /// The `use()` steps from the app down to the router.
    pub mounts: Vec<MountStep>,
    /// Middleware names in the order Express runs them.
    pub middleware: Vec<String>,
    /// The final handler.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handler: Option<Handler>,
    /// The condition under which the route (or a mount above it) is registered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditional: Option<String>,
    /// The JSDoc block on the declaration, when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

/// A mounted HTTP operation: one method on one full path of one app.
#[derive(Debug, Clone, Serialize)]
pub struct Operation {
    /// Lower-case Express method (`get`, ..., `all`).
    pub method: String,
    /// The full path with every mount prefix joined.
    pub path: PathPattern,
    /// The app it belongs to.
    pub app: Location,
    /// The app-level mount prefix of the first declaration ("" when the route is on the app).
    pub mount_path: String,
    /// Every declaration that produces it, sorted.
    pub declarations: Vec<Declaration>,
}

impl Operation {
    /// Whether every declaration is conditional.
    pub fn conditional(&self) -> Option<&str> {
        if self.declarations.iter().all(|d| d.conditional.is_some()) {
            self.declarations
                .first()
                .and_then(|d| d.conditional.as_deref())
        } else {
            None
        }
    }
}

/// Kinds of things the analyzer could not resolve, or wants to point out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingCode {
    /// A syntax error; the rest of the file was analyzed.
    ParseError,
    /// The file could not be read.
    UnreadableFile,
    /// The file is not valid UTF-8.
    InvalidUtf8,
    /// Code nested too deeply to analyze.
    TooDeep,
    /// A relative or aliased import with no file behind it.
    UnresolvedImport,
    /// A module loaded from a computed specifier.
    DynamicImport,
    /// A route or mount path only known at run time.
    DynamicPath,
    /// An HTTP method computed at run time (`app[m](...)`).
    DynamicMethod,
    /// Registrations in a loop over something only known at run time.
    DynamicLoop,
    /// A route path given as a regular expression.
    RegexPath,
    /// A router that declares routes but is never mounted.
    UnmountedRouter,
    /// An app in a file no entry reaches.
    UnreachedApp,
    /// The analysis stopped following calls.
    AnalysisBudget,
    /// No entry file could be found.
    NoEntry,
}

impl FindingCode {
    /// The kebab-case code.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingCode::ParseError => "parse-error",
            FindingCode::UnreadableFile => "unreadable-file",
            FindingCode::InvalidUtf8 => "invalid-utf8",
            FindingCode::TooDeep => "too-deep",
            FindingCode::UnresolvedImport => "unresolved-import",
            FindingCode::DynamicImport => "dynamic-import",
            FindingCode::DynamicPath => "dynamic-path",
            FindingCode::DynamicMethod => "dynamic-method",
            FindingCode::DynamicLoop => "dynamic-loop",
            FindingCode::RegexPath => "regex-path",
            FindingCode::UnmountedRouter => "unmounted-router",
            FindingCode::UnreachedApp => "unreached-app",
            FindingCode::AnalysisBudget => "analysis-budget",
            FindingCode::NoEntry => "no-entry",
        }
    }
}

/// Something the analyzer could not resolve, with where and why.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// What kind.
    pub code: FindingCode,
    /// Where.
    pub at: Location,
    /// Why, in words that say what to change.
    pub message: String,
}

/// A file the analysis read.
#[derive(Debug, Clone, Serialize)]
pub struct SourceFile {
    /// Path relative to the root.
    pub file: String,
    /// blake3 of its bytes, hex.
    pub hash: String,
}

/// Counts in the PortOS route-graph sense.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    /// Unique app-level mount prefixes that mount a router.
    pub mounts: usize,
    /// Unique (app, method, path) operations.
    pub operations: usize,
    /// Unique route declarations reached (file, line, method, route path).
    pub declarations: usize,
    /// Modules read while walking from the entries, entries excluded.
    pub source_files: usize,
}

/// Where the time went, for `--timings`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timings {
    /// Discovering files.
    pub discover_ms: f64,
    /// Reading needles for entry detection.
    pub prefilter_ms: f64,
    /// Evaluating modules (includes waiting for parses).
    pub resolve_ms: f64,
    /// Building the inventory.
    pub inventory_ms: f64,
    /// Files discovered.
    pub files_discovered: usize,
    /// Files parsed in this run.
    pub files_parsed: usize,
    /// Files whose facts came from the cache.
    pub files_cached: usize,
}

/// Everything the analyzer found.
#[derive(Debug, Clone, Serialize)]
pub struct Inventory {
    /// Entry files, relative to the root.
    pub entries: Vec<String>,
    /// Root apps.
    pub apps: Vec<App>,
    /// Operations, sorted by path (bytes), then method, then app.
    pub operations: Vec<Operation>,
    /// Unique app-level mount prefixes, sorted.
    pub mounts: Vec<String>,
    /// Findings, sorted by file, line, code.
    pub findings: Vec<Finding>,
    /// Files read, sorted.
    pub source_files: Vec<SourceFile>,
    /// Counts.
    pub stats: Stats,
    /// Timings (not part of the documents).
    #[serde(skip)]
    pub timings: Timings,
}
