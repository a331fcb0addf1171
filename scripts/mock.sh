#!/usr/bin/env bash
# make mock: runs the bundled mock API (Tests/Support/mock_server.py, Python's standard
# library only) in the foreground on 127.0.0.1:$MOCK_PORT (default 8080, the port the
# README's snippets use; MOCK_PORT=0 picks a free one), prints its URL, logs each
# request on stderr, and stops on Ctrl-C.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
port=${MOCK_PORT:-8080}
coproc MOCK { exec python3 Tests/Support/mock_server.py --port "$port" --verbose; }
pid=$MOCK_PID
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null' EXIT
trap 'exit 0' INT TERM
if read -r -t 15 word actual <&"${MOCK[0]}" && [[ $word == PORT ]]; then
  echo "mock API: http://127.0.0.1:$actual/api   (for example: curl http://127.0.0.1:$actual/api/users/7; Ctrl-C stops it)"
  wait "$pid"
else
  echo "make mock: the mock API did not start on 127.0.0.1:$port (in use? MOCK_PORT=0 picks a free port)" >&2
  exit 1
fi
