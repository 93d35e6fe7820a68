"""The softmax family (issue #34): softmax and log_softmax of a 4096x4096 float32 matrix along
its rows (dim -1: each softmax a contiguous row of 4096) and its columns (dim 0: elements 4096
apart), against torch 1.13. Work is the bytes read and written once (one read of the input,
one write of the result), with STREAM copy for scale; numpy has no softmax."""
from aten_cases import Case

S = 4096


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"x": rng.standard_normal((S, S), dtype=np.float32)}
    return arrays if lib is None else {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [
    Case("softmax dim=-1 float32 4096x4096", 8 * S * S, "lib.softmax(x, -1)", stream="copy"),
    Case("log_softmax dim=-1 float32 4096x4096", 8 * S * S, "lib.log_softmax(x, -1)", stream="copy"),
    Case("softmax dim=0 float32 4096x4096", 8 * S * S, "lib.softmax(x, 0)", stream="copy"),
    Case("log_softmax dim=0 float32 4096x4096", 8 * S * S, "lib.log_softmax(x, 0)", stream="copy"),
]
