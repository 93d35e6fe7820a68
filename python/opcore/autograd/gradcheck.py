"""opcore.autograd.gradcheck: compares the gradients autograd computes with finite differences
(central differences in float64), as torch.autograd.gradcheck does."""
import opcore
from opcore import _C


class GradcheckError(RuntimeError):
    """The analytical and numerical Jacobians differ (the message says where)."""


def _as_tuple(x):
    return (x,) if isinstance(x, _C.Tensor) else tuple(x)


def _numerical_jacobian(fn, inputs, index, output_index, eps):
    """d(output[output_index]) / d(inputs[index]) by central differences: a list (one row per
    input element) of lists (one per output element)."""
    x = inputs[index]
    flat = x.detach().reshape(-1)
    rows = []
    for i in range(flat.numel()):
        original = flat[i].item()
        with opcore.no_grad():
            flat[i] = original + eps
            plus = _as_tuple(fn(*inputs))[output_index].detach().reshape(-1).tolist()
            flat[i] = original - eps
            minus = _as_tuple(fn(*inputs))[output_index].detach().reshape(-1).tolist()
            flat[i] = original
        rows.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    return rows


def _analytical_jacobian(fn, inputs, index, output_index):
    output = _as_tuple(fn(*inputs))[output_index]
    n = output.numel()
    rows = [[0.0] * n for _ in range(inputs[index].numel())]
    for j in range(n):
        grad_output = opcore.zeros(output.shape, dtype=output.dtype)
        grad_output.reshape(-1)[j] = 1.0
        (g,) = opcore.autograd.grad(output, inputs[index], grad_output, retain_graph=True, allow_unused=True)
        if g is not None:
            for i, v in enumerate(g.reshape(-1).tolist()):
                rows[i][j] = v
    return rows


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True when fn's gradients with respect to every input that requires grad match finite
    differences; inputs should be float64 tensors. Raises GradcheckError otherwise (returns
    False with raise_exception=False)."""
    inputs = _as_tuple(inputs)
    outputs = _as_tuple(fn(*inputs))
    for index, x in enumerate(inputs):
        if not (isinstance(x, _C.Tensor) and x.requires_grad):
            continue
        if x.dtype != opcore.float64:
            raise GradcheckError(f"gradcheck: input {index} is {x.dtype}; use float64 inputs for finite differences")
        for output_index, out in enumerate(outputs):
            if not (isinstance(out, _C.Tensor) and out.is_floating_point()):
                continue
            numerical = _numerical_jacobian(fn, inputs, index, output_index, eps)
            analytical = _analytical_jacobian(fn, inputs, index, output_index)
            for i, (num_row, ana_row) in enumerate(zip(numerical, analytical)):
                for j, (n, a) in enumerate(zip(num_row, ana_row)):
                    if abs(a - n) > atol + rtol * abs(n):
                        if not raise_exception:
                            return False
                        raise GradcheckError(
                            f"gradcheck: Jacobian mismatch for output {output_index} with respect to input {index} "
                            f"at (input element {i}, output element {j}): analytical {a!r}, numerical {n!r}")
    return True
