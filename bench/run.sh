#!/usr/bin/env bash
# bench/run.sh — `make bench`: the libnetcore benchmark (issue #3, bench/README.md).
#
# Installs what it needs (nginx-light, curl, valgrind, libcurl/OpenSSL headers for
# pycurl and raw_curl's signing, a Python venv under build/bench-venv), builds
# libnetcore in release mode (`make lib`), the C peers and the Swift peers, writes
# the fixtures under build/bench/www, starts nginx and the slow-route server on
# 127.0.0.1 (pinned to core 0 when there are two), runs every workload with every
# peer (pinned to core 1), stops the servers, prints one table and writes it to
# build/bench/latest.{json,md} (quick mode: latest-quick.*); a complete full run also
# keeps its raw result lines as bench/results/run-YYYYMMDD-HHMM.jsonl (UTC start),
# from which bench/report.py regenerates its tables (bench/README.md).
#
# Environment:
#   BENCH_QUICK=1        reduced sizes (2,000 requests instead of 50,000, ...) to validate
#   BENCH_ROUNDS=N       run each (workload, peer) N times, interleaved; the median is kept
#                        (full mode runs the short workloads — 1, 2, 3 at 1/100 KB — at
#                        least 3 times: their single runs are noisy)
#   BENCH_WORKLOADS=...  comma list of w1,w2,w3,w4,w5,w6,w7,w8,w9,w10 (default: all; w8 is the
#                        app-mix workload, bench/appmix.sh, with its own server and table)
#   BENCH_PEERS=...      comma list of peer names (default: all; see bench/README.md)
#   BENCH_SKIP_INSTALL=1 do not apt-get / pip install (fail instead when missing)
#   BENCH_NO_BUILD=1     reuse build/lib and build/bench/bin as they are (harness work)
# Traffic goes to 127.0.0.1 only; every loop is bounded in count and time.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
QUICK=${BENCH_QUICK:-0}
OUT=$ROOT/build/bench
WWW=$OUT/www
BIN=$OUT/bin
VENV=$ROOT/build/bench-venv
RESULTS=$ROOT/bench/results
T0=$(date +%s)
RUN_NAME=run-$(date -u -d "@$T0" +%Y%m%d-%H%M)
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
say() { printf '\n== %s\n' "$*"; }

