"""opcore.nn.functional: the operators declared with `python_module: nn` in
yaml/native_functions.yaml (bound in opcore._C._nn)."""
from opcore import _C

if hasattr(_C, "_nn"):
    from opcore._C._nn import *  # noqa: F401,F403
