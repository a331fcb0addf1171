"""Cancellation groups: group=, Client.cancel_group / cancel_all, and the same on
AsyncClient, against the mock server."""
import asyncio
import threading

import pytest

import netcore

ENVELOPE = {"envelope": {}}


def test_cancel_group_cancels_that_group_once_each(base):
    with netcore.Client({"base_url": base, **ENVELOPE}) as c:
        done, lock, ev = [], threading.Lock(), threading.Event()

        def note(name):
            def cb(response, error):
                with lock:
                    done.append((name, type(error).__name__ if error else "ok"))
                    if len(done) == 13:
                        ev.set()
            return cb

        for _ in range(10):
            c.send("GET", "/slow", params={"ms": 10000}, group="screen", callback=note("screen"))
        for _ in range(3):
            c.send("GET", "/slow", params={"ms": 20}, group="other", callback=note("other"))
        # A name group= refuses is refused here too, nothing cancelled.
        for bad in ("screen\n", "\x01screen", "screen\x7f"):
            with pytest.raises(netcore.InvalidArgument):
                c.cancel_group(bad)
        assert c.cancel_group("screen") == 10
        assert ev.wait(20)
        assert sorted(done) == sorted([("screen", "Cancelled")] * 10 + [("other", "ok")] * 3)
        assert c.cancel_group("screen") == 0
        with pytest.raises(netcore.InvalidArgument):
            c.cancel_group("")
        with pytest.raises(netcore.InvalidArgument):
            c.send("GET", "/echo", group="a\nb")


def test_a_grouped_synchronous_request_can_be_cancelled_from_another_thread(base):
    with netcore.Client({"base_url": base, **ENVELOPE}) as c:
        outcome = []

        def call():
            try:
                outcome.append(c.get("/slow", params={"ms": 10000}, group="g"))
            except netcore.Error as e:
                outcome.append(e)

        t = threading.Thread(target=call)
        t.start()
        cancelled = 0
        for _ in range(4000):   # until the request is sent (a guard, not a time limit)
            cancelled = c.cancel_group("g")
            if cancelled:
                break
            threading.Event().wait(0.005)
        assert cancelled == 1
        t.join(20)
        assert len(outcome) == 1 and isinstance(outcome[0], netcore.Cancelled)
        assert c.get("/echo", group="g").status == 200   # a grouped call completes as usual


def test_cancel_all(base):
    with netcore.Client({"base_url": base, **ENVELOPE}) as c:
        errors, ev = [], threading.Event()

        def cb(response, error):
            errors.append(error)
            if len(errors) == 4:
                ev.set()

        c.send("GET", "/slow", params={"ms": 10000}, callback=cb)
        c.send("GET", "/slow", params={"ms": 10000}, group="g", callback=cb)
        c.send("GET", "/slow", params={"ms": 10000}, group="h", callback=cb)
        c.send("GET", "/slow", params={"ms": 10000}, callback=cb)
        assert c.cancel_all() == 4
        assert ev.wait(20)
        assert all(isinstance(e, netcore.Cancelled) for e in errors)
        assert c.get("/env/code/ok").status == 200   # still usable


def test_async_cancel_group(base):
    async def main():
        async with netcore.AsyncClient({"base_url": base, **ENVELOPE}) as c:
            doomed = [asyncio.ensure_future(c.get("/slow", params={"ms": 10000}, group="feed"))
                      for _ in range(5)]
            kept = asyncio.ensure_future(c.get("/slow", params={"ms": 20}, group="header"))
            # Each task sends its request before its first await: one turn of the loop.
            await asyncio.sleep(0)
            assert c.cancel_group("feed") == 5
            results = await asyncio.gather(*doomed, return_exceptions=True)
            assert all(isinstance(r, netcore.Cancelled) for r in results)
            assert (await kept).status == 200
    asyncio.run(main())
