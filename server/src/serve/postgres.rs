//! The PostgreSQL [`Store`]: idempotency records, the audit log and the
//! rate-limit buckets in one database that several `portolan serve`
//! processes share (`[server] store = "postgres://…"`), so they behave as
//! one server.
//!
//! Captures:
//! - the claim: `INSERT … ON CONFLICT DO NOTHING` on `(principal,
//!   request_id)`; the row carries its owner (this process's random id) and
//!   a lease (`lease_until_ms`, database clock) that a heartbeat renews every
//!   third of the lease while the call runs. A pending row whose lease ran
//!   out belongs to a process that died: whoever reads it first
//!   ([`Store::claim`], [`Store::get`], [`Store::recover`]) makes it `failed`
//!   with reason "interrupted", in one conditional `UPDATE`, so it happens
//!   once;
//! - the result and its audit row in one statement (so one transaction), as
//!   in SQLite;
//! - token buckets as rows (`portolan_rate_buckets`), refilled and taken in
//!   one statement, so a principal's limit holds across processes;
//! - a versioned schema (`portolan_schema`), migrated at start-up under an
//!   advisory lock so processes starting together do not race.
//!
//! The store's methods block (the [`Store`] contract); the connections are
//! driven by a small runtime of the store's own, so a method can be called
//! from any thread, inside or outside the server's runtime.
//! Deliberately not done: TLS to the database (`NoTls`; put the database on
//! a private network or a local socket) and `LISTEN`/`NOTIFY` (a duplicate
//! waiting on another process polls the row).

use super::store::{AuditEntry, Bucket, CallRecord, CallState, Claim, Retention, Store};
use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Pool, RecyclingMethod};
use serde_json::Value;
use std::future::Future;
use std::time::Duration;
use tokio_postgres::{NoTls, Row};

/// One schema version per entry, applied in order; never edit one that
/// shipped, append a new one.
const MIGRATIONS: &[&str] = &[
    // 1: calls, audit, rate buckets, the database clock.
    "
CREATE FUNCTION portolan_now_ms() RETURNS BIGINT LANGUAGE sql VOLATILE
  AS $$ SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT $$;
CREATE TABLE portolan_calls (
  principal TEXT NOT NULL,
  request_id TEXT NOT NULL,
  name TEXT NOT NULL,
  version BIGINT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,
  result TEXT,
  error TEXT,
  code TEXT,
  status INTEGER NOT NULL DEFAULT 0,
  created_ms BIGINT NOT NULL,
  finished_ms BIGINT,
  owner TEXT,
  lease_until_ms BIGINT,
  PRIMARY KEY (principal, request_id)
);
CREATE INDEX portolan_calls_created ON portolan_calls (created_ms);
CREATE INDEX portolan_calls_pending ON portolan_calls (lease_until_ms) WHERE state = 'pending';
CREATE TABLE portolan_audit (
  id BIGSERIAL PRIMARY KEY,
  time_ms BIGINT NOT NULL,
  principal TEXT NOT NULL,
  tenant TEXT,
  tool TEXT NOT NULL,
  request_id TEXT NOT NULL,
  outcome TEXT NOT NULL,
  status INTEGER NOT NULL,
  latency_ms BIGINT NOT NULL,
  args_shape TEXT NOT NULL
);
CREATE INDEX portolan_audit_time ON portolan_audit (time_ms);
CREATE TABLE portolan_rate_buckets (
  bucket TEXT PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  updated_ms BIGINT NOT NULL
);
",
];

/// Any key for `pg_advisory_xact_lock`, the same in every process.
const MIGRATION_LOCK: i64 = 0x706f_7274_6f6c;

const SELECT: &str = "SELECT principal, request_id, name, version, fingerprint, state, result, error, code, status, created_ms, finished_ms FROM portolan_calls";

/// A pending call whose lease ran out is failed, once.
const SETTLE: &str = "UPDATE portolan_calls SET state = 'failed', error = 'interrupted', code = 'TOOL_INTERRUPTED', status = 422, finished_ms = $3, owner = NULL WHERE principal = $1 AND request_id = $2 AND state = 'pending' AND lease_until_ms < portolan_now_ms()";

