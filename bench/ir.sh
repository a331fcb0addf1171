#!/usr/bin/env bash
# bench/ir.sh — instructions per request of one C peer, from two callgrind runs
# (1,000 and 5,000 requests; the difference divided by 4,000 cancels start-up).
# Repeatable on a noisy machine; what `make bench` workload 7 does for sequential
# requests, for any workload the C peers take.
#
#   bench/ir.sh URL PEER [peer args...]
#   bench/ir.sh http://127.0.0.1:8080/tiny.json nc_capi --workload conc -c 16
#   bench/ir.sh http://127.0.0.1:8080/tiny.json raw_curl --workload seq
#
# PEER is a binary of build/bench/bin (built by `make bench`); the server is yours
# (e.g. the nginx that bench/run.sh starts). The two callgrind files stay in
# build/bench/callgrind/ for callgrind_annotate.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
url=$1 peer=$2
shift 2
bin=$ROOT/build/bench/bin/$peer
[ -x "$bin" ] || { echo "no $bin: run make bench first" >&2; exit 1; }
out=$ROOT/build/bench/callgrind
mkdir -p "$out"
count() {
  local n=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$out/$peer.$n.out" "$bin" --url "$url" -n "$n" --warmup 0 "$@" \
    2>&1 >/dev/null | sed -n 's/.*Collected : //p'
}
a=$(count 1000 "$@")
b=$(count 5000 "$@")
echo "$peer $*: $(( (b - a) / 4000 )) instructions/request ($out/$peer.{1000,5000}.out)"
