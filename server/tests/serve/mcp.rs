//! MCP at `/api/agent-context/mcp` and the manifest (contract §3.11): the
//! transport checks, JSON-RPC codes, version negotiation, pagination, calls
//! through the registry path, and the trust rules decided from the peer
//! address (`ConnectInfo`), never from `Host` or forwarded headers.

use crate::util::*;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use portolan::serve::AppState;
use serde_json::{Value, json};
use std::net::SocketAddr;

const MCP: &str = "/api/agent-context/mcp";
const ACCEPT: &str = "application/json, text/event-stream";
const LOOPBACK: &str = "127.0.0.1:50000";

/// A request from `peer` (None: no socket, as a misconfigured embedding would be).
async fn from(
    s: &AppState,
    peer: Option<&str>,
    method: &str,
    uri: &str,
    body: Option<&Value>,
    headers: &[(&str, &str)],
) -> Answer {
    let mut b = Request::builder().method(method).uri(uri);
    if body.is_some() {
        b = b.header("content-type", "application/json");
    }
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let mut req = b
        .body(body.map(|v| Body::from(v.to_string())).unwrap_or_default())
        .unwrap();
    if let Some(p) = peer {
        req.extensions_mut()
            .insert(ConnectInfo(p.parse::<SocketAddr>().unwrap()));
    }
    send(s, req).await
}

async fn rpc_with(s: &AppState, msg: &Value, headers: &[(&str, &str)]) -> Answer {
    let mut h = vec![("accept", ACCEPT)];
    h.extend_from_slice(headers);
    from(s, Some(LOOPBACK), "POST", MCP, Some(msg), &h).await
}

async fn rpc(s: &AppState, method: &str, params: Value) -> Value {
    let a = rpc_with(
        s,
        &json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}),
        &[],
    )
    .await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    assert_eq!(
        a.header("content-type").as_deref(),
        Some("application/json")
    );
    let v = a.json();
    assert_eq!(v["jsonrpc"], "2.0");
    assert_eq!(v["id"], 7);
    v
}

fn init_params(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}})
}

async fn call(s: &AppState, name: &str, args: Value) -> Value {
    let v = rpc(s, "tools/call", json!({"name": name, "arguments": args})).await;
    let r = v["result"].clone();
    assert!(r["isError"].is_boolean(), "{v}");
    // The text is the structured content, serialised.
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, r["structuredContent"]);
    r
}

#[tokio::test]
async fn initialize_negotiates_the_protocol_version() {
    let s = state();
    for v in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let r = rpc(&s, "initialize", init_params(v)).await;
        assert_eq!(r["result"]["protocolVersion"], v);
        assert_eq!(
            r["result"]["capabilities"],
            json!({"tools": {"listChanged": false}})
        );
        assert_eq!(r["result"]["serverInfo"]["name"], "portolan");
    }
    let r = rpc(&s, "initialize", init_params("2024-11-05")).await;
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    // Stateless: no session is issued.
    let a = rpc_with(
        &s,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init_params("2025-06-18")}),
        &[],
    )
    .await;
    assert!(a.header("mcp-session-id").is_none());
    // Strict params.
    let mut p = init_params("2025-06-18");
    p["extra"] = json!(1);
    assert_eq!(rpc(&s, "initialize", p).await["error"]["code"], -32602);
    let r = rpc(
        &s,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}}),
    )
    .await;
    assert_eq!(r["error"]["code"], -32602);
}

