"""Shape functions PyTorch defines in Python (torch/functional.py), issue #33: broadcast_shapes,
broadcast_tensors, meshgrid and einsum (through permute, reshape and bmm, as PyTorch's
reduces einsum to bmm). Each follows torch's signature and errors."""
from __future__ import annotations

import math


def broadcast_shapes(*shapes):
    """broadcast_shapes(*shapes) -> tuple: the shape tensors of these shapes broadcast to."""
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        for i, size in enumerate(shape):
            k = ndim - len(shape) + i
            if size < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {list(shape)}")
            if out[k] == 1:
                out[k] = size
            elif size != 1 and size != out[k]:
                raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                                   f"between arg 0 and arg {shapes.index(shape)}: {out[k]} and {size}")
    return tuple(out)


def broadcast_tensors(*tensors):
    """broadcast_tensors(*tensors) -> tuple of views of the tensors expanded to one shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t.expand(*shape) for t in tensors)


def meshgrid(*tensors, indexing=None):
    """meshgrid(*tensors, indexing='ij') -> tuple: each 1-D (or 0-dim) tensor expanded along its
    own dimension of the grid; indexing='xy' swaps the first two dimensions (numpy's order)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    indexing = "ij" if indexing is None else indexing
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    if not tensors:
        raise RuntimeError("torch.meshgrid: Expected at least one tensor")
    for i, t in enumerate(tensors):
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.dim()}D "
                               f"tensor at position {i}")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to have the same dtype")
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = [t.numel() for t in order]
    grids = []
    for k, t in enumerate(order):
        view = [1] * len(order)
        view[k] = -1
        grids.append(t.reshape(view).expand(shape))
    if swap:  # the grids were made in the swapped order: give them back in the tensors' order
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _parse(equation, operands):
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != len(operands):
        raise RuntimeError(f"einsum(): {len(inputs)} operands were specified in the equation but "
                           f"{len(operands)} were given")
    if "." in equation:
        raise NotImplementedError("einsum(): ellipsis ('...') is not supported by opcore's einsum yet")
    for term, t in zip(inputs, operands):
        if len(term) != t.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(term)}) does not match "
                               f"the number of dimensions ({t.dim()}) for operand {inputs.index(term)}")
        if len(set(term)) != len(term):
            raise NotImplementedError("einsum(): a subscript repeated within one operand (a diagonal) is not "
                                      "supported by opcore's einsum yet")
    if not arrow:  # implicit output: the subscripts seen once, in alphabetical order
        letters = "".join(inputs)
        rhs = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return inputs, rhs


def _sum_out(term, t, keep):
    """t without the subscripts of `term` outside `keep` (summed over)."""
    drop = [i for i, c in enumerate(term) if c not in keep]
    if drop:
        t = t.sum(drop)
        term = "".join(c for c in term if c in keep)
    return term, t


def einsum(equation, *operands):
    """einsum(equation, *operands): one or two operands, as torch.einsum, computed with permute,
    reshape and bmm (no ellipsis, no repeated subscript within an operand)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    inputs, out = _parse(equation, operands)
    if len(operands) == 1:
        term, t = _sum_out(inputs[0], operands[0], out)
        return t.permute([term.index(c) for c in out]) if out else t.sum()
    if len(operands) != 2:
        raise NotImplementedError("einsum(): opcore's einsum takes one or two operands")
    (ta, a), (tb, b) = _sum_out(inputs[0], operands[0], out + inputs[1]), _sum_out(inputs[1], operands[1],
                                                                                  out + inputs[0])
    size = {c: a.shape[i] for i, c in enumerate(ta)}
    for i, c in enumerate(tb):
        if c in size and size[c] != b.shape[i] and 1 not in (size[c], b.shape[i]):
            raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes (original->remapped): "
                               f"{list(a.shape)}->{list(b.shape)}")
        size[c] = max(size.get(c, 1), b.shape[i])
    batch = [c for c in ta if c in tb and c in out]
    contracted = [c for c in ta if c in tb and c not in out]
    left = [c for c in ta if c not in tb]
    right = [c for c in tb if c not in ta]
    n = lambda cs: math.prod(size[c] for c in cs)  # noqa: E731
    a3 = a.permute([ta.index(c) for c in batch + left + contracted]).expand(
        [size[c] for c in batch + left + contracted]).reshape(n(batch), n(left), n(contracted))
    b3 = b.permute([tb.index(c) for c in batch + contracted + right]).expand(
        [size[c] for c in batch + contracted + right]).reshape(n(batch), n(contracted), n(right))
    product = a3.bmm(b3).reshape([size[c] for c in batch + left + right])
    have = batch + left + right
    return product.permute([have.index(c) for c in out]) if out else product.reshape(())
