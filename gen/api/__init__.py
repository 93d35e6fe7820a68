"""Signatures: pure functions from model objects to frozen C++ signature objects.

One module per calling convention (cpp, dispatcher, native); type decisions live in types.py.
"""