#[tokio::test]
async fn transport_checks_answer_with_their_status_and_code() {
    let s = state();
    assert_eq!(rpc(&s, "ping", json!({})).await["result"], json!({}));
    assert_eq!(
        rpc(&s, "resources/list", json!({})).await["error"]["code"],
        -32601
    );
    assert_eq!(
        rpc(&s, "server/discover", json!({})).await["error"]["code"],
        -32601
    );

    // Notifications and responses: 202, empty.
    for msg in [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 3, "result": {}}),
        json!({"jsonrpc": "2.0", "id": "x", "error": {"code": 1, "message": "m"}}),
    ] {
        let a = rpc_with(&s, &msg, &[]).await;
        assert_eq!(a.status, 202, "{msg}");
        assert!(a.body.is_empty());
    }
    // Accept must name both types.
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let a = from(
        &s,
        Some(LOOPBACK),
        "POST",
        MCP,
        Some(&ping),
        &[("accept", "application/json")],
    )
    .await;
    assert_eq!(a.status, 406);
    assert_eq!(a.json()["error"]["code"], -32600);
    let a = from(&s, Some(LOOPBACK), "POST", MCP, Some(&ping), &[]).await;
    assert_eq!(a.status, 406);
    // A supported version header passes, another is 400.
    let a = rpc_with(&s, &ping, &[("mcp-protocol-version", "2025-06-18")]).await;
    assert_eq!(a.status, 200);
    let a = rpc_with(&s, &ping, &[("mcp-protocol-version", "2099-01-01")]).await;
    assert_eq!(a.status, 400);
    assert_eq!(a.json()["error"]["code"], -32600);
    // Invalid messages.
    for (msg, code) in [
        (
            json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
            -32600,
        ),
        (json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}), -32600),
        (
            json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
            -32600,
        ),
        (
            json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}),
            -32600,
        ),
        (json!({"jsonrpc": "2.0", "id": 1, "method": ""}), -32600),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}),
            -32600,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "extra": 1}),
            -32600,
        ),
        (json!({"jsonrpc": "2.0", "id": 1}), -32600),
    ] {
        let a = rpc_with(&s, &msg, &[]).await;
        assert_eq!(a.status, 400, "{msg}");
        assert_eq!(a.json()["error"]["code"], code, "{msg}");
    }
    let mut b = Request::builder()
        .method("POST")
        .uri(MCP)
        .header("accept", ACCEPT);
    b = b.header("content-type", "application/json");
    let mut req = b.body(Body::from("{not json")).unwrap();
    req.extensions_mut()
        .insert(ConnectInfo(LOOPBACK.parse::<SocketAddr>().unwrap()));
    let a = send(&s, req).await;
    assert_eq!(a.status, 400);
    assert_eq!(a.json()["error"]["code"], -32700);
    // GET and DELETE: 405 with Allow: POST and no body.
    for m in ["GET", "DELETE"] {
        let a = from(&s, Some(LOOPBACK), m, MCP, None, &[("accept", ACCEPT)]).await;
        assert_eq!(a.status, 405, "{m}");
        assert_eq!(a.header("allow").as_deref(), Some("POST"));
        assert!(a.body.is_empty());
    }
}

