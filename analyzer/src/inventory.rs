//! The inventory: what the analyzer found, in a form specgen and the CLI read.
//!
//! Captures: apps (roots), operations with every declaration that produces
//! them (file, line, router, mount chain, middleware in run order, handler,
//! condition, JSDoc), findings, and the source files read with their hashes.
//!
//! Deliberately not captured: anything derived for documents (domains,
//! summaries, access classes, operationIds) — that is specgen's job.

use crate::paths::PathPattern;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A source location.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Location {
    /// Path relative to the analyzed root, with `/`.
    pub file: String,
    /// 1-based line.
    pub line: u32,
}

/// An Express application that is a root of the mount graph.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct App {
    /// Where `express()` was called.
    pub at: Location,
    /// Operations mounted under it.
    pub operations: usize,
    /// How the analysis reached it when no entry does (absent: from an entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
}

/// How the analysis reached an app or operation that no entry reaches: the
/// salvage pass ran code the entries never ran.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Reached {
    /// `uncalled`: built by a function, method or getter nobody called, run
    /// with placeholder arguments; `unmounted`: a router with routes that
    /// nothing mounts, charted under the unknown prefix `{?}`.
    pub how: String,
    /// The function that was run (`start`, `ParseServer.app`, `default` for
    /// an anonymous default export), or `router` for an unmounted router.
    pub via: String,
    /// Where that function (or router) is.
    pub at: Location,
}

impl Reached {
    /// `uncalled:start (src/index.ts:12)`.
    pub fn label(&self) -> String {
        format!(
            "{}:{} ({}:{})",
            self.how, self.via, self.at.file, self.at.line
        )
    }
}

/// An HTTP method as an Express route names it, and `all()`.
///
/// Operations carry the method as text (`"get"`, `"all"`: the wire format);
/// this is the one place that knows the names and what `all` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    /// `get`.
    Get,
    /// `post`.
    Post,
    /// `put`.
    Put,
    /// `patch`.
    Patch,
    /// `delete` (and Express's old alias `del`).
    Delete,
    /// `head`.
    Head,
    /// `options`.
    Options,
    /// `all()`: every method in [`Method::ALL_ANSWERS`].
    All,
}

impl Method {
    /// The methods an `all()` route answers, as PortOS expands them (in
    /// byte order of their names).
    pub const ALL_ANSWERS: [Method; 7] = [
        Method::Delete,
        Method::Get,
        Method::Head,
        Method::Options,
        Method::Patch,
        Method::Post,
        Method::Put,
    ];

    /// The method an operation's text names (`del`, Express's old alias, is `delete`).
    pub fn parse(name: &str) -> Option<Method> {
        Some(match name {
            "get" => Method::Get,
            "post" => Method::Post,
            "put" => Method::Put,
            "patch" => Method::Patch,
            "delete" | "del" => Method::Delete,
            "head" => Method::Head,
            "options" => Method::Options,
            "all" => Method::All,
            _ => return None,
        })
    }

    /// The lower-case name, as operations carry it.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Post => "post",
            Method::Put => "put",
            Method::Patch => "patch",
            Method::Delete => "delete",
            Method::Head => "head",
            Method::Options => "options",
            Method::All => "all",
        }
    }

    /// The methods a route registered with this one answers.
    pub fn answers(self) -> &'static [Method] {
        match self {
            Method::All => &Method::ALL_ANSWERS,
            Method::Get => &[Method::Get],
            Method::Post => &[Method::Post],
            Method::Put => &[Method::Put],
            Method::Patch => &[Method::Patch],
            Method::Delete => &[Method::Delete],
            Method::Head => &[Method::Head],
            Method::Options => &[Method::Options],
        }
    }
}

/// The Express form of the unknown mount prefix of an unmounted router's routes.
pub const UNKNOWN_PREFIX: &str = "{?}";
/// The OpenAPI path parameter that stands for [`UNKNOWN_PREFIX`].
pub const UNKNOWN_PREFIX_PARAM: &str = "unknownPrefix";

