"""Uploads from Python: data= a file object (streamed by the library from its path),
files= multipart parsed by the server with the standard library, a missing file
raising before anything is sent, and the asyncio client doing the same."""
import asyncio
import hashlib
import io
import os
import pathlib
import resource
import uuid

import pytest

import netcore


def _file(tmp_path, size, name="body.bin"):
    path = tmp_path / name
    block = hashlib.sha256(name.encode()).digest() * 2048   # 64 KiB, deterministic
    with open(path, "wb") as f:
        left = size
        while left:
            f.write(block[:min(left, len(block))])
            left -= min(left, len(block))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return path, digest


def _rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_data_file_object_is_streamed_with_flat_memory(client, tmp_path):
    path, digest = _file(tmp_path, 64 * 1024 * 1024)
    before = _rss_kib()
    with open(path, "rb") as f:
        r = client.put("/upload/echo", data=f, headers={"Content-Type": "application/x-test"})
    grew = _rss_kib() - before
    assert r.data == {"length": 64 * 1024 * 1024, "sha256": digest,
                      "content_type": "application/x-test", "method": "PUT"}
    # The 64 MiB file was never in memory (streamed from its path by libcurl).
    assert grew < 32 * 1024, f"RSS grew by {grew} KiB"


def test_data_file_like_that_is_not_a_file_is_read(client):
    r = client.post("/upload/echo", data=io.BytesIO(b"abc"))
    assert r.data["length"] == 3
    assert r.data["sha256"] == hashlib.sha256(b"abc").hexdigest()


def test_files_multipart_fields_and_files(client, tmp_path):
    path, digest = _file(tmp_path, 200_000, "photo.jpg")
    with open(path, "rb") as f:
        r = client.post("/upload/multipart", data={"title": "hello", "n": 7},
                        files={"photo": f, "doc": ("notes.txt", b"some notes", "text/plain"),
                               "byPath": pathlib.Path(path), "raw": b"xyz"})
    parts = {p["name"]: p for p in r.data["parts"]}
    assert r.data["content_type"].startswith("multipart/form-data; boundary=")
    assert parts["title"]["text"] == "hello" and parts["title"]["filename"] is None
    assert parts["n"]["text"] == "7"
    assert parts["photo"]["filename"] == "photo.jpg" and parts["photo"]["sha256"] == digest
    assert parts["byPath"]["filename"] == "photo.jpg" and parts["byPath"]["length"] == 200_000
    assert parts["doc"]["filename"] == "notes.txt" and parts["doc"]["content_type"] == "text/plain"
    assert parts["doc"]["text"] == "some notes"
    assert parts["raw"]["filename"] == "raw" and parts["raw"]["text"] == "xyz"


def test_missing_file_raises_and_sends_nothing(client, tmp_path):
    key = uuid.uuid4().hex
    missing = tmp_path / "nope.bin"
    with pytest.raises(netcore.InvalidRequest) as e:
        client.post("/upload/multipart", params={"key": key}, files={"f": missing})
    assert str(missing) in str(e.value)
    assert client.get("/_hits", params={"key": key}, envelope=False).json()["hits"] == 0


def test_files_with_json_is_refused(client):
    with pytest.raises(ValueError):
        client.post("/upload/multipart", json={"a": 1}, files={"f": b"x"})


def test_async_client_uploads(base, tmp_path):
    path, digest = _file(tmp_path, 1_000_000)

    async def main():
        async with netcore.AsyncClient({"base_url": base, "envelope": {}}) as c:
            with open(path, "rb") as f:
                r1 = await c.post("/upload/echo", data=f)
            r2 = await c.post("/upload/multipart", files={"f": pathlib.Path(path)})
            return r1, r2

    r1, r2 = asyncio.run(main())
    assert r1.data["sha256"] == digest
    assert r2.data["parts"][0]["sha256"] == digest


def test_files_awkward_names_arrive_as_a_browser_sends_them(client, tmp_path):
    # HTML5 (what browsers send, and libcurl since 7.81): `"` %22, CR %0D, LF %0A,
    # backslash and UTF-8 as they are; cgi.FieldStorage reads back exactly that.
    path, digest = _file(tmp_path, 10_000, "doc.txt")
    with open(path, "rb") as f:
        r = client.post("/upload/multipart",
                        data={'we"ird': "1", "line\r\nbreak": "2", "back\\slash": "3", "ünï": "4"},
                        files={"file": ('C:\\dir\\"q".txt', f), "tuple": ("naïve\n.bin", b"xyz")})
    parts = r.data["parts"]
    got = [(p["cgi_name"], p["cgi_filename"], p["text"] if p["cgi_filename"] is None else p["sha256"])
           for p in parts]
    assert got == [("we%22ird", None, "1"), ("line%0D%0Abreak", None, "2"), ("back\\slash", None, "3"),
                   ("ünï", None, "4"), ("file", "C:\\dir\\%22q%22.txt", digest),
                   ("tuple", "naïve%0A.bin", hashlib.sha256(b"xyz").hexdigest())]
    assert parts[4]["disposition"] == 'form-data; name="file"; filename="C:\\dir\\%22q%22.txt"'
    assert parts[4]["content_type"] == "text/plain"          # from the .txt extension
    assert parts[5]["content_type"] == "application/octet-stream"


def test_files_tuple_with_a_file_object_streams_it_under_the_given_name(client, tmp_path):
    path, digest = _file(tmp_path, 300_000, "orig.bin")
    with open(path, "rb") as f:
        r = client.post("/upload/multipart", files={"up": ("renamed.dat", f, "application/x-dat")})
    (part,) = r.data["parts"]
    assert (part["name"], part["filename"], part["content_type"], part["length"], part["sha256"]) == \
        ("up", "renamed.dat", "application/x-dat", 300_000, digest)


def test_a_post_from_a_file_is_not_resent_on_a_dropped_connection(client, tmp_path):
    path, _ = _file(tmp_path, 200_000)
    for kind in ("data", "files"):
        client.get("/env/code/ok")   # leaves a kept-alive connection for the POST to reuse
        key = uuid.uuid4().hex
        with open(path, "rb") as f, pytest.raises(netcore.TransportError) as e:
            if kind == "data":
                client.post("/drop", params={"key": key}, data=f)
            else:
                client.post("/drop", params={"key": key}, files={"f": f})
        assert e.value.code in (52, 65), kind
        assert client.get("/_hits", params={"key": key}, envelope=False).json()["hits"] == 1, kind
