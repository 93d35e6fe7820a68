"""Linear layers (issue #34): addmm with a bias row, nn.functional.linear, addmv and baddbmm
(attention's scores plus a mask), float32, GFLOP/s counting the products' 2nmk (the added term
adds n*m, under 1%); numpy computes x @ w.T + b and the like."""
from aten_cases import Case

N, K, M = 1024, 1024, 1024   # addmm: [N, K] x [K, M] + [M]
B, IN, OUT = 4096, 1024, 1024  # linear: a batch of 4096 rows, 1024 -> 1024 features
R = 4096                     # addmv: [R, R] x [R] + [R]
H, L, D = 64, 128, 64        # baddbmm: 64 heads of [L, D] x [D, L] + an [L, L] mask


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"x": rng.random((N, K), dtype=np.float32), "y": rng.random((K, M), dtype=np.float32),
              "bias": rng.random(M, dtype=np.float32), "inp": rng.random((B, IN), dtype=np.float32),
              "w": rng.random((OUT, IN), dtype=np.float32), "b": rng.random(OUT, dtype=np.float32),
              "a": rng.random((R, R), dtype=np.float32), "v": rng.random(R, dtype=np.float32),
              "s": rng.random(R, dtype=np.float32), "q": rng.random((H, L, D), dtype=np.float32),
              "kt": rng.random((H, D, L), dtype=np.float32), "mask": rng.random((L, L), dtype=np.float32)}
    return arrays if lib is None else {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [
    Case("addmm 1024^3 + bias row float32", 2 * N * K * M, "lib.addmm(bias, x, y)", "x @ y + bias", unit="GFLOP/s"),
    Case("linear 4096 x 1024 -> 1024 float32", 2 * B * IN * OUT, "lib.nn.functional.linear(inp, w, b)",
         "inp @ w.T + b", unit="GFLOP/s"),
    Case("addmv 4096 x 4096 float32", 2 * R * R, "lib.addmv(s, a, v)", "a @ v + s", unit="GFLOP/s"),
    Case("baddbmm 64 x 128x64 @ 64x128 + mask float32", 2 * H * L * D * L, "lib.baddbmm(mask, q, kt)",
         "q @ kt + mask", unit="GFLOP/s"),
]
