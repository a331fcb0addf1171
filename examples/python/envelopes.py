"""The three envelope shapes, and raw mode: where success and the data are.

usage: python3 envelopes.py BASE_URL
A business failure (HTTP 200 with a failing envelope) raises netcore.APIError with
the server's code, message and trace id. Exits 1 on any unexpected result."""
import sys

import netcore

base = sys.argv[1]
SHAPES = [
    ("A (code)", {"code": "code", "ok_codes": [0], "message": "msg", "data": "data"}, "/env/code"),
    ("B (success flag)", {"success": "success", "code": "code", "message": "msg", "data": "data",
                          "trace_id": "traceId"}, "/env/success"),
    ("C (status)", {"status": "status", "ok_status": ["OK"], "code": "errorCode", "ok_codes": ["0"],
                    "message": "errorMsg", "data": "content"}, "/env/status"),
]
unexpected = 0
for name, envelope, prefix in SHAPES:
    print("envelope", name)
    with netcore.Client({"base_url": base, "envelope": envelope}) as client:
        print("  ok:", client.get(prefix + "/ok").data)
        try:
            client.get(prefix + "/fail")
            unexpected += 1  # a failing envelope must raise
        except netcore.APIError as e:
            trace = f" [trace {e.trace_id}]" if e.trace_id else ""
            print(f"  api error {e.code_str}: {e.message}{trace}")

# Raw mode: no envelope; the body is the data, only HTTP errors raise.
print("raw mode")
with netcore.Client({"base_url": base}) as client:
    body = client.get("/env/code/fail").json()
    print("  ok:", body)
    unexpected += body.get("code") != 1001
sys.exit(1 if unexpected else 0)
