#!/usr/bin/env python3
"""Python peers of the libnetcore benchmark (bench/README.md).

  peers.py --peer P --workload W --url URL [-n N] [-c C] [--warmup W] [--out FILE]
           [--slices K]

Peers: requests (Session), httpx (Client), httpx-async (AsyncClient), aiohttp,
pycurl (easy handle reused; CurlMulti for conc/slow), netcore (the repo's ctypes
binding, sync Client), netcore-async (its asyncio AsyncClient).
Workloads: seq, conc, download, download-file, slow (same meaning as the C peers).
Every envelope workload parses the body as JSON and checks: object, code == 0,
a "data" member. Prints one JSON line. --slices K (seq and conc; workload 10): the
timed requests run in K slices on the driver's word, as the C peers' (Slicer).
"""
import argparse
import asyncio
import contextlib
import io
import json
import os
import resource
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--peer", required=True)
ap.add_argument("--workload", required=True)
ap.add_argument("--url", required=True)
ap.add_argument("-n", type=int, default=1000)
ap.add_argument("-c", type=int, default=1)
ap.add_argument("--warmup", type=int, default=50)
ap.add_argument("--out", default="")
ap.add_argument("--label", default="")
ap.add_argument("--time-limit", type=float, default=600)
ap.add_argument("--slices", type=int, default=0)
A = ap.parse_args()


def cpu():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def ctxsw():
    """context switches of every thread of the process so far (voluntary, involuntary)"""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_nvcsw, ru.ru_nivcsw


def status_kb(field):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def emit(**fields):
    out = {"peer": A.peer, "workload": A.workload}
    if A.label:
        out["label"] = A.label
    out.update(fields)
    print(json.dumps(out), flush=True)


class Tally:
    def __init__(self):
        self.ok = self.errors = self.bytes = 0
        self.first_error = None

    def good(self, nbytes):
        self.ok += 1
        self.bytes += nbytes

    def bad(self, why):
        self.errors += 1
        if self.first_error is None:
            self.first_error = str(why)[:300]

    def done(self):
        return self.ok + self.errors

    def merge(self, other):
        self.ok += other.ok
        self.errors += other.errors
        self.bytes += other.bytes
        self.first_error = self.first_error or other.first_error


def check(obj):
    """the envelope check every peer does on the parsed body"""
    if not isinstance(obj, dict):
        return "body is not an object"
    code = obj.get("code")
    if not isinstance(code, int) or isinstance(code, bool):
        return "no integer code"
    if code != 0:
        return f"business code {code}"
    if "data" not in obj:
        return "no data member"
    return None


_CSW0 = [(0, 0)]


def mark():
    """the start of a timed section: its CPU time (and its context switches, kept)"""
    _CSW0[0] = ctxsw()
    return cpu()


def report(t, secs, cpu_s, **extra):
    done = t.ok + t.errors
    (v0, i0), (v1, i1) = _CSW0[0], ctxsw()
    missing = A.n - done if A.workload not in ("slow",) else A.n - done
    if missing > 0 and t.first_error is None:
        t.first_error = "time limit reached"
    emit(url=A.url, n=A.n, c=A.c, ok=t.ok, errors=A.n - t.ok, bytes=t.bytes, secs=secs,
         rps=done / secs if secs > 0 else 0, mbps=t.bytes / secs / 1e6 if secs > 0 else 0,
         cpu_us_per_req=cpu_s * 1e6 / done if done else 0,
         vcsw_per_req=(v1 - v0) / done if done else 0, ivcsw_per_req=(i1 - i0) / done if done else 0,
         rss_peak_kb=status_kb("VmHWM"),
         first_error=t.first_error, **extra)


