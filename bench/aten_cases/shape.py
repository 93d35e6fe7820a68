"""Shape operators (issue #33): cat of 8 x 2M and permute(...).contiguous() of 64x256x1024 (the
issue's rows, and a clone of the same tensor and a float16 permute beside them), with stack,
flip, roll, repeat_interleave and pixel_shuffle / pixel_unshuffle of the same sizes; float32
but for that one, all memory-bound copies (against STREAM's copy: bytes read plus written);
and randperm of 1M (its bytes written; no STREAM reference: a shuffle is bound by random
accesses)."""
from aten_cases import Case

M = 2 * 1024 * 1024
P = (64, 256, 1024)
N = 64 * 256 * 1024
IMAGES = (16, 64, 128, 128)  # N elements: 16 images of 64 channels, 128 x 128


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {f"c{i}": rng.random(M, dtype=np.float32) for i in range(8)}
    arrays["p"] = rng.random(P, dtype=np.float32)
    arrays["f"] = rng.random((4096, 4096), dtype=np.float32)
    arrays["img"] = rng.random(IMAGES, dtype=np.float32)
    arrays["h"] = arrays["p"].astype(np.float16)
    if lib is None:
        env = dict(arrays)
    else:
        env = {k: lib.from_numpy(v) for k, v in arrays.items()}
    env["parts"] = [env[f"c{i}"] for i in range(8)]
    env["r"] = env["f"][:1024]
    return env


CASES = [
    Case("cat 8 x 2M float32", 2 * 8 * M * 4, "lib.cat(parts)", "np.concatenate(parts)", stream="copy"),
    Case("stack 8 x 2M float32", 2 * 8 * M * 4, "lib.stack(parts)", "np.stack(parts)", stream="copy"),
    Case("clone 64x256x1024 float32", 2 * N * 4, "p.clone()", "p.copy()", stream="copy"),
    Case("permute(0, 2, 1).contiguous() 64x256x1024 float32", 2 * N * 4, "p.permute(0, 2, 1).contiguous()",
         "np.ascontiguousarray(p.transpose(0, 2, 1))", stream="copy"),
    Case("permute(2, 0, 1).contiguous() 64x256x1024 float32", 2 * N * 4, "p.permute(2, 0, 1).contiguous()",
         "np.ascontiguousarray(p.transpose(2, 0, 1))", stream="copy"),
    Case("permute(0, 2, 1).contiguous() 64x256x1024 float16", 2 * N * 2, "h.permute(0, 2, 1).contiguous()",
         "np.ascontiguousarray(h.transpose(0, 2, 1))", stream="copy"),
    Case("flip dim 0 4096^2 float32", 2 * 4096 * 4096 * 4, "lib.flip(f, [0])", "np.flip(f, 0).copy()", stream="copy"),
    Case("flip dim 1 4096^2 float32", 2 * 4096 * 4096 * 4, "lib.flip(f, [1])", "np.flip(f, 1).copy()", stream="copy"),
    Case("roll 1 dim 1 4096^2 float32", 2 * 4096 * 4096 * 4, "lib.roll(f, 1, 1)", "np.roll(f, 1, 1)", stream="copy"),
    Case("repeat_interleave 2 dim 0 1024x4096 float32", 3 * 1024 * 4096 * 4, "lib.repeat_interleave(r, 2, 0)",
         "np.repeat(r, 2, axis=0)", stream="copy"),
    Case("pixel_shuffle 2 of 16x64x128x128 float32", 2 * N * 4, "lib.pixel_shuffle(img, 2)",
         "img.reshape(16, 16, 2, 2, 128, 128).transpose(0, 1, 4, 2, 5, 3).reshape(16, 16, 256, 256)", stream="copy"),
    Case("pixel_unshuffle 2 of 16x64x128x128 float32", 2 * N * 4, "lib.pixel_unshuffle(img, 2)",
         "img.reshape(16, 64, 64, 2, 64, 2).transpose(0, 1, 3, 5, 2, 4).reshape(16, 256, 64, 64)", stream="copy"),
    Case("randperm 1M int64", 8 * 1024 * 1024, "lib.randperm(1024 * 1024)", "np.random.permutation(1024 * 1024)"),
]
