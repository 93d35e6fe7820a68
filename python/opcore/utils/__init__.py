"""opcore.utils: helpers around the operator layer (opcore.utils._python_dispatch)."""