class Slicer:
    """--slices K (workload 10, bench/README.md; the C peers' bench_slicer in
    bench/c/common.h): the timed requests run in K slices of n/K (the last takes the
    rest). Before each slice the peer waits for one byte on stdin (the driver's go);
    after it, it prints {"slice":I,"n":..,"secs":..,"cpu":..}. Waiting counts in
    neither secs nor cpu; secs and cpu sum the finished slices. Without --slices: one
    slice, no waiting, no line."""

    def __init__(self, n):
        self.k = min(max(0, A.slices), n)
        per = n // self.k if self.k else n
        self.sizes = [per] * (self.k - 1) + [n - per * (self.k - 1)] if self.k else [n]
        self.secs, self.cpu = 0.0, 0.0

    def each(self, t):
        """yields each slice's size, timing the loop body that runs it; `t` is the
        Tally the body counts into (its requests done in the slice make "n")"""
        for index, size in enumerate(self.sizes):
            if self.k and not sys.stdin.buffer.read(1):
                sys.exit(3)
            t0, c0, before = time.monotonic(), cpu(), t.done()
            yield size
            secs, c = time.monotonic() - t0, cpu() - c0
            self.secs += secs
            self.cpu += c
            if self.k:
                print(json.dumps({"slice": index, "n": t.done() - before, "secs": secs, "cpu": c}), flush=True)


def timed_sync(one, n, warmup):
    """runs one() warmup times, then n times timed; one(t) records into t"""
    t = Tally()
    for _ in range(warmup):
        one(t)
    t = Tally()
    deadline = time.monotonic() + A.time_limit
    sl = Slicer(n)
    mark()
    for size in sl.each(t):
        for _ in range(size):
            if time.monotonic() > deadline:
                break
            one(t)
    report(t, sl.secs, sl.cpu)


async def timed_async(one, n, c, warmup):
    """n calls of `await one(t)` with c in flight (c workers sharing a counter)"""
    async def window(count, width):
        t = Tally()
        left = [count]
        deadline = time.monotonic() + A.time_limit

        async def worker():
            while left[0] > 0 and time.monotonic() < deadline:
                left[0] -= 1
                try:
                    await one(t)
                except Exception as e:  # noqa: BLE001 - counted as a failed request
                    t.bad(repr(e))
        await asyncio.gather(*(worker() for _ in range(min(width, count) or 1)))
        return t
    if warmup:
        await window(max(warmup, c), c)
    total = Tally()
    sl = Slicer(n)
    mark()
    for size in sl.each(total):
        total.merge(await window(size, c))
    report(total, sl.secs, sl.cpu)


async def timed_slow(one, n):
    """n requests in flight at once; RSS growth per in-flight request"""
    t = Tally()
    base = status_kb("VmRSS")
    reset_peak()

    async def guarded():
        try:
            await one(t)
        except Exception as e:  # noqa: BLE001
            t.bad(repr(e))
    c0, t0 = mark(), time.monotonic()
    await asyncio.wait_for(asyncio.gather(*(guarded() for _ in range(n))), A.time_limit)
    secs = time.monotonic() - t0
    peak = status_kb("VmHWM")
    report(t, secs, cpu() - c0, rss_base_kb=base, rss_per_req_kb=max(0, peak - base) / max(1, n))


def skip(why):
    emit(skipped=why)


# --- peers -------------------------------------------------------------------

def run_sync_http(get, stream, concurrency_note):
    """seq / download / download-file for a synchronous client (requests, httpx):
    `get(url)` returns a response, `stream(url)` a context manager yielding
    (status, chunk iterator)."""
    if A.workload == "seq":
        def one(t):
            try:
                r = get(A.url)
                if r.status_code != 200:
                    return t.bad(f"HTTP {r.status_code}")
                why = check(r.json())
                t.bad(why) if why else t.good(len(r.content))
            except Exception as e:  # noqa: BLE001
                t.bad(repr(e))
        timed_sync(one, A.n, A.warmup)
    elif A.workload == "download":
        def one(t):
            r = get(A.url)
            t.good(len(r.content)) if r.status_code == 200 else t.bad(f"HTTP {r.status_code}")
        timed_sync(one, A.n, 0)
    elif A.workload == "download-file":
        def one(t):
            with stream(A.url) as (status, chunks), open(A.out, "wb") as f:
                if status != 200:
                    return t.bad(f"HTTP {status}")
                n = 0
                for chunk in chunks:
                    f.write(chunk)
                    n += len(chunk)
                t.good(n)
        timed_sync(one, A.n, 0)
    else:
        skip(concurrency_note)