/// One `use()` step on the way from the app to a route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MountStep {
    /// The prefix as written (Express form).
    pub prefix: String,
    /// Where the `use()` call is.
    pub at: Location,
}

/// The function that finally handles a route.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Handler {
    /// Its name, or `<anonymous>`.
    pub name: String,
    /// Where it is defined, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Location>,
}

/// A middleware on a route's chain that can deny the request (it answers
/// 401 or 403): the route needs a credential.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Guard {
    /// The middleware, as the chain names it.
    pub name: String,
    /// The status it denies with (401, else 403).
    pub status: u16,
    /// Where it answers so.
    pub at: Location,
    /// The request header it reads the credential from, when the code shows one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
}

/// One route declaration reached from an app.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Declaration {
    /// Where the verb is called.
    pub at: Location,
    /// For a route registered inside a helper: the call that handed the
    /// helper its path (`this.route({ method: 'get', path: '/x' })` when the
    /// verb call is `this.app[method](path, ...)` in a base class).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<Location>,
    /// The path as written on the route (before mount prefixes).
    pub route_path: String,
    /// Where the router holding the route was created.
    pub router: Location,
    /// The `use()` steps from the app down to the router.
    pub mounts: Vec<MountStep>,
    /// Middleware names in the order Express runs them.
    pub middleware: Vec<String>,
    /// The final handler.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handler: Option<Handler>,
    /// The condition under which the route (or a mount above it) is registered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditional: Option<String>,
    /// The JSDoc block on the declaration, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// What the code states about the request and responses.
    #[serde(default, skip_serializing_if = "Contract::is_empty")]
    pub contract: Contract,
    /// The first middleware on the chain that can deny the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<Guard>,
    /// It answers every path under its own too, as a function mounted with
    /// `use` does (`app.use('/mcp', (req, res) => ...)` answers `/mcp/x`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub subpaths: bool,
}

/// A JSON Schema (2020-12) the code states, and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SchemaInfo {
    /// The schema, JSON Schema 2020-12.
    pub schema: serde_json::Value,
    /// Which library or notation stated it: `zod`, `joi`, `celebrate`,
    /// `express-validator`, `class-validator`, `json-schema` (Ajv,
    /// express-json-validator-middleware), `typescript`, `jsdoc`, `literal`.
    pub source: String,
    /// The binding it was read from (`createTaskSchema`), when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Where it was applied to the request (or returned).
    pub at: Location,
}

/// A response the handler sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseInfo {
    /// HTTP status; 200 when the code does not set one, 0 when it is set at run time.
    pub status: u16,
    /// The JSON body shape, when the code states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<SchemaInfo>,
    /// Where it is sent.
    pub at: Location,
}

/// What the code states about one route's request and responses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Contract {
    /// The request body schema (`schema.parse(req.body)`, validator middleware, typed body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<SchemaInfo>,
    /// The query schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<SchemaInfo>,
    /// The path-parameter schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<SchemaInfo>,
    /// Query parameters the handler reads (`req.query.x`), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub query_read: Vec<String>,
    /// Headers the handler reads (`req.get('X-Id')`, `req.headers['x-id']`), lower-case, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers_read: Vec<String>,
    /// Top-level body properties the handler reads (`req.body.user`, `const { a } = req.body`), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub body_read: Vec<String>,
    /// Responses, sorted by status then location.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub responses: Vec<ResponseInfo>,
}

impl Contract {
    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        self == &Contract::default()
    }
    /// Whether a request schema is linked (the operation is `modeled`).
    pub fn modeled(&self) -> bool {
        self.body.is_some() || self.query.is_some() || self.params.is_some()
    }
}

