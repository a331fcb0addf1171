#!/usr/bin/env bash
# The fuzzing campaign (`make fuzz-campaign FUZZ_HOURS=N`, docs/RELIABILITY.md):
# every target of Tests/fuzz for a share of FUZZ_HOURS, on a corpus kept across
# runs, then minimised.
#
#   FUZZ_HOURS   the campaign's wall-clock length (default 1; fractions allowed:
#                0.25). Each target gets FUZZ_HOURS * FUZZ_JOBS / targets of it.
#   FUZZ_JOBS    targets run at once (default 1; 2 on a machine with cores to
#                spare). Every fuzzer runs under `nice -n 10`.
#   FUZZ_CORPUS  the persistent corpus, one directory a target (default
#                build/fuzz-corpus/<target>: outside git, kept by every run, removed
#                only by `make clean`). Each run first adds the committed seeds
#                (Tests/fuzz/corpus/<target>), fuzzes, then merges the corpus into a
#                minimal one with the same coverage (libFuzzer's -merge=1) that
#                replaces it.
#   FUZZ_OUT     logs, crash inputs and the run's summary (default build/fuzz-campaign).
#   FUZZ_ONLY    "params dates": only those targets. FUZZ_LIBDIR as run.sh's.
#   FUZZ_LEAKS   when LeakSanitizer looks: "exit" (default) or "each".
#                exit: while fuzzing, libFuzzer's check after each input whose
#                mallocs outnumber its frees is off (-detect_leaks=0): our targets
#                start threads and fill the Swift runtime's type caches, so a third
#                of the inputs looked unbalanced and each such check scanned the
#                whole heap: 85 % of the time (fuzz_config 383 against 6,390
#                executions a second without it; docs/RELIABILITY.md).
#                Leaks are still found: LeakSanitizer checks the process when the
#                fuzzer exits (a leak of any input run is reported with its
#                allocation's stack and fails the target), and after the merge
#                every corpus input is run once more with the check after each
#                (-runs=0 -detect_leaks=1), which names the input that leaks.
#                each: libFuzzer's check after each input all along (slow).
#   FUZZ_STACKS  the allocation stacks ASan records while fuzzing: "2" (default:
#                two frames a malloc or free) or "full" (ASan's 30). Unwinding a
#                stack at every malloc and free was about a third of the parser
#                targets' time (perf); in paired 30-second runs on the same corpus,
#                two frames gave fuzz_request 1.1-1.6x, params, response and config
#                1.1x the executions. Errors are still caught as they happen; a
#                report then has short "allocated by" / "freed by" stacks, and
#                `make fuzz-known` prints them in full when it runs the kept input.
#                Not fewer than two: with one, LeakSanitizer's check at exit
#                reported no leak (tried with a target leaking 77 bytes). The
#                merge and the leak pass keep full stacks.
#
# A target that crashes (a crash, a leak, a timeout, an out-of-memory) is started
# again for the rest of its time, at most 3 times; each input that did it is copied
# to Tests/fuzz/known/<target>/campaign-<kind>-<sha1>.bin, a regression input
# `make fuzz-known` runs (commit it with the fix, or with the reason in
# Tests/fuzz/known/README.md). The summary (per target: seconds, executions,
# exec/s, libFuzzer's cov and ft at the end, corpus files at the start and after the
# merge, crashes)
# is printed, written to FUZZ_OUT/summary.md and appended, with the date and the
# commit, to FUZZ_CORPUS/history.md. Exits non-zero when a target crashed or did
# not build.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source Tests/fault/servers.sh
source Tests/fuzz/lib.sh

