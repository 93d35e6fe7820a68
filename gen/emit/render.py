"""Renders FileSpecs with Jinja2 (settings from CONTRIBUTING.md section 5) into file contents, and
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


def record_templates(env: jinja2.Environment, paths: tuple[str, ...]) -> None:
    """Adds `paths`, read by another environment on the same templates (a helper process's), to
    those templates_read(env) gives."""
    assert isinstance(env.loader, _RecordingLoader), "environment not from make_environment: generator bug"
    env.loader.loaded.update(paths)


# How many of the pieces a template yields go into one chunk of render(): a few kilobytes.
_PIECES_PER_CHUNK = 1024


# Note [Rendering in chunks]
# An output is rendered as UTF-8 chunks of a few kilobytes, each written as it comes, rather
# than as one string encoded whole: the largest outputs (up to a megabyte for PyTorch's YAML)
# are then never held whole, joined, encoded and prefixed with their header, and profiling the
# generator on PyTorch's native_functions.yaml shows the whole-string route markedly slower,
# for the memory it takes from the system and gives back output after output. It is the one
# way outputs are rendered: writing, --check, --dry-run and the tests all read these chunks.
def render(env: jinja2.Environment, spec: FileSpec) -> Iterator[bytes]:
    """The file's content, encoded as UTF-8, in chunks of a few kilobytes: the @generated
    line, then the rendered template (Note [Rendering in chunks])."""
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
        env.handle_exception()  # raises the error with the template's file and line, as Template.render() does
