//! `tools.min.json`: the minimal tool resource (reference §3.8).
//!
//! Captures every operation bound to a tool (JSDoc `@tool name` with
//! `@sideEffect` and `@scopes`, or a `[[tools]]` entry), in catalog order:
//! name, version, provider name (`^[a-zA-Z0-9_-]{1,64}$`), description, an
//! input schema flattened from path parameters, query parameters and the
//! JSON body (plain JSON Schema 2020-12, local references inlined), an output
//! schema from the success response, policy, HTTP binding and failures.
//!
//! Deliberately not captured: privacy classes and `async` beyond `false`
//! (the code does not state them).

use crate::model::{Model, Row};
use crate::{SpecError, SpecOptions, downgrade};
use serde_json::{Map, Value, json};

const STATUS_CODES: &[(u16, &str)] = &[
    (400, "BAD_REQUEST"),
    (401, "UNAUTHORIZED"),
    (403, "FORBIDDEN"),
    (404, "NOT_FOUND"),
    (409, "CONFLICT"),
    (422, "VALIDATION_ERROR"),
    (500, "INTERNAL_ERROR"),
    (502, "BAD_GATEWAY"),
    (503, "SERVICE_UNAVAILABLE"),
];

fn status_code(status: u16) -> &'static str {
    STATUS_CODES
        .iter()
        .find(|(s, _)| *s == status)
        .map(|(_, c)| *c)
        .unwrap_or("INTERNAL_ERROR")
}

/// `berths.search` → `berths_search`; other characters outside
/// `[a-zA-Z0-9_-]` become `_` too (PortOS maps `.` and `-`), cut to 64.
pub(crate) fn provider_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    out.truncate(64);
    out
}

fn input_schema(row: &Row<'_>) -> Result<Value, SpecError> {
    let tool = row.tool.as_ref().map(|t| t.name.as_str()).unwrap_or("");
    let c = &row.contract;
    let mut props = Map::new();
    let mut required: Vec<Value> = Vec::new();
    let param_schemas = c.params.as_ref().map(|p| downgrade::inline_refs(&p.schema));
    for p in &row.op.path.params {
        let mut s = param_schemas
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(|props| props.get(&p.name))
            .cloned()
            .unwrap_or_else(|| json!({"type": "string"}));
        if let (Some(pat), Value::Object(m)) = (&p.pattern, &mut s) {
            m.entry("pattern").or_insert(json!(format!("^(?:{pat})$")));
        }
        if let Value::Object(m) = &mut s {
            m.entry("description")
                .or_insert(json!(format!("Path parameter `{}`.", p.name)));
        }
        props.insert(p.name.clone(), s);
        if !p.optional {
            required.push(json!(p.name));
        }
    }
    let add = |name: &str, s: Value, props: &mut Map<String, Value>, what: &str| {
        if props.contains_key(name) {
            return Err(SpecError::ToolSchema(format!(
                "tool `{tool}` ({} {}): the {what} field `{name}` has the same name as another input; rename one of them",
                row.upper(),
                row.express()
            )));
        }
        props.insert(name.to_string(), s);
        Ok(())
    };
    if let Some(q) = &c.query {
        let schema = downgrade::inline_refs(&q.schema);
        if let Some(qp) = schema.get("properties").and_then(Value::as_object) {
            for (name, s) in qp {
                add(name, s.clone(), &mut props, "query")?;
            }
            if let Some(r) = schema.get("required").and_then(Value::as_array) {
                required.extend(r.iter().cloned());
            }
        }
    }
    for name in &c.query_read {
        if !props.contains_key(name) {
            props.insert(
                name.clone(),
                json!({"type": "string", "description": format!("Query parameter `{name}`.")}),
            );
        }
    }
    let mut additional = json!(false);
    if let Some(b) = &c.body {
        let schema = downgrade::inline_refs(&b.schema);
        let is_object = schema.get("type").and_then(Value::as_str) == Some("object")
            || (schema.get("type").is_none() && schema.get("properties").is_some());
        if is_object {
            if let Some(bp) = schema.get("properties").and_then(Value::as_object) {
                for (name, s) in bp {
                    add(name, s.clone(), &mut props, "body")?;
                }
            }
            if let Some(r) = schema.get("required").and_then(Value::as_array) {
                required.extend(r.iter().cloned());
            }
            additional = schema
                .get("additionalProperties")
                .cloned()
                .unwrap_or(json!(true));
        } else {
            add("body", schema, &mut props, "body")?;
            required.push(json!("body"));
        }
    }
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(props));
    let mut seen = Vec::new();
    required.retain(|r| {
        let new = !seen.contains(r);
        seen.push(r.clone());
        new
    });
    if !required.is_empty() {
        out.insert("required".into(), Value::Array(required));
    }
    out.insert("additionalProperties".into(), additional);
    Ok(Value::Object(out))
}