LIBDIR=${FUZZ_LIBDIR:-.build-fuzz/release}
HOURS=${FUZZ_HOURS:-1}
case ${FUZZ_LEAKS:-exit} in
exit) each_leak=0 ;;
each) each_leak=1 ;;
*) echo "FUZZ_LEAKS is exit or each, not '$FUZZ_LEAKS'"; exit 2 ;;
esac
case ${FUZZ_STACKS:-2} in
2) stacks=:malloc_context_size=2 ;;
full) stacks= ;;
*) echo "FUZZ_STACKS is 2 or full, not '$FUZZ_STACKS'"; exit 2 ;;
esac
JOBS=${FUZZ_JOBS:-1}
CORPUS=${FUZZ_CORPUS:-build/fuzz-corpus}
OUT=${FUZZ_OUT:-build/fuzz-campaign}
mkdir -p "$OUT" "$CORPUS"
fuzz_env || exit 1

mapfile -t targets < <(fuzz_targets)
((${#targets[@]})) || { echo "FAIL - no target"; exit 1; }
each=$(awk -v h="$HOURS" -v j="$JOBS" -v n="${#targets[@]}" 'BEGIN { s = int(h * 3600 * j / n); print (s < 10 ? 10 : s) }')
started=$(date -u '+%Y-%m-%d %H:%M UTC')
# The commit fuzzed: the one checked out now (a commit made while the campaign runs
# changes nothing that is running).
commit=$(git rev-parse --short HEAD 2>/dev/null || echo ?)
echo "fuzz-campaign: ${#targets[@]} targets, $each s each, $JOBS at a time, corpus in $CORPUS"

# One target: build, seed, fuzz (restarted after a crash while its time lasts),
# merge; its summary row in $OUT/<target>.row.
campaign_one() {
    local target=$1 bin=$OUT/fuzz_$1 dir=$CORPUS/$1 art=$OUT/$1 left=$each runs=0 execs=0 cov=? ft=? t0 rc log
    local exit_leaks=0
    rm -rf "$art" && mkdir -p "$art" "$dir"
    if ! fuzz_build "$target" "$bin" "$LIBDIR"; then
        echo "FAIL - fuzz_$target does not build"
        printf '| %s | - | - | - | - | - | - | does not build |\n' "$target" >"$OUT/$target.row"
        return 1
    fi
    cp -n Tests/fuzz/corpus/"$target"/* "$dir"/ 2>/dev/null
    local start_files
    start_files=$(find "$dir" -type f | wc -l)
    while ((left > 0 && runs < 4)); do
        log=$OUT/$target.$runs.log
        t0=$SECONDS
        # shellcheck disable=SC2046
        ASAN_OPTIONS=$ASAN_OPTIONS$stacks nice -n 10 "$bin" -max_total_time="$left" -print_final_stats=1 -timeout=20 -rss_limit_mb=2048 \
            -detect_leaks="$each_leak" $(fuzz_flags "$target") -artifact_prefix="$art/" "$dir" >"$log" 2>&1
        rc=$?
        left=$((left - (SECONDS - t0)))
        runs=$((runs + 1))
        execs=$((execs + $(awk '/stat::number_of_executed_units/ {n = $2} END {print n + 0}' "$log")))
        # libFuzzer's last status line: "#N ... cov: C ft: F corp: ...".
        read -r cov ft < <(awk '/ cov: [0-9]+ ft: [0-9]+/ { for (i = 1; i < NF; i++) { if ($i == "cov:") c = $(i + 1); if ($i == "ft:") f = $(i + 1) } } END { print (c ? c : "?"), (f ? f : "?") }' "$log")
        ((rc == 0)) && break
        echo "fuzz_$target: exit $rc after $((SECONDS - t0)) s (log $log)"
        # LeakSanitizer's check at the fuzzer's exit: the leak has no input (the
        # leak pass below looks for it in the corpus), it is counted as a crash.
        if grep -q 'ERROR: LeakSanitizer' "$log" && ! grep -q 'INFO: a leak has been found' "$log"; then
            exit_leaks=$((exit_leaks + 1))
            # libFuzzer's death callback writes the unit it holds then: an empty one.
            rm -f "$art/crash-da39a3ee5e6b4b0d3255bfef95601890afd80709"
        fi
        # The target's own words (it prints why before it aborts), then the report.
        grep -m1 -B6 -A12 'ERROR: \|deadly signal' "$log" | cut -c1-300 | head -n 24
    done
    # Minimise: a new directory holding the inputs that keep every feature.
    rm -rf "$dir.merged" && mkdir -p "$dir.merged"
    # (LeakSanitizer off: the leak pass below is the merged corpus's check.)
    # shellcheck disable=SC2046
    if ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 nice -n 10 "$bin" -merge=1 -timeout=20 -rss_limit_mb=2048 $(fuzz_flags "$target") "$dir.merged" "$dir" \
        >"$OUT/$target.merge.log" 2>&1; then
        rm -rf "$dir" && mv "$dir.merged" "$dir"
    else
        echo "fuzz_$target: the merge failed (log $OUT/$target.merge.log); the corpus is kept as it was"
        rm -rf "$dir.merged"
    fi
    # The leak pass: every input of the corpus once, LeakSanitizer after each; an
    # input that leaks is written to $art (leak-<sha1>) and kept below.
    if ((each_leak == 0)); then
        # shellcheck disable=SC2046
        if ! nice -n 10 "$bin" -runs=0 -detect_leaks=1 -timeout=20 -rss_limit_mb=2048 $(fuzz_flags "$target") \
            -artifact_prefix="$art/" "$dir" >"$OUT/$target.leaks.log" 2>&1; then
            echo "fuzz_$target: the leak pass failed (log $OUT/$target.leaks.log)"
            grep -m1 -A12 'ERROR: ' "$OUT/$target.leaks.log" | cut -c1-300
            # Counted here only when it wrote no input (those are counted below).
            [[ -n $(find "$art" -maxdepth 1 -type f -newer "$OUT/$target.merge.log") ]] || exit_leaks=$((exit_leaks + 1))
        fi
    fi
    local crashes=$exit_leaks f kind sum
    for f in "$art"/*; do
        [[ -f $f ]] || continue
        kind=$(basename "$f" | cut -d- -f1)
        sum=$(sha1sum "$f" | cut -c1-12)
        mkdir -p "Tests/fuzz/known/$target"
        cp "$f" "Tests/fuzz/known/$target/campaign-$kind-$sum.bin"
        echo "fuzz_$target: $kind input kept as Tests/fuzz/known/$target/campaign-$kind-$sum.bin"
        crashes=$((crashes + 1))
    done
    local secs=$((each - (left > 0 ? left : 0)))
    printf '| %s | %d | %d | %d | %s | %s | %d → %d | %d |\n' "$target" "$secs" "$execs" \
        "$((secs > 0 ? execs / secs : 0))" "$cov" "$ft" "$start_files" "$(find "$dir" -type f | wc -l)" "$crashes" \
        >"$OUT/$target.row"
    ((crashes == 0))
}

bad=0
running=0
for target in "${targets[@]}"; do
    rm -f "$OUT/$target.row"
    campaign_one "$target" &
    running=$((running + 1))
    if ((running >= JOBS)); then
        wait -n || bad=1
        running=$((running - 1))
    fi
done
while ((running > 0)); do
    wait -n || bad=1
    running=$((running - 1))
done

{
    echo "fuzz-campaign $started, commit $commit, FUZZ_HOURS=$HOURS FUZZ_JOBS=$JOBS"
    echo
    echo '| target | seconds | executions | exec/s | cov | ft | corpus files (start → after the merge) | crashes |'
    echo '|---|---:|---:|---:|---:|---:|---:|---:|'
    total=0
    for target in "${targets[@]}"; do
        cat "$OUT/$target.row" 2>/dev/null || printf '| %s | - | - | - | - | - | - | no result |\n' "$target"
        total=$((total + $(awk -F'|' '{gsub(/ /, "", $4); print $4 + 0}' "$OUT/$target.row" 2>/dev/null || echo 0)))
    done
    echo
    echo "Total: $total executions (docs/RELIABILITY.md counts every campaign's against 10^8)."
} >"$OUT/summary.md"
cat "$OUT/summary.md"
{
    echo
    cat "$OUT/summary.md"
} >>"$CORPUS/history.md"
exit $bad
