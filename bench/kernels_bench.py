"""Throughput of the CPU kernels on large tensors, opcore against torch 1.13 (Debian's
python3-torch, given the same thread count) and numpy 1.24 in one run; prints GB/s (GFLOP/s for
mm) as the median of the runs with their min-max (the libraries' runs interleaved), and opcore's
ratio to the best peer (issue #16's targets).

    PYTHONPATH=build/python python3 bench/kernels_bench.py [--runs 7] [--threads N] [--plots DIR]
                                                          [--markdown FILE]

Bytes are counted as PyTorch's benchmarks count them: 3 x 4 x N for a binary float32 op, 2 x 4 x N
for a unary one, 4 x N for a sum. Rows (float32, N = 16M unless named):
  add_out        add(a, b, out=c): no allocation
  a + b          the allocating add
  sum            a.sum()
  sum(dim=1)     of a 4096 x 4096 matrix
  exp            the allocating exp; log, sqrt, tanh and sigmoid likewise (numpy's sigmoid is
                 1 / (1 + exp(-a)), three passes)
  mm 1024        1024 x 1024 @ 1024 x 1024, in GFLOP/s; numpy's goes to OpenBLAS (pthreads)
numpy runs elementwise work on one thread whatever --threads says. Two rows also give a
reference the issue's targets name: add_out, STREAM's add at the same thread count
(build/opcore_stream, bench/stream.cpp: an OpenMP loop over raw arrays, the machine's ceiling
for that access pattern), when it is built; mm, oneDNN's matrix product through torch
(torch._C._nn.mkldnn_linear on mkldnn tensors), when torch has it.

A second table (issue #31) runs the same way on other dtypes, opcore against torch only (numpy
has no bfloat16), with the bytes each dtype moves (2 per bfloat16 or half element, 1 per uint8):
  add_out, mul_out  out= forms on bfloat16 and on uint8
  sum               bfloat16 (accumulated in float) and uint8 (an int64 result)
  exp, tanh         allocating, bfloat16
  mm 1024           bfloat16, GFLOP/s
  float -> bfloat16 and back, float -> half and back: the allocating conversions (a.bfloat16(),
                    h.float(), ...), 6 bytes per element; their reference is STREAM's copy at the
                    same thread count (8 bytes per element).

--plots DIR also sweeps the sizes and draws, with matplotlib (Debian's python3-matplotlib),
DIR/add.png, DIR/exp.png, DIR/sum.png (GB/s against 1 to 64M elements: a + b, exp(a), a.sum())
and DIR/mm.png (GFLOP/s against n for n x n products), a line per library.
"""
import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path

from report import Table, emit, spread  # bench/ is the script's directory: on sys.path

STREAM = Path(__file__).resolve().parents[1] / "build" / "opcore_stream"

N = 16 * 1024 * 1024

# (row, unit scale: work per call in bytes or flops, statement per library, setup per library)
CASES = [
    ("add_out", 12 * N, "lib.add(a, b, out=c)", "np.add(a, b, out=c)"),
    ("a + b", 12 * N, "a + b", "a + b"),
    ("sum", 4 * N, "a.sum()", "a.sum()"),
    ("sum(dim=1)", 4 * N, "m.sum(dim=1)", "m.sum(axis=1)"),
    ("exp", 8 * N, "lib.exp(a)", "np.exp(a)"),
    ("log", 8 * N, "lib.log(a)", "np.log(a)"),
    ("sqrt", 8 * N, "lib.sqrt(a)", "np.sqrt(a)"),
    ("tanh", 8 * N, "lib.tanh(a)", "np.tanh(a)"),
    ("sigmoid", 8 * N, "lib.sigmoid(a)", "1 / (1 + np.exp(-a))"),
    ("mm 1024", 2 * 1024**3, "lib.mm(x, y)", "x @ y"),
]


