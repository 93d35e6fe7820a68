"""Normalization (issue #34): layer_norm of 8192 rows of 1024 float32 features (weight and
bias), forward and forward + backward (a gradient for the input, weight and bias), and
batch_norm in training (N=32, C=64, 56x56 float32, running statistics updated), forward and
forward + backward, against torch 1.13. Work is the bytes of the input read once (32 MiB and
24.5 MiB). The backward's gradient is the sum of the output, whose own gradient (ones)
autograd makes, in both libraries."""
from aten_cases import Case

M, N = 8192, 1024
B, C, HW = 32, 64, 56


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"x": rng.standard_normal((M, N), dtype=np.float32), "w": rng.standard_normal(N, dtype=np.float32),
              "b": rng.standard_normal(N, dtype=np.float32),
              "img": rng.standard_normal((B, C, HW, HW), dtype=np.float32), "cw": rng.standard_normal(C, dtype=np.float32),
              "cb": rng.standard_normal(C, dtype=np.float32), "rm": np.zeros(C, dtype=np.float32),
              "rv": np.ones(C, dtype=np.float32)}
    if lib is None:
        return arrays
    tensors = {k: lib.from_numpy(v) for k, v in arrays.items()}
    tensors["xg"] = lib.from_numpy(arrays["x"]).requires_grad_()
    tensors["wg"] = lib.from_numpy(arrays["w"]).requires_grad_()
    tensors["bg"] = lib.from_numpy(arrays["b"]).requires_grad_()
    tensors["imgg"] = lib.from_numpy(arrays["img"]).requires_grad_()
    tensors["cwg"] = lib.from_numpy(arrays["cw"]).requires_grad_()
    tensors["cbg"] = lib.from_numpy(arrays["cb"]).requires_grad_()
    return tensors


CASES = [
    Case("layer_norm 8192x1024 float32, weight and bias", M * N * 4,
         "lib.nn.functional.layer_norm(x, (1024,), w, b)"),
    Case("layer_norm forward + backward 8192x1024 float32", M * N * 4,
         "lib.nn.functional.layer_norm(xg, (1024,), wg, bg).sum().backward()"),
    Case("batch_norm training 32x64x56x56 float32", B * C * HW * HW * 4,
         "lib.nn.functional.batch_norm(img, rm, rv, cw, cb, training=True)"),
    Case("batch_norm training forward + backward 32x64x56x56 float32", B * C * HW * HW * 4,
         "lib.nn.functional.batch_norm(imgg, rm, rv, cwg, cbg, training=True).sum().backward()"),
]
