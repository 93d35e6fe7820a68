"""Convolution and pooling (issue #34): conv2d on a ResNet-like 3x3 layer (N=8, 64 -> 64
channels, 56x56, padding 1; GFLOP/s of its 2 * N * 64 * 56 * 56 * 64 * 9 multiply-adds, and
three times that for forward + backward, whose input and weight gradients are each one such
product); max_pool2d 2x2, avg_pool2d 2x2 and 3x3 / stride 2 / padding 1 and
adaptive_avg_pool2d to 7x7 of 8x64x112x112 float32 (GB/s of the input read); avg_pool3d and
max_pool3d 2x2x2 and adaptive_avg_pool3d to 4x7x7 of 4x32x16x56x56 float32 (likewise); unfold / fold 3x3
of the 8x64x56x56 input (GB/s of the nine-times-larger columns written or read); against torch
1.13 (which convolves through oneDNN)."""
from aten_cases import Case

N, C, HW = 8, 64, 56
FLOPS = 2 * N * C * HW * HW * C * 9
VOLUME = (4, 32, 16, 56, 56)  # 3-d pooling (issue #34): 4x32x16x56x56 float32, 51 MB
VOLUME_BYTES = 4 * 32 * 16 * 56 * 56 * 4


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"x": rng.standard_normal((N, C, HW, HW), dtype=np.float32),
              "w": rng.standard_normal((C, C, 3, 3), dtype=np.float32) * 0.05,
              "g": rng.standard_normal((N, C, HW, HW), dtype=np.float32),
              "img": rng.standard_normal((N, C, 2 * HW, 2 * HW), dtype=np.float32)}
    if lib is None:
        return arrays
    tensors = {k: lib.from_numpy(v) for k, v in arrays.items()}
    tensors["xg"] = lib.from_numpy(arrays["x"]).requires_grad_()
    tensors["wg"] = lib.from_numpy(arrays["w"]).requires_grad_()
    tensors["cols"] = lib.nn.functional.unfold(tensors["x"], 3, padding=1)
    # 3-d pooling (issue #34): a [N, C, D, H, W] volume
    tensors["vol"] = lib.from_numpy(rng.standard_normal(VOLUME, dtype=np.float32))
    return tensors


CASES = [
    Case("conv2d 8x64x56x56, 64 -> 64, 3x3, forward", FLOPS, "lib.conv2d(x, w, None, 1, 1)", unit="GFLOP/s"),
    Case("conv2d forward + backward (input and weight)", 3 * FLOPS, "lib.conv2d(xg, wg, None, 1, 1).backward(g)",
         unit="GFLOP/s"),
    Case("max_pool2d 2x2 of 8x64x112x112 float32", N * C * 4 * HW * HW * 4, "lib.nn.functional.max_pool2d(img, 2)"),
    Case("unfold 3x3, padding 1, of 8x64x56x56 float32", N * C * 9 * HW * HW * 4,
         "lib.nn.functional.unfold(x, 3, padding=1)"),
    Case("fold 3x3, padding 1, into 8x64x56x56 float32", N * C * 9 * HW * HW * 4,
         "lib.nn.functional.fold(cols, 56, 3, padding=1)"),
    # average pooling (issue #34): GB/s of the input read
    Case("avg_pool2d 2x2 of 8x64x112x112 float32", N * C * 4 * HW * HW * 4, "lib.nn.functional.avg_pool2d(img, 2)"),
    Case("avg_pool2d 3x3, stride 2, padding 1 of 8x64x112x112 float32", N * C * 4 * HW * HW * 4,
         "lib.nn.functional.avg_pool2d(img, 3, 2, 1)"),
    Case("adaptive_avg_pool2d 112x112 -> 7x7 of 8x64x112x112 float32", N * C * 4 * HW * HW * 4,
         "lib.nn.functional.adaptive_avg_pool2d(img, 7)"),
    # 3-d pooling (issue #34): GB/s of the input read
    Case("avg_pool3d 2x2x2 of 4x32x16x56x56 float32", VOLUME_BYTES, "lib.nn.functional.avg_pool3d(vol, 2)"),
    Case("adaptive_avg_pool3d 16x56x56 -> 4x7x7 of 4x32x16x56x56 float32", VOLUME_BYTES,
         "lib.nn.functional.adaptive_avg_pool3d(vol, (4, 7, 7))"),
    Case("max_pool3d 2x2x2 of 4x32x16x56x56 float32", VOLUME_BYTES, "lib.nn.functional.max_pool3d(vol, 2)"),
]
