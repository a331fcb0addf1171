#!/usr/bin/env bash
# The conformance suite (`make conformance`, and part of `make test`): libnetcore
# against real servers — httpbin under gunicorn, nginx (TLS, HTTP/2, static files)
# and tinyproxy, each started on a free 127.0.0.1 port and stopped by the suite —
# compared call by call with requests, httpx and the curl CLI (docs/conformance.md).
#
# 1. The servers from Debian (Tests/conformance/install.sh: nginx-light, tinyproxy).
# 2. A venv under build/conformance with the pinned packages of requirements.txt
#    (httpbin, gunicorn, requests, httpx, h2, pytest) and the netcore package of
#    bindings/python, reinstalled only when they changed (as Tests/python/run.sh does).
# 3. pytest over Tests/conformance, with build/lib/libnetcore.so.0; the servers'
#    configuration, pid files and logs go to a temporary directory, removed at the
#    end, and every server whose pid file is still there is killed, whatever happened.
#
# The table of checks is printed and written to build/conformance/table.md. The last
# line printed is pytest's summary; the exit status is pytest's. When a server
# package cannot be installed, every check is skipped with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/build/conformance
VENV=$OUT/venv
LIB=$ROOT/build/lib/libnetcore.so.0
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

if [ ! -e "$LIB" ]; then
  echo "Tests/conformance/run.sh: $LIB is missing: run 'make lib' first" >&2
  exit 1
fi
mkdir -p "$OUT"
skip=""

# 1. The servers' Debian packages.
if ! Tests/conformance/install.sh 2>"$OUT/install.log"; then
  skip="a server package cannot be installed: $(tail -n 1 "$OUT/install.log")"
fi

# 2. The venv and its pinned packages (reinstalled when requirements.txt changes).
if ! "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
fi
PY=$VENV/bin/python
req=Tests/conformance/requirements.txt
req_stamp=$(sha256sum "$req" | cut -d' ' -f1)
if [ "$(cat "$VENV/.requirements-stamp" 2>/dev/null)" != "$req_stamp" ]; then
  if "$PY" -m pip install -q -r "$req"; then
    echo "$req_stamp" >"$VENV/.requirements-stamp"
  else
    skip="${skip:-the pinned packages of $req cannot be installed from PyPI}"
    "$PY" -c 'import pytest' 2>/dev/null || "$PY" -m pip install -q pytest || {
      echo "conformance: skipped: $skip, nor pytest"
      exit 0
    }
  fi
fi
"$PY" -c 'import setuptools, wheel, sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 61)' \
  2>/dev/null || "$PY" -m pip install -q 'setuptools>=61' wheel

# The netcore package, reinstalled when bindings/python changed; built from a copy so
# the source tree gets no build/ or *.egg-info.
PKG_FILES=(pyproject.toml README.md netcore)
stamp=$(cd bindings/python && find "${PKG_FILES[@]}" -type f ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 \
          | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ "$(cat "$VENV/.netcore-stamp" 2>/dev/null)" != "$stamp" ] \
   || ! NETCORE_LIBRARY=$LIB "$PY" -c 'import netcore' 2>/dev/null; then
  src=$VENV/src/netcore
  rm -rf "$src"
  mkdir -p "$src"
  (cd bindings/python && tar --exclude=__pycache__ --exclude='*.pyc' -cf - "${PKG_FILES[@]}") | tar -xf - -C "$src"
  "$PY" -m pip install -q --no-deps --no-build-isolation --force-reinstall "$src"
  rm -rf "$VENV/src"
  echo "$stamp" >"$VENV/.netcore-stamp"
fi

# The Swift caller (tools/swift-call: one request through `try await send`), for
# test_swift.py; a debug build, incremental after the Swift test suites.
if command -v swift >/dev/null 2>&1; then
  swift build -q --product netcore-call || { echo "conformance: netcore-call did not build" >&2; exit 1; }
fi

# 3. The checks. The servers write their pid files into $tmp: whatever is left there
#    when this script ends (a crash, Ctrl-C) is stopped here.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/netcore-conformance.XXXXXX")
cleanup() {
  local f pid
  for f in "$tmp"/*.pid; do
    [ -s "$f" ] || continue
    pid=$(tr -dc 0-9 <"$f")
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

export NETCORE_LIBRARY=$LIB NETCORE_TEST_INSTALLED=1 CONFORMANCE_TMP=$tmp
[ -n "$skip" ] && export CONFORMANCE_SKIP="$skip"
rc=0
"$PY" -m pytest -q -p no:cacheprovider Tests/conformance "$@" || rc=$?
exit "$rc"
