"""Event-loop integration: AsyncClient on asyncio, requests awaited concurrently.

usage: python3 event_loop.py BASE_URL
AsyncClient puts the client's queue-mode descriptor into the running loop
(add_reader) and runs completions there: no thread of yours blocks. For another
loop, Client({"callbacks": "queue"}) gives fileno() and dispatch().
Exits 1 unless every request completed with its data."""
import asyncio
import select
import sys
from typing import Any, List, Optional, Tuple

import netcore

base = sys.argv[1]


async def main() -> List[Any]:
    async with netcore.AsyncClient({"base_url": base, "envelope": {}}) as client:
        paths = ["/users/7", "/env/code/ok", "/slow?ms=200"]
        responses = await asyncio.gather(*(client.get(p) for p in paths))
        for path, r in zip(paths, responses):
            print(path, "->", r.data)
        return [r.data for r in responses]


datas = asyncio.run(main())

# The same with a plain client in queue mode, driven by hand (select/poll work alike).
got: List[Tuple[str, Any]] = []


def collect(path: str) -> netcore.Callback:
    def done(r: Optional[netcore.Response], e: Optional[netcore.Error]) -> None:
        got.append((path, r.data if r and not e else e))
    return done


with netcore.Client({"base_url": base, "envelope": {}, "callbacks": "queue"}) as client:
    for p in ("/users/7", "/env/code/ok"):
        client.send("GET", p, callback=collect(p))
    while len(got) < 2:
        ready, _, _ = select.select([client.fileno()], [], [], 10)
        if not ready:
            break
        client.dispatch()  # the callbacks run here, on this thread
for p, data in sorted(got):
    print("queue mode:", p, "->", data)

ada = {"id": 7, "name": "Ada"}
sys.exit(0 if datas == [ada, ada, {"slept_ms": 200}] and sorted(got) == [("/env/code/ok", ada), ("/users/7", ada)] else 1)