# ---------------------------------------------------------------- system packages
say "system packages"
need=()
NGINX=$(command -v nginx || true)
[ -z "$NGINX" ] && [ -x /usr/sbin/nginx ] && NGINX=/usr/sbin/nginx
[ -z "$NGINX" ] && need+=(nginx-light)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v openssl >/dev/null 2>&1 || need+=(openssl) # workload 10 over TLS: the test CA
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
command -v taskset >/dev/null 2>&1 || need+=(util-linux)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev)
pkg-config --exists jansson 2>/dev/null || need+=(libjansson-dev)
pkg-config --exists openssl libcrypto 2>/dev/null || need+=(libssl-dev) # pycurl; raw_curl (libcrypto)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  2>/dev/null || need+=(python3-dev)                                   # pycurl
if [ ${#need[@]} -gt 0 ]; then
  [ "${BENCH_SKIP_INSTALL:-0}" = 1 ] && { echo "missing: ${need[*]}" >&2; exit 1; }
  echo "installing ${need[*]}"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
echo "nginx: $("$NGINX" -v 2>&1)  curl: $(curl --version | head -1 | cut -d' ' -f1-2)  valgrind: $(valgrind --version)"

# ---------------------------------------------------------------- builds
NOTES=$OUT/notes.txt              # "peer: why it is skipped" lines, for the report
BUILD_NOTES=$OUT/build-notes.txt  # the part of them the builds wrote
mkdir -p "$OUT" "$BIN"
if [ "${BENCH_NO_BUILD:-0}" = 1 ]; then
  say "builds skipped (BENCH_NO_BUILD=1): using build/lib and $BIN as they are"
  [ -e "$BUILD_NOTES" ] || : > "$BUILD_NOTES"
else
  say "libnetcore (make lib, release)"
  make --no-print-directory lib

  say "C peers"
  mkdir -p "$BIN"
  CFLAGS_BENCH="-O2 -std=c11 -Wall -Wextra"
  cc $CFLAGS_BENCH -o "$BIN/raw_curl" bench/c/raw_curl.c $(pkg-config --cflags --libs libcurl jansson libcrypto) -lpthread
  cc $CFLAGS_BENCH -Iinclude -o "$BIN/nc_capi" bench/c/nc_capi.c \
     -L"$ROOT/build/lib" -Wl,-rpath,"$ROOT/build/lib" -lnetcore $(pkg-config --libs jansson) -lpthread
  cc $CFLAGS_BENCH -Iinclude -o "$BIN/appmix" bench/c/appmix.c \
     -L"$ROOT/build/lib" -Wl,-rpath,"$ROOT/build/lib" -lnetcore $(pkg-config --cflags --libs libcurl jansson) -lpthread
  echo "built $BIN/raw_curl $BIN/nc_capi $BIN/appmix"

  say "Swift peers (first build takes minutes)"
  SWIFT_BUILD=(swift build -c release --package-path bench/swift --scratch-path bench/swift/.build)
  # SwiftPM does not always notice a source file added to the repo's package (a path
  # dependency here) and then fails with "cannot find ... in scope": drop the cached
  # build plan so it is made again (about a second; compiled objects are kept).
  rm -f bench/swift/.build/release.yaml
  : > "$BUILD_NOTES"
  if "${SWIFT_BUILD[@]}" --product ahc-peer > "$OUT/swift-ahc-build.log" 2>&1; then
    cp -f "$("${SWIFT_BUILD[@]}" --show-bin-path)/ahc-peer" "$BIN/ahc-peer"
    echo "built $BIN/ahc-peer"
  else
    rm -f "$BIN/ahc-peer"
    tail -20 "$OUT/swift-ahc-build.log"
    echo "ahc: AsyncHTTPClient peer did not build (see build/bench/swift-ahc-build.log)" | tee -a "$BUILD_NOTES"
  fi
  rm -f "$BIN/netcore-peer"
  if grep -rqsE 'func send\(_ [A-Za-z]+: Request\)[^{]*async' Sources/NetCore; then
    if "${SWIFT_BUILD[@]}" --product netcore-peer > "$OUT/swift-netcore-build.log" 2>&1; then
      cp -f "$("${SWIFT_BUILD[@]}" --show-bin-path)/netcore-peer" "$BIN/netcore-peer"
      echo "built $BIN/netcore-peer"
    else
      tail -20 "$OUT/swift-netcore-build.log"
      echo "nc-swift-async: skipped: bench/swift netcore-peer did not build against Sources/NetCore (see build/bench/swift-netcore-build.log)" | tee -a "$BUILD_NOTES"
    fi
  else
    echo "nc-swift-async: skipped: NetClient.send(_:) async does not exist in Sources/NetCore yet" | tee -a "$BUILD_NOTES"
  fi
fi

cp "$BUILD_NOTES" "$NOTES"

say "Python venv ($VENV)"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
if ! "$VENV/bin/python" -c 'import requests, httpx, aiohttp' 2>/dev/null; then
  [ "${BENCH_SKIP_INSTALL:-0}" = 1 ] && { echo "venv packages missing" >&2; exit 1; }
  "$VENV/bin/pip" install -q --disable-pip-version-check requests httpx aiohttp
fi
# pycurl is built from source against the system libcurl (the one raw-curl and
# libnetcore use): PyPI's wheels bundle a libcurl of their own.
SYS_CURL=$(pkg-config --modversion libcurl)
if ! "$VENV/bin/python" -c "import pycurl, sys; sys.exit('libcurl/$SYS_CURL ' not in pycurl.version + ' ')" 2>/dev/null; then
  [ "${BENCH_SKIP_INSTALL:-0}" = 1 ] && { echo "pycurl (against libcurl $SYS_CURL) missing" >&2; exit 1; }
  PYCURL_SSL_LIBRARY=openssl "$VENV/bin/pip" install -q --disable-pip-version-check \
    --no-binary pycurl --force-reinstall --no-deps pycurl
fi
"$VENV/bin/python" -c 'import requests, httpx, aiohttp, pycurl; print("requests", requests.__version__, " httpx", httpx.__version__, " aiohttp", aiohttp.__version__, " ", pycurl.version.split(" OpenSSL")[0])'
if [ -d bindings/python ]; then
  export NETCORE_BINDING_PATH=$ROOT/bindings/python
  export NETCORE_LIBRARY=$ROOT/build/lib/libnetcore.so.0
else
  echo "py-netcore, py-netcore-async: skipped: bindings/python does not exist yet" | tee -a "$NOTES"
fi

say "fixtures ($WWW)"
python3 bench/gen_fixtures.py "$WWW"

# ---------------------------------------------------------------- servers
say "servers"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge 32768 ] || ulimit -n 32768 2>/dev/null || true
echo "open files limit: $(ulimit -n)"
CORES=$(nproc)
if [ "$CORES" -ge 2 ]; then SERVER_PIN=(taskset -c 0); CLIENT_PIN=(taskset -c 1); PINNED=1
else SERVER_PIN=(); CLIENT_PIN=(); PINNED=0; fi
RUNDIR=$(mktemp -d "${TMPDIR:-/tmp}/netcore-bench.XXXXXX")
NGINX_PID=""
SLOW_PID=""
cleanup() {
  local pid
  for pid in $NGINX_PID $SLOW_PID; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$RUNDIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
TLS_PORT=$(free_port)
H2_PORT=$(free_port)
mkdir -p "$RUNDIR/tmp"
# workload 10 over TLS and HTTP/2: the conformance suite's test CA and a certificate for
# 127.0.0.1 (Tests/conformance/servers.py, openssl), served on two more ports
CA_FILE=$RUNDIR/certs/ca.pem
python3 - "$RUNDIR/certs" <<'PY'
import sys
sys.path.insert(0, "Tests/conformance")
from servers import Certs
Certs(sys.argv[1])
PY
cat > "$RUNDIR/nginx.conf" <<NGINX
# generated by bench/run.sh
worker_processes 1;
daemon off;
pid $RUNDIR/nginx.pid;
error_log $RUNDIR/error.log warn;
worker_rlimit_nofile 65536;
events { worker_connections 16384; multi_accept on; }
http {
    access_log off;
    types { application/json json; application/octet-stream bin; }
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 300s;
    keepalive_requests 100000000;
    open_file_cache max=64 inactive=600s;
    client_body_temp_path $RUNDIR/tmp/body;
    proxy_temp_path $RUNDIR/tmp/proxy;
    fastcgi_temp_path $RUNDIR/tmp/fastcgi;
    server {
        listen 127.0.0.1:$PORT backlog=4096;
        root $WWW;
        location / { }
        # cancellation (workload 6): the same files, sent at 1 MB/s so a transfer
        # is still in progress when it is cancelled
        location /drip/ { alias $WWW/; limit_rate 1m; }
    }
    server {
        listen 127.0.0.1:$TLS_PORT ssl backlog=4096;
        listen 127.0.0.1:$H2_PORT ssl http2 backlog=4096;
        ssl_certificate $RUNDIR/certs/server.pem;
        ssl_certificate_key $RUNDIR/certs/server.key;
        ssl_protocols TLSv1.3;
        root $WWW;
        location / { }
    }
}
NGINX
"${SERVER_PIN[@]}" "$NGINX" -p "$RUNDIR" -c "$RUNDIR/nginx.conf" -e "$RUNDIR/error.log" &
NGINX_PID=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/tiny.json" && break; sleep 0.1; done
curl -sf -o /dev/null "http://127.0.0.1:$PORT/tiny.json" || { cat "$RUNDIR/error.log"; echo "nginx did not start" >&2; exit 1; }
curl -sf -o /dev/null --cacert "$CA_FILE" --http2 "https://127.0.0.1:$H2_PORT/tiny.json" ||
  { cat "$RUNDIR/error.log"; echo "nginx does not answer over TLS" >&2; exit 1; }
echo "nginx $NGINX_PID on 127.0.0.1:$PORT, TLS on $TLS_PORT, HTTP/2 on $H2_PORT (root $WWW)"

"${SERVER_PIN[@]}" python3 bench/python/slow_server.py --max-seconds 14400 > "$RUNDIR/slow.out" &
SLOW_PID=$!
SLOW_PORT=""
for _ in $(seq 200); do
  SLOW_PORT=$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$RUNDIR/slow.out")
  [ -n "$SLOW_PORT" ] && break
  sleep 0.1
done
[ -n "$SLOW_PORT" ] || { echo "slow server did not start" >&2; exit 1; }
curl -sf -o /dev/null "http://127.0.0.1:$SLOW_PORT/slow?ms=1" || { echo "slow server does not answer" >&2; exit 1; }
echo "slow server $SLOW_PID on 127.0.0.1:$SLOW_PORT"

# ---------------------------------------------------------------- workloads
say "workloads ($([ "$QUICK" = 1 ] && echo quick || echo full) mode; client pinned: $PINNED)"
RAW_JSONL=$OUT/results.jsonl
WORKLOADS=${BENCH_WORKLOADS:-w1,w2,w3,w4,w5,w6,w7,w8,w9,w10}
DRIVER_WORKLOADS=$(echo "$WORKLOADS" | tr ',' '\n' | grep -vx w8 | paste -sd, -)
[ -n "$DRIVER_WORKLOADS" ] && "${CLIENT_PIN[@]}" "$VENV/bin/python" bench/driver.py \
  --bin "$BIN" --venv "$VENV" --base "http://127.0.0.1:$PORT" --slow "http://127.0.0.1:$SLOW_PORT" \
  --tls "https://127.0.0.1:$TLS_PORT" --h2 "https://127.0.0.1:$H2_PORT" --ca-file "$CA_FILE" \
  --tmp "$RUNDIR/tmp" --out "$RAW_JSONL" --quick "$QUICK" --rounds "${BENCH_ROUNDS:-1}" \
  --workloads "$DRIVER_WORKLOADS" --peers "${BENCH_PEERS:-all}" \
  --notes "$NOTES" --pinned "$PINNED"
if echo "$WORKLOADS" | tr ',' '\n' | grep -qx w8; then
  say "workload 8: app-mix (bench/appmix.sh)"
  APPMIX_N=$([ "$QUICK" = 1 ] && echo 6000 || echo 30000) bench/appmix.sh
fi
[ -n "$DRIVER_WORKLOADS" ] || exit 0

say "report"
# The tables are derived: build/bench/latest.* (a complete full-mode run: every
# workload and peer, the standard bench config), latest-quick.* (a complete quick
# run) or latest-partial.*. Only a complete full run's raw lines are kept in
# bench/results/, under a name of their own, so that runs can be cited and pooled:
# python3 bench/report.py run1.jsonl run2.jsonl (bench/README.md).
if [ -n "${BENCH_WORKLOADS:-}${BENCH_PEERS:-}${BENCH_NC_MAX_CONNECTIONS_PER_HOST:-}" ]; then
  REPORT_NAME=latest-partial
elif [ "$QUICK" = 1 ]; then
  REPORT_NAME=latest-quick
else
  REPORT_NAME=latest
fi
ELAPSED=$(( $(date +%s) - T0 ))
python3 bench/report.py "$RAW_JSONL" --json "$OUT/$REPORT_NAME.json" --md "$OUT/$REPORT_NAME.md" --elapsed "$ELAPSED"
cp "$RAW_JSONL" "$OUT/$REPORT_NAME.jsonl"
echo "wrote $OUT/$REPORT_NAME.json, .md and .jsonl"
if [ "$REPORT_NAME" = latest ]; then
  mkdir -p "$RESULTS"
  cp "$RAW_JSONL" "$RESULTS/$RUN_NAME.jsonl"
  echo "kept the raw lines as bench/results/$RUN_NAME.jsonl (run took $ELAPSED s: report.py --elapsed $ELAPSED)"
fi
echo "total time: $(( $(date +%s) - T0 )) s"
