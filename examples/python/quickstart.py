"""Quick start: one client, one request, the envelope's data.

usage: python3 quickstart.py http://127.0.0.1:8080/api   (make mock prints the URL)
Exits 1 if the answer is not the expected one."""
import sys

import netcore

base = sys.argv[1]
# "envelope": {} reads {"code": 0, "msg": "...", "data": ...}: code 0 is success.
with netcore.Client({"base_url": base, "envelope": {}}) as client:
    user = client.get("/env/code/ok").data  # the envelope's data only
    print("data:", user)
    sys.exit(0 if user == {"id": 7, "name": "Ada"} else 1)
