//! The governed tool registry: every tool of `tools.min.json` (bound to the
//! analysed application over HTTP) plus built-in read tools that let an
//! agent explore the API itself (`catalog.search`, `catalog.describe`,
//! `events.search`), and the catalog `GET /api/cos/tools` in the four
//! formats of PortOS (contract §3.9).
//!
//! Captures name resolution (canonical name, provider name, aliases), the
//! policy PortOS publishes (scopes, required capabilities, side effect,
//! idempotent, confirmation), one compiled JSON Schema validator per tool,
//! and the tenant-isolation rule of the platform tools API: a tool whose
//! input schema declares the tenant field is refused at start-up.
//! Saved read recipes (`recipes.rs`) are registry tools too, listed after
//! the others with a `recipe` block in the portos format, a revision
//! suffix on the description in the provider formats (whose tool records
//! have no place for it) and the block under `_meta.recipe` in the mcp one.
//! Deliberately not captured: the voice intent selector
//! (`intent` is a plain word filter here, and only for `scope=voice`) and
//! the internal `adapter` field, which is never published.

use super::error::ApiError;
use super::settings::ServerSettings;
use axum::http::StatusCode;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// The scopes a catalog can be filtered by (`all` = no filter).
pub const SCOPES: &[&str] = &["agent", "mind", "ui", "voice"];

/// The built-in read tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// Search the HTTP operations.
    CatalogSearch,
    /// Describe one HTTP operation.
    CatalogDescribe,
    /// Search the Socket.IO events.
    EventsSearch,
}

/// How a tool runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Adapter {
    /// In the server, over the documents.
    Builtin(Builtin),
    /// A saved read recipe: its steps, each a registry call.
    Recipe(Arc<super::recipes::Recipe>),
    /// A request to the analysed application.
    Http {
        /// Upper-case method.
        method: String,
        /// Express path with `:params`.
        path: String,
    },
}

/// One registry entry.
#[derive(Clone)]
pub struct Tool {
    /// Canonical name.
    pub name: String,
    /// Contract version.
    pub version: u64,
    /// Name with `.` and `-` replaced by `_`.
    pub provider_name: String,
    /// Other accepted names.
    pub aliases: Vec<String>,
    /// What it does.
    pub description: String,
    /// The published input schema (closed object).
    pub input_schema: Value,
    /// The published output schema.
    pub output_schema: Value,
    /// Scopes that may call it.
    pub scopes: Vec<String>,
    /// Required capability grants.
    pub required_capabilities: Vec<String>,
    /// `read`, `write`, or another declared side effect.
    pub side_effect: String,
    /// Idempotent.
    pub idempotent: bool,
    /// Async.
    pub is_async: bool,
    /// `none` or `capability-grant`.
    pub confirmation: String,
    /// How it runs (never published).
    pub adapter: Adapter,
    /// Declared failures `(status, code)`.
    pub failures: Vec<(u16, String)>,
    /// Why it cannot be called here (None: it can).
    pub unavailable: Option<String>,
    /// The compiled input validator.
    pub validator: Arc<jsonschema::Validator>,
}

impl Tool {
    /// Read tools may be called anonymously and use the read rate bucket.
    pub fn is_read(&self) -> bool {
        self.side_effect == "read"
    }

    /// The PortOS-format catalog record.
    fn portos(&self, scope: &str, granted: Option<bool>) -> Value {
        let mut policy = Map::new();
        policy.insert("scopes".into(), json!(self.scopes));
        policy.insert(
            "requiredCapabilities".into(),
            json!(self.required_capabilities),
        );
        policy.insert("sideEffect".into(), json!(self.side_effect));
        policy.insert("idempotent".into(), json!(self.idempotent));
        policy.insert("async".into(), json!(self.is_async));
        policy.insert("confirmation".into(), json!(self.confirmation));
        let mut t = Map::new();
        t.insert("type".into(), json!("portos_tool"));
        t.insert("name".into(), json!(self.name));
        t.insert("version".into(), json!(self.version));
        t.insert("providerName".into(), json!(self.provider_name));
        t.insert("aliases".into(), json!(self.aliases));
        t.insert("description".into(), json!(self.description));
        t.insert("input_schema".into(), self.input_schema.clone());
        t.insert("output_schema".into(), self.output_schema.clone());
        t.insert("policy".into(), Value::Object(policy));
        if !self.failures.is_empty() {
            t.insert(
                "failures".into(),
                Value::Array(
                    self.failures
                        .iter()
                        .map(|(s, c)| json!({"status": s, "code": c}))
                        .collect(),
                ),
            );
        }
        let in_scope = scope == "all" || self.scopes.iter().any(|s| s == scope);
        t.insert(
            "availableInScope".into(),
            json!(in_scope && self.unavailable.is_none()),
        );
        if let Some(r) = &self.unavailable {
            t.insert("unavailableReason".into(), json!(r));
        }
        t.insert("granted".into(), json!(granted));
        Value::Object(t)
    }
}