/// A mounted HTTP operation: one method on one full path of one app.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// How the analysis reached it when no entry does (absent: from an entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingCode {
    /// A syntax error; the message says which lines were kept, assumed or skipped.
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
    /// A value mounted with `use` that is only known at run time (its routes, if any, are unseen).
    DynamicMount,
    /// An app or router handed to a function only known at run time (a
    /// plug-in loaded by a computed import): routes it adds are unseen.
    DynamicCall,
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
    /// The entries leave many registrations unrun while another file that
    /// starts a server imports them: the entry is probably wrong.
    MissedEntry,
    /// A Socket.IO event name only known at run time.
    DynamicEvent,
    /// A catch-all listener (`onAny`) that receives every event.
    CatchAllListener,
    /// A listener that hands a name it received to a table of the
    /// program's handlers: sub-events inside one event, not charted.
    MultiplexedEvent,
    /// A client emits an event no server handler receives.
    UnhandledEvent,
    /// A server handler listens for an event no client emits.
    UnemittedEvent,
    /// The server emits an event no client listens to.
    UnheardEvent,
    /// A client listens for an event no server emits.
    UnsentEvent,
    /// A validator schema the analyzer could not read.
    UnresolvedSchema,
    /// A Socket.IO server in code no entry reaches (a separate program).
    SeparateServer,
    /// An app or router handed to a function of an installed package the
    /// analyzer does not model (a route generator such as `resourcejs`,
    /// `express-restify-mongoose`): routes the package adds are not known.
    PackageRouter,
    /// A program that charts nothing and depends on a server framework the
    /// analyzer does not model (Sails, Koa, Fastify, hapi, …): its routes,
    /// declared the way that framework declares them, are not charted.
    UnmodelledFramework,
    /// Registrations in the source (see the census) that are not charted;
    /// the finding's `cause` says why.
    UnchartedRoute,
    /// Socket.IO sites in the source that are not charted; `cause` says why.
    UnchartedEvent,
    /// A folder's generated scripts (minified bundles) that were not analyzed.
    GeneratedCode,
    /// An app that charts no operation while the requests it receives go to
    /// functions of the program mounted with `use` that Portolan cannot split
    /// into operations (they pass requests on, or answer through an object
    /// that wraps `res`).
    OpaqueMiddleware,
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Registrations or events are lost.
    Error,
    /// Charted, with an assumption (or a cross-check that failed).
    Warning,
    /// Noise-level: nothing is lost.
    Info,
}

impl Severity {
    /// The lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }

    /// Parse `error`, `warning` or `info`.
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "info" => Some(Severity::Info),
            _ => None,
        }
    }
}

impl FindingCode {
    /// Whether the finding is about Socket.IO events (listed in `events.json`,
    /// not in the HTTP catalog).
    pub fn is_event(self) -> bool {
        matches!(
            self,
            FindingCode::DynamicEvent
                | FindingCode::CatchAllListener
                | FindingCode::MultiplexedEvent
                | FindingCode::UnhandledEvent
                | FindingCode::UnemittedEvent
                | FindingCode::UnheardEvent
                | FindingCode::UnsentEvent
                | FindingCode::SeparateServer
                | FindingCode::UnchartedEvent
        )
    }

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
            FindingCode::DynamicMount => "dynamic-mount",
            FindingCode::DynamicCall => "dynamic-call",
            FindingCode::RegexPath => "regex-path",
            FindingCode::UnmountedRouter => "unmounted-router",
            FindingCode::UnreachedApp => "unreached-app",
            FindingCode::AnalysisBudget => "analysis-budget",
            FindingCode::NoEntry => "no-entry",
            FindingCode::MissedEntry => "missed-entry",
            FindingCode::DynamicEvent => "dynamic-event",
            FindingCode::CatchAllListener => "catch-all-listener",
            FindingCode::MultiplexedEvent => "multiplexed-event",
            FindingCode::UnhandledEvent => "unhandled-event",
            FindingCode::UnemittedEvent => "unemitted-event",
            FindingCode::UnheardEvent => "unheard-event",
            FindingCode::UnsentEvent => "unsent-event",
            FindingCode::UnresolvedSchema => "unresolved-schema",
            FindingCode::SeparateServer => "separate-server",
            FindingCode::PackageRouter => "package-router",
            FindingCode::UnmodelledFramework => "unmodelled-framework",
            FindingCode::UnchartedRoute => "uncharted-route",
            FindingCode::UnchartedEvent => "uncharted-event",
            FindingCode::GeneratedCode => "generated-code",
            FindingCode::OpaqueMiddleware => "opaque-middleware",
        }
    }
}

