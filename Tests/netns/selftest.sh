#!/usr/bin/env bash
# Tests/netns/selftest.sh — the shaping kit checks itself (about 15 s): each knob of
# Tests/netns/netns.sh and relay.py changes what curl sees, and switching it off
# restores the link. Bounds are lower bounds on time the kit itself adds (a request
# through a 300 ms relay cannot finish sooner), never a speed of ours.
# Exit: 0 pass, 1 fail, 77 skipped (namespaces not allowed; the reason printed).
set -uo pipefail
cd "$(dirname "$0")/../.."
. Tests/netns/netns.sh
netns_up kit || exit $?
dir=$(mktemp -d)
netns_at_exit "rm -rf $dir"
head -c 32768 /dev/urandom >"$dir/f32k"
echo hello >"$dir/h"
netns_spawn SRV_NS python3 -m http.server --bind "$NETNS_NS_IP" --directory "$dir" 8000 >/dev/null 2>&1
for _ in $(seq 50); do curl -sf -o /dev/null "http://$NETNS_NS_IP:8000/h" && break; sleep 0.1; done
netns_relay RELAY "$NETNS_NS_IP:8000" 300 0 --stats "$dir/relay.json"

failed=0
check() { # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then echo "ok - $name"; else echo "not ok - $name"; failed=1; fi
}
fetch() { # fetch URL MAXTIME -> "rc code seconds"
  local out rc
  out=$(curl -s -o /dev/null --max-time "$2" -w '%{http_code} %{time_total}' "$1"); rc=$?
  echo "$rc $out"
}
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

read -r rc code t < <(fetch "http://$NETNS_NS_IP:8000/h" 5)
check "direct GET through the veth pair: 200 ($rc $code)" test "$rc $code" = "0 200"
read -r rc code t < <(fetch "http://127.0.0.1:$RELAY/h" 5)
check "relay 300 ms: 200, one connect + one request >= 2 RTT ($code in $t s)" \
  bash -c "[ '$rc $code' = '0 200' ] && awk 'BEGIN { exit !($t >= 0.59) }'"

netns_shape blackhole on
read -r rc code t < <(fetch "http://$NETNS_NS_IP:8000/h" 2)
check "black hole: a timeout (curl 28), got $rc" test "$rc" = 28
netns_shape blackhole off
read -r rc code t < <(fetch "http://$NETNS_NS_IP:8000/h" 5)
check "black hole off: 200 again ($rc $code)" test "$rc $code" = "0 200"

netns_shape reset on
read -r rc code t < <(fetch "http://$NETNS_NS_IP:8000/h" 5)
check "reset: connection refused by a RST (curl 7), got $rc" test "$rc" = 7
read -r rc code t < <(fetch "http://127.0.0.1:$RELAY/h" 5)
check "reset through the relay: the client sees a reset (curl 56 or 52), got $rc" \
  bash -c "[ $rc = 56 ] || [ $rc = 52 ]"
netns_shape reset off

netns_shape loss 100
read -r rc code t < <(fetch "http://$NETNS_NS_IP:8000/h" 2)
check "loss 100 %: a timeout (curl 28), got $rc" test "$rc" = 28
drops=$(netns_exec iptables -w -L NC_LOSS -v -n -x | awk '/statistic/ { print $1 }')
check "loss: the statistic rule counted drops ($drops)" test "${drops:-0}" -gt 0
netns_shape loss 0
read -r rc code t < <(fetch "http://$NETNS_NS_IP:8000/h" 5)
check "loss 0: 200 again ($rc $code)" test "$rc $code" = "0 200"

netns_shape rate 64
read -r rc code t < <(fetch "http://$NETNS_NS_IP:8000/f32k" 30)
check "rate 64 kbit/s: 32 KiB takes >= 3 s ($rc $code in $t s)" \
  bash -c "[ '$rc $code' = '0 200' ] && awk 'BEGIN { exit !($t >= 3) }'"
netns_shape clear
read -r rc code t < <(fetch "http://$NETNS_NS_IP:8000/f32k" 5)
check "clear: 32 KiB at full speed again ($rc $code in $t s)" \
  bash -c "[ '$rc $code' = '0 200' ] && awk 'BEGIN { exit !($t < 3) }'"
check "relay stats: 2 connections accepted, 1 reset upstream" \
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(not (s["accepted"] == 2 and s["upstream_failed"] == 1))' "$dir/relay.json"
exit $failed
