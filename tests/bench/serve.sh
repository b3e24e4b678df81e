#!/usr/bin/env bash
# Load run of `portolan serve` on loopback, side by side with a minimal Node
# `http` anchor serving the same catalog.json bytes with an ETag.
#   bash tests/bench/serve.sh [ROOT] [SECONDS] [ROUNDS]
# Needs: a release build (cargo build --release -p portolan), node, taskset, and
# wrk (Debian: apt-get install -y wrk; installed here when missing and root).
#
# Fair on a small machine: the server under test and the anchor are pinned to
# the same one core (SERVER_CPU, default 0) and wrk to another (WRK_CPU, default
# 1), so neither server gets more CPU than the other and the load generator
# does not compete with them. Each round runs every case once, the anchor and
# portolan alternating, so a change in the machine's background load hits both;
# the table gives each case's median over ROUNDS (default 5) and every round's
# figure. `uptime` is printed before and after: other processes on the machine
# still share the cores. Every request goes to 127.0.0.1; each run is bounded
# by SECONDS (default 5).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=${1:-tests/projects/harbor}
SECS=${2:-5}
ROUNDS=${3:-5}
SERVER_CPU=${SERVER_CPU:-0}
WRK_CPU=${WRK_CPU:-1}
CONNS=${CONNS:-32}
BIN=${PORTOLAN_BIN:-target/release/portolan}
[ -x "$BIN" ] || cargo build --release -p portolan
if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }; fi
fi
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)"; exit 1; }
command -v taskset >/dev/null || { echo "taskset is not installed (util-linux)"; exit 1; }

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
taskset -c "$SERVER_CPU" "$BIN" serve "$ROOT" --config "$TMP/portolan.toml" --listen 127.0.0.1:5571 --data-dir "$TMP/data" >"$TMP/serve.log" 2>&1 &
PORTOLAN_PID=$!
PIDS+=($!)
taskset -c "$SERVER_CPU" node tests/bench/node-anchor.mjs "$TMP/docs/catalog.json" 5572 >"$TMP/anchor.log" 2>&1 &
ANCHOR_PID=$!
PIDS+=($!)
for _ in $(seq 300); do
  curl -sf http://127.0.0.1:5571/ready >/dev/null 2>&1 && curl -sf -o /dev/null http://127.0.0.1:5572/ 2>/dev/null && break
  sleep 0.2
done