# Issue #31's rows: (row, work per call in bytes or flops, statement for opcore and torch, whose
# APIs agree on these). dtype_setup() makes the operands.
DTYPE_CASES = [
    ("add_out bfloat16", 6 * N, "lib.add(h, g, out=o)"),
    ("mul_out bfloat16", 6 * N, "lib.mul(h, g, out=o)"),
    ("sum bfloat16", 2 * N, "h.sum()"),
    ("add_out uint8", 3 * N, "lib.add(u, v, out=w)"),
    ("mul_out uint8", 3 * N, "lib.mul(u, v, out=w)"),
    ("sum uint8", N, "u.sum()"),
    ("exp bfloat16", 4 * N, "lib.exp(h)"),
    ("tanh bfloat16", 4 * N, "lib.tanh(h)"),
    ("mm 1024 bfloat16", 2 * 1024**3, "lib.mm(xh, yh)"),
    ("float -> bfloat16", 6 * N, "a.bfloat16()"),
    ("bfloat16 -> float", 6 * N, "h.float()"),
    ("float -> half", 6 * N, "a.half()"),
    ("half -> float", 6 * N, "f.float()"),
]
CONVERSIONS = {"float -> bfloat16", "bfloat16 -> float", "float -> half", "half -> float"}


def dtype_setup(lib) -> dict:
    """The operands of DTYPE_CASES for opcore or torch (the same values for both)."""
    import numpy as np
    rng = np.random.default_rng(1)
    floats = {"a": rng.random(N, dtype=np.float32), "b": rng.random(N, dtype=np.float32),
              "x": rng.random(1024 * 1024, dtype=np.float32).reshape(1024, 1024),
              "y": rng.random(1024 * 1024, dtype=np.float32).reshape(1024, 1024)}
    t = {k: lib.from_numpy(v) for k, v in floats.items()}
    env = {"lib": lib, "a": t["a"], "h": t["a"].bfloat16(), "g": t["b"].bfloat16(), "o": t["b"].bfloat16(),
           "f": t["a"].half(), "xh": t["x"].bfloat16(), "yh": t["y"].bfloat16()}
    for name in ("u", "v", "w"):
        env[name] = lib.from_numpy(rng.integers(0, 256, N, dtype=np.uint8))
    return env


def dtype_table(modules: dict, args) -> Table:
    """opcore against torch on DTYPE_CASES, plus STREAM's copy for the conversions."""
    envs = {name: dtype_setup(module) for name, module in modules.items() if module is not None}
    copy = stream(args.threads, args.runs, "copy")
    table = Table(f"kernels_bench, dtypes (issue #31): {args.threads} threads, GB/s (GFLOP/s for mm), "
                  f"median (min-max) of {args.runs} runs",
                  ["case"] + list(envs) + ["opcore / torch", "reference", "opcore / reference"])
    for row, work, stmt in DTYPE_CASES:
        seconds = interleaved({name: (stmt, env) for name, env in envs.items()}, args.runs)
        figures = {name: rate(work, t) for name, t in seconds.items()}
        ours = statistics.median(figures["opcore"])
        cells = [row] + [spread(f) for f in figures.values()]
        cells.append(f"{ours / statistics.median(figures['torch']):.2f}x" if "torch" in figures else "")
        if row in CONVERSIONS and copy:
            cells += [f"{copy[0]} {spread(copy[1])}", f"{ours / statistics.median(copy[1]):.2f}x"]
        else:
            cells += ["", ""]
        table.rows.append(cells)
    envs.clear()
    return table


def setup(lib, module: str):
    """The operands of every case for one library (the same values for all)."""
    import numpy as np
    rng = np.random.default_rng(0)
    arrays = {"a": rng.random(N, dtype=np.float32), "b": rng.random(N, dtype=np.float32),
              "c": np.empty(N, dtype=np.float32), "m": rng.random(N, dtype=np.float32).reshape(4096, 4096),
              "x": rng.random(1024 * 1024, dtype=np.float32).reshape(1024, 1024),
              "y": rng.random(1024 * 1024, dtype=np.float32).reshape(1024, 1024)}
    if module == "numpy":
        return {"np": np, **arrays}
    return {"lib": lib, **{k: lib.from_numpy(v.copy()) for k, v in arrays.items()}}


