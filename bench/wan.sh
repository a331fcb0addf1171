#!/usr/bin/env bash
# bench/wan.sh — `make bench-wan`: libnetcore and its peers over a WAN-shaped link
# (bench/README.md "WAN"; the kit: Tests/netns/README.md).
#
# nginx (Debian nginx-light, TLS 1.3 only, HTTP/2) runs in a network namespace; the
# clients reach it through the shaping kit's delay relay on 127.0.0.1, with the
# profile's loss and rate on the veth pair:
#   80ms  80 ms RTT +- 10 ms (+-5 ms each way), 0.5 % loss each way
#   3g    300 ms RTT, 1.6 Mbit/s, 2 % loss each way
# Workloads, each peer in turn, rounds interleaved:
#   cold1   a new client, one request (what one handshake and one request cost)
#   pre1    (nc) a new client preconnects (nc_client_preconnect) and, once that is
#           done, sends one request: that request's time, and the preconnect's
#   preburst (nc) the same with 30 requests at once
#   burst   a new client, 30 requests at once: time until all are done, and the TLS
#           handshakes and connections nginx saw (its log: $connection,
#           $ssl_session_reused), per burst
#   screens one client, N screens one after another, each 6-12 requests at once (a
#           shared list revalidated, cacheable resources revisited, unique items;
#           bench/c/wan.c): p50/p95 time-to-screen and the requests nginx served
#   session one client, N views of those screens, two in three returning to one of the
#           last five opened (back navigation, tabs); nc reads lists and items
#           cache-then-network: p50/p95 time until a view has something to show for
#           every request, and the requests nginx served
#   steady  one client, 16 in flight: requests/s and CPU µs per request
# Peers: nc (C API), raw-pipewait / raw-nopipewait (libcurl multi, HTTP/2; bench/c/wan.c),
# httpx-h2 (httpx.AsyncClient(http2=True), bench/python/wan_httpx.py).
# Writes bench/results/wan-<profile>-<commit>.jsonl (one line per peer run, with the
# server's counts) and prints a table per profile.
#
# Every round's client is new, in one process: nc's TLS sessions are resumed between
# them (the process-wide session cache), the raw peers share nothing.
# Environment: WAN_PROFILES (default "80ms 3g"), WAN_ROUNDS (bursts per peer run,
# default 5), WAN_N (steady requests, default 1000 for 80ms, 300 for 3g),
# WAN_SCREENS (default 150 for 80ms, 60 for 3g),
# WAN_PEERS (default "nc raw-pipewait raw-nopipewait httpx-h2"),
# WAN_WORKLOADS (default "cold1 burst pre1 preburst screens session steady"),
# WAN_NC_LIB (a directory holding another libnetcore.so.0 for the nc peer, e.g. an
# older build for a before/after figure; the output file is then
# wan-<profile>-<commit>-<WAN_TAG or "lib">.jsonl).
# Needs root (network namespaces); prints the reason and exits 0 when it cannot run.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
PROFILES=${WAN_PROFILES:-80ms 3g}
ROUNDS=${WAN_ROUNDS:-5}
PEERS=${WAN_PEERS:-nc raw-pipewait raw-nopipewait httpx-h2}
WORKLOADS=${WAN_WORKLOADS:-cold1 burst pre1 preburst screens session steady}
NC_LIB=${WAN_NC_LIB:-}
BIN=$ROOT/build/bench/bin
VENV=$ROOT/build/bench-wan-venv
RESULTS=$ROOT/bench/results
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
say() { printf '\n== %s\n' "$*"; }

command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || \
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx-light >/dev/null
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -e build/lib/libnetcore.so.0 ] || make --no-print-directory lib
mkdir -p "$BIN" "$RESULTS"
cc -O2 -std=c11 -Wall -Wextra -Iinclude -o "$BIN/wan" bench/c/wan.c -L"$ROOT/build/lib" \
  -Wl,-rpath,"$ROOT/build/lib" -lnetcore $(pkg-config --cflags --libs libcurl jansson) -lpthread
