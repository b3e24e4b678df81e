//! `internal/openapi.json` (every operation) and `openapi.json` (the exposed
//! APIs), OpenAPI 3.0.3 by default or 3.1.0 on request (reference §3.2–§3.4).
//!
//! Captures per operation: the PortOS operationId, summary and description
//! (JSDoc first), one tag per domain, path parameters, query parameters
//! (from the query schema, else the names the handler reads), header
//! parameters the handler reads, the request body schema, responses with
//! their schemas, security from the access class, and the `x-portos-*`
//! inventory extensions. OpenAPI has no optional or multi-segment path
//! parameters: such parameters stay `required: true` (the format demands
//! it) and say so in their description and in `x-portos-optional` /
//! `x-portos-wildcard`. Two Express paths that map to the same template and
//! method are never overwritten: the first (byte order) is kept and every
//! collision is listed in `x-portos-collisions` and returned as a warning.
//!
//! Unlike PortOS, the public document keeps operationIds (the same ones as
//! the internal document) and its paths are OpenAPI templates.
//!
//! Deliberately not captured: RegExp routes (no OpenAPI path can express
//! them; listed in `x-portos-omitted`), response headers, content types other
//! than JSON, and security schemes beyond "some bearer token": the analyzer
//! sees that a guard runs, not which scheme it checks.

use crate::downgrade;
use crate::ids;
use crate::model::{Model, Row, unknown_prefix};
use crate::{SpecOptions, classify};
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// Which document to build.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Audience {
    Internal,
    Public,
}

/// A built OpenAPI document and what could not be placed in it.
pub(crate) struct Built {
    pub(crate) doc: Value,
    pub(crate) warnings: Vec<String>,
}

fn schema_for(opts: &SpecOptions, s: &Value) -> Value {
    if opts.openapi31 {
        downgrade::inline_refs(s)
    } else {
        downgrade::to_openapi30(s)
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        0 => "Response whose status is set at run time",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        410 => "Gone",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Response",
    }
}

/// Headers OpenAPI says to describe elsewhere (they are ignored as parameters).
const RESERVED_HEADERS: &[&str] = &["accept", "content-type", "authorization"];

fn parameters(row: &Row<'_>, opts: &SpecOptions) -> Vec<Value> {
    let mut out = Vec::new();
    let c = &row.contract;
    let named = brace_names(&row.op.path.openapi);
    let param_schemas = c.params.as_ref().map(|p| &p.schema);
    for p in &row.op.path.params {
        if !named.contains(p.name.as_str()) {
            continue; // A bare `*`: not a template parameter (see x-portos-path-notes).
        }
        let mut schema = param_schemas
            .and_then(|s| s.get("properties"))
            .and_then(|props| props.get(&p.name))
            .map(|s| schema_for(opts, s))
            .unwrap_or_else(|| json!({"type": "string"}));
        // (A constraint that is no valid ECMAScript regex, which Express
        // would refuse at start-up, is left out: the document stays valid.)
        if let (Some(pat), Value::Object(m)) = (&p.pattern, &mut schema) {
            let pattern = format!("^(?:{pat})$");
            if jsonschema_regex::is_valid_ecma_regex(&pattern) {
                m.entry("pattern").or_insert(json!(pattern));
            }
        }
        let mut notes = Vec::new();
        if p.name == analyzer::UNKNOWN_PREFIX_PARAM && unknown_prefix(row.op) {
            notes.push(format!(
                "Stands for the mount prefix of a router the analysis never saw mounted (`{}` in Express form): unknown, possibly several segments.",
                analyzer::UNKNOWN_PREFIX
            ));
        }
        if p.optional {
            notes.push(format!(
                "Optional in Express (`{}`): the path without this segment is served too. OpenAPI path parameters are always required, so that form is not described here.",
                if p.wildcard { format!("*{}", p.name) } else { format!(":{}?", p.name) }
            ));
        }
        if p.wildcard {
            notes.push("Matches one or more path segments: the value may contain `/`.".to_string());
        }
        let mut m = Map::new();
        m.insert("name".into(), json!(p.name));
        m.insert("in".into(), json!("path"));
        m.insert("required".into(), json!(true));
        if !notes.is_empty() {
            m.insert("description".into(), json!(notes.join(" ")));
        }
        m.insert("schema".into(), schema);
        if p.optional {
            m.insert("x-portos-optional".into(), json!(true));
        }
        if p.wildcard {
            m.insert("x-portos-wildcard".into(), json!(true));
        }
        out.push(Value::Object(m));
    }
    let mut seen_query: Vec<String> = Vec::new();
    if let Some(q) = &c.query
        && let Some(props) = q.schema.get("properties").and_then(Value::as_object)
    {
        let required: Vec<&str> = q
            .schema
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, s) in props {
            seen_query.push(name.clone());
            let mut m = Map::new();
            m.insert("name".into(), json!(name));
            m.insert("in".into(), json!("query"));
            m.insert("required".into(), json!(required.contains(&name.as_str())));
            m.insert("schema".into(), schema_for(opts, s));
            out.push(Value::Object(m));
        }
    }
    for name in &c.query_read {
        if seen_query.contains(name) {
            continue;
        }
        out.push(
            json!({"name": name, "in": "query", "required": false, "schema": {"type": "string"}}),
        );
    }
    for name in &c.headers_read {
        if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
            continue;
        }
        out.push(
            json!({"name": name, "in": "header", "required": false, "schema": {"type": "string"}}),
        );
    }
    out
}

