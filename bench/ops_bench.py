"""Per-call time of the Python operator layer (opcore.ops, opcore.library, dispatch modes) on
1-element tensors, side by side with torch 1.13 (Debian's python3-torch) in one run; prints the
times and the ratios opcore/torch (issue #15's targets: at most 1/3 of torch's time for the first
three rows).

    PYTHONPATH=build/python python3 bench/ops_bench.py [--repeat 7] [--number 20000] [--markdown FILE]

Rows:
  ops.aten.add.Tensor(a, b)   an OpOverload call (the boxed path, arguments parsed from the schema)
  ops.aten.add(a, b)          an OpOverloadPacket call (the overload picked from the arguments)
  C++ operator via ops        an operator a shared library defines in C++, returning an int:
                              opcore: the test plugin's plugin_ops::triple (numel * 3), loaded
                              with ops.load_library; torch: aten::numel, the same work
  Python kernel (Library)     an operator defined and implemented (lambda x: x) with Library
  add under a passing mode    a + b inside a TorchDispatchMode that calls func straight through

Each figure is the median (min-max) of `repeat` timeit runs of `number` calls, in nanoseconds
per call; a ratio is that of the medians.
"""
import argparse
import os
import pathlib

from python_bench import have_torch, measure, ratio  # bench/ is the script's directory: on sys.path
from report import Table, emit, spread

PLUGIN = os.environ.get("OPCORE_TEST_PLUGIN_PATH",
                        str(pathlib.Path(__file__).resolve().parents[1] / "build" / "libopcore_test_plugin.so"))

COMMON = """
import {module} as lib
a = lib.ones(1); b = lib.ones(1)
from {module}.utils._python_dispatch import TorchDispatchMode
class Passing(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {{}}))
# The Python-kernel operator is defined once per process and kept in __main__ (torch 1.13
# crashes when a Library defining an operator is made again after its predecessor died).
import __main__
if not hasattr(__main__, "pylib_{module}"):
    __main__.pylib_{module} = lib.library.Library("ops_bench", "DEF")
    __main__.pylib_{module}.define("ident(Tensor x) -> Tensor")
    __main__.pylib_{module}.impl("ident", lambda x: x, "CPU")
py_op = lib.ops.ops_bench.ident.default
"""
OPCORE_SETUP = COMMON.format(module="opcore") + f"""
lib.ops.load_library({PLUGIN!r})
cpp_op = lib.ops.plugin_ops.triple.default
"""
TORCH_SETUP = COMMON.format(module="torch") + """
cpp_op = lib.ops.aten.numel.default
"""

# (row, statement, calls per statement): the mode row enters the mode once per 100 calls.
CASES = [
    ("ops.aten.add.Tensor(a, b)", "lib.ops.aten.add.Tensor(a, b)", 1),
    ("ops.aten.add(a, b)", "lib.ops.aten.add(a, b)", 1),
    ("C++ operator via ops", "cpp_op(a)", 1),
    ("Python kernel (Library)", "py_op(a)", 1),
    ("add under a passing mode", "with Passing():\n    for _ in range(100): a + b", 100),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--markdown", metavar="FILE", help="also write the table there, as Markdown")
    args = parser.parse_args()
    with_torch = have_torch()
    table = Table("ops_bench: ns per call, median (min-max)", ["case", "opcore", "torch", "opcore / torch"])
    for row, stmt, per in CASES:
        ours = measure(stmt, OPCORE_SETUP, args.repeat, args.number, per)
        theirs = measure(stmt, TORCH_SETUP, args.repeat, args.number, per) if with_torch else None
        table.rows.append([row, spread(ours, "{:.0f}"), spread(theirs, "{:.0f}") if theirs else "–",
                           ratio(ours, theirs)])
    emit(table, args.markdown)


if __name__ == "__main__":
    main()
