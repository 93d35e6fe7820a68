"""Renders FileSpecs with Jinja2 (settings from STYLE.md section 4) into file contents, and
tells which template files were read (for the depfile)."""
from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Iterator

import jinja2

from gen.emit.common import FileSpec, generated_header

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"


class _RecordingLoader(jinja2.FileSystemLoader):
    """A FileSystemLoader that remembers the file of every template it loads, including the
    ones loaded by `{% import %}` and `{% include %}`."""

    def __init__(self, template_dir: Path) -> None:
        super().__init__(str(template_dir))
        self.loaded: set[str] = set()

    def get_source(self, environment: jinja2.Environment, template: str):
        source, filename, uptodate = super().get_source(environment, template)
        self.loaded.add(str(Path(filename).resolve()))
        return source, filename, uptodate


def make_environment(template_dir: Path = TEMPLATE_DIR) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=_RecordingLoader(template_dir),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        # Each template is compiled once per environment (one per run) and never reloaded, so
        # the thousands of renders of a large YAML do not stat the template files each time.
        auto_reload=False,
    )
    # The templates read their inputs only (each lists them in its header), never Jinja's
    # globals (range, dict, cycler, ...), which every render would otherwise copy, one at a
    # time, into the context of the thousands of files of a large YAML.
    env.globals.clear()
    return env


def templates_read(env: jinja2.Environment) -> tuple[str, ...]:
    """The absolute paths of the template files `env` has loaded so far, sorted."""
    assert isinstance(env.loader, _RecordingLoader), "environment not from make_environment: generator bug"
    return tuple(sorted(env.loader.loaded))


def render(env: jinja2.Environment, spec: FileSpec) -> str:
    """The full file text: the @generated line, then the rendered template."""
    body = env.get_template(spec.template).render(**spec.context)
    return f"{generated_header(spec.template, spec.path)}\n{body}"


# How many of the pieces a template yields go into one chunk of render_chunks(): a few kilobytes.
_PIECES_PER_CHUNK = 1024


def render_chunks(env: jinja2.Environment, spec: FileSpec) -> Iterator[bytes]:
    """The text render(spec) returns, encoded as UTF-8, in chunks of a few kilobytes: the
    largest files are never held whole (see Note [One output in memory at a time] in
    gen/pipeline.py)."""
    template = env.get_template(spec.template)
    # The pieces come straight from the compiled template, as in Template.render():
    # Template.generate() would pass each of them (hundreds of thousands) through one more
    # generator.
    pieces = template.root_render_func(template.new_context(spec.context))
    head = f"{generated_header(spec.template, spec.path)}\n"
    try:
        yield (head + "".join(islice(pieces, _PIECES_PER_CHUNK))).encode()
        while batch := list(islice(pieces, _PIECES_PER_CHUNK)):
            yield "".join(batch).encode()
    except Exception:
        env.handle_exception()  # raises the error with the template's file and line, as render() does
