"""Normalization (issue #34): layer_norm of 8192 rows of 1024 float32 features (weight and
bias), forward and forward + backward (a gradient for the input, weight and bias), against
torch 1.13. Work is the bytes of the input read once (32 MiB). The backward's gradient is
the sum of the output, whose own gradient (ones) autograd makes, in both libraries."""
from aten_cases import Case

M, N = 8192, 1024


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"x": rng.standard_normal((M, N), dtype=np.float32), "w": rng.standard_normal(N, dtype=np.float32),
              "b": rng.standard_normal(N, dtype=np.float32)}
    if lib is None:
        return arrays
    tensors = {k: lib.from_numpy(v) for k, v in arrays.items()}
    tensors["xg"] = lib.from_numpy(arrays["x"]).requires_grad_()
    tensors["wg"] = lib.from_numpy(arrays["w"]).requires_grad_()
    tensors["bg"] = lib.from_numpy(arrays["b"]).requires_grad_()
    return tensors


CASES = [
    Case("layer_norm 8192x1024 float32, weight and bias", M * N * 4,
         "lib.nn.functional.layer_norm(x, (1024,), w, b)"),
    Case("layer_norm forward + backward 8192x1024 float32", M * N * 4,
         "lib.nn.functional.layer_norm(xg, (1024,), wg, bg).sum().backward()"),
]
