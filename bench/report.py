"""Tables for the benchmarks, and the "Latest run" section of bench/README.md that bench/run.sh
writes from them.

A benchmark script builds a `Table` and calls `emit(table, path)`: the table is printed, and
with a path (the script's --markdown option) also written there as Markdown. Then

    python3 bench/report.py RESULTS_DIR [--readme bench/README.md] [--threads N]

replaces the text between the two marker lines of the README with the machine, the date, the
commit and the thread count, then each topic in TOPICS order: a Markdown table a script wrote
(RESULTS_DIR/<topic>.md), opcore_bench's Google Benchmark JSON (opcore_bench.json, read into a
table of opcore, libtorch and their ratio), or a script's console output (<topic>.txt, as a
code block), and the plots under bench/plots/.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

BEGIN = "<!-- bench/run.sh: begin (generated; edit bench/report.py, not this section) -->"
END = "<!-- bench/run.sh: end -->"

# (file stem, heading): the order of the generated section.
TOPICS = [
    ("opcore_bench", "Dispatcher and small tensors: opcore_bench (C++, one thread)"),
    ("kernels_bench", "Kernel throughput: bench/kernels_bench.py"),
    ("aten_bench", "Core ATen operators: bench/aten_bench.py"),
    ("python_bench", "Python bindings: bench/python_bench.py"),
    ("ops_bench", "Python operator layer: bench/ops_bench.py"),
    ("gen_bench", "Generation time: bench/gen_bench.py"),
    ("compile_bench", "Compile cost: bench/compile_bench.sh"),
    ("rebuild_bench", "Rebuild after a one-operator change: bench/rebuild_bench.py"),
]
# The plots shown under a topic: kernels_bench's by name; aten_bench's, one per operator family,
# by a pattern.
PLOTS = {"kernels_bench": ["add", "exp", "sum", "mm"], "aten_bench": "aten_*"}


@dataclass
class Table:
    title: str
    header: Sequence[str]
    rows: list = field(default_factory=list)  # lists of cells (str)
    notes: list = field(default_factory=list)  # lines printed after the table

    def console(self) -> str:
        lines = [list(self.header)] + [list(r) for r in self.rows]
        widths = [max(len(line[i]) for line in lines) for i in range(len(self.header))]
        out = [self.title] + ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines]
        return "\n".join(out + self.notes)

    def markdown(self) -> str:
        out = [f"| {' | '.join(self.header)} |", "|" + " --- |" * len(self.header)]
        out += [f"| {' | '.join(r)} |" for r in self.rows]
        if self.notes:
            out += [""] + self.notes
        return "\n".join(out)


def emit(table: Table, markdown_path: Optional[str]) -> None:
    """Prints the table; writes it as Markdown too when a path is given."""
    print(table.console())
    if markdown_path:
        Path(markdown_path).write_text(table.markdown() + "\n", encoding="utf-8")


def spread(values: Sequence[float], fmt: str = "{:.1f}") -> str:
    """'median (min-max)' of the values."""
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def time_spread(ns: Sequence[float]) -> str:
    """'median (min-max)' of times in nanoseconds, in the unit that suits the median."""
    median = statistics.median(ns)
    scale, unit = (1e6, "ms") if median >= 1e6 else (1e3, "µs") if median >= 1e3 else (1.0, "ns")
    return spread([v / scale for v in ns]) + f" {unit}"


def opcore_bench_table(path: Path) -> Table:
    """opcore/<name> against libtorch/<name> from Google Benchmark's JSON (its repetitions):
    CPU time per iteration, median (min-max), and the ratio of the medians."""
    data = json.loads(path.read_text(encoding="utf-8"))
    times: dict = {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        times.setdefault(b["run_name"], []).append(b["cpu_time"] * scale)
    table = Table("opcore_bench", ["benchmark", "opcore", "libtorch", "opcore / libtorch"])
    for name in sorted(n for n in times if n.startswith("opcore/")):
        ours = times[name]
        label = name[len("opcore/"):]
        theirs = times.get("libtorch/" + label.removesuffix("_borrowed"))  # libtorch cannot borrow
        cells = [label, time_spread(ours)]
        if theirs:
            cells += [time_spread(theirs), f"{statistics.median(ours) / statistics.median(theirs):.2f}x"]
        else:
            cells += ["–", "–"]
        table.rows.append(cells)
    return table


def machine() -> str:
    cpu = "unknown CPU"
    flags: set = set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and cpu == "unknown CPU":
                cpu = line.split(":", 1)[1].strip()
            if line.startswith("flags") and not flags:
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE2"
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {isa}, {mem:.0f} GiB, {platform.platform()}"


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def section(results: Path, threads: int, readme_dir: Path) -> str:
    out = [BEGIN, "", "## Latest run", "",
           f"`bench/run.sh` on {datetime.date.today().isoformat()}, commit {commit()}: {machine()}; "
           f"{threads} threads for the kernels (the other benchmarks are single-threaded).", ""]
    for stem, heading in TOPICS:
        md, js, txt = results / f"{stem}.md", results / f"{stem}.json", results / f"{stem}.txt"
        if js.exists():
            body = opcore_bench_table(js).markdown()
        elif md.exists():
            body = md.read_text(encoding="utf-8").strip()
        elif txt.exists():
            body = "```\n" + txt.read_text(encoding="utf-8").strip() + "\n```"
        else:
            continue
        out += [f"### {heading}", "", body, ""]
        plots = PLOTS.get(stem, [])
        if isinstance(plots, str):
            plots = sorted(p.stem for p in (readme_dir / "plots").glob(f"{plots}.png"))
        if plots:
            out += [f"![{plot}](plots/{plot}.png)" for plot in plots if (readme_dir / "plots" / f"{plot}.png").exists()]
            out.append("")
    out.append(END)
    return "\n".join(out)


def replace_section(readme: str, new: str) -> str:
    """The README with the generated section replaced (or appended when it has none)."""
    if BEGIN in readme and END in readme:
        head, rest = readme.split(BEGIN, 1)
        return head + new + rest.split(END, 1)[1]
    return readme.rstrip("\n") + "\n\n" + new + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--readme", type=Path, default=Path(__file__).resolve().parent / "README.md")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    args = parser.parse_args()
    text = args.readme.read_text(encoding="utf-8")
    args.readme.write_text(replace_section(text, section(args.results, args.threads, args.readme.parent)),
                           encoding="utf-8")
    print(f"report: wrote the latest run into {args.readme}")


if __name__ == "__main__":
    main()
