"""Reductions, scans and sorting (issue #33): the issue's rows (sort and topk of 1M float32,
cumsum of 16M, argmax along dim 1 of 4096x4096) and sum-like ones (amax, prod, var, any).
amax and prod, which only read, have STREAM's read (a sum) as their reference; var keeps the
issue's copy, and any reads bool from the cache."""
from aten_cases import Case

M = 1024 * 1024
N = 16 * M
S = 4096


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"v": rng.standard_normal(M, dtype=np.float32),
              "x": rng.standard_normal(N, dtype=np.float32),
              "p": (1.0 + rng.standard_normal(N, dtype=np.float32) * 1e-4),
              "z": np.zeros(N, dtype=bool),
              "m": rng.standard_normal((S, S), dtype=np.float32)}
    return arrays if lib is None else {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [
    Case("sort float32 1M", 4 * M, "lib.sort(v)", "np.sort(v, kind='stable')", unit="GB/s"),
    Case("topk float32 1M, k=1000", 4 * M, "lib.topk(v, 1000)", "np.argpartition(v, -1000)[-1000:]"),
    Case("cumsum float32 16M", 8 * N, "lib.cumsum(x, 0)", "np.cumsum(x)", stream="copy"),
    Case("argmax dim=1 float32 4096x4096", 4 * S * S, "lib.argmax(m, 1)", "np.argmax(m, 1)", stream="copy"),
    Case("amax float32 16M", 4 * N, "lib.amax(x)", "np.max(x)", stream="read"),
    Case("prod float32 16M", 4 * N, "lib.prod(p)", "np.prod(p)", stream="read"),
    Case("var float32 16M", 4 * N, "lib.var(x)", "np.var(x, ddof=1)", stream="copy"),
    Case("any bool 16M (all False)", N, "lib.any(z)", "np.any(z)", stream="copy"),
]
