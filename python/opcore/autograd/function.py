"""opcore.autograd.Function: an operation whose forward and backward are written in Python.

    class Cube(opcore.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    y = Cube.apply(x)   # y.grad_fn.name() == "CubeBackward"

forward runs without recording the graph; backward returns one gradient per forward input
(None for inputs that are not tensors or need none). See Note [Python Function nodes] in
runtime/opcore/python/Autograd.cpp.
"""
from opcore import _C


class FunctionCtx:
    """The `ctx` of forward and backward: save_for_backward() in forward, saved_tensors and
    needs_input_grad in backward; any other attribute may carry values between the two."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError(f"save_for_backward() takes tensors or None, not {type(t).__name__}")
        self.to_save = tensors


class Function:
    """Subclass it with static forward(ctx, *args) and backward(ctx, *grads); call apply()."""

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("a Function subclass must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("a Function subclass must define backward(ctx, *grads) to be differentiated")

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, _C.Tensor) and a.requires_grad for a in args)
        prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)
        try:
            outputs = cls.forward(ctx, *args)
        finally:
            _C._set_grad_enabled(prev)
        return _C._function_apply(cls, ctx, args, outputs)
