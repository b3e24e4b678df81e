//! The `[server]` section of `portolan.toml`: listen address, data folder,
//! upstream, auth mode and keys, claim names, rate limits, retention and the
//! MCP endpoint's trust rules (`[server.mcp]`).
//!
//! Parsed strictly: an unknown key or an unusable value is a start-up error
//! naming the key and the reason. Secrets can come from the environment
//! (`PORTOLAN_JWT_SECRET`, `PORTOLAN_JWT_PUBLIC_KEY`, and `PORTOLAN_STORE`,
//! the PostgreSQL URL, which may hold a password), which wins over the file,
//! and are never printed ([`ServerSettings::describe`] leaves them out; the
//! store prints only host, port and database).
//! Deliberately not captured: TLS (put a reverse proxy in front).

use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;

/// The whole `[server]` section, every key optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    /// `host:port` to listen on.
    pub listen: Option<String>,
    /// Where the store lives.
    pub data_dir: Option<PathBuf>,
    /// A `postgres://` URL: keep calls, audit and rate limits in PostgreSQL,
    /// shared by every process given the same URL (default: SQLite in
    /// `data_dir`). `PORTOLAN_STORE` wins over it.
    pub store: Option<String>,
    /// How long a PostgreSQL claim outlives its process's last heartbeat
    /// before the call counts as interrupted, in milliseconds.
    pub claim_lease_ms: Option<u64>,
    /// Base URL of the analysed application, for HTTP-bound tools.
    pub upstream: Option<String>,
    /// Upstream request timeout in milliseconds.
    pub upstream_timeout_ms: Option<u64>,
    /// Header that carries the principal to the upstream.
    pub principal_header: Option<String>,
    /// Header that carries the tenant to the upstream.
    pub tenant_header: Option<String>,
    /// How long a duplicate call waits for the running original before it
    /// answers 202 pending, in milliseconds.
    pub pending_wait_ms: Option<u64>,
    /// `[server.auth]`.
    #[serde(default)]
    pub auth: AuthSection,
    /// `[server.limits]`.
    #[serde(default)]
    pub limits: LimitsSection,
    /// `[server.retention]`.
    #[serde(default)]
    pub retention: RetentionSection,
    /// `[server.mcp]`.
    #[serde(default)]
    pub mcp: McpSection,
}

/// `[server.mcp]`: the agent endpoint and who may reach it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpSection {
    /// Serve MCP at `/api/agent-context/mcp` (default true: loopback agents only).
    pub enabled: Option<bool>,
    /// Admit agents that are not on loopback (default false); they must
    /// send a bearer token, so `[server.auth] mode = "jwt"` is required.
    pub allow_remote: Option<bool>,
    /// Browser origins allowed besides loopback ones (`http://localhost:*`,
    /// `http://127.0.0.1:*`, `http://[::1]:*`), exactly `scheme://host[:port]`.
    pub allowed_origins: Option<Vec<String>>,
    /// Peer addresses of reverse proxies whose `X-Forwarded-For` names the
    /// client (default none: forwarded headers are ignored).
    pub trusted_proxies: Option<Vec<String>>,
    /// Grants of an anonymous loopback agent in `local` mode (default `["readPortos"]`).
    pub grants: Option<Vec<String>>,
    /// Tools per `tools/list` page (default 50, 1 to 1000).
    pub page_size: Option<u32>,
}

/// Validated `[server.mcp]`.
#[derive(Debug, Clone, PartialEq)]
pub struct McpSettings {
    /// Whether the endpoint answers.
    pub enabled: bool,
    /// Whether non-loopback agents (with a token) are admitted.
    pub allow_remote: bool,
    /// Extra allowed origins, lower-cased, without a trailing slash.
    pub allowed_origins: Vec<String>,
    /// Trusted proxy addresses.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Grants of the anonymous loopback agent.
    pub grants: Vec<String>,
    /// `tools/list` page size.
    pub page_size: usize,
}

