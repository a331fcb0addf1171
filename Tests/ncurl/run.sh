#!/usr/bin/env bash
# ncurl (tools/ncurl) against the loopback mock API, as a person would use it, and
# `make mock` (scripts/mock.sh) printing a URL that answers. Run after `make examples`
# (which builds build/bin/ncurl). Each check names the exact output and exit status.
# Last line: "ncurl: N passed, M failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
NCURL=$PWD/build/bin/ncurl

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok   - $1"; }
fail() {
  failed=$((failed + 1))
  echo "FAIL - $1"
  if [[ $# -gt 1 && -n $2 ]]; then printf '%s\n' "$2" | sed 's/^/       /'; fi
}
finish() {
  echo "ncurl: $passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/netcore-ncurl.XXXXXX")
source Tests/Support/mock-server.sh
mock_pid=""
tls_pid=""
trap 'mock_stop; [[ -n $mock_pid ]] && kill "$mock_pid" 2>/dev/null; [[ -n $tls_pid ]] && kill "$tls_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

[[ -x $NCURL ]] || { fail "$NCURL exists" "run 'make examples' first"; finish; }
mock_start || { fail "the mock server starts"; finish; }
base="http://127.0.0.1:$mock_port/api"
cat >"$tmp/app.json" <<EOF_JSON
{"base_url": "$base",
 "envelope": {"code": "code", "ok_codes": [0], "message": "msg", "data": "data", "trace_id": "traceId"},
 "environments": {"local": "$base", "down": "http://127.0.0.1:1/api"},
 "endpoints": {"user.get": {"path": "/users/{id}"},
               "user.login": {"method": "POST", "path": "/login", "encoding": "json"}}}
EOF_JSON

# run NAME EXPECTED_EXIT ARGS...: runs ncurl; $out = stdout, $err = stderr, $rc.
run() {
  if [[ -n ${server_in:-} ]]; then
    "$NCURL" "$@" >"$tmp/out" 2>"$tmp/err" {server_in}>&-
  else
    "$NCURL" "$@" >"$tmp/out" 2>"$tmp/err"
  fi
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}
# expect NAME EXIT STDOUT STDERR_LINE: exact stdout, stderr containing the line (or empty).
expect() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  if [[ $rc -eq $want_rc && $out == "$want_out" ]] &&
    { [[ -z $want_err && -z $err ]] || { [[ -n $want_err ]] && grep -qxF -- "$want_err" <<<"$err"; }; }; then
    pass "$name"
  else
    fail "$name" "exit $rc (want $want_rc)
stdout: $out
stderr: $err"
  fi
}

ada=$'{\n  "id": 7,\n  "name": "Ada"\n}'

run --help
if [[ $rc -eq 0 && $out == usage:* && $out == *"ncurl [options] call ENDPOINT"* && $out == *"exit status"* ]]; then
  pass "--help prints the usage, exit 0"
else
  fail "--help prints the usage, exit 0" "exit $rc: $out $err"
fi
run --version
expect "--version names both versions" 0 "ncurl 0.3.0 (libnetcore 0.3.0)" ""

run --config "$tmp/app.json" GET /users/7
expect "GET PATH: the envelope's data, pretty-printed, exit 0" 0 "$ada" ""
run --config "$tmp/app.json" call user.get id=7
expect "call ENDPOINT key=value: the placeholder filled from the item" 0 "$ada" ""
run -c "$tmp/app.json" call user.login username=ada password=secret
expect "call with the endpoint's JSON encoding" 0 $'{\n  "token": "tok-ada",\n  "expires_in": 3600\n}' ""
run GET /echo -c "$tmp/app.json" --json name=ada n:=3 'tags:=["a","b"]' -H 'X-Trace: 42' -v
body=$(python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); print(d["method"], json.dumps(d["json"], sort_keys=True), d["headers"].get("x-trace"))' <<<"$out" 2>&1)
if [[ $rc -eq 0 && $body == 'GET {"n": 3, "name": "ada", "tags": ["a", "b"]} 42' ]]; then
  pass "options after the words; key=value, key:=json items as a JSON body; -H header"
else
  fail "options after the words; key=value, key:=json items as a JSON body; -H header" "exit $rc: $body / $err"
fi
if grep -qE '^\* request 1: GET http://127\.0\.0\.1:[0-9]+/api/echo$' <<<"$err" &&
  grep -qE '^\* attempt 1: HTTP 200, [0-9.]+ ms \(dns [0-9.]+, connect [0-9.]+, tls [0-9.]+, first byte [0-9.]+ ms\), [0-9]+ bytes$' <<<"$err" &&
  grep -qE '^\* done in [0-9.]+ ms: success$' <<<"$err" && grep -qE '^< HTTP 200 \(' <<<"$err" &&
  grep -qE '^< Content-Type: application/json' <<<"$err"; then
  pass "--verbose: the event log with timings and the response head on stderr"
else
  fail "--verbose: the event log with timings and the response head on stderr" "$err"
fi

run --config "$tmp/app.json" GET /users/99
expect "API error: exit 4, domain, code and message on stderr, nothing on stdout" 4 "" \
  "ncurl: API 404001: no such user: 99"
run --config "$tmp/app.json" GET /profile
expect "API error with a trace id: printed" 4 "" "ncurl: trace id trace-auth"
run --config "$tmp/app.json" GET /status/503
expect "HTTP error: exit 3" 3 "" \
  "ncurl: HTTP 503: The server answered HTTP 503 Service Unavailable to GET $base/status/503. The server said: \"status 503\". The server failed; retry later."
run --config "$tmp/app.json" GET /badjson
if [[ $rc -eq 5 && -z $out && $err == "ncurl: PARSE 1: The response body is not valid JSON"* ]]; then
  pass "PARSE error: exit 5"
else
  fail "PARSE error: exit 5" "exit $rc: $out $err"
fi
run --config "$tmp/app.json" --env down GET /users/7
if [[ $rc -eq 2 && -z $out && $err == "ncurl: TRANSPORT 7: GET http://127.0.0.1:1/api/users/7 failed: "* ]]; then
  pass "--env selects the environment; TRANSPORT error: exit 2"
else
  fail "--env selects the environment; TRANSPORT error: exit 2" "exit $rc: $out $err"
fi
run --config "$tmp/app.json" call user.nope
expect "CLIENT error (unknown endpoint): exit 1" 1 "" \
  "ncurl: CLIENT 3: Unknown endpoint 'user.nope': define it in the configuration's \"endpoints\" or with nc_client_define_endpoint() before sending."
echo '{"base_url": "http://127.0.0.1:1/api", "colour": 1}' >"$tmp/bad.json"
run --config "$tmp/bad.json" GET /x
if [[ $rc -eq 1 && $err == "ncurl: CLIENT 4: "*"colour"* ]]; then
  pass "a configuration the library refuses: CLIENT 4 naming the key, exit 1"
else
  fail "a configuration the library refuses: CLIENT 4 naming the key, exit 1" "exit $rc: $err"
fi

run --raw --base-url "$base" GET /text
expect "--raw and --base-url: a body that is not JSON as it came" 0 "hello, world" ""
run --raw GET "$base/array"
expect "no configuration: raw mode, absolute URL, any JSON value" 0 $'[\n  1,\n  2,\n  3\n]' ""

run GET
expect "missing PATH: exit 64" 64 "" "ncurl: missing PATH"
run --frobnicate GET /x
expect "unknown option: exit 64" 64 "" "ncurl: unknown option: --frobnicate"
# Bad items and headers: refused before anything is sent (the mock counts requests).
"$NCURL" --raw GET "$base/_stats/reset" >/dev/null {server_in}>&-
run --raw GET "$base/echo" novalue
expect "an item without '=': exit 64" 64 "" "ncurl: an item is key=value or key:=json: novalue"
run --raw GET "$base/echo" 'n:={bad'
expect "a key:=json item that is not JSON: exit 64" 64 "" "ncurl: a key:=json item needs a JSON value"
run --raw -H 'NoColon' GET "$base/echo"
expect "a header without ':': exit 64" 64 "" "ncurl: a header is 'Name: value': NoColon"
run --raw -H $'X-Bad: a\rb' GET "$base/echo"
expect "a header with a CR: exit 64" 64 "" "ncurl: bad header (control characters or invalid UTF-8): X-Bad: a"$'\r'"b"
run --raw GET "$base/_stats"
if [[ $rc -eq 0 && $(python3 -c 'import json, sys; print(json.load(sys.stdin)["paths"].get("/echo", 0))' <"$tmp/out") == 0 ]]; then
  pass "nothing was sent for the refused items and headers"
else
  fail "nothing was sent for the refused items and headers" "$out"
fi
run --config "$tmp/nowhere.json" GET /x
expect "an unreadable configuration file: exit 66" 66 "" \
  "ncurl: cannot read $tmp/nowhere.json: No such file or directory"
run --config "$tmp/app.json" --env staging GET /x
expect "an unknown environment: exit 64" 64 "" "ncurl: no such environment in the configuration: staging"
mock_stop

# The CA bundle named by the environment (CURL_CA_BUNDLE, else SSL_CERT_FILE), read by
# nc_client_new when "tls" names no CA: a C program on the public API, run with the
# variables set, against the HTTPS servers of Tests/Support/tls_server.py (a test CA
# made at start-up; the server exits when its stdin, a pipe this script holds, closes).
mkfifo "$tmp/tls.in"
python3 Tests/Support/tls_server.py --exit-on-stdin-eof <"$tmp/tls.in" >"$tmp/tls.out" 2>"$tmp/tls.err" &
tls_pid=$!
exec {tls_in}>"$tmp/tls.in"
for _ in $(seq 150); do [[ -s $tmp/tls.out ]] && break; sleep 0.1; done
# tls_field SECTION NAME: a member of the server's JSON line ("ports" / "files").
tls_field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]])' "$tmp/tls.out" "$1" "$2"; }
if port=$(tls_field ports good 2>/dev/null); then
  good="https://127.0.0.1:$port/ca-env"
  ca=$(tls_field files ca) other_ca=$(tls_field files other_ca) missing=$(tls_field files missing)
  noenv() { env -u CURL_CA_BUNDLE -u SSL_CERT_FILE "$@"; }
  echo "{\"tls\": {\"ca_file\": \"$other_ca\"}}" >"$tmp/other-ca.json"
  served='"path": "/ca-env"'
  noenv SSL_CERT_FILE="$ca" "$NCURL" --raw GET "$good" >"$tmp/out" 2>"$tmp/err" {tls_in}>&-
  rc=$?
  if [[ $rc -eq 0 && $(cat "$tmp/out") == *"$served"* ]]; then
    pass "SSL_CERT_FILE names the test CA: the https request is trusted"
  else
    fail "SSL_CERT_FILE names the test CA: the https request is trusted" "exit $rc: $(cat "$tmp/out" "$tmp/err")"
  fi
  noenv CURL_CA_BUNDLE="$ca" SSL_CERT_FILE="$other_ca" "$NCURL" --raw GET "$good" >"$tmp/out" 2>"$tmp/err" {tls_in}>&-
  rc=$?
  if [[ $rc -eq 0 && $(cat "$tmp/out") == *"$served"* ]]; then
    pass "CURL_CA_BUNDLE wins over SSL_CERT_FILE"
  else
    fail "CURL_CA_BUNDLE wins over SSL_CERT_FILE" "exit $rc: $(cat "$tmp/out" "$tmp/err")"
  fi
  noenv SSL_CERT_FILE="$ca" "$NCURL" --raw -c "$tmp/other-ca.json" GET "$good" >"$tmp/out" 2>"$tmp/err" {tls_in}>&-
  rc=$?
  if [[ $rc -eq 2 && ! -s $tmp/out && $(cat "$tmp/err") == "ncurl: TRANSPORT 60: "* ]]; then
    pass "tls.ca_file naming another CA wins over SSL_CERT_FILE: TRANSPORT 60, exit 2"
  else
    fail "tls.ca_file naming another CA wins over SSL_CERT_FILE: TRANSPORT 60, exit 2" "exit $rc: $(cat "$tmp/out" "$tmp/err")"
  fi
  noenv "$NCURL" --raw GET "$good" >"$tmp/out" 2>"$tmp/err" {tls_in}>&-
  rc=$?
  if [[ $rc -eq 2 && $(cat "$tmp/err") == "ncurl: TRANSPORT 60: "* ]]; then
    pass "without the variables the test CA is unknown: TRANSPORT 60"
  else
    fail "without the variables the test CA is unknown: TRANSPORT 60" "exit $rc: $(cat "$tmp/out" "$tmp/err")"
  fi
  noenv SSL_CERT_FILE="$missing" "$NCURL" --raw GET "$good" >"$tmp/out" 2>"$tmp/err" {tls_in}>&-
  rc=$?
  if [[ $rc -eq 2 && $(cat "$tmp/err") == "ncurl: TRANSPORT 77: "*"CURL_CA_BUNDLE or SSL_CERT_FILE"* ]]; then
    pass "SSL_CERT_FILE naming a missing file: TRANSPORT 77 naming the variables"
  else
    fail "SSL_CERT_FILE naming a missing file: TRANSPORT 77 naming the variables" "exit $rc: $(cat "$tmp/out" "$tmp/err")"
  fi
else
  fail "the TLS test server starts" "$(cat "$tmp/tls.out" "$tmp/tls.err")"
fi
exec {tls_in}>&-
wait "$tls_pid" 2>/dev/null

# make mock: prints the URL of a mock API that answers, stops on SIGTERM.
MOCK_PORT=0 scripts/mock.sh >"$tmp/mock.out" 2>"$tmp/mock.err" &
mock_pid=$!
url=""
for _ in $(seq 50); do
  url=$(sed -n 's/^mock API: \(http:\/\/127\.0\.0\.1:[0-9]*\/api\) .*/\1/p' "$tmp/mock.out")
  [[ -n $url ]] && break
  sleep 0.1
done
if [[ -n $url ]] && run --raw GET "$url/users/7" && [[ $rc -eq 0 && $out == *'"name": "Ada"'* ]]; then
  pass "make mock prints its URL ($url) and it answers"
else
  fail "make mock prints its URL and it answers" "$(cat "$tmp/mock.out" "$tmp/mock.err") / $out $err"
fi
kill "$mock_pid" 2>/dev/null
wait "$mock_pid" 2>/dev/null
mock_pid=""
finish
