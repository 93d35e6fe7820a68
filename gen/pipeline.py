"""load -> validate -> emit -> render -> write. Holds no C++ text.

    report = pipeline.run(Options(yaml_dir="yaml", out_dir="build/generated"))
    report = pipeline.check("yaml", "build/generated")     # compares, writes nothing

Raises SpecErrors (every mistake found, located) before anything is written.
"""
from __future__ import annotations

import contextlib
import dataclasses
import datetime
import errno
import gc
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional

from gen.api.signature_checks import check_functions, check_nodes
from gen.emit.common import GENERATED_PREFIXES
from gen.emit.files import emit_part, fixed_outputs, output_dirs, output_order
from gen.model.backend_yaml import BackendYaml, backend_name, parse_backend_yaml
from gen.model.compat import Verdict, breaking_changes, judge, parse_allow_list
from gen.model.cross_entry_checks import check_derivatives
from gen.model.derivatives import parse_derivatives
from gen.model.formulas import parse_formula_helpers
from gen.model.errors import SpecError, SpecErrors, sorted_errors
from gen.model.native_functions_yaml import parse_native_functions, parse_operator_impls
from gen.model.native_function import ATEN, NativeFunction
from gen.model.options import ParseOptions
from gen.model.selection import parse_selection
from gen.model.spec import Spec
from gen.model.tags import parse_tags
from gen.model.yaml_loader import load_yaml_text, read_source
from gen.output import (BuildFileError, CheckReport, Layout, OutputReport, compare_outputs, depfile_text, touch,
                        write_if_changed, write_outputs)
from gen.parallel import Helper

YAML_FILES = ("tags.yaml", "native_functions.yaml", "derivatives.yaml")
EXECUTORCH_FILES = ("custom_ops.yaml", "functions.yaml")  # read instead of native_functions.yaml
_GEN_DIR = Path(__file__).resolve().parent
# opcore's own YAML, beside the generator here and where it is installed (share/opcore/): the
# aten operators an extension builds on (Note [Operator namespaces] in gen/emit/common.py).
ATEN_YAML_DIR = str(_GEN_DIR.parent / "yaml")


def layout(namespace: str = ATEN) -> Layout:
    """Where the generated files of `namespace` are, and how they are recognized (stale files)."""
    return Layout(subdirs=output_dirs(namespace), prefixes=GENERATED_PREFIXES)


@dataclass(frozen=True)
class Selective:
    """A selective build's inputs (--selected-operators, --selection-sources,
    --required-operators); the default: every operator."""

    operators: Optional[str] = None
    sources: tuple[str, ...] = ()
    required: tuple[str, ...] = ()  # operator lists of code built whatever the selection


@dataclass(frozen=True)
class Options:
    """What the command line asks for (see gen/__main__.py). The build files (manifest,
    depfile, stamp) are written only when generation succeeded, and never with dry_run."""

    yaml_dir: str = "yaml"
    out_dir: str = "build/generated"
    dry_run: bool = False
    manifest: Optional[str] = None  # sorted output paths, relative to out_dir
    depfile: Optional[str] = None   # Makefile rule: stamp and fixed outputs depend on every input
    stamp: Optional[str] = None     # touched after every successful run
    parse_options: ParseOptions = ParseOptions()  # how native_functions.yaml is read (--pytorch-yaml)
    namespace: str = ATEN           # the operators' namespace (--namespace)
    selective: Selective = Selective()  # a selective build's operator list and sources
    backend_yaml: Optional[str] = None  # a backend's kernel list: run_backend() (--backend-yaml)


@dataclass(frozen=True)
class Rendered:
    """Every output rendered in memory (generate()), and every file read to produce them."""

    files: tuple[tuple[str, str], ...]  # (path relative to the output dir, text), in Generation's order
    inputs: tuple[str, ...]             # the YAML files, gen/**/*.py in use, the templates used


def fixed_output_paths(out_dir: str, namespace: str = ATEN) -> list[str]:
    """The generated files whatever the YAML (every .cpp file, the aggregate headers, the
    docs), as out_dir joined with their relative paths."""
    return [os.path.join(out_dir, rel) for rel in fixed_outputs(namespace)]


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


