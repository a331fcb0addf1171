#!/usr/bin/env python3
"""Turns the benchmark's result lines (build/bench/results.jsonl, written by
bench/driver.py) into one table of absolute figures, ratios to raw libcurl and
the targets (met / missed / n/a), printed and written where --json and
--md say (bench/run.sh: build/bench/latest.json and latest.md).

Ratios: peer / raw-curl of the same workload, for every metric (so > 1 is better
for req/s and MB/s, < 1 is better for CPU, RSS, latency and instructions).
With several rounds the tables show the median of each metric, and a ratio is the
median of the per-round ratios (peer and base measured in the same round, back to
back for the peers a target compares: driver.py ADJACENT) when at least three rounds
pair up, else the ratio of the medians. Targets give the lowest and highest
per-round ratio beside the median.

Usage: report.py RESULTS.jsonl [MORE.jsonl ...] [--json OUT.json] [--md OUT.md] [--elapsed S]
       report.py --current bench/RESULTS.md [--results-dir bench/results]

Several result files pool their rounds (the second file's rounds follow the first's,
and so on), so targets can be judged on the per-round ratios of several full runs;
the header is the first file's, with the number of runs pooled.

--current rewrites the "Current numbers" page of RESULTS.md (between the markers
<!-- current:begin --> and <!-- current:end -->, or after its title the first time):
each workload's figures from the newest file of bench/results/ that ran it (by the
start time in its meta line), a peer that file did not run from the newest file
that did, and each target from the newest file that could judge it.
"""
import argparse
import datetime
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import types

METRICS = ["rps", "mbps", "cpu_us_per_req", "rss_peak_kb", "rss_per_req_kb", "p50_us", "p99_us", "max_us",
           "return_p50_us", "return_p99_us", "ir_per_req", "ir_total", "secs", "ok", "errors",
           "base_cpu_us_per_req", "base_rps", "corun_ratio", "paired_ratio", "paired_cpu_ratio"]


# ---------------------------------------------------------------- tables
SECTIONS = [
    ("w1-seq", "1) sequential small GETs, one keep-alive connection (envelope checked)",
     [("req/s", "rps", "{:,.0f}", True), ("CPU µs/req", "cpu_us_per_req", "{:,.1f}", True)]),
]
for c in (16, 64, 256):
    SECTIONS.append((f"w2-c{c}", f"2) small GETs, {c} concurrent",
                     [("req/s", "rps", "{:,.0f}", True), ("CPU µs/req", "cpu_us_per_req", "{:,.1f}", True)]))
for size, label in (("1k", "1 KB"), ("100k", "100 KB"), ("10m", "10 MB")):
    SECTIONS.append((f"w3-{size}", f"3) fetch + envelope parse, {label} body",
                     [("MB/s", "mbps", "{:,.1f}", True), ("req/s", "rps", "{:,.1f}", False),
                      ("CPU µs/req", "cpu_us_per_req", "{:,.0f}", True)]))
SECTIONS += [
    ("w4-mem", "4) 100 MB download to memory",
     [("MB/s", "mbps", "{:,.0f}", True), ("peak RSS MB", "rss_peak_kb", "{:,.0f}", True)]),
    ("w4-file", "4) 100 MB download to a file",
     [("MB/s", "mbps", "{:,.0f}", True)]),
    ("w5-slow", "5) requests in flight at once against the slow route",
     [("ok", "ok", "{:,.0f}", False), ("errors", "errors", "{:,.0f}", False), ("secs", "secs", "{:,.1f}", False),
      ("RSS kB/request", "rss_per_req_kb", "{:,.1f}", True)]),
    ("w6-cancel", "6) cancellation latency mid-transfer (µs)",
     [("samples", "ok", "{:,.0f}", False), ("p50", "p50_us", "{:,.0f}", True), ("p99", "p99_us", "{:,.0f}", True),
      ("max", "max_us", "{:,.0f}", False)]),
    ("w7-callgrind", "7) instructions per request (callgrind, 1,000 sequential, minus start-up)",
     [("Ir/request", "ir_per_req", "{:,.0f}", True), ("Ir total", "ir_total", "{:,.0f}", False)]),
]


W9_KEYS = ("w9-seq", "w9-c16", "w9-c64")
W9_TITLE = ("9) co-run: a peer and its base at the same time on one core, CPU per request "
            "(ratio = base ÷ peer: above 1 the peer costs less)")
W10_KEYS = tuple(f"w10-{proto}{c}" for proto in ("", "tls-", "h2-") for c in ("seq", "c16", "c64"))
W10_TITLE = ("10) taking turns: a peer and its base alternate in slices (2,000 requests in full mode) on one core, "
             "throughput (ratio = peer ÷ base over neighbouring slices, median)")


def fmt_value(m, metric, f):
    v = m.get(metric)
    if v is None:
        return "—"
    if metric == "rss_peak_kb":
        v = v / 1024
    return f.format(v)


def table(head, rows, md):
    if md:
        t = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        t += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
        return "\n".join(t)
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    def line(r):
        return "  ".join(str(c).ljust(w) if i == 0 or i == len(r) - 1 else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])



