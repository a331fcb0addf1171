#!/usr/bin/env bash
# Tests/chaos/run.sh — requests through the C API over a bad network (docs/RELIABILITY.md
# "Chaos"): the mock server in a network namespace (Tests/netns), reached through the
# delay relay (300 ms +- 100 ms RTT) at 5 % loss each way; Tests/chaos/chaos.c sends a
# fixed mix and switches a black hole and 64 kbit/s on and off while it runs (the 64 kbit/s
# part: while 20 requests are sent, about 20 s; longer would only wait on bytes).
#
#   Tests/chaos/run.sh            the short form (100 requests, a 17 s black hole; part of
#                                 `make test`, under a minute)
#   Tests/chaos/run.sh --full     `make chaos`: 2,000 requests, a 20 s black hole
# CHAOS_N, CHAOS_WINDOW, CHAOS_BLACKHOLE_S override. Exit: 0 pass, 1 fail, 77 skipped
# (namespaces not allowed here: the reason printed). The figures are the last line (JSON).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
n=100 bh=17 window=16
if [[ ${1:-} == --full ]]; then n=2000 bh=20 window=24; fi
n=${CHAOS_N:-$n} bh=${CHAOS_BLACKHOLE_S:-$bh} window=${CHAOS_WINDOW:-$window}
LIBDIR=${NC_LIBDIR:-build/lib}
[[ -e $LIBDIR/libnetcore.so ]] || { echo "FAIL - $LIBDIR/libnetcore.so missing: run 'make lib' first"; exit 1; }

. Tests/netns/netns.sh
netns_up chs || exit $?
tmp=$(mktemp -d)
netns_at_exit "rm -rf $tmp"
${NC_CC:-gcc} -std=c11 -O2 -g -Wall -Wextra -Werror -Iinclude -o "$tmp/chaos" Tests/chaos/chaos.c \
  -L "$LIBDIR" "-Wl,-rpath,$PWD/$LIBDIR" -lnetcore -ljansson -pthread || exit 1

netns_spawn MOCK_NS python3 Tests/Support/mock_server.py --host "$NETNS_NS_IP" >"$tmp/mock.out"
for _ in $(seq 100); do grep -q '^PORT ' "$tmp/mock.out" && break; sleep 0.1; done
port=$(awk '/^PORT /{ print $2 }' "$tmp/mock.out")
[[ -n $port ]] || { echo "FAIL - the mock server did not start in the namespace"; exit 1; }
netns_relay RELAY "$NETNS_NS_IP:$port" 300 100 --stats "$tmp/relay.json"
netns_shape loss 5
head -c 49152 /dev/urandom >"$tmp/upload.bin"
sha=$(sha256sum "$tmp/upload.bin" | cut -d' ' -f1)
mkdir -p "$tmp/files"
echo "chaos: $n requests, window $window, 300 ms +- 100 ms RTT, 5 % loss, a ${bh} s black hole, 64 kbit/s while 20 are sent"
"$tmp/chaos" --base "http://127.0.0.1:$RELAY/api" --direct "http://$NETNS_NS_IP:$port/api" \
  --shape "$PWD/Tests/netns/netns.sh shape $NETNS" --dir "$tmp/files" -n "$n" --window "$window" \
  --blackhole-s "$bh" --upload "$tmp/upload.bin" --upload-sha "$sha"
rc=$?
# The relay rewrites its figures as each connection ends, which is after the client's
# close has crossed it (half the RTT): up to 3 s for the last one.
for _ in $(seq 30); do grep -q '"open": 0' "$tmp/relay.json" 2>/dev/null && ! grep -q '"accepted": 0' "$tmp/relay.json" && break; sleep 0.1; done
echo "relay: $(cat "$tmp/relay.json" 2>/dev/null)"
[[ $rc -eq 0 ]] && echo "chaos: passed" || echo "chaos: FAILED"
exit $rc
