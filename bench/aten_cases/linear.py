"""Linear layers (issue #34): addmm with a bias row and nn.functional.linear, float32, GFLOP/s
counting the product's 2nmk (the bias adds n*m, under 0.1%); numpy computes x @ w.T + b."""
from aten_cases import Case

N, K, M = 1024, 1024, 1024   # addmm: [N, K] x [K, M] + [M]
B, IN, OUT = 4096, 1024, 1024  # linear: a batch of 4096 rows, 1024 -> 1024 features


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"x": rng.random((N, K), dtype=np.float32), "y": rng.random((K, M), dtype=np.float32),
              "bias": rng.random(M, dtype=np.float32), "inp": rng.random((B, IN), dtype=np.float32),
              "w": rng.random((OUT, IN), dtype=np.float32), "b": rng.random(OUT, dtype=np.float32)}
    return arrays if lib is None else {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [
    Case("addmm 1024^3 + bias row float32", 2 * N * K * M, "lib.addmm(bias, x, y)", "x @ y + bias", unit="GFLOP/s"),
    Case("linear 4096 x 1024 -> 1024 float32", 2 * B * IN * OUT, "lib.nn.functional.linear(inp, w, b)",
         "inp @ w.T + b", unit="GFLOP/s"),
]
