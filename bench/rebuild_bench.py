"""Incremental-rebuild benchmark (issue #4): how many translation units recompile, and how long
the rebuild takes, after a one-operator change to yaml/native_functions.yaml.

    /usr/bin/python3 bench/rebuild_bench.py [--rev REV] [--work-dir DIR] [--keep] [-v]

It clones the repository at REV (default HEAD; committed state only) into a temporary
directory, configures a Release Ninja build there and builds it fully, then applies each
scenario in turn and rebuilds, first the `opcore` library target, then everything (`all`:
the example, the tests, the test plugin):

  add-op     a new function-variant operator with a CPU kernel: one entry appended to the
             YAML and a new kernels/cpu/BenchScale.cpp
  edit-doc   one more word in an existing entry's `doc:`
  default    an existing (not structured) entry's default changed (`Scalar alpha=1` -> `alpha=2`)
  walkthrough  the walkthrough of docs/adding-an-operator.md exactly as written: its operator
             (`cube`) with `variants: function, method`, its kernel and its tests, copied
             from the page's code blocks (from README's "Adding an operator" at revisions
             before docs/; the operator and the files are read from the page, so revisions
             whose walkthrough added `abs` work too)
  walkthrough-function  the same with `variants: function`, the case the page describes
             next to it: the tests call `opcore::cube(t)` / `opcore.cube(t)` where the page
             calls the method. It adds the same operator as `walkthrough`, so it runs on its
             own: --only walkthrough-function

A recompiled translation unit is an object file (*.o) under the build directory that is new
or whose mtime changed; that does not depend on how the generator lays out its files. The
seconds are wall time inside the build lock (/tmp/opcore-build.lock, held for each build
step; waiting for it is not counted), including the generator run, CMake's re-run when a
source file is added, compiling and linking.

The new kernel includes the per-operator native header (<.../ops/bench_scale_native.h>) when
the checkout's generator writes per-operator headers (some *_native.h under build/generated
after the full build), else <opcore/NativeFunctions.h>, as the kernels of that revision do.
"""
from __future__ import annotations

import argparse
import fcntl
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parents[1]
LOCK = "/tmp/opcore-build.lock"
NEW_OP = "bench_scale"
NEW_KERNEL_FILE = "kernels/cpu/BenchScale.cpp"
REBUILD_TARGET = (10, 20.0)  # issues #4, #13: at most 10 TUs and 20 s after adding one operator


class BenchError(Exception):
    """A step failed; the message says which and why."""


@dataclass(frozen=True)
class Step:
    """One build step: the objects it compiled (paths relative to the build dir) and its time."""

    objects: tuple[str, ...]
    seconds: float


@dataclass(frozen=True)
class Result:
    scenario: str
    what: str
    library: Step   # cmake --build --target opcore
    rest: Step      # then cmake --build (all)

    @property
    def total_objects(self) -> int:
        return len(self.library.objects) + len(self.rest.objects)

    @property
    def total_seconds(self) -> float:
        return self.library.seconds + self.rest.seconds


def run(cmd: list[str], cwd: Path, log: Path) -> None:
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"$ {' '.join(cmd)}\n")
        f.flush()
        result = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        tail = "".join(log.read_text(encoding="utf-8", errors="replace").splitlines(True)[-40:])
        raise BenchError(f"'{' '.join(cmd)}' failed ({result.returncode}); end of {log}:\n{tail}")


