//! A store that fails: /ready answers 503 SERVICE_UNAVAILABLE and a call
//! answers 500 INTERNAL_ERROR, both as error envelopes.

use crate::util::*;
use portolan::serve::AppState;
use portolan::serve::store::{AuditEntry, CallRecord, Claim, Retention, SqliteStore, Store};
use serde_json::json;
use std::sync::Arc;

struct Broken(SqliteStore);

impl Store for Broken {
    fn claim(&self, _: &CallRecord) -> Result<Claim, String> {
        Err("store: disk I/O error".into())
    }
    fn complete(&self, r: &CallRecord, a: &AuditEntry) -> Result<(), String> {
        self.0.complete(r, a)
    }
    fn get(&self, p: &str, r: &str) -> Result<Option<CallRecord>, String> {
        self.0.get(p, r)
    }
    fn audit(&self, e: &AuditEntry) -> Result<(), String> {
        self.0.audit(e)
    }
    fn audit_since(&self, s: i64, l: usize) -> Result<Vec<AuditEntry>, String> {
        self.0.audit_since(s, l)
    }
    fn prune(&self, n: i64, r: Retention) -> Result<(usize, usize), String> {
        self.0.prune(n, r)
    }
    fn recover(&self, n: i64) -> Result<usize, String> {
        self.0.recover(n)
    }
    fn ping(&self) -> Result<(), String> {
        Err("store: unreachable".into())
    }
    fn location(&self) -> String {
        "broken".into()
    }
}

#[tokio::test]
async fn a_failing_store_is_503_on_ready_and_500_on_a_call() {
    let s = AppState::new(
        derived(harbor()),
        Default::default(),
        Arc::new(Broken(SqliteStore::memory().unwrap())),
    )
    .unwrap();
    get(&s, "/ready", &[])
        .await
        .assert_error(503, "SERVICE_UNAVAILABLE");
    assert_eq!(get(&s, "/health", &[]).await.status, 200);
    let v = post_json(
        &s,
        "/api/cos/tools/call",
        &json!({"requestId": "z-1", "name": "catalog.search", "arguments": {"query": "x"}}),
        &[],
    )
    .await
    .assert_error(500, "INTERNAL_ERROR");
    assert!(v["error"].as_str().unwrap().contains("disk I/O"), "{v}");
    assert_eq!(s.executions(), 0);
}
