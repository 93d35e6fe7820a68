"""Python-only composites of the reductions and sorts (issue #33), as PyTorch's are: torch.unique
is Python calling _unique2 or unique_dim."""
from opcore import _C


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of `input` (or slices along `dim`), sorted; with `return_inverse`
    the index of each element (slice) in them, with `return_counts` how often each occurs: a
    tensor, or a tuple of it and the ones asked for, as torch.unique."""
    if dim is None:
        output, inverse, counts = _C._unique2(input, sorted, return_inverse, return_counts)
    else:
        output, inverse, counts = _C.unique_dim(input, dim, sorted, return_inverse, return_counts)
    if not return_inverse and not return_counts:
        return output
    result = (output,)
    if return_inverse:
        result += (inverse,)
    if return_counts:
        result += (counts,)
    return result
