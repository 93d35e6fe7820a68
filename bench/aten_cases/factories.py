"""Factories that take their shape, dtype and device from a tensor (issue #35's `*_like` and
`new_*` operators): zeros_like, ones_like, full_like, new_zeros and rand_like / randn_like of
16M float32, bytes written. Each call allocates its 64 MiB result, so these rows also compare
what allocating costs (opcore's CPU allocator keeps freed blocks, torch's returns them to
malloc); numpy's zeros_like and full_like write their results, as opcore and torch do."""
from aten_cases import Case

N = 16 * 1024 * 1024


def setup(lib, np):
    arrays = {"x": np.zeros(N, dtype=np.float32)}
    if lib is None:
        return {"rng": np.random.default_rng(0), **arrays}
    return {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [
    Case("zeros_like float32 16M", 4 * N, "lib.zeros_like(x)", "np.zeros_like(x)"),
    Case("ones_like float32 16M", 4 * N, "lib.ones_like(x)", "np.ones_like(x)"),
    Case("full_like(x, 2.5) float32 16M", 4 * N, "lib.full_like(x, 2.5)", "np.full_like(x, 2.5)"),
    Case("x.new_zeros(16M) float32", 4 * N, "x.new_zeros(16 * 1024 * 1024)"),
    Case("rand_like float32 16M", 4 * N, "lib.rand_like(x)", "rng.random(16 * 1024 * 1024, dtype=np.float32)"),
    Case("randn_like float32 16M", 4 * N, "lib.randn_like(x)",
         "rng.standard_normal(16 * 1024 * 1024, dtype=np.float32)"),
]