def analyse(paths, elapsed=None):
    """The results of `paths` (pooled when several): a namespace with meta, results,
    targets, refs and render(md)."""
    META, END, RUNS = {}, {}, {}
    POOLED = []   # (git, started) of each run when several files are given
    offset = 0
    for path in paths:
        last = -1
        for line in open(path):
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            if "meta" in r:
                META = META or r["meta"]
                POOLED.append((r["meta"].get("git", ""), r["meta"].get("started", "")))
            elif "meta_end" in r:
                if len(paths) == 1:   # a driver time only for a single run
                    END = r["meta_end"]
            else:
                r["round"] = r.get("round", 0) + offset
                last = max(last, r["round"])
                RUNS.setdefault((r["key"], r["peer"]), []).append(r)
        offset = last + 1

    def merged(key, peer):
        """one dict per (workload, peer): medians over rounds; status skipped/error"""
        runs = RUNS.get((key, peer))
        if not runs:
            return None
        good = [r for r in runs if "skipped" not in r and "error" not in r]
        if not good:
            r = runs[0]
            return {"status": "skipped" if "skipped" in r else "error",
                    "why": r.get("skipped") or r.get("error")}
        out = {"status": "ok", "rounds": len(good)}
        for m in METRICS:
            vals = [r[m] for r in good if isinstance(r.get(m), (int, float))]
            if vals:
                out[m] = statistics.median(vals)
        if any(r.get("first_error") for r in good):
            out["first_error"] = next(r["first_error"] for r in good if r.get("first_error"))
        for k in ("note", "n", "c", "samples", "not_called", "not_cancelled"):
            if k in good[0]:
                out[k] = good[0][k]
        if out.get("errors"):
            out["status"] = "errors"
        return out


    KEYS = []
    for (key, peer) in RUNS:
        if key not in KEYS:
            KEYS.append(key)
    RESULTS = {}
    for key in KEYS:
        RESULTS[key] = {}
        peers = [p for (k, p) in RUNS if k == key]
        for p in peers:
            RESULTS[key][p] = merged(key, p)


    def per_round(key, peer, metric):
        """{round: value} of the good runs of (key, peer)"""
        return {r.get("round", 0): r[metric] for r in RUNS.get((key, peer), [])
                if "skipped" not in r and "error" not in r and isinstance(r.get(metric), (int, float))}


    def paired(key, peer, base, metric):
        """(median, lowest, highest, rounds) of peer/base over the rounds both ran in,
        or None when fewer than three pair up"""
        a, b = per_round(key, peer, metric), per_round(key, base, metric)
        rs = [a[r] / b[r] for r in sorted(set(a) & set(b)) if b[r]]
        if len(rs) < 3:
            return None
        return statistics.median(rs), min(rs), max(rs), len(rs)


    def get(key, peer, metric):
        m = RESULTS.get(key, {}).get(peer)
        if not m or m["status"] not in ("ok", "errors"):
            return None
        return m.get(metric)


    class Ratio(float):
        """a ratio; `spread` is (lowest, highest, rounds) when it is a median of per-round ratios"""
        spread = None


    def ratio(key, peer, metric, base="raw-curl"):
        pr = paired(key, peer, base, metric)
        if pr:
            r = Ratio(pr[0])
            r.spread = pr[1:]
            return r
        a, b = get(key, peer, metric), get(key, base, metric)
        return a / b if a is not None and b else None


    for key in KEYS:
        for p, m in RESULTS[key].items():
            if m and m["status"] in ("ok", "errors"):
                m["ratio_to_raw"] = {k: r for k in METRICS if k not in ("ok", "errors", "secs", "ir_total", "corun_ratio",
                                                                        "base_cpu_us_per_req", "base_rps",
                                                                        "paired_ratio", "paired_cpu_ratio")
                                     for r in [ratio(key, p, k)] if r is not None}




    def corun(key, pair):
        """workload 9: the median of a pair's per-round co-run ratios (base CPU / peer CPU),
        with its spread; None when the pair did not run"""
        rs = [r["corun_ratio"] for r in RUNS.get((key, pair), [])
              if "error" not in r and isinstance(r.get("corun_ratio"), (int, float))]
        if not rs:
            return None
        v = Ratio(statistics.median(rs))
        v.spread = (min(rs), max(rs), len(rs))
        return v


    def sliced(key, pair):
        """workload 10: the median of a pair's slice-pair throughput ratios pooled over
        its rounds, with the spread of the rounds' own medians; None when it did not run"""
        good = [r for r in RUNS.get((key, pair), []) if "error" not in r and r.get("paired_ratios")]
        if not good:
            return None
        every = [x for r in good for x in r["paired_ratios"]]
        per = [statistics.median(r["paired_ratios"]) for r in good]
        v = Ratio(statistics.median(every))
        v.spread = (min(per), max(per), len(per))
        v.note = (f"median of {len(every)} slice pairs in {len(per)} rounds; "
                  f"rounds' medians {min(per):.3g}-{max(per):.3g}")
        return v


    def sliced_cpu(key, pair):
        """workload 10: the median over rounds of base CPU ÷ peer CPU per request"""
        per = [r["paired_cpu_ratio"] for r in RUNS.get((key, pair), [])
               if "error" not in r and isinstance(r.get("paired_cpu_ratio"), (int, float))]
        return statistics.median(per) if per else None


    def inverse(v):
        """a co-run ratio (base CPU ÷ peer CPU) as the peer's CPU ×base, spread inverted"""
        if v is None:
            return None
        r = Ratio(1 / v)
        lo, hi, n = v.spread
        r.spread = (1 / hi, 1 / lo, n)
        r.note = f"median of {n} co-run rounds, {1 / hi:.3g}-{1 / lo:.3g}"
        return r


    def switches(key, pair):
        """context switches a request, voluntary + involuntary, every thread of the peer's
        process (its getrusage), median over rounds with their spread"""
        per = [r["vcsw_per_req"] + r["ivcsw_per_req"] for r in RUNS.get((key, pair), [])
               if "error" not in r and isinstance(r.get("vcsw_per_req"), (int, float))]
        if not per:
            return None
        v = Ratio(statistics.median(per))
        v.spread = (min(per), max(per), len(per))
        v.note = f"median of {len(per)} rounds, {min(per):.3g}-{max(per):.3g}"
        return v


    # ---------------------------------------------------------------- targets
    TARGETS = []


    def target(name, value, threshold, op, why_missing=""):
        """value op threshold -> met/missed; None value -> n/a"""
        if value is None:
            TARGETS.append({"target": name, "value": None, "threshold": threshold, "status": "n/a",
                            "note": why_missing})
            return
        met = value >= threshold if op == ">=" else value <= threshold
        t = {"target": name, "value": float(value), "threshold": threshold, "op": op,
             "status": "met" if met else "missed"}
        spread = getattr(value, "spread", None)
        if spread:
            lo, hi, n = spread
            t.update({"lowest": lo, "highest": hi, "rounds": n,
                      "note": getattr(value, "note", None) or f"median of {n} per-round ratios, {lo:.3g}-{hi:.3g}"})
        TARGETS.append(t)


    def na(key, peer):
        m = RESULTS.get(key, {}).get(peer)
        if m is None:
            return "not run"
        return m.get("why") or m.get("first_error") or ""


    for key, label in (("w1-seq", "1"), ("w2-c16", "16"), ("w2-c64", "64"), ("w2-c256", "256")):
        target(f"C API throughput ×raw, concurrency {label}", ratio(key, "nc-capi", "rps"), 0.97, ">=",
               na(key, "nc-capi"))
    for key, label in (("w1-seq", "1"), ("w2-c16", "16"), ("w2-c64", "64"), ("w2-c256", "256")):
        target(f"C API CPU/request ×raw, concurrency {label}", ratio(key, "nc-capi", "cpu_us_per_req"), 1.10, "<=",
               na(key, "nc-capi"))
    # With a retry policy configured that never triggers (nc-capi-retry).
    for key, label in (("w1-seq", "1"), ("w2-c16", "16"), ("w2-c64", "64")):
        target(f"C API + retry configured (never triggered) ×raw, concurrency {label}",
               ratio(key, "nc-capi-retry", "rps"), 0.97, ">=", na(key, "nc-capi-retry"))
    # With an event handler and a signing config installed (nc-capi-hooks).
    for key, label in (("w1-seq", "1"), ("w2-c16", "16"), ("w2-c64", "64")):
        target(f"C API + event handler + signing ×raw, concurrency {label}", ratio(key, "nc-capi-hooks", "rps"), 0.95,
               ">=", na(key, "nc-capi-hooks"))
    # The same three bars read as co-run CPU (workload 9), where the client's core bounds
    # throughput (concurrency 16 and 64): a reading the machine's speed changes do not move.
    for key, label in (("w9-c16", "16"), ("w9-c64", "64")):
        target(f"C API ×raw, co-run CPU (workload 9), concurrency {label}", corun(key, "nc-capi/raw-curl"), 0.97, ">=",
               na(key, "nc-capi/raw-curl"))
        target(f"C API + retry configured ×raw, co-run CPU (workload 9), concurrency {label}",
               corun(key, "nc-capi-retry/raw-curl"), 0.97, ">=", na(key, "nc-capi-retry/raw-curl"))
        target(f"C API + event handler + signing ×raw, co-run CPU (workload 9), concurrency {label}",
               corun(key, "nc-capi-hooks/raw-curl"), 0.95, ">=", na(key, "nc-capi-hooks/raw-curl"))
    # The throughput bars of workloads 1-2 read in turns (workload 10): the two peers
    # alternate in slices, so both meet the machine at the same speed. These judge the
    # 0.97 bars where a run has them (bench/README.md, workload 10).
    for key, label in (("w10-seq", "1"), ("w10-c16", "16"), ("w10-c64", "64")):
        target(f"C API throughput ×raw, taking turns (workload 10), concurrency {label}",
               sliced(key, "nc-capi/raw-curl"), 0.97, ">=", na(key, "nc-capi/raw-curl"))
        target(f"C API + retry configured throughput ×raw, taking turns (workload 10), concurrency {label}",
               sliced(key, "nc-capi-retry/raw-curl"), 0.97, ">=", na(key, "nc-capi-retry/raw-curl"))
    # The same bars over TLS (HTTP/1.1) and HTTP/2, nginx with the conformance suite's CA.
    for proto, what in (("tls-", "TLS"), ("h2-", "HTTP/2")):
        for c, label in (("seq", "1"), ("c16", "16"), ("c64", "64")):
            key = f"w10-{proto}{c}"
            target(f"C API throughput ×raw over {what}, taking turns (workload 10), concurrency {label}",
                   sliced(key, "nc-capi/raw-curl"), 0.97, ">=", na(key, "nc-capi/raw-curl"))
    # Issue 37's bars for the other surfaces and the sequential C path, where a run has
    # them (workloads 9 and 10 on plain HTTP). CPU per request is read co-run (both on
    # one core at once, bench/corun.sh's measure) and given as ×raw: base ÷ peer inverted.
    target("C API ×raw, co-run CPU (workload 9), concurrency 1", corun("w9-seq", "nc-capi/raw-curl"), 0.98, ">=",
           na("w9-seq", "nc-capi/raw-curl"))
    for path, what in (("nc-swift-async", "Swift async"), ("nc-swift-exec", "Swift async on client.executor")):
        for c, label in (("seq", "1"), ("c16", "16")):
            target(f"{what} throughput ×raw, taking turns (workload 10), concurrency {label}",
                   sliced(f"w10-{c}", f"{path}/raw-curl"), 0.97, ">=", na(f"w10-{c}", f"{path}/raw-curl"))
            target(f"{what} CPU/request ×raw, co-run (workload 9), concurrency {label}",
                   inverse(corun(f"w9-{c}", f"{path}/raw-curl")), 1.15, "<=", na(f"w9-{c}", f"{path}/raw-curl"))
    target("Python asyncio ×pycurl multi loop, taking turns (workload 10), concurrency 16",
           sliced("w10-c16", "py-netcore-async/pycurl"), 0.8, ">=", na("w10-c16", "py-netcore-async/pycurl"))
    target("Python asyncio context switches/request (every thread), concurrency 16",
           switches("w10-c16", "py-netcore-async/pycurl"), 0.1, "<=", na("w10-c16", "py-netcore-async/pycurl"))
    target("Python sync ×pycurl, taking turns (workload 10), sequential",
           sliced("w10-seq", "py-netcore/pycurl"), 1.0, ">=", na("w10-seq", "py-netcore/pycurl"))
    target("C API instructions/request ×raw (callgrind, 1,000 sequential)",
           ratio("w7-callgrind", "nc-capi", "ir_per_req"), 1.10, "<=", na("w7-callgrind", "nc-capi"))
    target("sync (nc_client_send_sync) ×raw, sequential", ratio("w1-seq", "nc-sync", "rps"), 0.95, ">=",
           na("w1-seq", "nc-sync"))
    for key, label in (("w1-seq", "1"), ("w2-c16", "16")):
        target(f"Swift async ×raw, concurrency {label}", ratio(key, "nc-swift-async", "rps"), 0.85, ">=",
               na(key, "nc-swift-async"))
        target(f"Swift async ×AsyncHTTPClient, concurrency {label}",
               ratio(key, "nc-swift-async", "rps", "ahc"), 2.0, ">=", na(key, "nc-swift-async") or na(key, "ahc"))
    # The same bars for tasks on the client's executor (opt-in, NetClient.executor):
    # reported beside the default path, which the targets above judge.
    for key, label in (("w1-seq", "1"), ("w2-c16", "16")):
        target(f"Swift async on client.executor ×raw, concurrency {label}", ratio(key, "nc-swift-exec", "rps"), 0.85,
               ">=", na(key, "nc-swift-exec"))
        target(f"Swift async on client.executor ×AsyncHTTPClient, concurrency {label}",
               ratio(key, "nc-swift-exec", "rps", "ahc"), 2.0, ">=", na(key, "nc-swift-exec") or na(key, "ahc"))
    target("Python sync ×requests.Session, sequential", ratio("w1-seq", "py-netcore", "rps", "requests"), 5.0, ">=",
           na("w1-seq", "py-netcore"))
    target("Python sync ×pycurl, sequential", ratio("w1-seq", "py-netcore", "rps", "pycurl"), 1.0, ">=",
           na("w1-seq", "py-netcore"))
    target("Python asyncio ×httpx async, concurrency 64",
           ratio("w2-c64", "py-netcore-async", "rps", "httpx-async"), 2.0, ">=", na("w2-c64", "py-netcore-async"))
    target("Python asyncio ×aiohttp, concurrency 64",
           ratio("w2-c64", "py-netcore-async", "rps", "aiohttp"), 1.0, ">=", na("w2-c64", "py-netcore-async"))
    for size in ("1k", "100k", "10m"):
        target(f"fetch + envelope parse {size} ×raw jansson (MB/s)", ratio(f"w3-{size}", "nc-capi", "mbps"), 0.9, ">=",
               na(f"w3-{size}", "nc-capi"))
    target("100 MB download to memory ×raw (MB/s)", ratio("w4-mem", "nc-capi", "mbps"), 0.95, ">=",
           na("w4-mem", "nc-capi"))
    target("100 MB download to file ×raw (MB/s)", ratio("w4-file", "nc-capi", "mbps"), 0.95, ">=",
           na("w4-file", "nc-capi"))
    # "Flat RSS": the peak stays far below the body (a quarter of it), whatever its size.
    file_rss = get("w4-file", "nc-capi", "rss_peak_kb")
    target("100 MB download to file: peak RSS, MB (flat: <= 25)", None if file_rss is None else round(file_rss / 1024, 1),
           25, "<=", na("w4-file", "nc-capi"))
    slow = RESULTS.get("w5-slow", {}).get("nc-capi")
    target("in flight against the slow route: errors", None if not slow or slow["status"] in ("skipped", "error")
           else slow.get("errors", 0), 0, "<=", na("w5-slow", "nc-capi"))
    target("in flight: RSS/request ×raw", ratio("w5-slow", "nc-capi", "rss_per_req_kb"), 1.25, "<=",
           na("w5-slow", "nc-capi"))
    p99 = get("w6-cancel", "nc-capi", "p99_us")
    target("cancellation p99 (nc_task_cancel -> callback returned), ms", None if p99 is None else p99 / 1000, 1.0,
           "<=", na("w6-cancel", "nc-capi"))

    # Reference, not targets: (1) the same ratios against raw code given the libcurl options
    # libnetcore uses to save per-transfer work (raw-curl-tuned: CURLOPT_CURLU, no proxy
    # lookup); shows the library's own cost with those options out of the comparison.
    # (2) What raw libcurl itself reaches against AsyncHTTPClient one request at a time:
    # the ceiling for the "Swift async >= 2x AsyncHTTPClient at concurrency 1" target.
    # (3) Instruction counts where a throughput ratio is within the machine's noise.
    # (4) Signing against its floor: raw libcurl signing every request by hand the same way
    # (raw-curl-signed: libcrypto's HMAC, two more headers), what any client pays for it.
    REFS = []
    for key, label in (("w1-seq", "1"), ("w2-c16", "16"), ("w2-c64", "64"), ("w2-c256", "256")):
        REFS.append((f"C API throughput ×raw-curl-tuned, concurrency {label}", ratio(key, "nc-capi", "rps", "raw-curl-tuned")))
        REFS.append((f"C API CPU/request ×raw-curl-tuned, concurrency {label}",
                     ratio(key, "nc-capi", "cpu_us_per_req", "raw-curl-tuned")))
    REFS.append(("C API instructions/request ×raw-curl-tuned (callgrind)",
                 ratio("w7-callgrind", "nc-capi", "ir_per_req", "raw-curl-tuned")))
    for base_peer in ("raw-curl", "raw-curl-tuned"):
        REFS.append((f"{base_peer} ×AsyncHTTPClient, concurrency 1 (the ceiling for the Swift target)",
                     ratio("w1-seq", base_peer, "rps", "ahc")))
    # The Python sync pair on a repeatable measure: its throughput ratio swings by 10-20 %
    # from round to round on a shared machine; instructions (Python included) do not.
    REFS.append(("Python sync instructions/request ×pycurl (callgrind, 1,000 sequential)",
                 ratio("w7-callgrind", "py-netcore", "ir_per_req", "pycurl")))
    SIGNING_REFS = []
    for key, label in (("w1-seq", "1"), ("w2-c16", "16"), ("w2-c64", "64")):
        SIGNING_REFS.append((f"C API + signing ×raw-curl-signed (the signing floor), concurrency {label}",
                             ratio(key, "nc-capi-signing", "rps", "raw-curl-signed")))
        SIGNING_REFS.append((f"C API + event handler + signing ×raw-curl-signed, concurrency {label}",
                             ratio(key, "nc-capi-hooks", "rps", "raw-curl-signed")))
    # Workload 9's other pairs: the calibration (raw-curl against itself), the signing
    # floor against raw, the hooks against that floor, the same work (raw libcurl with the
    # timeouts libnetcore sets by default) against raw and the C API against it, and
    # sequential requests (where the round trip, not the client's CPU, sets throughput).
    W9_REFS = [("raw-curl/raw-curl", "raw-curl ×raw-curl (calibration)"),
               ("raw-curl-signed/raw-curl", "raw-curl-signed ×raw (what signing costs any client)"),
               ("nc-capi-hooks/raw-curl-signed", "C API + event handler + signing ×raw-curl-signed"),
               ("raw-curl-signed-events/raw-curl", "raw-curl-signed-events ×raw (what signing and events cost any client)"),
               ("nc-capi-hooks/raw-curl-signed-events", "C API + event handler + signing ×raw-curl-signed-events (the same work)"),
               ("raw-curl-timeouts/raw-curl", "raw-curl-timeouts ×raw (what the default timeouts cost any client)"),
               ("nc-capi/raw-curl-timeouts", "C API ×raw-curl-timeouts (the same work)"),
               ("nc-capi-retry/raw-curl-timeouts", "C API + retry ×raw-curl-timeouts (the same work)"),
               ("raw-curl/raw-curl-no-ua", "raw-curl ×raw-curl-no-ua (what a User-Agent line costs any client)"),
               ("nc-capi/raw-curl-no-ua", "C API ×raw-curl-no-ua (libnetcore sends a line raw-curl-no-ua does not)")]
    for key, label in (("w9-seq", "1"), ("w9-c16", "16"), ("w9-c64", "64")):
        for pair, what in W9_REFS:
            SIGNING_REFS.append((f"co-run CPU, concurrency {label}: {what}", corun(key, pair)))
        if key == "w9-seq":
            for pair, what in (("nc-capi/raw-curl", "C API"), ("nc-capi-retry/raw-curl", "C API + retry"),
                               ("nc-capi-hooks/raw-curl", "C API + event handler + signing")):
                SIGNING_REFS.append((f"co-run CPU, concurrency 1: {what} ×raw", corun(key, pair)))
    SIGNING_REFS = [(name, v) for name, v in SIGNING_REFS if v is not None]
    REFS = [(name, v) for name, v in REFS if v is not None] + SIGNING_REFS

    def section_title(key):
        """a workload's heading, with its request count"""
        title = next(t for k, t, c in SECTIONS if k == key)
        n = next((m.get("n") for m in RESULTS[key].values() if m and m.get("n")), None)
        return title + (f" (n={n:,})" if n else "")

    def section_table(key, md, peers=None):
        """one workload's table: every peer, or those of `peers` (in this run's order)"""
        cols = next(c for k, t, c in SECTIONS if k == key)
        head = ["peer"]
        for name, metric, f, with_ratio in cols:
            head.append(name)
            if with_ratio:
                head.append("×raw")
        head.append("note")
        rows = []
        for peer, m in RESULTS[key].items():
            if m is None or (peers is not None and peer not in peers):
                continue
            row = [peer]
            if m["status"] in ("skipped", "error"):
                for name, metric, f, with_ratio in cols:
                    row += ["—"] + (["—"] if with_ratio else [])
                row.append(("skipped: " if m["status"] == "skipped" else "ERROR: ") + str(m["why"])[:110])
            else:
                for name, metric, f, with_ratio in cols:
                    row.append(fmt_value(m, metric, f))
                    if with_ratio:
                        r = m.get("ratio_to_raw", {}).get(metric)
                        row.append("—" if r is None else f"{r:.2f}")
                note = m.get("note", "")
                raw_n = (RESULTS[key].get("raw-curl") or {}).get("n")
                if m.get("n") and raw_n and m["n"] != raw_n and key != "w5-slow":
                    note = (note + "; " if note else "") + f"n={m['n']:,}"
                if m.get("first_error"):
                    note = (note + "; " if note else "") + m["first_error"][:110]
                row.append(note)
            rows.append(row)
        return table(head, rows, md)

    def pair_table(keys, md, pairs, head, row):
        """a table of workload 9 or 10 over `keys`: every pair, or those of `pairs`
        ({key: set}); `row(key, pair, m)` the cells after the first two"""
        rows = []
        for key in keys:
            for pair, m in RESULTS[key].items():
                if not m or (pairs is not None and pair not in pairs.get(key, ())):
                    continue
                if m["status"] in ("skipped", "error"):
                    rows.append([key, pair] + ["—"] * (len(head) - 3) + ["ERROR: " + str(m.get("why"))[:100]])
                    continue
                rows.append([key, pair] + row(key, pair, m))
        return table(head, rows, md)

    def corun_table(keys, md, pairs=None):
        """workload 9's table"""
        def row(key, pair, m):
            v = corun(key, pair)
            return [f"{m.get('base_cpu_us_per_req', 0):.2f}", f"{m.get('cpu_us_per_req', 0):.2f}",
                    "—" if v is None else f"{v:.3f}",
                    "" if v is None else f"{v.spread[0]:.3f}-{v.spread[1]:.3f}, {v.spread[2]} rounds, "
                    f"n={m.get('n', 0):,}"]
        return pair_table(keys, md, pairs, ["workload", "peer/base", "base µs/req", "peer µs/req", "ratio", "note"], row)

    def sliced_table(keys, md, pairs=None):
        """workload 10's table"""
        def row(key, pair, m):
            v, cpu = sliced(key, pair), sliced_cpu(key, pair)
            return [f"{m.get('base_rps', 0):,.0f}", f"{m.get('rps', 0):,.0f}",
                    "—" if v is None else f"{v:.3f}", "—" if cpu is None else f"{cpu:.3f}",
                    "" if v is None else v.note + f", n={m.get('n', 0):,} each"]
        return pair_table(keys, md, pairs, ["workload", "peer/base", "base req/s", "peer req/s", "throughput ratio",
                                            "CPU ratio", "note"], row)

    def render(md):
        lines = []
        out = lines.append
        q = "quick" if META.get("quick") else "full"
        out(("# " if md else "") + f"libnetcore benchmark — {q} mode, {META.get('started', '')}, git {META.get('git', '')}"
            + (" (+ uncommitted changes)" if META.get("git_dirty") else ""))
        out(f"{META.get('cores')} cores, client pinned to core 1 and servers to core 0: {META.get('pinned')}; "
            f"{META.get('curl', '')}; rounds: {META.get('rounds')} "
            + (f"(workloads 1-2: {META['rounds_w12']}, 3 at 1/100 KB and 4: {META.get('rounds_small')}; medians, "
               "ratios as medians of per-round ratios)"
               if 'rounds_w12' in META else
               f"({'workloads 1, 2 and 3 at 1/100 KB' if 'rounds_small' in META else 'workloads 1-2'}: "
               f"{META.get('rounds_small', META.get('rounds_w1_w2', META.get('rounds')))}, median kept)")
            + (f"; run took {elapsed:.0f} s" if elapsed else ""))
        if len(POOLED) > 1:
            out(f"pooled: the rounds of {len(POOLED)} runs, "
                + ", ".join(f"git {g} ({t})" for g, t in POOLED)
                + "; every median and per-round ratio is over all of them")
        ver = META.get("versions") or {}
        if ver:
            out("versions: " + "; ".join(f"{k}: {v}" for k, v in ver.items() if v))
        if META.get("nc_max_connections_per_host"):
            out(f"libnetcore limits.max_connections_per_host = {META['nc_max_connections_per_host']} "
                "(BENCH_NC_MAX_CONNECTIONS_PER_HOST; the standard bench config uses 0)")
        out("")
        for key, title, cols in SECTIONS:
            if key not in RESULTS:
                continue
            out(("## " if md else "") + section_title(key))
            out(section_table(key, md))
            out("")
        w9 = [k for k in W9_KEYS if k in RESULTS]
        if w9:
            out(("## " if md else "") + W9_TITLE)
            out(corun_table(w9, md))
            out("")
        w10 = [k for k in W10_KEYS if k in RESULTS]
        if w10:
            out(("## " if md else "") + W10_TITLE)
            out(sliced_table(w10, md))
            out("")
        out(("## " if md else "") + "targets")
        rows = []
        for t in TARGETS:
            v = t["value"]
            rows.append([t["target"], "—" if v is None else f"{v:.3g}", f"{t.get('op', '')} {t['threshold']}",
                         t["status"].upper() if t["status"] == "missed" else t["status"], t.get("note", "")[:100]])
        out(table(["target", "measured", "threshold", "status", "note"], rows, md))
        met = sum(t["status"] == "met" for t in TARGETS)
        missed = sum(t["status"] == "missed" for t in TARGETS)
        out("")
        out(f"targets: {met} met, {missed} missed, {len(TARGETS) - met - missed} n/a")
        if REFS:
            out("")
            # (runs without raw-curl-signed keep the heading they were printed with)
            out(("## " if md else "") + "reference figures (not targets): against raw code with the same libcurl options (raw-curl-tuned), "
                + ("repeatable counts, and signing against raw code that signs (raw-curl-signed)" if SIGNING_REFS
                   else "and repeatable counts"))
            out(table(["ratio", "measured"], [[name, f"{v:.3g}"] for name, v in REFS], md))
        if META.get("notes"):
            out("")
            out(("## " if md else "") + "notes")
            for p, why in META["notes"].items():
                out(f"- {p}: {why}")
        return "\n".join(lines)


    return types.SimpleNamespace(meta=META, end=END, pooled=POOLED, runs=RUNS, keys=KEYS, results=RESULTS,
                                 targets=TARGETS, refs=REFS, render=render, section_title=section_title,
                                 section_table=section_table, corun_table=corun_table,
                                 sliced_table=sliced_table)


