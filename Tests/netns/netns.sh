#!/usr/bin/env bash
# Tests/netns/netns.sh — the shaping kit (Tests/netns/README.md): a network namespace
# joined to this one by a veth pair, and a bad network on that pair, switched at run
# time. The kernel here has no netem, so:
#   delay, jitter   Tests/netns/relay.py (user space, per direction; netns_relay)
#   loss            iptables' statistic match in the namespace, each direction
#   rate            tc tbf on both ends of the veth pair
#   black hole      iptables DROP of every packet on the pair
#   reset           iptables REJECT --reject-with tcp-reset of every TCP packet in
#
# Sourced by a test:
#   . Tests/netns/netns.sh
#   netns_up chs || exit $?        # 77: skipped, the reason printed; sets NETNS (the name),
#                                  # NETNS_HOST_IP / NETNS_NS_IP (the pair's two ends),
#                                  # NETNS_HOST_IF / NETNS_NS_IF, and owns the EXIT trap
#   netns_at_exit 'rm -rf "$dir"'  # the caller's own cleanup, run by that trap (last added first)
#   netns_exec CMD...              # CMD inside the namespace
#   netns_spawn VAR CMD...         # CMD in the background (in the namespace when VAR
#                                  # ends in _NS), its pid in $VAR, killed on exit
#   netns_relay PORTVAR TARGET_IP:PORT RTT_MS JITTER_MS [relay.py options]
#                                  # the delay relay on 127.0.0.1:<free port> -> TARGET
#   netns_shape loss PCT | rate KBIT|off | blackhole on|off | reset on|off | clear
# As a command (for a driver that switches the link while it runs, and by hand):
#   Tests/netns/netns.sh shape NAME loss 5 | rate 64 | blackhole on | reset off | clear
#   Tests/netns/netns.sh check     "ok", or the reason namespaces cannot be used (exit 77)
#   Tests/netns/netns.sh sweep     removes namespaces of this kit whose run has died
#
# Names: namespace nc<tag><pid> (tag: 1-3 lowercase letters), interfaces <name>h (this
# side) and <name>n (the namespace's), a /30 of 10.213.0.0/16 no interface here has.
# Everything made is removed on exit — success, failure, Ctrl-C — by the EXIT trap;
# a run killed with SIGKILL leaves its namespace to the next netns_up's sweep (by the
# pid in the name: only namespaces whose process is gone are removed).

NETNS_KIT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NETNS=""
NETNS_CLEANUP=()

NETNS_SUDO=()
[ "$(id -u)" -eq 0 ] || NETNS_SUDO=(sudo -n)
netns__sudo() { "${NETNS_SUDO[@]}" "$@"; }

# Prints why the kit cannot run here (nothing when it can).
netns_why_not() {
  command -v ip >/dev/null 2>&1 || { echo "no 'ip' command (iproute2)"; return; }
  command -v tc >/dev/null 2>&1 || { echo "no 'tc' command (iproute2)"; return; }
  if ! command -v iptables >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iptables >/dev/null 2>&1 || true
    fi
    command -v iptables >/dev/null 2>&1 || { echo "iptables is not installed (apt-get install iptables)"; return; }
  fi
  local probe="ncprobe$$" err
  if ! err=$(netns__sudo ip netns add "$probe" 2>&1); then
    echo "cannot create a network namespace (ip netns add: ${err:-failed}; needs root or CAP_SYS_ADMIN)"
    return
  fi
  if ! err=$(netns__sudo ip netns exec "$probe" iptables -w -L INPUT -n 2>&1 >/dev/null); then
    netns__sudo ip netns del "$probe" 2>/dev/null
    echo "iptables does not work in a namespace: $err"
    return
  fi
  netns__sudo ip netns del "$probe" 2>/dev/null
}

# Removes namespaces named by this kit (nc<tag><pid>) whose pid is not running.
netns_sweep() {
  local ns pid
  for ns in $(netns__sudo ip netns list 2>/dev/null | awk '{print $1}'); do
    [[ $ns =~ ^nc[a-z]{1,3}([0-9]+)$ ]] || continue
    pid=${BASH_REMATCH[1]}
    kill -0 "$pid" 2>/dev/null && continue
    netns__sudo ip netns del "$ns" 2>/dev/null && echo "netns: removed $ns (its run, pid $pid, is gone)"
    netns__sudo ip link del "${ns}h" 2>/dev/null || true
  done
}