/// All tools, with a name index.
#[derive(Clone, Default)]
pub struct Registry {
    /// Built-ins first, then the analysed application's tools in document order.
    pub tools: Vec<Tool>,
    by_name: HashMap<String, usize>,
}

/// A catalog query, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogQuery {
    /// `all` or one of [`SCOPES`].
    pub scope: String,
    /// Trimmed, at most 500 characters.
    pub intent: Option<String>,
    /// `portos`, `openai`, `anthropic` or `mcp`.
    pub format: String,
}

impl CatalogQuery {
    /// Validate the raw query string strictly: unknown or repeated keys and
    /// unknown values are 400 `VALIDATION_ERROR` naming each problem.
    pub fn parse(raw: Option<&str>) -> Result<CatalogQuery, ApiError> {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw.unwrap_or(""))
            .map_err(|e| ApiError::validation(format!("Invalid query string: {e}"), vec![]))?;
        let mut q = CatalogQuery {
            scope: "all".into(),
            intent: None,
            format: "portos".into(),
        };
        let mut seen = Vec::new();
        let mut details = Vec::new();
        for (k, v) in pairs {
            if seen.contains(&k) {
                details.push((k.clone(), "given more than once".to_string()));
                continue;
            }
            seen.push(k.clone());
            match k.as_str() {
                "scope" => {
                    if v == "all" || SCOPES.contains(&v.as_str()) {
                        q.scope = v;
                    } else {
                        details.push((
                            k,
                            format!("`{v}` is not one of all, agent, mind, ui, voice"),
                        ));
                    }
                }
                "intent" => {
                    let t = v.trim();
                    if t.chars().count() > 500 {
                        details.push((k, "at most 500 characters".into()));
                    } else if !t.is_empty() {
                        q.intent = Some(t.to_string());
                    }
                }
                "format" => {
                    if ["portos", "openai", "anthropic", "mcp"].contains(&v.as_str()) {
                        q.format = v;
                    } else {
                        details.push((
                            k,
                            format!("`{v}` is not one of portos, openai, anthropic, mcp"),
                        ));
                    }
                }
                _ => details.push((k, "unknown query parameter".into())),
            }
        }
        if details.is_empty() {
            Ok(q)
        } else {
            let msg = details
                .iter()
                .map(|(p, m)| format!("{p} {m}"))
                .collect::<Vec<_>>()
                .join("; ");
            Err(ApiError::validation(msg, details))
        }
    }
}

fn provider_name(name: &str) -> String {
    name.replace(['.', '-'], "_")
}

fn compile(name: &str, schema: &Value) -> Result<Arc<jsonschema::Validator>, String> {
    jsonschema::validator_for(schema)
        .map(Arc::new)
        .map_err(|e| format!("tool `{name}`: its input schema is not valid JSON Schema: {e}"))
}

fn builtin_tools() -> Vec<(Builtin, &'static str, &'static str, Value)> {
    vec![
        (
            Builtin::CatalogSearch,
            "catalog.search",
            "Search the analysed API's HTTP operations by words in their path, summary or domain; returns method, path, summary and access of each match.",
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Words to look for (all must match)."},
                    "method": {"type": "string", "enum": ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "ALL"]},
                    "domain": {"type": "string", "maxLength": 100},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100}
                },
                "required": ["query"],
                "additionalProperties": false
            }),
        ),
        (
            Builtin::CatalogDescribe,
            "catalog.describe",
            "Describe one HTTP operation: parameters, request and response schemas, middleware and source locations.",
            json!({
                "type": "object",
                "properties": {
                    "method": {"type": "string", "minLength": 1, "maxLength": 10},
                    "path": {"type": "string", "minLength": 1, "maxLength": 500, "description": "The Express path, e.g. /api/items/:id."}
                },
                "required": ["method", "path"],
                "additionalProperties": false
            }),
        ),
        (
            Builtin::EventsSearch,
            "events.search",
            "Search the analysed application's Socket.IO events by words in their name or summary.",
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": 200},
                    "direction": {"type": "string", "enum": ["client-to-server", "server-to-client", "bidirectional"]},
                    "namespace": {"type": "string", "maxLength": 200},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100}
                },
                "required": ["query"],
                "additionalProperties": false
            }),
        ),
    ]
}