fn responses(row: &Row<'_>, opts: &SpecOptions) -> Value {
    let c = &row.contract;
    if c.responses.is_empty() {
        return json!({"default": {"description": "Response shape is not yet modeled."}});
    }
    let mut out = Map::new();
    for r in &c.responses {
        // Status 0: set at run time (`res.status(code)`), the `default` response.
        let key = if r.status == 0 {
            "default".to_string()
        } else {
            r.status.to_string()
        };
        let entry = out
            .entry(key)
            .or_insert_with(|| json!({"description": reason(r.status)}));
        let Some(s) = &r.schema else { continue };
        if r.status == 204 || r.status == 304 {
            continue; // No body by definition.
        }
        let schema = schema_for(opts, &s.schema);
        let Value::Object(e) = entry else { continue };
        let content = e
            .entry("content")
            .or_insert_with(|| json!({"application/json": {"schema": Value::Null}}));
        if let Some(slot) = content.pointer_mut("/application~1json/schema") {
            match slot {
                Value::Null => *slot = schema,
                Value::Object(existing)
                    if existing.get("anyOf").is_some() && existing.len() == 1 =>
                {
                    if let Some(Value::Array(list)) = existing.get_mut("anyOf")
                        && !list.contains(&schema)
                    {
                        list.push(schema);
                    }
                }
                other => {
                    if *other != schema {
                        *other = json!({"anyOf": [other.clone(), schema]});
                    }
                }
            }
        }
    }
    Value::Object(out)
}

/// The domain in the internal document, the exposed API in the public one.
fn tag(row: &Row<'_>, opts: &SpecOptions, audience: Audience) -> String {
    match (audience, row.exposed) {
        (Audience::Public, Some(i)) => opts.exposed[i].id.clone(),
        _ => row.domain.clone(),
    }
}

fn security(access: &str, opts: &SpecOptions) -> Value {
    if access == "public" {
        json!([])
    } else {
        guarded(opts)
    }
}

/// `security` of an operation that needs the configured credential.
fn guarded(opts: &SpecOptions) -> Value {
    let mut req = Map::new();
    req.insert(opts.auth.id().into(), json!([]));
    json!([req])
}

