"""opcore.nested: the operators declared with `python_module: nested` in yaml/native_functions.yaml
(bound in opcore._C._nested; none in the repository's YAML today)."""
from opcore import _C

if hasattr(_C, "_nested"):
    from opcore._C._nested import *  # noqa: F401,F403
