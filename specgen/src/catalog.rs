//! `catalog.json`: the PortOS schemaVersion 2 route catalog plus our additions.
//!
//! Captures every operation (`all` expanded to the seven concrete methods,
//! as PortOS does), domains in order of first appearance, stats, and per
//! operation the locations, middleware, parameters, app and conditions; the
//! analyzer's findings; the files read with their hashes (`derivedFrom`).
//!
//! Deliberately not captured: request/response schemas (the OpenAPI
//! emitters carry them); `modeled` only says that one is linked.

use crate::model::{self, Model};
use crate::{SpecError, SpecOptions, classify};
use analyzer::Inventory;
use serde_json::{Value, json};

/// Build the catalog document with default options.
pub fn catalog(inv: &Inventory) -> Value {
    // Default options name no tools or overrides, so nothing can fail.
    catalog_with(inv, &SpecOptions::default()).unwrap_or(Value::Null)
}

/// Build the catalog document.
pub fn catalog_with(inv: &Inventory, opts: &SpecOptions) -> Result<Value, SpecError> {
    let model = model::build(inv, opts)?;
    Ok(emit(inv, &model, opts))
}

pub(crate) fn emit(inv: &Inventory, model: &Model<'_>, opts: &SpecOptions) -> Value {
    let mut ops = Vec::new();
    let mut modeled = 0;
    for row in &model.rows {
        let op = row.op;
        let path = &op.path.express;
        let first = &op.declarations[0];
        let is_modeled = row.contract.modeled();
        if is_modeled && !model::unknown_prefix(op) {
            modeled += 1;
        }
        let mut o = serde_json::Map::new();
        o.insert("method".into(), json!(row.upper()));
        o.insert("path".into(), json!(path));
        o.insert("mountPath".into(), json!(op.mount_path));
        o.insert("sources".into(), json!(row.sources));
        o.insert("openApiPath".into(), json!(op.path.openapi));
        o.insert("domain".into(), json!(row.domain));
        o.insert("domainLabel".into(), json!(classify::title(&row.domain)));
        o.insert("summary".into(), json!(row.summary));
        o.insert("access".into(), json!(row.access));
        o.insert("sideEffect".into(), json!(row.side_effect));
        o.insert(
            "contractStatus".into(),
            json!(if is_modeled { "modeled" } else { "generated" }),
        );
        if op.method == "all" {
            o.insert("declaredMethod".into(), json!("ALL"));
        }
        if let Some(i) = row.exposed {
            o.insert("exposedApi".into(), json!(opts.exposed[i].id));
        }
        if let Some(t) = &row.tool {
            o.insert("tool".into(), json!(t.name));
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
                    .flat_map(|d| std::iter::once(&d.at).chain(d.via.as_ref()))
                    .map(|at| format!("{}:{}", at.file, at.line))
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
        if op.declarations.iter().any(|d| d.subpaths) {
            o.insert("subpaths".into(), json!(true));
        }
        if let Some(c) = op.conditional() {
            o.insert("conditional".into(), json!(c));
        }
        if let Some(r) = &op.reached {
            o.insert("reached".into(), json!(r.label()));
        }
        o.insert(
            "mounts".into(),
            json!(first.mounts.iter().map(|m| json!({"prefix": m.prefix, "at": format!("{}:{}", m.at.file, m.at.line)})).collect::<Vec<_>>()),
        );
        if let Some(d) = op.declarations.iter().find(|d| !d.contract.is_empty())
            && let Ok(c) = serde_json::to_value(&d.contract)
        {
            o.insert("contract".into(), c);
        }
        ops.push(Value::Object(o));
    }
    // Operations under the unknown prefix are listed but not counted (see `salvaged`).
    let unknown = model
        .rows
        .iter()
        .filter(|r| model::unknown_prefix(r.op))
        .count();
    let salvaged = model.rows.iter().filter(|r| r.op.reached.is_some()).count();
    let mut stats = json!({
        "mounts": inv.stats.mounts,
        "operations": ops.len() - unknown,
        "declarations": inv.stats.declarations,
        "sourceFiles": inv.stats.source_files,
        "domains": model.domains.len(),
        "modeled": modeled,
        "generated": ops.len() - unknown - modeled,
        "coverage": coverage_json(inv.coverage.http_total, inv.coverage.http_charted),
    });
    if salvaged > 0 {
        stats["salvaged"] = json!(salvaged);
        stats["unknownPrefix"] = json!(unknown);
    }
    json!({
        "schemaVersion": 2,
        "derivedFrom": inv.source_files.iter().filter(|f| f.http).map(|f| f.file.clone()).collect::<Vec<_>>(),
        "stats": stats,
        "domains": model.domains.iter().map(|(id, n)| json!({"id": id, "label": classify::title(id), "operations": n})).collect::<Vec<_>>(),
        "externallyExposableApis": opts.exposed.iter().map(|api| json!({
            "id": api.id,
            "label": api.label.clone().unwrap_or_else(|| api.id.clone()),
            "description": api.description.clone().unwrap_or_default(),
            "publicPrefixes": [api.prefix],
            "publicBase": api.prefix.trim_end_matches('/'),
            "exposed": true,
            "requireAuth": api.require_auth,
        })).collect::<Vec<_>>(),
        "operations": ops,
        "entries": inv.entries,
        "apps": inv.apps.iter().map(|a| {
            let mut v = json!({"at": format!("{}:{}", a.at.file, a.at.line), "operations": a.operations});
            if let Some(r) = &a.reached {
                v["reached"] = json!(r.label());
            }
            v
        }).collect::<Vec<_>>(),
        "findings": inv.findings.iter().filter(|f| !f.code.is_event()).map(finding_json).collect::<Vec<_>>(),
        "sourceHashes": inv.source_files.iter().filter(|f| f.http).map(|f| json!({"file": f.file, "blake3": f.hash})).collect::<Vec<_>>(),
    })
}

/// One finding as the documents list it: code, place, message, and (added
/// with the census) severity, cause and group.
pub(crate) fn finding_json(f: &analyzer::Finding) -> Value {
    json!({
        "code": f.code.as_str(),
        "file": f.at.file,
        "line": f.at.line,
        "message": f.message,
        "severity": f.severity().as_str(),
        "cause": f.cause(),
        "group": f.group(),
    })
}

/// The census coverage of one inventory part: registrations found in the
/// source, and how many of them are charted.
pub(crate) fn coverage_json(total: usize, charted: usize) -> Value {
    json!({"total": total, "charted": charted, "uncharted": total - charted.min(total)})
}
