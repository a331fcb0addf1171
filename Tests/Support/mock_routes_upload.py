"""Upload routes of the mock API (issue 15 item 9; docs/uploads.md).

  /upload/echo        reads the body (Content-Length or chunked) and answers the ok
                      envelope {"length", "sha256", "content_type", "method"}
  /upload/multipart   parses a multipart/form-data body with the standard library
                      (email.parser, policy HTTP) and answers the ok envelope
                      {"parts": [{"name", "filename", "content_type", "length",
                      "sha256", "text" (the first 200 bytes, decoded, of a field)}]}
  /upload/flaky?key=K&fails=F   the first F requests with key K answer 503 (the
                      body read and dropped), later ones as /upload/echo
All count under /_hits?key=K like every route.
"""
import email.parser
import email.policy
import hashlib
import threading

_FLAKY = {}
_FLAKY_LOCK = threading.Lock()


def route_upload_echo(h):
    body = h.body
    h.send_json(200, {"code": 0, "msg": "ok", "data": {
        "length": len(body), "sha256": hashlib.sha256(body).hexdigest(),
        "content_type": h.headers.get("Content-Type"), "method": h.command}})


def route_upload_multipart(h):
    body = h.body
    ctype = h.headers.get("Content-Type", "")
    head = f"Content-Type: {ctype}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    parts = []
    if msg.is_multipart():
        for part in msg.iter_parts():
            data = part.get_payload(decode=True) or b""
            parts.append({
                "name": part.get_param("name", header="content-disposition"),
                "filename": part.get_filename(),
                "content_type": part.get_content_type() if part.get("Content-Type") else None,
                "length": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                "text": data[:200].decode("utf-8", "replace")})
    h.send_json(200, {"code": 0, "msg": "ok", "data": {"content_type": ctype, "parts": parts}})


def route_upload_flaky(h):
    key, fails = h.arg("key", ""), h.int_arg("fails", 1)
    with _FLAKY_LOCK:
        seen = _FLAKY.get(key, 0) + 1
        _FLAKY[key] = seen
    if seen <= fails:
        return h.send_json(503, {"error": "try again", "attempt": seen})
    route_upload_echo(h)


ROUTES = {"/upload/echo": route_upload_echo, "/upload/multipart": route_upload_multipart,
          "/upload/flaky": route_upload_flaky}
