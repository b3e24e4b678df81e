//! Durable state: idempotency records (fingerprint, state, result) and the
//! audit log, behind the [`Store`] trait; [`SqliteStore`] keeps them in one
//! SQLite file (rusqlite, bundled) in WAL mode, the embedded default;
//! [`super::postgres::PostgresStore`] keeps them, and the rate-limit
//! buckets, in a PostgreSQL database that several processes share.
//!
//! Captures the claim that makes a request id execute once (an insert that
//! loses to an existing row returns that row), the result and its audit row
//! written in one transaction, retention by age and count that keeps a
//! tombstone (the fingerprint) so an evicted id answers
//! `TOOL_IDEMPOTENCY_EXPIRED` instead of running again, and recovery: calls
//! left `pending` by a crash become `failed` with reason "interrupted".
//! SQLite assumes one server per database file (the per-root data folder
//! gives that): its recovery fails every pending call at start-up, and its
//! rate limits stay in the process. Leases across processes are
//! PostgreSQL's (`postgres.rs`).

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;
use std::path::Path;
use std::sync::Mutex;

/// The state of a call record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallState {
    /// Running.
    Pending,
    /// Finished with a result.
    Completed,
    /// Finished with an error.
    Failed,
    /// The result was dropped by retention; only the fingerprint remains.
    Expired,
}

impl CallState {
    /// The stored and published word.
    pub fn as_str(self) -> &'static str {
        match self {
            CallState::Pending => "pending",
            CallState::Completed => "completed",
            CallState::Failed => "failed",
            CallState::Expired => "expired",
        }
    }

    pub(crate) fn parse(s: &str) -> CallState {
        match s {
            "pending" => CallState::Pending,
            "completed" => CallState::Completed,
            "expired" => CallState::Expired,
            _ => CallState::Failed,
        }
    }
}

/// One idempotency record.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    /// Namespace of the request id.
    pub principal: String,
    /// The caller's request id.
    pub request_id: String,
    /// Canonical tool name.
    pub name: String,
    /// Tool version.
    pub version: u64,
    /// blake3 of the canonical `{name, arguments, scope}`.
    pub fingerprint: String,
    /// State.
    pub state: CallState,
    /// The adapter's record, when there is one.
    pub result: Option<Value>,
    /// Bounded error text of a failed call.
    pub error: Option<String>,
    /// Machine code of a failed call (`BAD_GATEWAY`, a declared failure code).
    pub code: Option<String>,
    /// HTTP status the call answered with.
    pub status: u16,
    /// Claim time (epoch ms).
    pub created_ms: i64,
    /// Finish time (epoch ms).
    pub finished_ms: Option<i64>,
}

/// One audit row. Arguments are recorded as keys and value types only.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEntry {
    /// Epoch ms.
    pub time_ms: i64,
    /// Principal id.
    pub principal: String,
    /// Tenant from the token.
    pub tenant: Option<String>,
    /// Tool name as resolved (or as asked, when unknown).
    pub tool: String,
    /// Request id.
    pub request_id: String,
    /// `completed`, `failed`, `replayed`, `pending`, or an error code.
    pub outcome: String,
    /// HTTP status answered.
    pub status: u16,
    /// Milliseconds spent.
    pub latency_ms: i64,
    /// `{key: type}` of the arguments.
    pub args_shape: Value,
}

/// What a claim found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// The id was free: the caller runs the tool.
    New,
    /// The id was taken: this is its record.
    Existing(Box<CallRecord>),
}

/// Retention limits.
#[derive(Debug, Clone, Copy)]
pub struct Retention {
    /// Drop results older than this (ms).
    pub max_age_ms: i64,
    /// Keep at most this many results.
    pub max_results: u64,
    /// Drop tombstones older than this (ms).
    pub tombstone_ms: i64,
}

/// What a shared rate-limit bucket answered ([`Store::take_token`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// A token was taken: the call may run.
    Taken,
    /// The bucket is empty; a token is back in this many milliseconds.
    Empty(u64),
}

