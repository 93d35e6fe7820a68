"""opcore.special: the operators declared with `python_module: special` in yaml/native_functions.yaml
(bound in opcore._C._special; none in the repository's YAML today)."""
from opcore import _C

if hasattr(_C, "_special"):
    from opcore._C._special import *  # noqa: F401,F403
