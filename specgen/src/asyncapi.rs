//! `asyncapi.json`: AsyncAPI 3.0.0 for the Socket.IO API (reference §3.7).
//!
//! Captures one channel per (namespace, event) with PortOS's ids (the
//! namespace joins the id source string when it is not `/`), one message
//! and one operation per direction described from the server's side
//! (server-to-client = `send`, client-to-server = `receive`), payload schemas
//! (several arguments as a tuple array), acknowledgements as the operation's
//! `reply` (a message on the same channel), channel parameters for `{name}`
//! placeholders, and one server per Socket.IO server found (its path, the
//! configured host).
//!
//! Deliberately not captured: lifecycle events (not API), rooms (kept as
//! `x-portos-rooms` only: AsyncAPI has no room concept).

use crate::events::{api_events, domain, summary};
use crate::{SpecOptions, downgrade, ids};
use analyzer::{Direction, Event, Inventory};
use serde_json::{Map, Value, json};

/// The AsyncAPI default schema format is a draft-07 superset: express
/// 2020-12 tuples in draft-07 form and inline local references.
fn payload_schema(s: &Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                if let Some(prefix) = m.shift_remove("prefixItems") {
                    let rest = m.shift_remove("items");
                    m.insert("items".into(), prefix);
                    if let Some(r) = rest {
                        m.insert("additionalItems".into(), r);
                    }
                }
                for (_, child) in m.iter_mut() {
                    walk(child);
                }
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    let mut out = downgrade::inline_refs(s);
    walk(&mut out);
    out
}