def operator_files(yaml_dir: str) -> list[str]:
    """The files of `yaml_dir` that declare operators: native_functions.yaml, else ExecuTorch's
    kernel library files (EXECUTORCH_FILES, those present; Note [Kernel keys])."""
    native = os.path.join(yaml_dir, "native_functions.yaml")
    executorch = [os.path.join(yaml_dir, name) for name in EXECUTORCH_FILES]
    return [native] if os.path.exists(native) else [p for p in executorch if os.path.exists(p)] or [native]


def _parse_operator_files(paths: list[str], parse: Callable, errors: list[SpecError],
                          sources: dict[str, str]) -> tuple[tuple, tuple]:
    """The functions and impls of every operator file; an operator declared in two is an error."""
    first: dict[str, NativeFunction] = {}  # the operators of the files before, by name
    impls: tuple = ()
    for path in paths:
        more, more_impls = _load(path, parse, errors, sources) or ((), ())
        errors += [SpecError(f.func_loc, f"duplicate operator '{f.name}' (first defined at "
                                         f"{first[f.name].func_loc.path}:{first[f.name].func_loc.line})")
                   for f in more if f.name in first]
        first.update((f.name, f) for f in more if f.name not in first)
        impls += more_impls
    return tuple(first.values()), impls


def load_spec(yaml_dir: str, parse_options: ParseOptions = ParseOptions(), namespace: str = ATEN) -> Spec:
    """Parses and validates the YAML files, whose operators are in `namespace`; raises
    SpecErrors listing every problem. An extension (a namespace other than aten) is read
    with opcore's operators (ATEN_YAML_DIR): its tags and formulas may use theirs, and its
    tags.yaml and derivatives.yaml may be absent."""
    aten = load_spec(ATEN_YAML_DIR) if namespace != ATEN else None
    aten_functions = aten.functions if aten else ()
    aten_operators = aten.operators if aten else None
    errors: list[SpecError] = []
    sources: dict[str, str] = {}
    path = {name: os.path.join(yaml_dir, name) for name in YAML_FILES}
    present = {name: aten is None or os.path.exists(p) for name, p in path.items()}
    tags = _load(path["tags.yaml"], parse_tags, errors, sources) if present["tags.yaml"] else ()
    declared = frozenset(t.name for t in tags + (aten.tags if aten else ())) \
        if tags is not None and not errors else None
    known = len(errors)

    def parse_entries(data: object, p: str) -> tuple[tuple, list[SpecError]]:
        functions, function_errors = parse_native_functions(data, p, declared, parse_options, namespace, aten_operators)
        impls, impl_errors = parse_operator_impls(data, p, namespace, aten_operators)
        return (functions, impls), function_errors + impl_errors

    functions, impls = _parse_operator_files(operator_files(yaml_dir), parse_entries, errors, sources)
    functions_ok = len(errors) == known
    derivatives = (_load(path["derivatives.yaml"], lambda data, p: parse_derivatives(data, p, parse_options),
                         errors, sources) or ()) if present["derivatives.yaml"] else ()
    files = tuple(os.path.abspath(p) for p in sources) + (aten.files if aten else ())
    spec = Spec(functions, tags or (), derivatives, namespace, aten_functions, impls, files)  # valid once checked
    errors += check_functions(functions)
    if functions_ok:  # else an entry with a mistake would look undeclared to derivatives.yaml
        errors += check_derivatives(derivatives, spec.operators, parse_options, aten_functions)
    if not errors:
        errors += check_nodes(spec)
    if errors:
        raise SpecErrors(sorted_errors(errors), sources)
    return spec


def select(spec: Spec, selection_file: str, source_dirs: list[str], required: tuple[str, ...] = ()) -> Spec:
    """`spec` with the operators a selective build keeps (Note [Selective builds] in
    gen/emit/selection.py); raises SpecErrors for mistakes in `selection_file` or in the
    `required` lists."""
    from gen.emit.selection import kept_operators
    texts = {path: read_source(path) for path in (selection_file, *required)}
    selections, errors = [], []
    for path, text in texts.items():
        try:
            selection, problems = parse_selection(text, path, spec.functions, spec.namespace)
        except SpecError as e:  # not YAML: shown with its source line, as the other errors
            raise SpecErrors([e], texts) from None
        selections.append(selection)
        errors += problems
    if errors:
        raise SpecErrors(sorted_errors(errors), texts)
    if selections[0].include_all:
        return spec
    sources = _read_sources(source_dirs, "--selection-sources")
    kept = kept_operators(spec, frozenset().union(*(s.names for s in selections)), sources,
                          frozenset().union(*(s.training for s in selections)))
    files = spec.files + tuple(os.path.abspath(p) for p in (*texts, *sources))
    return dataclasses.replace(spec, kept=kept.operators, trained=kept.trained,
                               selection_file=os.path.basename(selection_file), files=files)


