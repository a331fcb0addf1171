#!/usr/bin/env bash
# The ABI suite (docs/abi.md), run after `make lib`:
#   1. include/netcore.exports is sorted and equals both the library's exported
#      symbols (nm -D) and the NC_API functions of include/netcore.h
#   2. every NC_API function's comment has the four beats — a description, then
#      "Ownership:", "Thread:", "Returns:" lines — and a "Since: MAJOR.MINOR" line
#   2a. the Since lines know the release: no function says a version after the next
#      one (the header's minor + 1); a function in the baseline (abi/, the last
#      release) says at most the baseline's version, one not in it the next version
#   2b. every public Swift declaration of Sources/NetCoreBase and Sources/NetCore has a DocC comment
#   3. the ABI compared with the checked-in baseline (scripts/abi.sh check: abidiff)
#   4. that comparison fails on a changed signature, a renumbered constant and a
#      removed function, and passes additions (header copies in a temp dir)
#   5. NC_DEPRECATED makes a call to a deprecated function warn, in C and C++
# Last line: "abi: N passed, M failed"; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

LIB=build/lib/libnetcore.so.0
HEADER=include/netcore.h
EXPORTS=include/netcore.exports

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok   - $1"; }
fail() {
  failed=$((failed + 1))
  echo "FAIL - $1"
  if [[ $# -gt 1 && -n $2 ]]; then printf '%s\n' "$2" | sed 's/^/       /'; fi
}
finish() {
  echo "abi: $passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/netcore-abitest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [[ ! -e $LIB ]]; then fail "$LIB exists" "run 'make lib' first"; finish; fi
if ! command -v abidiff >/dev/null; then
  fail "abidiff is installed" "scripts/install-deps.sh installs Debian's abigail-tools"
  finish
fi

# --- 1. the exports list ---------------------------------------------------------

header_functions() { # HEADER -> the NC_API function names, sorted
  python3 - "$1" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
text = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))
print("\n".join(sorted(set(re.findall(r"\bNC_API\b[^;{]*?\b([A-Za-z_]\w*)\s*\(", text)))))
EOF
}
nm -D --defined-only "$LIB" | awk 'NF >= 3 && $2 ~ /^[A-Z]$/ { print $3 }' | sed 's/@.*//' |
  grep -vx 'NETCORE_0' | LC_ALL=C sort -u >"$tmp/lib.syms"
header_functions "$HEADER" | LC_ALL=C sort >"$tmp/header.syms"

if LC_ALL=C sort -uc "$EXPORTS" 2>/dev/null && ! grep -qv '^nc_[a-z0-9_]*$' "$EXPORTS"; then
  pass "$EXPORTS is sorted, unique, one nc_ name a line ($(wc -l <"$EXPORTS") names)"
else
  fail "$EXPORTS is sorted, unique, one nc_ name a line" "$(LC_ALL=C sort -uc "$EXPORTS" 2>&1; grep -v '^nc_[a-z0-9_]*$' "$EXPORTS")"
fi
if out=$(diff "$EXPORTS" "$tmp/lib.syms"); then
  pass "$EXPORTS == nm -D --defined-only $LIB"
else
  fail "$EXPORTS == nm -D --defined-only $LIB" \
    "$(grep '^[<>]' <<<"$out" | sed -e 's/^</listed, not exported:/' -e 's/^>/exported, not listed:/')"
fi
if out=$(diff "$EXPORTS" "$tmp/header.syms"); then
  pass "$EXPORTS == the NC_API functions of $HEADER"
else
  fail "$EXPORTS == the NC_API functions of $HEADER" \
    "$(grep '^[<>]' <<<"$out" | sed -e 's/^</listed, not declared:/' -e 's/^>/declared, not listed:/')"
fi

# --- 2. Since lines ------------------------------------------------------------------

# The doc comment right above each NC_API declaration: what it does, Ownership:,
# Thread:, Returns: and Since: M.m (a header copy without them fails: docs/abi.md).
out=$(python3 - "$HEADER" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
for k, line in enumerate(lines):
    if not line.startswith("NC_API"):
        continue
    name = re.search(r"\b(nc_\w+)\s*\(", " ".join(lines[k:k + 3])).group(1)
    end = k - 1
    if lines[end].strip() != "*/":
        print(f"{name}: no doc comment right above it")
        continue
    start = end
    while start > 0 and "/**" not in lines[start]:
        start -= 1
    body = lines[start:end]
    if not any(re.match(r"\s*\*\s*Since:\s+\d+\.\d+\s*$", l) for l in body):
        print(f"{name}: no 'Since: M.m' line in its comment")
    for beat in ("Ownership:", "Thread:", "Returns:"):
        if not any(re.match(r"\s*\*\s*" + beat, l) for l in body):
            print(f"{name}: no '{beat}' line in its comment (the four beats: what, ownership, thread, returns)")
    text = [l for l in body if l.strip() not in ("/**", "*", "")]
    if not text or re.match(r"\s*\*\s*(Ownership|Thread|Returns|Since):", text[0]):
        print(f"{name}: its comment does not start by saying what it does")
EOF
)
if [[ -z $out ]]; then
  pass "every NC_API function's comment has the four beats and a Since: line"
else
  fail "every NC_API function's comment has the four beats and a Since: line" "$out"
fi

# --- 2a. Since versions ----------------------------------------------------------------

# The baseline is re-made at each release (docs/abi.md), so a function it does not
# hold is new since the last release and ships in the next one: header 0.3.0 (released)
# -> `Since: 0.4`. A function it holds shipped at or before the baseline's version.
since_versions() { # HEADER BASELINE_LIB_ABI BASELINE_FILE -> one line a problem
  python3 - "$@" <<'EOF2'
import re, sys
header, base_abi, base_file = sys.argv[1:4]
text = open(header).read()
ver = {k: int(v) for k, v in re.findall(r"^#define NC_VERSION_(MAJOR|MINOR) (\d+)$", text, re.M)}
major, minor = ver["MAJOR"], ver["MINOR"]
nxt = (major, minor + 1)
bv = re.search(r"^version (\d+)\.(\d+)\.\d+$", open(base_file).read(), re.M)
base = (int(bv.group(1)), int(bv.group(2)))
shipped = set(re.findall(r"<elf-symbol name='(nc_\w+)'", open(base_abi).read()))
lines = text.split("\n")
for k, line in enumerate(lines):
    if not line.startswith("NC_API"):
        continue
    name = re.search(r"\b(nc_\w+)\s*\(", " ".join(lines[k:k + 3])).group(1)
    j = k - 1
    while j > 0 and "/**" not in lines[j]:
        j -= 1
    m = [re.match(r"\s*\*\s*Since:\s+(\d+)\.(\d+)\s*$", l) for l in lines[j:k]]
    m = [x for x in m if x]
    if not m:
        continue  # reported by check 2
    since = (int(m[-1].group(1)), int(m[-1].group(2)))
    s = "%d.%d" % since
    if since > nxt:
        print(f"{name}: Since: {s} is after the next version, %d.%d" % nxt)
    elif major != base[0]:
        continue  # a new major version records its own baseline at its first release
    elif name in shipped and since > base:
        print(f"{name}: in the baseline (released in %d.%d) but says Since: {s}" % base)
    elif name not in shipped and since != nxt:
        print(f"{name}: not in the baseline (%d.%d), so new: it ships in the next version and must say Since: %d.%d, not {s}"
              % (base + nxt))
EOF2
}
next_minor=$(($(sed -n 's/^#define NC_VERSION_MINOR \([0-9]*\)$/\1/p' "$HEADER") + 1))
next_version=$(sed -n 's/^#define NC_VERSION_MAJOR \([0-9]*\)$/\1/p' "$HEADER").$next_minor
if out=$(since_versions "$HEADER" abi/libnetcore.so.0.abi abi/BASELINE) && [[ -z $out ]]; then
  pass "Since lines: the baseline's functions at most $(sed -n 's/^version //p' abi/BASELINE), new ones Since: $next_version"
else
  fail "Since lines: the baseline's functions at most $(sed -n 's/^version //p' abi/BASELINE), new ones Since: $next_version" "$out"
fi
# ... and it refuses a new function that says the released version
mkdir -p "$tmp/since"
sed 's/^NC_API uint64_t nc_task_id(const nc_task \*task);$/&\n\/**\n * Probe.\n * Since: 0.1\n *\/\nNC_API int nc_task_since_probe(const nc_task *task);/' \
  "$HEADER" >"$tmp/since/netcore.h"
if out=$(since_versions "$tmp/since/netcore.h" abi/libnetcore.so.0.abi abi/BASELINE) &&
  grep -q "nc_task_since_probe: not in the baseline" <<<"$out"; then
  pass "Since lines: a new function saying an old version is refused"
else
  fail "Since lines: a new function saying an old version is refused" "$out"
fi

# --- 2b. DocC comments on the public Swift API ------------------------------------

# Every public/open declaration of Sources/NetCoreBase and Sources/NetCore has a `///` comment
# (scripts/check-docc.py, with its exemptions for standard-library requirements).
if out=$(python3 scripts/check-docc.py 2>&1); then
  pass "every public Swift declaration has a DocC comment"
else
  fail "every public Swift declaration has a DocC comment" "$(head -20 <<<"$out")"
fi

# --- 3. the baseline -----------------------------------------------------------------

if out=$(scripts/abi.sh check "$LIB" "$HEADER" "$EXPORTS" 2>&1); then
  pass "ABI compatible with the baseline (abi/BASELINE: $(paste -sd ' ' abi/BASELINE))"
  sed 's/^/       /' <<<"$out"
else
  fail "ABI compatible with the baseline (scripts/abi.sh check)" "$out"
fi

# --- 4. the check can fail -----------------------------------------------------------

# variant NAME: a copy of the header and exports list in $tmp/NAME, for sed to break.
variant() {
  mkdir -p "$tmp/$1"
  cp "$HEADER" "$EXPORTS" "$tmp/$1/"
}
expect_break() { # NAME WHAT GREP
  local out
  if out=$(scripts/abi.sh check "$LIB" "$tmp/$1/netcore.h" "$tmp/$1/netcore.exports" 2>&1); then
    fail "the ABI check refuses $2" "$out"
  elif grep -qF -- "$3" <<<"$out" && grep -q 'BREAK' <<<"$out"; then
    pass "the ABI check refuses $2"
  else
    fail "the ABI check refuses $2, naming it ('$3')" "$out"
  fi
}
variant signature
sed -i 's/^NC_API uint64_t nc_task_id(/NC_API uint32_t nc_task_id(/' "$tmp/signature/netcore.h"
expect_break signature "a changed return type (nc_task_id: uint64_t -> uint32_t)" \
  "'typedef uint64_t (const nc_task*)* const' changed to 'typedef uint32_t (const nc_task*)* const'"
variant parameter
sed -i 's/^NC_API nc_status nc_request_set_timeout_ms(nc_request \*request, [a-z0-9_]* /NC_API nc_status nc_request_set_timeout_ms(nc_request *request, int16_t /' \
  "$tmp/parameter/netcore.h"
expect_break parameter "a changed parameter type (nc_request_set_timeout_ms)" "abi_nc_request_set_timeout_ms"
variant constant
sed -i 's/^#define NC_CLIENT_SHUTDOWN\( *\)6/#define NC_CLIENT_SHUTDOWN\116/' "$tmp/constant/netcore.h"
expect_break constant "a renumbered constant (NC_CLIENT_SHUTDOWN 6 -> 16)" \
  "'abi_constants::abi_NC_CLIENT_SHUTDOWN' from value '6' to '16'"
variant removed
sed -i '/^nc_task_id$/d' "$tmp/removed/netcore.exports"
expect_break removed "a removed function (nc_task_id)" "1 Removed variable"
variant added
sed -i 's/^NC_API uint64_t nc_task_id(const nc_task \*task);$/&\nNC_API int nc_task_abi_probe_added(const nc_task *task);\n#define NC_LOG_ABI_PROBE_ADDED 6/' \
  "$tmp/added/netcore.h"
echo nc_task_abi_probe_added >>"$tmp/added/netcore.exports"
if ! grep -q nc_task_abi_probe_added "$tmp/added/netcore.h"; then
  fail "the ABI check passes an added function and constant" "the test's sed found no nc_task_id declaration"
elif out=$(scripts/abi.sh check "$LIB" "$tmp/added/netcore.h" "$tmp/added/netcore.exports" 2>&1) &&
  grep -q "abi_nc_task_abi_probe_added" <<<"$out"; then
  pass "the ABI check passes an added function and constant"
else
  fail "the ABI check passes an added function and constant" "$out"
fi
variant major
sed -i -e 's/^NC_API uint64_t nc_task_id(/NC_API uint32_t nc_task_id(/' \
  -e "s/^#define NC_VERSION_MAJOR [0-9]*$/#define NC_VERSION_MAJOR 99/" "$tmp/major/netcore.h"
if out=$(scripts/abi.sh check "$LIB" "$tmp/major/netcore.h" "$tmp/major/netcore.exports" 2>&1) &&
  grep -q "NC_VERSION_MAJOR is 99" <<<"$out"; then
  pass "a new NC_VERSION_MAJOR may break the ABI"
else
  fail "a new NC_VERSION_MAJOR may break the ABI" "$out"
fi

# --- 5. NC_DEPRECATED ------------------------------------------------------------------

cat >"$tmp/deprecated.c" <<'EOF'
#include "netcore.h"
NC_DEPRECATED("use nc_version()") const char *old_version(void);
const char *old_version(void) { return nc_version(); }
int main(void) { return old_version() == 0; }
EOF
for compiler in "gcc -std=c99" "g++ -std=c++11 -x c++"; do
  if out=$($compiler -Wall -Wextra -pedantic -Werror -Iinclude -fsyntax-only "$tmp/deprecated.c" 2>&1); then
    fail "NC_DEPRECATED warns at a call ($compiler)" "it compiled with -Werror"
  elif grep -q "deprecated" <<<"$out" && grep -qF "use nc_version()" <<<"$out"; then
    pass "NC_DEPRECATED warns at a call, with its message ($compiler)"
  else
    fail "NC_DEPRECATED warns at a call, with its message ($compiler)" "$out"
  fi
done
if out=$(gcc -std=c99 -Wall -Wextra -pedantic -Werror -DNC_NO_DEPRECATION_WARNINGS -Iinclude -fsyntax-only \
  "$tmp/deprecated.c" 2>&1); then
  pass "NC_NO_DEPRECATION_WARNINGS silences it"
else
  fail "NC_NO_DEPRECATION_WARNINGS silences it" "$out"
fi

finish