/// Something the analyzer could not resolve, with where and why.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Finding {
    /// What kind.
    pub code: FindingCode,
    /// Where.
    pub at: Location,
    /// Why, in words that say what to change.
    pub message: String,
    /// For `uncharted-*` findings: the census cause (`unreached-file`,
    /// `uncalled-function`, `unknown-receiver`, `not-a-router`, …); for a
    /// `dynamic-path` charted under the default the code gives a run-time
    /// value (`process.env.PREFIX || '/env'`): `assumed-default`; for one
    /// charted under the unknown prefix because only its start is known at
    /// run time (`${base}/users`): `unknown-prefix`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
}

impl Finding {
    /// The cause code: the census cause for `uncharted-*` findings, else the code.
    pub fn cause(&self) -> &str {
        self.cause.as_deref().unwrap_or(self.code.as_str())
    }

    /// How much it matters: `error` when registrations or events are lost,
    /// `warning` when something is charted with an assumption, `info` otherwise.
    pub fn severity(&self) -> Severity {
        use FindingCode as C;
        match self.code {
            C::UnchartedRoute | C::UnchartedEvent => match self.cause() {
                "not-a-router" | "not-a-socket" => Severity::Info,
                _ => Severity::Error,
            },
            // Charted under the default the code gives a run-time value.
            C::DynamicPath if matches!(self.cause(), "assumed-default" | "unknown-prefix") => {
                Severity::Warning
            }
            C::ParseError
            | C::UnreadableFile
            | C::InvalidUtf8
            | C::TooDeep
            | C::DynamicImport
            | C::DynamicPath
            | C::DynamicMethod
            | C::DynamicLoop
            | C::DynamicMount
            | C::DynamicCall
            | C::UnreachedApp
            | C::AnalysisBudget
            | C::NoEntry
            | C::UnmodelledFramework
            | C::OpaqueMiddleware
            | C::DynamicEvent => Severity::Error,
            // Its routes are charted under the unknown prefix `{?}`.
            C::UnmountedRouter
            | C::UnresolvedImport
            | C::CatchAllListener
            | C::MultiplexedEvent
            | C::UnhandledEvent
            | C::UnemittedEvent
            | C::UnheardEvent
            | C::UnsentEvent
            | C::UnresolvedSchema
            | C::SeparateServer
            | C::PackageRouter
            | C::MissedEntry => Severity::Warning,
            C::RegexPath | C::GeneratedCode => Severity::Info,
        }
    }

    /// The group it belongs to: `input` (files that could not be read or
    /// parsed, entries, imports), `http`, `events`, `contracts`.
    pub fn group(&self) -> &'static str {
        use FindingCode as C;
        match self.code {
            C::ParseError
            | C::UnreadableFile
            | C::InvalidUtf8
            | C::TooDeep
            | C::UnresolvedImport
            | C::DynamicImport
            | C::NoEntry
            | C::MissedEntry
            | C::GeneratedCode
            | C::AnalysisBudget => "input",
            C::UnresolvedSchema => "contracts",
            c if c.is_event() => "events",
            _ => "http",
        }
    }
}

/// How much of the census the inventory charts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// HTTP registrations in the census (routes, mounts, `param`), those
    /// known not to be on an app or router left out.
    pub http_total: usize,
    /// Of those, charted.
    pub http_charted: usize,
    /// Socket.IO sites in the census, those known not to be on a socket left out.
    pub socket_total: usize,
    /// Of those, charted.
    pub socket_charted: usize,
    /// Uncharted items (info-level ones included) per cause.
    pub causes: BTreeMap<String, usize>,
}

