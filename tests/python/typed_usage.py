"""Ordinary uses of opcore, type-checked with mypy against the generated stubs of opcore._C and
the stubs of opcore.nn.functional (tests/gen/test_python_stubs.py): everything must pass except
the line marked `# mypy: error`, which the stubs must reject. Also runs as a script on a built
opcore."""
from __future__ import annotations

from typing import Optional

import opcore
import opcore.nn.functional as F


def use() -> None:
    a = opcore.ones(2, 3, requires_grad=True)
    b = opcore.tensor([[1.0, 2.0, 3.0]])
    c: opcore.Tensor = opcore.add(a, b, alpha=2)
    d = a.add(b).mul(2.5).sub_(1)
    z = opcore.zeros(2, 3, dtype=opcore.float64)
    v = z.view(3, 2).view([6])
    shape: tuple[int, ...] = z.shape
    rows: int = z.size(0)
    dtype: opcore.dtype = z.dtype
    values, indices = opcore.max(c, 1)
    loss = (c * d + 2 * a - 1 / a).sum()
    loss.backward()
    grad: Optional[opcore.Tensor] = a.grad
    assert grad is not None and grad.shape == (2, 3)
    with opcore.no_grad():
        e = a * 2
    assert not e.requires_grad and e.grad_fn is None
    mask: opcore.Tensor = (z > 0) == (v.reshape(2, 3) <= 1)
    first: float = float(z[0, 1:].sum())
    print(shape, rows, dtype, values, indices, mask, first, z.tolist(), opcore.get_default_dtype())
    h = opcore.ones(2, dtype=opcore.float16).bfloat16().cfloat() * 2j
    wide: opcore.dtype = opcore.promote_types(opcore.uint8, opcore.int8)
    eps: float = opcore.finfo(opcore.half).eps
    top: int = opcore.iinfo(opcore.uint8).max
    both: bool = opcore.can_cast(opcore.result_type(h, 1.5), opcore.cdouble) and h.is_complex()
    print(wide, eps, top, both, complex(h[0]))
    images = opcore.rand(2, 1, 8, 8)
    kernel = opcore.rand(4, 1, 3, 3, requires_grad=True)
    hidden: opcore.Tensor = F.max_pool2d(F.relu(F.conv2d(images, kernel, padding=1)), 2)
    logits = F.linear(hidden.flatten(1), opcore.rand(3, 64))
    ce: opcore.Tensor = F.cross_entropy(logits, opcore.tensor([0, 2]), label_smoothing=0.1)
    normed = F.layer_norm(F.dropout(logits, p=0.2, training=False), [3], eps=1e-6)
    print(ce.item(), F.softmax(normed, dim=-1).sum(), F.interpolate(images, scale_factor=2.0).shape)


def wrong() -> None:
    opcore.add("x", 1)  # mypy: error


if __name__ == "__main__":
    use()