if [[ " $PEERS " == *" httpx-h2 "* ]]; then
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/python" -c 'import httpx, h2' 2>/dev/null ||
    "$VENV/bin/pip" install -q --disable-pip-version-check 'httpx[http2]'
fi

. Tests/netns/netns.sh
set +e
netns_up wan
rc=$?
set -e
if [ $rc -ne 0 ]; then echo "bench-wan: skipped (the network namespace could not be made)"; exit 0; fi
RUN=$(mktemp -d "${TMPDIR:-/tmp}/netcore-wan.XXXXXX")
netns_at_exit "rm -rf $RUN"

say "certificates, fixtures, nginx in $NETNS"
python3 - "$RUN/certs" <<'PY'
import sys
sys.path.insert(0, "Tests/conformance")
from servers import Certs  # the conformance suite's CA and localhost/127.0.0.1 certificate
Certs(sys.argv[1])
PY
mkdir -p "$RUN/www" "$RUN/tmp"
printf '{"code":0,"msg":"ok","data":{"id":7,"name":"Ada","tags":["a","b"]}}' >"$RUN/www/tiny.json"
mkdir -p "$RUN/www/list" "$RUN/www/res"   # the screens' lists, resources and items (bench/c/wan.c)
python3 - "$RUN/www" <<'PY'
import json, os, sys
www = sys.argv[1]
def env(data): return json.dumps({"code": 0, "msg": "ok", "data": data})
for l in range(4):
    open(os.path.join(www, "list", f"{l}.json"), "w").write(env({"list": l, "items": [{"id": i, "title": f"item {i}"} for i in range(40)]}))
for r in range(24):
    open(os.path.join(www, "res", f"{r}.json"), "w").write(env({"res": r, "text": "x" * 600}))
open(os.path.join(www, "item.json"), "w").write(env({"item": 1, "text": "y" * 300}))
PY
PORT=8443
cat >"$RUN/nginx.conf" <<NGINX
# generated by bench/wan.sh
daemon off;
worker_processes 1;
pid $RUN/nginx.pid;
error_log $RUN/error.log warn;
user root root;
events { worker_connections 4096; }
http {
    log_format wan '\$connection \$ssl_session_reused \$ssl_protocol \$server_protocol \$status';
    access_log $RUN/access.log wan;
    types { application/json json; }
    default_type application/json;
    keepalive_timeout 300s;
    keepalive_requests 100000000;
    client_body_temp_path $RUN/tmp/body;
    proxy_temp_path $RUN/tmp/proxy;
    fastcgi_temp_path $RUN/tmp/fastcgi;
    uwsgi_temp_path $RUN/tmp/uwsgi;
    scgi_temp_path $RUN/tmp/scgi;
    server {
        listen $NETNS_NS_IP:$PORT ssl http2;
        ssl_certificate $RUN/certs/server.pem;
        ssl_certificate_key $RUN/certs/server.key;
        ssl_protocols TLSv1.3;
        # as a production server: a shared session cache (TLS 1.3 resumes by the
        # tickets nginx sends after each handshake, ssl_session_tickets' default)
        ssl_session_cache shared:wan:1m;
        ssl_session_timeout 1h;
        root $RUN/www;
        location / { }
        location /list/ { add_header Cache-Control "no-cache"; }
        location /res/ { add_header Cache-Control "max-age=300"; }
    }
}
NGINX
netns_spawn NGINX_NS "$NGINX" -p "$RUN" -c "$RUN/nginx.conf" -e "$RUN/error.log"
for _ in $(seq 50); do
  curl -sf -o /dev/null --cacert "$RUN/certs/ca.pem" --resolve "localhost:$PORT:$NETNS_NS_IP" \
    "https://localhost:$PORT/tiny.json" && break
  sleep 0.1
done
echo "nginx: $("$NGINX" -v 2>&1) on $NETNS_NS_IP:$PORT (TLS 1.3, HTTP/2)"

