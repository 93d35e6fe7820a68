"""Generation-time benchmark (issue #4): opcore's generator on the repository's YAML and on a
synthetic 2,500-entry YAML (bench/make_synthetic_yaml.py), and, when Debian's python3-torch is
installed, torchgen on PyTorch's own native_functions.yaml (2,493 entries) in the same run,
plus opcore on that file (read with --pytorch-yaml, as torchgen reads it) when opcore
accepts it. Prints a table with ratios to torchgen.

    /usr/bin/python3 bench/gen_bench.py [--repeat N] [--torchgen-repeat M] [--no-lock]

Every figure is the best (minimum) wall time of its runs, each into a fresh temporary output
directory; the output directories are deleted only when all runs are done (on the project's
machine, creating files right after thousands were deleted is several times slower). "CLI"
runs `python3 -m gen --yaml-dir DIR --out TMP` in a new process, as the build does
(interpreter start-up and imports included), from a copy of gen/ byte-compiled as
`cmake --install` leaves it (torchgen runs from the bytecode of its Debian package);
"in-process" calls gen.pipeline.run() in this process after one warm-up run (imports
excluded). The benchmark holds the build lock (/tmp/opcore-build.lock) while it measures, so
that no other build on this machine runs alongside; --no-lock skips that.
"""
from __future__ import annotations

import argparse
import dataclasses
import fcntl
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import make_synthetic_yaml  # noqa: E402  (needs the path above)

if TYPE_CHECKING:
    from gen.model.options import ParseOptions

LOCK = "/tmp/opcore-build.lock"
REPO_TARGET_S = 1.0       # issue #4: the repository's YAML in under 1 s
TORCHGEN_TARGET = 1 / 8   # issue #4: at most 1/8 of torchgen's time on the same input


@dataclass(frozen=True)
class Row:
    input: str
    entries: int
    generator: str
    best_s: Optional[float]      # None: not run (see note)
    runs: int = 0
    files: int = 0
    megabytes: float = 0.0
    note: str = ""


def count_entries(native_functions: Path) -> int:
    return len(re.findall(r"^- func:", native_functions.read_text(encoding="utf-8"), re.M))


def output_size(directory: Path) -> tuple[int, float]:
    files = [p for p in directory.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files) / 1e6


def best_of(runs: int, run_once: Callable[[Path], None], scratch: Path) -> tuple[float, int, float]:
    """Minimum wall time of `runs` calls of run_once(fresh_dir); with the last output's size.
    The fresh directories are made under `scratch`, which the caller deletes at the end."""
    best = float("inf")
    size = (0, 0.0)
    for _ in range(runs):
        out = Path(tempfile.mkdtemp(prefix="run-", dir=scratch)) / "out"
        start = time.perf_counter()
        run_once(out)
        best = min(best, time.perf_counter() - start)
        size = output_size(out)
    return best, size[0], size[1]


def run_checked(cmd: list[str], cwd: Path, pythonpath: Path = REPO) -> None:
    env = dict(os.environ, PYTHONPATH=str(pythonpath))
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stderr[-2000:]}")


def installed_generator(work: Path) -> Path:
    """A copy of gen/ byte-compiled as `cmake --install` leaves it (cmake/Install.cmake), for
    the CLI runs: torchgen, too, runs from the bytecode its package was installed with, while
    this environment may forbid writing bytecode (PYTHONDONTWRITEBYTECODE)."""
    root = work / "installed"
    shutil.copytree(REPO / "gen", root / "gen", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "gen")], check=True)
    return root


def opcore_cli(generator: Path, yaml_dir: Path, pytorch_yaml: bool) -> Callable[[Path], None]:
    flags = ["--pytorch-yaml"] if pytorch_yaml else []
    return lambda out: run_checked([sys.executable, "-m", "gen", "--yaml-dir", str(yaml_dir),
                                    "--out", str(out), *flags], generator, generator)


