"""The README's Python examples run against the mock API.

The ```python blocks between <!-- python-example:begin --> and
<!-- python-example:end --> in README.md are run in a fresh interpreter, their
placeholder base URL replaced with the mock server's.
"""
import os
import re
import subprocess
import sys

import netcore

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
README = os.path.join(ROOT, "README.md")
BEGIN, END = "<!-- python-example:begin -->", "<!-- python-example:end -->"
PLACEHOLDER = "http://127.0.0.1:8080/api"


def python_blocks(text):
    assert BEGIN in text and END in text, (
        f"{README} has no {BEGIN} ... {END} section (the 'From Python' section is missing)")
    section = text[text.index(BEGIN) + len(BEGIN):text.index(END)]
    return re.findall(r"^```python[^\n]*\n(.*?)^```", section, flags=re.S | re.M)


def test_readme_python_examples_run(base, tmp_path):
    with open(README, encoding="utf-8") as f:
        blocks = python_blocks(f.read())
    assert blocks, "no ```python block between the markers"
    assert any(PLACEHOLDER in b for b in blocks), f"the examples should use {PLACEHOLDER}"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(netcore.__file__))))
    for i, block in enumerate(blocks):
        script = tmp_path / f"example_{i}.py"
        script.write_text(block.replace(PLACEHOLDER, base), encoding="utf-8")
        # -W error: an example that uses a deprecated name fails.
        p = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", str(script)],
                           env=env, cwd=str(tmp_path),
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, f"README example {i + 1} failed:\n{block}\n{p.stderr}"
