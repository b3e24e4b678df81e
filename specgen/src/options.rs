//! What a caller can tell the emitters beyond the inventory: titles, hosts,
//! exposed APIs, tool bindings, access rules and side-effect overrides.
//!
//! Captures plain data only (the CLI fills it from `portolan.toml`); every
//! field has a default that works with no configuration.

/// A public API: the operations under one path prefix, published in `openapi.json`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExposedApi {
    /// Identifier, used as the tag name (`voice`).
    pub id: String,
    /// Human label (`Voice / TTS`); defaults to the id.
    pub label: Option<String>,
    /// What the API is for.
    pub description: Option<String>,
    /// Express path prefix; an operation is in the API when its path is the
    /// prefix or continues it after a `/`.
    pub prefix: String,
    /// Whether callers must authenticate.
    pub require_auth: bool,
}

/// A tool bound to an operation by configuration (`[[tools]]`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolBinding {
    /// Tool name (`berths.search`).
    pub name: String,
    /// HTTP method (any case; `GET`).
    pub method: String,
    /// Express path (`/api/berths/:id`) or OpenAPI template (`/api/berths/{id}`).
    pub path: String,
    /// Side effect; defaults to the operation's.
    pub side_effect: Option<String>,
    /// Scopes allowed to call it.
    pub scopes: Vec<String>,
    /// Description; defaults to the operation's.
    pub description: Option<String>,
    /// Tool version; defaults to 1.
    pub version: Option<u32>,
}

/// Middleware names that decide an operation's access class. Names are
/// compared case-insensitively without `_`/`-` and without a trailing call
/// (`passport.authenticate()` matches `passport.authenticate`); a name also
/// matches a chain entry ending in `.<name>`.
#[derive(Debug, Clone, PartialEq)]
pub struct AccessRules {
    /// Guards meaning "the caller must be authenticated".
    pub auth: Vec<String>,
    /// Guards meaning "only loopback callers".
    pub loopback: Vec<String>,
}

impl Default for AccessRules {
    fn default() -> Self {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect();
        AccessRules {
            auth: s(&[
                "passport.authenticate",
                "requireAuth",
                "isAuthenticated",
                "ensureAuthenticated",
                "authenticate",
                "authenticated",
                "ensureLoggedIn",
                "requireLogin",
                "requireUser",
                "authorize",
                "jwt",
                "expressjwt",
                "checkJwt",
                "verifyJwt",
                "verifyToken",
                "validateToken",
                "requireToken",
                "authGate",
                "protect",
                "auth",
            ]),
            loopback: s(&[
                "loopbackOnly",
                "requireLoopback",
                "localOnly",
                "localhostOnly",
                "requireLocal",
                "requireLocalRequest",
                "loopbackGuard",
            ]),
        }
    }
}

/// A side effect set for one operation by configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct SideEffectOverride {
    /// HTTP method (any case).
    pub method: String,
    /// Express path or OpenAPI template.
    pub path: String,
    /// `read`, `write`, `destructive` or `process-control`.
    pub side_effect: String,
}

/// Everything the emitters need besides the inventory.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecOptions {
    /// API title (default `API`).
    pub title: String,
    /// API version (default `0.0.0`).
    pub version: String,
    /// SPDX license id for `info.license` (from package.json); none leaves it out.
    pub license: Option<String>,
    /// OpenAPI `servers[0].url`; none means `servers: []`.
    pub server_url: Option<String>,
    /// AsyncAPI server host (default `localhost:5555`).
    pub socket_host: String,
    /// Public APIs, in the order given.
    pub exposed: Vec<ExposedApi>,
    /// Tools bound by configuration.
    pub tools: Vec<ToolBinding>,
    /// Access rules.
    pub access: AccessRules,
    /// Side effects set by configuration.
    pub side_effects: Vec<SideEffectOverride>,
    /// Emit the OpenAPI documents as 3.1.0 (schemas unchanged) instead of 3.0.3.
    pub openapi31: bool,
    /// The credential guarded operations take (`[openapi] auth`).
    pub auth: AuthScheme,
}

/// The credential an authentication guard checks, as OpenAPI states it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AuthScheme {
    /// A bearer token, assumed: the analyzer cannot tell which credential a guard checks.
    #[default]
    AssumedBearer,
    /// `Authorization: Bearer …`, as configured.
    Bearer,
    /// `Authorization: Basic …`.
    Basic,
    /// A key in a header, cookie or query parameter (`in`, name).
    ApiKey(String, String),
}

impl AuthScheme {
    /// Parse `bearer`, `basic`, `header:NAME`, `cookie:NAME` or `query:NAME`.
    pub fn parse(text: &str) -> Result<AuthScheme, String> {
        match text.split_once(':') {
            None if text == "bearer" => Ok(AuthScheme::Bearer),
            None if text == "basic" => Ok(AuthScheme::Basic),
            Some((place @ ("header" | "cookie" | "query"), name)) if !name.trim().is_empty() => Ok(
                AuthScheme::ApiKey(place.to_string(), name.trim().to_string()),
            ),
            _ => Err(format!(
                "`{text}` is not a credential: use `bearer`, `basic`, `header:NAME`, `cookie:NAME` or `query:NAME`"
            )),
        }
    }

    /// The name of the security scheme in `components.securitySchemes`.
    pub fn id(&self) -> &'static str {
        match self {
            AuthScheme::AssumedBearer | AuthScheme::Bearer => "bearerAuth",
            AuthScheme::Basic => "basicAuth",
            AuthScheme::ApiKey(..) => "apiKeyAuth",
        }
    }

    /// The security scheme object.
    pub fn scheme(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            AuthScheme::AssumedBearer => json!({
                "type": "http",
                "scheme": "bearer",
                "description": "The operation's middleware chain runs an authentication guard; the analyzer cannot tell which credential it checks, so a bearer token is assumed (set `[openapi] auth` in portolan.toml to state it)."
            }),
            AuthScheme::Bearer => json!({"type": "http", "scheme": "bearer"}),
            AuthScheme::Basic => json!({"type": "http", "scheme": "basic"}),
            AuthScheme::ApiKey(place, name) => json!({"type": "apiKey", "in": place, "name": name}),
        }
    }
}

impl Default for SpecOptions {
    fn default() -> Self {
        SpecOptions {
            title: "API".into(),
            version: "0.0.0".into(),
            license: None,
            server_url: None,
            socket_host: "localhost:5555".into(),
            exposed: Vec::new(),
            tools: Vec::new(),
            access: AccessRules::default(),
            side_effects: Vec::new(),
            openapi31: false,
            auth: AuthScheme::default(),
        }
    }
}

/// The side-effect vocabulary.
pub const SIDE_EFFECTS: &[&str] = &["read", "write", "destructive", "process-control"];