def parse_options(pytorch_yaml: bool) -> "ParseOptions":
    """How the generator reads the YAML: as torchgen does for PyTorch's file (--pytorch-yaml)."""
    from gen.model.options import PYTORCH_OPTIONS, ParseOptions
    return PYTORCH_OPTIONS if pytorch_yaml else ParseOptions()


def opcore_in_process(yaml_dir: Path, pytorch_yaml: bool) -> Callable[[Path], None]:
    from gen import pipeline
    options = pipeline.Options(yaml_dir=str(yaml_dir), parse_options=parse_options(pytorch_yaml))
    return lambda out: pipeline.run(dataclasses.replace(options, out_dir=str(out)))


def torchgen_source() -> Optional[Path]:
    """PyTorch's packaged ATen dir (native/native_functions.yaml, native/tags.yaml,
    templates/) shipped with torchgen, or None when torchgen is not installed."""
    spec = importlib.util.find_spec("torchgen")
    if spec is None or spec.origin is None:
        return None
    source = Path(spec.origin).parent / "packaged" / "ATen"
    return source if (source / "native" / "native_functions.yaml").is_file() else None


def torchgen_cli(source: Path, extra: list[str]) -> Callable[[Path], None]:
    return lambda out: run_checked([sys.executable, "-m", "torchgen.gen", "--source-path", str(source),
                                    "--install_dir", str(out), *extra], out.parent)


def opcore_rejects(yaml_dir: Path) -> Optional[str]:
    """Why opcore's generator (with --pytorch-yaml) cannot process yaml_dir, or None when it can."""
    from gen import pipeline
    from gen.model.errors import SpecErrors
    try:
        pipeline.generate(str(yaml_dir), parse_options(True))
    except SpecErrors as e:
        first = str(e.errors[0]).replace(str(yaml_dir) + os.sep, "")
        return f"{len(e.errors)} error(s) in PyTorch's YAML, first: {first}"
    except Exception as e:  # the generator's own limits on foreign input: report, don't crash
        return f"{type(e).__name__}: {e}"
    return None


def measure(label: str, entries: int, generator: str, runs: int, run_once: Callable[[Path], None],
            scratch: Path) -> Row:
    print(f"  {generator} on {label} ({runs} run(s))...", flush=True)
    best, files, mb = best_of(runs, run_once, scratch)
    return Row(label, entries, generator, best, runs, files, mb)


def opcore_rows(label: str, yaml_dir: Path, runs: int, scratch: Path, generator: Path,
                pytorch_yaml: bool = False) -> list[Row]:
    entries = count_entries(yaml_dir / "native_functions.yaml")
    in_process = opcore_in_process(yaml_dir, pytorch_yaml)
    in_process(Path(tempfile.mkdtemp(prefix="warm-up-", dir=scratch)) / "out")
    return [measure(label, entries, "opcore (CLI)", runs, opcore_cli(generator, yaml_dir, pytorch_yaml), scratch),
            measure(label, entries, "opcore (in-process)", runs, in_process, scratch)]