impl Coverage {
    /// Charted share of the HTTP and Socket.IO census together, in percent (100 when empty).
    pub fn percent(&self) -> f64 {
        let total = self.http_total + self.socket_total;
        if total == 0 {
            100.0
        } else {
            100.0 * (self.http_charted + self.socket_charted) as f64 / total as f64
        }
    }
}

/// One census item and how it is accounted for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CensusEntry {
    /// Where the call is (the method name's line).
    pub at: Location,
    /// `route`, `use`, `param` or `event`.
    pub kind: String,
    /// The call as written, shortened (`router.get('/users'…)`).
    pub what: String,
    /// Charted in the inventory.
    pub charted: bool,
    /// When not charted: the cause code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// When not charted: where the finding that accounts for it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<Location>,
}

/// A file the analysis read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SourceFile {
    /// Path relative to the root.
    pub file: String,
    /// blake3 of its bytes, hex.
    pub hash: String,
    /// Read for the HTTP inventory (not only to find events).
    #[serde(default)]
    pub http: bool,
}

/// Counts in the PortOS route-graph sense.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Stats {
    /// Unique app-level mount prefixes that mount a router.
    pub mounts: usize,
    /// Unique (app, method, path) operations.
    pub operations: usize,
    /// Unique route declarations reached (file, line, method, route path).
    pub declarations: usize,
    /// Modules read while walking from the entries, entries excluded.
    pub source_files: usize,
    /// Operations charted by the salvage pass (not in `operations`).
    #[serde(default)]
    pub salvaged: usize,
}

/// Where the time went, for `--timings`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Timings {
    /// Discovering files.
    pub discover_ms: f64,
    /// Reading needles for entry detection.
    pub prefilter_ms: f64,
    /// Evaluating modules (includes waiting for parses).
    pub resolve_ms: f64,
    /// Finding event sites in code nobody calls.
    pub events_ms: f64,
    /// Building the inventory.
    pub inventory_ms: f64,
    /// CPU time in the parser, summed over threads.
    pub parse_cpu_ms: f64,
    /// CPU time lowering syntax trees, summed over threads.
    pub lower_cpu_ms: f64,
    /// CPU time collecting the census from the facts of the files parsed in
    /// this run, summed over threads (cached facts carry theirs).
    #[serde(default)]
    pub census_cpu_ms: f64,
    /// Matching the census against the inventory (part of `inventory_ms`).
    #[serde(default)]
    pub census_account_ms: f64,
    /// Files discovered.
    pub files_discovered: usize,
    /// Files parsed in this run.
    pub files_parsed: usize,
    /// Files the parse-ahead threads loaded before the evaluator asked
    /// (parsed or from the cache); it loaded the rest itself, waiting.
    #[serde(default)]
    pub files_ahead: usize,
    /// Files whose facts came from the cache.
    pub files_cached: usize,
    /// The whole inventory came from the cache (no input changed).
    pub result_cached: bool,
    /// Cache records found damaged (or of another version) in this run,
    /// discarded and recomputed: one line each, printed as `info` lines.
    pub cache_notes: Vec<String>,
    /// Each pass of the evaluation (`passes.rs`) in the order it ran: wall
    /// time, with the files it parsed and the modules it ran for the first
    /// time (`--timings` prints them). Not stored with a result.
    #[serde(skip)]
    pub phases: Vec<PhaseTiming>,
    /// The files parsed in this run (relative to the root, sorted), for the
    /// bench's parse floor ([`crate::parse_floor`]). Not stored with a result.
    #[serde(skip)]
    pub parsed_files: Vec<String>,
}

/// One pass of a run in [`Timings::phases`].
#[derive(Debug, Clone, Default)]
pub struct PhaseTiming {
    /// The pass's name (`entries`, `unreached`, `contracts`, `socket-modules`,
    /// `uncalled`, `settle`).
    pub name: &'static str,
    /// Wall time from its start to the next pass's start.
    pub ms: f64,
    /// Files parsed meanwhile (by the evaluator or ahead of it).
    pub parsed: usize,
    /// Modules that ran for the first time meanwhile.
    pub modules: usize,
}

