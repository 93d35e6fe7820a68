"""opcore's code generator: turns yaml/native_functions.yaml into the C++ operator library.

Run it as `python3 -m gen`; see gen/__main__.py for the flags and docs/internals.md for the
data flow.
"""