def pytorch_rows(source: Path, work: Path, generator: Path, args: argparse.Namespace) -> list[Row]:
    label = "PyTorch native_functions.yaml"
    entries = count_entries(source / "native" / "native_functions.yaml")
    rows = [measure(label, entries, "torchgen", args.torchgen_repeat, torchgen_cli(source, args.torchgen_args),
                    work)]
    yaml_dir = work / "pytorch-yaml"
    yaml_dir.mkdir()
    for name in ("native_functions.yaml", "tags.yaml"):
        shutil.copy(source / "native" / name, yaml_dir / name)
    (yaml_dir / "derivatives.yaml").write_text("[]\n", encoding="utf-8")
    reason = opcore_rejects(yaml_dir)
    if reason:
        rows.append(Row(label, entries, "opcore", None, note=f"not run: {reason}"))
    else:
        rows += opcore_rows(label, yaml_dir, args.repeat, work, generator, pytorch_yaml=True)
    return rows


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def annotate(rows: list[Row]) -> list[tuple[Row, str, str]]:
    """Each row with its ratio to torchgen and the issue's target it is held to, if any.

    opcore on PyTorch's file is compared with torchgen on that file. When opcore cannot read
    it, the synthetic file (the same size, in opcore's format) stands in for it (a proxy)."""
    torchgen = next((r.best_s for r in rows if r.generator == "torchgen" and r.best_s), None)
    same_input = any(r.generator.startswith("opcore") and r.input.startswith("PyTorch") and r.best_s
                     for r in rows)
    out = []
    for r in rows:
        ratio = target = ""
        if torchgen and r.best_s is not None:
            ratio = f"{r.best_s / torchgen:.3f}x"
        if r.best_s is not None and r.generator == "opcore (CLI)":
            if r.input.startswith("yaml/"):
                target = f"< {REPO_TARGET_S:g} s: {_verdict(r.best_s < REPO_TARGET_S)}"
            elif torchgen and (r.input.startswith("PyTorch") or (r.input.startswith("synthetic")
                                                                 and not same_input)):
                proxy = "" if r.input.startswith("PyTorch") else " (proxy input)"
                target = f"<= 1/8 torchgen{proxy}: {_verdict(r.best_s <= torchgen * TORCHGEN_TARGET)}"
        out.append((r, ratio, target))
    return out


def print_table(rows: list[Row]) -> None:
    header = ("input", "entries", "generator", "best", "runs", "output", "vs torchgen", "issue #4 target")
    lines = [header]
    for r, ratio, target in annotate(rows):
        if r.best_s is None:
            lines.append((r.input, str(r.entries), r.generator, "-", "-", "-", "-", ""))
            continue
        lines.append((r.input, str(r.entries), r.generator, f"{r.best_s:.3f} s", str(r.runs),
                      f"{r.files} files, {r.megabytes:.1f} MB", ratio, target))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    print()
    for line in lines:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())
    for r in rows:
        if r.note:
            print(f"\n{r.generator} on {r.input}: {r.note}")


def take_lock(enabled: bool) -> Optional[int]:
    if not enabled:
        return None
    fd = os.open(LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    start = time.perf_counter()
    fcntl.flock(fd, fcntl.LOCK_EX)
    waited = time.perf_counter() - start
    if waited > 1:
        print(f"gen_bench: waited {waited:.0f} s for {LOCK}")
    return fd


def _parse_args(argv: Optional[list[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5, help="runs per opcore figure (default: %(default)s)")
    p.add_argument("--torchgen-repeat", type=int, default=3,
                   help="runs of torchgen, ~9 s each here (default: %(default)s; 0 skips torchgen)")
    p.add_argument("--torchgen-args", nargs="*", default=[], metavar="ARG",
                   help="extra torchgen.gen arguments, e.g. --per-operator-headers")
    p.add_argument("--entries", type=int, default=make_synthetic_yaml.DEFAULT_ENTRIES,
                   help="entries in the synthetic YAML (default: %(default)s)")
    p.add_argument("--no-lock", dest="lock", action="store_false",
                   help=f"do not hold {LOCK} while measuring")
    args = p.parse_args(argv)
    if args.repeat < 1 or args.torchgen_repeat < 0:
        p.error("--repeat must be at least 1 and --torchgen-repeat at least 0")
    return args


def main(argv: Optional[list[str]] = None) -> int:
    args = _parse_args(argv)
    lock = take_lock(args.lock)
    print(f"gen_bench: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, {sys.executable}")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="opcore-genbench-") as tmp:
        work = Path(tmp)
        generator = installed_generator(work)
        rows += opcore_rows("yaml/ (repository)", REPO / "yaml", args.repeat, work, generator)
        synthetic = make_synthetic_yaml.write(work / "synthetic", args.entries)
        rows += opcore_rows("synthetic (make_synthetic_yaml.py)", synthetic, args.repeat, work, generator)
        source = torchgen_source()
        if source is None:
            print("gen_bench: torchgen not installed (apt-get install python3-torch); no ratios")
        elif args.torchgen_repeat:
            rows += pytorch_rows(source, work, generator, args)
    if lock is not None:
        os.close(lock)
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
