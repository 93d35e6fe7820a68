"""The Meta backend: every operator has a Meta kernel (structured ones through their meta
function), except those whose result shape depends on the data, and on the operator table's
samples it gives the shape and dtype the CPU kernel gives."""
import pytest

import opcore
from opinfo import ROWS
from test_opinfo import samples_of

# Operators without a Meta kernel, and why.
NO_META = {
    "aten::_local_scalar_dense": "returns the value of the data",
    "aten::_unique2": "the number of distinct values depends on the data",
    "aten::unique_dim": "the number of distinct slices depends on the data",
    "aten::masked_select": "the number of selected elements depends on the mask's values",
    "aten::masked_select.out": "the number of selected elements depends on the mask's values",
    "aten::nonzero": "the number of nonzero elements depends on the data",
    "aten::nonzero.out": "the number of nonzero elements depends on the data",
    "aten::repeat_interleave.Tensor": "the result's length is the sum of the repeats' values",
}


def test_every_operator_has_a_meta_kernel_or_a_reason():
    C = opcore._C
    missing = sorted(name for name in C._dispatch_get_all_op_names()
                     if name.startswith("aten::") and name not in NO_META
                     and not C._dispatch_has_computed_kernel_for_dispatch_key(name, "Meta"))
    assert missing == [], "operators with no Meta kernel (write one, or add the reason to NO_META)"
    stale = sorted(name for name in NO_META if C._dispatch_has_computed_kernel_for_dispatch_key(name, "Meta"))
    assert stale == [], "NO_META names operators that have a Meta kernel now"


def _to_meta(value):
    """Tensors as Meta tensors of the same geometry."""
    if isinstance(value, opcore.Tensor):
        return opcore.empty_strided(value.shape, value.stride(), dtype=value.dtype, device="meta")
    if isinstance(value, (list, tuple)):
        return type(value)(_to_meta(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_meta(v) for k, v in value.items()}
    return value


def _shapes(result):
    if isinstance(result, opcore.Tensor):
        return (tuple(result.shape), result.dtype)
    if isinstance(result, (list, tuple)):
        return [_shapes(r) for r in result]
    return None


def _meta_rows():
    return [pytest.param(row, id=row.name) for row in ROWS if not row.mutates]


@pytest.mark.parametrize("row", _meta_rows())
def test_meta_gives_the_cpu_shapes_and_dtypes(row):
    """Each sample's functional call on Meta tensors (same sizes, strides and dtypes) gives the
    CPU result's shapes and dtypes. A sample the CPU kernel refuses is not run (a Meta kernel
    checks what it can without data), nor one whose operator, or an operator it is composed of,
    is in NO_META, nor one that reads a tensor argument's value (narrow.Tensor's start, a Bool
    mask of index.Tensor), which a Meta tensor does not have."""
    dtype = row.dtypes[-1]
    failures = []
    for sample in samples_of(row, dtype):
        if sample.error:
            continue
        expected = _shapes(row.op(*sample.args, **sample.kwargs))
        try:
            got = _shapes(row.op(*_to_meta(list(sample.args)), **_to_meta(sample.kwargs)))
        except (NotImplementedError, RuntimeError) as e:
            data_dependent = "is on meta; copy it to the CPU" in str(e) or "which a Meta tensor does not have" in str(e)
            if not any(f"'{name}'" in str(e) for name in NO_META) and not data_dependent:
                failures.append(f"{sample.desc}: {e}")
            continue
        if got != expected:
            failures.append(f"{sample.desc}: meta {got} vs cpu {expected}")
    assert not failures, "\n".join(failures)


def test_index_on_meta_takes_integer_indices_and_refuses_masks():
    x = opcore.empty(3, 4, 5, device="meta")
    i = opcore.empty(2, 6, dtype=opcore.int64, device="meta")
    assert x[i].shape == (2, 6, 4, 5)
    assert x[:, i].shape == (3, 2, 6, 5)
    assert x[i, :, i].shape == (2, 6, 4), "non-adjacent indices: their shape first"
    assert opcore.ops.aten.index.Tensor(x, [None, None, i]).shape == (3, 4, 2, 6)
    with pytest.raises(NotImplementedError, match="depends on the mask's values"):
        x[opcore.empty(3, dtype=opcore.bool, device="meta")]
    with pytest.raises(RuntimeError, match="could not be broadcast"):
        x[i, opcore.empty(5, dtype=opcore.int64, device="meta")]
    assert x[opcore.tensor([0, 2])].shape == (2, 4, 5), "CPU indices of a Meta tensor, as torch"
    with pytest.raises(RuntimeError, match=r"indices should be either on cpu or on the same device"):
        opcore.zeros(3, 4)[i]
