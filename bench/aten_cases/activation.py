"""Activation functions (issue #34): gelu (both approximations), silu and leaky_relu of 16M
float32 elements, forward, and gelu's backward. `work` counts the bytes each call reads and
writes (4 per float32 element read or written). gelu and silu are compute-bound (erf, tanh or
exp per element); leaky_relu is memory-bound, against STREAM's copy (one array read, one
written)."""
from aten_cases import Case

N = 16 * 1024 * 1024


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"a": rng.random(N, dtype=np.float32) * 8 - 4, "g": rng.random(N, dtype=np.float32)}
    return arrays if lib is None else {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [
    Case("gelu float32 16M", 8 * N, "lib.nn.functional.gelu(a)"),
    Case("gelu tanh float32 16M", 8 * N, "lib.nn.functional.gelu(a, approximate='tanh')"),
    Case("silu float32 16M", 8 * N, "lib.nn.functional.silu(a)"),
    Case("leaky_relu float32 16M", 8 * N, "lib.nn.functional.leaky_relu(a)", stream="copy"),
    Case("gelu_backward float32 16M", 12 * N, "lib._C._nn.gelu_backward(g, a)",
         torch_stmt="lib.ops.aten.gelu_backward(g, a)"),
]