# ---------------------------------------------------------------- current numbers
BEGIN, END_MARK = "<!-- current:begin -->", "<!-- current:end -->"
APPMIX_TITLE = "8) app mix: 64 screens on one client (lists duplicated in flight, cacheable resources, unique items)"


def file_info(path):
    """(started, git, keys) of a result file: its meta line, or for a file without one
    (workload 8's app-mix lines) the commit that added it to the repository"""
    started = git = None
    keys = []
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        r = json.loads(line)
        if "meta" in r:
            started, git = r["meta"].get("started"), r["meta"].get("git")
        elif "key" in r and r["key"] not in keys:
            keys.append(r["key"])
        elif r.get("workload") == "appmix" and "w8-appmix" not in keys:
            keys.append("w8-appmix")
    if started is None:
        try:
            out = subprocess.run(["git", "log", "--follow", "--diff-filter=A", "--format=%h %cI", "--", path],
                                 capture_output=True, text=True, check=True, cwd=os.path.dirname(path) or ".").stdout
            git, started = out.split()[-2:]
        except (OSError, subprocess.CalledProcessError, ValueError):
            started = datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc).isoformat()
    return normalise_time(started), git or "?", keys


def normalise_time(t):
    """ISO 8601 in either form (+0000 or +00:00) as a sortable UTC datetime"""
    t = t.replace("Z", "+00:00")
    if len(t) >= 5 and t[-5] in "+-" and t[-3] != ":":
        t = t[:-2] + ":" + t[-2:]
    return datetime.datetime.fromisoformat(t).astimezone(datetime.timezone.utc)


