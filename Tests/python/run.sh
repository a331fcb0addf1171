#!/usr/bin/env bash
# Python test suite: installs pytest when missing, runs Tests/python.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -c 'import pytest' 2>/dev/null || python3 -m pip install -q pytest
python3 -m pytest -q -p no:cacheprovider Tests/python
