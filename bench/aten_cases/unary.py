"""Unary pointwise operators (issue #33): the issue's `sin` row on 16M float32, other SLEEF
functions (cos, log1p, erf), and memory-bound rows (floor, isnan) against STREAM's copy."""
from aten_cases import Case

N = 16 * 1024 * 1024


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"a": (rng.random(N, dtype=np.float32) * 8 - 4).astype(np.float32),
              "p": rng.random(N, dtype=np.float32)}
    return arrays if lib is None else {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [
    Case("sin float32 16M", 8 * N, "lib.sin(a)", "np.sin(a)"),
    Case("cos float32 16M", 8 * N, "lib.cos(a)", "np.cos(a)"),
    Case("log1p float32 16M", 8 * N, "lib.log1p(p)", "np.log1p(p)"),
    Case("erf float32 16M", 8 * N, "lib.erf(a)"),
    Case("floor float32 16M", 8 * N, "lib.floor(a)", "np.floor(a)", stream="copy"),
    Case("isnan float32 16M", 5 * N, "lib.isnan(a)", "np.isnan(a)", stream="copy"),
]
