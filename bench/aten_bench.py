"""Throughput of the Core ATen operators (issues #33 and #34), opcore against torch 1.13 and
numpy in one run, one table per operator family; prints the median of the runs with their
min-max (the libraries' runs interleaved), opcore's ratio to the best peer and, for
memory-bound rows, to STREAM's copy, add or read at the same thread count
(build/opcore_stream), run between the row's repetitions: the machine's bandwidth moves from
minute to minute, so the reference is measured in the same minutes as the row.

    PYTHONPATH=build/python python3 bench/aten_bench.py [--runs 7] [--threads N] [--only FAMILY]
                                                       [--markdown FILE] [--plots DIR]

--plots DIR also draws each family's figures, with matplotlib (Debian's python3-matplotlib), as
DIR/aten_<family>.png: a bar per library and row (its median; the line, its min-max) and, for a
memory-bound row, STREAM's median as a black mark.

Each family is a module of bench/aten_cases/ (found by name, so a family adds its file and
touches nothing else) with
  setup(lib, np) -> dict   the operands, made from numpy arrays of fixed seed so that every
                           library gets the same values; `lib` is opcore or torch, or None for
                           numpy (then the dict holds numpy arrays); the statements also see
                           `lib` and `np`
  CASES: list[Case]        its rows (aten_cases.Case)
"""
import argparse
import importlib
import os
import statistics
from dataclasses import dataclass
from pathlib import Path

from kernels_bench import interleaved, libraries, rate, reference_cells, stream  # bench/ is the script's directory: on sys.path
from report import Table, emit, spread

from aten_cases import Case  # noqa: F401  (the row type the families use)

CASES_DIR = Path(__file__).resolve().parent / "aten_cases"


def families() -> list[str]:
    return sorted(p.stem for p in CASES_DIR.glob("*.py") if not p.stem.startswith("_"))


@dataclass
class Measured:
    case: Case
    figures: dict  # library -> rates of its runs
    reference: "tuple[str, list[float]] | None"  # STREAM's name and figures, for a memory-bound row


def measure_family(family: str, modules: dict, args) -> "list[Measured]":
    cases_module = importlib.import_module(f"aten_cases.{family}")
    import numpy as np
    envs = {name: {"np": np, "lib": module, **cases_module.setup(module, np)} for name, module in modules.items()}
    measured = []
    for case in cases_module.CASES:
        stmts = {}
        for name, env in envs.items():
            stmt = {"numpy": case.numpy_stmt, "torch": case.torch_stmt or case.stmt}.get(name, case.stmt)
            if stmt is not None:
                stmts[name] = (stmt, env)
        times: dict = {name: [] for name in stmts}
        reference = None
        for _ in range(args.runs):
            for name, t in interleaved(stmts, 1).items():
                times[name] += t
            if case.stream and (once := stream(args.threads, 1, case.stream)):
                reference = (once[0], (reference[1] if reference else []) + once[1][:1])
        figures = {name: rate(case.work, t) for name, t in times.items()}
        measured.append(Measured(case, figures, reference))
    return measured


def family_table(family: str, measured: "list[Measured]", libs: list, args) -> Table:
    table = Table(f"aten_bench, {family}: {args.threads} threads, median (min-max) of {args.runs} runs",
                  ["case", "unit"] + libs + ["opcore / best peer", "reference", "opcore / reference"])
    for m in measured:
        ours = statistics.median(m.figures["opcore"])
        peers = [statistics.median(f) for name, f in m.figures.items() if name != "opcore"]
        cells = [m.case.row, m.case.unit] + [spread(m.figures[name]) if name in m.figures else "" for name in libs]
        cells.append(f"{ours / max(peers):.2f}x" if peers else "")
        cells += reference_cells(m.reference, ours)
        table.rows.append(cells)
    return table


def plot_family(family: str, measured: "list[Measured]", libs: list, threads: int, out_dir: str) -> None:
    """DIR/aten_<family>.png: horizontal bars, a group per row, on a log scale (the rows of one
    family span a hundredfold)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(out_dir, exist_ok=True)
    height = 0.8 / len(libs)
    fig, ax = plt.subplots(figsize=(9.0, 0.8 + 0.6 * len(measured)))
    for k, lib in enumerate(libs):
        ys, medians, lows, highs = [], [], [], []
        for row, m in enumerate(measured):
            if lib in m.figures:
                f = m.figures[lib]
                ys.append(row + (k - (len(libs) - 1) / 2) * height)
                medians.append(statistics.median(f))
                lows.append(statistics.median(f) - min(f))
                highs.append(max(f) - statistics.median(f))
        ax.barh(ys, medians, height=height, xerr=[lows, highs], label=lib, capsize=0, error_kw={"linewidth": 0.8})
    streams = [(row, statistics.median(m.reference[1])) for row, m in enumerate(measured) if m.reference]
    if streams:
        ax.scatter([v for _, v in streams], [row for row, _ in streams], marker="|", s=400, color="black",
                   zorder=3, label="STREAM (same run)")
    ax.set_yticks(range(len(measured)), [m.case.row for m in measured], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    units = sorted({m.case.unit for m in measured})
    ax.set_xlabel(" / ".join(units))
    ax.set_title(f"aten_bench {family}: {threads} threads (numpy: 1)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # outside: the bars fill the axes
    fig.tight_layout()
    path = os.path.join(out_dir, f"aten_{family}.png")
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--only", choices=families(), action="append", help="run these families only")
    parser.add_argument("--markdown", metavar="FILE", help="also write the tables there, as Markdown")
    parser.add_argument("--plots", metavar="DIR", help="also draw each family's figures into DIR")
    args = parser.parse_args()
    modules = libraries(args.threads)
    sections = []
    for family in args.only or families():
        measured = measure_family(family, modules, args)
        table = family_table(family, measured, list(modules), args)
        emit(table, None)
        sections.append(f"#### {family}\n\n{table.markdown()}")
        if args.plots:
            plot_family(family, measured, list(modules), args.threads, args.plots)
    if args.markdown:
        Path(args.markdown).write_text("\n\n".join(sections) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
