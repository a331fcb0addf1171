#!/usr/bin/env python3
"""Interleaved rounds of Python peers (peers.py) against one URL, each peer in its
own process, pinned like `make bench` (taskset; --cpus ""  for none): the medians of
requests/s, CPU µs and context switches per request, and each peer's per-round ratio
to the first one (median [min-max]). For before/after figures of the binding or the
library, a spec names the binding folder and the library to load.

  rounds.py --url URL --rounds 7 -n 20000 \
      pycurl:pycurl:conc:16 \
      before:netcore-async:conc:16:/tmp/base/bindings/python:/tmp/base/libnetcore.so.0 \
      after:netcore-async:conc:16

spec = label:peer:workload:c[:binding_folder[:library]] (defaults: this repo's
bindings/python and build/lib/libnetcore.so.0). Raw lines: --out FILE (JSON lines).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ap = argparse.ArgumentParser()
ap.add_argument("--url", required=True)
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("-n", type=int, default=20000)
ap.add_argument("--warmup", type=int, default=200)
ap.add_argument("--cpus", default="1", help='taskset CPU list for the peers ("" for none)')
ap.add_argument("--python", default=os.path.join(ROOT, "build", "bench-venv", "bin", "python"))
ap.add_argument("--out", default="")
ap.add_argument("specs", nargs="+")
A = ap.parse_args()

specs = [s.split(":") for s in A.specs]
res = {s[0]: [] for s in specs}
out = open(A.out, "a") if A.out else None
for r in range(A.rounds):
    for s in (specs if r % 2 == 0 else list(reversed(specs))):
        label, peer, workload, c = s[:4]
        env = dict(os.environ)
        env["NETCORE_BINDING_PATH"] = s[4] if len(s) > 4 else os.path.join(ROOT, "bindings", "python")
        env["NETCORE_LIBRARY"] = s[5] if len(s) > 5 else os.path.join(ROOT, "build", "lib", "libnetcore.so.0")
        cmd = ([ "taskset", "-c", A.cpus] if A.cpus else []) + [
            A.python, os.path.join(HERE, "peers.py"), "--peer", peer, "--workload", workload,
            "-c", c, "-n", str(A.n), "--warmup", str(A.warmup), "--url", A.url, "--label", label]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        lines = p.stdout.strip().splitlines()
        if not lines:
            sys.exit(f"{label}: no result\n{p.stderr}")
        d = json.loads(lines[-1])
        d["round"] = r
        if out:
            out.write(json.dumps(d) + "\n")
        if d.get("errors"):
            sys.exit(f"{label}: {d['errors']} errors: {d.get('first_error')}")
        res[label].append(d)
        print(f"round {r} {label}: {d['rps']:.0f} req/s, {d['cpu_us_per_req']:.1f} µs CPU, "
              f"{d['vcsw_per_req']:.3f} + {d['ivcsw_per_req']:.3f} switches/req", flush=True)

base = specs[0][0]
print(f"medians of {A.rounds} rounds (ratios: per round, to {base}):")
for label, rs in res.items():
    def med(k):
        return statistics.median(x[k] for x in rs)
    line = (f"  {label:16s} {med('rps'):8.0f} req/s  {med('cpu_us_per_req'):6.1f} µs CPU  "
            f"switches/req {med('vcsw_per_req'):.3f} voluntary + {med('ivcsw_per_req'):.3f} involuntary")
    if label != base:
        for key, name in (("rps", "req/s"), ("cpu_us_per_req", "CPU")):
            rr = [a[key] / b[key] for a, b in zip(rs, res[base]) if b[key]]
            line += f"  {name} x{base} {statistics.median(rr):.2f} [{min(rr):.2f}-{max(rr):.2f}]"
    print(line)