def _generator_sources() -> list[str]:
    """The modules of this package that are loaded: the Python files generation depends on."""
    files = set()
    real_dirs: dict[str, Path] = {}  # each directory resolved once: hundreds of modules, a few dozen directories
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not (path and path.endswith(".py")):
            continue
        directory, name = os.path.split(path)
        if directory not in real_dirs:
            real_dirs[directory] = Path(directory).resolve()
        real = Path(path).resolve() if os.path.islink(path) else real_dirs[directory] / name
        if real.is_relative_to(_GEN_DIR):
            files.add(str(real))
    return sorted(files)


class Generation:
    """One run of the generator on a valid Spec. outputs() renders every output as it is
    asked for, in the one order of the outputs (output_order's: fixed_outputs, then the
    per-operator headers by path), so that writing, --check, --dry-run and the tests see the
    same files in the same order and a write error always names the same output. inputs()
    lists every file read (for the depfile). Use it inside _generating()."""

    def __init__(self, spec: Spec) -> None:
        from gen.emit.render import make_environment  # jinja2: only here
        self.spec = spec
        self.env = make_environment()

    def outputs(self) -> Iterator[tuple[str, Iterator[bytes]]]:
        """(path relative to the output dir, its content as UTF-8 chunks), one output after
        the other (see Note [Rendering in chunks] in gen/emit/render.py); a helper process
        renders part of them meanwhile (Note [Generation in two processes] in gen/emit/files.py)."""
        from gen.emit.render import record_templates, render
        with Helper(self._helper_outputs) as helper:
            mine = emit_part(self.spec, helper=False)
            by_path = {s.path: s for s in mine}
            theirs: Optional[dict[str, bytes]] = None
            for path in output_order(self.spec.namespace, [s.path for s in mine]):
                if path in by_path:
                    yield path, render(self.env, by_path[path])
                    continue
                if theirs is None:
                    theirs, templates = helper.result()
                    record_templates(self.env, templates)
                assert path in theirs, f"no emitter produces {path}: generator bug"
                yield path, iter((theirs.pop(path),))
            assert not theirs, f"the helper's outputs are not all fixed ones: {sorted(theirs or ())}"

    def _helper_outputs(self) -> tuple[dict[str, bytes], tuple[str, ...]]:
        """The helper's part of the outputs, rendered whole, and the templates it read."""
        from gen.emit.render import render, templates_read
        outputs = {s.path: b"".join(render(self.env, s)) for s in emit_part(self.spec, helper=True)}
        return outputs, templates_read(self.env)

    def inputs(self) -> tuple[str, ...]:
        """Every file read to generate: the YAML files (an extension's and opcore's), gen/**/*.py
        in use, the templates used."""
        from gen.emit.render import templates_read
        return self.spec.files + tuple(_generator_sources()) + templates_read(self.env)


# Note [Generation without the cycle collector]
# Generating allocates millions of small objects (the YAML data, model and view dataclasses,
# strings) that reference counting frees; almost none are in cycles. Python's cycle collector
# would still run every few hundred allocations and walk the ever larger heap, which profiling
# on PyTorch's native_functions.yaml shows to be a large share of the run. So it is paused
# while generating and restored afterwards, when the few cycles (Jinja's) are collected as
# usual.
@contextlib.contextmanager
def _generating() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _load_selected(yaml_dir: str, parse_options: ParseOptions, namespace: str, selective: Selective) -> Spec:
    spec = load_spec(yaml_dir, parse_options, namespace)
    if selective.operators is None:
        return spec
    return select(spec, selective.operators, list(selective.sources), selective.required)


