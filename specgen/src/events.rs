//! `events.json`: the PortOS schemaVersion 2 Socket.IO event catalog (§2.7)
//! plus our additions.
//!
//! Captures per API event: name, namespace, directions, domain, summary,
//! contract status with the payload (and ack) schemas per direction, rooms,
//! whether the name is a pattern, and every site (file, line, side, kind,
//! direction, helper it went through, rooms, ack). Lifecycle events
//! (`connect`, `disconnect`, …) are listed apart under `lifecycleEvents` and
//! are not counted in `stats.events`.
//!
//! Deliberately not captured: event summaries beyond PortOS's generated
//! wording (the code states none).

use crate::classify;
use analyzer::{Event, Inventory};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

/// The domain of an event: the text before the first `:`, or `socket`.
pub(crate) fn domain(event: &str) -> String {
    match event.split(':').next() {
        Some(d) if !d.is_empty() && d != event => d.to_string(),
        _ => "socket".into(),
    }
}

/// PortOS's generated event summary.
pub(crate) fn summary(event: &str) -> String {
    format!("{} Socket.IO event", classify::event_title(event))
}

/// API events (lifecycle excluded), sorted by name then namespace (bytes).
pub(crate) fn api_events(inv: &Inventory) -> Vec<&Event> {
    let mut v: Vec<&Event> = inv.events.iter().filter(|e| !e.lifecycle).collect();
    v.sort_by(|a, b| {
        (a.name.as_bytes(), a.namespace.as_bytes())
            .cmp(&(b.name.as_bytes(), b.namespace.as_bytes()))
    });
    v
}

fn sites(e: &Event) -> Vec<Value> {
    e.sites
        .iter()
        .map(|s| {
            let mut m = Map::new();
            m.insert("file".into(), json!(s.at.file));
            m.insert("line".into(), json!(s.at.line));
            m.insert("side".into(), json!(s.side));
            m.insert("kind".into(), json!(s.kind));
            m.insert("direction".into(), json!(s.direction.as_str()));
            if let Some(v) = &s.via {
                m.insert("via".into(), json!(v));
            }
            if !s.rooms.is_empty() {
                m.insert("rooms".into(), json!(s.rooms));
            }
            if !s.args.is_empty() {
                m.insert("args".into(), json!(s.args));
            }
            if s.ack {
                m.insert("ack".into(), json!(true));
            }
            if let Some(r) = &s.reached {
                m.insert("reached".into(), json!(r.label()));
            }
            Value::Object(m)
        })
        .collect()
}

/// Build `events.json`.
pub fn events(inv: &Inventory) -> Value {
    let list = api_events(inv);
    let mut domains: IndexMap<String, usize> = IndexMap::new();
    let (mut c2s, mut s2c, mut both, mut modeled) = (0, 0, 0, 0);
    let mut rows = Vec::new();
    for e in &list {
        let d = domain(&e.name);
        *domains.entry(d.clone()).or_default() += 1;
        let has = |dir| e.directions.contains(&dir);
        let is_c2s = has(analyzer::Direction::ClientToServer);
        let is_s2c = has(analyzer::Direction::ServerToClient);
        c2s += usize::from(is_c2s);
        s2c += usize::from(is_s2c);
        both += usize::from(e.directions.len() > 1);
        let is_modeled = !e.payload.is_empty();
        modeled += usize::from(is_modeled);
        let mut m = Map::new();
        m.insert("event".into(), json!(e.name));
        m.insert(
            "directions".into(),
            json!(e.directions.iter().map(|d| d.as_str()).collect::<Vec<_>>()),
        );
        m.insert("domain".into(), json!(d));
        m.insert("domainLabel".into(), json!(classify::title(&d)));
        m.insert("summary".into(), json!(summary(&e.name)));
        m.insert(
            "contractStatus".into(),
            json!(if is_modeled { "modeled" } else { "generated" }),
        );
        m.insert(
            "modeledDirections".into(),
            json!(e.payload.keys().map(|d| d.as_str()).collect::<Vec<_>>()),
        );
        m.insert(
            "payloadSchemas".into(),
            Value::Object(
                e.payload
                    .iter()
                    .map(|(d, s)| (d.as_str().to_string(), s.schema.clone()))
                    .collect(),
            ),
        );
        m.insert("namespace".into(), json!(e.namespace));
        if e.namespace_assumed {
            m.insert("namespaceAssumed".into(), json!(true));
        }
        if e.pattern {
            m.insert("pattern".into(), json!(true));
        }
        if !e.ack.is_empty() {
            m.insert(
                "ackSchemas".into(),
                Value::Object(
                    e.ack
                        .iter()
                        .map(|(d, s)| (d.as_str().to_string(), s.schema.clone()))
                        .collect(),
                ),
            );
        }
        if !e.rooms.is_empty() {
            m.insert("rooms".into(), json!(e.rooms));
        }
        m.insert("sites".into(), Value::Array(sites(e)));
        rows.push(Value::Object(m));
    }
    let mut lifecycle: Vec<&Event> = inv.events.iter().filter(|e| e.lifecycle).collect();
    lifecycle.sort_by(|a, b| {
        (a.name.as_bytes(), a.namespace.as_bytes())
            .cmp(&(b.name.as_bytes(), b.namespace.as_bytes()))
    });
    let mut files: Vec<&str> = inv
        .events
        .iter()
        .flat_map(|e| e.sites.iter().map(|s| s.at.file.as_str()))
        .collect();
    files.sort();
    files.dedup();
    let mut namespaces: Vec<&str> = list.iter().map(|e| e.namespace.as_str()).collect();
    namespaces.sort();
    namespaces.dedup();
    let findings: Vec<Value> = inv
        .findings
        .iter()
        .filter(|f| f.code.is_event())
        .map(crate::catalog::finding_json)
        .collect();
    json!({
        "schemaVersion": 2,
        "derivedFrom": files,
        "stats": {
            "events": rows.len(),
            "clientToServer": c2s,
            "serverToClient": s2c,
            "bidirectional": both,
            "sourceFiles": files.len(),
            "domains": domains.len(),
            "modeled": modeled,
            "generated": rows.len() - modeled,
            "lifecycle": lifecycle.len(),
            "namespaces": namespaces.len(),
            "coverage": crate::catalog::coverage_json(inv.coverage.socket_total, inv.coverage.socket_charted),
        },
        "domains": domains.iter().map(|(id, n)| json!({"id": id, "label": classify::title(id), "events": n})).collect::<Vec<_>>(),
        "events": rows,
        "lifecycleEvents": lifecycle.iter().map(|e| json!({
            "event": e.name,
            "namespace": e.namespace,
            "directions": e.directions.iter().map(|d| d.as_str()).collect::<Vec<_>>(),
            "lifecycle": true,
            "sites": sites(e),
        })).collect::<Vec<_>>(),
        "socketServers": inv.socket_servers.iter().map(|s| json!({
            "at": format!("{}:{}", s.at.file, s.at.line),
            "path": s.path,
            "namespaces": s.namespaces,
        })).collect::<Vec<_>>(),
        "findings": findings,
    })
}