def timed(stmt: str, env: dict, runs: int) -> list[float]:
    """Seconds per call of each run (a run repeats the call for at least 0.1 s)."""
    code = compile(stmt, "<bench>", "eval")
    eval(code, env)  # warm-up: the allocator's cache, BLAS's buffers, the threads
    return timed_runs(code, env, runs)


def interleaved(stmts: dict, runs: int) -> dict:
    """timed() of several libraries' (statement, env), one run of each in turn: the machine's
    slow spells (bench/README.md) then fall on every library alike rather than on one. Each
    timed run follows an untimed one of the same length, as STREAM's first run is
    (bench/stream.cpp): a core that waited while another library ran takes tens of
    milliseconds to reach its clock again, and a compute-bound row's first calls ran at half
    its speed (bench/README.md, "The same Xeon, later")."""
    codes = {name: compile(stmt, "<bench>", "eval") for name, (stmt, _) in stmts.items()}
    for name, (_, env) in stmts.items():
        eval(codes[name], env)  # warm-up
    out: dict = {name: [] for name in stmts}
    for _ in range(runs):
        for name, (_, env) in stmts.items():
            out[name] += timed_runs(codes[name], env, 2)[1:]
    return out


def timed_runs(code, env: dict, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        calls, start = 0, time.perf_counter()
        while True:
            eval(code, env)
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= 0.1:
                break
        out.append(elapsed / calls)
    return out


def rate(work: float, seconds: list[float]) -> list[float]:
    """work/second of each run, in units of 1e9."""
    return [work / s / 1e9 for s in seconds]


def stream(threads: int, runs: int, kernel: str = "add") -> "tuple[str, list[float]] | None":
    """STREAM's add or copy: ("STREAM add", [median, min, max] GB/s), or None when
    build/opcore_stream is absent (spread() of the three gives them back)."""
    if not STREAM.exists():
        return None
    fields = subprocess.run([str(STREAM), str(threads), str(runs), kernel], capture_output=True, text=True,
                            check=True).stdout.split()
    return f"STREAM {kernel}", [float(f) for f in fields[1:4]]


def onednn_linear(runs: int) -> "tuple[str, list[float]] | None":
    """oneDNN's 1024^2 product through torch: GFLOP/s of each run, or None without it."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.backends.mkldnn.is_available():
        return None
    x, w = torch.rand(1024, 1024).to_mkldnn(), torch.rand(1024, 1024).to_mkldnn()
    env = {"f": torch._C._nn.mkldnn_linear, "x": x, "w": w}
    return "oneDNN linear", rate(2 * 1024**3, timed("f(x, w)", env, runs))


REFERENCES = {"add_out": lambda args: stream(args.threads, args.runs),
              "mm 1024": lambda args: onednn_linear(args.runs)}


# The swept cases: (plot name, unit, sizes, work(size) in bytes or flops, statement for opcore
# and torch, statement for numpy); sweep_env() makes the operands of each size.
SWEEPS = [
    ("add", "GB/s", [4**i for i in range(14)], lambda n: 12 * n, "a + b", "a + b"),
    ("exp", "GB/s", [4**i for i in range(14)], lambda n: 8 * n, "lib.exp(a)", "np.exp(a)"),
    ("sum", "GB/s", [4**i for i in range(14)], lambda n: 4 * n, "a.sum()", "a.sum()"),
    ("mm", "GFLOP/s", [32, 64, 128, 256, 512, 1024, 2048], lambda n: 2 * n**3, "lib.mm(x, y)", "x @ y"),
]


def sweep_env(lib, module: str, plot: str, n: int) -> dict:
    import numpy as np
    rng = np.random.default_rng(0)
    if plot == "mm":
        arrays = {"x": rng.random((n, n), dtype=np.float32), "y": rng.random((n, n), dtype=np.float32)}
    else:
        arrays = {"a": rng.random(n, dtype=np.float32), "b": rng.random(n, dtype=np.float32)}
    if module == "numpy":
        return {"np": np, **arrays}
    return {"lib": lib, **{k: lib.from_numpy(v) for k, v in arrays.items()}}


def plot_sweeps(libs: dict, threads: int, out_dir: str) -> None:
    """Measures every swept case for every library and writes one PNG per case."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(out_dir, exist_ok=True)
    for plot, unit, sizes, work, lib_stmt, np_stmt in SWEEPS:
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        for name, module in libs.items():
            rates = []
            for n in sizes:
                env = sweep_env(module, name, plot, n)
                rates.append(statistics.median(rate(work(n), timed(np_stmt if name == "numpy" else lib_stmt, env, 3))))
            ax.plot(sizes, rates, marker="o", label=name)
        ax.set_xscale("log", base=2)
        if plot == "mm":
            ax.set_xlabel("n (n x n float32 matrices)")
            ax.set_title(f"mm: {threads} threads")
        else:
            ax.set_yscale("log")  # the small sizes, where call overhead rules, stay readable
            ax.set_xlabel("elements (float32)")
            ax.set_title(f"{plot}: {threads} threads (numpy: 1)")
        ax.set_ylabel(unit)
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, f"{plot}.png"), dpi=90)
        plt.close(fig)
        print(f"wrote {os.path.join(out_dir, plot + '.png')}")


