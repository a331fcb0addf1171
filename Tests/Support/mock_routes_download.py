"""Download routes (resumable downloads, progress, streamed bodies; docs/transfers.md).

  /dl/file?key=K&bytes=N   N bytes of deterministic content (byte i is i % 251), streamed
                      in 64 KiB pieces; ETag "K-N-vV" (V from &version=V, default 1),
                      Accept-Ranges: bytes. Honours "Range: bytes=S-" with a 206 and
                      Content-Range, unless If-Range names another validator (then a
                      full 200); S >= N answers 416.
                      &validator=none sends neither ETag nor Last-Modified, &validator=lm
                      sends Last-Modified only; &ranges=0 ignores Range and sends no
                      Accept-Ranges; &stall_after=B stops after B bytes of the body for
                      up to 30 s (a transfer to cancel mid-way), then closes.
  /dl/cut?key=K&bytes=N    as /dl/file, except that the first request with key K sends
                      the full Content-Length, half the body, then closes the connection.
  /dl/stats?key=K     {"key","requests","range_requests","last_range","last_if_range"}
                      for /dl/file and /dl/cut requests with that key
"""
import json
import threading
import time

PIECE = 64 * 1024
_UNIT = bytes(i % 251 for i in range(251 * 262))  # >= PIECE bytes, starts at offset 0 mod 251
_lock = threading.Lock()
_stats = {}
_cut_done = set()


def content(offset, n):
    """The n bytes of the content starting at offset (byte i is i % 251)."""
    out = bytearray()
    while n > 0:
        start = offset % 251
        take = min(n, len(_UNIT) - start)
        out += _UNIT[start:start + take]
        offset += take
        n -= take
    return bytes(out)


def _note(key, range_header, if_range):
    with _lock:
        s = _stats.setdefault(key, {"requests": 0, "range_requests": 0, "last_range": None,
                                    "last_if_range": None})
        s["requests"] += 1
        if range_header:
            s["range_requests"] += 1
        s["last_range"] = range_header
        s["last_if_range"] = if_range


def _serve(h, cut):
    key = h.arg("key", "")
    n = max(0, h.int_arg("bytes", 1048576))
    range_header = h.headers.get("Range")
    if_range = h.headers.get("If-Range")
    _note(key, range_header, if_range)
    validator = h.arg("validator", "etag")
    etag = '"%s-%d-v%s"' % (key, n, h.arg("version", "1"))
    last_modified = "Mon, 02 Nov 2026 10:00:00 GMT"
    headers = []
    current = None
    if validator == "etag":
        headers.append(("ETag", etag))
        current = etag
    elif validator == "lm":
        headers.append(("Last-Modified", last_modified))
        current = last_modified
    ranges = h.arg("ranges", "1") != "0"
    if ranges:
        headers.append(("Accept-Ranges", "bytes"))
    start = 0
    status = 200
    if ranges and range_header and range_header.startswith("bytes=") and range_header.endswith("-"):
        try:
            wanted = int(range_header[6:-1])
        except ValueError:
            wanted = -1
        if wanted >= 0 and (if_range is None or if_range == current):
            if wanted >= n:
                return h.send_body(416, b"", None, headers + [("Content-Range", "bytes */%d" % n)])
            start, status = wanted, 206
            headers.append(("Content-Range", "bytes %d-%d/%d" % (start, n - 1, n)))
    length = n - start
    first_cut = False
    if cut:
        with _lock:
            first_cut = key not in _cut_done
            _cut_done.add(key)
    if not h.start(status, "application/octet-stream", length, headers):
        return
    limit = length // 2 if first_cut else length
    stall_after = h.int_arg("stall_after", -1)
    sent = 0
    while sent < limit:
        take = min(PIECE, limit - sent)
        if 0 <= stall_after <= sent + take:
            take = max(0, stall_after - sent)
            if take:
                h.wfile.write(content(start + sent, take))
            h.wfile.flush()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not h.server.stopping.is_set():
                time.sleep(0.05)
            h.close_connection = True
            return
        h.wfile.write(content(start + sent, take))
        sent += take
    if first_cut:
        h.wfile.flush()
        h.close_connection = True


def route_dl_file(h):
    _serve(h, cut=False)


def route_dl_cut(h):
    _serve(h, cut=True)


def route_dl_stats(h):
    key = h.arg("key", "")
    with _lock:
        s = dict(_stats.get(key, {"requests": 0, "range_requests": 0, "last_range": None,
                                  "last_if_range": None}))
    s["key"] = key
    body = json.dumps(s).encode()
    h.send_body(200, body, "application/json")


ROUTES = {"/dl/file": route_dl_file, "/dl/cut": route_dl_cut, "/dl/stats": route_dl_stats}
