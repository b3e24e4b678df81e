//! HTTP-bound tools against a small upstream of ours on loopback:
//! coalescing of 100 concurrent duplicates, 202 pending, failure mapping.

use crate::util::*;
use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get as rget, post as rpost};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const CALL: &str = "/api/cos/tools/call";

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"requestId": id, "name": name, "arguments": args})
}

/// Start the upstream; returns its base URL and the hit counter.
pub(crate) async fn upstream(delay_ms: u64) -> (String, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let h2 = hits.clone();
    let app = Router::new()
        .route(
            "/api/berths",
            rget(move |q: axum::extract::RawQuery| {
                let h = h.clone();
                async move {
                    h.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await;
                    axum::Json(json!([{"id": "A-01", "query": q.0}]))
                }
            }),
        )
        .route(
            "/api/berths/{id}",
            rget(|Path(id): Path<String>| async move {
                if id == "boom" {
                    (
                        StatusCode::INTERNAL_SERVER_ERROR,
                        axum::Json(json!({"error": "crashed"})),
                    )
                } else {
                    (
                        StatusCode::NOT_FOUND,
                        axum::Json(json!({"error": format!("no berth {id}")})),
                    )
                }
            }),
        )
        .route(
            "/api/bookings",
            rpost(move |headers: HeaderMap, body: String| {
                let h = h2.clone();
                async move {
                    h.fetch_add(1, Ordering::SeqCst);
                    let hv = |n: &str| headers.get(n).map(|v| v.to_str().unwrap().to_string());
                    (
                        StatusCode::CREATED,
                        axum::Json(json!({
                            "principal": hv("x-portolan-principal"),
                            "tenant": hv("x-portolan-tenant"),
                            "body": serde_json::from_str::<Value>(&body).unwrap_or(Value::Null)
                        })),
                    )
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (format!("http://{addr}"), hits)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_identical_calls_execute_once() {
    let (base, hits) = upstream(300).await;
    let s = state_with(settings(&format!("[server]\nupstream = \"{base}\"\n")));
    let mut tasks = Vec::new();
    for _ in 0..100 {
        let s = s.clone();
        tasks.push(tokio::spawn(async move {
            post_json(
                &s,
                CALL,
                &call("c-1", "berths.search", json!({"harbor": "north"})),
                &[],
            )
            .await
        }));
    }
    let mut results = Vec::new();
    let mut fresh = 0;
    for t in tasks {
        let a = t.await.unwrap();
        assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
        let v = a.json();
        if v["duplicate"] == false {
            fresh += 1;
        }
        results.push(v["result"].clone());
    }
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    assert_eq!(s.executions(), 1);
    assert_eq!(fresh, 1);
    assert!(results.iter().all(|r| *r == results[0]));
    assert_eq!(results[0]["body"][0]["query"], "harbor=north");
    assert_eq!(results[0]["status"], 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_of_a_running_call_answers_202_pending() {
    let (base, hits) = upstream(800).await;
    let s = state_with(settings(&format!(
        "[server]\nupstream = \"{base}\"\npending_wait_ms = 50\n"
    )));
    let s1 = s.clone();
    let first = tokio::spawn(async move {
        post_json(&s1, CALL, &call("slow-1", "berths.search", json!({})), &[]).await
    });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let dup = post_json(&s, CALL, &call("slow-1", "berths.search", json!({})), &[]).await;
    assert_eq!(dup.status, 202);
    assert_eq!(dup.json()["state"], "pending");
    let g = get(&s, "/api/cos/tools/calls/slow-1", &[]).await;
    assert_eq!(g.status, 202);
    assert_eq!(first.await.unwrap().status, 200);
    let g = get(&s, "/api/cos/tools/calls/slow-1", &[]).await;
    assert_eq!(g.status, 200);
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn upstream_failures_map_to_declared_codes_or_gateway_errors() {
    let (base, _) = upstream(0).await;
    let s = state_with(settings(&format!(
        "[server]\nupstream = \"{base}\"\n[server.limits]\nread_burst = 50\n"
    )));
    // berths.get declares 404 NOT_FOUND.
    let a = post_json(
        &s,
        CALL,
        &call("f-1", "berths.get", json!({"berthId": "Z 9"})),
        &[],
    )
    .await;
    assert_eq!(a.status, 422);
    let v = a.json();
    assert_eq!(
        (v["state"].as_str(), v["code"].as_str()),
        (Some("failed"), Some("NOT_FOUND"))
    );
    assert_eq!(v["error"], "no berth Z 9");
    // An undeclared 500 is BAD_GATEWAY.
    let a = post_json(
        &s,
        CALL,
        &call("f-2", "berths.get", json!({"berthId": "boom"})),
        &[],
    )
    .await;
    assert_eq!(a.status, 502);
    assert_eq!(a.json()["code"], "BAD_GATEWAY");
    // Nothing listening: a 502 result, never a 500.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let s2 = state_with(settings(&format!(
        "[server]\nupstream = \"http://{closed}\"\n"
    )));
    let a = post_json(&s2, CALL, &call("f-3", "berths.search", json!({})), &[]).await;
    assert_eq!(a.status, 502);
    assert_eq!(a.json()["state"], "failed");
    assert_eq!(a.json()["code"], "BAD_GATEWAY");
}

#[tokio::test]
async fn a_slow_upstream_times_out_as_504() {
    let (base, _) = upstream(2000).await;
    let s = state_with(settings(&format!(
        "[server]\nupstream = \"{base}\"\nupstream_timeout_ms = 100\n"
    )));
    let a = post_json(&s, CALL, &call("t-1", "berths.search", json!({})), &[]).await;
    assert_eq!(a.status, 504);
    assert_eq!(a.json()["code"], "GATEWAY_TIMEOUT");
}
