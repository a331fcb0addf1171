"""Retry: backoff on 5xx for GETs, a POST sent once, a deadline over all attempts.

usage: python3 retry.py BASE_URL
/flaky?key=K&fails=F answers 503 to its first F requests with key K.
Exits 1 on an unexpected result."""
import os
import sys

import netcore

base = sys.argv[1]
key = f"py-retry-{os.getpid()}"
retry = netcore.Retry(total=3, backoff_factor=0.05, status_forcelist=[503])
ok = True
with netcore.Client({"base_url": base, "envelope": {}}, retry=retry) as client:
    r = client.get("/flaky", params={"key": key + "-get", "fails": 2})
    print("GET /flaky ->", r.status, "after", r.metrics["attempts"], "attempt(s)")
    ok &= r.metrics["attempts"] == 3
    try:  # not idempotent: sent once
        client.post("/flaky", params={"key": key + "-post", "fails": 1})
        ok = False
    except netcore.HTTPError as e:
        print("POST /flaky -> HTTP", e.code, "after", e.attempts, "attempt(s)")
        ok &= e.attempts == 1
    try:  # all attempts and waits within 0.3 s
        client.get("/flaky", params={"key": key + "-deadline", "fails": 100}, deadline=0.3,
                   retry=netcore.Retry(total=50, backoff_factor=0.1, status_forcelist=[503]))
        ok = False
    except netcore.DeadlineExceeded as e:
        print("GET /flaky with a deadline ->", type(e).__name__)
sys.exit(0 if ok else 1)
