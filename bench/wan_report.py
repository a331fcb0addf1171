"""wan_report.py — the table of one `make bench-wan` profile from its .jsonl (bench/wan.sh).

    python3 bench/wan_report.py bench/results/wan-80ms-<commit>.jsonl [--md]
"""
import json
import statistics
import sys


def main():
    path = sys.argv[1]
    rows = [json.loads(line) for line in open(path) if line.strip()]
    profile = rows[0].get("profile", "?") if rows else "?"
    out = [f"profile {profile} ({path})", "",
           "| workload | peer | median s (range) | round 1 / later rounds' median s | connections / round | TLS resumed (of connections) | requests/s | CPU µs/request | errors |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    med = {}
    for r in rows:
        w, p, s = r["workload"], r["peer"], r.get("server", {})
        rounds = r.get("seconds") if isinstance(r.get("seconds"), list) else None
        if w in ("screens", "session") and rounds:
            q = statistics.quantiles(rounds, n=20)
            med[(w, p)] = statistics.median(rounds)
            med[(w + "-hits", p)] = s.get("requests", 0)
            out.append(f"| {w} | {p} | p50 {statistics.median(rounds):.3f}, p95 {q[18]:.3f} ({len(rounds)} screens) | | "
                       f"{s.get('connections', 0)} | {s.get('resumed', 0)} | {s.get('requests', 0)} served of "
                       f"{r.get('requests', 0)} asked |  | {r.get('errors', '?')} |")
            continue
        n_runs = len(rounds) if rounds else 1
        first = ""
        if rounds:
            m = statistics.median(rounds)
            med[(w, p)] = m
            cell = f"{m:.3f} ({min(rounds):.3f}–{max(rounds):.3f})"
            if len(rounds) > 1:
                first = f"{rounds[0]:.3f} / {statistics.median(rounds[1:]):.3f}"
                med[(w + "-later", p)] = statistics.median(rounds[1:])
            if r.get("warm_seconds"):
                med[(w + "-warm", p)] = statistics.median(r["warm_seconds"])
                first += f" (preconnect {statistics.median(r['warm_seconds']):.3f})"
        else:
            cell = f"{r.get('seconds', 0):.3f}"
            med[(w, p)] = r.get("rps", 0)
        conns = s.get("connections", 0) / n_runs
        resumed = s.get("resumed", 0)
        rps = f"{r['rps']:,.1f}" if "rps" in r else ""
        cpu = f"{r['cpu_us_per_request']:,.0f}" if "cpu_us_per_request" in r else ""
        out.append(f"| {w} | {p} | {cell} | {first} | {conns:.1f} | {resumed} of {s.get('connections', 0)} | {rps} | {cpu} | {r.get('errors', '?')} |")
    out.append("")
    for p in ("nc", "raw-pipewait", "raw-nopipewait", "httpx-h2"):
        b, c1 = med.get(("burst", p)), med.get(("cold1", p))
        if b and c1:
            out.append(f"{p}: burst of 30 / one cold request = {b / c1:.2f}x (target for nc <= 1.3x)")
    for w in ("pre1", "preburst"):
        base = "cold1" if w == "pre1" else "burst"
        if (w, "nc") in med and (base, "nc") in med:
            out.append(f"nc: {w} (after a preconnect) / {base} = {med[(w, 'nc')] / med[(base, 'nc')]:.2f}x")
    for p in ("raw-pipewait", "raw-nopipewait", "httpx-h2"):
        if ("steady", "nc") in med and ("steady", p) in med and med[("steady", p)]:
            out.append(f"steady c=16: nc / {p} = {med[('steady', 'nc')] / med[('steady', p)]:.2f}x requests/s")
        for w in ("screens", "session"):
            if (w, "nc") in med and (w, p) in med:
                out.append(f"{w}: nc p50 / {p} p50 = {med[(w, 'nc')] / med[(w, p)]:.2f}x, server hits "
                           f"{med[(w + '-hits', 'nc')] / max(1, med[(w + '-hits', p)]):.2f}x (targets <= 0.5x, <= 0.5x)")
        if ("burst", "nc") in med and ("burst", p) in med:
            out.append(f"burst: nc time / {p} time = {med[('burst', 'nc')] / med[('burst', p)]:.2f}x")
    print("\n".join(out))


if __name__ == "__main__":
    main()
