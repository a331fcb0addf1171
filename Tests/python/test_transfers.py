"""Downloads (output= through path.part, resume), progress= and client.stream()
(issue 15 items 7, 8, 10) against the mock API's /dl routes."""
import random

import pytest

import netcore


def content(n, offset=0):
    return bytes((i % 251) for i in range(offset, offset + n))


def dl_stats(raw_client, key):
    return raw_client.get("/dl/stats", params={"key": key}).json()


def test_a_cut_download_leaves_only_a_part_and_the_next_call_resumes_it(raw_client, tmp_path):
    key, n = f"py{random.getrandbits(48)}", 1_000_000
    target = tmp_path / "f.bin"
    with pytest.raises(netcore.TransportError):
        raw_client.get("/dl/cut", params={"key": key, "bytes": n}, output=target)
    assert not target.exists()
    assert (tmp_path / "f.bin.part").stat().st_size == n // 2
    r = raw_client.get("/dl/cut", params={"key": key, "bytes": n}, output=target)
    assert r.status == 206
    assert target.read_bytes() == content(n)
    assert not (tmp_path / "f.bin.part").exists()
    stats = dl_stats(raw_client, key)
    assert stats["range_requests"] == 1 and stats["last_range"] == f"bytes={n // 2}-"
