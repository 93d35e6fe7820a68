"""opcore.nn: neural-network functions (opcore.nn.functional)."""
from opcore.nn import functional  # noqa: F401
