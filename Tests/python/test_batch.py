"""Batches: Client.batch / AsyncClient.batch over nc_batch_*, against the mock API."""
import asyncio

import pytest

import netcore


@pytest.fixture
def env_client(base):
    with netcore.Client({"base_url": base, "envelope": {}}) as c:
        yield c


def test_results_in_order_settle(env_client):
    results = env_client.batch([
        "/echo?i=0",
        ("GET", "/status/404"),
        ("POST", "/echo", {"json": {"n": 2}}),
        ("GET", "/env/code/fail"),
        ("GET", "/echo", {"params": {"i": 4}, "envelope": False}),
    ])
    assert len(results) == 5
    assert isinstance(results[0], netcore.Response) and results[0].data["raw_path"].endswith("/echo?i=0")
    assert isinstance(results[1], netcore.HTTPError) and results[1].http_status == 404
    assert results[1].response is not None and results[1].response.status == 404
    assert results[2].data["json"] == {"n": 2}
    assert isinstance(results[3], netcore.APIError)
    # raw mode for that one request: data is the whole body
    assert results[4].data["data"]["raw_path"].endswith("/echo?i=4")


def test_fail_fast_cancels_the_rest(env_client):
    results = env_client.batch(["/slow?ms=10000", "/status/500", "/slow?ms=10000"], fail_fast=True)
    assert isinstance(results[1], netcore.HTTPError) and results[1].http_status == 500
    assert isinstance(results[0], netcore.Cancelled)
    assert isinstance(results[2], netcore.Cancelled)


def test_empty_and_bad_items(env_client):
    assert env_client.batch([]) == []
    with pytest.raises(TypeError):
        env_client.batch([("GET",)])
    with pytest.raises(TypeError):
        env_client.batch([("GET", "/echo", {"colour": "red"})])
    with pytest.raises(netcore.InvalidArgument):
        env_client.batch([("GET", "/echo", {"headers": {"bad name": "x"}})])


def test_on_error_sees_each_failure(base):
    seen = []
    with netcore.Client({"base_url": base, "envelope": {}}, on_error=seen.append) as c:
        results = c.batch(["/echo", "/status/404", "/status/500"])
    assert [type(r).__name__ for r in results] == ["Response", "HTTPError", "HTTPError"]
    assert sorted(e.http_status for e in seen) == [404, 500]


def test_closed_client_refuses(base):
    c = netcore.Client({"base_url": base})
    c.close()
    with pytest.raises(netcore.InvalidState):
        c.batch(["/echo"])


def test_async_batch_and_cancel(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, "envelope": {}}) as c:
            results = await c.batch(["/echo", ("GET", "/status/404")])
            assert results[0].status == 200
            assert isinstance(results[1], netcore.HTTPError)
            assert await c.batch([]) == []
            t = asyncio.ensure_future(c.batch(["/slow?ms=10000", "/slow?ms=10000"]))
            await asyncio.sleep(0.1)
            t.cancel()
            with pytest.raises(asyncio.CancelledError):
                await t
            # the client still works; gather of batches
            many = await asyncio.gather(*(c.batch(["/echo"] * n) for n in (1, 2, 3)))
            assert [len(r) for r in many] == [1, 2, 3]

    asyncio.run(main())
