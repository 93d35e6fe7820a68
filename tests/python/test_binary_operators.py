"""Python's operators on tensors for the binary operators of issue #33 (`&`, `|`, `^`, `<<`, `>>`,
`%`, `//`, `**`, reflected and in place), against torch's results and dtypes."""
import pytest

import opcore

torch = pytest.importorskip("torch")


def _both(values, dtype):
    return opcore.tensor(values, dtype=getattr(opcore, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


CASES = [
    ("a & b", "int64"), ("a | b", "int64"), ("a ^ b", "int64"), ("a & 6", "int64"), ("6 | a", "int64"),
    ("3 ^ a", "int64"), ("a & b", "bool"), ("a ^ True", "bool"),
    ("a << 2", "int32"), ("a >> 1", "int32"), ("1 << b", "int64"), ("64 >> b", "int64"),
    ("a % b", "int64"), ("a % 3", "int64"), ("7 % b", "int64"), ("a % b", "float32"), ("-7.5 % b", "float32"),
    ("a // b", "int64"), ("a // 2", "int64"), ("9 // b", "int64"), ("a // b", "float32"), ("7.5 // b", "float32"),
    ("a ** 2", "int64"), ("a ** b", "float64"), ("2 ** b", "int64"), ("2.5 ** b", "float32"), ("a ** 0.5", "float32"),
]


@pytest.mark.parametrize("expr, dtype", CASES)
def test_operator_matches_torch(expr, dtype):
    a_vals, b_vals = ([True, False, True], [True, True, False]) if dtype == "bool" else ([5, -5, 12], [3, 2, 5])
    a, ta = _both(a_vals, dtype)
    b, tb = _both(b_vals, dtype)
    ours = eval(expr, {"a": a, "b": b})
    theirs = eval(expr, {"a": ta, "b": tb})
    assert repr(ours.dtype).removeprefix("opcore.") == str(theirs.dtype).removeprefix("torch."), expr
    assert ours.tolist() == pytest.approx(theirs.tolist(), nan_ok=True), expr


@pytest.mark.parametrize("op", ["&=", "|=", "^=", "<<=", ">>=", "%=", "//=", "**="])
def test_inplace_operator_writes_into_the_tensor(op):
    a, ta = _both([5, 6, 12], "int64")
    b, tb = _both([3, 2, 1], "int64")
    alias = a
    exec(f"a {op} b", {}, {"a": a, "b": b})
    exec(f"ta {op} tb", {}, {"ta": ta, "tb": tb})
    assert alias.tolist() == ta.tolist()


def test_operators_refuse_what_torch_refuses():
    f = opcore.tensor([1.5, 2.0])
    with pytest.raises((RuntimeError, TypeError)):
        f & f
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        opcore.tensor([1, 2]) // opcore.tensor([1, 0])
    with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
        opcore.tensor([2]) ** -1
