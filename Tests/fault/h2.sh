#!/usr/bin/env bash
# The HTTP/2 fault suite (docs/RELIABILITY.md#http2-servers-that-misbehave; part of
# `make test`, alone: `make fault-h2`): HTTP/2 servers that misbehave — GOAWAY and
# RST_STREAM with streams in flight, a stalled flow-control window, a SETTINGS
# flood, header blocks over the caps in CONTINUATION frames, a server push,
# SETTINGS_MAX_CONCURRENT_STREAMS 1, a connection that dies with 100 streams in flight.
#
# 1. A venv under build/h2fault with the pinned `h2` package (and what it needs) from
#    PyPI, installed when missing or when the pins change.
# 2. Tests/fault/h2_server.py on free 127.0.0.1 ports (its throwaway self-signed
#    certificate made with openssl), stopped at exit (Tests/fault/servers.sh).
# 3. Tests/fault/h2_driver.c built against build/lib and run: one line per case,
#    "h2 fault: N passed, M failed" last; the exit status is the driver's.
# Extra arguments go to the driver (--only NAME). When h2 cannot be installed or
# openssl is missing, the suite is skipped with the reason (exit 0).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

LIBDIR=${NC_LIBDIR:-build/lib}
[[ -e $LIBDIR/libnetcore.so ]] || { echo "FAIL - $LIBDIR/libnetcore.so missing: run 'make lib' first"; exit 1; }
command -v openssl >/dev/null || { echo "h2 fault: skipped: no openssl to make the server's certificate"; exit 0; }

VENV=build/h2fault/venv
PINS="h2==4.1.0 hpack==4.2.0 hyperframe==6.1.0"
if [[ "$(cat "$VENV/.pins" 2>/dev/null)" != "$PINS" ]]; then
    rm -rf "$VENV"
    if ! python3 -m venv "$VENV" >/dev/null || ! "$VENV/bin/pip" install -q $PINS; then
        echo "h2 fault: skipped: the Python packages $PINS cannot be installed from PyPI"
        exit 0
    fi
    echo "$PINS" >"$VENV/.pins"
fi

source Tests/fault/servers.sh

if ! ${NC_CC:-gcc} -std=c99 -Wall -Wextra -pedantic -Werror -Iinclude -g ${NC_CFLAGS:-} -o "$tmp/h2_driver" \
    Tests/fault/h2_driver.c -L "$LIBDIR" "-Wl,-rpath,$PWD/$LIBDIR" -lnetcore -ljansson -pthread; then
    echo "h2 fault: 0 passed, 1 failed"
    exit 1
fi
start h2 "$VENV/bin/python" Tests/fault/h2_server.py || exit 1
${NC_WRAPPER:-} "$tmp/h2_driver" --server "$tmp/h2.out" "$@" </dev/null
