"""The repository stands alone: every contract the code relies on is written in it
(ARCHITECTURE.md, docs/ — docs/contract.md first —, include/netcore.h), so no file
cites a design page kept outside it, and code comments say what a thing is rather
than which issue asked for it (the history is CHANGELOG.md's, the figures
bench/RESULTS.md's)."""
import os
import re
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Built from pieces, so that this file does not match them itself.
OUTSIDE = re.compile("|".join([
    r"\bDES" r"IGN\.md\b",             # the design page by name
    r"\bDES" r"IGN\s*§",               # ... or by its sections
    r"\.\./" r"shared\b",              # the directory beside the repository
    r"/work/" r"shared\b",
]))
ISSUE = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)


def repository_files(*tops):
    """Tracked and new (not ignored) files, relative to the root; under `tops` if given."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *tops],
                             cwd=ROOT, capture_output=True, check=True).stdout
        names = [n for n in out.decode("utf-8", "surrogateescape").split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for top in tops or (".",):
            for d, dirs, files in os.walk(os.path.join(ROOT, top)):
                dirs[:] = [x for x in dirs if x not in (".git", "build", ".build", "__pycache__")]
                names += [os.path.relpath(os.path.join(d, f), ROOT) for f in files]
    return sorted(n for n in set(names) if os.path.isfile(os.path.join(ROOT, n)))


def lines_matching(pattern, names):
    found = []
    for name in names:
        try:
            with open(os.path.join(ROOT, name), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if pattern.search(line):
                        found.append(f"{name}:{number}: {line.strip()[:120]}")
        except (UnicodeDecodeError, OSError):
            continue   # binary files
    return found


def test_standalone_no_file_cites_a_contract_outside_the_repository():
    names = repository_files()
    assert len(names) > 100, "the repository's files were not found"
    found = lines_matching(OUTSIDE, names)
    assert not found, ("these cite a page outside the repository; cite docs/contract.md, "
                       "docs/configuration.md, docs/errors.md or ARCHITECTURE.md instead:\n" + "\n".join(found))


def test_standalone_no_issue_numbers_in_sources_and_header():
    names = repository_files("Sources", "include")
    assert names, "Sources/ and include/ were not found"
    found = lines_matching(ISSUE, names)
    assert not found, ("say what the thing is, not which issue asked for it "
                       "(CHANGELOG.md keeps the history):\n" + "\n".join(found))


def test_standalone_the_contract_and_its_links_exist():
    # The page the code's comments cite, and the anchors they use most.
    with open(os.path.join(ROOT, "docs", "contract.md"), encoding="utf-8") as f:
        headings = {re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
                    for line in f if line.startswith("#")}
    cited = set()
    for line in lines_matching(re.compile(r"docs/contract\.md#[\w-]+"), repository_files()):
        cited.update(re.findall(r"docs/contract\.md#([\w-]+)", line))
    assert cited, "nothing cites docs/contract.md"
    missing = sorted(cited - headings)
    assert not missing, f"docs/contract.md has no heading for these anchors: {missing}"
