"""The response cache from Python: cache= policies, on_cached, response.from_cache /
not_modified, cache_clear / cache_remove / cache_stats, sync and asyncio, a disk
cache shared by two processes — against the mock API's /cache/* routes
(Tests/Support/mock_routes_cache.py)."""
import asyncio
import os
import random
import subprocess
import sys
import textwrap

import pytest

import netcore
from netcore import CachePolicy


def key():
    return f"c{random.getrandbits(63)}"


def count(base, k):
    with netcore.Client({"base_url": base}) as c:
        return c.get(f"/cache/count?key={k}").json()


def config(base, cache=None, **extra):
    return {"base_url": base, "envelope": {}, "coalesce": False, "cache": cache if cache is not None else {},
            **extra}


def test_cache_else_network_serves_a_fresh_answer_without_a_request(base):
    k = key()
    with netcore.Client(config(base)) as c:
        first = c.get(f"/cache/resource?key={k}&max_age=3600", cache=CachePolicy.CACHE_ELSE_NETWORK)
        second = c.get(f"/cache/resource?key={k}&max_age=3600", cache=CachePolicy.CACHE_ELSE_NETWORK)
        assert (first.from_cache, second.from_cache) == (False, True)
        assert second.data["n"] == 1
        stats = c.cache_stats()
        assert stats["hits"] == 1 and stats["misses"] == 1 and stats["entries"] == 1
    assert count(base, k)["requests"] == 1


def test_a_304_serves_the_stored_body_and_says_not_modified(base):
    k = key()
    path = f"/cache/resource?key={k}&max_age=0&etag=1"
    with netcore.Client(config(base)) as c:
        c.get(path, cache=CachePolicy.CACHE_ELSE_NETWORK)
        again = c.get(path, cache=CachePolicy.CACHE_ELSE_NETWORK)
        assert again.from_cache and again.not_modified
        assert again.status == 200 and again.data["n"] == 1
    assert count(base, k) == {"requests": 2, "conditional": 1, "not_modified": 1}


def test_cache_only_miss_raises_not_cached_and_sends_nothing(base):
    k = key()
    with netcore.Client(config(base)) as c:
        with pytest.raises(netcore.NotCached) as info:
            c.get(f"/cache/resource?key={k}", cache=CachePolicy.CACHE_ONLY)
        assert info.value.code == netcore.ClientCode.NOT_CACHED == 12
    assert count(base, k)["requests"] == 0


def test_cache_then_network_calls_on_cached_first(base):
    k = key()
    path = f"/cache/resource?key={k}&max_age=0&etag=1"
    seen = []
    with netcore.Client(config(base)) as c:
        c.get(path)  # NETWORK_ONLY stores it
        final = c.get(path, cache=CachePolicy.CACHE_THEN_NETWORK,
                      on_cached=lambda r, e: seen.append(("cached", r.from_cache, r.data["n"], e)))
        seen.append(("final", final.from_cache, final.data["n"], final.not_modified))
    assert seen == [("cached", True, 1, None), ("final", True, 1, True)]


def test_offline_answers_from_the_cache_with_network_else_cache(base):
    k = key()
    path = f"/cache/resource?key={k}&max_age=0"
    with netcore.Client(config(base), reachability="online") as c:
        c.get(path, cache=CachePolicy.NETWORK_ELSE_CACHE)
        c.reachability = "offline"
        r = c.get(path, cache=CachePolicy.NETWORK_ELSE_CACHE)
        assert r.from_cache and r.data["n"] == 1
        with pytest.raises(netcore.Unreachable):
            c.get(path)
    assert count(base, k)["requests"] == 1


def test_clear_remove_and_bad_arguments(base):
    a, b = key(), key()
    with netcore.Client(config(base)) as c:
        c.get(f"/cache/resource?key={a}&max_age=3600")
        c.get(f"/cache/resource?key={b}&max_age=3600")
        c.cache_remove(base + f"/cache/resource?key={a}")
        with pytest.raises(netcore.NotCached):
            c.get(f"/cache/resource?key={a}&max_age=3600", cache=CachePolicy.CACHE_ONLY)
        assert c.get(f"/cache/resource?key={b}&max_age=3600", cache=CachePolicy.CACHE_ONLY).from_cache
        c.cache_clear()
        assert c.cache_stats()["entries"] == 0
        with pytest.raises(netcore.InvalidArgument):
            c.cache_remove("")
        with pytest.raises(ValueError):
            c.get("/x", cache=9)
        with pytest.raises(TypeError):
            c.get("/x", cache=CachePolicy.CACHE_THEN_NETWORK, on_cached="not callable")
    with netcore.Client({"base_url": base}) as plain:
        assert plain.cache_stats() is None
        plain.cache_clear()  # nothing stored: fine
    with pytest.raises(netcore.InvalidConfig) as info:
        netcore.Client({"cache": {"memory_bytes": "big"}})
    assert "cache.memory_bytes" in info.value.message


