"""opcore.autograd.gradcheck: compares the gradients autograd computes with finite differences
(central differences in float64), as torch.autograd.gradcheck does; complex inputs and outputs
are checked as pairs of reals (Note [Gradcheck over real components] in
runtime/opcore/autograd/Gradcheck.cpp)."""
import opcore
from opcore import _C


class GradcheckError(RuntimeError):
    """The analytical and numerical Jacobians differ (the message says where)."""


def _as_tuple(x):
    return (x,) if isinstance(x, _C.Tensor) else tuple(x)


def _flat_components(t):
    """A flat float64 view of t's components: its elements, or for a complex t the real and
    imaginary part of each element in turn. Writing into it writes into t (t contiguous)."""
    t = t.detach()
    return (opcore.view_as_real(t) if t.is_complex() else t).reshape(-1)


def _components(t):
    values = t.detach().reshape(-1).tolist()
    if t.is_complex():
        return [part for z in values for part in (z.real, z.imag)]
    return values


def _component_name(t, what, c):
    if not t.is_complex():
        return f"{what} element {c}"
    return f"{'real' if c % 2 == 0 else 'imaginary'} part of {what} element {c // 2}"


def _numerical_jacobian(fn, inputs, index, output_index, eps):
    """d(output[output_index]) / d(inputs[index]) by central differences: a list (one row per
    input component) of lists (one per output component)."""
    flat = _flat_components(inputs[index])
    rows = []
    for i in range(flat.numel()):
        original = flat[i].item()
        with opcore.no_grad():
            flat[i] = original + eps
            plus = _components(_as_tuple(fn(*inputs))[output_index])
            flat[i] = original - eps
            minus = _components(_as_tuple(fn(*inputs))[output_index])
            flat[i] = original
        rows.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    return rows


def _analytical_jacobian(fn, inputs, index, output_index):
    """The same rows from backward: one one-hot grad_output per output component (1, or 1j
    for an imaginary part); the gradient's components are the row's entries."""
    output = _as_tuple(fn(*inputs))[output_index]
    n = output.numel() * (2 if output.is_complex() else 1)
    x = inputs[index]
    rows = [[0.0] * n for _ in range(x.numel() * (2 if x.is_complex() else 1))]
    for j in range(n):
        grad_output = opcore.zeros(output.shape, dtype=output.dtype)
        _flat_components(grad_output)[j] = 1.0
        (g,) = opcore.autograd.grad(output, x, grad_output, retain_graph=True, allow_unused=True)
        if g is not None:
            for i, v in enumerate(_components(g)):
                rows[i][j] = v
    return rows


def _differentiable(t):
    return isinstance(t, _C.Tensor) and (t.is_floating_point() or t.is_complex())


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True when fn's gradients with respect to every input that requires grad match finite
    differences; inputs should be float64 or complex128 tensors. Raises GradcheckError
    otherwise (returns False with raise_exception=False)."""
    inputs = _as_tuple(inputs)
    outputs = _as_tuple(fn(*inputs))
    for index, x in enumerate(inputs):
        if not (isinstance(x, _C.Tensor) and x.requires_grad):
            continue
        if x.dtype not in (opcore.float64, opcore.complex128):
            raise GradcheckError(f"gradcheck: input {index} is {x.dtype}; use float64 inputs (or complex128 ones) "
                                 "for finite differences")
        for output_index, out in enumerate(outputs):
            if not _differentiable(out):
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
                            f"at ({_component_name(x, 'input', i)}, {_component_name(out, 'output', j)}): "
                            f"analytical {a!r}, numerical {n!r}")
    return True
