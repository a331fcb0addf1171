#!/usr/bin/env bash
# bench/corun.sh — CPU per request of two C peers run at the same time on one core:
# a ratio this VM's noise does not move.
#
#   bench/corun.sh URL "PEER_A ARGS" "PEER_B ARGS" [ROUNDS]
#   bench/corun.sh http://127.0.0.1:8080/tiny.json "raw_curl --workload conc -c 16" \
#                  "nc_capi --workload conc -c 16"
#
# Throughput pairs run one after the other swing 0.5-1.5x from round to round here
# (bench/RESULTS.md): the machine's speed changes between the two runs. Run at once
# on the same core, both peers see the same speed, the scheduler shares the core
# between them, and each one's CPU time per request (getrusage, as every peer
# reports it) is its cost: A against itself gives 0.99-1.00. Where a workload is
# bound by the client's CPU (concurrency 16 and more against nginx), throughput
# follows that cost; at concurrency 1 the server's and the kernel's time join it.
#
# Each round prints cpu A / cpu B (above 1: B costs less, as a throughput ratio
# B ×A reads); the last line is the median. PEERs are binaries of build/bench/bin
# (built by `make bench`); the server is yours (e.g. the nginx bench/run.sh starts,
# pinned to core 0). N requests each (default 150,000, about 6 s a round here);
# CORE (default: the last one) is where both run.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,22p' "$0" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
url=$1 a=$2 b=$3 rounds=${4:-5}
n=${N:-150000}
core=${CORE:-$(($(nproc) - 1))}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # peer-and-args, output file
  local peer=${1%% *} args=
  [ "$peer" != "$1" ] && args=${1#* }
  # shellcheck disable=SC2086  # the peer's arguments are words
  taskset -c "$core" "$ROOT/build/bench/bin/$peer" --url "$url" -n "$n" --warmup 2000 $args >"$2" 2>&1
}
for i in $(seq 1 "$rounds"); do
  run "$a" "$tmp/a.$i" &
  pid=$!
  run "$b" "$tmp/b.$i"
  wait "$pid"
done
python3 - "$tmp" "$rounds" "$a" "$b" <<'EOF'
import json, statistics, sys
tmp, rounds, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def last(path):
    lines = [l for l in open(path) if l.startswith("{")]
    if not lines:
        sys.exit(f"{path}: no result line:\n" + open(path).read())
    return json.loads(lines[-1])
ratios = []
for i in range(1, rounds + 1):
    ra, rb = last(f"{tmp}/a.{i}"), last(f"{tmp}/b.{i}")
    for r in (ra, rb):
        if r.get("errors"):
            sys.exit(f"{r['peer']}: {r['errors']} errors ({r.get('first_error', '')})")
    ratio = ra["cpu_us_per_req"] / rb["cpu_us_per_req"]
    ratios.append(ratio)
    print(f"round {i}: A {ra['cpu_us_per_req']:.2f} us/req, B {rb['cpu_us_per_req']:.2f} us/req, A/B {ratio:.3f}")
print(f"cpu A / cpu B median {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}, "
      f"{rounds} rounds)  A = {a}  B = {b}")
EOF
