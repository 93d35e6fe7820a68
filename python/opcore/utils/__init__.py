"""opcore.utils: helpers around the operator layer (opcore.utils._python_dispatch) and the
registration of an out-of-tree backend's device (opcore.utils.backend_registration)."""
from opcore.utils.backend_registration import (  # noqa: F401
    generate_methods_for_privateuse1_backend, rename_privateuse1_backend)
