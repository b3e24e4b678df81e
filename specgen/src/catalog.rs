//! `catalog.json`: the PortOS schemaVersion 2 route catalog plus our additions.
//!
//! Captures every operation (`all` expanded to the seven concrete methods,
//! as PortOS does), domains in order of first appearance, stats, and per
//! operation the locations, middleware, parameters, app and conditions; the
//! analyzer's findings; the files read with their hashes (`derivedFrom`).
//!
//! Deliberately not captured: request/response schemas (a later emitter).

use crate::classify;
use analyzer::Inventory;
use indexmap::IndexMap;
use serde_json::{Value, json};

const ALL_METHODS: &[&str] = &["delete", "get", "head", "options", "patch", "post", "put"];

/// Build the catalog document.
pub fn catalog(inv: &Inventory) -> Value {
    let mut rows: Vec<(String, &analyzer::Operation)> = Vec::new();
    for op in &inv.operations {
        if op.method == "all" {
            for m in ALL_METHODS {
                rows.push((m.to_string(), op));
            }
        } else {
            rows.push((op.method.clone(), op));
        }
    }
    // Byte order by path, then method (PortOS uses locale collation; we do not).
    rows.sort_by(|a, b| {
        (a.1.path.express.as_bytes(), &a.0, &a.1.app).cmp(&(
            b.1.path.express.as_bytes(),
            &b.0,
            &b.1.app,
        ))
    });
    let mut domains: IndexMap<String, usize> = IndexMap::new();
    let mut ops = Vec::new();
    for (method, op) in &rows {
        let path = &op.path.express;
        let domain = classify::domain(path);
        *domains.entry(domain.clone()).or_default() += 1;
        let mut sources: Vec<String> = op.declarations.iter().map(|d| d.at.file.clone()).collect();
        sources.sort();
        sources.dedup();
        let first = &op.declarations[0];
        let upper = method.to_ascii_uppercase();
        let mut o = serde_json::Map::new();
        o.insert("method".into(), json!(upper));
        o.insert("path".into(), json!(path));
        o.insert("mountPath".into(), json!(op.mount_path));
        o.insert("sources".into(), json!(sources));
        o.insert("openApiPath".into(), json!(op.path.openapi));
        o.insert("domain".into(), json!(domain));
        o.insert("domainLabel".into(), json!(classify::title(&domain)));
        o.insert("summary".into(), json!(classify::summary(&upper, path)));
        o.insert("access".into(), json!(classify::access(&first.middleware)));
        o.insert(
            "sideEffect".into(),
            json!(classify::side_effect(&upper, path)),
        );
        o.insert("contractStatus".into(), json!("generated"));
        if op.method == "all" {
            o.insert("declaredMethod".into(), json!("ALL"));
        }
        o.insert(
            "app".into(),
            json!(format!("{}:{}", op.app.file, op.app.line)),
        );
        o.insert(
            "locations".into(),
            json!(
                op.declarations
                    .iter()
                    .map(|d| format!("{}:{}", d.at.file, d.at.line))
                    .collect::<Vec<_>>()
            ),
        );
        o.insert("middleware".into(), json!(first.middleware));
        if let Some(h) = &first.handler {
            o.insert(
                "handler".into(),
                json!({"name": h.name, "at": h.at.as_ref().map(|a| format!("{}:{}", a.file, a.line))}),
            );
        }
        o.insert(
            "params".into(),
            json!(
                op.path
                    .params
                    .iter()
                    .map(|p| {
                        let mut m = serde_json::Map::new();
                        m.insert("name".into(), json!(p.name));
                        m.insert("optional".into(), json!(p.optional));
                        m.insert("wildcard".into(), json!(p.wildcard));
                        if let Some(pat) = &p.pattern {
                            m.insert("pattern".into(), json!(pat));
                        }
                        Value::Object(m)
                    })
                    .collect::<Vec<_>>()
            ),
        );
        if op.path.regex {
            o.insert("regex".into(), json!(true));
        }
        if let Some(c) = op.conditional() {
            o.insert("conditional".into(), json!(c));
        }
        o.insert(
            "mounts".into(),
            json!(first.mounts.iter().map(|m| json!({"prefix": m.prefix, "at": format!("{}:{}", m.at.file, m.at.line)})).collect::<Vec<_>>()),
        );
        ops.push(Value::Object(o));
    }
    let stats = json!({
        "mounts": inv.stats.mounts,
        "operations": ops.len(),
        "declarations": inv.stats.declarations,
        "sourceFiles": inv.stats.source_files,
        "domains": domains.len(),
        "modeled": 0,
        "generated": ops.len(),
    });
    json!({
        "schemaVersion": 2,
        "derivedFrom": inv.source_files.iter().map(|f| f.file.clone()).collect::<Vec<_>>(),
        "stats": stats,
        "domains": domains.iter().map(|(id, n)| json!({"id": id, "label": classify::title(id), "operations": n})).collect::<Vec<_>>(),
        "externallyExposableApis": [],
        "operations": ops,
        "entries": inv.entries,
        "apps": inv.apps.iter().map(|a| json!({"at": format!("{}:{}", a.at.file, a.at.line), "operations": a.operations})).collect::<Vec<_>>(),
        "findings": inv.findings.iter().map(|f| json!({"code": f.code.as_str(), "file": f.at.file, "line": f.at.line, "message": f.message})).collect::<Vec<_>>(),
        "sourceHashes": inv.source_files.iter().map(|f| json!({"file": f.file, "blake3": f.hash})).collect::<Vec<_>>(),
    })
}