def test_asyncio_mirrors(base):
    k = key()
    path = f"/cache/resource?key={k}&max_age=0&etag=1"
    seen = []

    async def main():
        async with netcore.AsyncClient(config(base)) as c:
            await c.get(path)
            final = await c.get(path, cache=CachePolicy.CACHE_THEN_NETWORK,
                                on_cached=lambda r, e: seen.append(("cached", r.from_cache)))
            seen.append(("final", final.not_modified))
            only = await c.get(path, cache=CachePolicy.CACHE_ONLY)
            seen.append(("only", only.from_cache))
            assert c.cache_stats()["hits"] >= 2

    asyncio.run(main())
    assert seen == [("cached", True), ("final", True), ("only", True)]


WRITER = textwrap.dedent("""
    import sys, netcore
    base, directory, prefix, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    cfg = {"base_url": base, "envelope": {}, "coalesce": False, "cache": {"dir": directory, "memory_bytes": 0}}
    with netcore.Client(cfg) as c:
        for round in range(3):
            for i in range(n):
                # the same keys from both processes: both write and read each file
                r = c.get(f"/cache/resource?key={prefix}{i}&max_age=3600&size=300",
                          cache=netcore.CachePolicy.CACHE_ELSE_NETWORK)
                assert r.data["key"] == f"{prefix}{i}", r.data
    print("ok")
""")


def test_two_processes_share_a_disk_cache(base, tmp_path, libpath):
    prefix = key()
    env = dict(os.environ, NETCORE_LIBRARY=libpath)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(os.path.dirname(__file__), "..", "..", "bindings", "python"),
                                         env.get("PYTHONPATH", "")])
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, base, str(tmp_path), prefix, "20"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and out.strip() == b"ok", err.decode()
    files = [f for f in os.listdir(tmp_path) if f.endswith(".nce")]
    assert len(files) == 20
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".tmp-")]
    # A third client reads every entry, intact.
    with netcore.Client(config(base, {"dir": str(tmp_path)})) as c:
        for i in range(20):
            r = c.get(f"/cache/resource?key={prefix}{i}&max_age=3600&size=300", cache=CachePolicy.CACHE_ONLY)
            assert r.from_cache and r.data["key"] == f"{prefix}{i}"
    # Each key reached the server at most twice (once per process, when both missed).
    assert all(count(base, f"{prefix}{i}")["requests"] <= 2 for i in range(20))


# -- partitions (since 0.4): answers to credentialed requests are stored, kept apart --


def test_two_tokens_get_their_own_partitions(base):
    k = key()
    path = f"/cache/resource?key={k}&max_age=3600"
    with netcore.Client(config(base)) as c:
        c.set_token("alice")
        first = c.get(path, cache=CachePolicy.CACHE_ELSE_NETWORK)
        assert (first.from_cache, first.data["auth"]) == (False, "Bearer alice")
        assert c.get(path, cache=CachePolicy.CACHE_ELSE_NETWORK).from_cache
        c.set_token("bob")
        bob = c.get(path, cache=CachePolicy.CACHE_ELSE_NETWORK)
        assert (bob.from_cache, bob.data["auth"], bob.data["n"]) == (False, "Bearer bob", 2)
        c.set_token("alice")
        again = c.get(path, cache=CachePolicy.CACHE_ONLY)
        assert (again.from_cache, again.data["auth"]) == (True, "Bearer alice")
        c.set_token(None)
        with pytest.raises(netcore.NotCached):
            c.get(path, cache=CachePolicy.CACHE_ONLY)
        stats = c.cache_stats()
        assert stats["stores"] == 2 and stats["skipped"]["shared_credentialed"] == 0
    assert count(base, k)["requests"] == 2


