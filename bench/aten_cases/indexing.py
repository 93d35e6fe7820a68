"""Indexing (issue #33): gather and scatter_add of 4M indices (a 1024 x 4096 float32 tensor,
random Long indices along dim 1, the rows shared among the threads), index_select of 4096
random rows of a 4096² float32 tensor. Bytes counted: each element read and written once,
its index read once (scatter_add: self copied into the result, then src added)."""
import numpy as np  # noqa: F401  (the statements see `np` from aten_bench)

from aten_cases import Case

ROWS, COLS = 1024, 4096
N = ROWS * COLS
SIDE = 4096


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"a": rng.random((ROWS, COLS), dtype=np.float32),
              "idx": rng.integers(0, COLS, size=(ROWS, COLS), dtype=np.int64),
              "src": rng.random((ROWS, COLS), dtype=np.float32),
              "z": np.zeros((ROWS, COLS), dtype=np.float32),
              "big": rng.random((SIDE, SIDE), dtype=np.float32),
              "rows": rng.integers(0, SIDE, size=SIDE, dtype=np.int64)}
    return arrays if lib is None else {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [
    Case("gather float32 4M, dim 1", (4 + 8 + 4) * N, "lib.gather(a, 1, idx)", "np.take_along_axis(a, idx, axis=1)",
         stream="copy"),
    Case("scatter_add float32 4M, dim 1", (4 + 4 + 8 + 4) * N, "lib.scatter_add(z, 1, idx, src)", None, stream="copy"),
    Case("index_select 4096 rows of 4096² float32", 2 * 4 * SIDE * SIDE, "lib.index_select(big, 0, rows)",
         "np.take(big, rows, axis=0)", stream="copy"),
]