def generate(yaml_dir: str, parse_options: ParseOptions = ParseOptions(), namespace: str = ATEN,
             selective: Selective = Selective()) -> Rendered:
    """Every output rendered in memory; raises SpecErrors when the YAML has mistakes."""
    with _generating():
        generation = Generation(_load_selected(yaml_dir, parse_options, namespace, selective))
        files = tuple((rel, b"".join(chunks).decode("utf-8")) for rel, chunks in generation.outputs())
    return Rendered(files, generation.inputs())


def _write_build_files(options: Options, paths: list[str], inputs: Callable[[], tuple[str, ...]],
                       targets: Optional[list[str]] = None) -> None:
    """`inputs`: what the run read (Generation.inputs), asked for only for the depfile, whose
    targets are the stamp and `targets` (default: the fixed outputs). Raises BuildFileError
    when one cannot be written (the outputs are complete by then)."""
    try:
        _write_build_files_or_fail(options, paths, inputs, targets)
    except OSError as e:
        raise BuildFileError(e) from None


def _write_build_files_or_fail(options: Options, paths: list[str], inputs: Callable[[], tuple[str, ...]],
                               targets: Optional[list[str]]) -> None:
    if options.manifest:
        write_if_changed(options.manifest, "".join(f"{rel}\n" for rel in sorted(paths)).encode())
    if options.depfile:
        # Only what the build declares as outputs may be a target (Ninja rejects a depfile
        # naming others): the stamp and the fixed outputs, not the per-operator headers.
        outputs = fixed_output_paths(options.out_dir, options.namespace) if targets is None else targets
        write_if_changed(options.depfile, depfile_text(([options.stamp] if options.stamp else []) + outputs,
                                                       list(inputs())).encode())
    if options.stamp:
        touch(options.stamp)


def run(options: Options) -> OutputReport:
    """The whole generator; nothing is written unless every input is valid (load_spec()
    checks them all before the first output is rendered), and the outputs are replaced
    together or not at all (Note [Outputs replaced as a set] in gen/output.py)."""
    with _generating():
        generation = Generation(_load_selected(options.yaml_dir, options.parse_options, options.namespace,
                                               options.selective))
        report = write_outputs(options.out_dir, generation.outputs(), layout(options.namespace), options.dry_run)
    if not options.dry_run:
        _write_build_files(options, list(report.written + report.unchanged), generation.inputs)
    return report


def check(yaml_dir: str, directory: str, parse_options: ParseOptions = ParseOptions(),
          namespace: str = ATEN, selective: Selective = Selective()) -> CheckReport:
    """How `directory` differs from what the generator would write there; writes nothing."""
    rendered = generate(yaml_dir, parse_options, namespace, selective)
    return compare_outputs(directory, list(rendered.files), layout(namespace))


def bc_check(old_dir: str, yaml_dir: str, allow_file: Optional[str], today: datetime.date,
             namespace: str = ATEN) -> Verdict:
    """The backward-incompatible changes from `old_dir`'s native_functions.yaml to `yaml_dir`'s
    (Note [Backward-compatible schema changes] in gen/model/compat.py), minus those `allow_file`
    excuses until after `today`. Raises SpecErrors for mistakes in either YAML or the allow-list."""
    old = load_spec(old_dir, namespace=namespace)
    new = load_spec(yaml_dir, namespace=namespace)
    allow: list = []
    if allow_file is not None:
        text = read_source(allow_file)
        allow, errors = parse_allow_list(text, allow_file)
        if errors:
            raise SpecErrors(sorted_errors(errors), {allow_file: text})
    breaks = breaking_changes(old.functions, new.operators, operator_files(yaml_dir)[0])
    return judge(breaks, allow, today)


def read_formula_helpers(path: str) -> frozenset[str]:
    """The names of --formula-helpers FILE; raises SpecErrors for its bad lines."""
    text = read_source(path)
    names, errors = parse_formula_helpers(text, path)
    if errors:
        raise SpecErrors(sorted_errors(errors), {path: text})
    return names


_KERNEL_SUFFIXES = (".cpp", ".cu", ".h", ".cuh")