impl Registry {
    /// Build from the `tools.min.json` value. Errors (a start-up failure)
    /// name the tool and the reason: a declared tenant field, a schema that
    /// does not compile, two tools answering to one name.
    pub fn build(tools_doc: &Value, settings: &ServerSettings) -> Result<Registry, String> {
        let mut tools = Vec::new();
        for (b, name, description, schema) in builtin_tools() {
            tools.push(Tool {
                name: name.to_string(),
                version: 1,
                provider_name: provider_name(name),
                aliases: if b == Builtin::CatalogSearch {
                    vec!["catalog_lookup".into()]
                } else {
                    vec![]
                },
                description: description.to_string(),
                validator: compile(name, &schema)?,
                input_schema: schema,
                output_schema: json!({"type": "object", "additionalProperties": true}),
                scopes: SCOPES.iter().map(|s| s.to_string()).collect(),
                required_capabilities: vec!["readPortos".into()],
                side_effect: "read".into(),
                idempotent: true,
                is_async: false,
                confirmation: "none".into(),
                adapter: Adapter::Builtin(b),
                failures: vec![],
                unavailable: None,
            });
        }
        let empty = Vec::new();
        let list = tools_doc
            .get("tools")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        for t in list {
            let s = |k: &str| t.get(k).and_then(Value::as_str).map(str::to_string);
            let Some(name) = s("name") else {
                return Err("tools.min.json: a tool has no name".into());
            };
            let input_schema = t
                .get("input_schema")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "additionalProperties": false}));
            let field = &settings.tenant_field;
            if input_schema
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| p.contains_key(field))
            {
                return Err(format!(
                    "tool `{name}` declares the argument `{field}` in its input schema; the tenant comes from the caller's token only (rename the argument, or set [server.auth] tenant_field)"
                ));
            }
            let policy = t.get("policy").cloned().unwrap_or(Value::Null);
            let side_effect = policy
                .get("sideEffect")
                .and_then(Value::as_str)
                .unwrap_or("write")
                .to_string();
            let read = side_effect == "read";
            let binding = t.get("binding").cloned().unwrap_or(Value::Null);
            let method = binding
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_ascii_uppercase();
            let path = binding
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            if method.is_empty() || !path.starts_with('/') {
                return Err(format!("tool `{name}`: no HTTP binding"));
            }
            let scopes: Vec<String> = match t.get("scopes").and_then(Value::as_array) {
                Some(a) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
                None => SCOPES.iter().map(|s| s.to_string()).collect(),
            };
            let failures = t
                .get("failures")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|f| {
                            Some((
                                f.get("status")?.as_u64()? as u16,
                                f.get("code")?.as_str()?.to_string(),
                            ))
                        })
                        .collect()
                })
                .unwrap_or_default();
            tools.push(Tool {
                provider_name: s("providerName").unwrap_or_else(|| provider_name(&name)),
                version: t.get("version").and_then(Value::as_u64).unwrap_or(1),
                aliases: vec![],
                description: s("description").unwrap_or_default(),
                validator: compile(&name, &input_schema)?,
                input_schema,
                output_schema: t
                    .get("output_schema")
                    .cloned()
                    .unwrap_or_else(|| json!({"type": "object", "additionalProperties": true})),
                scopes,
                required_capabilities: vec![if read { "readPortos" } else { "writePortos" }.into()],
                idempotent: policy
                    .get("idempotent")
                    .and_then(Value::as_bool)
                    .unwrap_or(read),
                is_async: policy
                    .get("async")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                confirmation: if read { "none" } else { "capability-grant" }.into(),
                side_effect,
                adapter: Adapter::Http { method, path },
                failures,
                unavailable: settings.upstream.is_none().then(|| {
                    "no upstream is configured ([server] upstream = \"http://host:port\")"
                        .to_string()
                }),
                name,
            });
        }
        let mut registry = Registry::indexed(tools)?;
        let recipes = super::recipes::build(&settings.recipes, &registry, &settings.tenant_field)?;
        if !recipes.is_empty() {
            let mut tools = std::mem::take(&mut registry.tools);
            tools.extend(recipes);
            registry = Registry::indexed(tools)?;
        }
        Ok(registry)
    }

    /// Index every name of every tool; two tools answering to one name is an error.
    fn indexed(tools: Vec<Tool>) -> Result<Registry, String> {
        let mut by_name = HashMap::new();
        for (i, t) in tools.iter().enumerate() {
            let mut names = vec![t.name.clone(), t.provider_name.clone()];
            names.extend(t.aliases.iter().cloned());
            names.dedup();
            for n in names {
                if let Some(j) = by_name.insert(n.clone(), i)
                    && j != i
                {
                    return Err(format!(
                        "tools `{}` and `{}` both answer to the name `{n}`",
                        tools[j].name, t.name
                    ));
                }
            }
        }
        Ok(Registry { tools, by_name })
    }

    /// Resolve a canonical name, provider name or alias.
    pub fn resolve(&self, name: &str) -> Option<&Tool> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// The catalog for one query and the caller's grants.
    pub fn catalog(&self, q: &CatalogQuery, grants: &[String]) -> Value {
        let words: Vec<String> = q
            .intent
            .as_deref()
            .filter(|_| q.scope == "voice")
            .map(|i| {
                i.split(|c: char| !c.is_alphanumeric())
                    .filter(|w| w.len() > 2)
                    .map(str::to_lowercase)
                    .collect()
            })
            .unwrap_or_default();
        let mut selected: Vec<&Tool> = self
            .tools
            .iter()
            .filter(|t| q.scope == "all" || t.scopes.contains(&q.scope))
            .collect();
        if !words.is_empty() {
            let narrowed: Vec<&Tool> = selected
                .iter()
                .copied()
                .filter(|t| {
                    let hay = format!("{} {}", t.name, t.description).to_lowercase();
                    words.iter().any(|w| hay.contains(w))
                })
                .collect();
            if !narrowed.is_empty() {
                selected = narrowed;
            }
        }
        let granted = |t: &Tool| -> Option<bool> {
            (q.scope == "agent" || q.scope == "mind").then(|| {
                t.required_capabilities
                    .iter()
                    .all(|c| grants.iter().any(|g| g == c))
            })
        };
        if q.format == "portos" {
            let records: Vec<Value> = selected
                .iter()
                .map(|t| {
                    let mut r = t.portos(&q.scope, granted(t));
                    if let Some(block) = self.recipe_block(t, &q.scope, grants) {
                        r["recipe"] = block;
                    }
                    r
                })
                .collect();
            let read = selected.iter().filter(|t| t.is_read()).count();
            let n_granted = selected.iter().filter(|t| granted(t) == Some(true)).count();
            return json!({
                "type": "portos_tool_catalog",
                "schemaVersion": 1,
                "scope": q.scope,
                "tools": records,
                "stats": {"total": selected.len(), "read": read, "write": selected.len() - read, "granted": n_granted}
            });
        }
        let tools: Vec<Value> = selected
            .iter()
            .filter(|t| granted(t) != Some(false))
            .map(|t| {
                let block = self.recipe_block(t, &q.scope, grants);
                let description = match &block {
                    Some(b) => {
                        let suffix = format!(
                            "saved read recipe, revision {}",
                            b["revision"].as_str().unwrap_or("")
                        );
                        if t.description.is_empty() {
                            suffix
                        } else {
                            format!("{} ({suffix})", t.description)
                        }
                    }
                    None => t.description.clone(),
                };
                let mut r = match q.format.as_str() {
                "openai" => json!({"type": "function", "function": {"name": t.provider_name, "description": description, "parameters": t.input_schema}}),
                "anthropic" => json!({"name": t.provider_name, "description": description, "input_schema": t.input_schema}),
                _ => json!({
                    "name": t.provider_name,
                    "description": description,
                    "inputSchema": t.input_schema,
                    "outputSchema": t.output_schema,
                    "annotations": {
                        "readOnlyHint": t.is_read(),
                        "destructiveHint": t.side_effect == "destructive",
                        "idempotentHint": t.idempotent,
                        "openWorldHint": false
                    }
                }),
                };
                if let Some(b) = block
                    && q.format == "mcp"
                {
                    r["_meta"] = json!({"recipe": b});
                }
                r
            })
            .collect();
        json!({
            "type": format!("{}_tool_catalog", q.format),
            "schemaVersion": 1,
            "scope": q.scope,
            "tools": tools
        })
    }
}

/// Validate arguments against a tool's schema: 400 `TOOL_VALIDATION_ERROR`
/// listing every violation with its JSON pointer. The tenant field is
/// refused even where a schema stays open (`additionalProperties: true`):
/// the tenant never travels in arguments.
pub fn validate_arguments(tool: &Tool, args: &Value, tenant_field: &str) -> Result<(), ApiError> {
    let mut details: Vec<(String, String)> = tool
        .validator
        .iter_errors(args)
        .map(|e| (e.instance_path().to_string(), e.to_string()))
        .collect();
    if args.get(tenant_field).is_some() {
        details.push((
            format!("/{tenant_field}"),
            "the tenant comes from the caller's token and cannot be an argument".into(),
        ));
    }
    if details.is_empty() {
        return Ok(());
    }
    let msg = details
        .iter()
        .map(|(p, m)| format!("{} {m}", if p.is_empty() { "/" } else { p }))
        .collect::<Vec<_>>()
        .join("; ");
    Err(ApiError::new(
        StatusCode::BAD_REQUEST,
        "TOOL_VALIDATION_ERROR",
        format!("Invalid arguments for {}: {msg}", tool.name),
    )
    .with_details(details))
}
