"""opcore.fft: the operators declared with `python_module: fft` in yaml/native_functions.yaml
(bound in opcore._C._fft; none in the repository's YAML today)."""
from opcore import _C

if hasattr(_C, "_fft"):
    from opcore._C._fft import *  # noqa: F401,F403
