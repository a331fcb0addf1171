#!/usr/bin/env bash
# make wheel: builds build/wheel/netcore-VERSION-py3-none-PLATFORM.whl, the Python
# package with libnetcore.so.0 (stripped) inside it, from build/lib (make lib first).
# The package is built from a copy (so bindings/python gets no build/ or egg-info),
# offline, in a build venv (build/wheel-venv; its first creation installs
# setuptools >= 70.1 from PyPI, the first version with bdist_wheel of its own).
# bindings/python/setup.py does the bundling and the tag.
#   scripts/build-wheel.sh [OUTDIR]     prints the wheel's path last
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
LIB=$ROOT/build/lib/libnetcore.so.0
OUT=${1:-$ROOT/build/wheel}
VENV=$ROOT/build/wheel-venv
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

[ -e "$LIB" ] || { echo "build-wheel: $LIB is missing: run 'make lib' first" >&2; exit 1; }
if ! "$VENV/bin/python" -c 'import setuptools.command.bdist_wheel' 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q 'setuptools>=70.1'
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/netcore-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src"
(cd bindings/python && tar --exclude=__pycache__ --exclude='*.pyc' --exclude='libnetcore.so*' \
  -cf - pyproject.toml setup.py README.md netcore) | tar -xf - -C "$tmp/src"
NETCORE_WHEEL_LIBRARY=$LIB "$VENV/bin/python" -m pip wheel -q --no-deps --no-build-isolation \
  -w "$tmp/dist" "$tmp/src"
mkdir -p "$OUT"
rm -f "$OUT"/netcore-*.whl
mv "$tmp"/dist/netcore-*.whl "$OUT/"
ls "$OUT"/netcore-*.whl
