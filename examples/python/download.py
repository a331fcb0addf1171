"""Download to a file: the body goes to disk as it arrives, not into memory.

usage: python3 download.py BASE_URL [DIRECTORY]
The body goes to PATH.part, renamed to PATH on success only: a non-2xx answer
raises and leaves no file. Exits 1 on an unexpected size."""
import os
import sys
import tempfile

import netcore

base = sys.argv[1]
directory = sys.argv[2] if len(sys.argv) > 2 else tempfile.gettempdir()
path = os.path.join(directory, f"netcore-download-{os.getpid()}.bin")
missing = os.path.join(directory, f"netcore-missing-{os.getpid()}.bin")
ok = True
with netcore.Client({"base_url": base}) as client:
    r = client.get("/large", params={"bytes": 1048576}, output=path)
    print(f"GET /large -> {r.status}, {os.path.getsize(path)} bytes in {path}")
    ok &= os.path.getsize(path) == 1048576 and r.body == b""
    try:
        client.get("/status/404", output=missing)
        ok = False
    except netcore.HTTPError as e:
        print(f"GET /status/404 -> HTTP {e.code}; file exists: {os.path.exists(missing)}")
        ok &= not os.path.exists(missing)
for p in (path, missing):
    if os.path.exists(p):
        os.unlink(p)
sys.exit(0 if ok else 1)