/// Which way an event travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Sent by a client, received by the server.
    ClientToServer,
    /// Sent by the server, received by clients.
    ServerToClient,
}

impl Direction {
    /// The kebab-case name used in documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::ClientToServer => "client-to-server",
            Direction::ServerToClient => "server-to-client",
        }
    }
}

/// Which program a site belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// Code using `socket.io` (the server).
    Server,
    /// Code using `socket.io-client`.
    Client,
}

impl Side {
    /// The lower-case name used in documents.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Server => "server",
            Side::Client => "client",
        }
    }
}

/// One place an event is emitted or listened to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EventSite {
    /// Where (the `emit`/`on` call, or the helper call that forwards the name).
    pub at: Location,
    /// Server or client.
    pub side: Side,
    /// The direction this site implies.
    pub direction: Direction,
    /// `on`, `once`, `emit`, `broadcast`, `emitWithAck`, `send`, …
    pub kind: String,
    /// The helper the name went through (`broadcastToApps`), when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// Rooms targeted (`to(room)`), as written or resolved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rooms: Vec<String>,
    /// Payload parameter names (listeners) or argument count (emits), as names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Whether an acknowledgement callback is taken (listener) or passed (emit).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ack: bool,
    /// How the analysis reached a site no entry reaches: `assumed-namespace`
    /// when its receiver is a socket-named parameter of a function nobody
    /// called, run with a Socket.IO placeholder (`via` is that function).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
}

/// A Socket.IO event in one namespace.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Event {
    /// The event name; placeholders as `{name}` when it is a pattern.
    pub name: String,
    /// Whether the name contains placeholders.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pattern: bool,
    /// The namespace (`/` by default; patterns for dynamic namespaces).
    pub namespace: String,
    /// Directions seen, sorted.
    pub directions: Vec<Direction>,
    /// A reserved lifecycle event (`connect`, `disconnect`, …), not API.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lifecycle: bool,
    /// Every site's namespace is assumed (see [`EventSite::reached`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub namespace_assumed: bool,
    /// Every site, sorted.
    pub sites: Vec<EventSite>,
    /// Payload schema per direction, when the code states it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub payload: BTreeMap<Direction, SchemaInfo>,
    /// Acknowledgement schema per direction, when an ack is used.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ack: BTreeMap<Direction, SchemaInfo>,
    /// Rooms the event is sent to, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rooms: Vec<String>,
}

/// A Socket.IO server found in the code.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SocketServer {
    /// Where it is created.
    pub at: Location,
    /// The HTTP path it serves (`/socket.io` unless the `path` option says otherwise).
    pub path: String,
    /// Namespaces used on it, sorted.
    pub namespaces: Vec<String>,
}

/// Event counts.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EventStats {
    /// API events (lifecycle excluded), counted per (namespace, name).
    pub events: usize,
    /// Events with a client-to-server direction.
    pub client_to_server: usize,
    /// Events with a server-to-client direction.
    pub server_to_client: usize,
    /// Events with both directions.
    pub bidirectional: usize,
    /// Files with at least one site.
    pub source_files: usize,
    /// Lifecycle events seen.
    pub lifecycle: usize,
}

/// Everything the analyzer found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Inventory {
    /// Entry files, relative to the root.
    pub entries: Vec<String>,
    /// Why each automatically detected entry was chosen, by entry (empty
    /// when the entries were given).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub entry_reasons: std::collections::BTreeMap<String, String>,
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
    /// Socket.IO servers.
    pub socket_servers: Vec<SocketServer>,
    /// Socket.IO events, sorted by namespace then name (bytes).
    pub events: Vec<Event>,
    /// Event counts.
    pub event_stats: EventStats,
    /// How much of the census is charted.
    #[serde(default)]
    pub coverage: Coverage,
    /// Every census item, sorted, with how it is accounted for.
    #[serde(default)]
    pub census: Vec<CensusEntry>,
    /// Timings (not part of the documents).
    #[serde(skip)]
    pub timings: Timings,
    /// The key of this analysis's inputs (see `fingerprint`), `None` without a cache.
    #[serde(skip)]
    pub input_key: Option<String>,
}

