//! The store contract, run against SQLite and PostgreSQL alike: claims,
//! results with their audit rows, retention with tombstones; then what only
//! a shared store does: claims raced from two stores, leases that outlive a
//! stopped process, rate-limit buckets, migrations run twice.

use crate::util::postgres_database;
use portolan::serve::postgres::PostgresStore;
use portolan::serve::store::{
    AuditEntry, Bucket, CallRecord, CallState, Claim, Retention, SqliteStore, Store,
};
use std::time::Duration;

fn rec(id: &str, fp: &str, t: i64) -> CallRecord {
    CallRecord {
        principal: "p".into(),
        request_id: id.into(),
        name: "x".into(),
        version: 1,
        fingerprint: fp.into(),
        state: CallState::Pending,
        result: None,
        error: None,
        code: None,
        status: 202,
        created_ms: t,
        finished_ms: None,
    }
}

fn audit(id: &str) -> AuditEntry {
    AuditEntry {
        time_ms: 1,
        principal: "p".into(),
        tenant: None,
        tool: "x".into(),
        request_id: id.into(),
        outcome: "completed".into(),
        status: 200,
        latency_ms: 0,
        args_shape: serde_json::json!({"q": "string"}),
    }
}

fn complete(s: &dyn Store, id: &str, t: i64) {
    let mut done = rec(id, "f", t);
    done.state = CallState::Completed;
    done.result = Some(serde_json::json!({"ok": id}));
    done.status = 200;
    done.finished_ms = Some(t + 1);
    s.complete(&done, &audit(id)).unwrap();
}

/// What every store does.
fn claim_complete_and_prune(s: &dyn Store) {
    assert_eq!(s.claim(&rec("a", "f", 1)).unwrap(), Claim::New);
    let Claim::Existing(r) = s.claim(&rec("a", "g", 2)).unwrap() else {
        panic!("a second claim of one id finds the first")
    };
    assert_eq!((r.fingerprint.as_str(), r.state), ("f", CallState::Pending));
    complete(s, "a", 1);
    let a = s.get("p", "a").unwrap().unwrap();
    assert_eq!(
        (a.state, a.result, a.status, a.finished_ms),
        (
            CallState::Completed,
            Some(serde_json::json!({"ok": "a"})),
            200,
            Some(2)
        )
    );
    assert!(s.get("p", "nothing").unwrap().is_none());
    assert!(s.get("other principal", "a").unwrap().is_none());
    let rows = s.audit_since(0, 10).unwrap();
    assert_eq!(rows, vec![audit("a")]);
    assert!(s.audit_since(2, 10).unwrap().is_empty());
    s.claim(&rec("b", "f", 5)).unwrap();
    complete(s, "b", 5);
    // Count retention keeps one result: a (older) expires, its fingerprint stays.
    let r = Retention {
        max_age_ms: 1000,
        max_results: 1,
        tombstone_ms: 1000,
    };
    assert_eq!(s.prune(10, r).unwrap(), (1, 0));
    let a = s.get("p", "a").unwrap().unwrap();
    assert_eq!(
        (a.state, a.result.clone(), a.fingerprint.as_str()),
        (CallState::Expired, None, "f")
    );
    // Much later every result ages out and the tombstones go.
    assert_eq!(s.prune(10_000, r).unwrap(), (1, 2));
    assert!(s.get("p", "a").unwrap().is_none());
    s.ping().unwrap();
}

#[test]
fn sqlite_claims_completes_and_prunes() {
    claim_complete_and_prune(&SqliteStore::memory().unwrap());
}

#[test]
fn postgres_claims_completes_and_prunes() {
    let Some(url) = postgres_database("postgres_claims_completes_and_prunes") else {
        return;
    };
    let s = PostgresStore::open(&url, Duration::from_secs(30)).unwrap();
    assert!(s.shared());
    assert!(
        s.location().starts_with("postgres 127.0.0.1:"),
        "{}",
        s.location()
    );
    assert!(!s.location().contains("portolan@"), "{}", s.location());
    claim_complete_and_prune(&s);
}

#[test]
fn sqlite_recovery_fails_every_pending_call() {
    let s = SqliteStore::memory().unwrap();
    s.claim(&rec("b", "f", 5)).unwrap();
    assert_eq!(s.recover(9).unwrap(), 1);
    let b = s.get("p", "b").unwrap().unwrap();
    assert_eq!(
        (b.state, b.error.as_deref(), b.status),
        (CallState::Failed, Some("interrupted"), 422)
    );
}