/// `[server.auth]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthSection {
    /// `local` (default) or `jwt`.
    pub mode: Option<String>,
    /// Accepted algorithms: `HS256`, `RS256`, `ES256` (default: `["HS256"]`).
    pub algorithms: Option<Vec<String>>,
    /// HS256 shared secret (prefer `PORTOLAN_JWT_SECRET`).
    pub secret: Option<String>,
    /// RS256/ES256 public key, PEM file.
    pub public_key_file: Option<PathBuf>,
    /// RS256/ES256 public keys as a JWK Set file (keys chosen by the token's `kid`).
    pub jwks_file: Option<PathBuf>,
    /// Expected `aud`.
    pub audience: Option<String>,
    /// Expected `iss`.
    pub issuer: Option<String>,
    /// Clock leeway for `exp`/`nbf`, seconds (default 30).
    pub leeway_seconds: Option<u64>,
    /// Claim naming the principal (default `sub`).
    pub principal_claim: Option<String>,
    /// Claim naming the tenant (default `tenant`).
    pub tenant_claim: Option<String>,
    /// Claim naming the scope (default `scope`; default value `ui`).
    pub scope_claim: Option<String>,
    /// Claim listing capability grants (default `capabilities`).
    pub grants_claim: Option<String>,
    /// The grant that may read the audit log (default `admin`).
    pub admin_grant: Option<String>,
    /// The argument name no tool input schema may declare (default `tenant`).
    pub tenant_field: Option<String>,
    /// Grants of the anonymous local principal (default `["readPortos"]`).
    pub local_grants: Option<Vec<String>>,
}

/// `[server.limits]`: token buckets per principal and tool class.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSection {
    /// Read calls per minute per principal (default 600).
    pub read_per_minute: Option<u32>,
    /// Read burst (default 100).
    pub read_burst: Option<u32>,
    /// Write calls per minute per principal (default 60).
    pub write_per_minute: Option<u32>,
    /// Write burst (default 10).
    pub write_burst: Option<u32>,
}

/// `[server.retention]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetentionSection {
    /// Results older than this are dropped (default 168 h = 7 days).
    pub max_age_hours: Option<u64>,
    /// At most this many results are kept (default 100,000).
    pub max_results: Option<u64>,
    /// Fingerprints of dropped results are kept this long, so a replay
    /// answers `TOOL_IDEMPOTENCY_EXPIRED` instead of running again
    /// (default 720 h = 30 days).
    pub tombstone_hours: Option<u64>,
}

/// Authentication mode.
#[derive(Debug, Clone, PartialEq)]
pub enum AuthMode {
    /// PortOS's passwordless install: anonymous reads, no writes.
    Local,
    /// Bearer JWTs.
    Jwt(JwtSettings),
}

/// Everything needed to verify tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct JwtSettings {
    /// Allowed algorithms, never taken from the token.
    pub algorithms: Vec<jsonwebtoken::Algorithm>,
    /// HS256 secret.
    pub secret: Option<Vec<u8>>,
    /// PEM public key for RS256/ES256.
    pub public_key_pem: Option<Vec<u8>>,
    /// JWK Set (the file's bytes) for RS256/ES256, keys chosen by `kid`.
    pub jwks: Option<Vec<u8>>,
    /// Expected audience.
    pub audience: Option<String>,
    /// Expected issuer.
    pub issuer: Option<String>,
    /// Leeway in seconds.
    pub leeway: u64,
}