fn operation(row: &Row<'_>, opts: &SpecOptions, audience: Audience) -> Value {
    let op = row.op;
    let mut o = Map::new();
    o.insert(
        "operationId".into(),
        json!(ids::operation_id(&row.upper(), row.express())),
    );
    o.insert("summary".into(), json!(row.summary));
    let generated = format!(
        "Generated from the mounted Express route inventory. Source: {}.",
        row.sources.join(", ")
    );
    let description = match &row.description {
        Some(d) if audience == Audience::Public => d.clone(),
        Some(d) => format!("{d}\n\n{generated}"),
        None if audience == Audience::Public => row.summary.clone(),
        None => generated,
    };
    o.insert("description".into(), json!(description));
    o.insert("tags".into(), json!([tag(row, opts, audience)]));
    let params = parameters(row, opts);
    if !params.is_empty() {
        o.insert("parameters".into(), Value::Array(params));
    }
    if let Some(b) = &row.contract.body {
        o.insert(
            "requestBody".into(),
            json!({"required": true, "content": {"application/json": {"schema": schema_for(opts, &b.schema)}}}),
        );
    } else if !row.contract.body_read.is_empty()
        && matches!(row.method.as_str(), "post" | "put" | "patch")
    {
        // No schema, but the properties the handler reads (types unknown).
        let props: Map<String, Value> = row
            .contract
            .body_read
            .iter()
            .map(|p| (p.clone(), json!({})))
            .collect();
        o.insert(
            "requestBody".into(),
            json!({
                "description": "The code states no schema; these are the properties the handler reads.",
                "content": {"application/json": {"schema": {"type": "object", "properties": props}}}
            }),
        );
    }
    o.insert("responses".into(), responses(row, opts));
    let sec = match (audience, row.exposed) {
        // Public unless the API requires auth or the chain runs a guard anyway.
        (Audience::Public, Some(i)) if !opts.exposed[i].require_auth && row.access == "public" => {
            json!([])
        }
        (Audience::Public, Some(_)) => guarded(opts),
        _ => security(row.access, opts),
    };
    o.insert("security".into(), sec);
    if let Some(t) = &row.tool {
        let mut tool = Map::new();
        tool.insert("name".into(), json!(t.name));
        tool.insert("version".into(), json!(t.version));
        tool.insert(
            "sideEffect".into(),
            json!(t.side_effect.as_deref().unwrap_or(&row.side_effect)),
        );
        if !t.scopes.is_empty() {
            tool.insert("scopes".into(), json!(t.scopes));
        }
        o.insert("x-portos-tool".into(), Value::Object(tool));
    }
    if let Some(r) = &op.reached {
        o.insert("x-portos-reached".into(), json!(r.label()));
    }
    if audience == Audience::Internal {
        o.insert(
            "x-portos-contract-status".into(),
            json!(if row.contract.modeled() {
                "modeled"
            } else {
                "generated"
            }),
        );
        o.insert("x-portos-express-path".into(), json!(op.path.express));
        o.insert("x-portos-mount".into(), json!(op.mount_path));
        o.insert("x-portos-source".into(), json!(row.sources));
        o.insert("x-portos-access".into(), json!(row.access));
        o.insert("x-portos-side-effect".into(), json!(row.side_effect));
        if op.method == "all" {
            o.insert("x-portos-declared-method".into(), json!("ALL"));
        }
        if let Some(c) = op.conditional() {
            o.insert("x-portos-conditional".into(), json!(c));
        }
        let named = brace_names(&op.path.openapi);
        let unnamed: Vec<&str> = op
            .path
            .params
            .iter()
            .filter(|p| !named.contains(p.name.as_str()))
            .map(|p| p.name.as_str())
            .collect();
        if !unnamed.is_empty() {
            o.insert(
                "x-portos-path-notes".into(),
                json!(format!(
                    "The path keeps Express's unnamed `*` wildcard literally: it matches any rest of the path, which OpenAPI cannot express ({} unnamed wildcard(s)).",
                    unnamed.len()
                )),
            );
        }
    }
    Value::Object(o)
}

