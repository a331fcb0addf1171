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
