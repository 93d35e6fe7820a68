"""The repository's documentation holds together: every document a source file cites exists
(CONTRIBUTING.md section 11), every "CONTRIBUTING.md section N" a source cites is a section
there, and in README.md, CONTRIBUTING.md and docs/*.md every link resolves (files and
#anchors) and every repository path written in backticks exists. Reads files only."""
from __future__ import annotations

import re
import subprocess
import unicodedata
from functools import lru_cache
from pathlib import Path

import pytest
from genutil import REPO

# The files whose references to documents are checked, by suffix (and CMakeLists.txt).
SOURCE_SUFFIXES = (".py", ".cpp", ".h", ".cu", ".j2", ".cmake", ".sh", ".md", ".yaml", ".txt")

# The top-level directories a path in backticks may start with to be checked.
TOP_DIRS = ("gen", "runtime", "kernels", "tests", "yaml", "bench", "scripts", "examples", "python",
            "cmake", "docs")

# Characters that make a path a pattern or a placeholder, not one file: `ops/<op>.h`,
# `tests/gen/errors/*.yaml`, `yaml/...`, `kernels/{cpu,cuda}`.
PLACEHOLDER = ("<", "*", "...", "{", "$")


def tracked_files() -> list[Path]:
    """The repository's tracked files (git ls-files), or, outside a git checkout, every file
    outside build directories, .git and caches."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True,
                             timeout=60).stdout.decode("utf-8")
        return [REPO / name for name in out.split("\0") if name and (REPO / name).is_file()]
    except (OSError, subprocess.SubprocessError):
        skip = {".git", "__pycache__"}
        return [p for p in REPO.rglob("*") if p.is_file()
                and not any(part in skip or part.startswith("build") for part in p.relative_to(REPO).parts)]


def source_files() -> list[Path]:
    """The files whose citations are checked: tracked sources and documents, except this test,
    whose examples cite made-up documents on purpose."""
    this = Path(__file__).resolve()
    return [p for p in tracked_files()
            if (p.suffix in SOURCE_SUFFIXES or p.name == "CMakeLists.txt") and p.resolve() != this]


def rel(path: Path) -> str:
    return str(path.relative_to(REPO))


# ---- documents cited by source files ------------------------------------------------------

# A document named in text: `STYLE.md`, `bench/README.md`, `docs/python.md`, `../README.md`.
# Not a longer name (`operators.md.j2`), not part of a URL, not after a shell variable
# (`$results/x.md`).
MD_REFERENCE = re.compile(r"(?<![\w./:${}-])((?:\.{1,2}/)*(?:[\w-]+/)*[\w.-]*\w\.md)(?![\w/]|\.\w)")

# The markdown files the generator writes (into build/generated/docs/): the code and tests that
# make them name them, but they are outputs, not documents of the repository.
GENERATED_DOCS = ("operators.md", "docs/operators.md")


def cited_documents(text: str) -> list[tuple[int, str]]:
    """(line, path) for every *.md path the text cites. Not cited: paths under build/, the
    generated GENERATED_DOCS, and a name that is a whole string literal (`"notes.md"`): that is
    a file the code reads or writes (a test's temporary file, a benchmark's result), not a
    pointer for the reader."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for m in MD_REFERENCE.finditer(line):
            path = m.group(1)
            before, after = line[m.start() - 1:m.start()], line[m.end():m.end() + 1]
            if path.startswith("build/") or "/build/generated/" in path or path in GENERATED_DOCS:
                continue
            if before in ("'", '"') and after == before:
                continue
            found.append((number, path))
    return found


def resolves(path: str, citing: Path) -> bool:
    """Whether `path` names a file of the repository, from the root or from the citing file's
    directory."""
    for base in (REPO, citing.parent):
        target = (base / path).resolve()
        if target.is_file() and target.is_relative_to(REPO):
            return True
    return False


def test_cited_documents_exist() -> None:
    """A comment's "see STYLE.md section 2" is a dead end when STYLE.md is not in the
    repository: every cited document must be here."""
    missing = []
    for path in source_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        missing += [f"{rel(path)}:{line}: {doc}" for line, doc in cited_documents(text) if not resolves(doc, path)]
    assert not missing, "\n".join(missing)


def test_the_reference_scanner() -> None:
    text = ("see STYLE.md section 1; bench/README.md, (docs/python.md) and ../README.md\n"
            "templates/operators.md.j2, https://example.org/x.md, build/generated/docs/operators.md\n"
            "docs/operators.md, $results/kernels_bench.md, (tmp / \"notes.md\"), 'notes.md'")
    assert [doc for _, doc in cited_documents(text)] == [
        "STYLE.md", "bench/README.md", "docs/python.md", "../README.md"]


