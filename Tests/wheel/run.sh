#!/usr/bin/env bash
# The Python wheel as a user meets it (after `make lib`): builds it
# (scripts/build-wheel.sh, what `make wheel` runs), checks its tag and contents, copies
# it to a temporary directory, installs it there into a fresh venv and, from that
# directory, with NETCORE_LIBRARY, LD_LIBRARY_PATH and PYTHONPATH unset, runs a request
# against the loopback mock API. The library must come from inside the installed
# package: nothing of the build tree is mapped into the process.
# Last line: "wheel: N passed, M failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok   - $1"; }
fail() {
  failed=$((failed + 1))
  echo "FAIL - $1"
  if [[ $# -gt 1 && -n $2 ]]; then printf '%s\n' "$2" | sed 's/^/       /'; fi
}
finish() {
  echo "wheel: $passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/netcore-wheeltest.XXXXXX")
source Tests/Support/mock-server.sh
trap 'mock_stop; rm -rf "$tmp"' EXIT

# --- 1. build ----------------------------------------------------------------------
if out=$(scripts/build-wheel.sh "$tmp/dist" 2>&1); then
  wheel=$(tail -n 1 <<<"$out")
  pass "scripts/build-wheel.sh built $(basename "$wheel")"
else
  fail "scripts/build-wheel.sh builds a wheel" "$out"
  finish
fi
version=$(sed -n 's/^#define NC_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' include/netcore.h | paste -sd.)
platform=$(python3 -c 'import sysconfig; print(sysconfig.get_platform().replace("-", "_").replace(".", "_"))')
if [[ $(basename "$wheel") == "netcore-$version-py3-none-$platform.whl" ]]; then
  pass "tagged py3-none-$platform (any Python 3, this platform), version $version"
else
  fail "tagged netcore-$version-py3-none-$platform.whl" "$(basename "$wheel")"
fi
listing=$(python3 -m zipfile -l "$wheel")
if grep -q '^netcore/libnetcore\.so\.0 ' <<<"$listing" &&
  python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); w = [n for n in z.namelist() if n.endswith(".dist-info/WHEEL")][0]; sys.exit("Root-Is-Purelib: false" not in z.read(w).decode())' "$wheel"; then
  pass "netcore/libnetcore.so.0 inside, not purelib"
else
  fail "netcore/libnetcore.so.0 inside, not purelib" "$listing"
fi

# --- 2. install into a fresh venv, away from the build tree -----------------------------
away=$tmp/away
mkdir -p "$away"
cp "$wheel" "$away/"
if out=$(python3 -m venv "$away/venv" 2>&1 &&
  "$away/venv/bin/python" -m pip install -q --no-index "$away/$(basename "$wheel")" 2>&1); then
  pass "pip install $(basename "$wheel") into a fresh venv (offline, no dependencies)"
else
  fail "pip install the wheel into a fresh venv" "$out"
  finish
fi
site=$("$away/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
if readelf -S "$site/netcore/libnetcore.so.0" | grep -q '\.debug_info'; then
  fail "the installed library is stripped" "$(readelf -S "$site/netcore/libnetcore.so.0" | grep debug)"
else
  pass "the installed library is stripped ($(stat -c %s "$site/netcore/libnetcore.so.0") bytes)"
fi

if ! mock_start; then fail "the mock server starts"; finish; fi
base="http://127.0.0.1:$mock_port/api"
cat >"$away/use.py" <<'EOF_PY'
import sys
import netcore

base, root = sys.argv[1], sys.argv[2]
print("library:", netcore.library_path())
with netcore.Client({"base_url": base, "envelope": {"code": "code", "ok_codes": [0], "message": "msg", "data": "data"}}) as c:
    print("data:", c.get("/env/code/ok").data)
    try:
        c.get("/users/99")
    except netcore.APIError as e:
        print("error:", type(e).__name__, e.code)
mapped = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libnetcore" in line})
print("mapped:", " ".join(mapped))
print("from build tree:", any(m.startswith(root + "/") for m in mapped))
EOF_PY
out=$(cd "$away" && env -u NETCORE_LIBRARY -u LD_LIBRARY_PATH -u PYTHONPATH -u NETCORE_TEST_INSTALLED \
  "$away/venv/bin/python" use.py "$base" "$ROOT" 2>&1 {server_in}>&-)
rc=$?
if [[ $rc -eq 0 ]] && grep -qxF "library: $site/netcore/libnetcore.so.0" <<<"$out" &&
  grep -qxF "mapped: $site/netcore/libnetcore.so.0" <<<"$out" &&
  grep -qxF "from build tree: False" <<<"$out"; then
  pass "NETCORE_LIBRARY unset: the library next to the package is loaded, nothing from $ROOT"
else
  fail "NETCORE_LIBRARY unset: the library next to the package is loaded (exit $rc)" "$out"
fi
if grep -qxF "data: {'id': 7, 'name': 'Ada'}" <<<"$out" && grep -qxF "error: APIError 404001" <<<"$out"; then
  pass "a request against the mock API: the envelope's data, and an API error with its code"
else
  fail "a request against the mock API through the installed wheel" "$out"
fi
finish