def locked(action: Callable[[], None]) -> float:
    """Runs action() holding the build lock; returns its wall time (lock wait excluded)."""
    fd = os.open(LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        start = time.perf_counter()
        action()
        return time.perf_counter() - start
    finally:
        os.close(fd)


def objects(build: Path) -> dict[str, int]:
    """Every object file under `build`: relative path -> mtime in ns."""
    return {str(p.relative_to(build)): p.stat().st_mtime_ns
            for p in build.rglob("*") if p.suffix in (".o", ".obj") and p.is_file()}


def build_step(src: Path, log: Path, target: Optional[str]) -> Step:
    build = src / "build"
    before = objects(build)
    cmd = ["cmake", "--build", "build"] + (["--target", target] if target else [])
    seconds = locked(lambda: run(cmd, src, log))
    after = objects(build)
    changed = tuple(sorted(p for p, t in after.items() if before.get(p) != t))
    return Step(changed, seconds)


def clone(rev: str, src: Path, log: Path) -> str:
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                         capture_output=True, text=True)
    if sha.returncode != 0:
        raise BenchError(f"unknown revision '{rev}': {sha.stderr.strip()}")
    commit = sha.stdout.strip()
    run(["git", "clone", "-q", "--no-checkout", str(REPO), str(src)], REPO, log)
    if subprocess.run(["git", "-C", str(src), "cat-file", "-e", commit]).returncode != 0:
        run(["git", "-C", str(src), "fetch", "-q", str(REPO), commit], REPO, log)
    run(["git", "-C", str(src), "checkout", "-q", "--detach", commit], REPO, log)
    return commit


# ---- scenarios: each edits the checkout and returns a one-line description -------------------

def native_include(src: Path) -> str:
    """The header a new kernel includes: the per-operator one when the generator writes them."""
    generated = src / "build" / "generated"
    per_op = sorted(generated.rglob("*_native.h"))
    if per_op:
        return str(per_op[0].parent.relative_to(generated) / f"{NEW_OP}_native.h")
    return "opcore/NativeFunctions.h"


def kernel_source(src: Path) -> str:
    """A CPU kernel written like the repository's own (kernels/cpu/Unary.cpp): the elementwise
    loop helper when the checkout has it, else a call of another operator."""
    include = native_include(src)
    loops = src / "kernels" / "cpu" / "Loops.h"
    promotion = src / "kernels" / "common" / "TypePromotion.h"
    header = (f"// {NEW_OP}: self * factor, elementwise. Added by bench/rebuild_bench.py.\n"
              f"#include <{include}>\n")
    if (loops.is_file() and "class ElementwiseOp" in loops.read_text(encoding="utf-8")
            and promotion.is_file() and "toFloatingType" in promotion.read_text(encoding="utf-8")):
        return header + f"""
#include "common/TypePromotion.h"
#include "cpu/Loops.h"

namespace opcore::native {{

Tensor {NEW_OP}(const Tensor& self, double factor) {{
  const ScalarType dtype = toFloatingType(self.scalar_type());
  cpu::ElementwiseOp op("{NEW_OP}", TensorBase(), dtype, {{{{self, dtype}}}});
  OPCORE_DISPATCH_FLOATING_TYPES(dtype, "{NEW_OP}", [&] {{
    const auto f = static_cast<scalar_t>(factor);
    op.run<scalar_t, scalar_t>([f](scalar_t x) {{ return x * f; }});
  }});
  return op.output();
}}

}}  // namespace opcore::native
"""
    return header + f"""
namespace opcore::native {{

Tensor {NEW_OP}(const Tensor& self, double factor) {{
  return self.mul(factor);
}}

}}  // namespace opcore::native
"""


def add_op(src: Path) -> str:
    yaml_path = src / "yaml" / "native_functions.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    if re.search(rf"^- func: {NEW_OP}\b", text, re.M):
        raise BenchError(f"{yaml_path} already declares {NEW_OP}")
    entry = (f"\n- func: {NEW_OP}(Tensor self, float factor=2.0) -> Tensor\n"
             f"  dispatch:\n    CPU: {NEW_OP}\n"
             f"  doc: Multiplies every element of `self` by `factor` (added by bench/rebuild_bench.py).\n")
    yaml_path.write_text(text.rstrip("\n") + "\n" + entry, encoding="utf-8")
    kernel = src / NEW_KERNEL_FILE
    kernel.write_text(kernel_source(src), encoding="utf-8")
    include = re.search(r"#include <(.*)>", kernel.read_text(encoding="utf-8")).group(1)
    return f"entry {NEW_OP} + {NEW_KERNEL_FILE} (includes <{include}>)"


