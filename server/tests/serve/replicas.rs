//! Two real `portolan serve` processes on one PostgreSQL database, calling
//! an upstream of ours that counts executions per argument: 200 calls
//! spread over both, 50 request ids sent to both at once; each distinct
//! call runs once, both answer alike, the audit log has one execution row
//! per distinct call and one row per answer. Then a process killed in the
//! middle of a call: once its lease runs out the call is failed
//! "interrupted" on the other, and never runs again.

use crate::util::{postgres_database, postgres_rows, workspace};
use axum::Router;
use axum::extract::RawQuery;
use axum::routing::get as rget;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

type Hits = Arc<Mutex<HashMap<String, usize>>>;

/// `GET /api/berths?harbor=X` counts X; `harbor=slow-*` takes 30 s.
async fn counting_upstream() -> (String, Hits) {
    let hits: Hits = Default::default();
    let h = hits.clone();
    let app = Router::new().route(
        "/api/berths",
        rget(move |RawQuery(q): RawQuery| {
            let h = h.clone();
            async move {
                let q = q.unwrap_or_default();
                *h.lock().unwrap().entry(q.clone()).or_default() += 1;
                let slow = q.starts_with("harbor=slow");
                tokio::time::sleep(Duration::from_millis(if slow { 30_000 } else { 150 })).await;
                axum::Json(json!([{"id": "A-01", "query": q}]))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), hits)
}

struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(config: &std::path::Path, data: &std::path::Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_portolan"))
        .arg("serve")
        .arg(workspace().join("tests/projects/harbor"))
        .args(["--listen", "127.0.0.1:0", "--no-cache", "--config"])
        .arg(config)
        .arg("--data-dir")
        .arg(data)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut banner = String::new();
    for _ in 0..3 {
        out.read_line(&mut banner).unwrap();
    }
    assert!(banner.contains("state: postgres 127.0.0.1:"), "{banner}");
    let addr = banner
        .strip_prefix("portolan serve: http://")
        .unwrap_or_else(|| panic!("{banner}"))
        .split('/')
        .next()
        .unwrap()
        .to_string();
    // Keep reading stdout so the server never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    Server { child, addr }
}

/// One HTTP/1.1 request on its own connection; (status, JSON body).
async fn http(addr: &str, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut text = String::new();
    // A server killed mid-request closes the connection: status 0.
    if s.read_to_string(&mut text).await.is_err() || text.len() < 12 {
        return (0, Value::Null);
    }
    let status = text[9..12].parse().unwrap();
    let body = text.split_once("\r\n\r\n").map(|x| x.1).unwrap_or("");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn call(id: &str, harbor: &str) -> Value {
    json!({"requestId": id, "name": "berths.search", "arguments": {"harbor": harbor}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_processes_on_one_database_behave_as_one() {
    let Some(url) = postgres_database("two_processes_on_one_database_behave_as_one") else {
        return;
    };
    let (upstream, hits) = counting_upstream().await;
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("portolan.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nstore = \"{url}\"\nupstream = \"{upstream}\"\nupstream_timeout_ms = 60000\npending_wait_ms = 20000\nclaim_lease_ms = 3000\n[server.limits]\nread_per_minute = 1000000\nread_burst = 100000\n"
        ),
    )
    .unwrap();
    // Started together: both migrate the same empty database.
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| start(&config, &tmp.path().join("a")));
        let b = s.spawn(|| start(&config, &tmp.path().join("b")));
        (a.join().unwrap(), b.join().unwrap())
    });

    // 100 ids sent once (alternating) and 50 sent to both at once: 200 calls.
    let mut sends: Vec<(String, String, String)> = Vec::new();
    for i in 0..150 {
        let id = format!("call-{i}");
        if i < 100 {
            let to = if i % 2 == 0 { &a.addr } else { &b.addr };
            sends.push((to.clone(), id, format!("h{i}")));
        } else {
            sends.push((a.addr.clone(), id.clone(), format!("h{i}")));
            sends.push((b.addr.clone(), id, format!("h{i}")));
        }
    }
    assert_eq!(sends.len(), 200);
    let tasks: Vec<_> = sends
        .into_iter()
        .map(|(addr, id, harbor)| {
            tokio::spawn(async move {
                let (status, body) = http(
                    &addr,
                    "POST",
                    "/api/cos/tools/call",
                    Some(&call(&id, &harbor)),
                )
                .await;
                (id, status, body)
            })
        })
        .collect();
    let mut answers: HashMap<String, Vec<Value>> = HashMap::new();
    for t in tasks {
        let (id, status, body) = t.await.unwrap();
        assert_eq!(status, 200, "{id}: {body}");
        answers.entry(id).or_default().push(body);
    }
    assert_eq!(answers.len(), 150);
    for (id, bodies) in &answers {
        assert!(
            bodies.iter().all(|b| b["result"] == bodies[0]["result"]),
            "{id}: {bodies:?}"
        );
        assert_eq!(bodies[0]["state"], "completed", "{id}");
        let fresh = bodies.iter().filter(|b| b["duplicate"] == false).count();
        assert_eq!(fresh, 1, "{id}: exactly one answer ran the call");
    }
    {
        let hits = hits.lock().unwrap();
        assert_eq!(hits.len(), 150, "every distinct call reached the upstream");
        assert!(hits.values().all(|n| *n == 1), "{hits:?}");
    }
    // Each process replays the other's results by request id.
    for i in [0, 1, 120] {
        let path = format!("/api/cos/tools/calls/call-{i}");
        let (sa, va) = http(&a.addr, "GET", &path, None).await;
        let (sb, vb) = http(&b.addr, "GET", &path, None).await;
        assert_eq!((sa, sb), (200, 200));
        assert_eq!(va["result"], vb["result"]);
    }
    let audit = postgres_rows(
        &url,
        "SELECT outcome, COUNT(*), COUNT(DISTINCT request_id) FROM portolan_audit GROUP BY outcome ORDER BY outcome",
    );
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        audit,
        vec![
            vec![s("completed"), s("150"), s("150")],
            vec![s("replayed"), s("50"), s("50")],
        ],
        "one execution row per distinct call, one replay row per duplicate answer: 200 rows for 200 calls"
    );

    // Killed in the middle of a call: interrupted once the lease runs out.
    let killed = tokio::spawn({
        let addr = a.addr.clone();
        async move {
            http(
                &addr,
                "POST",
                "/api/cos/tools/call",
                Some(&call("slow-1", "slow-1")),
            )
            .await
        }
    });
    let start = Instant::now();
    while !hits.lock().unwrap().contains_key("harbor=slow-1") {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the call never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut a = a;
    a.child.kill().unwrap(); // SIGKILL: no chance to record anything
    a.child.wait().unwrap();
    let _ = killed.await;
    let (status, running) = http(&b.addr, "GET", "/api/cos/tools/calls/slow-1", None).await;
    assert_eq!(
        (status, &running["state"]),
        (202, &json!("pending")),
        "{running}"
    );
    // The lease (3 s) runs out: the other process answers it interrupted.
    let killed_at = Instant::now();
    let (status, v) = loop {
        let (status, v) = http(&b.addr, "GET", "/api/cos/tools/calls/slow-1", None).await;
        if status != 202 || killed_at.elapsed() > Duration::from_secs(20) {
            break (status, v);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(status, 422, "{v}");
    assert_eq!(
        (&v["state"], &v["error"]),
        (&json!("failed"), &json!("interrupted"))
    );
    let (status, v) = http(
        &b.addr,
        "POST",
        "/api/cos/tools/call",
        Some(&call("slow-1", "slow-1")),
    )
    .await;
    assert_eq!(
        (status, &v["duplicate"], &v["error"]),
        (422, &json!(true), &json!("interrupted"))
    );
    assert_eq!(hits.lock().unwrap()["harbor=slow-1"], 1, "never run again");
}
