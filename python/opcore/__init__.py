"""opcore: tensors, operators and autograd, generated from yaml/native_functions.yaml.

    import opcore
    a = opcore.ones(2, 3, requires_grad=True)
    b = opcore.tensor([[1.0, 2.0, 3.0]])
    loss = (a * b + a).sum()
    loss.backward()              # a.grad == b + 1

Every operator with a function variant is a function here (`opcore.add`), and every method
variant a Tensor method (`a.add(b)`); both come from the generated bindings in opcore._C.
"""
from opcore import _C
from opcore._C import *  # noqa: F401,F403  the operators, Tensor, dtypes, devices, tensor(), from_numpy()
from opcore._C import Tensor, dtype, device, layout, memory_format, get_default_dtype, manual_seed
from opcore._C import get_num_threads, set_num_threads
from opcore import autograd, fft, linalg, nested, nn, sparse, special
from opcore._C import DispatchKey, DispatchKeySet, Tag  # noqa: F401
from opcore import _ops
from opcore import _dtypes
from opcore._dtypes import finfo, iinfo, is_complex, is_floating_point  # noqa: F401
from opcore._ops import ops  # noqa: F401  opcore.ops.aten.add.Tensor, opcore.ops.load_library
from opcore._reduce import unique  # noqa: F401  (issue #33: torch.unique is Python-only)
# The operators whose names start with '_' (torch._to_copy, torch._unique2), which `import *`
# leaves out; a selective build may leave any of them out.
_private_operators = {op[len("aten::"):].split(".")[0] for op in _C._dispatch_get_all_op_names()
                      if op.startswith("aten::_")}
globals().update({name: getattr(_C, name) for name in _private_operators if hasattr(_C, name)})
del _private_operators
from opcore import cuda, library, utils  # noqa: F401
from opcore.utils import _python_dispatch  # noqa: F401  registers the Python key's fallback
from opcore.autograd.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from opcore._C import is_grad_enabled, is_inference_mode_enabled
from opcore._shape import broadcast_shapes, broadcast_tensors, einsum, meshgrid  # noqa: E402,F401
from opcore._distance import cdist  # noqa: E402,F401  (issue #34: compute_mode strings)


def _register_device_module(device_type, module):
    """Makes `module` opcore.<device_type> (and importable as such), as a backend does for its
    device's runtime module (opcore.npu.device_count()). RuntimeError for a name that is not a
    device type, or one that already has a module."""
    import sys
    device_type = device(device_type).type
    if hasattr(sys.modules[__name__], device_type):
        raise RuntimeError(f"The runtime module of '{device_type}' has already been registered "
                           f"with '{getattr(sys.modules[__name__], device_type)}'")
    setattr(sys.modules[__name__], device_type, module)
    sys.modules[f"{__name__}.{device_type}"] = module


def is_tensor(obj):
    """Whether obj is an opcore.Tensor."""
    return isinstance(obj, Tensor)


def __getattr__(name):
    # Only names not found otherwise come here (PEP 562): an operator a selective build left
    # out says so (docs/libraries.md, "Selective builds"); a misspelt dtype gets a suggestion.
    error = _ops.missing_attribute(__name__, name)
    close = None if name.startswith("__") else _dtypes.close_dtype_name(name)
    if close is not None and str(error) == f"module '{__name__}' has no attribute '{name}'":
        error = AttributeError(f"{error}; did you mean '{close}'?")
    raise error
