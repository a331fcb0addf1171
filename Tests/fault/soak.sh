#!/usr/bin/env bash
# The short soak of `make test` (Tests/fault/soak.c; `make soak` runs 200,000 a
# phase): every phase with SOAK_N requests (default 20,000), exactly one callback
# each, what each feature must do, and no more than 1 MiB of resident-set growth.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
LIBDIR=${NC_LIBDIR:-build/lib}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${NC_CC:-gcc} -std=c11 -O2 -g -Wall -Wextra -Werror -Iinclude -o "$tmp/soak" Tests/fault/soak.c \
    -L "$LIBDIR" "-Wl,-rpath,$PWD/$LIBDIR" -lnetcore -ljansson -pthread
"$tmp/soak" "${SOAK_N:-20000}" ${SOAK_PHASE:-}
