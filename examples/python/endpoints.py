"""Endpoints: name an API's calls once, call them by name.

usage: python3 endpoints.py BASE_URL
Exits 1 on an unexpected result."""
import sys

import netcore

base = sys.argv[1]
config = {
    "base_url": base, "envelope": {},
    "endpoints": {"user.login": {"method": "POST", "path": "/login", "encoding": "json"},
                  "user.get": {"method": "GET", "path": "/users/{id}"}},
}
with netcore.Client(config) as client:
    token = client.call("user.login", username="ada", password="secret").data["token"]
    print("token:", token)
    client.set_token(token)  # Authorization: Bearer … on every later request
    user = client.call("user.get", id=7).data
    print("user 7:", user)
    try:
        client.call("user.get", id=99)
        sys.exit(1)
    except netcore.APIError as e:
        print(f"user 99: business error {e.code}: {e.message}")
    sys.exit(0 if token == "tok-ada" and user == {"id": 7, "name": "Ada"} else 1)
