# Sourced by Tests/fuzz/run.sh, campaign.sh and known.sh: what building and running
# a libFuzzer target takes, in one place.
#   fuzz_targets            the target names (Tests/fuzz/fuzz_<name>.c), FUZZ_ONLY
#                           ("response config") keeping only those
#   fuzz_build NAME BIN LIBDIR   builds fuzz_NAME.c into BIN (clang
#                           -fsanitize=fuzzer,address, linked against LIBDIR's
#                           libnetcore.so); 1 with the compiler's output if it fails
#   fuzz_flags NAME         the target's own libFuzzer flags
#   fuzz_env                the mock server (FUZZ_BASE, for the call-sequence
#                           targets) and the sanitizers' options
# Every Tests/fuzz/fuzz_*.c is a target: run.sh, campaign.sh and known.sh pick up a
# new one with its seeds (corpus/<name>) and, if it needs them, its flags below.

fuzz_targets() {
    local src name
    for src in Tests/fuzz/fuzz_*.c; do
        name=$(basename "$src" .c)
        name=${name#fuzz_}
        [[ -z ${FUZZ_ONLY:-} || " $FUZZ_ONLY " == *" $name "* ]] && echo "$name"
    done
}

fuzz_build() {
    local name=$1 bin=$2 libdir log
    libdir=$(cd "$3" && pwd) || return 1 # the rpath must be absolute (FUZZ_LIBDIR may be either)
    log=$(mktemp)
    if ! "${FUZZ_CC:-clang}" -g -O1 -fsanitize=fuzzer,address -Iinclude -o "$bin" "Tests/fuzz/fuzz_$name.c" \
        -Wl,--no-warn-mismatch -L "$libdir" "-Wl,-rpath,$libdir" -lnetcore -ljansson -pthread \
        >"$log" 2>&1 || [[ ! -x $bin ]]; then
        grep -v "Cannot export local symbol" "$log"
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

fuzz_flags() {
    case $1 in
    # The call-sequence targets read one call a byte: whole sequences from the start
    # (libFuzzer would otherwise grow inputs from a few bytes over minutes).
    sequence | resilience) echo "-max_len=48 -len_control=0" ;;
    # A header value: the dates are short.
    dates) echo "-max_len=128" ;;
    esac
}

fuzz_env() {
    start mock python3 Tests/Support/mock_server.py || return 1
    export FUZZ_BASE=http://127.0.0.1:$(awk '{print $2; exit}' "$tmp/mock.out")/api
    export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
    export LSAN_OPTIONS=suppressions=$PWD/Tests/fuzz/lsan.supp
    # The Swift runtime's crash handler would add its own report (and an ASan one of
    # its memory reads) to a target's abort: the sanitizer's report is the one read.
    export SWIFT_BACKTRACE=enable=no
}