/// The durable store. Methods block; call them off the async executor.
pub trait Store: Send + Sync {
    /// Insert a pending record unless `(principal, request_id)` exists.
    fn claim(&self, rec: &CallRecord) -> Result<Claim, String>;
    /// Record the final state and its audit row in one transaction.
    fn complete(&self, rec: &CallRecord, audit: &AuditEntry) -> Result<(), String>;
    /// The record of an id.
    fn get(&self, principal: &str, request_id: &str) -> Result<Option<CallRecord>, String>;
    /// Append an audit row on its own (rejected calls, replays).
    fn audit(&self, entry: &AuditEntry) -> Result<(), String>;
    /// Audit rows at or after `since_ms`, oldest first, at most `limit`.
    fn audit_since(&self, since_ms: i64, limit: usize) -> Result<Vec<AuditEntry>, String>;
    /// Apply retention; returns (results expired, tombstones deleted).
    fn prune(&self, now_ms: i64, r: Retention) -> Result<(usize, usize), String>;
    /// Mark calls whose process is gone as failed ("interrupted"): every
    /// pending call for a store one process owns (called at start-up), the
    /// pending calls whose lease ran out for a shared one.
    fn recover(&self, now_ms: i64) -> Result<usize, String>;
    /// Do several processes share this store? Then a pending call may be
    /// running in another process (a duplicate waits for it by polling
    /// [`Store::get`]) and rate limits are taken with [`Store::take_token`];
    /// otherwise the process's own buckets decide.
    fn shared(&self) -> bool {
        false
    }
    /// Take one token from the named bucket (`per_minute` refill, `burst`
    /// capacity). Only called when [`Store::shared`].
    fn take_token(&self, bucket: &str, per_minute: u32, burst: u32) -> Result<Bucket, String> {
        let _ = (bucket, per_minute, burst);
        Ok(Bucket::Taken)
    }
    /// Is the store reachable?
    fn ping(&self) -> Result<(), String>;
    /// Where it lives, for the start-up banner.
    fn location(&self) -> String;
}

/// SQLite implementation.
pub struct SqliteStore {
    conn: Mutex<Connection>,
    location: String,
}

fn err(e: rusqlite::Error) -> String {
    format!("store: {e}")
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS calls (
  principal TEXT NOT NULL,
  request_id TEXT NOT NULL,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,
  result TEXT,
  error TEXT,
  code TEXT,
  status INTEGER NOT NULL DEFAULT 0,
  created_ms INTEGER NOT NULL,
  finished_ms INTEGER,
  PRIMARY KEY (principal, request_id)
);
CREATE INDEX IF NOT EXISTS calls_created ON calls (created_ms);
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time_ms INTEGER NOT NULL,
  principal TEXT NOT NULL,
  tenant TEXT,
  tool TEXT NOT NULL,
  request_id TEXT NOT NULL,
  outcome TEXT NOT NULL,
  status INTEGER NOT NULL,
  latency_ms INTEGER NOT NULL,
  args_shape TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_time ON audit (time_ms);
";

impl SqliteStore {
    /// Open (creating) the database file; WAL, synchronous=NORMAL (survives
    /// a process crash; FULL would also survive power loss).
    pub fn open(path: &Path) -> Result<SqliteStore, String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create the data folder {}: {e}", dir.display()))?;
        }
        let conn = Connection::open(path)
            .map_err(|e| format!("cannot open the store {}: {e}", path.display()))?;
        SqliteStore::init(conn, path.display().to_string())
    }

    /// A private in-memory database (tests).
    pub fn memory() -> Result<SqliteStore, String> {
        SqliteStore::init(
            Connection::open_in_memory().map_err(err)?,
            ":memory:".into(),
        )
    }

    fn init(conn: Connection, location: String) -> Result<SqliteStore, String> {
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(err)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(err)?;
        conn.execute_batch(SCHEMA).map_err(err)?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
            location,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn row_to_record(r: &rusqlite::Row<'_>) -> rusqlite::Result<CallRecord> {
    let result: Option<String> = r.get(6)?;
    Ok(CallRecord {
        principal: r.get(0)?,
        request_id: r.get(1)?,
        name: r.get(2)?,
        version: r.get::<_, i64>(3)? as u64,
        fingerprint: r.get(4)?,
        state: CallState::parse(&r.get::<_, String>(5)?),
        result: result.and_then(|s| serde_json::from_str(&s).ok()),
        error: r.get(7)?,
        code: r.get(8)?,
        status: r.get::<_, i64>(9)? as u16,
        created_ms: r.get(10)?,
        finished_ms: r.get(11)?,
    })
}

const SELECT: &str = "SELECT principal, request_id, name, version, fingerprint, state, result, error, code, status, created_ms, finished_ms FROM calls";

fn insert_audit(c: &Connection, a: &AuditEntry) -> rusqlite::Result<usize> {
    c.execute(
        "INSERT INTO audit (time_ms, principal, tenant, tool, request_id, outcome, status, latency_ms, args_shape) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            a.time_ms,
            a.principal,
            a.tenant,
            a.tool,
            a.request_id,
            a.outcome,
            a.status,
            a.latency_ms,
            a.args_shape.to_string()
        ],
    )
}