def test_a_named_partition_survives_a_token_change(base):
    k = key()
    path = f"/cache/resource?key={k}&max_age=3600"
    with netcore.Client(config(base, {"partition": "user-7"}, auth={"token": "old"})) as c:
        c.get(path)
        c.set_token("new")
        r = c.get(path, cache=CachePolicy.CACHE_ELSE_NETWORK)
        assert r.from_cache and r.data["auth"] == "Bearer old"
        c.set_cache_partition("user-8")
        with pytest.raises(netcore.NotCached):
            c.get(path, cache=CachePolicy.CACHE_ONLY)
        c.set_cache_partition(None)   # the new token's own partition: empty
        with pytest.raises(netcore.NotCached):
            c.get(path, cache=CachePolicy.CACHE_ONLY)
        c.set_cache_partition("user-7")
        assert c.get(path, cache=CachePolicy.CACHE_ONLY).from_cache
        with pytest.raises(netcore.InvalidArgument):
            c.set_cache_partition("")
        with pytest.raises(TypeError):
            c.set_cache_partition(7)
    with netcore.Client({"base_url": base}) as plain:
        with pytest.raises(netcore.InvalidState):
            plain.set_cache_partition("x")
    with pytest.raises(netcore.InvalidConfig) as info:
        netcore.Client(config(base, {"shared": True, "partition": "x"}))
    assert "cache.partition" in info.value.message
    assert count(base, k)["requests"] == 1


def test_a_shared_cache_stores_no_credentialed_answer_and_says_why(base):
    k = key()
    with netcore.Client(config(base, {"shared": True}, auth={"token": "alice"})) as c:
        c.get(f"/cache/resource?key={k}&max_age=3600")
        with pytest.raises(netcore.NotCached):
            c.get(f"/cache/resource?key={k}&max_age=3600", cache=CachePolicy.CACHE_ONLY)
        c.get(f"/cache/resource?key={k}&max_age=3600&cc=no-store")
        stats = c.cache_stats()
        assert stats["stores"] == 0
        assert stats["skipped"]["shared_credentialed"] == 1 and stats["skipped"]["no_store"] == 1
        assert set(stats["skipped"]) == {"status", "no_store", "vary_star", "shared_private",
                                         "shared_credentialed", "credentials_changed", "streamed",
                                         "too_large", "disk_error"}
    # The deprecated "private" is still accepted: false is a shared cache.
    with netcore.Client(config(base, {"private": False}, auth={"token": "alice"})) as c:
        c.get(f"/cache/resource?key={k}&max_age=3600")
        assert c.cache_stats()["skipped"]["shared_credentialed"] == 1


def test_stream_and_progress_work_with_a_cache(base):
    k = key()
    path = f"/cache/resource?key={k}&max_age=3600&size=40000"
    seen = []
    with netcore.Client(config(base)) as c:
        for _ in range(2):
            with c.stream("GET", path) as r:
                body = b"".join(r.iter_bytes())
            assert len(body) > 40000 and f'"key":"{k}"'.encode() in body
        stats = c.cache_stats()
        assert stats["stores"] == 0 and stats["skipped"]["streamed"] == 2
        # Not streamed: stored, and progress reports the body, from the network and from the cache.
        for policy in (CachePolicy.NETWORK_ONLY, CachePolicy.CACHE_ELSE_NETWORK):
            calls = []
            r = c.get(path, cache=policy, progress=lambda *v: calls.append(v))
            seen.append((r.from_cache, calls[-1][0] == calls[-1][1] > 40000))
    assert seen == [(False, True), (True, True)]
    assert count(base, k)["requests"] == 3


TOKEN_READER = textwrap.dedent("""
    import sys, netcore
    base, directory, k, token = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    cfg = {"base_url": base, "envelope": {}, "coalesce": False, "auth": {"token": token},
           "cache": {"dir": directory, "memory_bytes": 0}}
    with netcore.Client(cfg) as c:
        try:
            r = c.get(f"/cache/resource?key={k}&max_age=3600", cache=netcore.CachePolicy.CACHE_ONLY)
            print("hit", r.data["auth"])
        except netcore.NotCached:
            print("miss")
""")


def test_another_process_with_another_token_cannot_read_the_disk_entries(base, tmp_path, libpath):
    k = key()
    with netcore.Client(config(base, {"dir": str(tmp_path)}, auth={"token": "alice"})) as c:
        c.get(f"/cache/resource?key={k}&max_age=3600")
    env = dict(os.environ, NETCORE_LIBRARY=libpath)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(os.path.dirname(__file__), "..", "..", "bindings", "python"),
                                         env.get("PYTHONPATH", "")])

    def run(token):
        p = subprocess.run([sys.executable, "-c", TOKEN_READER, base, str(tmp_path), k, token], env=env,
                           capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr.decode()
        return p.stdout.decode().strip()

    assert run("bob") == "miss"
    assert run("alice") == "hit Bearer alice"
    assert count(base, k)["requests"] == 1