/// Validated, defaulted settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSettings {
    /// Listen address.
    pub listen: String,
    /// Data folder (None: the caller decides).
    pub data_dir: Option<PathBuf>,
    /// The PostgreSQL URL of a shared store (None: SQLite in the data folder).
    pub store: Option<String>,
    /// Lease of a PostgreSQL claim.
    pub claim_lease: Duration,
    /// Upstream base URL without a trailing slash.
    pub upstream: Option<String>,
    /// Upstream timeout.
    pub upstream_timeout: Duration,
    /// Principal header to the upstream.
    pub principal_header: String,
    /// Tenant header to the upstream.
    pub tenant_header: String,
    /// Wait of a duplicate for the running original.
    pub pending_wait: Duration,
    /// Auth mode.
    pub auth: AuthMode,
    /// Claim names.
    pub principal_claim: String,
    /// Tenant claim.
    pub tenant_claim: String,
    /// Scope claim.
    pub scope_claim: String,
    /// Grants claim.
    pub grants_claim: String,
    /// Admin grant.
    pub admin_grant: String,
    /// Forbidden argument name.
    pub tenant_field: String,
    /// Local grants.
    pub local_grants: Vec<String>,
    /// Read bucket: per minute, burst.
    pub read_limit: (u32, u32),
    /// Write bucket: per minute, burst.
    pub write_limit: (u32, u32),
    /// Result retention by age.
    pub max_age: Duration,
    /// Result retention by count.
    pub max_results: u64,
    /// Tombstone retention.
    pub tombstone_age: Duration,
    /// `[server.mcp]`.
    pub mcp: McpSettings,
    /// The `[[recipes]]` of `portolan.toml` (a top-level section, read with
    /// `[server]` because only `serve` uses it and a reload swaps both):
    /// [`super::recipes::parse`] fills it; empty by default.
    pub recipes: Vec<super::recipes::RecipeDef>,
}

impl Default for ServerSettings {
    fn default() -> ServerSettings {
        ServerSettings::from_section(ServerSection::default(), &|_| None)
            .expect("the defaults are valid")
    }
}

fn bad(key: &str, why: impl std::fmt::Display) -> String {
    format!("[server] {key}: {why}")
}

