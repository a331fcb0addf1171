#!/usr/bin/env bash
# libFuzzer targets (`make fuzz FUZZ_SECONDS=N`, docs/RELIABILITY.md): builds each
# Tests/fuzz/fuzz_*.c with clang -fsanitize=fuzzer,address against the library in
# FUZZ_LIBDIR (make fuzz builds .build-fuzz/release: coverage-instrumented Swift
# and C, AddressSanitizer), runs it FUZZ_SECONDS (default 60) on a copy of its seed
# corpus (Tests/fuzz/corpus/<target>, committed; new inputs stay in the copy), and
# prints executions and crashes per target. Crash inputs are kept in FUZZ_OUT
# (default build/fuzz). FUZZ_ONLY="response config" runs only those targets.
# Exits non-zero when a target crashed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source Tests/fault/servers.sh

LIBDIR=${FUZZ_LIBDIR:-.build-fuzz/release}
SECONDS_EACH=${FUZZ_SECONDS:-60}
OUT=${FUZZ_OUT:-build/fuzz}
CLANG=${FUZZ_CC:-clang}
mkdir -p "$OUT"
start mock python3 Tests/Support/mock_server.py || exit 1
export FUZZ_BASE=http://127.0.0.1:$(awk '{print $2; exit}' "$tmp/mock.out")/api
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export LSAN_OPTIONS=suppressions=$PWD/Tests/fuzz/lsan.supp

bad=0
printf '| target | seconds | executions | crashes |\n|---|---|---|---|\n' >"$OUT/summary.md"
for src in Tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    target=${name#fuzz_}
    [[ -z ${FUZZ_ONLY:-} || " $FUZZ_ONLY " == *" $target "* ]] || continue
    if ! "$CLANG" -g -O1 -fsanitize=fuzzer,address -Iinclude -o "$OUT/$name" "$src" -Wl,--no-warn-mismatch \
        -L "$LIBDIR" "-Wl,-rpath,$PWD/$LIBDIR" -lnetcore -ljansson -pthread; then
        echo "FAIL - $name does not build"
        bad=1
        continue
    fi
    work=$tmp/corpus-$target
    mkdir -p "$work"
    cp Tests/fuzz/corpus/"$target"/* "$work"/ 2>/dev/null
    # The call-sequence targets read one call a byte: whole sequences from the start
    # (libFuzzer would otherwise grow inputs from a few bytes over minutes).
    extra=()
    case $target in sequence | resilience) extra=(-max_len=48 -len_control=0) ;; esac
    "$OUT/$name" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=20 -rss_limit_mb=4096 "${extra[@]}" \
        -artifact_prefix="$OUT/$name-" "$work" >"$OUT/$name.log" 2>&1
    rc=$?
    execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$OUT/$name.log")
    crashes=$(ls "$OUT/$name"-crash-* "$OUT/$name"-leak-* "$OUT/$name"-timeout-* 2>/dev/null | wc -l)
    [[ $rc -eq 0 && $crashes -eq 0 ]] || bad=1
    echo "$name: ${execs:-?} executions in ${SECONDS_EACH} s, exit $rc, crash/leak/timeout inputs: $crashes"
    printf '| %s | %s | %s | %s |\n' "$target" "$SECONDS_EACH" "${execs:-?}" "$crashes" >>"$OUT/summary.md"
    [[ $rc -eq 0 ]] || tail -n 30 "$OUT/$name.log"
done
cat "$OUT/summary.md"
exit $bad
