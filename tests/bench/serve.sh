#!/usr/bin/env bash
# Load run of `portolan serve` on loopback, side by side with a minimal Node
# `http` anchor serving the same catalog.json bytes with an ETag.
#   bash tests/bench/serve.sh [ROOT] [SECONDS]
# Needs: a release build (cargo build --release -p portolan), node, and wrk
# (Debian: apt-get install -y wrk; installed here when missing and root).
# Every request goes to 127.0.0.1; each run is bounded by SECONDS (default 10).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=${1:-tests/projects/harbor}
SECS=${2:-10}
BIN=target/release/portolan
[ -x "$BIN" ] || cargo build --release -p portolan
if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }; fi
fi
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)"; exit 1; }

TMP=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT

cat > "$TMP/portolan.toml" <<TOML
[server.limits]
read_per_minute = 1000000000
read_burst = 1000000000
TOML
"$BIN" build "$ROOT" --out "$TMP/docs" >/dev/null
"$BIN" serve "$ROOT" --config "$TMP/portolan.toml" --listen 127.0.0.1:5571 --data-dir "$TMP/data" >"$TMP/serve.log" 2>&1 &
PIDS+=($!)
node tests/bench/node-anchor.mjs "$TMP/docs/catalog.json" 5572 >"$TMP/anchor.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do
  curl -sf http://127.0.0.1:5571/ready >/dev/null 2>&1 && curl -sf -o /dev/null http://127.0.0.1:5572/ 2>/dev/null && break
  sleep 0.2
done

P=$(curl -sI http://127.0.0.1:5571/api/api-docs/catalog.json | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')
N=$(curl -sI http://127.0.0.1:5572/ | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')

run() { # label, then wrk arguments
  local label=$1; shift
  local out
  out=$(wrk -t2 -c32 -d"${SECS}s" --latency "$@" 2>&1)
  local rps p50 p99 errs non2
  rps=$(awk '/Requests\/sec/{print $2}' <<<"$out")
  p50=$(awk '$1=="50%"{print $2}' <<<"$out")
  p99=$(awk '$1=="99%"{print $2}' <<<"$out")
  errs=$(awk '/Socket errors/{print $0}' <<<"$out")
  non2=$(awk '/Non-2xx or 3xx/{print $NF}' <<<"$out")
  printf '%-44s %10s req/s  p50 %-9s p99 %-9s errors %s\n' "$label" "$rps" "$p50" "$p99" "${non2:-0}${errs:+ ($errs)}"
}

echo "load: wrk -t2 -c32 -d${SECS}s on 127.0.0.1 ($(nproc) cores), root $ROOT"
run "304  portolan catalog.json If-None-Match" -H "If-None-Match: $P" http://127.0.0.1:5571/api/api-docs/catalog.json
run "304  node anchor  catalog.json If-None-Match" -H "If-None-Match: $N" http://127.0.0.1:5572/
run "200  portolan catalog.json gzip" -H "Accept-Encoding: gzip" http://127.0.0.1:5571/api/api-docs/catalog.json
run "200  node anchor  catalog.json (identity)" http://127.0.0.1:5572/
run "call portolan catalog.search (fresh ids)" -s tests/bench/call.lua http://127.0.0.1:5571
