//! The built-in read tools, answered from the derived documents:
//! `catalog.search` (alias `catalog_lookup`), `catalog.describe` and
//! `events.search`. They let an agent explore the analysed API itself.
//!
//! Captures word search over path, summary, domain and handler (every word
//! must match; results in catalog order, bounded by `limit`), and the full
//! description of one operation joined with its internal OpenAPI operation.
//! Deliberately not done: ranking by relevance (the catalog order is stable
//! and byte-sorted already).

use super::DocSet;
use super::registry::Builtin;
use serde_json::{Value, json};

fn words(q: &str) -> Vec<String> {
    q.split_whitespace().map(str::to_lowercase).collect()
}

fn text_of(v: &Value, keys: &[&str]) -> String {
    let mut s = String::new();
    for k in keys {
        match v.get(*k) {
            Some(Value::String(x)) => {
                s.push_str(x);
                s.push(' ');
            }
            Some(Value::Array(a)) => {
                for x in a.iter().filter_map(Value::as_str) {
                    s.push_str(x);
                    s.push(' ');
                }
            }
            _ => {}
        }
    }
    s.to_lowercase()
}

/// Run a built-in tool on validated arguments; the result is a plain record.
pub fn run(which: Builtin, args: &Value, docs: &DocSet) -> Value {
    let limit = args.get("limit").and_then(Value::as_u64).unwrap_or(20) as usize;
    match which {
        Builtin::CatalogSearch => {
            let ws = words(args.get("query").and_then(Value::as_str).unwrap_or(""));
            let method = args.get("method").and_then(Value::as_str);
            let domain = args.get("domain").and_then(Value::as_str);
            let empty = Vec::new();
            let ops = docs
                .catalog
                .get("operations")
                .and_then(Value::as_array)
                .unwrap_or(&empty);
            let matches: Vec<&Value> = ops
                .iter()
                .filter(|op| {
                    method.is_none_or(|m| {
                        op.get("method")
                            .and_then(Value::as_str)
                            .is_some_and(|x| x.eq_ignore_ascii_case(m))
                    }) && domain.is_none_or(|d| {
                        op.get("domain")
                            .and_then(Value::as_str)
                            .is_some_and(|x| x.eq_ignore_ascii_case(d))
                    }) && {
                        let hay =
                            text_of(op, &["method", "path", "summary", "domain", "domainLabel"]);
                        ws.iter().all(|w| hay.contains(w.as_str()))
                    }
                })
                .collect();
            let hits: Vec<Value> = matches
                .iter()
                .take(limit)
                .map(|op| {
                    json!({
                        "method": op.get("method"),
                        "path": op.get("path"),
                        "summary": op.get("summary"),
                        "access": op.get("access"),
                        "sideEffect": op.get("sideEffect"),
                        "domain": op.get("domain"),
                    })
                })
                .collect();
            json!({
                "ok": true,
                "count": hits.len(),
                "total": matches.len(),
                "truncated": matches.len() > hits.len(),
                "hits": hits,
                "summary": format!("{} of {} matching operations.", hits.len(), matches.len()),
            })
        }
        Builtin::CatalogDescribe => {
            let method = args.get("method").and_then(Value::as_str).unwrap_or("");
            let path = args.get("path").and_then(Value::as_str).unwrap_or("");
            let op = docs
                .catalog
                .get("operations")
                .and_then(Value::as_array)
                .and_then(|ops| {
                    ops.iter().find(|op| {
                        op.get("method")
                            .and_then(Value::as_str)
                            .is_some_and(|m| m.eq_ignore_ascii_case(method))
                            && (op.get("path").and_then(Value::as_str) == Some(path)
                                || op.get("openApiPath").and_then(Value::as_str) == Some(path))
                    })
                });
            let Some(op) = op else {
                return json!({
                    "ok": false,
                    "error": format!("No operation {} {path} in the catalog.", method.to_ascii_uppercase()),
                });
            };
            let openapi = op
                .get("openApiPath")
                .and_then(Value::as_str)
                .and_then(|p| docs.openapi.get("paths")?.get(p))
                .and_then(|item| item.get(method.to_ascii_lowercase()))
                .cloned()
                .unwrap_or(Value::Null);
            json!({
                "ok": true,
                "operation": {
                    "method": op.get("method"),
                    "path": op.get("path"),
                    "summary": op.get("summary"),
                    "access": op.get("access"),
                    "sideEffect": op.get("sideEffect"),
                    "contractStatus": op.get("contractStatus"),
                    "middleware": op.get("middleware"),
                    "locations": op.get("locations"),
                    "handler": op.get("handler"),
                    "params": op.get("params"),
                    "parameters": openapi.get("parameters"),
                    "requestBody": openapi.get("requestBody"),
                    "responses": openapi.get("responses"),
                }
            })
        }
        Builtin::EventsSearch => {
            let ws = words(args.get("query").and_then(Value::as_str).unwrap_or(""));
            let direction = args.get("direction").and_then(Value::as_str);
            let namespace = args.get("namespace").and_then(Value::as_str);
            let empty = Vec::new();
            let events = docs
                .events
                .get("events")
                .and_then(Value::as_array)
                .unwrap_or(&empty);
            let matches: Vec<&Value> = events
                .iter()
                .filter(|e| {
                    direction.is_none_or(|d| {
                        e.get("directions")
                            .and_then(Value::as_array)
                            .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(d)))
                    }) && namespace
                        .is_none_or(|n| e.get("namespace").and_then(Value::as_str) == Some(n))
                        && {
                            let hay = text_of(e, &["event", "summary", "domain"]);
                            ws.iter().all(|w| hay.contains(w.as_str()))
                        }
                })
                .collect();
            let hits: Vec<Value> = matches
                .iter()
                .take(limit)
                .map(|e| {
                    json!({
                        "event": e.get("event"),
                        "directions": e.get("directions"),
                        "namespace": e.get("namespace"),
                        "summary": e.get("summary"),
                        "contractStatus": e.get("contractStatus"),
                    })
                })
                .collect();
            json!({
                "ok": true,
                "count": hits.len(),
                "total": matches.len(),
                "truncated": matches.len() > hits.len(),
                "hits": hits,
                "summary": format!("{} of {} matching events.", hits.len(), matches.len()),
            })
        }
    }
}
