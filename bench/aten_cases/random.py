"""Random operators: rand, randn, randint and bernoulli_ of 16M elements (bytes written) and
multinomial of 1000 rows of 1000 weights (bytes of weights read), with and without replacement.
opcore computes Philox blocks (Note [Philox generator]), torch and numpy their own generators,
so these rows compare generators as much as kernels; all compute-bound, no STREAM reference."""
from aten_cases import Case

N = 16 * 1024 * 1024
ROWS, CATEGORIES, SAMPLES = 1000, 1000, 100


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"x": np.zeros(N, dtype=np.float32),
              "w": rng.random((ROWS, CATEGORIES), dtype=np.float32)}
    if lib is None:
        return {"rng": rng, **arrays}
    return {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [
    Case("rand float32 16M", 4 * N, "lib.rand(16 * 1024 * 1024)", "rng.random(16 * 1024 * 1024, dtype=np.float32)"),
    Case("randn float32 16M", 4 * N, "lib.randn(16 * 1024 * 1024)",
         "rng.standard_normal(16 * 1024 * 1024, dtype=np.float32)"),
    Case("randint 0..1000 int64 16M", 8 * N, "lib.randint(1000, (16 * 1024 * 1024,))",
         "rng.integers(0, 1000, 16 * 1024 * 1024)"),
    Case("bernoulli_(0.5) float32 16M", 4 * N, "x.bernoulli_(0.5)"),
    Case("multinomial 1000x1000, 100 with replacement", 4 * ROWS * CATEGORIES, "lib.multinomial(w, 100, True)"),
    Case("multinomial 1000x1000, 100 without replacement", 4 * ROWS * CATEGORIES, "lib.multinomial(w, 100)"),
]
