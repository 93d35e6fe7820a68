"""Per-call time of opcore's Python bindings on 1-element float tensors, side by side with
torch (Debian's python3-torch, skipped when absent) and numpy, measured in one run; prints the
times and the ratios opcore/torch and opcore/numpy (issue #14's targets: every row at most
1/3 of torch's time, and opcore.add(a, b) no slower than numpy's 1-element add).

    PYTHONPATH=build/python python3 bench/python_bench.py [--repeat 7] [--number 20000] [--markdown FILE]

Each figure is the median (min-max) of `repeat` timeit runs of `number` calls, in nanoseconds
per call; a ratio is that of the medians. --markdown also writes the table there (bench/run.sh).
"""
import argparse
import statistics
import timeit

from report import Table, emit, spread  # bench/ is the script's directory: on sys.path

CASES = [
    # (row, statement for opcore/torch with the library as `lib`, numpy statement or None)
    ("add(a, b)", "lib.add(a, b)", "np.add(a, b)"),
    ("a + b", "a + b", "a + b"),
    ("a.add_(b)", "a.add_(b)", "np.add(a, b, out=a)"),
    ("a[0]", "a[0]", "a[0]"),
    ("ones(1)", "lib.ones(1)", "np.ones(1, dtype=np.float32)"),
    ("fwd+bwd ((a*b)+a).sum()", "((w * v) + w).sum().backward()", None),
]

SETUP = """
import {module} as lib
a = lib.ones(1); b = lib.ones(1)
w = lib.ones(1, requires_grad=True); v = lib.ones(1)
"""
NUMPY_SETUP = "import numpy as np\na = np.ones(1, dtype=np.float32); b = np.ones(1, dtype=np.float32)"


def measure(stmt: str, setup: str, repeat: int, number: int, per: int = 1) -> list[float]:
    """Nanoseconds per call in each of `repeat` runs of about `number` calls, where one
    execution of `stmt` makes `per` calls."""
    runs = max(1, number // per)
    return [t / (runs * per) * 1e9 for t in timeit.repeat(stmt, setup, repeat=repeat, number=runs)]


def ratio(ours: list[float], theirs: "list[float] | None") -> str:
    return f"{statistics.median(ours) / statistics.median(theirs):.2f}x" if theirs else "–"


def have_torch() -> bool:
    """Whether torch can be imported (then pinned to one thread, as the figures are taken)."""
    try:
        import torch
    except ImportError:
        print("torch: not installed (bench/setup.sh installs python3-torch); no torch ratios")
        return False
    torch.set_num_threads(1)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--markdown", metavar="FILE", help="also write the table there, as Markdown")
    args = parser.parse_args()
    with_torch = have_torch()
    table = Table("python_bench: ns per call, median (min-max)",
                  ["case", "opcore", "torch", "numpy", "opcore / torch", "opcore / numpy"])
    for row, stmt, numpy_stmt in CASES:
        ours = measure(stmt, SETUP.format(module="opcore"), args.repeat, args.number)
        theirs = measure(stmt, SETUP.format(module="torch"), args.repeat, args.number) if with_torch else None
        np_time = measure(numpy_stmt, NUMPY_SETUP, args.repeat, args.number) if numpy_stmt else None
        table.rows.append([row, spread(ours, "{:.0f}"), spread(theirs, "{:.0f}") if theirs else "–",
                           spread(np_time, "{:.0f}") if np_time else "–", ratio(ours, theirs), ratio(ours, np_time)])
    emit(table, args.markdown)


if __name__ == "__main__":
    main()
