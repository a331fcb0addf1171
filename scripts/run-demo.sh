#!/usr/bin/env bash
# Runs the C demo (build/bin/demo, from `make examples`) against the loopback mock
# API: starts Tests/Support/mock_server.py on a free port, writes
# examples/c/demo.json with that port to a temp file, runs the demo, stops the
# server and exits with the demo's status. No internet needed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

demo=build/bin/demo
if [[ ! -x $demo ]]; then
    echo "run-demo.sh: $demo is not built; run 'make examples' first" >&2
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/netcore-demo.XXXXXX")
server_pid=""
server_in=""

stop_server() {
    # Closing its stdin stops the server (--exit-on-stdin-eof); SIGTERM if it lingers.
    if [[ -n $server_in ]]; then exec {server_in}>&-; server_in=""; fi
    if [[ -n $server_pid ]]; then
        for _ in {1..30}; do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}
trap 'stop_server; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# The coprocess's stdin is a pipe only this script holds: if the script dies,
# even by SIGKILL, the server sees EOF and exits.
coproc MOCK { exec python3 Tests/Support/mock_server.py --exit-on-stdin-eof; }
server_pid=$MOCK_PID
exec {server_in}>&"${MOCK[1]}" {server_out}<&"${MOCK[0]}"
eval "exec ${MOCK[1]}>&- ${MOCK[0]}<&-"

port=""
if read -r -t 15 word port <&"$server_out" && [[ $word == PORT && $port =~ ^[0-9]+$ ]]; then
    exec {server_out}<&-
else
    echo "run-demo.sh: the mock server did not report its port" >&2
    exit 1
fi

config=$tmp/demo.json
sed "s/127\.0\.0\.1:PORT/127.0.0.1:$port/g" examples/c/demo.json >"$config"

status=0
"$demo" "$config" {server_in}>&- || status=$?  # the demo does not inherit the server's stdin
stop_server
exit "$status"
