"""API-layer routes of the mock server (loaded by mock_server.py; adapters that
rewrite the query, issue 34).

  /qsigned?...&ts=T&sign=S
                      checks a query signature an adapter added: S must be the
                      lowercase hex of FNV-1a 64 over "qsecret\\n" + the query's
                      other pairs, percent-decoded, as "name=value", sorted by
                      name then value and joined by "&" (a toy keyed checksum a
                      test can compute in any language; a real app would use
                      HMAC). ts must be present. ok {"verified": true, "signed": TEXT}
                      or 401 {"error": "bad sign", "signed": TEXT, "got": S}
"""
from urllib.parse import parse_qsl, urlsplit

QUERY_SECRET = "qsecret"


def ok(data):
    return {"code": 0, "msg": "ok", "data": data}


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def route_qsigned(h):
    pairs = parse_qsl(urlsplit(h.path).query, keep_blank_values=True)
    got = [v for n, v in pairs if n == "sign"]
    rest = sorted((n, v) for n, v in pairs if n != "sign")
    text = "&".join(f"{n}={v}" for n, v in rest)
    expected = fnv1a64((QUERY_SECRET + "\n" + text).encode("utf-8"))
    if len(got) == 1 and got[0] == expected and any(n == "ts" for n, _ in rest):
        h.send_json(200, ok({"verified": True, "signed": text}))
    else:
        h.send_json(401, {"error": "bad sign", "signed": text, "got": got})


ROUTES = {"/qsigned": route_qsigned}
