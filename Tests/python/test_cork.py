"""Sends held together (nc_client_cork / nc_client_uncork): Client.corked() and the
AsyncClient, which holds the requests of one event-loop turn by itself. What a
caller relies on: every request sent while corked completes exactly once with its
own answer, corks nest, the block and the turn leave the client uncorked (a send
after them is not held), also when the block raises."""
import asyncio

import pytest

import netcore
from netcore._capi import C, NC_OK
from netcore.errors import Status

ENVELOPE = {"envelope": {}}


def cork_count_is_zero(core):
    """True when the client is not corked: an uncork is then refused (and changes
    nothing), so this probe leaves the count as it found it."""
    with core.use() as h:
        status = C.nc_client_uncork(h)
        if status == NC_OK:
            assert C.nc_client_cork(h) == NC_OK  # put the one taken back
            return False
        assert status == Status.INVALID_STATE
        return True


def test_c_functions_refuse_null_and_an_uncork_without_cork(base):
    assert C.nc_client_cork(None) == Status.INVALID_ARGUMENT
    assert C.nc_client_uncork(None) == Status.INVALID_ARGUMENT
    with netcore.Client({"base_url": base}) as c:
        assert cork_count_is_zero(c._core)


def test_requests_sent_in_a_corked_block_each_complete_once(base):
    with netcore.Client({"base_url": base, **ENVELOPE}) as c:
        results = {}
        futures = []
        with c.corked():
            with c.corked():   # nested
                for i in range(20):
                    futures.append(c.send("GET", f"/echo?i={i}",
                                          callback=lambda r, e, i=i: results.setdefault(i, []).append((r, e))))
            assert not cork_count_is_zero(c._core)
        assert cork_count_is_zero(c._core)
        for i, f in enumerate(futures):
            assert f.result(timeout=10).data["query"] == {"i": [str(i)]}
        assert sorted(results) == list(range(20))
        assert all(len(v) == 1 and v[0][1] is None for v in results.values())


def test_a_block_that_raises_still_uncorks(base):
    with netcore.Client({"base_url": base, **ENVELOPE}) as c:
        with pytest.raises(KeyError):
            with c.corked():
                f = c.send("GET", "/echo?raised=1")
                raise KeyError("x")
        assert cork_count_is_zero(c._core)
        assert f.result(timeout=10).data["query"] == {"raised": ["1"]}


def test_closing_inside_a_corked_block(base):
    c = netcore.Client({"base_url": base, **ENVELOPE})
    with c.corked():
        f = c.send("GET", "/echo?closed=1")
        c.close()
    # completed exactly once, with its answer or ShutDown
    try:
        assert f.result(timeout=10).data["query"] == {"closed": ["1"]}
    except netcore.ShutDown:
        pass


def test_async_client_corks_one_turn_and_uncorks_at_the_next(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}) as c:
            core = c._core
            tasks = [asyncio.ensure_future(c.get(f"/echo?n={i}")) for i in range(16)]
            await asyncio.sleep(0)          # the tasks' first steps: 16 sends, one cork
            assert not cork_count_is_zero(core)
            responses = await asyncio.gather(*tasks)
            assert [r.data["query"] for r in responses] == [{"n": [str(i)]} for i in range(16)]
            assert cork_count_is_zero(core)  # the turn after the sends uncorked it
            # a plain request later is not held
            assert (await c.get("/echo?later=1")).data["query"] == {"later": ["1"]}
            assert cork_count_is_zero(core)
            with c.corked():                 # the explicit block works on it too
                f = c.send("GET", "/echo?explicit=1")
            assert (await f).data["query"] == {"explicit": ["1"]}
            assert cork_count_is_zero(core)
    asyncio.run(main())
