#!/usr/bin/env python3
"""Lists the public Swift declarations of the Swift API without a DocC comment:
Sources/NetCoreBase (the core) and Sources/NetCore (its Swift concurrency API).

A declaration is documented when a `///` line (or the end of a `/** */` block)
comes right above it, attributes (`@inlinable`, `@discardableResult`, …) in
between allowed. Exempt: members that implement a standard-library protocol
requirement whose meaning the protocol documents (`description`, `hash(into:)`,
`==`, `init(from:)`, `encode(to:)`, `makeIterator`, `next`, `init(dictionaryLiteral:)`,
`init(stringLiteral:)`, `init(arrayLiteral:)`, `init(integerLiteral:)`, `enqueue`,
`asUnownedTaskExecutor`, `errorDescription`), `public import`, and `public extension`
lines (their members are checked). Enum cases in a documented `case a, b` list
count as documented by that list's comment.

  check-docc.py [ROOT]   prints "file:line: declaration" per gap; exit 1 if any
"""
import pathlib
import re
import sys

DECL = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(public|open)\s+(?!import\b|extension\b)")
EXEMPT = re.compile(
    r"\b(var description\b|func hash\(into|static func ==|init\(from decoder|func encode\(to encoder"
    r"|func makeIterator|func next\(|init\(dictionaryLiteral|init\(stringLiteral|init\(arrayLiteral"
    r"|init\(integerLiteral|func enqueue\(|func asUnownedTaskExecutor|var errorDescription)")

SOURCE_DIRS = ("Sources/NetCoreBase", "Sources/NetCore")


def gaps(root):
    paths = [p for d in SOURCE_DIRS for p in pathlib.Path(root, d).rglob("*.swift")]
    for path in sorted(paths):
        lines = path.read_text(encoding="utf-8").split("\n")
        for i, line in enumerate(lines):
            if not DECL.match(line) or EXEMPT.search(line):
                continue
            j = i - 1
            while j >= 0 and lines[j].strip().startswith("@"):
                j -= 1
            above = lines[j].strip() if j >= 0 else ""
            if above.startswith("///") or above.endswith("*/"):
                continue
            yield f"{path.relative_to(root)}:{i + 1}: {line.strip()[:100]}"


if __name__ == "__main__":
    found = list(gaps(sys.argv[1] if len(sys.argv) > 1 else "."))
    print("\n".join(found))
    sys.exit(1 if found else 0)