/// Build one OpenAPI document from the model.
pub(crate) fn emit(model: &Model<'_>, opts: &SpecOptions, audience: Audience) -> Built {
    let mut warnings = Vec::new();
    let mut paths: Map<String, Value> = Map::new();
    // (template, method) → the Express path kept there.
    let mut kept: HashMap<(String, String), String> = HashMap::new();
    // Template with parameter names blanked → the first template seen.
    let mut shapes: HashMap<String, String> = HashMap::new();
    let mut collisions: Vec<Value> = Vec::new();
    let mut omitted: Vec<Value> = Vec::new();
    let mut tag_counts: indexmap::IndexMap<String, usize> = indexmap::IndexMap::new();
    for row in &model.rows {
        if audience == Audience::Public && (row.exposed.is_none() || unknown_prefix(row.op)) {
            continue;
        }
        let op = row.op;
        if op.path.regex {
            omitted.push(json!({"method": row.upper(), "path": op.path.express, "reason": "RegExp route: no OpenAPI path can express it"}));
            if audience == Audience::Internal {
                warnings.push(format!(
                    "{} {}: RegExp route left out of the OpenAPI document",
                    row.upper(),
                    op.path.express
                ));
            }
            continue;
        }
        // Templates that differ only in parameter names are one OpenAPI path
        // (`/q/{agentId}` and `/q/{id}`): later ones join the first, with
        // their path parameters renamed to its names.
        let shape = template_shape(&op.path.openapi);
        let template = shapes
            .entry(shape)
            .or_insert_with(|| op.path.openapi.clone())
            .clone();
        let key = (template.clone(), row.method.clone());
        if let Some(first) = kept.get(&key) {
            let d = &op.declarations[0].at;
            collisions.push(json!({
                "method": row.upper(),
                "template": op.path.openapi,
                "kept": first,
                "dropped": op.path.express,
                "droppedAt": format!("{}:{}", d.file, d.line),
            }));
            if audience == Audience::Internal {
                warnings.push(format!(
                    "{} {} ({}:{}) maps to the same OpenAPI template `{}` as `{}`; the first is kept, the collision is listed in x-portos-collisions",
                    row.upper(),
                    op.path.express,
                    d.file,
                    d.line,
                    op.path.openapi,
                    first
                ));
            }
            continue;
        }
        kept.insert(key, op.path.express.clone());
        *tag_counts.entry(tag(row, opts, audience)).or_default() += 1;
        let mut operation = operation(row, opts, audience);
        if template != op.path.openapi {
            rename_path_params(&mut operation, &op.path.openapi, &template);
        }
        let item = paths.entry(template).or_insert_with(|| json!({}));
        if let Value::Object(m) = item {
            m.insert(row.method.clone(), operation);
        }
    }
    // Path items keep methods in a fixed order.
    for item in paths.values_mut() {
        if let Value::Object(m) = item {
            m.sort_keys();
        }
    }
    let tags: Vec<Value> = match audience {
        Audience::Internal => tag_counts
            .iter()
            .map(|(id, n)| {
                let noun = if *n == 1 { "operation" } else { "operations" };
                json!({"name": id, "description": format!("{} API ({n} {noun})", classify::title(id))})
            })
            .collect(),
        Audience::Public => opts
            .exposed
            .iter()
            .map(|api| {
                let mut t = Map::new();
                t.insert("name".into(), json!(api.id));
                let d = api
                    .description
                    .clone()
                    .or_else(|| api.label.clone())
                    .unwrap_or_else(|| format!("Operations under {}", api.prefix));
                t.insert("description".into(), json!(d));
                Value::Object(t)
            })
            .collect(),
    };
    let (title, description) = match audience {
        Audience::Internal => (
            format!("{} (internal)", opts.title),
            "Every mounted HTTP operation, derived from the source by Portolan without running it.",
        ),
        Audience::Public => (
            opts.title.clone(),
            "Only the APIs exposed in portolan.toml ([[expose]]) appear here.",
        ),
    };
    let mut doc = Map::new();
    doc.insert(
        "openapi".into(),
        json!(if opts.openapi31 { "3.1.0" } else { "3.0.3" }),
    );
    let mut info = Map::new();
    info.insert("title".into(), json!(title));
    info.insert("version".into(), json!(opts.version));
    info.insert("description".into(), json!(description));
    if let Some(l) = &opts.license {
        // 3.1 validators want `identifier` (SPDX) or `url` beside the name.
        info.insert(
            "license".into(),
            if opts.openapi31 {
                json!({"name": l, "identifier": l})
            } else {
                json!({"name": l, "url": format!("https://spdx.org/licenses/{l}.html")})
            },
        );
    }
    doc.insert("info".into(), Value::Object(info));
    doc.insert(
        "servers".into(),
        match &opts.server_url {
            Some(u) => json!([{"url": u}]),
            None => json!([]),
        },
    );
    doc.insert("tags".into(), Value::Array(tags));
    let uses_auth = paths.values().any(|item| {
        item.as_object().is_some_and(|m| {
            m.values()
                .any(|op| op["security"].as_array().is_some_and(|s| !s.is_empty()))
        })
    });
    doc.insert("paths".into(), Value::Object(paths));
    if uses_auth {
        let mut schemes = Map::new();
        schemes.insert(opts.auth.id().into(), opts.auth.scheme());
        doc.insert("components".into(), json!({ "securitySchemes": schemes }));
    }
    if audience == Audience::Internal {
        if !collisions.is_empty() {
            doc.insert("x-portos-collisions".into(), Value::Array(collisions));
        }
        if !omitted.is_empty() {
            doc.insert("x-portos-omitted".into(), Value::Array(omitted));
        }
    }
    Built {
        doc: Value::Object(doc),
        warnings,
    }
}

