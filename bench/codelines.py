#!/usr/bin/env python3
"""bench/codelines.py — the code one C peer runs for every request: distinct 64-byte
instruction-cache lines a request, by library, and by function for one library.

    python3 bench/codelines.py URL PEER [peer args...] [--object libnetcore] [--top 40]
    python3 bench/codelines.py http://127.0.0.1:8080/tiny.json nc_capi --workload seq
    python3 bench/codelines.py http://127.0.0.1:8080/tiny.json raw_curl --workload seq

Two callgrind runs with --dump-instr=yes (1,000 and 3,000 requests): an instruction
counts as run every request when the second run executed it at least --frac (default
0.9) times a request more than the first, so start-up loops (relocation, config
parsing) cancel out. A line is hot when it holds one such instruction. The line
count is the code a request needs in the instruction cache: where a request starts
with cold caches (sequential requests, the core idle while the server answers), the
count, more than the instructions executed, is what a request's user time follows.
Also printed: hot instructions a hot line, a measure of how densely the hot path is
laid out (a layout that interleaves cold blocks with hot ones shows a low figure).

PEER is a binary of build/bench/bin (built by `make bench`); the server is yours (e.g.
the nginx that bench/run.sh starts); libnetcore is taken from build/lib, or from the
directory NC_LIB names (to compare two builds). The callgrind files stay in
build/bench/callgrind/.
"""
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "build", "bench", "callgrind")
RUNS = (1000, 3000)


def usage():
    sys.exit(__doc__.split("\n\n")[1])


def options(argv):
    """URL, PEER, the peer's arguments, and ours (--object, --top, --frac)."""
    ours = {"--object": "libnetcore", "--top": "40", "--frac": "0.9"}
    rest = []
    it = iter(argv)
    for a in it:
        if a in ours:
            ours[a] = next(it, None) or usage()
        else:
            rest.append(a)
    if len(rest) < 2:
        usage()
    return rest[0], rest[1], rest[2:], ours["--object"], int(ours["--top"]), float(ours["--frac"])


def record(url, peer, args, n):
    """Runs the peer under callgrind for n requests; returns the output file."""
    path = os.path.join(OUT, f"{peer}.lines.{n}.out")
    env = dict(os.environ, LD_LIBRARY_PATH=os.environ.get("NC_LIB", os.path.join(ROOT, "build", "lib")))
    cmd = ["valgrind", "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={path}",
           os.path.join(ROOT, "build", "bench", "bin", peer), "--url", url, "-n", str(n), "--warmup", "0", *args]
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def self_costs(path):
    """{(object, function, address): instructions executed there} from a callgrind file.

    The format (callgrind's "positions: instr line"): cost lines are `ADDR LINE COUNT`
    where ADDR and LINE may be absolute, +/- relative to the previous line's, or `*`;
    `ob=`/`fn=` name the current object and function, `(id) name` defines a short id and
    `(id)` reuses it; the line after `calls=` is a call's inclusive cost, not self cost.
    """
    ids = {"ob": {}, "fn": {}}

    def name(kind, text):
        m = re.match(r"\((\d+)\)\s*(.*)", text)
        if not m:
            return text
        if m.group(2):
            ids[kind][m.group(1)] = m.group(2)
        return ids[kind].get(m.group(1), text)

    costs = collections.Counter()
    obj = fn = "?"
    last = [0, 0]
    call_cost_next = False
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            head = line[0]
            if head.isdigit() or head in "+-*":
                fields = line.split()
                pos = []
                for i, t in enumerate(fields[:2]):
                    if t == "*":
                        pos.append(last[i])
                    elif t[0] in "+-":
                        pos.append(last[i] + int(t, 0))
                    else:
                        pos.append(int(t, 0))
                last = pos
                if call_cost_next:
                    call_cost_next = False
                    continue
                costs[(obj, fn, pos[0])] += int(fields[2]) if len(fields) > 2 else 0
            elif line.startswith("ob="):
                obj = os.path.basename(name("ob", line[3:].strip()))
            elif line.startswith("cob="):
                name("ob", line[4:].strip())
            elif line.startswith("fn="):
                fn = name("fn", line[3:].strip())
            elif line.startswith("cfn="):
                name("fn", line[4:].strip())
            elif line.startswith("calls="):
                call_cost_next = True
    return costs


def main():
    url, peer, args, want, top, frac = options(sys.argv[1:])
    os.makedirs(OUT, exist_ok=True)
    a, b = (self_costs(record(url, peer, args, n)) for n in RUNS)
    per_request = RUNS[1] - RUNS[0]
    lines = collections.defaultdict(set)  # (object, line) -> functions with hot code there
    hot_instructions = collections.Counter()  # (object, line) -> hot instructions in it
    for key, count in b.items():
        if (count - a.get(key, 0)) / per_request >= frac:
            obj, fn, addr = key
            lines[(obj, addr >> 6)].add(fn)
            hot_instructions[(obj, addr >> 6)] += 1
    print(f"{peer} {' '.join(args)}: code lines run every request (64 bytes each)")
    by_object = collections.Counter(obj for obj, _ in lines)
    for obj, n in by_object.most_common():
        dens = sum(v for (o, _), v in hot_instructions.items() if o == obj) / n
        print(f"{n:7d}  {obj}  ({dens:.1f} hot instructions a line)")
    print(f"{len(lines):7d}  in all, {len(lines) * 64 / 1024:.1f} KiB")
    by_function = collections.Counter()
    for (obj, _), fns in lines.items():
        if obj.startswith(want):
            for fn in fns:
                by_function[fn] += 1 / len(fns)  # a line shared by two functions counts half to each
    if by_function:
        print(f"\n{want}: lines by function (top {top})")
        ranked = by_function.most_common(top)
        for (fn, n), shown in zip(ranked, demangled([fn for fn, _ in ranked])):
            print(f"{n:7.1f}  {shown[:140]}")


def demangled(names):
    """Swift symbols in readable form (swift-demangle, when the toolchain has it)."""
    try:
        out = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names),
                             capture_output=True, text=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return names
    return out[: len(names)] if len(out) >= len(names) else names


if __name__ == "__main__":
    main()
