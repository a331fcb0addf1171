#!/usr/bin/env bash
# libFuzzer targets (`make fuzz FUZZ_SECONDS=N`, docs/RELIABILITY.md): builds each
# Tests/fuzz/fuzz_*.c with clang -fsanitize=fuzzer,address against the library in
# FUZZ_LIBDIR (make fuzz builds .build-fuzz/release: coverage-instrumented Swift
# and C, AddressSanitizer), runs it FUZZ_SECONDS (default 60) on a copy of its seed
# corpus (Tests/fuzz/corpus/<target>, committed; new inputs stay in the copy), and
# prints executions and crashes per target. Crash inputs are kept in FUZZ_OUT
# (default build/fuzz). FUZZ_ONLY="response config" runs only those targets.
# Exits non-zero when a target crashed. The long form, with a corpus kept across
# runs: campaign.sh (`make fuzz-campaign`).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source Tests/fault/servers.sh
source Tests/fuzz/lib.sh

LIBDIR=${FUZZ_LIBDIR:-.build-fuzz/release}
SECONDS_EACH=${FUZZ_SECONDS:-60}
OUT=${FUZZ_OUT:-build/fuzz}
mkdir -p "$OUT"
fuzz_env || exit 1

bad=0
printf '| target | seconds | executions | crashes |\n|---|---|---|---|\n' >"$OUT/summary.md"
for target in $(fuzz_targets); do
    name=fuzz_$target
    if ! fuzz_build "$target" "$OUT/$name" "$LIBDIR"; then
        echo "FAIL - $name does not build"
        bad=1
        continue
    fi
    work=$tmp/corpus-$target
    mkdir -p "$work"
    cp Tests/fuzz/corpus/"$target"/* "$work"/ 2>/dev/null
    # shellcheck disable=SC2046
    "$OUT/$name" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=20 -rss_limit_mb=4096 \
        $(fuzz_flags "$target") -artifact_prefix="$OUT/$name-" "$work" >"$OUT/$name.log" 2>&1
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
