"""Throughput of the Core ATen operators (issues #33 and #34), opcore against torch 1.13 and
numpy in one run, one table per operator family; prints the median of the runs with their
min-max (the libraries' runs interleaved), opcore's ratio to the best peer and, for
memory-bound rows, to STREAM's copy, add or read at the same thread count
(build/opcore_stream).

    PYTHONPATH=build/python python3 bench/aten_bench.py [--runs 7] [--threads N] [--only FAMILY]
                                                       [--markdown FILE]

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
from pathlib import Path

from kernels_bench import interleaved, libraries, rate, reference_cells, stream  # bench/ is the script's directory: on sys.path
from report import Table, emit, spread

from aten_cases import Case  # noqa: F401  (the row type the families use)

CASES_DIR = Path(__file__).resolve().parent / "aten_cases"


def families() -> list[str]:
    return sorted(p.stem for p in CASES_DIR.glob("*.py") if not p.stem.startswith("_"))


def family_table(family: str, modules: dict, args) -> Table:
    cases_module = importlib.import_module(f"aten_cases.{family}")
    import numpy as np
    envs = {name: {"np": np, "lib": module, **cases_module.setup(module, np)} for name, module in modules.items()}
    references = {kernel: stream(args.threads, args.runs, kernel)
                  for kernel in {c.stream for c in cases_module.CASES if c.stream}}
    table = Table(f"aten_bench, {family}: {args.threads} threads, median (min-max) of {args.runs} runs",
                  ["case", "unit"] + list(envs) + ["opcore / best peer", "reference", "opcore / reference"])
    for case in cases_module.CASES:
        stmts = {}
        for name, env in envs.items():
            stmt = {"numpy": case.numpy_stmt, "torch": case.torch_stmt or case.stmt}.get(name, case.stmt)
            if stmt is not None:
                stmts[name] = (stmt, env)
        figures = {name: rate(case.work, t) for name, t in interleaved(stmts, args.runs).items()}
        ours = statistics.median(figures["opcore"])
        peers = [statistics.median(f) for name, f in figures.items() if name != "opcore"]
        cells = [case.row, case.unit] + [spread(figures[name]) if name in figures else "" for name in envs]
        cells.append(f"{ours / max(peers):.2f}x" if peers else "")
        cells += reference_cells(references.get(case.stream), ours)
        table.rows.append(cells)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--only", choices=families(), action="append", help="run these families only")
    parser.add_argument("--markdown", metavar="FILE", help="also write the tables there, as Markdown")
    args = parser.parse_args()
    modules = libraries(args.threads)
    tables = [family_table(family, modules, args) for family in (args.only or families())]
    for table in tables:
        emit(table, None)
    if args.markdown:
        Path(args.markdown).write_text("\n\n".join(t.markdown() for t in tables) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