def appmix_table(path):
    """workload 8's table (medians of the rounds, as bench/appmix.sh prints it)"""
    rows = [json.loads(l) for l in open(path) if l.strip()]
    raw = [r for r in rows if r["peer"] == "raw-curl"]
    nc = [r for r in rows if r["peer"] == "nc-capi"]
    out = ["| peer | requests/s | server hits per 1,000 requests | lists | cacheable (304s) | unique |",
           "|---|---:|---:|---:|---:|---:|"]
    for peer, sub in (("raw-curl", raw), ("nc-capi", nc)):
        srv = sub[len(sub) // 2]["server"]
        out.append(f"| {peer} | {statistics.median(r['rps'] for r in sub):,.0f} | "
                   f"{statistics.median(1000 * r['server']['total'] / r['done'] for r in sub):,.0f} | "
                   f"{srv['list']} | {srv['res']} ({srv['res_304']}) | {srv['item']} |")
    speed = statistics.median(n["rps"] / r["rps"] for r, n in zip(raw, nc))
    hits = statistics.median(n["server"]["total"] / r["server"]["total"] for r, n in zip(raw, nc))
    out.append("")
    out.append(f"nc-capi / raw-curl: **{speed:.2f}×** the completed requests per second (target ≥ 1.5×), "
               f"**{hits:.2f}×** the server hits (target < 0.5×); medians of per-round ratios over {len(raw)} rounds")
    return "\n".join(out)


def wan_targets(results_dir):
    """Issue 37's WAN targets from `make bench-wan`'s files (bench/wan.sh): per profile,
    each target from the newest file (by the commit that added it) holding both of its
    sides; tagged files (wan-<profile>-<commit>-<tag>.jsonl, before/after experiments)
    are left out. Rows of the targets table, and how many were met."""
    rows, met = [], 0
    for profile in ("80ms", "3g"):
        files = [f for f in glob.glob(os.path.join(results_dir, f"wan-{profile}-*.jsonl"))
                 if re.fullmatch(rf"wan-{re.escape(profile)}-[0-9a-f]{{7,40}}\.jsonl", os.path.basename(f))]
        files.sort(key=lambda f: file_info(f)[0], reverse=True)
        lines = {f: [json.loads(l) for l in open(f) if l.strip()] for f in files}

        def find(*sides):
            """the newest file with every (workload, peer) of `sides`, and their lines"""
            for f in files:
                got = [next((r for r in lines[f] if (r.get("workload"), r.get("peer")) == sd), None) for sd in sides]
                if all(g is not None and not g.get("errors") for g in got):
                    return f, got
            return None, None

        def med(r):
            return statistics.median(r["seconds"])

        checks = []
        f, got = find(("burst", "nc"), ("cold1", "nc"))
        if f:
            b, c1 = got
            conns = b.get("server", {}).get("connections", 0) / max(1, len(b["seconds"]))
            checks.append(("cold burst of 30 on a new client: connections per burst", conns, 1, "<=", f,
                           f"{b.get('server', {}).get('connections', 0)} over {len(b['seconds'])} bursts"))
            checks.append(("cold burst of 30 ÷ one cold request (time)", med(b) / med(c1), 1.3, "<=", f,
                           f"{med(b):.3f} s ÷ {med(c1):.3f} s, medians of {len(b['seconds'])}"))
        for w, what in (("screens", "screens, every one new"), ("session", "session, two views in three revisits")):
            f, got = find((w, "nc"), (w, "raw-pipewait"))
            if f:
                n, r = got
                checks.append((f"{what}: p50 time-to-screen ×raw libcurl", med(n) / med(r), 0.5, "<=", f,
                               f"p50 {med(n):.3f} s ÷ {med(r):.3f} s over {len(n['seconds'])} views"))
                hits = n.get("server", {}).get("requests", 0) / max(1, r.get("server", {}).get("requests", 0))
                checks.append((f"{what}: server hits ×raw libcurl", hits, 0.5, "<=", f,
                               f"{n.get('server', {}).get('requests', 0)} ÷ {r.get('server', {}).get('requests', 0)}"))
        f, got = find(("steady", "nc"), ("steady", "raw-pipewait"))
        if f:
            n, r = got
            if r.get("rps"):
                checks.append(("steady state c=16: requests/s ×raw libcurl", n["rps"] / r["rps"], 0.97, ">=", f,
                               f"{n['rps']:,.1f} ÷ {r['rps']:,.1f} requests/s"))
        for name, value, threshold, op, f, note in checks:
            ok = value <= threshold if op == "<=" else value >= threshold
            met += ok
            rows.append(f"| {profile}: {name} | {value:.3g} | {op} {threshold} | {'met' if ok else 'MISSED'} | {note} | "
                        f"`{os.path.basename(f)}` |")
    return rows, met


def current_page(results_dir):
    """The "Current numbers" page: for each workload, its figures from the newest result
    file that ran it; a peer that file did not run (or skipped) comes from the newest
    file that did, in a table of its own, with its ratios to that file's raw-curl."""
    files = sorted(glob.glob(os.path.join(results_dir, "*.jsonl")))
    info = {f: file_info(f) for f in files}
    newest_first = sorted(files, key=lambda f: info[f][0], reverse=True)
    runs = {}

    def run(f):
        if f not in runs:
            runs[f] = analyse([f])
        return runs[f]

    def label(f):
        started, git, _ = info[f]
        return f"`bench/results/{os.path.basename(f)}` (git {git}, {started:%Y-%m-%d %H:%M} UTC)"

    def good(m):
        return m is not None and m["status"] in ("ok", "errors")

    def choose(keys):
        """{file: {key: set of peers}} for `keys`: each peer from the newest file where it
        has figures (else the newest where it appears), each file's raw-curl beside it"""
        chosen = {}
        for key in keys:
            have = [f for f in newest_first if key in info[f][2]]
            peers = []
            for f in have:
                for p in run(f).results[key]:
                    if p not in peers:
                        peers.append(p)
            for p in peers:
                f = next((f for f in have if good(run(f).results[key].get(p))), None) \
                    or next(f for f in have if p in run(f).results[key])
                chosen.setdefault(f, {}).setdefault(key, set()).add(p)
        for f, by_key in chosen.items():
            for key, ps in by_key.items():
                if "raw-curl" in run(f).results[key]:
                    ps.add("raw-curl")
        return [(f, chosen[f]) for f in newest_first if f in chosen]

    out = [BEGIN, "## Current numbers", "",
           "*Regenerated by `python3 bench/report.py --current bench/RESULTS.md` from the newest result file of "
           "each workload in `bench/results/`; do not edit between the markers.* Each table comes from one file, "
           "named above it with the commit it measured; a peer the newest file of a workload did not run comes from "
           "the newest file that did, in a table of its own whose ratios are to that file's raw-curl. The write-ups "
           "after this page say how each run was made and why a target is missed.", ""]
    keys_all = [k for f in files for k in info[f][2]]
    out += ["| workload | newest file |", "|---|---|"]
    for key in [k for k, t, c in SECTIONS] + ["w8-appmix"] + list(W9_KEYS) + list(W10_KEYS):
        if key in keys_all:
            f = next(f for f in newest_first if key in info[f][2])
            out.append(f"| {key} | {label(f)} |")
    out.append("")
    # Targets: each from the newest file where it could be judged.
    names, best = [], {}
    for f in newest_first:
        if not any(k != "w8-appmix" for k in info[f][2]):
            continue   # workload 8's lines are not report.py's (bench/appmix.sh judges them)
        for t in run(f).targets:
            if t["target"] not in names:
                names.append(t["target"])
            if t["status"] != "n/a" and t["target"] not in best:
                best[t["target"]] = (t, f)
    out += ["### Targets", "", "| target | measured | threshold | status | note | file |", "|---|---|---|---|---|---|"]
    for name in names:
        if name not in best:
            continue
        t, f = best[name]
        out.append(f"| {name} | {t['value']:.3g} | {t.get('op', '')} {t['threshold']} | "
                   f"{t['status'].upper() if t['status'] == 'missed' else t['status']} | {t.get('note', '')[:100]} | "
                   f"`{os.path.basename(f)}` |")
    met = sum(best[n][0]["status"] == "met" for n in best)
    out += ["", f"{met} met, {len(best) - met} missed; not judged by any file: {len(names) - len(best)}", ""]
    wan, wan_met = wan_targets(results_dir)
    if wan:
        out += ["### WAN targets (`make bench-wan`, issue 37)", "",
                "*From the newest `bench/results/wan-<profile>-<commit>.jsonl` holding both sides of each; "
                "bench/wan.sh says how each is measured.*", "",
                "| target | measured | threshold | status | note | file |", "|---|---|---|---|---|---|", *wan,
                "", f"{wan_met} met, {len(wan) - wan_met} missed", ""]
    for key, title, cols in SECTIONS:
        picks = choose([key])
        if not picks:
            continue
        out += [f"### {run(picks[0][0]).section_title(key)}", ""]
        for f, by_key in picks:
            out += [label(f) + ":", "", run(f).section_table(key, True, by_key[key]), ""]
    appmix = [f for f in newest_first if "w8-appmix" in info[f][2]]
    if appmix:
        out += [f"### {APPMIX_TITLE}", "", label(appmix[0]) + ":", "", appmix_table(appmix[0]), ""]
    w9 = [k for k in W9_KEYS if k in keys_all]
    if w9:
        out += [f"### {W9_TITLE}", ""]
        for f, by_key in choose(w9):
            out += [label(f) + ":", "", run(f).corun_table([k for k in w9 if k in by_key], True, by_key), ""]
    w10 = [k for k in W10_KEYS if k in keys_all]
    if w10:
        out += [f"### {W10_TITLE}", ""]
        for f, by_key in choose(w10):
            out += [label(f) + ":", "", run(f).sliced_table([k for k in w10 if k in by_key], True, by_key), ""]
    out.append(END_MARK)
    return "\n".join(out)


def write_current(doc, results_dir):
    """puts the current page between the markers of `doc`, or after its title line"""
    text = open(doc, encoding="utf-8").read()
    page = current_page(results_dir)
    if BEGIN in text and END_MARK in text:
        before, rest = text.split(BEGIN, 1)
        after = rest.split(END_MARK, 1)[1]
        text = before + page + after
    else:
        title, _, rest = text.partition("\n")
        text = title + "\n\n" + page + "\n\n" + rest.lstrip("\n")
    with open(doc, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote the current numbers of {results_dir} into {doc}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="*")
    ap.add_argument("--json")
    ap.add_argument("--md")
    ap.add_argument("--elapsed", type=float)
    ap.add_argument("--current", metavar="RESULTS.md")
    ap.add_argument("--results-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    A = ap.parse_args()
    if A.current:
        write_current(A.current, A.results_dir)
        return
    if not A.results:
        ap.error("give result files, or --current RESULTS.md")
    R = analyse(A.results, A.elapsed)
    print(R.render(False))
    if A.md:
        with open(A.md, "w") as f:
            f.write(R.render(True) + "\n")
    if A.json:
        with open(A.json, "w") as f:
            pooled = [{"git": g, "started": t} for g, t in R.pooled] if len(R.pooled) > 1 else None
            json.dump({"meta": R.meta, "pooled": pooled, "elapsed_s": A.elapsed, "driver_elapsed_s": R.end.get("elapsed"),
                       "results": R.results, "targets": R.targets,
                       "reference": [{"ratio": name, "value": v} for name, v in R.refs]}, f, indent=1, sort_keys=False)
            f.write("\n")


if __name__ == "__main__":
    main()