def reference_cells(reference: "tuple[str, list[float]] | None", ours: float) -> list[str]:
    """The reference's name and figures, and opcore's median against it (two empty cells
    without a reference)."""
    if not reference:
        return ["", ""]
    name, figures = reference
    return [f"{name} {spread(figures)}", f"{ours / statistics.median(figures):.2f}x"]


def libraries(threads: int) -> dict:
    """opcore, torch (when installed) and numpy (None: its statements import it), each on
    `threads` threads where it has threads of its own."""
    import opcore
    opcore.set_num_threads(threads)
    modules = {"opcore": opcore}
    try:
        import torch
        torch.set_num_threads(threads)
        modules["torch"] = torch
    except ImportError:
        print("torch: not installed (bench/setup.sh installs python3-torch); no torch column")
    modules["numpy"] = None
    return modules


def float32_table(modules: dict, args) -> Table:
    """opcore, torch and numpy on CASES, with the references."""
    libs = {name: setup(module, name) for name, module in modules.items()}
    table = Table(f"kernels_bench: {args.threads} threads, GB/s (GFLOP/s for mm), median (min-max) of {args.runs} runs",
                  ["case"] + list(libs) + ["opcore / best peer", "reference", "opcore / reference"])
    for row, work, lib_stmt, np_stmt in CASES:
        seconds = interleaved({name: (np_stmt if name == "numpy" else lib_stmt, env) for name, env in libs.items()},
                              args.runs)
        figures = {name: rate(work, t) for name, t in seconds.items()}
        best_peer = max(statistics.median(f) for name, f in figures.items() if name != "opcore")
        ours = statistics.median(figures["opcore"])
        cells = [row] + [spread(f) for f in figures.values()] + [f"{ours / best_peer:.2f}x"]
        cells += reference_cells(REFERENCES[row](args) if row in REFERENCES else None, ours)
        table.rows.append(cells)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--plots", metavar="DIR", help="also sweep the sizes and write PNG plots into DIR")
    parser.add_argument("--markdown", metavar="FILE", help="also write the tables there, as Markdown")
    parser.add_argument("--only", choices=["float32", "dtypes"], help="run one of the two tables")
    args = parser.parse_args()
    modules = libraries(args.threads)
    tables = []
    if args.only != "dtypes":
        tables.append(float32_table(modules, args))
    if args.only != "float32":
        tables.append(dtype_table(modules, args))
    for table in tables:
        emit(table, None)
    if args.markdown:
        Path(args.markdown).write_text("\n\n".join(t.markdown() for t in tables) + "\n", encoding="utf-8")
    if args.plots:
        plot_sweeps(modules, args.threads, args.plots)


if __name__ == "__main__":
    main()
