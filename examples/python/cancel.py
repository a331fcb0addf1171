"""Cancelling: one request through its Task, a group at once, and an asyncio await.

usage: python3 cancel.py BASE_URL
Every cancelled request ends once with netcore.Cancelled. Exits 1 otherwise."""
import asyncio
import sys
import threading
from typing import List, Optional

import netcore

base = sys.argv[1]
results: List[str] = []
lock = threading.Lock()


def done(response: Optional[netcore.Response], error: Optional[netcore.Error]) -> None:
    # runs once per request, on the client's thread
    with lock:
        results.append(type(error).__name__ if error else "finished")


with netcore.Client({"base_url": base, "envelope": {}}) as client:
    task = client.send("GET", "/slow", params={"ms": 5000}, callback=done)
    task.cancel()  # returns after `done` has run
    print("task:", results[-1], "-", type(task.exception()).__name__)

    for ms in (6000, 7000):  # a screen's requests, in one group
        client.send("GET", "/slow", params={"ms": ms}, group="screen", callback=done)
    n = client.cancel_group("screen")
    print("cancel_group('screen'):", n, "request(s)")
# close() waited for every callback
print("callbacks:", sorted(results))


async def main() -> bool:
    async with netcore.AsyncClient({"base_url": base, "envelope": {}}) as client:
        try:  # cancelling the await (here: a timeout) cancels the request
            await asyncio.wait_for(client.get("/slow", params={"ms": 5000}), timeout=0.1)
            return False
        except asyncio.TimeoutError:
            print("asyncio: gave up on /slow after 0.1 s; the request was cancelled")
            return True

ok = asyncio.run(main())
sys.exit(0 if ok and n == 2 and results == ["Cancelled"] * 3 else 1)
