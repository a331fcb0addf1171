"""Routes of the chaos suite (Tests/chaos: a lossy, slow, partitioned network).

  /chaos/post?key=K   a write: counts every arrival of key K; with an Idempotency-Key
                      header the first arrival of that key is the write, later ones
                      replay it ({"replayed": true}). Answers the ok envelope
                      {"key", "arrival" (1 for the first), "replayed"}.
  /chaos/stats        {"arrivals": {K: n}, "idempotency": {key: arrivals}} (not keyed)
"""
import threading

from mock_server import JSON_TYPE, dumps

_lock = threading.Lock()
_arrivals = {}
_idem = {}


def route_post(h):
    key = h.arg("key", "")
    idem = h.headers.get("Idempotency-Key")
    with _lock:
        n = _arrivals[key] = _arrivals.get(key, 0) + 1
        replayed = False
        if idem:
            replayed = idem in _idem
            _idem[idem] = _idem.get(idem, 0) + 1
    body = dumps({"code": 0, "msg": "ok", "data": {"key": key, "arrival": n, "replayed": replayed}})
    h.send_body(200, body, JSON_TYPE)


def route_stats(h):
    with _lock:
        body = dumps({"arrivals": dict(_arrivals), "idempotency": dict(_idem)})
    h.send_body(200, body, JSON_TYPE)


ROUTES = {"/chaos/post": route_post, "/chaos/stats": route_stats}
