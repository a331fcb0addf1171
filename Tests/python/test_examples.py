"""examples/python/*.py run against the mock API: each exits 0 (they exit 1 on an
unexpected result) and prints what it shows."""
import os
import subprocess
import sys

import pytest

import netcore

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(ROOT, "examples", "python")

#: A line each example must print (what the story shows).
EXPECTED = {
    "quickstart.py": "data: {'id': 7, 'name': 'Ada'}",
    "envelopes.py": "  api error 4003: forbidden [trace trace-fail-1]",
    "cancel.py": "callbacks: ['Cancelled', 'Cancelled', 'Cancelled']",
    "event_loop.py": "queue mode: /users/7 -> {'id': 7, 'name': 'Ada'}",
    "download.py": "GET /status/404 -> HTTP 404; file exists: False",
    "endpoints.py": "user 99: business error 404001: no such user: 99",
    "retry.py": "POST /flaky -> HTTP 503 after 1 attempt(s)",
    "models.py": "fourth item: Item(sku='A3', qty=4, price=4.5)",
}


def test_every_example_is_listed():
    assert sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name, base, tmp_path):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(netcore.__file__))))
    args = [sys.executable, os.path.join(EXAMPLES, name), base]
    if name == "download.py":
        args.append(str(tmp_path))
    p = subprocess.run(args, env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, f"{name} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    assert EXPECTED[name] in p.stdout.splitlines(), p.stdout
