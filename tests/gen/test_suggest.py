"""Did-you-mean suggestions (gen/model/suggest.py, Note [Suggestions]): the edit distance, the
choice among close names, and the work for hundreds of mistakes against thousands of names,
bounded by counting the edit distances computed (not by timing)."""
from __future__ import annotations

import itertools
import random

import pytest

from gen.model.suggest import LazyNameIndex, NameIndex, edit_distance


@pytest.mark.parametrize("a,b,bound,distance", [
    ("dispatch", "dispatch", 2, 0),
    ("dispach", "dispatch", 2, 1),      # insertion
    ("dispatchh", "dispatch", 2, 1),    # deletion
    ("dispatcj", "dispatch", 2, 1),     # substitution
    ("dsipatch", "dispatch", 2, 1),     # neighbours swapped
    ("dsipacth", "dispatch", 2, 2),
    ("xyz", "dispatch", 2, 3),          # above the bound: bound + 1
    ("", "ab", 3, 2),
])
def test_edit_distance(a: str, b: str, bound: int, distance: int) -> None:
    assert edit_distance(a, b, bound) == distance
    assert edit_distance(b, a, bound) == distance


@pytest.mark.parametrize("word,match", [
    ("ad", "add"),
    ("addd", "add"),
    ("ADD_OUT", "add_out"),             # case is ignored; the name comes back as spelled
    ("batch_nrom", "batch_norm"),
    ("batchnorm", "batch_norm"),
    ("convolutoin_backward", "convolution_backward"),
    ("max_pool2d_with_indicies", "max_pool2d_with_indices"),
    ("xla", None),                      # nothing close: no guess
    ("completely_unrelated_words", None),
])
def test_close_match(word: str, match) -> None:
    names = ["add", "add_out", "addmm", "batch_norm", "convolution", "convolution_backward",
             "max_pool2d", "max_pool2d_with_indices", "mul", "sub"]
    assert NameIndex(names).close_match(word) == match


def test_ties_go_to_the_name_sharing_more_pairs_then_the_first() -> None:
    assert NameIndex(["mul", "sum"]).close_match("mum") == "mul"   # one substitution each: the first
    assert NameIndex(["cat", "cot", "act"]).close_match("cta") == "cat"


def test_the_lazy_index_is_built_on_the_first_lookup_only() -> None:
    built = []
    lazy = LazyNameIndex(lambda: built.append(1) or ["relu", "tanh"])
    assert built == []
    assert lazy.close_match("rlu") == "relu" and lazy.close_match("tahn") == "tanh"
    assert built == [1]


def _operator_like_names() -> list[str]:
    """2,500 names shaped like PyTorch's: stems, variants and suffixes that overlap a lot."""
    stems = ["add", "sub", "mul", "div", "conv", "batch_norm", "layer_norm", "max_pool", "avg_pool",
             "embedding", "softmax", "log_softmax", "index", "scatter", "gather", "linalg_solve",
             "linalg_qr", "fft_rfft", "upsample_nearest", "upsample_bilinear", "cross_entropy", "nll_loss",
             "mse_loss", "sum", "mean", "var", "std", "norm", "topk", "sort", "cumsum", "cumprod", "clamp",
             "where", "masked_fill", "index_put", "slice", "select", "narrow", "expand", "reshape",
             "transpose", "permute", "grid_sampler", "roi_align", "nonzero", "unique", "histc", "bincount",
             "quantize_per_tensor"]
    variants = ["", "1d", "2d", "3d", "_"]
    suffixes = ["", "_out", "_backward", "_forward", "_grad_input", "_scalar", "_tensor", "_like",
                "_copy", "_mode"]
    names = [f"{s}{v}{x}" for s, v, x in itertools.product(stems, variants, suffixes)]
    assert len(names) == 2500
    return names


def _misspell(name: str, rng: random.Random) -> str:
    """One edit: a letter replaced, dropped or added, or two neighbours swapped."""
    i = rng.randrange(len(name) - 1)
    kind = rng.randrange(4)
    if kind == 0:
        return name[:i] + "q" + name[i + 1:]
    if kind == 1:
        return name[:i] + name[i + 1:]
    if kind == 2:
        return name[:i] + "z" + name[i:]
    return name[:i] + name[i + 1] + name[i] + name[i + 2:]


def test_five_hundred_mistakes_against_two_thousand_five_hundred_names() -> None:
    names = _operator_like_names()
    rng = random.Random(20261126)
    mistakes = [_misspell(rng.choice(names), rng) for _ in range(500)]
    mistakes = [m for m in mistakes if m.lower() not in set(names)]  # an edit can land on another name
    index = NameIndex(names)
    for m in mistakes:
        match = index.close_match(m)
        assert match is not None, m
        assert edit_distance(m, match, 1) <= 1, (m, match)  # as close as the name it came from
    # A scan would compute 2,500 distances per mistake (1.25 million); the index computes a few.
    assert index.comparisons <= 4 * len(mistakes), index.comparisons