# ---- CONTRIBUTING.md sections ------------------------------------------------------------

CONTRIBUTING = REPO / "CONTRIBUTING.md"
# "CONTRIBUTING.md section 3", "CONTRIBUTING.md sections 1, 4 and 5", also wrapped onto the next
# comment line.
SECTION_CITATION = re.compile(
    r"CONTRIBUTING\.md,?\s*(?:(?:#|//)\s*)?sections?\s+(\d+(?:\s*(?:,|and|(?:#|//))\s*\d+)*)")


def contributing_sections() -> set[int]:
    """The numbers of CONTRIBUTING.md's sections: its `## N. Title` headings."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    return {int(n) for n in re.findall(r"^## (\d+)\. ", text, re.M)}


def test_contributing_sections_are_numbered_in_order() -> None:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    numbers = [int(n) for n in re.findall(r"^## (\d+)\. ", text, re.M)]
    assert numbers == list(range(1, len(numbers) + 1))


def test_cited_contributing_sections_exist() -> None:
    sections = contributing_sections()
    cited, missing = 0, []
    for path in source_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in SECTION_CITATION.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            for n in map(int, re.findall(r"\d+", m.group(1))):
                cited += 1
                if n not in sections:
                    missing.append(f"{rel(path)}:{line}: CONTRIBUTING.md section {n}")
    assert not missing, "\n".join(missing)
    assert cited > 0, "no source cites CONTRIBUTING.md: is the citation pattern still right?"


def test_the_section_citation_pattern() -> None:
    text = ("(CONTRIBUTING.md section 3)\n(CONTRIBUTING.md sections 1, 4 and 5)\n"
            "# see CONTRIBUTING.md\n# section 12")
    assert [re.findall(r"\d+", m.group(1)) for m in SECTION_CITATION.finditer(text)] == [
        ["3"], ["1", "4", "5"], ["12"]]


# ---- README sections ------------------------------------------------------------------------

# A section of the top-level README named in a comment or a message: `README "Adding a
# derivative"`, `(README, 'Selective builds')`. Not bench/README.md's or docs/README.md's (a `/`
# before the name); not `README's "X"`, which the benchmarks' notes use for the README of older
# revisions.
README_SECTION_CITATION = re.compile(r"(?<![/\w])README(?:\.md)?(?:,\s*|\s+)[\"']([^\"'\n]+)[\"']")


def headings(doc: Path) -> set[str]:
    """The titles of the markdown headings of `doc`."""
    return {m.group(1).strip() for m in re.finditer(r"^#+ (.+)$", doc.read_text(encoding="utf-8"), re.M)}


def test_cited_readme_sections_exist() -> None:
    """The reference material moved from README.md to docs/: a source that points the reader at
    a README section must name one that is still there."""
    titles = headings(REPO / "README.md")
    missing = []
    for path in source_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in README_SECTION_CITATION.finditer(text):
            if m.group(1) not in titles:
                line = text.count("\n", 0, m.start()) + 1
                missing.append(f"{rel(path)}:{line}: README section \"{m.group(1)}\"")
    assert not missing, "\n".join(missing)


def test_the_readme_section_pattern() -> None:
    text = ('(README, "Selective builds")\nsee README "Adding a derivative".\n'
            "(README, 'Python')\nthe README.md \"Quick start\"\nbench/README.md \"x\"\n"
            "README's \"Adding an operator\" before docs/\nopen(\"README.md\").read()")
    assert [m.group(1) for m in README_SECTION_CITATION.finditer(text)] == [
        "Selective builds", "Adding a derivative", "Python", "Quick start"]


# ---- the documentation's links and paths ---------------------------------------------------

def documentation() -> list[Path]:
    return [REPO / "README.md", CONTRIBUTING, *sorted((REPO / "docs").glob("*.md"))]


def prose(text: str) -> str:
    """The text outside fenced code blocks (fence lines and code lines blanked, so line numbers
    stay)."""
    out, fence = [], None
    for line in text.split("\n"):
        m = re.match(r"\s*(```+|~~~+)", line)
        if fence is None and m:
            fence = m.group(1)
            out.append("")
        elif fence is not None:
            if line.strip().startswith(fence):
                fence = None
            out.append("")
        else:
            out.append(line)
    return "\n".join(out)


def code_spans(text: str) -> list[str]:
    return [m.group(2) for m in re.finditer(r"(`+)(.+?)\1", text, re.S)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed, spaces
    to hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


@lru_cache(maxsize=None)
def anchors(path: Path) -> frozenset[str]:
    """The anchors of a markdown file's headings (a repeated heading gets -1, -2, ...)."""
    seen: dict[str, int] = {}
    result = set()
    for m in re.finditer(r"^#{1,6} +(.+?) *#*$", prose(path.read_text(encoding="utf-8")), re.M):
        base = slug(m.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return frozenset(result)


def test_slugs_follow_github() -> None:
    assert slug("Operators from Python: `opcore.ops`, `opcore.library`, Python dispatch") == \
        "operators-from-python-opcoreops-opcorelibrary-python-dispatch"
    assert slug("The dispatcher (runtime/opcore/dispatch/)") == "the-dispatcher-runtimeopcoredispatch"
    assert slug("PyTorch's derivatives.yaml") == "pytorchs-derivativesyaml"
    assert slug("1. Layering") == "1-layering"


def links(text: str) -> list[tuple[int, str]]:
    """(line, target) of every inline link and image outside code, and of reference
    definitions."""
    body = prose(text)
    for span in set(code_spans(body)):   # a link inside `code` is not a link
        body = body.replace(f"`{span}`", "`" + re.sub(r"[^\n]", " ", span) + "`")
    found = [(body.count("\n", 0, m.start()) + 1, m.group(1))
             for m in re.finditer(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", body)]
    found += [(body.count("\n", 0, m.start()) + 1, m.group(1))
              for m in re.finditer(r"^ {0,3}\[[^\]]+\]:\s*(\S+)", body, re.M)]
    return found


def broken_link(doc: Path, target: str) -> str | None:
    """Why `target`, a link in `doc`, does not resolve; None when it does."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target):   # https:, mailto:
        return None
    path, _, anchor = target.partition("#")
    file = (doc.parent / path).resolve() if path else doc
    if not file.exists():
        return "no such file"
    if not file.is_relative_to(REPO):
        return "outside the repository"
    if anchor:
        if file.suffix != ".md":
            return "an anchor into a file that is not markdown"
        if anchor not in anchors(file):
            return f"no heading with anchor #{anchor} in {rel(file)}"
    return None


@pytest.mark.parametrize("doc", documentation(), ids=lambda p: rel(p))
def test_links_resolve(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    broken = [f"{rel(doc)}:{line}: ({target}): {why}"
              for line, target in links(text) if (why := broken_link(doc, target))]
    assert not broken, "\n".join(broken)


def backticked_paths(text: str) -> list[str]:
    """Repository paths written in inline code: each word of a span that starts with a top-level
    directory and a `/` (`gen/model/`, the `examples/extension` of a command), except patterns
    and placeholders (PLACEHOLDER) and the files a walkthrough tells the reader to make
    ("Create `kernels/cpu/Cube.cpp`:")."""
    paths = []
    body = prose(text)
    for m in re.finditer(r"(`+)(.+?)\1", body, re.S):
        if re.search(r"\bCreate\s+$", body[max(0, m.start() - 20):m.start()]):
            continue
        for word in re.split(r"[\s=(),;'\"]+", m.group(2)):
            word = word.rstrip(".:")
            if word.split("/")[0] in TOP_DIRS and "/" in word and not any(p in word for p in PLACEHOLDER):
                paths.append(word)
    return paths


def test_the_path_scanner() -> None:
    text = ("`gen/model/` and `cmake -S examples/extension -B /tmp/x`, `ops/<op>.h`,\n"
            "`tests/gen/errors/*.yaml`, `build/generated/opcore/`, `opcore/opcore.h`\n"
            "Create `kernels/cpu/New.cpp`:\n"
            "```sh\nscripts/nothing.sh\n```\n")
    assert backticked_paths(text) == ["gen/model/", "examples/extension"]


@pytest.mark.parametrize("doc", documentation(), ids=lambda p: rel(p))
def test_backticked_paths_exist(doc: Path) -> None:
    missing = sorted({p for p in backticked_paths(doc.read_text(encoding="utf-8")) if not (REPO / p).exists()})
    assert not missing, f"{rel(doc)} names paths that do not exist: {', '.join(missing)}"


def test_every_docs_page_is_in_the_index() -> None:
    index = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    listed = {target.partition("#")[0] for _, target in links(index)}
    pages = {p.name for p in (REPO / "docs").glob("*.md")} - {"README.md"}
    assert pages - listed == set()
