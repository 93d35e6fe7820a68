"""Embedding and dropout (issue #34): embedding's backward (the issue's row) for 4096 tokens of
a 32000 x 512 float32 table (GB/s of the [32000, 512] gradient written and the [4096, 512]
gradient read), the lookup itself (GB/s of the rows read), and dropout(p=0.1) in training of
16M float32 (GB/s read and written) against torch 1.13. Embedding bags (issue #34): sums and means
of 4096 indices in 512 bags of 8 of the same table (GB/s of the rows read and the bags written),
and the mean's forward + backward (GB/s of those and of the [32000, 512] gradient written)."""
from aten_cases import Case

VOCAB, DIM, TOKENS, ELEMS = 32000, 512, 4096, 1 << 24
BAGS = 512


def setup(lib, np):
    rng = np.random.default_rng(0)
    arrays = {"table": rng.standard_normal((VOCAB, DIM), dtype=np.float32),
              "idx": rng.integers(0, VOCAB, TOKENS), "grad": rng.standard_normal((TOKENS, DIM), dtype=np.float32),
              "x": rng.standard_normal(ELEMS, dtype=np.float32)}
    arrays["offsets"] = np.arange(0, TOKENS, TOKENS // BAGS)
    arrays["bag_grad"] = rng.standard_normal((BAGS, DIM), dtype=np.float32)
    if lib is None:
        return arrays
    tensors = {k: lib.from_numpy(v) for k, v in arrays.items()}
    tensors["table_grad"] = lib.from_numpy(arrays["table"].copy()).requires_grad_()
    return tensors


CASES = [
    Case("embedding_dense_backward 4096 tokens of 32000x512 float32", (VOCAB + TOKENS) * DIM * 4,
         "lib.ops.aten.embedding_dense_backward(grad, idx, 32000, -1, False)"),
    Case("embedding 4096 tokens of 32000x512 float32", 2 * TOKENS * DIM * 4, "lib.nn.functional.embedding(idx, table)"),
    Case("dropout p=0.1, 16M float32, training", 2 * ELEMS * 4 + ELEMS, "lib.nn.functional.dropout(x, 0.1)"),
    Case("embedding_bag sum, 4096 indices in 512 bags of 32000x512 float32", (TOKENS + BAGS) * DIM * 4,
         "lib.nn.functional.embedding_bag(idx, table, offsets, mode='sum')"),
    Case("embedding_bag mean, 4096 indices in 512 bags of 32000x512 float32", (TOKENS + BAGS) * DIM * 4,
         "lib.nn.functional.embedding_bag(idx, table, offsets, mode='mean')"),
    Case("embedding_bag mean, forward + backward", (2 * TOKENS + 2 * BAGS + VOCAB) * DIM * 4,
         "lib.nn.functional.embedding_bag(idx, table_grad, offsets, mode='mean').backward(bag_grad)"),
]
