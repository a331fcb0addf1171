"""Routes of the Python surfaces tests (typed models, streamed lines):

- GET /plain/users/7: an ordinary JSON API (no envelope): {"id": 7, "name": "Ada", ...}
- GET /plain/order?price=<json>: an order whose items[3].price is the given JSON
  value (a number by default), with an ISO datetime, an enum string, nested lists
- GET /env/order: the same order in the {code, msg, data} envelope
- GET /ndjson?n=N: N JSON records, one a line (application/x-ndjson), sent in
  pieces that cut lines and UTF-8 characters in two
- GET /sse?n=N: N text/event-stream events (id, event, data lines, a blank line)
"""
import json
import urllib.parse

JSON_TYPE = "application/json"


def _dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _order(h):
    raw = h.arg("price")
    price = json.loads(raw) if raw is not None else 4.5
    items = [{"sku": f"A{i}", "qty": i + 1, "price": 1.25 * (i + 1), "tags": ["x"]} for i in range(5)]
    items[3]["price"] = price
    return {"id": 42, "status": "paid", "created": "2026-11-28T12:00:00Z",
            "customer": {"id": 7, "name": "Ada", "email": None},
            "items": items, "totals": {"net": 10.5, "tax": 2}, "extra": "ignored"}


def route_plain_user(h):
    h.send_json(200, {"id": 7, "name": "Ada", "email": "ada@example.com", "roles": ["admin"]})


def route_plain_order(h):
    h.send_json(200, _order(h))


def route_env_order(h):
    h.send_json(200, {"code": 0, "msg": "ok", "data": _order(h)})


def _send_pieces(h, ctype, body, piece):
    if not h.start(200, ctype, len(body)):
        return
    for i in range(0, len(body), piece):
        h.wfile.write(body[i:i + piece])
        h.wfile.flush()


def route_ndjson(h):
    n = h.int_arg("n", 5)
    body = b"".join(_dumps({"i": i, "name": "Zoë"}) + b"\n" for i in range(n))
    _send_pieces(h, "application/x-ndjson", body, 7)


def route_sse(h):
    n = h.int_arg("n", 3)
    body = "".join(f"id: {i}\r\nevent: tick\r\ndata: {{\"i\": {i}}}\r\n\r\n" for i in range(n)).encode()
    _send_pieces(h, "text/event-stream", body, 5)


ROUTES = {
    "/plain/users/7": route_plain_user, "/plain/order": route_plain_order,
    "/env/order": route_env_order, "/ndjson": route_ndjson, "/sse": route_sse,
}