def _read_sources(directories: list[str], flag: str) -> dict[str, str]:
    """Every C++ source under `directories` (given to `flag`): path -> text, in a fixed order."""
    sources: dict[str, str] = {}
    for directory in directories:
        if not os.path.isdir(directory):
            if os.path.exists(directory):
                raise NotADirectoryError(errno.ENOTDIR, f"not a directory (given to {flag})", directory)
            raise FileNotFoundError(errno.ENOENT, f"no such directory (given to {flag})", directory)
        for root, _dirs, names in sorted(os.walk(directory)):
            for name in sorted(names):
                if name.endswith(_KERNEL_SUFFIXES):
                    sources[os.path.join(root, name)] = read_source(os.path.join(root, name))
    return sources


def lint(yaml_dir: str, kernel_dirs: list[str], namespace: str = ATEN) -> list[str]:
    """Validates the YAML, then checks it against the kernel sources under `kernel_dirs`
    (gen/api/lint.py). Returns the warnings; raises SpecErrors listing every problem."""
    spec = load_spec(yaml_dir, namespace=namespace)
    sources = _read_sources(kernel_dirs, "--lint")
    from gen.api.lint import lint as lint_spec  # only for --lint
    errors, warnings = lint_spec(spec, sources, ", ".join(kernel_dirs))
    if errors:  # in native_functions.yaml, or in ExecuTorch's files
        raise SpecErrors(sorted_errors(errors), {e.loc.path: read_source(e.loc.path) for e in errors})
    return warnings


# ---- backend YAML (Note [Backend YAML] in gen/model/backend_yaml.py)

def load_backend(path: str, yaml_dir: str = ATEN_YAML_DIR) -> tuple[BackendYaml, Spec]:
    """The backend YAML at `path`, checked against the operators of `yaml_dir` (opcore's), and
    their Spec; raises SpecErrors listing every problem."""
    spec = load_spec(yaml_dir)
    errors: list[SpecError] = []
    sources: dict[str, str] = {}
    backend = _load(path, lambda data, p: parse_backend_yaml(data, p, spec.operators), errors, sources)
    if errors or backend is None:
        raise SpecErrors(sorted_errors(errors), sources)
    return backend, dataclasses.replace(spec, files=spec.files + (os.path.abspath(path),))


def backend_output_names(path: str) -> tuple[str, ...]:
    """The files a run on the backend YAML at `path` writes, relative to its output directory:
    they depend on its `backend:` only, read without opcore's YAML (for --list-outputs)."""
    text = read_source(path)
    data, _ = load_yaml_text(text, path)
    errors: list[SpecError] = []
    name = backend_name(data, path, errors)
    if errors:
        raise SpecErrors(errors, {path: text})
    from gen.emit.backend import output_names
    return output_names(name)


def run_backend(options: Options) -> OutputReport:
    """The backend's own files (gen/emit/backend.py) into options.out_dir, written as run()
    writes opcore's: nothing unless the backend YAML is valid, the changed files together."""
    from gen.emit import backend as emit_backend
    from gen.emit.render import make_environment, render, templates_read
    with _generating():
        backend, spec = load_backend(options.backend_yaml, options.yaml_dir)
        env = make_environment()
        outputs = ((s.path, render(env, s)) for s in emit_backend.emit(backend, spec))
        report = write_outputs(options.out_dir, outputs, Layout(subdirs=(), prefixes=GENERATED_PREFIXES),
                               options.dry_run)
    if not options.dry_run:
        targets = [os.path.join(options.out_dir, rel) for rel in emit_backend.output_names(backend.backend)]
        _write_build_files(options, list(report.written + report.unchanged),
                           lambda: spec.files + tuple(_generator_sources()) + templates_read(env), targets)
    return report


def lint_backend(path: str, yaml_dir: str, kernel_dirs: list[str]) -> None:
    """Raises SpecErrors, located in the backend YAML, for every kernel it asks for that the
    sources under `kernel_dirs` do not define (gen/api/lint.py)."""
    from gen.api.lint import lint_backend as lint_kernels
    backend, spec = load_backend(path, yaml_dir)
    errors = lint_kernels(backend, spec, _read_sources(kernel_dirs, "--lint"), ", ".join(kernel_dirs))
    if errors:
        raise SpecErrors(sorted_errors(errors), {path: read_source(path)})