/// The result and its audit row (same request id) in one statement.
const COMPLETE: &str = "WITH done AS (UPDATE portolan_calls SET state = $3, result = $4, error = $5, code = $6, status = $7, finished_ms = $8, owner = NULL WHERE principal = $1 AND request_id = $2 AND state = 'pending' AND owner = $9)
INSERT INTO portolan_audit (time_ms, principal, tenant, tool, request_id, outcome, status, latency_ms, args_shape) VALUES ($10, $11, $12, $13, $2, $14, $15, $16, $17)";

/// Take one token from a bucket refilled at `$2` tokens per ms up to `$3`;
/// no row back means the bucket is empty.
const TAKE_TOKEN: &str = "INSERT INTO portolan_rate_buckets AS b (bucket, tokens, updated_ms) VALUES ($1, $3::FLOAT8 - 1, portolan_now_ms())
ON CONFLICT (bucket) DO UPDATE SET tokens = LEAST($3::FLOAT8, b.tokens + (portolan_now_ms() - b.updated_ms) * $2::FLOAT8) - 1, updated_ms = portolan_now_ms()
WHERE LEAST($3::FLOAT8, b.tokens + (portolan_now_ms() - b.updated_ms) * $2::FLOAT8) >= 1
RETURNING tokens";

/// Milliseconds until an empty bucket holds one token again.
const TOKEN_WAIT: &str = "SELECT CEIL((1 - LEAST($3::FLOAT8, tokens + (portolan_now_ms() - updated_ms) * $2::FLOAT8)) / $2::FLOAT8)::BIGINT FROM portolan_rate_buckets WHERE bucket = $1";

/// PostgreSQL implementation.
pub struct PostgresStore {
    pool: Pool,
    /// Drives the connections; `None` only while dropping.
    runtime: Option<tokio::runtime::Runtime>,
    owner: String,
    lease_ms: i64,
    location: String,
}

/// The error with its causes (tokio-postgres keeps the server's message in
/// the source).
fn err(e: impl std::error::Error) -> String {
    format!("store: {}", causes(&e))
}

fn causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        // Some wrappers already print their cause.
        let said = c.to_string();
        if !text.ends_with(&said) {
            text.push_str(&format!(": {said}"));
        }
        cause = c.source();
    }
    text
}

fn record(r: &Row) -> CallRecord {
    let result: Option<String> = r.get(6);
    CallRecord {
        principal: r.get(0),
        request_id: r.get(1),
        name: r.get(2),
        version: r.get::<_, i64>(3) as u64,
        fingerprint: r.get(4),
        state: CallState::parse(r.get(5)),
        result: result.and_then(|s| serde_json::from_str(&s).ok()),
        error: r.get(7),
        code: r.get(8),
        status: r.get::<_, i32>(9) as u16,
        created_ms: r.get(10),
        finished_ms: r.get(11),
    }
}

/// `host:port/dbname` of a configuration, without user or password.
fn describe(config: &tokio_postgres::Config) -> String {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config
        .get_dbname()
        .or(config.get_user())
        .unwrap_or("postgres");
    format!("{host}:{port}/{db}")
}

/// Parse a `postgres://` or `postgresql://` URL (what `[server] store`
/// accepts); the error says why, never repeating the URL (it may hold a
/// password).
pub fn parse_url(url: &str) -> Result<tokio_postgres::Config, String> {
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err("expected a postgres://user@host:port/database URL".into());
    }
    url.parse::<tokio_postgres::Config>()
        .map_err(|e| format!("not a valid PostgreSQL URL: {e}"))
}

impl PostgresStore {
    /// Connect, migrate the schema and start the lease heartbeat. `lease`
    /// is how long a claim outlives its process's last heartbeat.
    pub fn open(url: &str, lease: Duration) -> Result<PostgresStore, String> {
        let mut config = parse_url(url)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        if config.get_application_name().is_none() {
            config.application_name("portolan serve");
        }
        let place = describe(&config);
        let location = format!("postgres {place}");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("portolan-store")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the store's runtime: {e}"))?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(16)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(10)))
            .create_timeout(Some(Duration::from_secs(10)))
            .build()
            .map_err(|e| format!("cannot create the connection pool: {e}"))?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let owner = blake3::hash(format!("{nanos}:{}", std::process::id()).as_bytes()).to_hex()
            [..16]
            .to_string();
        let store = PostgresStore {
            pool,
            runtime: Some(runtime),
            owner,
            lease_ms: lease.as_millis().max(1) as i64,
            location,
        };
        let pool = store.pool.clone();
        store
            .run(async move { migrate(&pool).await })
            .map_err(|e| format!("cannot use PostgreSQL at {place}: {e}"))?;
        store.heartbeat(lease);
        Ok(store)
    }

