"""The cookie jar from Python: client.cookies (a live read-only view, clear(), save()),
off by default, never sent against its rules, persisted to a file; AsyncClient too."""
import asyncio
import os
import stat

import pytest

import netcore

ON = {"enabled": True}


def echoed(c, path="/cookies/echo"):
    data = c.get(path).json()["data"]
    assert data["count"] <= 1
    return data["cookie"]


def test_off_by_default_nothing_is_kept_or_sent(base):
    with netcore.Client({"base_url": base}) as c:
        c.get("/cookies/set?name=sid&value=v1")
        assert echoed(c) is None
        assert len(c.cookies) == 0 and list(c.cookies) == []
        c.cookies.clear()
        c.cookies.save()  # nothing to write: no error


def test_set_sent_back_listed_and_cleared(base):
    with netcore.Client({"base_url": base, "cookies": ON}) as c:
        c.get("/cookies/set?name=sid&value=v1&path=/&httponly=1")
        assert echoed(c) == "sid=v1"
        jar = c.cookies
        assert len(jar) == 1 and "sid" in jar and jar["sid"] == "v1" and jar.get("nope") is None
        (cookie,) = list(jar)
        assert cookie == netcore.Cookie("sid", "v1", "127.0.0.1", "/", False, 0, True, False)
        assert "v1" not in repr(cookie)  # a credential stays out of reprs
        with pytest.raises(KeyError):
            jar["nope"]
        jar.clear()
        assert len(c.cookies) == 0
        assert echoed(c) is None


def test_not_sent_to_another_host_or_path(server, base):
    with netcore.Client({"base_url": base, "cookies": ON}) as c:
        c.get("/cookies/set?name=a&value=1&path=/api/cookies/a")
        c.get("/cookies/set?name=h&value=2&path=/")
        assert echoed(c, "/cookies/a/echo") in ("a=1; h=2", "h=2; a=1")
        assert echoed(c, "/cookies/b/echo") == "h=2"
        assert echoed(c, f"http://localhost:{server.port}/cookies/echo") is None


def test_persisted_to_a_private_file_and_loaded_by_a_new_client(base, tmp_path):
    path = str(tmp_path / "jar.txt")
    config = {"base_url": base, "cookies": {"enabled": True, "file": path}}
    with netcore.Client(config) as c:
        c.get("/cookies/set?name=sid&value=v1&path=/&max_age=600")
        c.cookies.save()
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        c.get("/cookies/set?name=late&value=l&path=/")
    # close() wrote the cookie set after the save
    with netcore.Client(config) as c2:
        assert sorted(cookie.name for cookie in c2.cookies) == ["late", "sid"]
        assert echoed(c2) in ("sid=v1; late=l", "late=l; sid=v1")
    assert os.listdir(tmp_path) == ["jar.txt"]


def test_save_failure_raises_transport_error_naming_the_file(base, tmp_path):
    d = tmp_path / "gone"
    d.mkdir()
    path = str(d / "jar.txt")
    with netcore.Client({"base_url": base, "cookies": {"enabled": True, "file": path}}) as c:
        c.get("/cookies/set?name=sid&value=v1&path=/")
        d.rmdir()
        with pytest.raises(netcore.TransportError) as info:
            c.cookies.save()
        assert info.value.code == 23 and path in str(info.value)


def test_bad_cookie_config_names_the_key(base):
    with pytest.raises(netcore.InvalidConfig, match="cookies.file"):
        netcore.Client({"base_url": base, "cookies": {"file": "/tmp/x.txt"}})
    with pytest.raises(netcore.InvalidConfig, match="cookies.enabled"):
        netcore.Client({"base_url": base, "cookies": {"enabled": 1}})


def test_async_client_mirrors(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, "cookies": ON}) as c:
            await c.get("/cookies/set?name=a&value=1&path=/")
            r = await c.get("/cookies/echo")
            assert r.json()["data"]["cookie"] == "a=1"
            assert [x.name for x in c.cookies] == ["a"]
            c.cookies.clear()
            assert len(c.cookies) == 0

    asyncio.run(main())


def test_a_domain_keeps_its_newest_180_cookies(base):
    # libcurl's store has no bound; the jar keeps 180 cookies a domain, the newest.
    with netcore.Client({"base_url": base, "cookies": ON}) as c:
        for r in range(4):
            assert c.get(f"/cookies/many?count=50&prefix=r{r}_").json()["data"] == {"set": 50}
        names = {cookie.name for cookie in c.cookies}
        assert len(c.cookies) == 180 and len(names) == 180
        assert "r0_19" not in names and {"r0_20", "r3_49"} <= names
