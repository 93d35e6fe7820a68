"""Run by tests/build/test_selective.sh with the Python package of a selective build of opcore
(starter_operators.yaml: mm, add.Tensor, relu, ones, for inference): the package imports, the
selected operators work as functions, methods and through opcore.ops, operators the build left
out say so, whether reached as opcore.f, opcore.nn.functional.f or opcore.ops.aten.f, and
backward() through mm, which has no autograd kernel in this build, says the build keeps it for
inference only.
Exits 1 when anything differs.
    PYTHONPATH=BUILD/python python3 tests/build/selective_check.py
"""
import sys

import opcore

EXCLUDED = "was excluded from this build: it is not in the operator list of this selective build"


def error_of(get) -> str:
    try:
        get()
    except AttributeError as e:
        return str(e)
    return ""


def main() -> int:
    x, w = opcore.ones(2, 3), opcore.ones(3, 4)
    y = opcore.relu(opcore.add(opcore.mm(x, w), opcore.zeros(4)))
    z = opcore.ops.aten.relu.default(x.mm(w).add(opcore.zeros(4)))
    if y.tolist() != [[3.0] * 4] * 2 or z.tolist() != y.tolist():
        print(f"selective_check.py: relu(x @ w + b) gave {y.tolist()} and {z.tolist()}")
        return 1
    errors = {
        "opcore.matmul": error_of(lambda: opcore.matmul),
        "opcore.nn.functional.gelu": error_of(lambda: opcore.nn.functional.gelu),
        "opcore.ops.aten.matmul": error_of(lambda: opcore.ops.aten.matmul),
    }
    wrong = {where: e for where, e in errors.items() if EXCLUDED not in e}
    if wrong or "'aten::matmul'" not in errors["opcore.matmul"]:
        print(f"selective_check.py: unexpected errors: {errors}")
        return 1
    if hasattr(opcore, "no_such_operator"):
        print("selective_check.py: opcore.no_such_operator exists")
        return 1
    x.requires_grad_()
    try:
        opcore.mm(x, w).sum().backward()
        backward = ""
    except RuntimeError as e:
        backward = str(e)
    if "derivative for aten::mm is not implemented (this selective build keeps it for inference only" \
            not in backward:
        print(f"selective_check.py: backward() through mm, built for inference only, said: {backward!r}")
        return 1
    print("selective_check.py: the package imports; left-out operators say so; mm has no autograd kernel")
    return 0


if __name__ == "__main__":
    sys.exit(main())
