#!/usr/bin/env bash
# scripts/docs.sh — `make docs`: the HTML reference of the C API, from the header's
# comments (Debian's doxygen; installed when missing, with sudo when not root).
# Writes build/docs/html/index.html: the README as the main page, a page per group
# of the header (versions, status codes, errors, client, requests, sending,
# responses, the event loop; each feature under "Features") and the docs/ pages.
# Fails when doxygen finds a function of the header undocumented (constants and
# types documented by a comment on a block of them are listed, not fatal).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
if ! command -v doxygen >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends doxygen >/dev/null
fi
OUT=build/docs
SRC=$OUT/src
rm -rf "$OUT"
mkdir -p "$SRC"
python3 scripts/docs.py include/netcore.h "$SRC/netcore.h"
cp README.md "$SRC/README.md"
for f in docs/*.md; do cp "$f" "$SRC/"; done
{
  cat docs/Doxyfile
  echo "INPUT = $SRC"
  echo "OUTPUT_DIRECTORY = $OUT"
  echo "USE_MDFILE_AS_MAINPAGE = $SRC/README.md"
  echo "PROJECT_NUMBER = $(sed -n 's/^#define NC_VERSION_STRING "\(.*\)"$/\1/p' include/netcore.h)"
  echo "WARN_LOGFILE = $OUT/warnings.txt"
} > "$OUT/Doxyfile"
doxygen "$OUT/Doxyfile"
warnings=$(grep -c "netcore.h.*(function)" "$OUT/warnings.txt" || true)
pages=$(ls "$OUT"/html/group__*.html 2>/dev/null | wc -l)
echo "docs: $OUT/html/index.html ($pages group pages; undocumented functions: $warnings; other warnings: build/docs/warnings.txt)"
if [ "$warnings" -ne 0 ]; then
  grep "netcore.h.*(function)" "$OUT/warnings.txt" | head -20 >&2
  exit 1
fi
