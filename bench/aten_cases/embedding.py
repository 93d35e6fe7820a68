"""Embedding and dropout (issue #34): embedding's backward (the issue's row) for 4096 tokens of
a 32000 x 512 float32 table (GB/s of the [32000, 512] gradient written and the [4096, 512]
gradient read), the lookup itself (GB/s of the rows read), and dropout(p=0.1) in training of
16M float32 (GB/s read and written) against torch 1.13."""
from aten_cases import Case

VOCAB, DIM, TOKENS, ELEMS = 32000, 512, 4096, 1 << 24


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"table": rng.standard_normal((VOCAB, DIM), dtype=np.float32),
              "idx": rng.integers(0, VOCAB, TOKENS), "grad": rng.standard_normal((TOKENS, DIM), dtype=np.float32),
              "x": rng.standard_normal(ELEMS, dtype=np.float32)}
    if lib is None:
        return arrays
    return {k: lib.from_numpy(v) for k, v in arrays.items()}


CASES = [
    Case("embedding_dense_backward 4096 tokens of 32000x512 float32", (VOCAB + TOKENS) * DIM * 4,
         "lib.ops.aten.embedding_dense_backward(grad, idx, 32000, -1, False)"),
    Case("embedding 4096 tokens of 32000x512 float32", 2 * TOKENS * DIM * 4, "lib.nn.functional.embedding(idx, table)"),
    Case("dropout p=0.1, 16M float32, training", 2 * ELEMS * 4 + ELEMS, "lib.nn.functional.dropout(x, 0.1)"),
]