/// Each placeholder name of an event address once, in order of appearance.
fn placeholders(address: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in crate::openapi::placeholders(address) {
        if !name.is_empty() && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// The payload for one direction: the stated schema, else a tuple when
/// sites pass several arguments, else any value.
fn payload(e: &Event, dir: Direction) -> (Value, bool) {
    if let Some(s) = e.payload.get(&dir) {
        return (payload_schema(&s.schema), true);
    }
    let args = e
        .sites
        .iter()
        .filter(|s| s.direction == dir)
        .map(|s| &s.args)
        .max_by_key(|a| a.len());
    match args {
        Some(a) if a.len() > 1 => (
            json!({
                "type": "array",
                "items": a.iter().map(|n| json!({"title": n})).collect::<Vec<_>>(),
                "minItems": a.len(),
                "maxItems": a.len(),
                "description": "Several arguments, in order (Socket.IO passes each as its own argument)."
            }),
            false,
        ),
        _ => (json!({}), false),
    }
}

/// Build `asyncapi.json`.
pub fn asyncapi(inv: &Inventory, opts: &SpecOptions) -> Value {
    let mut channels = Map::new();
    let mut operations = Map::new();
    let mut messages = Map::new();
    for e in api_events(inv) {
        let scoped = ids::scoped_event(&e.namespace, &e.name);
        let channel_id = ids::asyncapi_id(&format!("channel_{scoped}"));
        let title = summary(&e.name);
        let mut channel_messages = Map::new();
        for &dir in &e.directions {
            let d = dir.as_str();
            let message_id = ids::asyncapi_id(&format!("message_{d}_{scoped}"));
            let operation_id = ids::asyncapi_id(&format!("{d}_{scoped}"));
            let (schema, modeled) = payload(e, dir);
            messages.insert(
                message_id.clone(),
                json!({
                    "name": e.name,
                    "title": title,
                    "summary": format!("{d} payload for {}.", e.name),
                    "payload": schema,
                    "x-portos-contract-status": if modeled { "modeled" } else { "generated" },
                }),
            );
            channel_messages.insert(
                message_id.clone(),
                json!({"$ref": format!("#/components/messages/{message_id}")}),
            );
            let (action, verb) = match dir {
                Direction::ServerToClient => ("send", "Publish"),
                Direction::ClientToServer => ("receive", "Handle"),
            };
            let mut op = Map::new();
            op.insert("action".into(), json!(action));
            op.insert("summary".into(), json!(format!("{verb} {}", e.name)));
            let files: Vec<&str> = {
                let mut f: Vec<&str> = e
                    .sites
                    .iter()
                    .filter(|s| s.direction == dir)
                    .map(|s| s.at.file.as_str())
                    .collect();
                f.dedup();
                f
            };
            let who = match dir {
                Direction::ServerToClient => "The server emits it to clients",
                Direction::ClientToServer => "Clients emit it; the server handles it",
            };
            op.insert(
                "description".into(),
                json!(format!(
                    "{who} (namespace `{}`). Seen in: {}.",
                    e.namespace,
                    files.join(", ")
                )),
            );
            op.insert(
                "channel".into(),
                json!({"$ref": format!("#/channels/{channel_id}")}),
            );
            op.insert(
                "messages".into(),
                json!([{"$ref": format!("#/channels/{channel_id}/messages/{message_id}")}]),
            );
            op.insert("tags".into(), json!([{"name": domain(&e.name)}]));
            let acked =
                e.ack.contains_key(&dir) || e.sites.iter().any(|s| s.direction == dir && s.ack);
            if acked {
                let ack_id = ids::asyncapi_id(&format!("ack_{d}_{scoped}"));
                let ack_schema = e
                    .ack
                    .get(&dir)
                    .map(|s| payload_schema(&s.schema))
                    .unwrap_or_else(|| json!({}));
                messages.insert(
                    ack_id.clone(),
                    json!({
                        "name": format!("{} ack", e.name),
                        "title": format!("Acknowledgement of {}", e.name),
                        "summary": format!("What the receiver of {} passes to the acknowledgement callback.", e.name),
                        "payload": ack_schema,
                        "x-portos-contract-status": if e.ack.contains_key(&dir) { "modeled" } else { "generated" },
                    }),
                );
                channel_messages.insert(
                    ack_id.clone(),
                    json!({"$ref": format!("#/components/messages/{ack_id}")}),
                );
                op.insert(
                    "reply".into(),
                    json!({
                        "channel": {"$ref": format!("#/channels/{channel_id}")},
                        "messages": [{"$ref": format!("#/channels/{channel_id}/messages/{ack_id}")}],
                    }),
                );
            }
            operations.insert(operation_id, Value::Object(op));
        }
        let mut ch = Map::new();
        ch.insert("address".into(), json!(e.name));
        ch.insert("title".into(), json!(title));
        ch.insert("messages".into(), Value::Object(channel_messages));
        let params = placeholders(&e.name);
        if !params.is_empty() {
            ch.insert(
                "parameters".into(),
                Value::Object(
                    params
                        .into_iter()
                        .map(|p| {
                            let d = format!("Dynamic {p} segment in this Socket.IO event address.");
                            (p, json!({"description": d}))
                        })
                        .collect(),
                ),
            );
        }
        ch.insert(
            "x-portos-directions".into(),
            json!(e.directions.iter().map(|d| d.as_str()).collect::<Vec<_>>()),
        );
        ch.insert("x-portos-namespace".into(), json!(e.namespace));
        if e.namespace_assumed {
            ch.insert("x-portos-namespace-assumed".into(), json!(true));
        }
        if !e.rooms.is_empty() {
            ch.insert("x-portos-rooms".into(), json!(e.rooms));
        }
        channels.insert(channel_id, Value::Object(ch));
    }
    let mut servers = Map::new();
    let mut paths: Vec<&str> = inv.socket_servers.iter().map(|s| s.path.as_str()).collect();
    if paths.is_empty() {
        paths.push("/socket.io");
    }
    paths.sort();
    paths.dedup();
    for (i, path) in paths.iter().enumerate() {
        let id = if i == 0 {
            "local".to_string()
        } else {
            format!("local_{}", i + 1)
        };
        servers.insert(
            id,
            json!({
                "host": opts.socket_host,
                "protocol": "socket.io",
                "pathname": path,
                "description": "Socket.IO server found in the source; the host comes from portolan.toml [socket] host.",
            }),
        );
    }
    let mut info = Map::new();
    info.insert(
        "title".into(),
        json!(format!("{} Socket.IO API", opts.title)),
    );
    info.insert("version".into(), json!(opts.version));
    info.insert("description".into(), json!("Socket.IO events derived from the source by Portolan. Operations are described from the server's point of view: `send` = server to client, `receive` = client to server."));
    if let Some(l) = &opts.license {
        info.insert(
            "license".into(),
            json!({"name": l, "url": format!("https://spdx.org/licenses/{l}.html")}),
        );
    }
    let mut domains: Vec<String> = api_events(inv).iter().map(|e| domain(&e.name)).collect();
    domains.sort();
    domains.dedup();
    if !domains.is_empty() {
        info.insert(
            "tags".into(),
            Value::Array(domains.iter().map(|d| json!({"name": d})).collect()),
        );
    }
    json!({
        "asyncapi": "3.0.0",
        "info": info,
        "defaultContentType": "application/json",
        "servers": servers,
        "channels": channels,
        "operations": operations,
        "components": {"messages": messages},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_in_order() {
        assert_eq!(placeholders("berth:{kind}:{id}:{kind}"), vec!["kind", "id"]);
        assert!(placeholders("plain").is_empty());
    }

    #[test]
    fn tuples_use_draft07_items() {
        assert_eq!(
            payload_schema(
                &json!({"type": "array", "prefixItems": [{"type": "string"}], "items": false})
            ),
            json!({"type": "array", "items": [{"type": "string"}], "additionalItems": false})
        );
    }
}