impl ServerSettings {
    /// Parse a `[server]` TOML value (None: all defaults); `env` reads
    /// environment variables (a closure, so tests pass their own).
    pub fn from_toml(
        value: Option<toml::Value>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ServerSettings, String> {
        let section = match value {
            None => ServerSection::default(),
            Some(v) => ServerSection::deserialize(v).map_err(|e| format!("[server]: {e}"))?,
        };
        ServerSettings::from_section(section, env)
    }

    /// Validate and default a parsed section.
    pub fn from_section(
        s: ServerSection,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ServerSettings, String> {
        let listen = s.listen.unwrap_or_else(|| "127.0.0.1:5555".into());
        if listen.parse::<std::net::SocketAddr>().is_err() {
            return Err(bad(
                "listen",
                format!("`{listen}` is not an address like 127.0.0.1:5555"),
            ));
        }
        let upstream = match s.upstream {
            None => None,
            Some(u) => {
                let t = u.trim_end_matches('/').to_string();
                if !t.starts_with("http://") || t.len() <= "http://".len() {
                    return Err(bad(
                        "upstream",
                        format!("`{u}` must be an http:// URL (TLS: put a proxy in front)"),
                    ));
                }
                if t.parse::<axum::http::Uri>().is_err() {
                    return Err(bad("upstream", format!("`{u}` is not a valid URL")));
                }
                Some(t)
            }
        };
        let header = |key: &str, v: Option<String>, d: &str| -> Result<String, String> {
            let v = v.unwrap_or_else(|| d.to_string());
            axum::http::HeaderName::from_bytes(v.as_bytes())
                .map_err(|_| bad(key, format!("`{v}` is not a header name")))?;
            Ok(v.to_ascii_lowercase())
        };
        let a = s.auth;
        let mode = a.mode.clone().unwrap_or_else(|| "local".into());
        let auth = match mode.as_str() {
            "local" => AuthMode::Local,
            "jwt" => {
                let names = a.algorithms.clone().unwrap_or_else(|| vec!["HS256".into()]);
                let mut algorithms = Vec::new();
                for n in &names {
                    algorithms.push(match n.as_str() {
                        "HS256" => jsonwebtoken::Algorithm::HS256,
                        "RS256" => jsonwebtoken::Algorithm::RS256,
                        "ES256" => jsonwebtoken::Algorithm::ES256,
                        other => {
                            return Err(bad(
                                "auth.algorithms",
                                format!("`{other}` is not one of HS256, RS256, ES256"),
                            ));
                        }
                    });
                }
                if algorithms.is_empty() {
                    return Err(bad("auth.algorithms", "name at least one algorithm"));
                }
                let hmac = algorithms.contains(&jsonwebtoken::Algorithm::HS256);
                let public = algorithms
                    .iter()
                    .any(|x| *x != jsonwebtoken::Algorithm::HS256);
                if hmac && public {
                    // One key kind per server: mixing lets a public key be used as an HMAC secret.
                    return Err(bad(
                        "auth.algorithms",
                        "HS256 cannot be mixed with RS256/ES256 (algorithm switching)",
                    ));
                }
                let secret = env("PORTOLAN_JWT_SECRET").or(a.secret.clone());
                let public_key_pem = match env("PORTOLAN_JWT_PUBLIC_KEY") {
                    Some(p) => Some(p.into_bytes()),
                    None => match &a.public_key_file {
                        Some(f) => Some(std::fs::read(f).map_err(|e| {
                            bad(
                                "auth.public_key_file",
                                format!("cannot read {}: {e}", f.display()),
                            )
                        })?),
                        None => None,
                    },
                };
                let jwks = match &a.jwks_file {
                    Some(f) => Some(std::fs::read(f).map_err(|e| {
                        bad(
                            "auth.jwks_file",
                            format!("cannot read {}: {e}", f.display()),
                        )
                    })?),
                    None => None,
                };
                if jwks.is_some() && hmac {
                    return Err(bad(
                        "auth.jwks_file",
                        "a JWK Set holds public keys: use it with RS256/ES256, not HS256",
                    ));
                }
                if jwks.is_some() && public_key_pem.is_some() {
                    return Err(bad(
                        "auth.jwks_file",
                        "give either a JWK Set or a PEM public key (public_key_file / PORTOLAN_JWT_PUBLIC_KEY), not both",
                    ));
                }
                if hmac && secret.as_deref().unwrap_or("").is_empty() {
                    return Err(bad(
                        "auth.secret",
                        "HS256 needs a secret (set PORTOLAN_JWT_SECRET)",
                    ));
                }
                if public && public_key_pem.is_none() && jwks.is_none() {
                    return Err(bad(
                        "auth.public_key_file",
                        "RS256/ES256 need a PEM public key (or PORTOLAN_JWT_PUBLIC_KEY) or a jwks_file",
                    ));
                }
                AuthMode::Jwt(JwtSettings {
                    algorithms,
                    secret: secret.map(String::into_bytes),
                    public_key_pem,
                    jwks,
                    audience: a.audience.clone(),
                    issuer: a.issuer.clone(),
                    leeway: a.leeway_seconds.unwrap_or(30),
                })
            }
            other => {
                return Err(bad(
                    "auth.mode",
                    format!("`{other}` is not `local` or `jwt`"),
                ));
            }
        };
        if a.leeway_seconds.is_some_and(|l| l > 300) {
            return Err(bad("auth.leeway_seconds", "at most 300 seconds"));
        }
        let positive = |key: &str, v: Option<u32>, d: u32| -> Result<u32, String> {
            let v = v.unwrap_or(d);
            if v == 0 {
                return Err(bad(key, "must be at least 1"));
            }
            Ok(v)
        };
        let l = s.limits;
        let r = s.retention;
        if r.max_results == Some(0) {
            return Err(bad("retention.max_results", "must be at least 1"));
        }
        let mcp = mcp_settings(s.mcp, &auth)?;
        let store = env("PORTOLAN_STORE").or(s.store);
        if let Some(url) = &store {
            let key = if env("PORTOLAN_STORE").is_some() {
                "store (from PORTOLAN_STORE)"
            } else {
                "store"
            };
            super::postgres::parse_url(url).map_err(|why| bad(key, why))?;
        }
        let claim_lease_ms = s.claim_lease_ms.unwrap_or(30_000);
        if claim_lease_ms < 100 {
            return Err(bad("claim_lease_ms", "must be at least 100"));
        }
        Ok(ServerSettings {
            recipes: Vec::new(),
            listen,
            data_dir: s.data_dir,
            store,
            claim_lease: Duration::from_millis(claim_lease_ms),
            upstream,
            upstream_timeout: Duration::from_millis(s.upstream_timeout_ms.unwrap_or(10_000)),
            principal_header: header(
                "principal_header",
                s.principal_header,
                "x-portolan-principal",
            )?,
            tenant_header: header("tenant_header", s.tenant_header, "x-portolan-tenant")?,
            pending_wait: Duration::from_millis(s.pending_wait_ms.unwrap_or(5_000)),
            auth,
            principal_claim: a.principal_claim.unwrap_or_else(|| "sub".into()),
            tenant_claim: a.tenant_claim.unwrap_or_else(|| "tenant".into()),
            scope_claim: a.scope_claim.unwrap_or_else(|| "scope".into()),
            grants_claim: a.grants_claim.unwrap_or_else(|| "capabilities".into()),
            admin_grant: a.admin_grant.unwrap_or_else(|| "admin".into()),
            tenant_field: a.tenant_field.unwrap_or_else(|| "tenant".into()),
            local_grants: a.local_grants.unwrap_or_else(|| vec!["readPortos".into()]),
            read_limit: (
                positive("limits.read_per_minute", l.read_per_minute, 600)?,
                positive("limits.read_burst", l.read_burst, 100)?,
            ),
            write_limit: (
                positive("limits.write_per_minute", l.write_per_minute, 60)?,
                positive("limits.write_burst", l.write_burst, 10)?,
            ),
            max_age: Duration::from_secs(3600 * r.max_age_hours.unwrap_or(168)),
            max_results: r.max_results.unwrap_or(100_000),
            tombstone_age: Duration::from_secs(3600 * r.tombstone_hours.unwrap_or(720)),
            mcp,
        })
    }

    /// One line for the start-up banner, without any secret.
    pub fn describe(&self) -> String {
        let auth = match &self.auth {
            AuthMode::Local => "local (anonymous reads, writes refused)".to_string(),
            AuthMode::Jwt(j) => format!(
                "jwt ({})",
                j.algorithms
                    .iter()
                    .map(|a| format!("{a:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!(
            "auth {auth}; upstream {}",
            self.upstream
                .as_deref()
                .unwrap_or("(none: HTTP tools unavailable)")
        )
    }
}

/// An origin as browsers send it: `scheme://host[:port]`, lower-cased; None
/// when it has a path, user info or another scheme.
pub fn normalize_origin(o: &str) -> Option<String> {
    let o = o.trim().trim_end_matches('/').to_ascii_lowercase();
    let rest = o
        .strip_prefix("http://")
        .or_else(|| o.strip_prefix("https://"))?;
    if rest.is_empty() || rest.contains(['/', '@', '?', '#', ' ']) {
        return None;
    }
    Some(o)
}

fn mcp_settings(m: McpSection, auth: &AuthMode) -> Result<McpSettings, String> {
    let allow_remote = m.allow_remote.unwrap_or(false);
    if allow_remote && *auth == AuthMode::Local {
        return Err(bad(
            "mcp.allow_remote",
            "agents off loopback must send a bearer token: set [server.auth] mode = \"jwt\"",
        ));
    }
    let mut allowed_origins = Vec::new();
    for o in m.allowed_origins.unwrap_or_default() {
        allowed_origins.push(normalize_origin(&o).ok_or_else(|| {
            bad(
                "mcp.allowed_origins",
                format!("`{o}` is not an origin like https://agent.example or http://host:8080"),
            )
        })?);
    }
    let mut trusted_proxies = Vec::new();
    for p in m.trusted_proxies.unwrap_or_default() {
        trusted_proxies.push(
            p.trim()
                .parse()
                .map_err(|_| bad("mcp.trusted_proxies", format!("`{p}` is not an IP address")))?,
        );
    }
    let grants = m.grants.unwrap_or_else(|| vec!["readPortos".into()]);
    if let Some(g) = grants.iter().find(|g| g.trim().is_empty()) {
        return Err(bad("mcp.grants", format!("`{g}` is not a grant name")));
    }
    let page_size = m.page_size.unwrap_or(50);
    if !(1..=1000).contains(&page_size) {
        return Err(bad("mcp.page_size", "must be from 1 to 1000"));
    }
    Ok(McpSettings {
        enabled: m.enabled.unwrap_or(true),
        allow_remote,
        allowed_origins,
        trusted_proxies,
        grants,
        page_size: page_size as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ServerSettings, String> {
        let v: toml::Table = toml::from_str(text).unwrap();
        ServerSettings::from_toml(v.get("server").cloned(), &|_| None)
    }

    #[test]
    fn defaults() {
        let s = parse("").unwrap();
        assert_eq!(s.listen, "127.0.0.1:5555");
        assert_eq!(s.auth, AuthMode::Local);
    }

    #[test]
    fn invalid_values_name_the_key() {
        let e = parse("[server]\nlisten = \"nowhere\"").unwrap_err();
        assert!(e.contains("listen"), "{e}");
        let e = parse("[server]\nlistn = \"x\"").unwrap_err();
        assert!(e.contains("listn"), "{e}");
        let e = parse("[server.auth]\nmode = \"jwt\"").unwrap_err();
        assert!(e.contains("auth.secret"), "{e}");
        let e = parse("[server.auth]\nmode = \"jwt\"\nalgorithms = [\"none\"]").unwrap_err();
        assert!(e.contains("auth.algorithms"), "{e}");
        let e = parse("[server]\nupstream = \"ftp://x\"").unwrap_err();
        assert!(e.contains("upstream"), "{e}");
        let e = parse("[server.limits]\nread_burst = 0").unwrap_err();
        assert!(e.contains("limits.read_burst"), "{e}");
        let e = parse("[server.mcp]\nallow_remote = true").unwrap_err();
        assert!(e.contains("mcp.allow_remote"), "{e}");
        let e = parse("[server.mcp]\nallowed_origins = [\"https://a.example/path\"]").unwrap_err();
        assert!(e.contains("mcp.allowed_origins"), "{e}");
        let e = parse("[server.mcp]\ntrusted_proxies = [\"proxy.local\"]").unwrap_err();
        assert!(e.contains("mcp.trusted_proxies"), "{e}");
        let e = parse("[server.mcp]\npage_size = 0").unwrap_err();
        assert!(e.contains("mcp.page_size"), "{e}");
        let e = parse("[server.mcp]\nenable = true").unwrap_err();
        assert!(e.contains("enable"), "{e}");
    }

    #[test]
    fn secret_from_environment_is_never_described() {
        let v: toml::Table = toml::from_str("[server.auth]\nmode = \"jwt\"").unwrap();
        let s = ServerSettings::from_toml(v.get("server").cloned(), &|k| {
            (k == "PORTOLAN_JWT_SECRET").then(|| "s3cret-value".to_string())
        })
        .unwrap();
        assert!(!s.describe().contains("s3cret"));
        match s.auth {
            AuthMode::Jwt(j) => assert_eq!(j.secret.unwrap(), b"s3cret-value"),
            _ => panic!(),
        }
    }
}
