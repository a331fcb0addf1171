#!/usr/bin/env bash
# The C surface under a tool (make test-ubsan, make valgrind): Tests/C/c_api_test.c
# against the mock server, then the whole fault suite (Tests/fault/run.sh --full) and
# the HTTP/2 one (Tests/fault/h2.sh).
#   NC_LIBDIR   the library to link (default build/lib)
#   NC_CC, NC_CFLAGS   the compiler and extra flags (e.g. clang -fsanitize=undefined)
#   NC_WRAPPER  a command prefixed to each test program (e.g. valgrind …)
# Exits non-zero if either fails.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source Tests/fault/servers.sh

LIBDIR=${NC_LIBDIR:-build/lib}
status=0
if ! ${NC_CC:-gcc} -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -g ${NC_CFLAGS:-} -o "$tmp/c_api_test" \
    Tests/C/c_api_test.c -L "$LIBDIR" "-Wl,-rpath,$PWD/$LIBDIR" -lnetcore -ljansson -pthread; then
    echo "FAIL - c_api_test.c does not compile"
    exit 1
fi
start mock python3 Tests/Support/mock_server.py || exit 1
port=$(awk '{print $2; exit}' "$tmp/mock.out")
echo "=== c_api_test ${NC_WRAPPER:+under ${NC_WRAPPER%% *}}"
${NC_WRAPPER:-} "$tmp/c_api_test" "http://127.0.0.1:$port/api" </dev/null | tail -n 30
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
echo "=== fault suite ${NC_WRAPPER:+under ${NC_WRAPPER%% *}}"
Tests/fault/run.sh --full | grep -v '^ok '
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
echo "=== HTTP/2 fault suite ${NC_WRAPPER:+under ${NC_WRAPPER%% *}}"
H2_WAIT_S=${FAULT_WAIT_S:-30} Tests/fault/h2.sh | grep -v '^ok '
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
exit $status
