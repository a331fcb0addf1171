#!/usr/bin/env bash
# The fault-injection suite (docs/RELIABILITY.md): builds
# Tests/fault/fault_driver.c against build/lib, starts two mock servers (the
# second is "another port") and the TLS test server, and runs the table.
#
#   Tests/fault/run.sh            the fast part (part of `make test`)
#   Tests/fault/run.sh --full     `make fault`: every case, async and sync
#   extra arguments go to the driver (--only NAME, --markdown)
#   NC_WRAPPER="valgrind …"       runs the driver under a wrapper (make valgrind)
# Last line: "fault: N passed, M failed"; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

args=()
for a in "$@"; do
    if [[ $a == --full ]]; then args+=(--full --sync); else args+=("$a"); fi
done

source Tests/fault/servers.sh

LIBDIR=${NC_LIBDIR:-build/lib}
LIB=$LIBDIR/libnetcore.so
[[ -e $LIB ]] || { echo "FAIL - $LIB missing: run 'make lib' first"; echo "fault: 0 passed, 1 failed"; exit 1; }
# NC_CC / NC_CFLAGS / NC_LIBDIR: another compiler, flags or library (make test-ubsan).
if ! ${NC_CC:-gcc} -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -g ${NC_CFLAGS:-} -o "$tmp/fault_driver" \
    Tests/fault/fault_driver.c -L "$LIBDIR" "-Wl,-rpath,$PWD/$LIBDIR" -lnetcore -ljansson -pthread; then
    echo "fault: 0 passed, 1 failed"
    exit 1
fi

start mock python3 Tests/Support/mock_server.py || exit 1
start other python3 Tests/Support/mock_server.py || exit 1
tls=()
if command -v openssl >/dev/null && start tls python3 Tests/Support/tls_server.py; then
    tls=(--tls "$tmp/tls.out")
else
    echo "skip - no openssl or TLS server: the TLS cases are skipped"
fi
port=$(awk '{print $2; exit}' "$tmp/mock.out")
other=$(awk '{print $2; exit}' "$tmp/other.out")

# The driver's stdin is not a server's FIFO; its own failures set the exit code.
${NC_WRAPPER:-} "$tmp/fault_driver" --base "http://127.0.0.1:$port/api" --other "http://127.0.0.1:$other/api" \
    "${tls[@]}" "${args[@]}" </dev/null
rc=$?
exit $rc