def edit_doc(src: Path) -> str:
    yaml_path = src / "yaml" / "native_functions.yaml"
    lines = yaml_path.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^(\s+)doc:\s*(.*)$", line)
        if not m:
            continue
        target = i + 1 if m.group(2) in ("|", ">", "|-", ">-") else i
        lines[target] += " Edited."
        yaml_path.write_text("\n".join(lines), encoding="utf-8")
        return f"the doc: at line {i + 1} gains a word"
    raise BenchError(f"no entry of {yaml_path} has a doc: to edit")


_DEFAULT_EDITS = ((r"(Scalar alpha=)1\b", r"\g<1>2"), (r"(bool keepdim=)False\b", r"\g<1>True"))


def _is_structured(lines: list[str], i: int) -> bool:
    """Whether the entry starting at lines[i] is structured or delegates to a structured one
    (its defaults must then stay equal to its siblings')."""
    for line in lines[i + 1:]:
        if line.startswith("- func:"):
            return False
        if line.lstrip().startswith(("structured:", "structured_delegate:")):
            return True
    return False


def _rename_in_derivatives(src: Path, old_schema: str, new_schema: str) -> None:
    """derivatives.yaml names an overload by its exact schema: keep it equal to the declaration."""
    path = src / "yaml" / "derivatives.yaml"
    text = path.read_text(encoding="utf-8")
    if f"name: {old_schema}\n" in text:
        path.write_text(text.replace(f"name: {old_schema}\n", f"name: {new_schema}\n"), encoding="utf-8")


def change_default(src: Path) -> str:
    yaml_path = src / "yaml" / "native_functions.yaml"
    lines = yaml_path.read_text(encoding="utf-8").split("\n")
    for pattern, replacement in _DEFAULT_EDITS:
        for i, line in enumerate(lines):
            m = re.search(pattern, line) if line.startswith("- func:") and not _is_structured(lines, i) else None
            if m:
                lines[i] = line[:m.start()] + m.expand(replacement) + line[m.end():]
                yaml_path.write_text("\n".join(lines), encoding="utf-8")
                _rename_in_derivatives(src, line[len("- func: "):], lines[i][len("- func: "):])
                name = line.split()[2].split("(")[0]
                return f"{name} (line {i + 1}): {m.group(0)} -> {m.expand(replacement)}"
    raise BenchError(f"no entry of {yaml_path} has a default this benchmark knows how to change")


WALKTHROUGH_PAGES = ("docs/adding-an-operator.md", "README.md")


def _page_block(readme: str, after: str, language: str, page: str = WALKTHROUGH_PAGES[0]) -> str:
    """The first ```language block of the walkthrough's page after the text `after`, dedented."""
    start = readme.find(after)
    m = re.compile(rf"^( *)```{language}\n(.*?)^\1```", re.M | re.S).search(readme, start) if start >= 0 else None
    if m is None:
        raise BenchError(f"{page} has no ```{language} block after '{after}'")
    indent = len(m.group(1))
    return "".join(line[indent:] if line.strip() else line for line in m.group(2).splitlines(True))


def walkthrough_page(src: Path) -> tuple[str, str]:
    """(path, text from the "Adding an operator" heading on) of the checkout's walkthrough:
    docs/adding-an-operator.md, or README.md at revisions that kept it there."""
    for page in WALKTHROUGH_PAGES:
        if (src / page).is_file():
            text = (src / page).read_text(encoding="utf-8")
            m = re.search(r"^##? Adding an operator$", text, re.M)
            if m:
                return page, text[m.start():]
    raise BenchError(f"no 'Adding an operator' heading in {' or '.join(WALKTHROUGH_PAGES)}")


def walkthrough_operator(text: str, page: str = WALKTHROUGH_PAGES[0]) -> str:
    """The name of the operator the walkthrough adds: that of its YAML entry's `- func:`."""
    m = re.match(r"- func: (\w+)\(", _page_block(text, "Declare it in", "yaml", page))
    if m is None:
        raise BenchError(f"{page}'s walkthrough declares no `- func: <name>(...)`")
    return m.group(1)


_LANGUAGES = {".cpp": "cpp", ".py": "python"}


