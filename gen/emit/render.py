"""Renders FileSpecs with Jinja2 (settings from STYLE.md section 4) into file contents."""
from __future__ import annotations

from pathlib import Path

import jinja2

from gen.emit.common import FileSpec, generated_header

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"


def make_environment(template_dir: Path = TEMPLATE_DIR) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(env: jinja2.Environment, spec: FileSpec) -> str:
    """The full file text: the @generated line, then the rendered template."""
    body = env.get_template(spec.template).render(**spec.context)
    return f"{generated_header(spec.template, spec.path)}\n{body}"
