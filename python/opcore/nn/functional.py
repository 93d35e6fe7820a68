"""opcore.nn.functional: the operators declared with `python_module: nn` in
yaml/native_functions.yaml (bound in opcore._C._nn)."""
from opcore import _C, _ops

if hasattr(_C, "_nn"):
    from opcore._C._nn import *  # noqa: F401,F403


def __getattr__(name):
    # As opcore's own (PEP 562): an operator a selective build left out says so.
    raise _ops.missing_attribute(__name__, name)
