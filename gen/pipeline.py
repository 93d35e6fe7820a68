"""load -> validate -> emit -> render -> write. Holds no C++ text.

    report = pipeline.run(Options(yaml_dir="yaml", out_dir="build/generated"))

Raises SpecErrors (every mistake found, located) before anything is written.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Optional

from gen.api.check import check_functions
from gen.emit.common import GENERATED_PREFIXES
from gen.emit.files import OUTPUT_DIRS, OUTPUT_PATHS, emit_all
from gen.emit.render import make_environment, render
from gen.model.derivatives import check_derivatives, parse_derivatives
from gen.model.errors import SpecError, SpecErrors, sorted_errors
from gen.model.native_function import parse_native_functions
from gen.model.spec import Spec
from gen.model.tags import parse_tags
from gen.model.yaml_loader import load_yaml_text, read_source
from gen.output import Layout, OutputReport, write_outputs

YAML_FILES = ("tags.yaml", "native_functions.yaml", "derivatives.yaml")
LAYOUT = Layout(subdirs=OUTPUT_DIRS, prefixes=GENERATED_PREFIXES)


@dataclass(frozen=True)
class Options:
    """What the command line asks for (see gen/__main__.py)."""

    yaml_dir: str = "yaml"
    out_dir: str = "build/generated"
    dry_run: bool = False


def output_paths(out_dir: str) -> list[str]:
    """Every generated file, as out_dir joined with its relative path."""
    return [os.path.join(out_dir, rel) for rel in OUTPUT_PATHS]


def _load(path: str, parse: Callable, errors: list[SpecError], sources: dict[str, str]) -> Optional[tuple]:
    """Reads, loads and parses one file; returns None when it could not be loaded at all."""
    try:
        sources[path] = read_source(path)
        data, yaml_errors = load_yaml_text(sources[path], path)
    except SpecError as e:
        errors.append(e)
        return None
    parsed, parse_errors = parse(data, path)
    errors.extend(yaml_errors + parse_errors)
    return parsed


def load_spec(yaml_dir: str) -> Spec:
    """Parses and validates the three YAML files; raises SpecErrors listing every problem."""
    errors: list[SpecError] = []
    sources: dict[str, str] = {}
    path = {name: os.path.join(yaml_dir, name) for name in YAML_FILES}
    tags = _load(path["tags.yaml"], parse_tags, errors, sources)
    declared = frozenset(t.name for t in tags) if tags is not None and not errors else None
    known = len(errors)
    functions = _load(path["native_functions.yaml"],
                      lambda data, p: parse_native_functions(data, p, declared), errors, sources) or ()
    functions_ok = len(errors) == known
    derivatives = _load(path["derivatives.yaml"], parse_derivatives, errors, sources) or ()
    errors += check_functions(functions)
    if functions_ok:  # else an entry with a mistake would look undeclared to derivatives.yaml
        errors += check_derivatives(derivatives, functions)
    if errors:
        raise SpecErrors(sorted_errors(errors), sources)
    return Spec(functions, tags or (), derivatives)


def generate(spec: Spec) -> list[tuple[str, str]]:
    """(relative path, text) of every output, rendered in memory."""
    env = make_environment()
    return [(s.path, render(env, s)) for s in emit_all(spec)]


def run(options: Options) -> OutputReport:
    """The whole generator; nothing is written unless every input is valid."""
    files = generate(load_spec(options.yaml_dir))
    return write_outputs(options.out_dir, files, LAYOUT, options.dry_run)
