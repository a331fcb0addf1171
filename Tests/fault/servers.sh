# Sourced by the Tests/fault scripts: a temporary directory ($tmp), server
# start-up and clean-up on exit.
#   start NAME COMMAND...   runs COMMAND --exit-on-stdin-eof with its stdin a FIFO
#                           only this script holds open (if the script dies, even
#                           by SIGKILL, the server sees EOF and exits); its first
#                           stdout line goes to $tmp/NAME.out; returns 1 if none
#                           came within 15 s
tmp=$(mktemp -d "${TMPDIR:-/tmp}/netcore-fault.XXXXXX")
pids=()
keep=()
cleanup() {
    for fd in "${keep[@]}"; do eval "exec $fd>&-"; done
    for pid in "${pids[@]}"; do
        for _ in {1..30}; do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start() {
    local name=$1 fd
    shift
    mkfifo "$tmp/$name.in"
    "$@" --exit-on-stdin-eof <"$tmp/$name.in" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    pids+=($!)
    exec {fd}>"$tmp/$name.in"
    keep+=("$fd")
    for _ in {1..300}; do
        [[ -s $tmp/$name.out ]] && return 0
        kill -0 "${pids[-1]}" 2>/dev/null || break
        sleep 0.05
    done
    echo "FAIL - $name did not start: $(cat "$tmp/$name.err")"
    return 1
}