P=$(curl -sI http://127.0.0.1:5571/api/api-docs/catalog.json | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')
N=$(curl -sI http://127.0.0.1:5572/ | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')

# CPU time a process has used so far, in clock ticks: "user system".
ticks() { awk '{print $14, $15}' "/proc/$1/stat"; }

# run KEY PID wrk-arguments...: one wrk run against the server PID; appends
# "rps p50 p99 errors cpu-us-per-request user-us sys-us" to $TMP/KEY. The
# server's CPU time per request does not depend on how much of the core other
# processes took; its split shows how much of it is the kernel's (loopback TCP:
# the receive, the send and the peer's receive path all run on the sender's
# core), which no server can save.
run() {
  local key=$1 pid=$2; shift 2
  local out t0 t1 n
  t0=$(ticks "$pid")
  out=$(taskset -c "$WRK_CPU" wrk -t1 -c"$CONNS" -d"${SECS}s" --latency "$@" 2>&1)
  t1=$(ticks "$pid")
  n=$(awk '/requests in/{print $1}' <<<"$out")
  local rps p50 p99 errs non2
  rps=$(awk '/Requests\/sec/{print $2}' <<<"$out")
  p50=$(awk '$1=="50%"{print $2}' <<<"$out")
  p99=$(awk '$1=="99%"{print $2}' <<<"$out")
  errs=$(awk '/Socket errors/{gsub(/,/,""); print $4+$6+$8+$10}' <<<"$out")
  non2=$(awk '/Non-2xx or 3xx/{print $NF}' <<<"$out")
  local us
  us=$(awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" -v n="${n:-0}" 'BEGIN {
    split(a, x, " "); split(b, y, " "); u = y[1] - x[1]; s = y[2] - x[2]
    if (n > 0) printf "%.1f %.1f %.1f", (u + s) * 1e6 / hz / n, u * 1e6 / hz / n, s * 1e6 / hz / n; else print "0 0 0"}')
  echo "$rps $p50 $p99 $(( ${non2:-0} + ${errs:-0} )) $us" >>"$TMP/$key"
}

# wrk prints latencies as 512.00us / 1.20ms / 1.01s: in milliseconds.
ms() { awk '{v=$1; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000}; printf "%.2f", v}' <<<"$1"; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo "load: wrk -t1 -c$CONNS -d${SECS}s on 127.0.0.1, $ROUNDS rounds; servers on cpu $SERVER_CPU, wrk on cpu $WRK_CPU ($(nproc) cores); root $ROOT"
echo "uptime before: $(uptime)"
for r in $(seq "$ROUNDS"); do
  # The anchor first in odd rounds, portolan first in even ones.
  if (( r % 2 )); then
    run a304 "$ANCHOR_PID" -H "If-None-Match: $N" http://127.0.0.1:5572/
    run p304 "$PORTOLAN_PID" -H "If-None-Match: $P" http://127.0.0.1:5571/api/api-docs/catalog.json
  else
    run p304 "$PORTOLAN_PID" -H "If-None-Match: $P" http://127.0.0.1:5571/api/api-docs/catalog.json
    run a304 "$ANCHOR_PID" -H "If-None-Match: $N" http://127.0.0.1:5572/
  fi
  run a200 "$ANCHOR_PID" http://127.0.0.1:5572/
  run p200 "$PORTOLAN_PID" -H "Accept-Encoding: gzip" http://127.0.0.1:5571/api/api-docs/catalog.json
  run pcall "$PORTOLAN_PID" -s tests/bench/call.lua http://127.0.0.1:5571
  echo "round $r: 304 anchor $(tail -1 "$TMP/a304" | cut -d' ' -f1) req/s, portolan $(tail -1 "$TMP/p304" | cut -d' ' -f1) req/s"
done
echo "uptime after:  $(uptime)"
echo
printf '%-44s %10s  %8s  %8s  %6s  %10s  %9s  %9s  %s\n' "case (median of $ROUNDS)" "req/s" "p50 ms" "p99 ms" "errors" "CPU us/req" "user us" "kernel us" "req/s per round"
for key in p304 a304 p200 a200 pcall; do
  case $key in
    p304) label="304  portolan catalog.json If-None-Match" ;;
    a304) label="304  node anchor  catalog.json If-None-Match" ;;
    p200) label="200  portolan catalog.json gzip" ;;
    a200) label="200  node anchor  catalog.json (identity)" ;;
    pcall) label="call portolan catalog.search (fresh ids)" ;;
  esac
  rps=$(cut -d' ' -f1 "$TMP/$key" | median)
  p50=$(while read -r _ a _ _; do ms "$a"; echo; done <"$TMP/$key" | median)
  p99=$(while read -r _ _ b _; do ms "$b"; echo; done <"$TMP/$key" | median)
  errs=$(awk '{s+=$4} END {print s}' "$TMP/$key")
  us=$(cut -d' ' -f5 "$TMP/$key" | median)
  user=$(cut -d' ' -f6 "$TMP/$key" | median)
  sys=$(cut -d' ' -f7 "$TMP/$key" | median)
  printf '%-44s %10.0f  %8.2f  %8.2f  %6s  %10.1f  %9.1f  %9.1f  %s\n' "$label" "$rps" "$p50" "$p99" "$errs" "$us" "$user" "$sys" "$(cut -d' ' -f1 "$TMP/$key" | tr '\n' ' ')"
done
ratio=$(awk -v p="$(cut -d' ' -f1 "$TMP/p304" | median)" -v a="$(cut -d' ' -f1 "$TMP/a304" | median)" 'BEGIN {printf "%.2f", p/a}')
echo
cpu=$(awk -v p="$(cut -d' ' -f5 "$TMP/p304" | median)" -v a="$(cut -d' ' -f5 "$TMP/a304" | median)" 'BEGIN {if (p > 0) printf "%.2f", a/p; else print "n/a"}')
echo "304 ratio portolan / anchor (medians): ${ratio}x requests/s, ${cpu}x less server CPU per request (target: at least 3x requests/s, p99 under 5 ms)"
# The ceiling of that ratio: the anchor's CPU per request over portolan's
# kernel time alone, i.e. what a server spending no user time at all on this
# core could reach against the anchor.
bound=$(awk -v a="$(cut -d' ' -f5 "$TMP/a304" | median)" -v k="$(cut -d' ' -f7 "$TMP/p304" | median)" 'BEGIN {if (k > 0) printf "%.2f", a/k; else print "n/a"}')
echo "304 ceiling with zero user time in portolan (anchor CPU / portolan kernel CPU per request): ${bound}x"