/// The `{name}` placeholders of a template (OpenAPI path, event address), in order.
pub(crate) fn placeholders(t: &str) -> Vec<&str> {
    brace_spans(t).map(|(i, j)| &t[i + 1..j]).collect()
}

/// Where each `{…}` of a template starts and ends (the `{` and the first `}`
/// after it), in order.
fn brace_spans(t: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let i = at + t[at..].find('{')?;
        let j = i + t[i..].find('}')?;
        at = j + 1;
        Some((i, j))
    })
}

/// Every text written between braces with no brace inside (`{id}` gives
/// `id`): a name is one of these exactly when `{name}` is in the template.
/// One pass, so a template of 50,000 placeholders is not searched once per
/// parameter.
fn brace_names(t: &str) -> std::collections::HashSet<&str> {
    let mut out = std::collections::HashSet::new();
    for (k, _) in t.match_indices('{') {
        let after = &t[k + 1..];
        if let Some(j) = after.find(['{', '}'])
            && after.as_bytes()[j] == b'}'
        {
            out.insert(&after[..j]);
        }
    }
    out
}

/// A template with its parameter names blanked (`/q/{id}` → `/q/{}`), in
/// one pass over it (a damaged path of 50,000 placeholders took seconds
/// blanked one by one from the start).
fn template_shape(t: &str) -> String {
    let mut s = String::with_capacity(t.len());
    let mut rest = 0;
    for (i, j) in brace_spans(t) {
        s.push_str(&t[rest..i]);
        s.push_str("{}");
        rest = j + 1;
    }
    s.push_str(&t[rest..]);
    s
}

/// Rename an operation's path parameters from `actual`'s names to `canonical`'s.
fn rename_path_params(operation: &mut Value, actual: &str, canonical: &str) {
    let renames: Vec<(String, String)> = placeholders(actual)
        .into_iter()
        .zip(placeholders(canonical))
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    if renames.is_empty() {
        return;
    }
    if let Some(Value::Array(params)) = operation.get_mut("parameters") {
        for p in params.iter_mut() {
            if p.get("in").and_then(Value::as_str) != Some("path") {
                continue;
            }
            let name = p.get("name").and_then(Value::as_str).map(str::to_string);
            if let Some(name) = name
                && let Some((_, to)) = renames.iter().find(|(from, _)| *from == name)
            {
                p["name"] = json!(to);
            }
        }
    }
    if let Value::Object(m) = operation {
        m.insert(
            "x-portos-path-params-renamed".into(),
            Value::Object(renames.into_iter().map(|(a, b)| (a, json!(b))).collect()),
        );
    }
}