/// Deepest JSON nesting a stated schema keeps: deeper levels become an open
/// schema that says so. Documents wrap schemas in a few more levels, and
/// JSON readers commonly stop at 128 (serde_json does), so a schema written
/// 200 levels deep in the source must not make a document unreadable.
pub(crate) const MAX_SCHEMA_DEPTH: usize = 48;

/// `schema` with every value nested deeper than `MAX_SCHEMA_DEPTH` replaced.
pub(crate) fn bounded_schema(schema: &mut serde_json::Value) {
    fn walk(v: &mut serde_json::Value, depth: usize) {
        use serde_json::Value as J;
        match v {
            J::Object(_) | J::Array(_) if depth >= MAX_SCHEMA_DEPTH => {
                *v = serde_json::json!({
                    "description": format!("nested deeper than {MAX_SCHEMA_DEPTH} levels; the rest is left out")
                });
            }
            J::Object(m) => m.values_mut().for_each(|x| walk(x, depth + 1)),
            J::Array(a) => a.iter_mut().for_each(|x| walk(x, depth + 1)),
            _ => {}
        }
    }
    walk(schema, 0);
}

impl Inventory {
    /// Bound the depth of every schema the inventory states (see [`bounded_schema`]).
    pub(crate) fn bound_schemas(&mut self) {
        let contract = |c: &mut Contract| {
            for s in [&mut c.body, &mut c.query, &mut c.params]
                .into_iter()
                .flatten()
            {
                bounded_schema(&mut s.schema);
            }
            for r in &mut c.responses {
                if let Some(s) = &mut r.schema {
                    bounded_schema(&mut s.schema);
                }
            }
        };
        for op in &mut self.operations {
            for d in &mut op.declarations {
                contract(&mut d.contract);
            }
        }
        for e in &mut self.events {
            for s in e.payload.values_mut().chain(e.ack.values_mut()) {
                bounded_schema(&mut s.schema);
            }
        }
    }
}

#[cfg(test)]
mod method_tests {
    use super::Method;

    #[test]
    fn method_names_round_trip_and_all_answers_seven_in_byte_order() {
        for m in Method::ALL_ANSWERS.iter().chain([&Method::All]) {
            assert_eq!(Method::parse(m.as_str()), Some(*m));
        }
        assert_eq!(Method::parse("del"), Some(Method::Delete));
        assert_eq!(Method::parse("GET"), None);
        let names: Vec<&str> = Method::All.answers().iter().map(|m| m.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert_eq!(names.len(), 7);
        assert_eq!(Method::Post.answers(), &[Method::Post]);
    }
}

#[cfg(test)]
mod schema_depth_tests {
    use super::{MAX_SCHEMA_DEPTH, bounded_schema};
    use serde_json::{Value, json};

    fn depth(v: &Value) -> usize {
        match v {
            Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
            Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }

    #[test]
    fn deep_schemas_are_cut_and_shallow_ones_kept() {
        let mut deep = json!({"type": "string"});
        for _ in 0..200 {
            deep = json!({"type": "object", "properties": {"a": deep}});
        }
        bounded_schema(&mut deep);
        assert!(depth(&deep) <= MAX_SCHEMA_DEPTH + 1, "{}", depth(&deep));
        assert!(deep.to_string().contains("left out"));
        // Readable by a parser with the common 128-level limit.
        let text = json!({"a": {"b": {"c": {"d": {"e": {"f": deep}}}}}}).to_string();
        assert!(serde_json::from_str::<Value>(&text).is_ok());
        let mut shallow = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}});
        let before = shallow.clone();
        bounded_schema(&mut shallow);
        assert_eq!(shallow, before);
    }
}