#[test]
fn postgres_claims_outlive_their_process_by_the_lease_only() {
    let Some(url) = postgres_database("postgres_claims_outlive_their_process") else {
        return;
    };
    let lease = Duration::from_millis(300);
    let alive = PostgresStore::open(&url, lease).unwrap();
    let dying = PostgresStore::open(&url, lease).unwrap();
    alive.claim(&rec("running", "f", 1)).unwrap();
    dying.claim(&rec("orphan", "f", 1)).unwrap();
    drop(dying); // its heartbeat stops, as when the process is killed
    std::thread::sleep(lease * 3);
    // The live process's claim is renewed; a start-up recovery leaves it alone.
    let other = PostgresStore::open(&url, lease).unwrap();
    assert_eq!(other.recover(9).unwrap(), 1);
    assert_eq!(
        other.get("p", "running").unwrap().unwrap().state,
        CallState::Pending
    );
    let o = other.get("p", "orphan").unwrap().unwrap();
    assert_eq!(
        (o.state, o.error.as_deref(), o.code.as_deref(), o.status),
        (
            CallState::Failed,
            Some("interrupted"),
            Some("TOOL_INTERRUPTED"),
            422
        )
    );
    // A claim of an id whose owner died also finds it interrupted (no rerun).
    let third = PostgresStore::open(&url, lease).unwrap();
    third.claim(&rec("orphan2", "f", 1)).unwrap();
    drop(third);
    std::thread::sleep(lease * 3);
    let Claim::Existing(r) = alive.claim(&rec("orphan2", "f", 2)).unwrap() else {
        panic!("the id stays taken")
    };
    assert_eq!(r.state, CallState::Failed);
    // The live owner still completes its call.
    complete(&alive, "running", 1);
    assert_eq!(
        alive.get("p", "running").unwrap().unwrap().state,
        CallState::Completed
    );
}

#[test]
fn postgres_concurrent_claims_from_two_stores_let_one_win() {
    let Some(url) = postgres_database("postgres_concurrent_claims") else {
        return;
    };
    let a = std::sync::Arc::new(PostgresStore::open(&url, Duration::from_secs(30)).unwrap());
    let b = std::sync::Arc::new(PostgresStore::open(&url, Duration::from_secs(30)).unwrap());
    let threads: Vec<_> = (0..40)
        .map(|i| {
            let s = if i % 2 == 0 { a.clone() } else { b.clone() };
            std::thread::spawn(move || {
                (0..20)
                    .filter(|n| s.claim(&rec(&format!("id-{n}"), "f", 1)).unwrap() == Claim::New)
                    .count()
            })
        })
        .collect();
    let won: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(won, 20, "each of the 20 ids is claimed exactly once");
}

#[test]
fn postgres_rate_buckets_are_shared_and_refill() {
    let Some(url) = postgres_database("postgres_rate_buckets") else {
        return;
    };
    let a = PostgresStore::open(&url, Duration::from_secs(30)).unwrap();
    let b = PostgresStore::open(&url, Duration::from_secs(30)).unwrap();
    // 6 a minute = one per 10 s, burst 2: two from either store, then empty.
    assert_eq!(a.take_token("read:p", 6, 2).unwrap(), Bucket::Taken);
    assert_eq!(b.take_token("read:p", 6, 2).unwrap(), Bucket::Taken);
    let Bucket::Empty(ms) = a.take_token("read:p", 6, 2).unwrap() else {
        panic!("the shared bucket is empty")
    };
    assert!((1..=10_000).contains(&ms), "{ms}");
    // Another principal has its own bucket.
    assert_eq!(b.take_token("read:q", 6, 2).unwrap(), Bucket::Taken);
    // 600 a minute, burst 1: a token is back after 100 ms.
    assert_eq!(a.take_token("write:p", 600, 1).unwrap(), Bucket::Taken);
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!(b.take_token("write:p", 600, 1).unwrap(), Bucket::Taken);
}

#[test]
fn postgres_schema_is_migrated_once_by_processes_starting_together() {
    let Some(url) = postgres_database("postgres_schema_migrated_once") else {
        return;
    };
    let opened: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || {
                PostgresStore::open(&url, Duration::from_secs(30)).map(|_| ())
            })
        })
        .collect();
    for t in opened {
        t.join().unwrap().unwrap();
    }
    let rows = crate::util::postgres_rows(&url, "SELECT version FROM portolan_schema");
    assert_eq!(rows, vec![vec![Some("1".to_string())]]);
}

#[test]
fn a_bad_store_url_is_a_settings_error_naming_the_key() {
    let e = portolan::serve::settings::ServerSettings::from_toml(
        Some(toml::from_str("store = \"mysql://u:hunter2@h/db\"").unwrap()),
        &|_| None,
    )
    .unwrap_err();
    assert!(e.starts_with("[server] store: "), "{e}");
    assert!(!e.contains("hunter2"), "{e}");
    let e = portolan::serve::settings::ServerSettings::from_toml(None, &|k| {
        (k == "PORTOLAN_STORE").then(|| "postgres://h:port/db".to_string())
    })
    .unwrap_err();
    assert!(
        e.starts_with("[server] store (from PORTOLAN_STORE): "),
        "{e}"
    );
}