#[tokio::test]
async fn tools_list_pages_through_the_granted_agent_tools() {
    let s = state_with(settings("[server.mcp]\npage_size = 2\n"));
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let r = rpc(&s, "tools/list", params).await["result"].clone();
        let tools = r["tools"].as_array().unwrap();
        assert!(tools.len() <= 2 && !tools.is_empty());
        for t in tools {
            assert!(
                t["inputSchema"].is_object() && t["outputSchema"]["type"] == "object",
                "{t}"
            );
            assert!(t["annotations"]["readOnlyHint"].is_boolean(), "{t}");
            names.push(t["name"].as_str().unwrap().to_string());
        }
        pages += 1;
        match r.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    // The same tools as the agent catalog for these grants, none twice.
    let catalog = get(&s, "/api/cos/tools?scope=agent&format=mcp", &[])
        .await
        .json();
    let want: Vec<String> = catalog["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, want);
    assert_eq!(pages, want.len().div_ceil(2));
    assert!(pages >= 3, "{want:?}");
    assert!(names.contains(&"catalog_search".to_string()));
    // Only reads are granted to the local agent; ui-only tools are not agent tools.
    assert!(!names.contains(&"bookings_create".to_string()));
    assert!(!names.contains(&"berths_create".to_string()));

    for bad in [
        json!({"cursor": "nonsense"}),
        json!({"cursor": 3}),
        json!({"cursor": "g1.999"}),
        json!({"page": 1}),
    ] {
        assert_eq!(
            rpc(&s, "tools/list", bad.clone()).await["error"]["code"],
            -32602,
            "{bad}"
        );
    }
    // A cursor from before a swap is refused: pages never mix two registries.
    let first = rpc(&s, "tools/list", json!({})).await["result"]["nextCursor"].clone();
    s.swap(derived(harbor())).unwrap();
    let r = rpc(&s, "tools/list", json!({"cursor": first})).await;
    assert_eq!(r["error"]["code"], -32602);
}

#[tokio::test]
async fn tools_call_runs_through_the_registry_and_failures_are_results() {
    let s = state_with(settings(
        "[server.limits]\nread_per_minute = 1\nread_burst = 3\n",
    ));
    let r = call(&s, "catalog_search", json!({"query": "berths", "limit": 2})).await;
    assert_eq!(r["isError"], false, "{r}");
    let sc = &r["structuredContent"];
    assert_eq!(sc["type"], "portos_tool_result");
    assert_eq!(sc["state"], "completed");
    assert!(sc["requestId"].as_str().unwrap().starts_with("agent-mcp:"));
    assert_eq!(sc["result"]["count"], 2, "{sc}");

    // Invalid arguments: the registry's validation, as a tool error.
    let r = call(&s, "catalog_search", json!({"query": "", "limit": 1000})).await;
    assert_eq!(r["isError"], true);
    assert_eq!(r["structuredContent"]["code"], "TOOL_VALIDATION_ERROR");
    assert!(
        r["structuredContent"]["context"]["details"]
            .as_array()
            .unwrap()
            .len()
            >= 2
    );
    // A write tool is not granted to the loopback agent; an unknown name is not found.
    let r = call(&s, "bookings_create", json!({})).await;
    assert_eq!(r["structuredContent"]["code"], "TOOL_CAPABILITY_DENIED");
    assert_eq!(r["isError"], true);
    let r = call(&s, "no_such_tool", json!({})).await;
    assert_eq!(r["structuredContent"]["code"], "TOOL_NOT_FOUND");
    // The read bucket (burst 3) is shared with the HTTP surface: the fourth read is limited.
    let r = call(&s, "events_search", json!({"query": "berth"})).await;
    assert_eq!(r["isError"], false, "{r}");
    let r = call(&s, "events_search", json!({"query": "berth"})).await;
    assert_eq!(r["structuredContent"]["code"], "RATE_LIMITED");
    // Bad params are a protocol error, not a tool result.
    let v = rpc(&s, "tools/call", json!({"name": 1})).await;
    assert_eq!(v["error"]["code"], -32602);
    let v = rpc(
        &s,
        "tools/call",
        json!({"name": "catalog_search", "arguments": [1]}),
    )
    .await;
    assert_eq!(v["error"]["code"], -32602);

    // Every call is in the audit log, under the local principal.
    let audit = s.store().audit_since(0, 100).unwrap();
    assert_eq!(audit.len(), 6, "{audit:?}");
    assert!(audit.iter().all(|a| a.principal == "local"));
}

#[tokio::test]
async fn the_idempotency_key_makes_an_mcp_call_replay() {
    let s = state();
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "catalog_search", "arguments": {"query": "berths"}}});
    let first = rpc_with(&s, &msg, &[("idempotency-key", "k-1")])
        .await
        .json();
    let again = rpc_with(&s, &msg, &[("idempotency-key", "k-1")])
        .await
        .json();
    assert_eq!(
        first["result"]["structuredContent"]["requestId"],
        "agent-mcp:k-1"
    );
    assert_eq!(first["result"]["structuredContent"]["duplicate"], false);
    assert_eq!(again["result"]["structuredContent"]["duplicate"], true);
    assert_eq!(s.executions(), 1);
    // Other arguments under the same key: the registry's conflict, as a tool error.
    let mut other = msg.clone();
    other["params"]["arguments"]["query"] = json!("ships");
    let r = rpc_with(&s, &other, &[("idempotency-key", "k-1")])
        .await
        .json();
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(
        r["result"]["structuredContent"]["code"],
        "TOOL_IDEMPOTENCY_CONFLICT"
    );
    let r = rpc_with(&s, &msg, &[("idempotency-key", "bad key!")])
        .await
        .json();
    assert_eq!(r["result"]["structuredContent"]["code"], "VALIDATION_ERROR");
}

