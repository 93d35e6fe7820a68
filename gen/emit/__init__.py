"""Emitters: one module per generated file family. Each returns the view data (frozen
dataclasses of strings) that one template renders; no C++ text is decided in templates.
"""