    /// Run a future on the store's runtime and wait for it (from any thread:
    /// the caller blocks on a channel, never on a runtime).
    fn run<T: Send + 'static>(
        &self,
        f: impl Future<Output = Result<T, String>> + Send + 'static,
    ) -> Result<T, String> {
        let Some(runtime) = &self.runtime else {
            return Err("store: closed".into());
        };
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        runtime.spawn(async move {
            let _ = tx.send(f.await);
        });
        rx.recv()
            .map_err(|_| "store: the database task stopped".to_string())?
    }

    /// Renew this process's leases every third of the lease.
    fn heartbeat(&self, lease: Duration) {
        let pool = self.pool.clone();
        let owner = self.owner.clone();
        let lease_ms = self.lease_ms;
        let Some(runtime) = &self.runtime else {
            return;
        };
        runtime.spawn(async move {
            let mut tick = tokio::time::interval((lease / 3).max(Duration::from_millis(10)));
            let mut failing = false;
            loop {
                tick.tick().await;
                let renewed = async {
                    let c = pool.get().await.map_err(err)?;
                    c.execute(
                        "UPDATE portolan_calls SET lease_until_ms = portolan_now_ms() + $2 WHERE owner = $1 AND state = 'pending'",
                        &[&owner, &lease_ms],
                    )
                    .await
                    .map_err(err)
                }
                .await;
                match renewed {
                    Err(e) if !failing => {
                        eprintln!("store: cannot renew call leases: {e}");
                        failing = true;
                    }
                    Err(_) => {}
                    Ok(_) => failing = false,
                }
            }
        });
    }
}

