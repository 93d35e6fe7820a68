"""Distances (issue #34), float32, in GFLOP/s: cdist between 2048 and 2048 rows of 64 columns,
p = 2 (the matrix-product path torch and opcore choose for more than 25 rows: 2 flops per
multiply-add, 2048 x 2048 x 64 of them) and p = 1 (the direct kernel: 3 flops per column
pair, |a - b| summed), its backward for p = 1 (_cdist_backward: 3 flops per column pair); pdist
of 2048 rows of 64 columns, p = 2 (3 flops per column pair, 2048 x 2047 / 2 pairs), forward and
forward + backward."""
from aten_cases import Case

R, M = 2048, 64
PAIRS = R * (R - 1) // 2


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"a": rng.standard_normal((R, M), dtype=np.float32), "b": rng.standard_normal((R, M), dtype=np.float32)}
    if lib is None:
        return arrays
    tensors = {k: lib.from_numpy(v) for k, v in arrays.items()}
    tensors["d1"] = lib.cdist(tensors["a"], tensors["b"], 1.0)
    tensors["g"] = lib.ones(R, R)
    tensors["ag"] = tensors["a"].clone().requires_grad_()
    return tensors


CASES = [
    Case("cdist 2048x64 and 2048x64 float32, p 2 (matrix product)", 2 * R * R * M, "lib.cdist(a, b)", unit="GFLOP/s"),
    Case("cdist 2048x64 and 2048x64 float32, p 1", 3 * R * R * M, "lib.cdist(a, b, 1.0)", unit="GFLOP/s"),
    Case("_cdist_backward 2048x64 and 2048x64 float32, p 1", 3 * R * R * M,
         "lib.ops.aten._cdist_backward(g, a, b, 1.0, d1)", unit="GFLOP/s"),
    Case("pdist 2048x64 float32, p 2", 3 * PAIRS * M, "lib.nn.functional.pdist(a)", unit="GFLOP/s"),
    Case("pdist forward + backward 2048x64 float32, p 2", 2 * 3 * PAIRS * M,
         "lib.nn.functional.pdist(ag).sum().backward()", unit="GFLOP/s"),
]
