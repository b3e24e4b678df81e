//! `portolan.toml`: the optional project configuration.
//!
//! Captures entries, OpenAPI title/version/server, exposed public APIs,
//! access middleware names, tools, side-effect overrides and Socket.IO
//! settings, parsed strictly: an unknown key is an error naming the file and
//! the key, so a typo never silently does nothing.
//!
//! Serve-time settings (`[server]`: upstream, auth, limits; `[[recipes]]`)
//! are kept as raw TOML values here and parsed strictly by `portolan serve`.
//!
//! Every problem is a [`ConfigError`] naming the key and the reason.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why a configuration cannot be used; each message says what to change.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    /// The file named by `--config` (or found at ROOT) cannot be read.
    #[error("cannot read the config file {}", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A problem inside a file, with the file named.
    #[error("in {}", path.display())]
    InFile {
        path: PathBuf,
        #[source]
        source: Box<ConfigError>,
    },
    /// Not TOML, or a key or value type this version does not know; the
    /// parser's message names the key, its line and the keys allowed there.
    #[error("{message}")]
    Toml { message: String },
    /// A value that must be `METHOD /path` (`[[tools]] bind`, a
    /// `[side_effects]` key); `key` says which.
    #[error("{key}: `{value}` must be `METHOD /path`, e.g. `GET /api/items/:id`")]
    NotMethodPath { key: String, value: String },
    /// `[openapi] auth` names no credential.
    #[error("[openapi] auth: {reason}")]
    Auth { reason: String },
    /// An `[[expose]]` prefix that is not a path.
    #[error("[[expose]] `{id}`: prefix `{prefix}` must start with `/`")]
    ExposePrefix { id: String, prefix: String },
}

type Result<T> = std::result::Result<T, ConfigError>;

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Config {
    /// Entry files relative to the root.
    #[serde(default)]
    pub(crate) entries: Vec<String>,
    #[serde(default)]
    pub(crate) openapi: OpenApiSection,
    #[serde(default)]
    pub(crate) expose: Vec<ExposeEntry>,
    #[serde(default)]
    pub(crate) access: AccessSection,
    #[serde(default)]
    pub(crate) tools: Vec<ToolEntry>,
    /// `"METHOD /path" = "read"`.
    #[serde(default)]
    pub(crate) side_effects: BTreeMap<String, String>,
    #[serde(default)]
    pub(crate) socket: SocketSection,
    /// `[server]`: serve-time settings, parsed by `portolan serve`
    /// (`serve::settings`); other verbs ignore it.
    #[serde(default)]
    pub(crate) server: Option<toml::Value>,
    /// `[[recipes]]`: saved read recipes, parsed by `portolan serve`
    /// (`serve::recipes`); other verbs ignore them.
    #[serde(default)]
    pub(crate) recipes: Option<toml::Value>,
}

/// `[openapi]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpenApiSection {
    pub(crate) title: Option<String>,
    pub(crate) version: Option<String>,
    /// `servers[0].url`.
    pub(crate) server: Option<String>,
    /// SPDX license id (default: package.json `license`).
    pub(crate) license: Option<String>,
    /// The credential guarded operations take: `bearer`, `basic`,
    /// `header:NAME`, `cookie:NAME` or `query:NAME` (default: a bearer token, assumed).
    pub(crate) auth: Option<String>,
}

/// One `[[expose]]` public API.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExposeEntry {
    pub(crate) id: String,
    pub(crate) prefix: String,
    pub(crate) label: Option<String>,
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) require_auth: bool,
}

/// `[access]`: names added to the built-in guard lists.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AccessSection {
    #[serde(default)]
    pub(crate) auth: Vec<String>,
    #[serde(default)]
    pub(crate) loopback: Vec<String>,
}

/// One `[[tools]]` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolEntry {
    pub(crate) name: String,
    /// `"METHOD /path"`.
    pub(crate) bind: String,
    pub(crate) side_effect: Option<String>,
    #[serde(default)]
    pub(crate) scopes: Vec<String>,
    pub(crate) description: Option<String>,
    pub(crate) version: Option<u32>,
}

/// `[socket]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SocketSection {
    /// AsyncAPI server host (`localhost:5555` when absent).
    pub(crate) host: Option<String>,
    /// Folders whose Socket.IO sites are server code, whatever the values say.
    #[serde(default)]
    pub(crate) server_dirs: Vec<String>,
    /// Folders whose Socket.IO sites are client code (a worker's own
    /// socket.io-client connection kept apart, for instance).
    #[serde(default)]
    pub(crate) client_dirs: Vec<String>,
}

/// Split `"POST /api/x"` into method and path; `what` is the key it came from.
fn method_path(s: &str, what: &str) -> Result<(String, String)> {
    let mut parts = s.split_whitespace();
    match (parts.next(), parts.next(), parts.next()) {
        (Some(m), Some(p), None)
            if p.starts_with('/') && m.chars().all(|c| c.is_ascii_alphabetic()) =>
        {
            Ok((m.to_ascii_uppercase(), p.to_string()))
        }
        _ => Err(ConfigError::NotMethodPath {
            key: what.to_string(),
            value: s.to_string(),
        }),
    }
}

