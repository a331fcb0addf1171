#!/usr/bin/env python3
"""Writes the benchmark's static fixtures (bench/README.md) into a folder:

  tiny.json    the "small GET" of workloads 1, 2, 7: {"code":0,"msg":"ok","data":{...}}, ~60 B
  1k.json      envelope whose data is a list of records, ~1 KB  (workload 3)
  100k.json    the same, ~100 KB                                  (workload 3)
  10m.json     the same, ~10 MB                                   (workload 3, cancellation)
  100m.bin     100,000,000 bytes of binary data                   (workload 4)

Deterministic; a file is rewritten only when missing or of the wrong size.
Usage: gen_fixtures.py DIR
"""
import json
import os
import sys


def envelope(target):
    """an ok envelope of about `target` bytes: data.items is a list of records"""
    head = '{"code":0,"msg":"ok","data":{"total":%d,"items":['
    items = []
    size = len(head) + 10
    i = 0
    while size < target:
        rec = json.dumps({"id": i, "name": f"item-{i:07d}", "price": round(i * 1.25 + 0.5, 2),
                          "active": i % 3 != 0, "tags": ["alpha", "beta"][: 1 + i % 2],
                          "owner": {"id": i % 97, "login": f"user{i % 97}"}},
                         separators=(",", ":"))
        items.append(rec)
        size += len(rec) + 1
        i += 1
    return (head % len(items) + ",".join(items) + "]}}").encode()


def write(path, data):
    if os.path.exists(path) and os.path.getsize(path) == len(data):
        return
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def write_binary(path, size):
    if os.path.exists(path) and os.path.getsize(path) == size:
        return
    block = bytes((i * 7919 + (i >> 8)) & 0xFF for i in range(1 << 20))
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        left = size
        while left > 0:
            f.write(block[: min(left, len(block))])
            left -= len(block)
    os.replace(tmp, path)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "tiny.json"),
          b'{"code":0,"msg":"ok","data":{"id":7,"name":"Ada","roles":["admin"]}}')
    write(os.path.join(out, "1k.json"), envelope(1024))
    write(os.path.join(out, "100k.json"), envelope(100 * 1024))
    write(os.path.join(out, "10m.json"), envelope(10 * 1024 * 1024))
    write_binary(os.path.join(out, "100m.bin"), 100_000_000)
    for name in sorted(os.listdir(out)):
        print(f"  {name:10s} {os.path.getsize(os.path.join(out, name)):>11,d} bytes")


if __name__ == "__main__":
    main()
