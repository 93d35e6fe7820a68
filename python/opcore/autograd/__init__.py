"""opcore.autograd: gradients of tensor computations (torch.autograd's API).

    x = opcore.tensor([1.0, 2.0], requires_grad=True)
    (gx,) = opcore.autograd.grad((x * x).sum(), x)     # 2 * x
"""
from opcore import _C
from opcore.autograd.function import Function, FunctionCtx
from opcore.autograd.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from opcore.autograd.gradcheck import GradcheckError, gradcheck


def _tensors(value):
    if value is None:
        return None
    return (value,) if isinstance(value, _C.Tensor) else tuple(value)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates d(tensors)/d(leaf) * grad_tensors into every leaf's .grad (only into
    `inputs` when given). A one-element tensor's gradient may be omitted (it is 1)."""
    _C._backward(_tensors(tensors), _tensors(grad_tensors), retain_graph, create_graph, _tensors(inputs))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    """The gradients of `outputs` with respect to `inputs` (a tuple, one per input), without
    touching .grad. An unused input is an error unless allow_unused (its gradient is None)."""
    return _C._grad(_tensors(outputs), _tensors(inputs), _tensors(grad_outputs), retain_graph, create_graph,
                    allow_unused)


__all__ = ["Function", "FunctionCtx", "GradcheckError", "backward", "enable_grad", "grad", "gradcheck",
           "inference_mode", "no_grad", "set_grad_enabled"]
