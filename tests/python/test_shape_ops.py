"""Shape and view operators of issue #33 beyond the operator table (opinfo.py): the pieces of
split, split_with_sizes, chunk and unbind (shapes as torch's, views of the input, gradients
through them), cat's dtype promotion and errors, and the view bookkeeping of permute and
as_strided."""
import pytest

import opcore

torch = pytest.importorskip("torch")


def _shapes(pieces):
    return [tuple(p.shape) for p in pieces]


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.split(x, 2, 1), lambda lib, x: lib.split(x, 5, -1), lambda lib, x: x.split([1, 3], 1),
    lambda lib, x: lib.chunk(x, 3, 1), lambda lib, x: lib.chunk(x, 5, 0), lambda lib, x: lib.unbind(x, 1),
    lambda lib, x: x.split_with_sizes([0, 2, 0, 2], 1), lambda lib, x: lib.chunk(x[:, :0], 3, 1),
])
def test_pieces_have_torch_shapes_and_are_views(call):
    x = opcore.arange(24.0).view(2, 4, 3)
    pieces = call(opcore, x)
    assert _shapes(pieces) == _shapes(call(torch, torch.arange(24.0).view(2, 4, 3)))
    for p in pieces:
        if p.numel():
            p.add_(100)
    assert (x >= 100).sum().item() == sum(p.numel() for p in pieces) or len(pieces) == 0


def test_gradient_flows_through_split_pieces():
    x = opcore.arange(6.0, dtype=opcore.float64).requires_grad_()
    a, b = opcore.split(x, 4)
    (a * 2).sum().add(b.sum() * 3).backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0, 2.0, 3.0, 3.0]


def test_cat_promotes_dtypes_as_torch():
    for a, b in ((opcore.int32, opcore.float16), (opcore.bool, opcore.int8), (opcore.float32, opcore.complex128)):
        r = opcore.cat([opcore.ones(2, dtype=a), opcore.ones(3, dtype=b)])
        t = torch.cat([torch.ones(2, dtype=getattr(torch, repr(a)[7:])), torch.ones(3, dtype=getattr(torch, repr(b)[7:]))])
        assert repr(r.dtype)[7:] == str(t.dtype)[6:]


def test_cat_refuses_an_output_that_is_an_input():
    a = opcore.ones(2, 3)
    with pytest.raises(RuntimeError, match="cannot refer to any of the output memory"):
        opcore.cat([a, a], out=a)
    with pytest.raises(RuntimeError, match="can't be cast"):
        opcore.cat([a, a], out=opcore.empty(0, dtype=opcore.int64))


def test_cat_errors_are_torchs():
    # An empty list has no tensor to dispatch on: the dispatcher says so (torch: "expected a
    # non-empty list of Tensors", from a kernel its dispatcher finds without a tensor).
    with pytest.raises(RuntimeError, match=r"non-empty list of Tensors|no kernel is registered"):
        opcore.cat([])
    with pytest.raises(IndexError, match=r"\[-2, 1\], but got 3"):
        opcore.cat([opcore.ones(2, 3)], 3)


def test_permute_and_as_strided_are_views_with_torch_strides():
    x = opcore.arange(24.0).view(2, 3, 4)
    assert x.permute(2, 0, 1).stride() == torch.arange(24.0).view(2, 3, 4).permute(2, 0, 1).stride()
    v = opcore.as_strided(x, (2, 2), (1, 4), 1)
    assert v.storage_offset() == 1 and v.tolist() == [[1.0, 5.0], [2.0, 6.0]]
    v.zero_() if hasattr(v, "zero_") else v.fill_(0)
    assert x.view(-1)[1].item() == 0.0


def test_movedim_and_diagonal_match_torch():
    x, t = opcore.arange(24.0).view(2, 3, 4), torch.arange(24.0).view(2, 3, 4)
    assert opcore.movedim(x, [0, 2], [2, 0]).tolist() == torch.movedim(t, [0, 2], [2, 0]).tolist()
    assert opcore.diagonal(x, -1, 2, 1).tolist() == torch.diagonal(t, -1, 2, 1).tolist()


@pytest.mark.parametrize("equation, shapes", [
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("bij,bjk->bki", [(2, 3, 4), (2, 4, 5)]),
    ("bij,bjk", [(2, 3, 4), (2, 4, 5)]), ("ij,jk->ik", [(3, 4), (4, 5)]), ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]), ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]), ("bij->ji", [(2, 3, 4)]),
    ("ij,kj->", [(3, 4), (5, 4)]), ("bij,bjk->bik", [(1, 3, 4), (2, 4, 5)]),
])
def test_einsum_matches_torch(equation, shapes):
    gen = torch.Generator().manual_seed(0)
    tensors = [torch.randn(s, generator=gen, dtype=torch.float64) for s in shapes]
    result = opcore.einsum(equation, *[opcore.from_numpy(t.numpy()) for t in tensors])
    expected = torch.einsum(equation, *tensors)
    assert tuple(result.shape) == tuple(expected.shape)
    assert torch.allclose(torch.from_numpy(result.numpy()), expected)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_matches_torch(indexing):
    ours = opcore.meshgrid(opcore.arange(3), opcore.arange(4), opcore.arange(2), indexing=indexing)
    theirs = torch.meshgrid(torch.arange(3), torch.arange(4), torch.arange(2), indexing=indexing)
    assert [t.tolist() for t in ours] == [t.tolist() for t in theirs]
    with pytest.raises(RuntimeError, match="0D or 1D"):
        opcore.meshgrid(opcore.ones(2, 2))


def test_broadcast_tensors_are_views_of_the_broadcast_shape():
    a, b = opcore.broadcast_tensors(opcore.ones(2, 1), opcore.arange(3.0))
    assert tuple(a.shape) == tuple(b.shape) == (2, 3) and b.stride() == (0, 1)
    assert opcore.broadcast_shapes((2, 1), (3,), 1) == torch.broadcast_shapes((2, 1), (3,), 1)
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        opcore.broadcast_shapes((2,), (3,))


def test_factories_match_torch():
    assert opcore.eye(2, 3).tolist() == torch.eye(2, 3).tolist()
    assert opcore.linspace(0, 1, 5).tolist() == torch.linspace(0, 1, 5).tolist()
    assert opcore.arange(1, 7, 2).tolist() == torch.arange(1, 7, 2).tolist()
    assert opcore.scalar_tensor(3).dtype == opcore.float32
    x = opcore.full_like(opcore.ones(2, 3), 7, dtype=opcore.int64, requires_grad=False)
    assert x.tolist() == [[7] * 3] * 2
    assert opcore.full_like(opcore.ones(2), 1.5, requires_grad=True).requires_grad
    y = opcore.arange(6.0).view(2, 3).t()
    z = opcore._to_copy(y, dtype=opcore.float64)
    assert z.dtype == opcore.float64 and z.stride() == y.stride() and z.tolist() == y.tolist()
    assert opcore._local_scalar_dense(opcore.tensor([2.5])) == 2.5
