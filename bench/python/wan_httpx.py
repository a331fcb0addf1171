"""wan_httpx.py — the httpx peer of `make bench-wan` (bench/wan.sh): the same workloads
and JSON line as bench/c/wan.c, with httpx.AsyncClient(http2=True) (PyPI httpx[http2]).

    python wan_httpx.py --workload burst|cold1|steady --url URL --ca CA [-n N] [-c C] [--rounds R]
"""
import argparse
import asyncio
import json
import resource
import time

import httpx


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def many(client, url, want, window, state):
    it = iter(range(want))

    async def worker():
        for i in it:
            try:
                r = await client.get(f"{url}?i={i}")
                if r.status_code != 200 or not r.json().get("data"):
                    state["errors"] += 1
            except Exception as e:  # counted and shown, like the C peers' errors
                state["errors"] += 1
                state["first_error"] = state["first_error"] or repr(e)[:200]

    t0 = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(min(window, want))))
    return time.monotonic() - t0


def new_client(ca, c):
    limits = httpx.Limits(max_connections=max(c, 16), max_keepalive_connections=max(c, 16))
    return httpx.AsyncClient(http2=True, verify=ca, limits=limits, timeout=120)


async def main_async(a):
    state = {"errors": 0, "first_error": ""}
    out = {"peer": "httpx-h2", "workload": a.workload}
    if a.workload in ("burst", "cold1"):
        per = a.c if a.workload == "burst" else 1
        secs = []
        for _ in range(a.rounds):
            async with new_client(a.ca, per) as client:
                secs.append(round(await many(client, a.url, per, per, state), 4))
        out.update(c=per, seconds=secs)
    else:
        async with new_client(a.ca, a.c) as client:
            await many(client, a.url, a.c * 2, a.c, state)
            c0 = cpu()
            t = await many(client, a.url, a.n, a.c, state)
            c1 = cpu() - c0
        out.update(c=a.c, n=a.n, seconds=round(t, 3), rps=round(a.n / t, 1),
                   cpu_us_per_request=round(c1 * 1e6 / a.n, 1))
    out.update(state)
    print(json.dumps(out))
    return 1 if state["errors"] else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workload", default="burst")
    p.add_argument("--url", required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("-n", type=int, default=2000)
    p.add_argument("-c", type=int, default=30)
    p.add_argument("--rounds", type=int, default=5)
    raise SystemExit(asyncio.run(main_async(p.parse_args())))


if __name__ == "__main__":
    main()