netns_at_exit() { NETNS_CLEANUP+=("$1"); }

netns__on_exit() {
  local rc=$? i
  trap - EXIT
  for ((i = ${#NETNS_CLEANUP[@]} - 1; i >= 0; i--)); do
    eval "${NETNS_CLEANUP[$i]}" >/dev/null 2>&1 || true
  done
  exit "$rc"
}

# Kills one process we started, by its pid, and waits for it.
netns__stop() {
  local pid=$1 i
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

netns__free_net() {
  local i a b
  for ((i = $$ % 16000; i < $$ % 16000 + 256; i++)); do
    a=$(((i / 64) % 250)); b=$(((i % 64) * 4))
    ip -4 -o addr show 2>/dev/null | grep -qF " 10.213.$a.$((b + 1))/" && continue
    echo "10.213.$a.$b"
    return 0
  done
  return 1
}

# netns_up TAG: the namespace, the veth pair, addresses, the iptables chains the
# shaping switches use. Returns 77 with the reason on stdout when it cannot.
netns_up() {
  local tag=${1:-t} why net
  [[ $tag =~ ^[a-z]{1,3}$ ]] || { echo "netns_up: tag must be 1-3 lowercase letters" >&2; return 2; }
  why=$(netns_why_not)
  if [ -n "$why" ]; then echo "skip - $why"; return 77; fi
  netns_sweep
  NETNS="nc$tag$$"
  NETNS_HOST_IF="${NETNS}h"
  NETNS_NS_IF="${NETNS}n"
  net=$(netns__free_net) || { echo "netns_up: no free /30 in 10.213.0.0/16" >&2; return 1; }
  NETNS_HOST_IP="${net%.*}.$((${net##*.} + 1))"
  NETNS_NS_IP="${net%.*}.$((${net##*.} + 2))"
  trap netns__on_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  netns_at_exit "netns__sudo ip link del $NETNS_HOST_IF"
  netns_at_exit "netns__sudo ip netns del $NETNS"
  netns__sudo ip netns add "$NETNS" || return 1
  netns__sudo ip link add "$NETNS_HOST_IF" type veth peer name "$NETNS_NS_IF" || return 1
  netns__sudo ip link set "$NETNS_NS_IF" netns "$NETNS" || return 1
  netns__sudo ip addr add "$NETNS_HOST_IP/30" dev "$NETNS_HOST_IF" || return 1
  netns__sudo ip link set "$NETNS_HOST_IF" up || return 1
  # No segmentation offload: tbf shapes packets of the MTU, not 64 KiB super-packets.
  netns__sudo ip link set "$NETNS_HOST_IF" gso_max_size 1500 2>/dev/null || true
  netns_exec ip addr add "$NETNS_NS_IP/30" dev "$NETNS_NS_IF" || return 1
  netns_exec ip link set lo up || return 1
  netns_exec ip link set "$NETNS_NS_IF" up || return 1
  netns_exec ip link set "$NETNS_NS_IF" gso_max_size 1500 2>/dev/null || true
  local chain hook dir
  # INPUT: NC_RESET, NC_BLOCK, NC_LOSS; OUTPUT: NC_BLOCK, NC_LOSS (a reset answers
  # what comes in; the RST it sends must not meet the rule again on its way out)
  for chain in NC_RESET NC_BLOCK NC_LOSS; do netns_exec iptables -w -N "$chain" || return 1; done
  netns_exec iptables -w -A INPUT -i "$NETNS_NS_IF" -j NC_RESET || return 1
  for hook in INPUT OUTPUT; do
    dir=-i; [ "$hook" = OUTPUT ] && dir=-o
    netns_exec iptables -w -A "$hook" "$dir" "$NETNS_NS_IF" -j NC_BLOCK || return 1
    netns_exec iptables -w -A "$hook" "$dir" "$NETNS_NS_IF" -j NC_LOSS || return 1
  done
  local i
  for i in $(seq 50); do ping -c1 -W1 "$NETNS_NS_IP" >/dev/null 2>&1 && break; sleep 0.1; done
  echo "netns: $NETNS up: this side $NETNS_HOST_IP ($NETNS_HOST_IF), namespace $NETNS_NS_IP ($NETNS_NS_IF)"
}

netns_exec() { netns__sudo ip netns exec "$NETNS" "$@"; }

# netns_spawn VAR CMD...: CMD in the background, its pid in VAR, stopped on exit.
# A VAR ending in _NS runs CMD inside the namespace.
netns_spawn() {
  local var=$1 pid; shift
  # Simple commands, never a function: $! is then CMD's own pid (ip netns exec execs it).
  if [[ $var == *_NS ]]; then "${NETNS_SUDO[@]}" ip netns exec "$NETNS" "$@" & else "$@" & fi
  pid=$!
  printf -v "$var" '%s' "$pid"
  netns_at_exit "netns__stop $pid"
}

# netns_relay PORTVAR TARGET RTT_MS JITTER_MS [options]: starts relay.py on a free
# 127.0.0.1 port in this namespace towards TARGET (ip:port, in the namespace); the
# port in PORTVAR, the pid in ${PORTVAR}_PID.
netns_relay() {
  local var=$1 target=$2 rtt=$3 jitter=$4 out i port=""
  shift 4
  out=$(mktemp)
  netns_at_exit "rm -f $out"
  netns_spawn "${var}_PID" python3 "$NETNS_KIT_DIR/relay.py" --target "$target" --rtt-ms "$rtt" \
    --jitter-ms "$jitter" "$@" >"$out"
  for i in $(seq 100); do
    port=$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$out")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "netns_relay: the relay did not start" >&2; return 1; }
  printf -v "$var" '%s' "$port"
}

# netns_shape WHAT ARG — see the header. Prints nothing; returns non-zero on failure.
netns_shape() {
  local what=$1 arg=${2:-} ns=${NETNS}
  netns__shape "$ns" "$what" "$arg"
}

netns__shape() {
  local ns=$1 what=$2 arg=$3 nsif="${1}n" hostif="${1}h" ipt
  ipt=(netns__sudo ip netns exec "$ns" iptables -w)
  case $what in
    loss)
      "${ipt[@]}" -F NC_LOSS || return 1
      if [ "$arg" != 0 ] && [ "$arg" != off ]; then
        # PCT % of the packets dropped in each direction
        "${ipt[@]}" -A NC_LOSS -m statistic --mode random \
          --probability "$(awk -v p="$arg" 'BEGIN { printf "%.6f", p / 100 }')" -j DROP || return 1
      fi ;;
    rate)
      if [ "$arg" = off ] || [ "$arg" = 0 ]; then
        netns__sudo tc qdisc del dev "$hostif" root 2>/dev/null || true
        netns__sudo ip netns exec "$ns" tc qdisc del dev "$nsif" root 2>/dev/null || true
        return 0
      fi
      # KBIT kbit/s each way; a bucket of 2 packets or 20 ms of the rate; up to 1 s queued
      local burst=$(( arg * 1000 / 8 / 50 )); [ "$burst" -lt 3200 ] && burst=3200
      netns__sudo tc qdisc replace dev "$hostif" root tbf rate "${arg}kbit" burst "$burst" latency 1s || return 1
      netns__sudo ip netns exec "$ns" tc qdisc replace dev "$nsif" root tbf rate "${arg}kbit" burst "$burst" latency 1s || return 1 ;;
    blackhole)
      "${ipt[@]}" -F NC_BLOCK || return 1
      if [ "$arg" = on ]; then "${ipt[@]}" -A NC_BLOCK -j DROP || return 1; fi ;;
    reset)
      "${ipt[@]}" -F NC_RESET || return 1
      if [ "$arg" = on ]; then
        "${ipt[@]}" -A NC_RESET -p tcp -j REJECT --reject-with tcp-reset || return 1
      fi ;;
    clear)
      netns__shape "$ns" loss 0 && netns__shape "$ns" rate off && netns__shape "$ns" blackhole off &&
        netns__shape "$ns" reset off ;;
    *) echo "netns_shape: unknown '$what' (loss PCT | rate KBIT|off | blackhole on|off | reset on|off | clear)" >&2; return 2 ;;
  esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  case ${1:-} in
    shape) shift; [ $# -ge 2 ] || { echo "usage: $0 shape NAME WHAT [ARG]" >&2; exit 2; }
           netns__shape "$1" "$2" "${3:-}" ;;
    check) why=$(netns_why_not); [ -z "$why" ] && echo ok && exit 0; echo "$why"; exit 77 ;;
    sweep) netns_sweep ;;
    *) sed -n '2,30p' "$0"; exit 2 ;;
  esac
fi
