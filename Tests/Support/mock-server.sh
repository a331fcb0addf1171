# Sourced by bash scripts that need the loopback mock API (scripts/run-demo.sh,
# Tests/C/run.sh). Defines:
#   mock_start   starts Tests/Support/mock_server.py on a free port; sets $mock_port;
#                returns 1 if it did not report its port within 15 s
#   mock_stop    stops it (idempotent); call it from an EXIT trap
# Run child programs with `{server_in}>&-` so they do not inherit the server's stdin.
server_pid=""
server_in=""
mock_port=""

mock_start() {
    # The coprocess's stdin is a pipe only this script holds: if the script dies,
    # even by SIGKILL, the server sees EOF and exits (--exit-on-stdin-eof).
    coproc MOCK { exec python3 Tests/Support/mock_server.py --exit-on-stdin-eof; }
    server_pid=$MOCK_PID
    exec {server_in}>&"${MOCK[1]}" {server_out}<&"${MOCK[0]}"
    eval "exec ${MOCK[1]}>&- ${MOCK[0]}<&-"
    local word port
    if read -r -t 15 word port <&"$server_out" && [[ $word == PORT && $port =~ ^[0-9]+$ ]]; then
        exec {server_out}<&-
        mock_port=$port
        return 0
    fi
    return 1
}

mock_stop() {
    # Closing its stdin stops the server; SIGTERM if it lingers.
    if [[ -n $server_in ]]; then exec {server_in}>&-; server_in=""; fi
    if [[ -n $server_pid ]]; then
        for _ in {1..30}; do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}
