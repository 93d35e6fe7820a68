from aten_cases import Case

N = 16 * 1024 * 1024


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"c": rng.random(N) < 0.5, "a": rng.random(N, dtype=np.float32), "b": rng.random(N, dtype=np.float32)}
    return arrays if lib is None else {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [Case("where float32 16M", 9 * N, "lib.where(c, a, b)", "np.where(c, a, b)", stream="add")]
