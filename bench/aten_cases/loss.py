"""Losses (issue #34): nll_loss of 4096 rows of 1000 log-probabilities (calls per millisecond:
it reads one element per row) and its backward, which writes the whole [4096, 1000] float32
gradient (GB/s written); cross_entropy of 4096 rows of 1000 logits (the issue's row; GB/s of
logits read), forward and forward + backward; mse_loss and binary_cross_entropy_with_logits of 16M
float32 elements (GB/s of the inputs read: 8 bytes per element forward; forward + backward
counts 20: both inputs read twice, the gradient written), mean-reduced as training uses them."""
from aten_cases import Case

N, C = 4096, 1000
M = 16 * 1024 * 1024


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"x": np.log(rng.random((N, C), dtype=np.float32)), "t": rng.integers(0, C, N, dtype=np.int64),
              "g": np.array(1.0, dtype=np.float32), "tw": np.array(float(N), dtype=np.float32)}
    if lib is None:
        return arrays
    tensors = {k: lib.from_numpy(v) for k, v in arrays.items()}
    tensors["logits"] = lib.from_numpy(rng.standard_normal((N, C), dtype=np.float32)).requires_grad_()
    tensors["a"] = lib.from_numpy(rng.standard_normal(M, dtype=np.float32))
    tensors["b"] = lib.from_numpy(rng.random(M, dtype=np.float32))
    tensors["ag"] = tensors["a"].clone().requires_grad_()
    return tensors


CASES = [
    Case("nll_loss 4096x1000 float32, mean", 1e6, "lib.nn.functional.nll_loss(x, t)", unit="calls/ms"),
    Case("nll_loss_backward 4096x1000 float32, mean", N * C * 4,
         "lib.ops.aten.nll_loss_backward(g, x, t, None, 1, -100, tw)"),
    Case("cross_entropy 4096x1000 float32, mean", N * C * 4, "lib.nn.functional.cross_entropy(logits.detach(), t)"),
    Case("cross_entropy forward + backward 4096x1000 float32", N * C * 4,
         "lib.nn.functional.cross_entropy(logits, t).backward()"),
    Case("mse_loss 16M float32, mean", M * 8, "lib.nn.functional.mse_loss(a, b)"),
    Case("mse_loss forward + backward 16M float32", M * 20, "lib.nn.functional.mse_loss(ag, b).backward()"),
    Case("binary_cross_entropy_with_logits 16M float32, mean", M * 8,
         "lib.nn.functional.binary_cross_entropy_with_logits(a, b)"),
    Case("binary_cross_entropy_with_logits forward + backward 16M float32", M * 20,
         "lib.nn.functional.binary_cross_entropy_with_logits(ag, b).backward()"),
]
