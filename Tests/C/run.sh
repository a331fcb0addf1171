#!/usr/bin/env bash
# The C test suite (run after `make examples`; `make test-c` does both):
#   1. include/netcore.h compiles as C99 (gcc), C11 (clang, if present) and C++11 (g++)
#   2. the library's exported ABI: exactly the NC_API functions of the header, all
#      versioned NETCORE_0; SONAME libnetcore.so.0; no Swift runtime dependencies
#   3. NC_VERSION_* of the header match the loaded library
#   4. Tests/C/c_api_test.c against the loopback mock server (4a: Tests/C/upload_test.c, uploads)
#   5. every example: the demo (scripts/run-demo.sh), the quick start, endpoints, app_layer, batch, retry,
#      envelopes, cancel, event_loop, download, typed_data; the Swift stories (examples/swift, netcore-examples all)
# Last line: "C: N passed, M failed"; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

LIB=build/lib/libnetcore.so.0
HEADER=include/netcore.h
STRICT=(-Wall -Wextra -pedantic -Werror -Iinclude)

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   - $1"; }
fail() {
    failed=$((failed + 1))
    echo "FAIL - $1"
    if [[ $# -gt 1 && -n $2 ]]; then printf '%s\n' "$2" | sed 's/^/       /'; fi
}
# check NAME COMMAND...: one test, passing when COMMAND exits 0.
check() {
    local name=$1 out
    shift
    if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$out"; fi
}
finish() {
    echo "C: $passed passed, $failed failed"
    [[ $failed -eq 0 ]]
    exit
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/netcore-ctest.XXXXXX")
source Tests/Support/mock-server.sh
trap 'mock_stop; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

for f in "$LIB" build/bin/demo build/bin/quickstart build/bin/endpoints build/bin/app_layer build/bin/batch build/bin/retry \
    build/bin/envelopes build/bin/cancel build/bin/event_loop build/bin/download build/bin/typed_data; do
    if [[ ! -e $f ]]; then
        fail "$f exists" "run 'make examples' first"
        finish
    fi
done

# --- 1. the header compiles everywhere ----------------------------------------

check "header compiles as C99 (gcc)" \
    gcc -std=c99 "${STRICT[@]}" -fsyntax-only Tests/C/header_check.c
if command -v clang >/dev/null; then
    check "header compiles as C11 (clang)" \
        clang -std=c11 "${STRICT[@]}" -fsyntax-only Tests/C/header_check.c
else
    echo "skip - clang not installed: header as C11 (clang)"
fi
check "header compiles as C++11 (g++)" \
    g++ -std=c++11 "${STRICT[@]}" -fsyntax-only -x c++ Tests/C/header_check.c
check "header is self-contained and guarded (included twice)" \
    gcc -std=c99 "${STRICT[@]}" -fsyntax-only -include "$HEADER" -x c - <<<'#include "netcore.h"
int main(void) { return nc_version() == 0; }'

# --- 2. the exported ABI -------------------------------------------------------

# The NC_API function names the header declares (comments and #lines removed).
python3 - "$HEADER" >"$tmp/header.syms" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
text = re.sub(r"//[^\n]*", " ", text)
text = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))
names = re.findall(r"\bNC_API\b[^;{]*?\b([A-Za-z_]\w*)\s*\(", text)
print("\n".join(sorted(set(names))))
EOF
nm -D --defined-only "$LIB" | awk 'NF >= 3 && $2 ~ /^[A-Z]$/ { print $3 }' |
    sed 's/@.*//' | grep -vx 'NETCORE_0' | sort -u >"$tmp/lib.syms"
if [[ ! -s $tmp/header.syms ]]; then
    fail "exported symbols == NC_API functions of the header" "no NC_API declaration parsed"
elif cmp -s "$tmp/header.syms" "$tmp/lib.syms"; then
    pass "exported symbols == the $(wc -l <"$tmp/header.syms") NC_API functions of the header"
else
    fail "exported symbols == NC_API functions of the header" \
        "$(diff "$tmp/header.syms" "$tmp/lib.syms" | grep '^[<>]' |
            sed -e 's/^</declared, not exported:/' -e 's/^>/exported, not declared:/')"
fi

unversioned=$(nm -D --defined-only --with-symbol-versions "$LIB" |
    awk '$2 ~ /^[A-Z]$/ && $3 ~ /^nc_/ && $3 !~ /@@?NETCORE_0$/ { print $3 }')