impl Config {
    /// Read and parse a file; errors name the file (and the key or line).
    pub(crate) fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
        Config::parse(&text).map_err(|e| ConfigError::InFile {
            path: path.to_path_buf(),
            source: Box::new(e),
        })
    }

    /// Parse a file's text strictly.
    pub(crate) fn parse(text: &str) -> Result<Config> {
        let config: Config = toml::from_str(text).map_err(|e| ConfigError::Toml {
            message: e.to_string().trim_end().to_string(),
        })?;
        for t in &config.tools {
            method_path(&t.bind, &format!("[[tools]] `{}` bind", t.name))?;
        }
        for k in config.side_effects.keys() {
            method_path(k, "[side_effects] key")?;
        }
        Ok(config)
    }

    /// Fill the emitter options (title and version fall back to the given defaults).
    pub(crate) fn spec_options(
        &self,
        default_title: String,
        default_version: String,
        openapi31: bool,
    ) -> Result<specgen::SpecOptions> {
        let mut opts = specgen::SpecOptions {
            title: self.openapi.title.clone().unwrap_or(default_title),
            version: self.openapi.version.clone().unwrap_or(default_version),
            server_url: self.openapi.server.clone(),
            license: self.openapi.license.clone(),
            openapi31,
            ..specgen::SpecOptions::default()
        };
        if let Some(a) = &self.openapi.auth {
            opts.auth =
                specgen::AuthScheme::parse(a).map_err(|reason| ConfigError::Auth { reason })?;
        }
        if let Some(h) = &self.socket.host {
            opts.socket_host = h.clone();
        }
        opts.access.auth.extend(self.access.auth.iter().cloned());
        opts.access
            .loopback
            .extend(self.access.loopback.iter().cloned());
        for e in &self.expose {
            if !e.prefix.starts_with('/') {
                return Err(ConfigError::ExposePrefix {
                    id: e.id.clone(),
                    prefix: e.prefix.clone(),
                });
            }
            opts.exposed.push(specgen::ExposedApi {
                id: e.id.clone(),
                label: e.label.clone(),
                description: e.description.clone(),
                prefix: e.prefix.clone(),
                require_auth: e.require_auth,
            });
        }
        for t in &self.tools {
            let (method, path) = method_path(&t.bind, &format!("[[tools]] `{}` bind", t.name))?;
            opts.tools.push(specgen::ToolBinding {
                name: t.name.clone(),
                method,
                path,
                side_effect: t.side_effect.clone(),
                scopes: t.scopes.clone(),
                description: t.description.clone(),
                version: t.version,
            });
        }
        for (k, v) in &self.side_effects {
            let (method, path) = method_path(k, "[side_effects] key")?;
            opts.side_effects.push(specgen::SideEffectOverride {
                method,
                path,
                side_effect: v.clone(),
            });
        }
        Ok(opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_config_parses() {
        let c = Config::parse(
            r#"
entries = ["src/server.js"]
[openapi]
title = "Harbor"
version = "2.1.0"
server = "https://harbor.example"
[[expose]]
id = "berths"
prefix = "/api/berths"
require_auth = true
[access]
auth = ["mustBeStaff"]
[[tools]]
name = "berths.create"
bind = "post /api/berths"
scopes = ["ui"]
[side_effects]
"POST /api/berths/recompute" = "process-control"
[socket]
host = "harbor.example:443"
server_dirs = ["src"]
client_dirs = ["client"]
"#,
        )
        .unwrap();
        assert_eq!(c.entries, vec!["src/server.js"]);
        let o = c.spec_options("x".into(), "0.0.0".into(), false).unwrap();
        assert_eq!(o.title, "Harbor");
        assert_eq!(o.socket_host, "harbor.example:443");
        assert_eq!(o.tools[0].method, "POST");
        assert!(o.access.auth.iter().any(|a| a == "mustBeStaff"));
        assert_eq!(o.side_effects[0].side_effect, "process-control");
        assert!(o.exposed[0].require_auth);
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_key() {
        let e = Config::parse("[openapi]\ntitel = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("titel"), "{e}");
        let e = Config::parse("colour = 1\n").unwrap_err().to_string();
        assert!(e.contains("colour"), "{e}");
    }

    #[test]
    fn the_credential_is_configurable_and_checked() {
        let c = Config::parse("[openapi]\nauth = \"cookie:portos_token\"\n").unwrap();
        let o = c.spec_options("x".into(), "0.0.0".into(), false).unwrap();
        assert_eq!(
            o.auth,
            specgen::AuthScheme::ApiKey("cookie".into(), "portos_token".into())
        );
        let c = Config::parse("[openapi]\nauth = \"session\"\n").unwrap();
        let e = c
            .spec_options("x".into(), "0.0.0".into(), false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("[openapi] auth") && e.contains("`session`"),
            "{e}"
        );
    }

    #[test]
    fn bad_bindings_are_errors() {
        let e = Config::parse("[[tools]]\nname = \"a\"\nbind = \"/api/x\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("must be `METHOD /path`"), "{e}");
        match Config::parse("[side_effects]\n\"GET\" = \"read\"\n") {
            Err(ConfigError::NotMethodPath { key, value }) => {
                assert_eq!(
                    (key.as_str(), value.as_str()),
                    ("[side_effects] key", "GET")
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_in_a_file_name_the_file_then_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("portolan.toml");
        std::fs::write(
            &path,
            "[[expose]]\nid = \"x\"\nprefix = \"/x\"\n[openapi]\ntitel = 1\n",
        )
        .unwrap();
        let e = anyhow::Error::from(Config::load(&path).unwrap_err());
        let text = format!("{e:#}");
        assert!(
            text.starts_with(&format!("in {}: TOML parse error", path.display()))
                && text.contains("titel"),
            "{text}"
        );
        let c = Config::parse("[[expose]]\nid = \"x\"\nprefix = \"api\"\n").unwrap();
        let e = c.spec_options("x".into(), "0".into(), false).unwrap_err();
        assert!(
            matches!(&e, ConfigError::ExposePrefix { id, .. } if id == "x"),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "[[expose]] `x`: prefix `api` must start with `/`"
        );
    }
}