#[tokio::test]
async fn only_loopback_peers_are_admitted_whatever_the_headers_say() {
    let s = state();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let post = |peer: Option<&'static str>, headers: Vec<(&'static str, &'static str)>| {
        let s = s.clone();
        let ping = ping.clone();
        async move {
            let mut h = vec![("accept", ACCEPT)];
            h.extend(headers);
            from(&s, peer, "POST", MCP, Some(&ping), &h).await
        }
    };
    assert_eq!(post(Some("[::1]:4000"), vec![]).await.status, 200);
    assert_eq!(
        post(Some("[::ffff:127.0.0.1]:4000"), vec![]).await.status,
        200
    );
    assert_eq!(post(Some("127.8.9.10:4000"), vec![]).await.status, 200);
    post(None, vec![])
        .await
        .assert_error(403, "AGENT_CONTEXT_LOCAL_ONLY");
    for headers in [
        vec![],
        vec![("host", "localhost:5555")],
        vec![("x-forwarded-for", "127.0.0.1")],
        vec![("forwarded", "for=127.0.0.1")],
    ] {
        post(Some("10.1.2.3:4000"), headers)
            .await
            .assert_error(403, "AGENT_CONTEXT_LOCAL_ONLY");
    }
    // The manifest is guarded the same way.
    from(
        &s,
        Some("10.1.2.3:4000"),
        "GET",
        "/api/agent-context/manifest",
        None,
        &[],
    )
    .await
    .assert_error(403, "AGENT_CONTEXT_LOCAL_ONLY");

    // Behind a configured proxy, the client is the forwarded address.
    let s = state_with(settings(
        "[server.mcp]\ntrusted_proxies = [\"127.0.0.1\"]\n",
    ));
    let via = |xff: Option<&'static str>| {
        let s = s.clone();
        let ping = ping.clone();
        async move {
            let mut h = vec![("accept", ACCEPT)];
            if let Some(x) = xff {
                h.push(("x-forwarded-for", x));
            }
            from(&s, Some(LOOPBACK), "POST", MCP, Some(&ping), &h).await
        }
    };
    via(Some("203.0.113.9"))
        .await
        .assert_error(403, "AGENT_CONTEXT_LOCAL_ONLY");
    // A client cannot hide behind an entry it wrote itself: the rightmost untrusted one counts.
    via(Some("127.0.0.1, 203.0.113.9"))
        .await
        .assert_error(403, "AGENT_CONTEXT_LOCAL_ONLY");
    via(None)
        .await
        .assert_error(403, "AGENT_CONTEXT_LOCAL_ONLY");
    via(Some("junk"))
        .await
        .assert_error(403, "AGENT_CONTEXT_LOCAL_ONLY");
    assert_eq!(via(Some("::1")).await.status, 200);
}

#[tokio::test]
async fn origins_must_be_loopback_or_listed() {
    let s = state_with(settings(
        "[server.mcp]\nallowed_origins = [\"https://agent.example\"]\n",
    ));
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    for (origin, ok) in [
        ("http://localhost:5555", true),
        ("http://127.0.0.1:3000", true),
        ("http://[::1]:8080", true),
        ("https://agent.example", true),
        ("https://AGENT.example/", true),
        ("http://evil.example", false),
        ("http://localhost.evil.example", false),
        ("https://agent.example:8443", false),
        ("null", false),
    ] {
        let a = rpc_with(&s, &ping, &[("origin", origin)]).await;
        if ok {
            assert_eq!(a.status, 200, "{origin}");
        } else {
            a.assert_error(403, "AGENT_CONTEXT_ORIGIN_REJECTED");
        }
    }
}

