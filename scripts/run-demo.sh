#!/usr/bin/env bash
# Runs the C demo (build/bin/demo, from `make examples`) against the loopback mock
# API: starts Tests/Support/mock_server.py on a free port, writes
# examples/c/demo.json with that port to a temp file, runs the demo, stops the
# server and exits with the demo's status. No internet needed.
# NC_WRAPPER, if set, prefixes the demo's command line (e.g. valgrind).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

demo=build/bin/demo
if [[ ! -x $demo ]]; then
    echo "run-demo.sh: $demo is not built; run 'make examples' first" >&2
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/netcore-demo.XXXXXX")
source Tests/Support/mock-server.sh
trap 'mock_stop; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

if ! mock_start; then
    echo "run-demo.sh: the mock server did not report its port" >&2
    exit 1
fi
port=$mock_port

config=$tmp/demo.json
sed "s/127\.0\.0\.1:PORT/127.0.0.1:$port/g" examples/c/demo.json >"$config"

status=0
${NC_WRAPPER:-} "$demo" "$config" {server_in}>&- || status=$?  # the demo does not inherit the server's stdin
mock_stop
exit "$status"
