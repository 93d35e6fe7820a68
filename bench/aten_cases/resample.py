"""Reflection and replication padding and upsampling (issue #34): F.pad "reflect" and
"replicate" of 8x64x56x56 float32 by 3 on every side (GB/s of the 8x64x62x62 output written),
the reflection padding's forward + backward (the input's gradient), the 3-d reflection padding
of 4x32x16x28x28 float32 by 2 on every side (GB/s of its output), and F.interpolate of the
same input to twice its size, "nearest" and "bilinear" (GB/s of the 8x64x112x112 output), and
F.grid_sample of the same input at a 56x56 grid of random points, bilinear with zeros padding,
alone and with the backward (GB/s of the output), against torch 1.13."""
from aten_cases import Case

N, C, HW, P = 8, 64, 56, 3
OUT = N * C * (HW + 2 * P) * (HW + 2 * P) * 4
UP = N * C * (2 * HW) * (2 * HW) * 4
VOLUME = (4, 32, 16, 28, 28)
OUT3 = 4 * 32 * 20 * 32 * 32 * 4


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"x": rng.standard_normal((N, C, HW, HW), dtype=np.float32),
              "g": rng.standard_normal((N, C, HW + 2 * P, HW + 2 * P), dtype=np.float32),
              "gu": rng.standard_normal((N, C, 2 * HW, 2 * HW), dtype=np.float32),
              "v": rng.standard_normal(VOLUME, dtype=np.float32),
              "grid": rng.uniform(-1, 1, (N, HW, HW, 2)).astype(np.float32),
              "gs": rng.standard_normal((N, C, HW, HW), dtype=np.float32)}
    if lib is None:
        return arrays
    tensors = {k: lib.from_numpy(v) for k, v in arrays.items()}
    tensors["xg"] = lib.from_numpy(arrays["x"]).requires_grad_()
    tensors["gridg"] = lib.from_numpy(arrays["grid"]).requires_grad_()
    return tensors


CASES = [
    Case("pad reflect 3 of 8x64x56x56 float32", OUT, "lib.nn.functional.pad(x, (3, 3, 3, 3), 'reflect')"),
    Case("pad replicate 3 of 8x64x56x56 float32", OUT, "lib.nn.functional.pad(x, (3, 3, 3, 3), 'replicate')"),
    Case("pad reflect forward + backward", 2 * OUT, "lib.nn.functional.pad(xg, (3, 3, 3, 3), 'reflect').backward(g)"),
    Case("pad reflect 2 of 4x32x16x28x28 float32 (3-d)", OUT3, "lib.nn.functional.pad(v, (2,) * 6, 'reflect')"),
    Case("interpolate nearest x2 of 8x64x56x56 float32", UP, "lib.nn.functional.interpolate(x, scale_factor=2)"),
    Case("interpolate bilinear x2 of 8x64x56x56 float32", UP,
         "lib.nn.functional.interpolate(x, scale_factor=2, mode='bilinear')"),
    Case("interpolate bilinear forward + backward", 2 * UP,
         "lib.nn.functional.interpolate(xg, scale_factor=2, mode='bilinear').backward(gu)"),
    Case("grid_sample bilinear of 8x64x56x56 float32", N * C * HW * HW * 4,
         "lib.nn.functional.grid_sample(x, grid, align_corners=False)"),
    Case("grid_sample forward + backward", 2 * N * C * HW * HW * 4,
         "lib.nn.functional.grid_sample(xg, gridg, align_corners=False).backward(gs)"),
]