def walkthrough_files(text: str, page: str = WALKTHROUGH_PAGES[0]) -> dict[str, str]:
    """The files the walkthrough tells the reader to make ("Create `kernels/cpu/Cube.cpp`:"),
    in the page's order: path -> the code block that follows, dedented."""
    files = {}
    for m in re.finditer(r"Create `([^`]+)`", text):
        path = m.group(1)
        language = _LANGUAGES.get(Path(path).suffix)
        if language is None:
            raise BenchError(f"{page}'s walkthrough creates {path}, which this benchmark cannot place")
        files[path] = _page_block(text, m.group(0), language, page)
    if not any(path.startswith("kernels/") for path in files):
        raise BenchError(f"{page}'s walkthrough creates no kernel under kernels/")
    return files


def _function_only(op: str, entry: str, files: dict[str, str], page: str) -> tuple[str, dict[str, str]]:
    """The entry with `variants: function`, and the tests calling the function where the page
    calls the method (`t.cube()` -> `opcore::cube(t)` in C++, `opcore.cube(t)` in Python)."""
    if "variants: function, method" not in entry:
        raise BenchError(f"{page}'s walkthrough no longer has `variants: function, method`: "
                         "update walkthrough_function")
    edited = dict(files)
    for path, block in files.items():
        if not path.startswith("tests/"):
            continue
        if f"t.{op}()" not in block:
            raise BenchError(f"{page}'s {path} no longer calls `t.{op}()`: update walkthrough_function")
        function = f"opcore::{op}(t)" if path.endswith(".cpp") else f"opcore.{op}(t)"
        edited[path] = block.replace(f"t.{op}()", function)
    return entry.replace("variants: function, method", "variants: function"), edited


def _add_walkthrough(src: Path, function_only: bool) -> str:
    """Adds the walkthrough's files to `src` (see walkthrough); with `function_only`, the entry
    says `variants: function` and the tests call the function where the page calls the method."""
    page, text = walkthrough_page(src)
    op = walkthrough_operator(text, page)
    entry = _page_block(text, "Declare it in", "yaml", page)
    files = walkthrough_files(text, page)
    if function_only:
        entry, files = _function_only(op, entry, files, page)
    yaml_path = src / "yaml" / "native_functions.yaml"
    yaml_path.write_text(yaml_path.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + entry, encoding="utf-8")
    for path, block in files.items():
        (src / path).parent.mkdir(parents=True, exist_ok=True)
        (src / path).write_text(block, encoding="utf-8")
    variants = "function" if function_only else "function, method"
    return f"{page}'s walkthrough: {op} (variants: {variants}) + " + " + ".join(files)


def walkthrough(src: Path) -> str:
    """The walkthrough of docs/adding-an-operator.md exactly as written: its YAML entry (a
    method variant too), its kernel (kernels/cpu/Cube.cpp) and its tests (tests/api/CubeTest.cpp,
    tests/python/test_cube.py), copied from the checkout's page."""
    return _add_walkthrough(src, function_only=False)


def walkthrough_function(src: Path) -> str:
    """The walkthrough with `variants: function`: what adding a function-only operator costs."""
    return _add_walkthrough(src, function_only=True)


SCENARIOS: tuple[tuple[str, Callable[[Path], str]], ...] = (
    ("add-op", add_op), ("edit-doc", edit_doc), ("default", change_default), ("walkthrough", walkthrough),
)
# Scenarios that add what one of SCENARIOS adds: each runs only when named alone with --only.
SEPARATE_SCENARIOS: tuple[tuple[str, Callable[[Path], str]], ...] = (
    ("walkthrough-function", walkthrough_function),
)


# ---- running and reporting --------------------------------------------------------------------

def by_target(paths: tuple[str, ...]) -> str:
    """`opcore 3, opcore_tests 20`: counts per CMake target (from CMakeFiles/<target>.dir/)."""
    counts: dict[str, int] = {}
    for p in paths:
        m = re.search(r"CMakeFiles/([^/]+)\.dir/", p)
        target = m.group(1) if m else "?"
        counts[target] = counts.get(target, 0) + 1
    return ", ".join(f"{t} {n}" for t, n in sorted(counts.items())) or "none"