impl Store for SqliteStore {
    fn claim(&self, rec: &CallRecord) -> Result<Claim, String> {
        let c = self.lock();
        let n = c
            .execute(
                "INSERT INTO calls (principal, request_id, name, version, fingerprint, state, status, created_ms) VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 202, ?6) ON CONFLICT DO NOTHING",
                params![rec.principal, rec.request_id, rec.name, rec.version as i64, rec.fingerprint, rec.created_ms],
            )
            .map_err(err)?;
        if n == 1 {
            return Ok(Claim::New);
        }
        let existing = c
            .query_row(
                &format!("{SELECT} WHERE principal = ?1 AND request_id = ?2"),
                params![rec.principal, rec.request_id],
                row_to_record,
            )
            .map_err(err)?;
        Ok(Claim::Existing(Box::new(existing)))
    }

    fn complete(&self, rec: &CallRecord, audit: &AuditEntry) -> Result<(), String> {
        let mut c = self.lock();
        let tx = c.transaction().map_err(err)?;
        tx.execute(
            "UPDATE calls SET state = ?3, result = ?4, error = ?5, code = ?6, status = ?7, finished_ms = ?8 WHERE principal = ?1 AND request_id = ?2",
            params![
                rec.principal,
                rec.request_id,
                rec.state.as_str(),
                rec.result.as_ref().map(|v| v.to_string()),
                rec.error,
                rec.code,
                rec.status,
                rec.finished_ms
            ],
        )
        .map_err(err)?;
        insert_audit(&tx, audit).map_err(err)?;
        tx.commit().map_err(err)
    }

    fn get(&self, principal: &str, request_id: &str) -> Result<Option<CallRecord>, String> {
        self.lock()
            .query_row(
                &format!("{SELECT} WHERE principal = ?1 AND request_id = ?2"),
                params![principal, request_id],
                row_to_record,
            )
            .optional()
            .map_err(err)
    }

    fn audit(&self, entry: &AuditEntry) -> Result<(), String> {
        insert_audit(&self.lock(), entry).map(|_| ()).map_err(err)
    }

    fn audit_since(&self, since_ms: i64, limit: usize) -> Result<Vec<AuditEntry>, String> {
        let c = self.lock();
        let mut st = c
            .prepare("SELECT time_ms, principal, tenant, tool, request_id, outcome, status, latency_ms, args_shape FROM audit WHERE time_ms >= ?1 ORDER BY id LIMIT ?2")
            .map_err(err)?;
        let rows = st
            .query_map(params![since_ms, limit as i64], |r| {
                Ok(AuditEntry {
                    time_ms: r.get(0)?,
                    principal: r.get(1)?,
                    tenant: r.get(2)?,
                    tool: r.get(3)?,
                    request_id: r.get(4)?,
                    outcome: r.get(5)?,
                    status: r.get::<_, i64>(6)? as u16,
                    latency_ms: r.get(7)?,
                    args_shape: serde_json::from_str(&r.get::<_, String>(8)?)
                        .unwrap_or(Value::Null),
                })
            })
            .map_err(err)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(err)
    }

    fn prune(&self, now_ms: i64, r: Retention) -> Result<(usize, usize), String> {
        let mut c = self.lock();
        let tx = c.transaction().map_err(err)?;
        let mut expired = tx
            .execute(
                "UPDATE calls SET state = 'expired', result = NULL, error = NULL WHERE state IN ('completed', 'failed') AND created_ms < ?1",
                params![now_ms - r.max_age_ms],
            )
            .map_err(err)?;
        let kept: i64 = tx
            .query_row(
                "SELECT COUNT(*) FROM calls WHERE state IN ('completed', 'failed')",
                [],
                |row| row.get(0),
            )
            .map_err(err)?;
        let over = kept - r.max_results as i64;
        if over > 0 {
            expired += tx
                .execute(
                    "UPDATE calls SET state = 'expired', result = NULL, error = NULL WHERE rowid IN (SELECT rowid FROM calls WHERE state IN ('completed', 'failed') ORDER BY created_ms, rowid LIMIT ?1)",
                    params![over],
                )
                .map_err(err)?;
        }
        let deleted = tx
            .execute(
                "DELETE FROM calls WHERE state = 'expired' AND created_ms < ?1",
                params![now_ms - r.tombstone_ms],
            )
            .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok((expired, deleted))
    }

    fn recover(&self, now_ms: i64) -> Result<usize, String> {
        self.lock()
            .execute(
                "UPDATE calls SET state = 'failed', error = 'interrupted', code = 'TOOL_INTERRUPTED', status = 422, finished_ms = ?1 WHERE state = 'pending'",
                params![now_ms],
            )
            .map_err(err)
    }

    fn ping(&self) -> Result<(), String> {
        self.lock()
            .query_row("SELECT 1", [], |_| Ok(()))
            .map_err(err)
    }

    fn location(&self) -> String {
        self.location.clone()
    }
}
