"""Binary and ternary pointwise operators (issue #33): pow, clamp, where and maximum of 16M
float32 elements. `work` counts the bytes each call reads and writes (4 per float32 element
read or written, 1 per bool); every row is memory-bound but pow, whose reference is STREAM's
add (two arrays read, one written) all the same."""
from aten_cases import Case

N = 16 * 1024 * 1024


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"c": rng.random(N) < 0.5, "a": rng.random(N, dtype=np.float32), "b": rng.random(N, dtype=np.float32),
              "e": (rng.random(N, dtype=np.float32) * 4 - 2)}
    return arrays if lib is None else {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [
    Case("pow float32 16M (tensor exponent)", 12 * N, "lib.pow(a, e)", "np.power(a, e)", stream="add"),
    Case("clamp float32 16M", 8 * N, "lib.clamp(a, 0.25, 0.75)", "np.clip(a, 0.25, 0.75)", stream="copy"),
    Case("where float32 16M", 13 * N, "lib.where(c, a, b)", "np.where(c, a, b)", stream="add"),
    Case("maximum float32 16M", 12 * N, "lib.maximum(a, b)", "np.maximum(a, b)", stream="add"),
]
