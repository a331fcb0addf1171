#!/usr/bin/env python3
"""Prepares include/netcore.h for Doxygen (`make docs`, scripts/docs.sh).

The header is written for people: sections under banner comments, and the four
beats of each function as labelled lines ("Ownership:", "Thread:", "Returns:",
"Since:"). Doxygen needs groups and commands. This writes a copy of the header
where each banner opens a group (a page of the reference), each labelled line
becomes a Doxygen paragraph and a comment after a constant documents it, so the
header itself stays free of markup.

  docs.py HEADER OUT_HEADER

Groups: the sections a program always uses (versions, status codes, errors, the
client, requests, sending, responses, the event loop) are top-level pages; every
other section is a feature and its page sits under "Features".
"""
import re
import sys

CORE = {"Versions", "Status codes", "Errors", "Client", "Requests", "Sending", "Responses",
        "Event-loop integration"}
BEATS = {"Ownership": "@par Ownership\n *", "Thread": "@par Thread\n *", "Returns": "@par Returns\n *",
         "Since": "@since"}
BANNER = re.compile(r"^/\* -{20,} \*/$")


def group_id(title):
    return "nc_" + re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")


def main(src, dst):
    lines = open(src, encoding="utf-8").read().split("\n")
    out, open_group = [], False
    out.append("/** @defgroup features Features\n * Everything a feature adds: endpoints, adapters, hooks, retry,\n"
               " * groups, batches, reachability, token refresh, cache, transfers. */")
    k = 0
    while k < len(lines):
        line = lines[k]
        if (BANNER.match(line) and k + 2 < len(lines) and BANNER.match(lines[k + 2])
                and lines[k + 1].startswith("/*")):
            title = lines[k + 1][2:].rstrip().rstrip("*/").strip()
            if open_group:
                out.append("/** @} */")
            short = title.split(" (")[0].split(":")[0]
            parent = "" if short in CORE else "\n * @ingroup features"
            out.append(f"/** @defgroup {group_id(short)} {title}{parent}\n * @{{ */")
            open_group = True
            k += 3
            continue
        m = re.match(r"^ \* (Ownership|Thread|Returns|Since):\s+(.*)$", line)
        trailing = re.match(r"^(#define \S+.*?|\s*\S.*?[;,])\s*/\* (.*) \*/$", line)
        if trailing and not line.lstrip().startswith(("/*", "*")):
            # `#define NC_X 1 /* what it means */`: the comment documents the member
            out.append(f"{trailing.group(1)} /**< {trailing.group(2)} */")
        elif m:
            out.append(f" * {BEATS[m.group(1)]} {m.group(2)}")
        else:
            out.append(line)
        k += 1
    if open_group:
        out.append("/** @} */")
    open(dst, "w", encoding="utf-8").write("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
