#!/usr/bin/env python3
"""Where the bytes of libnetcore.so come from (docs/size.md).

Reads the linker map (gold's, GNU ld's or lld's) of a `make lib` build (`make size-report` writes one with
`-Xlinker -Map=`) and sums the sizes of the input sections that hold code and data (code,
read-only data, data, Swift metadata; not unwind tables, relocations, bss or debug
info, which the linkers' maps attribute differently) per origin:

  ours            NetCoreBase, CNetAPI and CCurlShim objects of this package (and
                  NetCore, the async API, which the C library does not link)
  Swift stdlib    libswiftCore.a's Swift code (Swift.o)
  C++ runtime     libswiftCore.a's runtime written in C++ (*.cpp.o), demangler apart
  demangler       the Swift demangler/remangler inside libswiftCore.a
  concurrency     libswift_Concurrency.a (async/await, tasks, actors), with the
                  libdispatch.a and libBlocksRuntime.a it brings
  regex           libswift_StringProcessing.a and libswift_RegexParser.a
  other           every other input (other Swift static libraries, crt files, ...)

    python3 scripts/size-report.py build/size/libnetcore.map [--top N]
"""
import argparse
import re
import sys
from collections import defaultdict

DEMANGLER = re.compile(
    r"\((Demangle|Demangler|Remangler|OldDemangler|OldRemangler|NodePrinter|NodeDumper|"
    r"Punycode|ManglingUtils|Context|Errors)\.cpp\.o\)"
)
# Allocated output sections only: a map also lists .debug_* and .comment.
SKIP = re.compile(r"^\.(debug|comment|note\.GNU-stack|gnu_debuglink|symtab|strtab|shstrtab|eh_frame|bss|tbss|rela)")
LINE = re.compile(r"^ (\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")


def origin(path: str) -> str:
    # libdispatch and the blocks runtime come only with the concurrency runtime
    if re.search(r"/(libswift_Concurrency|libdispatch|libBlocksRuntime)\.a\(", path):
        return "concurrency"
    if re.search(r"/(libswift_StringProcessing|libswift_RegexParser)\.a\(", path):
        return "regex"
    if "libswiftCore.a" in path:
        if path.endswith("(Swift.o)"):
            return "Swift stdlib"
        if DEMANGLER.search(path):
            return "demangler"
        return "C++ runtime"
    if re.search(r"/(NetCoreBase|NetCore|CNetAPI|CCurlShim)\.build/", path):
        return "ours"
    return "other"


LLD_OUT = re.compile(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\S+)$")
LLD_IN = re.compile(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s{2,}(\S.*?):\((.*)\)$")


def parse_lld(f, sizes, members):
    """lld's map: VMA LMA Size Align Out In Symbol, one input section a line."""
    out_section = None
    for line in f:
        m = LLD_OUT.match(line)
        if m:
            out_section = m.group(2)
            continue
        m = LLD_IN.match(line.rstrip("\n"))
        if not m or out_section is None or SKIP.match(out_section):
            continue
        size, source = int(m.group(1), 16), m.group(2)
        if size and not source.startswith("<internal>"):
            sizes[origin(source)] += size
            members[source] += size


def parse(path):
    with open(path, errors="replace") as f:
        if f.readline().split()[:3] == ["VMA", "LMA", "Size"]:
            sizes, members = defaultdict(int), defaultdict(int)
            parse_lld(f, sizes, members)
            return sizes, members
    return parse_gnu(path)


def parse_gnu(path):
    """GNU ld's and gold's map: input sections under their output section."""
    sizes = defaultdict(int)
    members = defaultdict(int)
    in_memory_map = False
    pending = None  # section name printed alone on its line (gold wraps long names)
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("Memory map") or re.match(r"^\.\S+\s+0x[0-9a-f]+\s+0x[0-9a-f]+", line):
                in_memory_map = True
            if not in_memory_map:
                continue
            m = re.match(r"^ (\S+)$", line)
            if m:
                pending = m.group(1)
                continue
            m = LINE.match(line)
            if not m:
                pending = None
                continue
            section = m.group(1) or pending
            pending = None
            if section is None or SKIP.match(section):
                continue
            size = int(m.group(3), 16)
            source = m.group(4).strip()
            if size == 0 or not ("/" in source or ".o" in source):
                continue
            sizes[origin(source)] += size
            members[source] += size
    return sizes, members


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("map")
    ap.add_argument("--top", type=int, default=0, help="also list the N largest input files")
    args = ap.parse_args()
    sizes, members = parse(args.map)
    if not sizes:
        sys.exit(f"{args.map}: no input sections found (not a GNU ld/gold map?)")
    total = sum(sizes.values())
    order = ["ours", "Swift stdlib", "C++ runtime", "demangler", "concurrency", "regex", "other"]
    print(f"{'origin':<14} {'bytes':>10} {'share':>6}")
    for key in order:
        if key in sizes:
            print(f"{key:<14} {sizes[key]:>10,} {100 * sizes[key] / total:>5.1f}%")
    print(f"{'total':<14} {total:>10,}")
    if args.top:
        print()
        for source, size in sorted(members.items(), key=lambda kv: -kv[1])[: args.top]:
            print(f"{size:>10,}  {source.replace('/opt/swift/usr/lib/swift_static/linux/', '')}")


if __name__ == "__main__":
    main()
