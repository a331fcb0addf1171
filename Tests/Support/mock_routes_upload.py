"""Upload routes of the mock API (docs/uploads.md).

  /upload/echo        reads the body (Content-Length or chunked) and answers the ok
                      envelope {"length", "sha256", "content_type", "method"}
  /upload/multipart   parses a multipart/form-data body with the standard library
                      (email.parser, policy HTTP) and answers the ok envelope
                      {"parts": [{"name", "filename", "content_type", "length",
                      "sha256", "text" (the first 200 bytes, decoded, of a field),
                      "disposition" (the part's Content-Disposition line as sent, decoded
                      as UTF-8), "cgi_name", "cgi_filename" (the same part read by
                      cgi.FieldStorage, the other standard-library parser)}]}
  /upload/flaky?key=K&fails=F   the first F requests with key K answer 503 (the
                      body read and dropped), later ones as /upload/echo
All count under /_hits?key=K like every route.
"""
import email.parser
import email.policy
import hashlib
import io
import re
import threading
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)   # cgi: deprecated in 3.11, gone in 3.13
    try:
        import cgi
    except ImportError:
        cgi = None

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
    for part, disposition in zip(parts, _dispositions(ctype, body)):
        part["disposition"] = disposition
    for part, (name, filename) in zip(parts, _cgi_fields(ctype, body)):
        part["cgi_name"], part["cgi_filename"] = name, filename
    h.send_json(200, {"code": 0, "msg": "ok", "data": {"content_type": ctype, "parts": parts}})


def _dispositions(ctype, body):
    """Each part's Content-Disposition value exactly as sent (bytes decoded as UTF-8)."""
    m = re.search(r'boundary="?([^";]+)"?', ctype)
    if not m:
        return []
    out = []
    for chunk in body.split(b"--" + m.group(1).encode())[1:]:
        head = chunk.split(b"\r\n\r\n", 1)[0]
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-disposition:"):
                out.append(line.split(b":", 1)[1].strip().decode("utf-8", "replace"))
    return out


def _cgi_fields(ctype, body):
    """(name, filename) of each part as cgi.FieldStorage reads them (none without cgi)."""
    if cgi is None:
        return []
    environ = {"REQUEST_METHOD": "POST", "CONTENT_TYPE": ctype, "CONTENT_LENGTH": str(len(body))}
    fs = cgi.FieldStorage(fp=io.BytesIO(body), environ=environ, keep_blank_values=True)
    return [(f.name, f.filename) for f in (fs.list or [])]


def route_upload_flaky(h):
    key, fails = h.arg("key", ""), h.int_arg("fails", 1)
    with _FLAKY_LOCK:
        seen = _FLAKY.get(key, 0) + 1
        _FLAKY[key] = seen
    if seen <= fails:
        return h.send_json(503, {"error": "try again", "attempt": seen})
    route_upload_echo(h)


def route_upload_unread(h):
    # The body is left unread (mock_server.dispatch): the client's send buffer
    # fills and its upload stops moving.
    h.server.stopping.wait(h.int_arg("ms", 30000) / 1000.0)
    h.close_connection = True


ROUTES = {"/upload/unread": route_upload_unread, "/upload/echo": route_upload_echo, "/upload/multipart": route_upload_multipart,
          "/upload/flaky": route_upload_flaky}
