#!/usr/bin/env bash
# Every test suite, in order; called by `make test` after the library and the C
# examples are built. Runs all suites even if one fails, then reports.
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
failures=()
run_suite() {
  local name=$1; shift
  echo
  echo "=== $name: $*"
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("$name")
  fi
}

# ExecutorTests need Swift's cooperative pool (two threads on two cores) within
# seconds; the other suites run in parallel and many block a pool thread while
# they wait for a server, so those tests run on their own, after the rest.
run_suite "Swift (NetCoreTests + CAPITests)" swift test --skip ExecutorTests
run_suite "Swift executor tests (alone: they need the cooperative pool)" swift test --skip-build --filter ExecutorTests
run_suite "Swift names beside SwiftNIO (Tests/NIOCompat)" \
  bash -c 'swift build -q --disable-build-manifest-caching --package-path Tests/NIOCompat && "$(swift build --package-path Tests/NIOCompat --show-bin-path)/NIOCompat"'
run_suite "C (header, ABI, examples)" Tests/C/run.sh
run_suite "ABI (exports, Since lines, abidiff baseline)" Tests/abi/run.sh
run_suite "Fault injection, fast part (Tests/fault; make fault runs all)" Tests/fault/run.sh
run_suite "HTTP/2 servers that misbehave (Tests/fault/h2.sh; make fault-h2)" Tests/fault/h2.sh
run_suite "Known fuzz crashes under ASan (Tests/fuzz/known; make fuzz-known)" Tests/fuzz/known.sh
run_suite "Chaos, short (Tests/chaos: 100 requests over a lossy, slow, partitioned link in a namespace; make chaos runs 2,000)" \
  bash -c 'Tests/chaos/run.sh; rc=$?; [ $rc -eq 77 ] && { echo "skipped (namespaces not allowed here)"; exit 0; }; exit $rc'
run_suite "Soak, short (Tests/fault/soak.sh: 20,000 a phase; make soak runs 200,000)" Tests/fault/soak.sh
run_suite "Python" Tests/python/run.sh
run_suite "Install (make install, pkg-config, CMake)" Tests/install/run.sh
run_suite "Python wheel (make wheel, installed into a fresh venv)" Tests/wheel/run.sh
run_suite "ncurl and make mock" Tests/ncurl/run.sh
run_suite "Conformance (httpbin, nginx, tinyproxy beside requests, httpx, curl; make conformance)" \
  Tests/conformance/run.sh

echo
[ ${#failures[@]} -gt 0 ] && echo "failed suites: ${failures[*]}"
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
