"""opcore.linalg: the operators declared with `python_module: linalg` in yaml/native_functions.yaml
(bound in opcore._C._linalg; none in the repository's YAML today)."""
from opcore import _C

if hasattr(_C, "_linalg"):
    from opcore._C._linalg import *  # noqa: F401,F403

if hasattr(_C, "_linalg") and hasattr(_C._linalg, "linalg_vector_norm"):
    vector_norm = _C._linalg.linalg_vector_norm  # torch.linalg.vector_norm's name (issue #33)