fn output_schema(row: &Row<'_>) -> Value {
    row.contract
        .responses
        .iter()
        .filter(|r| (200..300).contains(&r.status))
        .find_map(|r| r.schema.as_ref())
        .map(|s| downgrade::inline_refs(&s.schema))
        .unwrap_or_else(|| json!({"type": "object", "additionalProperties": true}))
}

/// Build `tools.min.json`.
pub(crate) fn emit(model: &Model<'_>, opts: &SpecOptions) -> Result<Value, SpecError> {
    let mut tools = Vec::new();
    let mut providers: Vec<(String, String)> = Vec::new();
    let (mut read, mut write) = (0, 0);
    for row in &model.rows {
        let Some(tool) = &row.tool else { continue };
        let provider = provider_name(&tool.name);
        if provider.is_empty() {
            return Err(SpecError::ToolSchema(format!(
                "tool name `{}` ({} {}) has no usable characters; use letters, digits, `.`, `-`, `_`",
                tool.name,
                row.upper(),
                row.express()
            )));
        }
        if let Some((other, _)) = providers.iter().find(|(_, p)| *p == provider) {
            return Err(SpecError::ToolSchema(format!(
                "tools `{other}` and `{}` both become the provider name `{provider}`; rename one",
                tool.name
            )));
        }
        providers.push((tool.name.clone(), provider.clone()));
        let side_effect = tool
            .side_effect
            .clone()
            .unwrap_or_else(|| row.side_effect.clone());
        if side_effect == "read" {
            read += 1;
        } else {
            write += 1;
        }
        let mut failures: Vec<(u16, &str)> = row
            .contract
            .responses
            .iter()
            .filter(|r| r.status >= 400)
            .map(|r| (r.status, status_code(r.status)))
            .collect();
        failures.sort();
        failures.dedup();
        let mut t = Map::new();
        t.insert("type".into(), json!("portos_tool"));
        t.insert("name".into(), json!(tool.name));
        t.insert("version".into(), json!(tool.version));
        t.insert("providerName".into(), json!(provider));
        t.insert(
            "description".into(),
            json!(
                tool.description
                    .clone()
                    .or_else(|| row.description.clone())
                    .unwrap_or_else(|| row.summary.clone())
            ),
        );
        t.insert("input_schema".into(), input_schema(row)?);
        t.insert("output_schema".into(), output_schema(row));
        t.insert(
            "policy".into(),
            json!({"sideEffect": side_effect, "async": false, "idempotent": side_effect == "read"}),
        );
        if !tool.scopes.is_empty() {
            t.insert("scopes".into(), json!(tool.scopes));
        }
        t.insert(
            "binding".into(),
            json!({"protocol": "http", "method": row.upper(), "path": row.express()}),
        );
        if !failures.is_empty() {
            t.insert(
                "failures".into(),
                json!(
                    failures
                        .iter()
                        .map(|(s, c)| json!({"status": s, "code": c}))
                        .collect::<Vec<_>>()
                ),
            );
        }
        tools.push(Value::Object(t));
    }
    Ok(json!({
        "type": "portos_tool_resource",
        "schemaVersion": 1,
        "portosVersion": opts.version,
        "source": {"document": "openapi", "version": if opts.openapi31 { "3.1.0" } else { "3.0.3" }},
        "schemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "tools": tools,
        "errors": STATUS_CODES.iter().map(|(s, c)| json!({"status": s, "code": c})).collect::<Vec<_>>(),
        "stats": {"total": read + write, "read": read, "write": write},
    }))
}