#[tokio::test]
async fn disabled_mcp_refuses_every_method_and_the_manifest_lists_no_tools() {
    let s = state();
    let m = from(
        &s,
        Some(LOOPBACK),
        "GET",
        "/api/agent-context/manifest",
        None,
        &[],
    )
    .await;
    assert_eq!(m.status, 200);
    let m = m.json();
    assert_eq!(m["enabled"], true);
    assert_eq!(m["transport"]["endpoint"], MCP);
    assert_eq!(m["transport"]["loopbackOnly"], true);
    assert_eq!(
        m["supportedProtocolVersions"],
        json!(["2025-03-26", "2025-06-18", "2025-11-25"])
    );
    assert!(m["tools"].as_array().unwrap().len() >= 3);

    let s = state_with(settings("[server.mcp]\nenabled = false\n"));
    let m = from(
        &s,
        Some(LOOPBACK),
        "GET",
        "/api/agent-context/manifest",
        None,
        &[],
    )
    .await
    .json();
    assert_eq!(m["enabled"], false);
    assert_eq!(m["tools"], json!([]));
    for method in ["POST", "GET", "DELETE"] {
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        from(
            &s,
            Some(LOOPBACK),
            method,
            MCP,
            Some(&ping),
            &[("accept", ACCEPT)],
        )
        .await
        .assert_error(403, "AGENT_CONTEXT_DISABLED");
    }
}

const SECRET: &str = "test-secret-of-enough-length-0123456789";

fn token(sub: &str, grants: &[&str]) -> String {
    let exp = portolan::serve::error::now_ms() / 1000 + 300;
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &json!({"sub": sub, "exp": exp, "scope": "ui", "capabilities": grants}),
        &EncodingKey::from_secret(SECRET.as_bytes()).unwrap(),
    )
    .unwrap()
}

#[tokio::test]
async fn remote_agents_need_a_token_and_get_its_grants() {
    let s = state_with(settings(&format!(
        "[server.auth]\nmode = \"jwt\"\nsecret = \"{SECRET}\"\n[server.mcp]\nallow_remote = true\n"
    )));
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let remote = "198.51.100.7:40000";
    from(
        &s,
        Some(remote),
        "POST",
        MCP,
        Some(&list),
        &[("accept", ACCEPT)],
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    // In jwt mode loopback agents present a token too.
    from(
        &s,
        Some(LOOPBACK),
        "POST",
        MCP,
        Some(&list),
        &[("accept", ACCEPT)],
    )
    .await
    .assert_error(401, "UNAUTHORIZED");
    let bearer = format!(
        "Bearer {}",
        token("agent-7", &["readPortos", "writePortos"])
    );
    let a = from(
        &s,
        Some(remote),
        "POST",
        MCP,
        Some(&list),
        &[("accept", ACCEPT), ("authorization", &bearer)],
    )
    .await;
    assert_eq!(a.status, 200);
    let names: Vec<String> = a.json()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    // The token grants writes: agent-scope write tools are listed.
    assert!(names.contains(&"bookings_create".to_string()), "{names:?}");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "catalog_search", "arguments": {"query": "berths"}}});
    let a = from(
        &s,
        Some(remote),
        "POST",
        MCP,
        Some(&call),
        &[("accept", ACCEPT), ("authorization", &bearer)],
    )
    .await;
    assert_eq!(a.json()["result"]["isError"], false);
    let audit = s.store().audit_since(0, 10).unwrap();
    assert_eq!(audit.last().unwrap().principal, "agent-7");

    // Without allow_remote the token does not help an agent off loopback.
    let s = state_with(settings(&format!(
        "[server.auth]\nmode = \"jwt\"\nsecret = \"{SECRET}\"\n"
    )));
    from(
        &s,
        Some(remote),
        "POST",
        MCP,
        Some(&list),
        &[("accept", ACCEPT), ("authorization", &bearer)],
    )
    .await
    .assert_error(403, "AGENT_CONTEXT_LOCAL_ONLY");
}
