#!/usr/bin/env bash
# Run by Tests/C/run.sh inside `unshare -rn` (a network namespace with only a
# loopback interface, down): brings loopback up, starts the mock server on
# 0.0.0.0:<free port> and runs reach_netns_test (its path is $1) against it.
# Exit status: the test's (77: part of it skipped), or 1 if the server did not start.
set -u
test_bin=$1
ip link set lo up || { echo "skip - cannot bring loopback up in the namespace"; exit 77; }
out=$(mktemp)
python3 Tests/Support/mock_server.py --host 0.0.0.0 >"$out" &
pid=$!
for _ in $(seq 150); do grep -q '^PORT ' "$out" && break; sleep 0.1; done
port=$(awk '/^PORT /{ print $2 }' "$out")
if [[ -z $port ]]; then
    kill "$pid" 2>/dev/null
    rm -f "$out"
    echo "the mock server did not start in the namespace"
    exit 1
fi
timeout 60 "$test_bin" "$port"
rc=$?
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
rm -f "$out"
exit $rc