def run_requests():
    import requests
    s = requests.Session()

    @contextlib.contextmanager
    def stream(url):
        with s.get(url, stream=True, timeout=300) as r:
            yield r.status_code, r.iter_content(1 << 20)
    run_sync_http(lambda url: s.get(url, timeout=300), stream, "no concurrency in requests")


def run_httpx():
    import httpx
    s = httpx.Client(timeout=300)

    @contextlib.contextmanager
    def stream(url):
        with s.stream("GET", url) as r:
            yield r.status_code, r.iter_bytes(1 << 20)
    run_sync_http(s.get, stream, "sync httpx has no concurrency")


def run_httpx_async():
    import httpx

    async def main():
        width = A.n if A.workload == "slow" else max(A.c, 1)
        limits = httpx.Limits(max_connections=width, max_keepalive_connections=width)
        async with httpx.AsyncClient(timeout=300, limits=limits) as s:
            async def one(t):
                r = await s.get(A.url)
                if r.status_code != 200:
                    return t.bad(f"HTTP {r.status_code}")
                why = check(r.json())
                t.bad(why) if why else t.good(len(r.content))
            if A.workload in ("seq", "conc"):
                await timed_async(one, A.n, A.c if A.workload == "conc" else 1, A.warmup)
            elif A.workload == "slow":
                await timed_slow(one, A.n)
            else:
                skip("not run for this peer")
    asyncio.run(main())


def run_aiohttp():
    import aiohttp

    async def main():
        conn = aiohttp.TCPConnector(limit=0, limit_per_host=0)
        timeout = aiohttp.ClientTimeout(total=300)
        async with aiohttp.ClientSession(connector=conn, timeout=timeout) as s:
            async def one(t):
                async with s.get(A.url) as r:
                    if r.status != 200:
                        return t.bad(f"HTTP {r.status}")
                    body = await r.read()
                    why = check(json.loads(body))
                    t.bad(why) if why else t.good(len(body))

            async def one_raw(t):
                async with s.get(A.url) as r:
                    body = await r.read()
                    t.good(len(body)) if r.status == 200 else t.bad(f"HTTP {r.status}")
            if A.workload in ("seq", "conc"):
                await timed_async(one, A.n, A.c if A.workload == "conc" else 1, A.warmup)
            elif A.workload == "download":
                await timed_async(one_raw, A.n, 1, 0)
            elif A.workload == "slow":
                await timed_slow(one, A.n)
            else:
                skip("not run for this peer")
    asyncio.run(main())


