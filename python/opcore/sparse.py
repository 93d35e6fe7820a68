"""opcore.sparse: the operators declared with `python_module: sparse` in yaml/native_functions.yaml
(bound in opcore._C._sparse; none in the repository's YAML today)."""
from opcore import _C

if hasattr(_C, "_sparse"):
    from opcore._C._sparse import *  # noqa: F401,F403