count=$(nm -D --defined-only --with-symbol-versions "$LIB" | grep -c ' nc_[A-Za-z0-9_]*@@\?NETCORE_0$')
if [[ -z $unversioned && $count -gt 0 ]]; then
    pass "every nc_ symbol is versioned NETCORE_0 ($count)"
else
    fail "every nc_ symbol is versioned NETCORE_0" "not versioned NETCORE_0: ${unversioned:-(no nc_ symbols found)}"
fi

dynamic=$(readelf -d "$LIB")
if grep -q 'Library soname: \[libnetcore\.so\.0\]' <<<"$dynamic"; then
    pass "SONAME is libnetcore.so.0"
else
    fail "SONAME is libnetcore.so.0" "$(grep SONAME <<<"$dynamic" || echo 'no SONAME')"
fi
bad_needed=$(grep NEEDED <<<"$dynamic" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime')
if [[ -z $bad_needed ]]; then
    pass "no Swift runtime in NEEDED ($(grep NEEDED <<<"$dynamic" | grep -o '\[[^]]*\]' | tr -d '[]' | paste -sd ' '))"
else
    fail "no Swift runtime in NEEDED" "$bad_needed"
fi

# --- 3. header version == library version --------------------------------------

LINK=(-L build/lib "-Wl,-rpath,$PWD/build/lib" -lnetcore -ljansson -pthread)
if out=$(gcc -std=c99 "${STRICT[@]}" -o "$tmp/version_check" Tests/C/version_check.c "${LINK[@]}" 2>&1); then
    check "NC_VERSION_NUMBER/NC_VERSION_STRING == nc_version_number()/nc_version()" \
        "$tmp/version_check"
else
    fail "version_check.c compiles" "$out"
fi

# --- 4. the C API test against the mock server ---------------------------------

if mock_start; then
    port=$mock_port
    base=http://127.0.0.1:$port/api
    pass "mock server listening on port $port"
else
    fail "mock server starts" "no 'PORT <n>' line"
    finish
fi

if out=$(gcc -std=c99 "${STRICT[@]}" -g -o "$tmp/c_api_test" Tests/C/c_api_test.c "${LINK[@]}" 2>&1); then
    out=$(timeout 60 "$tmp/c_api_test" "$base" 2>&1 {server_in}>&-)
    rc=$?
    summary=$(tail -n 1 <<<"$out")
    if [[ $summary =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        # every check of c_api_test counts as one test of this suite
        passed=$((passed + BASH_REMATCH[1]))
        failed=$((failed + BASH_REMATCH[2]))
    fi
    if [[ $rc -eq 0 && $summary =~ \ 0\ failed$ ]]; then
        pass "c_api_test: $summary"
    else
        fail "c_api_test (exit $rc): ${summary:-no summary}" "$(grep -v '^nc_client_free with' <<<"$out" | tail -n 40)"
    fi
else
    fail "c_api_test.c compiles" "$out"
fi

# --- 4a. uploads: body files and multipart (docs/uploads.md) ---------------------

if out=$(gcc -std=c99 "${STRICT[@]}" -g -o "$tmp/upload_test" Tests/C/upload_test.c "${LINK[@]}" 2>&1); then
    out=$(timeout 120 "$tmp/upload_test" "$base" 2>&1 {server_in}>&-)
    rc=$?
    summary=$(tail -n 1 <<<"$out")
    if [[ $summary =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        passed=$((passed + BASH_REMATCH[1]))
        failed=$((failed + BASH_REMATCH[2]))
    fi
    if [[ $rc -eq 0 && $summary =~ \ 0\ failed$ ]]; then
        pass "upload_test: $summary"
        grep '^upload of ' <<<"$out" || true
    else
        fail "upload_test (exit $rc): ${summary:-no summary}" "$(tail -n 40 <<<"$out")"
    fi
else
    fail "upload_test.c compiles" "$out"
fi

# --- 4b. reachability without a route: a network namespace ----------------------

if ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
    echo "skip - unshare or ip not installed: reachability in a namespace without routes"
elif ! unshare -rn true 2>/dev/null; then
    echo "skip - 'unshare -rn' refused (unprivileged user namespaces not allowed): reachability in a namespace without routes"
elif out=$(gcc -std=c99 "${STRICT[@]}" -g -o "$tmp/reach_netns_test" Tests/C/reach_netns_test.c "${LINK[@]}" 2>&1); then
    out=$(unshare -rn Tests/C/reach_netns.sh "$tmp/reach_netns_test" 2>&1 {server_in}>&-)
    rc=$?
    summary=$(tail -n 1 <<<"$out")
    if [[ $summary =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        passed=$((passed + BASH_REMATCH[1]))
        failed=$((failed + BASH_REMATCH[2]))
    fi
    if [[ ($rc -eq 0 || $rc -eq 77) && $summary =~ \ 0\ failed$ ]]; then
        pass "reach_netns_test (AUTO without a route: UNREACHABLE before DNS, loopback reached, waits for a route): $summary"
        grep '^skip - ' <<<"$out" || true
    else
        fail "reach_netns_test (exit $rc): ${summary:-no summary}" "$(tail -n 40 <<<"$out")"
    fi
else
    fail "reach_netns_test.c compiles" "$out"
fi

# --- 5. the examples ------------------------------------------------------------

if out=$(timeout 60 build/bin/quickstart "$base" 2>&1 {server_in}>&-) &&
    grep -qxF 'data: {"id":7,"name":"Ada"}' <<<"$out"; then
    pass "examples: quickstart prints the data"
else
    fail "examples: quickstart (exit $?)" "$out"
fi
if out=$(build/bin/quickstart http://127.0.0.1:1/api 2>&1); then
    fail "examples: quickstart exits 1 when the server is unreachable" "$out"
else
    pass "examples: quickstart exits $? with \"${out%%$'\n'*}\" when the server is unreachable"
fi
if out=$(timeout 60 build/bin/endpoints "$base" 2>&1 {server_in}>&-) &&
    grep -qxF 'token: tok-ada' <<<"$out" &&
    grep -qxF 'user 7: {"id":7,"name":"Ada"}' <<<"$out" &&
    grep -qxF 'user 99: business error 404001: no such user: 99' <<<"$out" &&
    grep -qxF 'login: business error 1001: wrong username or password' <<<"$out"; then
    pass "examples: endpoints (UserManager on the endpoint catalog)"
else
    fail "examples: endpoints (exit $?)" "$out"
fi
if out=$(timeout 60 build/bin/app_layer "$base" 2>&1 {server_in}>&-) &&
    [ "$(grep -c '^\[auth\] session expired: please log in again$' <<<"$out")" = 2 ] &&
    grep -qxF 'user.profile: {"name":"ada","email":"ada@example.com","vip":true}' <<<"$out" &&
    grep -qxF 'user.get: {"id":7,"name":"Ada"}' <<<"$out" &&
    grep -qxF '[toast] no such user: 99' <<<"$out" &&
    ! grep -qF '[toast] no such user: 42' <<<"$out" &&
    grep -qxF 'screen: no such user: 42 (handled here)' <<<"$out" &&
    [ "$(grep -c '^\[toast\] token expired, please log in again$' <<<"$out")" = 3 ] &&
    grep -qxF 'expiries: 2' <<<"$out"; then
    pass "examples: app_layer (catalog + token + error handler + auth expired, once per expiry)"
else
    fail "examples: app_layer (exit $?)" "$out"
fi
if out=$(timeout 60 build/bin/batch "$base" 2>&1 {server_in}>&-) &&
    grep -qxF '0 /users/7: {"id":7,"name":"Ada"}' <<<"$out" &&
    grep -qxF '1 /users/99: business error 404001: no such user: 99' <<<"$out" &&
    grep -qxF '2 /env/code/ok: {"id":7,"name":"Ada"}' <<<"$out" &&
    grep -qxF '0 /slow?ms=5000: cancelled' <<<"$out" &&
    grep -qxF '2 /slow?ms=4000: cancelled' <<<"$out" &&
    [ "$(grep -c '^1 /users/99: business error 404001' <<<"$out")" = 2 ]; then
    pass "examples: batch (settle in order, fail-fast cancels the rest)"
else
    fail "examples: batch (exit $?)" "$out"
fi
expected_retry='GET /flaky
  retry in 50 ms: HTTP 503
  retry in 100 ms: HTTP 503
  => 200 after 3 attempt(s)
POST /flaky
  => NCHTTPErrorDomain 503 after 1 attempt(s)
POST /flaky
  retry in 50 ms: HTTP 503
  => 200 after 2 attempt(s)
GET /flaky
  => NCClientErrorDomain 10 after 1 attempt(s), timeout: deadline'
if out=$(timeout 60 build/bin/retry "$base" 2>&1 {server_in}>&-) && [ "$out" = "$expected_retry" ]; then
    pass "examples: retry (backoff events, POST sent once, Idempotency-Key, deadline)"
else
    fail "examples: retry (exit $?)" "$out"
fi
expected_envelopes='envelope A (code)
  /env/code/ok         ok: {"id":7,"name":"Ada"}
  /env/code/fail       api error 1001: wrong password
envelope B (success flag)
  /env/success/ok      ok: {"id":42}
  /env/success/fail    api error 4003: forbidden [trace trace-fail-1]
envelope C (status)
  /env/status/ok       ok: {"items":[1,2,3]}
  /env/status/fail     api error E42: quota exceeded
raw mode
  /env/code/fail       ok: {"code":1001,"msg":"wrong password","data":{"field":"password"}}'
if out=$(timeout 60 build/bin/envelopes "$base" 2>&1 {server_in}>&-) && [ "$out" = "$expected_envelopes" ]; then
    pass "examples: envelopes (shapes A, B, C and raw mode)"
else
    fail "examples: envelopes (exit $?)" "$out"
fi
if out=$(timeout 60 build/bin/cancel "$base" 2>&1 {server_in}>&-) &&
    grep -qxF 'GET /slow?ms=5000 (task): cancelled' <<<"$out" &&
    [ "$(grep -c '(group screen): cancelled$' <<<"$out")" = 2 ] &&
    grep -qxF 'cancel_group("screen"): 2 request(s)' <<<"$out"; then
    pass "examples: cancel (a task, a group; each callback once)"
else
    fail "examples: cancel (exit $?)" "$out"
fi
if out=$(timeout 60 build/bin/event_loop "$base" 2>&1 </dev/null {server_in}>&-) &&
    grep -qxF '/users/7 -> {"id":7,"name":"Ada"}' <<<"$out" &&
    grep -qxF '/slow?ms=200 -> {"slept_ms":200}' <<<"$out" &&
    grep -qxF 'dispatched: 3/3 done' <<<"$out"; then
    pass "examples: event_loop (poll() on nc_client_fd, dispatch on this thread)"
else
    fail "examples: event_loop (exit $?)" "$out"
fi
if out=$(timeout 60 build/bin/download "$base" "$tmp" 2>&1 {server_in}>&-) &&
    grep -qxF 'size: 1048576 bytes' <<<"$out" &&
    grep -qxF 'size after the 404: -1 bytes' <<<"$out"; then
    pass "examples: download (a 1 MiB body to a file; a 404 leaves no file)"
else
    fail "examples: download (exit $?)" "$out"
fi
expected_typed='user 7: Ada (vip: 0)
mismatch: Could not unpack the data: data.id: Expected string, got integer (format "{s:s}", position 4). (domain NCParseErrorDomain, code 5)'
if out=$(timeout 60 build/bin/typed_data "$base" 2>&1 {server_in}>&-) && [ "$out" = "$expected_typed" ]; then
    pass "examples: typed_data (nc_response_data_unpack: a user, then a mismatch naming data.id)"
else
    fail "examples: typed_data (exit $?)" "$out"
fi
# The Swift stories: one executable (examples/swift), built incrementally here.
if out=$(swift build -q --product netcore-examples 2>&1) &&
    out=$(timeout 120 "$(swift build --show-bin-path)/netcore-examples" all "$base" "$tmp" 2>&1 {server_in}>&-) &&
    [ "$(grep -c '^== ' <<<"$out")" = 7 ] &&
    grep -qxF '  api error 4003: forbidden [trace trace-fail-1]' <<<"$out" &&
    grep -qxF 'user 99: business error 404001: no such user: 99' <<<"$out"; then
    pass "examples: swift (quickstart, envelopes, cancel, event-loop, download, endpoints, retry)"
else
    fail "examples: swift (exit $?)" "$out"
fi
mock_stop

if out=$(timeout 90 scripts/run-demo.sh 2>&1); then
    pass "examples: demo (scripts/run-demo.sh) exits 0"
else
    fail "examples: demo (scripts/run-demo.sh) exits $?" "$out"
fi

finish
