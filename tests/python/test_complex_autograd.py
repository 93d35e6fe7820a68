"""Autograd through complex tensors from Python: complex tensors require grad, gradients are
PyTorch's conjugate Wirtinger derivatives (Note [Complex gradients] in
runtime/opcore/autograd/Formulas.h), and opcore.autograd.gradcheck checks complex128 inputs
and outputs as pairs of reals."""
import cmath
import math

import pytest

import opcore
from opcore.autograd import GradcheckError, gradcheck


def cleaf(values):
    return opcore.tensor(values, dtype=opcore.complex128, requires_grad=True)


def rleaf(values):
    return opcore.tensor(values, dtype=opcore.float64, requires_grad=True)


Z = [[0.5 + 0.25j, -0.75 + 1.0j, 0.3 - 0.6j], [1.2 + 0.1j, -0.4 - 0.9j, 0.8 + 0.7j]]
RIGHT = [[0.5 + 0.25j, 1.75 + 1.0j, 0.9 - 0.6j], [1.2 + 0.1j, 0.6 - 0.9j, 0.8 + 0.7j]]  # real part > 0
W = [0.9 - 0.4j, 1.1 + 0.5j, -0.7 + 1.3j]

UNARY = {
    "neg": lambda t: -t,
    "exp": opcore.exp,
    "tanh": opcore.tanh,
    "sigmoid": opcore.sigmoid,
    "abs": opcore.abs,
    "angle": opcore.angle,
    "real": opcore.real,
    "imag": opcore.imag,
    "view_as_real": opcore.view_as_real,
    "conj": opcore.conj,
    "conj_physical": opcore.conj_physical,
    "sum": lambda t: t.sum(),
    "sum_dim": lambda t: t.sum(dim=0),
    "mean": lambda t: t.mean(),
    "to_real": lambda t: t.to(opcore.float64),
    "abs_squared": lambda t: opcore.abs(t) * opcore.abs(t),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_gradcheck_of_a_unary_operator(name):
    assert gradcheck(UNARY[name], (cleaf(Z),)) is True


@pytest.mark.parametrize("name, fn", [("log", opcore.log), ("sqrt", opcore.sqrt)])
def test_gradcheck_away_from_the_branch_cut(name, fn):
    assert gradcheck(fn, (cleaf(RIGHT),)) is True


BINARY = {
    "add": lambda a, b: opcore.add(a, b, alpha=2 - 0.5j),
    "sub": lambda a, b: opcore.sub(a, b, alpha=0.5 + 1j),
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "mul_scalar": lambda a, b: a * (1.5 - 2j) + b,
    "div_scalar": lambda a, b: a / (1.5 - 2j) + b,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_gradcheck_of_a_binary_operator(name):
    assert gradcheck(BINARY[name], (cleaf(Z), cleaf(W))) is True


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_gradcheck_with_a_real_operand(name):
    # The real operand's gradient is the real part of the complex one.
    assert gradcheck(BINARY[name], (rleaf([[0.5, -1.5, 2.0], [1.0, 0.75, -0.25]]), cleaf(W))) is True
    assert gradcheck(BINARY[name], (cleaf(Z), rleaf([0.5, 1.25, -2.0]))) is True


def test_gradcheck_of_mm_and_view_as_complex():
    a = cleaf(Z)
    b = cleaf([[0.1 + 0.2j, -0.3j], [1.0, 0.4 - 0.1j], [-0.5 + 0.5j, 0.25]])
    assert gradcheck(opcore.mm, (a, b)) is True
    assert gradcheck(opcore.view_as_complex, (rleaf([[0.5, -1.0], [0.25, 2.0]]),)) is True


def test_gradcheck_of_real_to_complex():
    assert gradcheck(lambda t: t.to(opcore.complex128), (rleaf([0.5, -1.0, 2.0]),)) is True


def test_a_real_chain_through_complex_has_the_gradient_computed_by_hand():
    # sum(real(exp(i x))) = sum(cos(x)): the gradient is -sin(x).
    xs = [0.3, -1.2, 2.5]
    x = rleaf(xs)
    opcore.real(opcore.exp(x.to(opcore.complex128) * 1j)).sum().backward()
    assert x.grad.dtype is opcore.float64
    assert x.grad.tolist() == pytest.approx([-math.sin(v) for v in xs], abs=1e-12)


def test_the_gradient_is_the_conjugate_wirtinger_derivative():
    # L = sum |z|^2: dL/dx + i dL/dy = 2z, as PyTorch's z.grad.
    z = cleaf(W)
    (opcore.abs(z) * opcore.abs(z)).sum().backward()
    assert z.grad.dtype is opcore.complex128
    assert z.grad.tolist() == pytest.approx([2 * w for w in W], abs=1e-12)
    # L = sum real(c z): the gradient is conj(c).
    z = cleaf(W)
    opcore.real(z * (2 - 3j)).sum().backward()
    assert z.grad.tolist() == [2 + 3j] * 3
    # L = sum angle(z): the gradient is i z / |z|^2.
    z = cleaf(W)
    opcore.angle(z).sum().backward()
    assert z.grad.tolist() == pytest.approx([1j * w / abs(w) ** 2 for w in W], abs=1e-12)
    assert cmath.isclose(z.grad.tolist()[0], 1j / W[0].conjugate(), abs_tol=1e-12)


def test_requires_grad_of_complex_and_integer_tensors():
    z = opcore.zeros(2, dtype=opcore.complex64).requires_grad_()
    assert z.requires_grad
    assert (z * 2).grad_fn is not None
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        opcore.zeros(2, dtype=opcore.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for real scalar outputs"):
        (z * 2).sum().backward()
    opcore.abs(z * 2).sum().backward()
    assert z.grad.dtype is opcore.complex64


def test_gradcheck_names_the_part_that_is_wrong():
    def wrong(t):
        return opcore.real(t) + opcore.imag(t).detach()

    with pytest.raises(GradcheckError, match="imaginary part of input element 0"):
        gradcheck(wrong, (cleaf([0.5 + 0.5j]),))
    assert gradcheck(wrong, (cleaf([0.5 + 0.5j]),), raise_exception=False) is False
    with pytest.raises(GradcheckError, match="input 0 is opcore.complex64; use float64 inputs"):
        gradcheck(opcore.exp, (opcore.zeros(2, dtype=opcore.complex64).requires_grad_(),))
