#!/usr/bin/env bash
# The allocation-failure sweep (`make alloc-fail`, docs/RELIABILITY.md): counts the
# allocations of one request (Tests/fault/alloc_fail.c census, under
# Tests/fault/failmalloc.c), then fails each one in turn in a process of its own
# and sorts the outcomes by where the failed call came from.
#   ALLOC_FAIL_MAX=N   sweep at most the first N allocations (default: all)
# Prints one line per allocation and a summary; exits non-zero when a failure of a
# C-side allocation (libcurl, jansson, libc, libnetcore's C shim) crashed or gave a
# wrong answer. Swift-runtime allocations (swift_slowAlloc) cannot fail without
# the runtime aborting the process: they are counted and listed, not failed on
# purpose twice.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source Tests/fault/servers.sh

LIB=build/lib/libnetcore.so.0
gcc -shared -fPIC -O2 -o "$tmp/failmalloc.so" Tests/fault/failmalloc.c || exit 1
gcc -std=c99 -Wall -Wextra -Werror -Iinclude -g -o "$tmp/alloc_fail" Tests/fault/alloc_fail.c \
    -L build/lib "-Wl,-rpath,$PWD/build/lib" -lnetcore -ljansson -ldl || exit 1
start mock python3 Tests/Support/mock_server.py || exit 1
base=http://127.0.0.1:$(awk '{print $2; exit}' "$tmp/mock.out")/api
run() { LD_PRELOAD=$tmp/failmalloc.so timeout 30 "$tmp/alloc_fail" "$base" "$@" </dev/null 2>/dev/null; }

run census >"$tmp/census" || { echo "census failed"; exit 1; }
calls=$(awk '/^calls/ {print $2}' "$tmp/census")
max=${ALLOC_FAIL_MAX:-$calls}
((max > calls)) && max=$calls

# What each libnetcore call site is: addr2line on the offsets (the library keeps
# its debug information).
declare -A fn
while read -r off; do
    name=$(addr2line -f -e "$LIB" "$(printf '0x%x' $((off - 1)))" | head -n 1)
    fn[$off]=$name
done < <(awk '$1 == "site" && $3 ~ /^libnetcore/ { sub(/.*\+/, "", $3); print $3 }' "$tmp/census" | sort -u)
origin() { # origin OBJECT+OFFSET
    local obj=${1%%+*} off=${1##*+}
    case $obj in
    libnetcore.so*)
        case ${fn[$off]:-?} in
        swift_slowAlloc | swift_* | _swift*) echo "swift-runtime" ;;
        nc* | grow | write_out) echo "libnetcore-c (${fn[$off]})" ;;
        *) echo "libnetcore-swift (${fn[$off]:-?})" ;;
        esac
        ;;
    *) echo "$obj" ;;
    esac
}

echo "one request: $calls allocations on the sending thread; sweeping 1..$max"
declare -A total clean crashed wrong
bad=0
for ((n = 1; n <= max; n++)); do
    site=$(awk -v n="$n" '$1 == "site" && $2 == n { print $3 }' "$tmp/census")
    o=$(origin "$site")
    line=$(run fail "$n")
    rc=$?
    total[$o]=$((${total[$o]:-0} + 1))
    if ((rc == 0)); then
        clean[$o]=$((${clean[$o]:-0} + 1))
    elif [[ $line == *crash* || $rc -ge 124 ]]; then
        crashed[$o]=$((${crashed[$o]:-0} + 1))
        [[ $o == swift-runtime ]] || bad=1
    else
        wrong[$o]=$((${wrong[$o]:-0} + 1))
        bad=1
    fi
    printf '%4d %-40s rc=%-3d %s\n' "$n" "$o" "$rc" "${line:-"(no output)"}"
done
echo
echo "| allocations by origin | failed | clean (ok / NC_CLIENT_INTERNAL / NC_ERR_NO_MEMORY) | crash | wrong answer |"
echo "|---|---|---|---|---|"
for o in "${!total[@]}"; do
    echo "| $o | ${total[$o]} | ${clean[$o]:-0} | ${crashed[$o]:-0} | ${wrong[$o]:-0} |"
done | sort
sites=$(awk '$1 == "site" { print $3 }' "$tmp/census" | sort -u | wc -l)
echo "distinct call sites (return addresses) in the request: $sites"
exit $bad