# server_counts FROM_LINE: requests, connections, resumed connections, h2 requests since FROM_LINE
server_counts() {
  tail -n +"$(($1 + 1))" "$RUN/access.log" | awk '
    { req++; if (!($1 in seen)) { seen[$1] = 1; conns++; if ($2 == "r") resumed++ } if ($4 == "HTTP/2.0") h2++ }
    END { printf "{\"requests\":%d,\"connections\":%d,\"resumed\":%d,\"h2_requests\":%d}", req, conns, resumed, h2 }'
}

run_peer() { # run_peer PEER WORKLOAD ARGS... -> one JSON line with the server's counts
  local peer=$1 workload=$2 before line counts
  shift 2
  before=$(wc -l <"$RUN/access.log")
  if [ "$peer" = httpx-h2 ]; then
    line=$("$VENV/bin/python" bench/python/wan_httpx.py --workload "$workload" --url "$URL" --ca "$RUN/certs/ca.pem" "$@") || true
  else
    line=$(LD_LIBRARY_PATH=${NC_LIB:+$NC_LIB} "$BIN/wan" --peer "$peer" --workload "$workload" --url "$URL" --ca "$RUN/certs/ca.pem" "$@") || true
  fi
  sleep 0.3 # nginx writes a request's log line when it ends
  counts=$(server_counts "$before")
  [ -n "$line" ] || line="{\"peer\":\"$peer\",\"workload\":\"$workload\",\"errors\":1,\"first_error\":\"no output\"}"
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); r["server"]=json.loads(sys.argv[2]); r["profile"]=sys.argv[3]; print(json.dumps(r))' \
    "$line" "$counts" "$PROFILE"
}

for PROFILE in $PROFILES; do
  case $PROFILE in
    80ms) RTT=80 JIT=5 LOSS=0.5 RATE=off N=${WAN_N:-1000} SCREENS=${WAN_SCREENS:-150} ;;
    3g) RTT=300 JIT=0 LOSS=2 RATE=1600 N=${WAN_N:-300} SCREENS=${WAN_SCREENS:-60} ;;
    *) echo "unknown profile $PROFILE" >&2; exit 2 ;;
  esac
  say "profile $PROFILE: RTT $RTT ms +- $((2 * JIT)) ms, loss $LOSS % each way, rate $RATE kbit/s"
  [ -n "${RELAY_PID:-}" ] && netns__stop "$RELAY_PID"
  netns_relay RELAY "$NETNS_NS_IP:$PORT" "$RTT" "$JIT"
  netns_shape clear
  netns_shape loss "$LOSS"
  netns_shape rate "$RATE"
  URL="https://127.0.0.1:$RELAY/tiny.json"
  OUT=$RESULTS/wan-$PROFILE-$COMMIT${NC_LIB:+-${WAN_TAG:-lib}}.jsonl
  : >"$OUT"
  has() { [[ " $WORKLOADS " == *" $1 "* ]]; }
  if has cold1; then for peer in $PEERS; do run_peer "$peer" cold1 --rounds "$ROUNDS" | tee -a "$OUT"; done; fi
  if has burst; then for peer in $PEERS; do run_peer "$peer" burst -c 30 --rounds "$ROUNDS" | tee -a "$OUT"; done; fi
  # preconnect: libnetcore's (nc_client_preconnect); the others have none
  if has pre1 && [[ " $PEERS " == *" nc "* ]]; then run_peer nc pre1 --rounds "$ROUNDS" | tee -a "$OUT"; fi
  if has preburst && [[ " $PEERS " == *" nc "* ]]; then run_peer nc preburst -c 30 --rounds "$ROUNDS" | tee -a "$OUT"; fi
  if has screens; then
    for peer in $PEERS; do
      [ "$peer" = httpx-h2 ] && continue   # screens: the C peers only
      run_peer "$peer" screens -n "$SCREENS" | tee -a "$OUT"
    done
  fi
  if has session; then
    for peer in $PEERS; do
      [ "$peer" = httpx-h2 ] && continue   # the C peers only
      run_peer "$peer" session -n "$SCREENS" | tee -a "$OUT"
    done
  fi
  if has steady; then for peer in $PEERS; do run_peer "$peer" steady -c 16 -n "$N" | tee -a "$OUT"; done; fi
  python3 bench/wan_report.py "$OUT"
done
