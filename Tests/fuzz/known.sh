#!/usr/bin/env bash
# The inputs that once crashed a libFuzzer target (Tests/fuzz/known/<target>/, README
# there), run again under AddressSanitizer: `make fuzz-known`, and part of `make test`.
# Builds Tests/fuzz/fuzz_<target>.c as `make fuzz` does (clang -fsanitize=fuzzer,address)
# but against the library in FUZZ_LIBDIR (default build/lib: the release library, not
# instrumented; ASan's interceptors of malloc, free, realloc and the string functions
# still see what libcurl and jansson do with the heap, which is where those crashes
# were), then runs each target once over its known inputs, in name order, in one
# process (so a later input meets the state an earlier one left: a pooled easy handle).
# Exits non-zero when a target does not build or an input crashes.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source Tests/fault/servers.sh
source Tests/fuzz/lib.sh

LIBDIR=${FUZZ_LIBDIR:-build/lib}
[[ -e $LIBDIR/libnetcore.so ]] || { echo "FAIL - $LIBDIR/libnetcore.so missing: run 'make lib' first"; exit 1; }
fuzz_env || exit 1

bad=0
for dir in Tests/fuzz/known/*/; do
    target=$(basename "$dir")
    bin=$tmp/fuzz_$target
    if ! fuzz_build "$target" "$bin" "$LIBDIR"; then
        echo "FAIL - fuzz_$target does not build"
        bad=1
        continue
    fi
    inputs=("$dir"*.bin)
    if "$bin" "${inputs[@]}" >"$tmp/$target.log" 2>&1; then
        echo "ok   - $target: ${#inputs[@]} known inputs, no ASan report"
    else
        # The sanitizer's report (from its ERROR line), else the end of the log.
        if grep -q "ERROR: " "$tmp/$target.log"; then sed -n '/ERROR: /,$p' "$tmp/$target.log" | head -n 30
        else tail -n 30 "$tmp/$target.log"; fi
        echo "FAIL - $target: an input crashed (above)"
        bad=1
    fi
done
exit $bad