def run_scenario(name: str, edit: Callable[[Path], str], src: Path, log: Path) -> Result:
    what = edit(src)
    print(f"rebuild_bench: {name}: {what}; rebuilding...", flush=True)
    return Result(name, what, build_step(src, log, "opcore"), build_step(src, log, None))


def print_results(full: Step, noop: Step, results: list[Result], verbose: bool) -> None:
    print(f"\nfull build: {len(full.objects)} TUs in {full.seconds:.0f} s; "
          f"no-op rebuild: {len(noop.objects)} TUs in {noop.seconds:.1f} s")
    rows = [("scenario", "opcore library", "everything (all)", "target (issues #4, #13)")]
    for r in results:
        target = ""
        if r.scenario in ("add-op", "walkthrough", "walkthrough-function"):
            tus, secs = REBUILD_TARGET
            met = r.total_objects <= tus and r.total_seconds <= secs
            target = f"<= {tus} TUs, <= {secs:.0f} s: {'met' if met else 'NOT met'}"
        rows.append((r.scenario, f"{len(r.library.objects)} TUs, {r.library.seconds:.1f} s",
                     f"{r.total_objects} TUs, {r.total_seconds:.1f} s", target))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    print()
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    print()
    for r in results:
        print(f"{r.scenario}: {r.what}")
        print(f"  recompiled per target: {by_target(r.library.objects + r.rest.objects)}")
        if verbose:
            for p in r.library.objects + r.rest.objects:
                print(f"    {p}")


def _parse_args(argv: Optional[list[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rev", default="HEAD", help="revision of this repository to measure (default: HEAD)")
    p.add_argument("--work-dir", type=Path, help="where to clone and build (default: a new temporary dir)")
    p.add_argument("--keep", action="store_true", help="keep the work dir (default: removed at the end)")
    p.add_argument("-v", "--verbose", action="store_true", help="list every recompiled object")
    p.add_argument("--only", choices=[n for n, _ in SCENARIOS + SEPARATE_SCENARIOS], action="append",
                   help="run only this scenario (repeatable; default: all but walkthrough-function, in "
                        "order; walkthrough-function only alone)")
    args = p.parse_args(argv)
    separate = {n for n, _ in SEPARATE_SCENARIOS}
    if args.only and separate & set(args.only) and len(set(args.only)) > 1:
        p.error(f"--only {' / '.join(sorted(separate & set(args.only)))} runs alone: "
                "it adds what another scenario adds")
    return args


def chosen_scenarios(only: Optional[list[str]]) -> list[tuple[str, Callable[[Path], str]]]:
    """The scenarios to run, in order: those named by --only, or all of SCENARIOS."""
    if not only:
        return list(SCENARIOS)
    return [(n, e) for n, e in SCENARIOS + SEPARATE_SCENARIOS if n in only]


def main(argv: Optional[list[str]] = None) -> int:
    args = _parse_args(argv)
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="opcore-rebuild-"))
    work.mkdir(parents=True, exist_ok=True)
    src, log = work / "src", work / "build.log"
    if src.exists():
        print(f"rebuild_bench: {src} exists; use an empty --work-dir", file=sys.stderr)
        return 2
    try:
        commit = clone(args.rev, src, log)
        print(f"rebuild_bench: {args.rev} = {commit[:12]} in {src} (log: {log}); "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", flush=True)
        configure = ["cmake", "-S", ".", "-B", "build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"]
        locked(lambda: run(configure, src, log))
        print("rebuild_bench: full build (several minutes)...", flush=True)
        full = build_step(src, log, None)
        noop = build_step(src, log, None)
        results = [run_scenario(name, edit, src, log) for name, edit in chosen_scenarios(args.only)]
    except BenchError as e:
        print(f"rebuild_bench: error: {e}", file=sys.stderr)
        print(f"rebuild_bench: work dir kept: {work}", file=sys.stderr)
        return 1
    print_results(full, noop, results, args.verbose)
    if args.keep:
        print(f"\nrebuild_bench: work dir kept: {work}")
    else:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
