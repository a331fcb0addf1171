#!/usr/bin/env bash
# Python test suite: installs the netcore package (bindings/python), with pytest, mypy
# and pydantic from PyPI, into a venv under build/ and runs Tests/python with that
# venv's pytest (mypy --strict included: test_typing.py), against the loopback
# mock API and build/lib/libnetcore.so.0 (found through $NETCORE_LIBRARY, the first
# place the package looks: an installed package cannot walk up to the repo).
#
# Re-runs reuse the venv and reinstall the package only when its sources changed.
# The last line printed is pytest's summary; the exit status is pytest's.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
VENV=$ROOT/build/pyenv
LIB=$ROOT/build/lib/libnetcore.so.0
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

if [ ! -e "$LIB" ]; then
  echo "Tests/python/run.sh: $LIB is missing: run 'make lib' first" >&2
  exit 1
fi

# 1. The venv (recreated only if missing or broken).
if ! "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
fi
PY=$VENV/bin/python
"$PY" -c 'import pytest' 2>/dev/null || "$PY" -m pip install -q pytest
# mypy: test_typing.py runs `mypy --strict` over examples/python and the package;
# pydantic: test_models.py decodes pydantic models (and simulates its absence).
"$PY" -c 'import mypy, pydantic' 2>/dev/null || "$PY" -m pip install -q mypy pydantic
# setuptools + wheel build the package offline (no build isolation); Python >= 3.12
# venvs come without setuptools, older setuptools need wheel for bdist_wheel.
"$PY" -c 'import setuptools, wheel, sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 61)' \
  2>/dev/null || "$PY" -m pip install -q 'setuptools>=61' wheel

# 2. The package, reinstalled when bindings/python changed. It is built from a
#    copy so the source tree gets no build/ or *.egg-info.
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

# 3. The tests, with the installed package and the repo's library.
export NETCORE_LIBRARY=$LIB NETCORE_TEST_INSTALLED=1
cd "$ROOT"
exec "$PY" -m pytest -q -p no:cacheprovider Tests/python "$@"
