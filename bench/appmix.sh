#!/usr/bin/env bash
# bench/appmix.sh — workload 8, the app-mix benchmark (bench/README.md "Workload 8").
#
# Starts bench/python/appmix_server.py on a free loopback port (pinned to core 0
# when there are two), then runs build/bench/bin/appmix for raw libcurl and for
# libnetcore, interleaved, APPMIX_ROUNDS times (default 3), reading the server's
# hit counters after each run. Prints one table (medians) and writes the raw lines
# to build/bench/appmix.jsonl and the table to build/bench/appmix.md.
# `make bench` runs it after the other workloads (w8); alone: `make bench-appmix`
# (builds the binary when missing or older than its source).
#
# Environment: APPMIX_N (requests per run, default 30000), APPMIX_C (screens,
# default 64), APPMIX_ROUNDS (default 3).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
OUT=$ROOT/build/bench
BIN=$OUT/bin
N=${APPMIX_N:-30000}
C=${APPMIX_C:-64}
ROUNDS=${APPMIX_ROUNDS:-3}
mkdir -p "$BIN"
if [ ! -x "$BIN/appmix" ] || [ bench/c/appmix.c -nt "$BIN/appmix" ] || [ build/lib/libnetcore.so.0 -nt "$BIN/appmix" ]; then
  [ -e build/lib/libnetcore.so.0 ] || make --no-print-directory lib
  cc -O2 -std=c11 -Wall -Wextra -Iinclude -o "$BIN/appmix" bench/c/appmix.c \
     -L"$ROOT/build/lib" -Wl,-rpath,"$ROOT/build/lib" -lnetcore $(pkg-config --cflags --libs libcurl jansson) -lpthread
fi
if [ "$(nproc)" -ge 2 ]; then SERVER_PIN=(taskset -c 0); CLIENT_PIN=(taskset -c 1); else SERVER_PIN=(); CLIENT_PIN=(); fi
RUNDIR=$(mktemp -d "${TMPDIR:-/tmp}/netcore-appmix.XXXXXX")
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && { kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; }
  rm -rf "$RUNDIR"
}
trap cleanup EXIT
"${SERVER_PIN[@]}" python3 bench/python/appmix_server.py --max-seconds 3600 > "$RUNDIR/server.out" &
SERVER_PID=$!
PORT=""
for _ in $(seq 100); do
  PORT=$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$RUNDIR/server.out")
  [ -n "$PORT" ] && break
  sleep 0.1
done
[ -n "$PORT" ] || { echo "appmix server did not start" >&2; exit 1; }
BASE=http://127.0.0.1:$PORT
JSONL=$OUT/appmix.jsonl
: > "$JSONL"
echo "app-mix: $N requests per run, $C screens, $ROUNDS rounds; server $BASE"
for round in $(seq "$ROUNDS"); do
  for peer in raw nc; do
    curl -sf -o /dev/null "$BASE/_reset"
    line=$("${CLIENT_PIN[@]}" "$BIN/appmix" --peer "$peer" --base "$BASE" -n "$N" -c "$C") || {
      echo "appmix --peer $peer failed: $line" >&2
      exit 1
    }
    stats=$(curl -sf "$BASE/_stats")
    python3 -c 'import json,sys; r=json.loads(sys.argv[1]); r["server"]=json.loads(sys.argv[2]); r["round"]=int(sys.argv[3]); print(json.dumps(r))' \
      "$line" "$stats" "$round" | tee -a "$JSONL"
  done
done
python3 - "$JSONL" "$OUT/appmix.md" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def med(peer, f):
    return statistics.median(f(r) for r in rows if r["peer"] == peer)
out = ["| peer | requests/s | server hits per 1,000 requests | lists | cacheable (304s) | unique |",
       "|---|---:|---:|---:|---:|---:|"]
for peer in ("raw-curl", "nc-capi"):
    sub = [r for r in rows if r["peer"] == peer]
    s = sub[len(sub) // 2]["server"]
    out.append(f"| {peer} | {med(peer, lambda r: r['rps']):,.0f} | "
               f"{med(peer, lambda r: 1000 * r['server']['total'] / r['done']):,.0f} | "
               f"{s['list']} | {s['res']} ({s['res_304']}) | {s['item']} |")
speed = statistics.median(n["rps"] / r["rps"] for r, n in zip([x for x in rows if x["peer"] == "raw-curl"],
                                                              [x for x in rows if x["peer"] == "nc-capi"]))
hits = statistics.median(n["server"]["total"] / r["server"]["total"]
                         for r, n in zip([x for x in rows if x["peer"] == "raw-curl"],
                                         [x for x in rows if x["peer"] == "nc-capi"]))
out.append("")
out.append(f"nc-capi / raw-curl: **{speed:.2f}x** the completed requests per second (target >= 1.5x), "
           f"**{hits:.2f}x** the server hits (target < 0.5x); medians of per-round ratios over {len(rows)//2} rounds")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