impl Drop for PostgresStore {
    fn drop(&mut self) {
        // Dropping a runtime inside another one's task panics; this does not.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

async fn migrate(pool: &Pool) -> Result<(), String> {
    let mut c = pool.get().await.map_err(|e| causes(&e))?;
    let tx = c.transaction().await.map_err(err)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(err)?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS portolan_schema (version INTEGER NOT NULL)")
        .await
        .map_err(err)?;
    let current: i32 = tx
        .query_one("SELECT COALESCE(MAX(version), 0) FROM portolan_schema", &[])
        .await
        .map_err(err)?
        .get(0);
    let known = MIGRATIONS.len() as i32;
    if current > known {
        return Err(format!(
            "the database's schema is version {current}, newer than this portolan's ({known}); upgrade portolan"
        ));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        tx.batch_execute(sql)
            .await
            .map_err(|e| format!("store: migration {}: {e}", i + 1))?;
        tx.execute(
            "INSERT INTO portolan_schema (version) VALUES ($1)",
            &[&(i as i32 + 1)],
        )
        .await
        .map_err(err)?;
    }
    tx.commit().await.map_err(err)
}

async fn settle_and_get(
    c: &deadpool_postgres::Client,
    principal: &str,
    request_id: &str,
) -> Result<Option<CallRecord>, String> {
    let now = super::error::now_ms();
    let settle = c.prepare_cached(SETTLE).await.map_err(err)?;
    c.execute(&settle, &[&principal, &request_id, &now])
        .await
        .map_err(err)?;
    let select = c
        .prepare_cached(&format!(
            "{SELECT} WHERE principal = $1 AND request_id = $2"
        ))
        .await
        .map_err(err)?;
    let row = c
        .query_opt(&select, &[&principal, &request_id])
        .await
        .map_err(err)?;
    Ok(row.as_ref().map(record))
}

async fn insert_audit(c: &impl GenericClient, a: &AuditEntry) -> Result<(), String> {
    let st = c
        .prepare_cached("INSERT INTO portolan_audit (time_ms, principal, tenant, tool, request_id, outcome, status, latency_ms, args_shape) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)")
        .await
        .map_err(err)?;
    c.execute(
        &st,
        &[
            &a.time_ms,
            &a.principal,
            &a.tenant,
            &a.tool,
            &a.request_id,
            &a.outcome,
            &(a.status as i32),
            &a.latency_ms,
            &a.args_shape.to_string(),
        ],
    )
    .await
    .map(|_| ())
    .map_err(err)
}

impl Store for PostgresStore {
    fn claim(&self, rec: &CallRecord) -> Result<Claim, String> {
        let pool = self.pool.clone();
        let rec = rec.clone();
        let owner = self.owner.clone();
        let lease = self.lease_ms;
        self.run(async move {
            let c = pool.get().await.map_err(err)?;
            let st = c
                .prepare_cached("INSERT INTO portolan_calls (principal, request_id, name, version, fingerprint, state, status, created_ms, owner, lease_until_ms) VALUES ($1, $2, $3, $4, $5, 'pending', 202, $6, $7, portolan_now_ms() + $8) ON CONFLICT DO NOTHING")
                .await
                .map_err(err)?;
            let n = c
                .execute(
                    &st,
                    &[
                        &rec.principal,
                        &rec.request_id,
                        &rec.name,
                        &(rec.version as i64),
                        &rec.fingerprint,
                        &rec.created_ms,
                        &owner,
                        &lease,
                    ],
                )
                .await
                .map_err(err)?;
            if n == 1 {
                return Ok(Claim::New);
            }
            match settle_and_get(&c, &rec.principal, &rec.request_id).await? {
                Some(existing) => Ok(Claim::Existing(Box::new(existing))),
                // Pruned between the insert and the read: it is free again.
                None => Err("store: the request id's record vanished during the claim; retry".into()),
            }
        })
    }

    fn complete(&self, rec: &CallRecord, audit: &AuditEntry) -> Result<(), String> {
        let pool = self.pool.clone();
        let rec = rec.clone();
        let a = audit.clone();
        let owner = self.owner.clone();
        self.run(async move {
            let c = pool.get().await.map_err(err)?;
            // One statement, so one transaction and one round trip. The
            // record changes only while it is still this process's claim: a
            // call whose lease ran out was answered "interrupted" to others
            // and stays so (its audit row is written either way).
            let st = c.prepare_cached(COMPLETE).await.map_err(err)?;
            c.execute(
                &st,
                &[
                    &rec.principal,
                    &rec.request_id,
                    &rec.state.as_str(),
                    &rec.result.as_ref().map(|v| v.to_string()),
                    &rec.error,
                    &rec.code,
                    &(rec.status as i32),
                    &rec.finished_ms,
                    &owner,
                    &a.time_ms,
                    &a.principal,
                    &a.tenant,
                    &a.tool,
                    &a.outcome,
                    &(a.status as i32),
                    &a.latency_ms,
                    &a.args_shape.to_string(),
                ],
            )
            .await
            .map(|_| ())
            .map_err(err)
        })
    }

    fn get(&self, principal: &str, request_id: &str) -> Result<Option<CallRecord>, String> {
        let pool = self.pool.clone();
        let (p, i) = (principal.to_string(), request_id.to_string());
        self.run(async move {
            let c = pool.get().await.map_err(err)?;
            settle_and_get(&c, &p, &i).await
        })
    }

    fn audit(&self, entry: &AuditEntry) -> Result<(), String> {
        let pool = self.pool.clone();
        let a = entry.clone();
        self.run(async move {
            let c = pool.get().await.map_err(err)?;
            insert_audit(&c, &a).await
        })
    }

    fn audit_since(&self, since_ms: i64, limit: usize) -> Result<Vec<AuditEntry>, String> {
        let pool = self.pool.clone();
        self.run(async move {
            let c = pool.get().await.map_err(err)?;
            let rows = c
                .query(
                    "SELECT time_ms, principal, tenant, tool, request_id, outcome, status, latency_ms, args_shape FROM portolan_audit WHERE time_ms >= $1 ORDER BY id LIMIT $2",
                    &[&since_ms, &(limit as i64)],
                )
                .await
                .map_err(err)?;
            Ok(rows
                .iter()
                .map(|r| AuditEntry {
                    time_ms: r.get(0),
                    principal: r.get(1),
                    tenant: r.get(2),
                    tool: r.get(3),
                    request_id: r.get(4),
                    outcome: r.get(5),
                    status: r.get::<_, i32>(6) as u16,
                    latency_ms: r.get(7),
                    args_shape: serde_json::from_str(r.get(8)).unwrap_or(Value::Null),
                })
                .collect())
        })
    }

    fn prune(&self, now_ms: i64, r: Retention) -> Result<(usize, usize), String> {
        let pool = self.pool.clone();
        self.run(async move {
            let mut c = pool.get().await.map_err(err)?;
            let tx = c.transaction().await.map_err(err)?;
            let mut expired = tx
                .execute(
                    "UPDATE portolan_calls SET state = 'expired', result = NULL, error = NULL WHERE state IN ('completed', 'failed') AND created_ms < $1",
                    &[&(now_ms - r.max_age_ms)],
                )
                .await
                .map_err(err)?;
            let kept: i64 = tx
                .query_one(
                    "SELECT COUNT(*) FROM portolan_calls WHERE state IN ('completed', 'failed')",
                    &[],
                )
                .await
                .map_err(err)?
                .get(0);
            let over = kept - r.max_results as i64;
            if over > 0 {
                expired += tx
                    .execute(
                        "UPDATE portolan_calls SET state = 'expired', result = NULL, error = NULL WHERE (principal, request_id) IN (SELECT principal, request_id FROM portolan_calls WHERE state IN ('completed', 'failed') ORDER BY created_ms, principal, request_id LIMIT $1)",
                        &[&over],
                    )
                    .await
                    .map_err(err)?;
            }
            let deleted = tx
                .execute(
                    "DELETE FROM portolan_calls WHERE state = 'expired' AND created_ms < $1",
                    &[&(now_ms - r.tombstone_ms)],
                )
                .await
                .map_err(err)?;
            tx.commit().await.map_err(err)?;
            Ok((expired as usize, deleted as usize))
        })
    }

    fn recover(&self, now_ms: i64) -> Result<usize, String> {
        let pool = self.pool.clone();
        self.run(async move {
            let c = pool.get().await.map_err(err)?;
            c.execute(
                "UPDATE portolan_calls SET state = 'failed', error = 'interrupted', code = 'TOOL_INTERRUPTED', status = 422, finished_ms = $1, owner = NULL WHERE state = 'pending' AND lease_until_ms < portolan_now_ms()",
                &[&now_ms],
            )
            .await
            .map(|n| n as usize)
            .map_err(err)
        })
    }

    fn shared(&self) -> bool {
        true
    }

    fn take_token(&self, bucket: &str, per_minute: u32, burst: u32) -> Result<Bucket, String> {
        let pool = self.pool.clone();
        let bucket = bucket.to_string();
        let rate = f64::from(per_minute.max(1)) / 60_000.0;
        let burst = f64::from(burst.max(1));
        self.run(async move {
            let c = pool.get().await.map_err(err)?;
            let st = c.prepare_cached(TAKE_TOKEN).await.map_err(err)?;
            if c.query_opt(&st, &[&bucket, &rate, &burst])
                .await
                .map_err(err)?
                .is_some()
            {
                return Ok(Bucket::Taken);
            }
            let wait: Option<i64> = c
                .query_opt(TOKEN_WAIT, &[&bucket, &rate, &burst])
                .await
                .map_err(err)?
                .map(|r| r.get(0));
            Ok(Bucket::Empty(wait.unwrap_or(1).max(1) as u64))
        })
    }

    fn ping(&self) -> Result<(), String> {
        let pool = self.pool.clone();
        self.run(async move {
            let c = pool.get().await.map_err(err)?;
            c.execute("SELECT 1", &[]).await.map(|_| ()).map_err(err)
        })
    }

    fn location(&self) -> String {
        self.location.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_without_echoing_them() {
        let e = parse_url("mysql://u:hunter2@h/db").unwrap_err();
        assert!(!e.contains("hunter2"), "{e}");
        assert!(parse_url("postgres://u:hunter2@db.example:6543/app").is_ok());
        let c = parse_url("postgresql://u:hunter2@db.example:6543/app").unwrap();
        assert_eq!(describe(&c), "db.example:6543/app");
        assert!(parse_url("postgres://u@h:notaport/db").is_err());
    }

    #[test]
    fn an_unreachable_database_is_an_error_naming_where() {
        // Port 9 on loopback: nothing listens there.
        let e = PostgresStore::open("postgres://u@127.0.0.1:9/app", Duration::from_secs(30))
            .err()
            .expect("no database there");
        assert!(e.contains("127.0.0.1:9/app"), "{e}");
    }
}