def run_pycurl():
    import pycurl

    def easy(buf):
        e = pycurl.Curl()
        e.setopt(pycurl.URL, A.url)
        e.setopt(pycurl.NOSIGNAL, 1)
        e.setopt(pycurl.WRITEFUNCTION, buf.write)
        return e

    if A.workload in ("seq", "download", "download-file"):
        parse = A.workload == "seq"
        holder = {"buf": io.BytesIO()}
        e = pycurl.Curl()
        e.setopt(pycurl.URL, A.url)
        e.setopt(pycurl.NOSIGNAL, 1)
        f = open(A.out, "wb") if A.workload == "download-file" else None

        def one(t):
            if f is not None:
                f.seek(0)
                e.setopt(pycurl.WRITEDATA, f)
            else:
                holder["buf"] = io.BytesIO()
                e.setopt(pycurl.WRITEDATA, holder["buf"])
            try:
                e.perform()
            except pycurl.error as ex:
                return t.bad(repr(ex))
            if e.getinfo(pycurl.RESPONSE_CODE) != 200:
                return t.bad(f"HTTP {e.getinfo(pycurl.RESPONSE_CODE)}")
            n = int(e.getinfo(pycurl.SIZE_DOWNLOAD))
            if parse:
                why = check(json.loads(holder["buf"].getvalue()))
                if why:
                    return t.bad(why)
            t.good(n)
        timed_sync(one, A.n, A.warmup if parse else 0)
        if f:
            f.close()
        return
    if A.workload not in ("conc", "slow"):
        return skip("not run for this peer")

    # One multi handle and its easy handles for the whole run (warm-up, every slice), so
    # their connections stay open as the other clients' do.
    m = pycurl.CurlMulti()
    handles = []

    def window(count, width, t, deadline):
        while len(handles) < min(width, count):
            handles.append(easy(io.BytesIO()))
        started = done = 0
        for e in handles[:min(width, count)]:
            e.buf = io.BytesIO()
            e.setopt(pycurl.WRITEFUNCTION, e.buf.write)
            m.add_handle(e)
            started += 1
        while done < started and time.monotonic() < deadline:
            while True:
                rc, _ = m.perform()
                if rc != pycurl.E_CALL_MULTI_PERFORM:
                    break
            _, oks, fails = m.info_read()
            for e in oks:
                body = e.buf.getvalue()
                if e.getinfo(pycurl.RESPONSE_CODE) != 200:
                    t.bad("HTTP status")
                else:
                    why = check(json.loads(body))
                    t.bad(why) if why else t.good(len(body))
            for e, _, msg in fails:
                t.bad(msg)
            for e in list(oks) + [x[0] for x in fails]:
                done += 1
                m.remove_handle(e)
                if started < count:
                    e.buf = io.BytesIO()
                    e.setopt(pycurl.WRITEFUNCTION, e.buf.write)
                    m.add_handle(e)
                    started += 1
            if done < started:
                m.select(0.1)

    deadline = time.monotonic() + A.time_limit
    if A.workload == "conc":
        if A.warmup:
            window(max(A.warmup, A.c), A.c, Tally(), deadline)
        t = Tally()
        sl = Slicer(A.n)
        mark()
        for size in sl.each(t):
            window(size, A.c, t, deadline)
        report(t, sl.secs, sl.cpu)
    else:
        t = Tally()
        base = status_kb("VmRSS")
        reset_peak()
        c0, t0 = mark(), time.monotonic()
        window(A.n, A.n, t, deadline)
        secs = time.monotonic() - t0
        report(t, secs, cpu() - c0, rss_base_kb=base,
               rss_per_req_kb=max(0, status_kb("VmHWM") - base) / max(1, A.n))
    for e in handles:
        e.close()
    m.close()


# --- libnetcore's Python binding (bindings/python) ---------------------------
# Written against the binding's documented surface when it exists; see
# netcore_adapter.py, which isolates the calls so a rename touches one file.

def run_netcore(is_async):
    try:
        import netcore_adapter as nca
    except ImportError as e:
        return skip(f"netcore binding unavailable: {e}")
    # coalescing off, as the C peer: the concurrent workloads send one URL at once
    config = {"envelope": {}, "compression": False, "coalesce": False, "timeout_ms": 300000,
              "limits": {"max_connections_per_host":
                         int(os.environ.get("BENCH_NC_MAX_CONNECTIONS_PER_HOST") or 0),
                         "max_response_bytes": 1 << 30}}
    if not is_async:
        if A.workload not in ("seq", "download"):
            return skip("sync binding: sequential workloads only")
        client = nca.sync_client(config)
        raw = A.workload == "download"

        def one(t):
            try:
                n = nca.sync_get(client, A.url, raw)
                t.good(n)
            except Exception as e:  # noqa: BLE001
                t.bad(repr(e))
        timed_sync(one, A.n, 0 if raw else A.warmup)
        nca.close(client)
        return

    async def main():
        client = await nca.async_client(config)

        async def one(t):
            t.good(await nca.async_get(client, A.url, False))
        try:
            if A.workload in ("seq", "conc"):
                await timed_async(one, A.n, A.c if A.workload == "conc" else 1, A.warmup)
            elif A.workload == "slow":
                await timed_slow(one, A.n)
            else:
                skip("not run for this peer")
        finally:
            await nca.async_close(client)
    asyncio.run(main())


PEERS = {
    "requests": run_requests,
    "httpx": run_httpx,
    "httpx-async": run_httpx_async,
    "aiohttp": run_aiohttp,
    "pycurl": run_pycurl,
    "netcore": lambda: run_netcore(False),
    "netcore-async": lambda: run_netcore(True),
}

if __name__ == "__main__":
    if A.peer not in PEERS:
        sys.exit(f"unknown peer {A.peer}")
    PEERS[A.peer]()
