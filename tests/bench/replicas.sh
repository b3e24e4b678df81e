#!/usr/bin/env bash
# Load run of two `portolan serve` processes sharing one PostgreSQL store
# (`[server] store = "postgres://…"`), on loopback.
#   bash tests/bench/replicas.sh [SECONDS]
# Needs: a release build (cargo build --release -p portolan), wrk (Debian:
# apt-get install -y wrk; installed here when missing and root), PostgreSQL
# (a throwaway cluster is started through tests/with-postgres unless
# PORTOLAN_TEST_POSTGRES names a server) and its psql.
#
# Two cases, each SECONDS long (default 10), one `wrk -t1 -cCONNS` per process
# at the same time (CONNS default 16):
#   fresh   every call has its own request id (prefixes fresh-a- and fresh-b-): each is
#           claimed, run and recorded with its audit row in PostgreSQL;
#   shared  both wrk runs send the same request ids (shared-1, shared-2, …), so
#           each id reaches both processes: one runs it, the other replays it.
# It prints requests/s (the two processes summed) and p50/p99 per process, then
# compares the audit log with the calls made (the throwaway cluster of
# tests/with-postgres runs with fsync and synchronous_commit off; a database
# that syncs each commit is slower per call): the audit rows of a case must
# equal the calls the servers answered (one row per answer, `completed` or
# `replayed`), and there must be one `completed` row per distinct request id
# (each call ran once). wrk counts only the answers it read before its time
# was up; up to CONNS requests per process still in flight at that moment are
# answered and audited too, so the script reports them and checks the audit
# count against the database's own count of claimed calls.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${PORTOLAN_TEST_POSTGRES:-}" ]; then
  exec bash tests/with-postgres bash "$0" "$@"
fi
SECS=${1:-10}
CONNS=${CONNS:-16}
BIN=${PORTOLAN_BIN:-target/release/portolan}
ROOT=tests/projects/harbor
[ -x "$BIN" ] || cargo build --release -p portolan
if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }; fi
fi
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)"; exit 1; }
PSQL=$(command -v psql || ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -1)
[ -n "$PSQL" ] || { echo "psql is not installed (apt-get install -y postgresql-client)"; exit 1; }

TMP=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT

DB="portolan_bench_$$"
"$PSQL" -q "$PORTOLAN_TEST_POSTGRES" -c "CREATE DATABASE $DB"
URL="${PORTOLAN_TEST_POSTGRES%/*}/$DB"
sql() { "$PSQL" -Atq "$URL" -c "$1"; }

cat > "$TMP/portolan.toml" <<TOML
[server]
store = "$URL"
[server.limits]
read_per_minute = 1000000000
read_burst = 1000000000
TOML
for port in 5581 5582; do
  "$BIN" serve "$ROOT" --config "$TMP/portolan.toml" --listen "127.0.0.1:$port" --data-dir "$TMP/data-$port" >"$TMP/serve-$port.log" 2>&1 &
  PIDS+=($!)
done
for port in 5581 5582; do
  for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break
    sleep 0.2
  done
  curl -sf "http://127.0.0.1:$port/ready" >/dev/null || { cat "$TMP/serve-$port.log"; exit 1; }
done

# wrk prints latencies as 512.00us / 1.20ms / 1.01s: in milliseconds.
ms() { awk '{v=$1; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000}; printf "%.2f", v}' <<<"$1"; }

# case NAME PREFIX-A PREFIX-B LIKE: both wrk runs at once, then the audit check.
case_run() {
  local name=$1 pa=$2 pb=$3 like=$4
  wrk -t1 -c"$CONNS" -d"${SECS}s" --latency -s tests/bench/call-ids.lua http://127.0.0.1:5581 -- "$pa" >"$TMP/$name-a" 2>&1 &
  local wa=$!
  wrk -t1 -c"$CONNS" -d"${SECS}s" --latency -s tests/bench/call-ids.lua http://127.0.0.1:5582 -- "$pb" >"$TMP/$name-b" 2>&1 &
  local wb=$!
  wait "$wa" "$wb"
  sleep 1 # the requests in flight when wrk stopped are answered and audited
  local na nb ra rb errs
  na=$(awk '/requests in/{print $1}' "$TMP/$name-a"); nb=$(awk '/requests in/{print $1}' "$TMP/$name-b")
  ra=$(awk '/Requests\/sec/{print $2}' "$TMP/$name-a"); rb=$(awk '/Requests\/sec/{print $2}' "$TMP/$name-b")
  errs=$(cat "$TMP/$name-a" "$TMP/$name-b" | awk '/Non-2xx or 3xx/{s+=$NF} /Socket errors/{gsub(/,/,""); s+=$4+$6+$8+$10} END {print s+0}')
  local audit completed replayed other distinct claimed
  audit=$(sql "SELECT COUNT(*) FROM portolan_audit WHERE request_id LIKE '$like'")
  completed=$(sql "SELECT COUNT(*) FROM portolan_audit WHERE request_id LIKE '$like' AND outcome = 'completed'")
  replayed=$(sql "SELECT COUNT(*) FROM portolan_audit WHERE request_id LIKE '$like' AND outcome = 'replayed'")
  other=$((audit - completed - replayed))
  distinct=$(sql "SELECT COUNT(DISTINCT request_id) FROM portolan_audit WHERE request_id LIKE '$like' AND outcome = 'completed'")
  claimed=$(sql "SELECT COUNT(*) FROM portolan_calls WHERE request_id LIKE '$like'")
  local answered=$((na + nb))
  printf '%-7s %9.0f req/s  p50 %6s / %6s ms  p99 %7s / %7s ms  errors %s\n' "$name" \
    "$(awk -v a="$ra" -v b="$rb" 'BEGIN {print a + b}')" \
    "$(ms "$(awk '$1=="50%"{print $2}' "$TMP/$name-a")")" "$(ms "$(awk '$1=="50%"{print $2}' "$TMP/$name-b")")" \
    "$(ms "$(awk '$1=="99%"{print $2}' "$TMP/$name-a")")" "$(ms "$(awk '$1=="99%"{print $2}' "$TMP/$name-b")")" "$errs"
  echo "        calls answered to wrk: $answered ($na + $nb; up to $((2 * CONNS)) more were in flight at the stop)"
  echo "        audit rows: $audit ($completed completed, $replayed replayed, $other other); distinct calls claimed: $claimed; completed rows for distinct ids: $distinct"
  local ok=1
  [ "$completed" = "$distinct" ] && [ "$distinct" = "$claimed" ] || { echo "        FAIL: a call ran more than once or was not recorded"; ok=0; }
  [ "$other" = 0 ] || { echo "        FAIL: $other audit rows are neither completed nor replayed"; ok=0; }
  { [ "$audit" -ge "$answered" ] && [ "$audit" -le $((answered + 2 * CONNS)) ]; } || { echo "        FAIL: audit rows do not match the calls made"; ok=0; }
  [ "$errs" = 0 ] || { echo "        FAIL: $errs errors"; ok=0; }
  [ "$ok" = 1 ] && echo "        ok: audit rows = calls made (answered + in flight at the stop: $((audit - answered))); every distinct call ran once"
  [ "$ok" = 1 ]
}

echo "load: two portolan serve processes on one PostgreSQL ($("$PSQL" --version | awk '{print $3}')), wrk -t1 -c$CONNS -d${SECS}s against each at once, $(nproc) cores"
echo "uptime before: $(uptime)"
status=0
case_run fresh fresh-a fresh-b 'fresh-%' || status=1
case_run shared shared shared 'shared-%' || status=1
echo "uptime after:  $(uptime)"
exit $status
