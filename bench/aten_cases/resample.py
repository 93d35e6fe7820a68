"""Reflection and replication padding (issue #34): F.pad "reflect" and "replicate" of
8x64x56x56 float32 by 3 on every side (GB/s of the 8x64x62x62 output written), and the
reflection padding's forward + backward (the input's gradient), against torch 1.13."""
from aten_cases import Case

N, C, HW, P = 8, 64, 56, 3
OUT = N * C * (HW + 2 * P) * (HW + 2 * P) * 4


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"x": rng.standard_normal((N, C, HW, HW), dtype=np.float32),
              "g": rng.standard_normal((N, C, HW + 2 * P, HW + 2 * P), dtype=np.float32)}
    if lib is None:
        return arrays
    tensors = {k: lib.from_numpy(v) for k, v in arrays.items()}
    tensors["xg"] = lib.from_numpy(arrays["x"]).requires_grad_()
    return tensors


CASES = [
    Case("pad reflect 3 of 8x64x56x56 float32", OUT, "lib.nn.functional.pad(x, (3, 3, 3, 3), 'reflect')"),
    Case("pad replicate 3 of 8x64x56x56 float32", OUT, "lib.nn.functional.pad(x, (3, 3, 3, 3), 'replicate')"),
    Case("pad reflect forward + backward", 2 * OUT, "lib.nn.functional.pad(xg, (3, 3, 3, 3), 'reflect').backward(g)"),
]
