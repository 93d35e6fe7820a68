"""The model: frozen dataclasses parsed from the YAML inputs, validated, with file:line locations.

Imports nothing from gen.api or gen.emit (see CONTRIBUTING.md section 1).
"""
