"""Command line of the generator: `python3 -m gen [--yaml-dir DIR] [--out DIR] ...`.

Parses flags and calls gen.pipeline; all the work happens there. `--help` lists the flags.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import io
import os
import sys

from gen.model.errors import MAX_ERRORS, SpecError, SpecErrors, format_error
from gen.output import BuildFileError, CheckReport, OutputReport

_DEFAULT_OUT = "build/generated"

_EPILOG = """\
Errors in the YAML are printed as `path:line:col: error: message`, followed by the source
line and a caret under the column. Every error found is reported (the first 20 printed);
then the run fails and writes nothing. The changed outputs are replaced together, once all
are written: a failed write (a full disk, a directory in the way) leaves DIR as it was.

exit status: 0 on success (with --check: DIR is up to date); 1 on errors in the YAML,
unreadable or unwritable files, or (with --check) when DIR differs; 2 on bad usage.
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m gen", epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Generate opcore's C++ operator library (and docs/operators.md) from\n"
                    "native_functions.yaml (or ExecuTorch's custom_ops.yaml and functions.yaml),\n"
                    "tags.yaml and derivatives.yaml.")
    p.add_argument("--yaml-dir", metavar="DIR",
                   help="directory with native_functions.yaml (or ExecuTorch's custom_ops.yaml and "
                        "functions.yaml), tags.yaml, derivatives.yaml (default: yaml; with --backend-yaml, "
                        "opcore's own, beside the generator)")
    p.add_argument("--backend-yaml", metavar="FILE",
                   help="generate an out-of-tree backend's files instead: FILE lists its kernels in PyTorch's "
                        "gen_backend_stubs format (backend:, cpp_namespace:, supported:, autograd:), and "
                        "<backend>NativeFunctions.h (the kernels it defines) and Register<backend>.cpp (their "
                        "registrations at PrivateUse1) are written to --out; with --lint, the kernels the "
                        "sources under DIR do not define are errors (docs/backends.md)")
    p.add_argument("--out", metavar="DIR",
                   help=f"output directory; only files that changed are rewritten, and stale "
                        f"generated files are removed (default: {_DEFAULT_OUT})")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--list-outputs", action="store_true",
                      help="print the paths (under --out) of the generated files that exist "
                           "whatever the YAML, one per line, and exit (reads no YAML): every "
                           ".cpp file to compile, the aggregate headers and the docs; the "
                           "per-operator headers (opcore/ops/) are in --manifest")
    mode.add_argument("--dry-run", action="store_true",
                      help="validate and render, print which files would change, write nothing")
    mode.add_argument("--check", metavar="DIR",
                      help="render in memory and compare with DIR, writing nothing: print 'up to "
                           "date' (exit 0), or list stale, missing and extra files, with the start "
                           "of a diff for each stale one (exit 1)")
    mode.add_argument("--lint", metavar="DIR", nargs="+",
                      help="validate the YAML against the kernel sources under each DIR (e.g. "
                           "kernels): every kernel named in dispatch: and every structured meta "
                           "function must be defined there; warns about declared tags no operator "
                           "uses. Writes nothing; exit 1 on errors")
    mode.add_argument("--bc-check", metavar="OLD_DIR",
                      help="compare native_functions.yaml with an older copy in OLD_DIR and list every "
                           "backward-incompatible schema change (a removed overload; an argument renamed, "
                           "moved, retyped, or without its default; a new argument without a default; "
                           "changed returns or alias annotations), located in the new file; exit 1 on any. "
                           "Writes nothing")
    _add_reading_options(p)
    _add_build_options(p)
    return p


def _add_build_options(p: argparse.ArgumentParser) -> None:
    """The files a build system reads (opcore_generate, opcore_generate_backend)."""
    build = p.add_argument_group("build integration (written only after a successful run)")
    build.add_argument("--manifest", metavar="FILE",
                       help="write the sorted generated paths, relative to --out, one per line "
                            "(rewritten only when it changes)")
    build.add_argument("--depfile", metavar="FILE",
                       help="write a Makefile-syntax depfile: the --stamp file and the outputs of "
                            "--list-outputs depend on every file the run read (the YAML files, the generator's "
                            "Python modules and templates)")
    build.add_argument("--stamp", metavar="FILE",
                       help="touch FILE after every successful run; it is the depfile's first target")


def _add_reading_options(p: argparse.ArgumentParser) -> None:
    """The options that change how the YAML is read."""
    p.add_argument("--namespace", default="aten", metavar="NS",
                   help="the namespace of the YAML's operators (default: %(default)s, opcore's own): another "
                        "generates an operator library of its own, built on opcore's operators, with its "
                        "C++ API in namespace NS and its files under NS/ (docs/libraries.md)")
    p.add_argument("--bc-allow", metavar="FILE",
                   help="with --bc-check: lines 'NAME YYYY-MM-DD [reason]' excusing the breaks of operator "
                        "NAME (or of names starting with NAME's text before a final *) until that date")
    p.add_argument("--pytorch-yaml", action="store_true", help="read the YAML as torchgen does (PyTorch's "
                   "own files): backend keys dropped, dispatch: optional, derivatives.yaml in torchgen's "
                   "format")
    p.add_argument("--selected-operators", metavar="FILE",
                   help="a selective build: register only the operators FILE lists (PyTorch's "
                        "selected_operators.yaml, or one 'aten::name.overload' per line) and those they need "
                        "(docs/libraries.md); the others' C++ API stays, and calling one says the "
                        "build left it out")
    p.add_argument("--selection-sources", metavar="DIR", nargs="+", default=[],
                   help="with --selected-operators: the hand-written sources (kernels, runtime) whose calls "
                        "decide which operators the selected ones need")
    p.add_argument("--required-operators", metavar="FILE", nargs="+", default=[],
                   help="with --selected-operators: operator lists (either format) of code built whatever the "
                        "selection, such as opcore's runtime (runtime/required_operators.txt): kept, with what "
                        "they need")
    p.add_argument("--formula-helpers", metavar="FILE",
                   help="with --pytorch-yaml: names (one per line) that formulas in derivatives.yaml may "
                        "call besides opcore's operators and helpers, declared by the user's build (such "
                        "as PyTorch's FunctionsManual.h)")


# C++ keywords and the namespaces an extension's generated C++ namespace would collide with.
_RESERVED_NAMESPACES = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
    compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
    default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
    int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch
    template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
    wchar_t while xor xor_eq opcore std
""".split())


def _namespace_problem(namespace: str) -> str:
    """Why `namespace` cannot name an operator library, or ""."""
    if not namespace.isidentifier() or not namespace.isascii():
        return "an operator namespace is a C++ identifier (letters, digits, '_'), as in 'myops::fused_gelu'"
    if namespace in _RESERVED_NAMESPACES or namespace.startswith("_") or "__" in namespace:
        return ("reserved: its generated C++ namespace would collide with "
                + ("opcore's runtime" if namespace == "opcore" else "the C++ language or library"))
    return ""


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = _parser()
    args = p.parse_args(argv)
    for flag, value in (("--yaml-dir", args.yaml_dir), ("--out", args.out), ("--check", args.check),
                        ("--manifest", args.manifest), ("--depfile", args.depfile), ("--stamp", args.stamp),
                        *(("--lint", d) for d in args.lint or ())):
        if value == "":  # not "the working directory": an unset variable in a build script, most likely
            p.error(f"{flag} needs a path, not an empty string")
    writes = [f for f, v in (("--manifest", args.manifest), ("--depfile", args.depfile),
                             ("--stamp", args.stamp)) if v]
    mode = next((f for f, v in (("--list-outputs", args.list_outputs), ("--dry-run", args.dry_run),
                                ("--check", args.check), ("--lint", args.lint), ("--bc-check", args.bc_check))
                 if v), None)
    if writes and mode:
        p.error(f"{writes[0]} cannot be combined with {mode}, which writes no files")
    if args.check and args.out:
        p.error("--check DIR compares DIR; --out is not used with it")
    if args.pytorch_yaml and (args.lint or args.bc_check):
        p.error(f"--pytorch-yaml cannot be combined with {'--lint' if args.lint else '--bc-check'}")
    if args.bc_allow is not None and not args.bc_check:
        p.error("--bc-allow goes with --bc-check")
    for flag, value in (("--selection-sources", args.selection_sources),
                        ("--required-operators", args.required_operators)):
        if value and args.selected_operators is None:
            p.error(f"{flag} goes with --selected-operators")
    if args.formula_helpers is not None and not args.pytorch_yaml:
        p.error("--formula-helpers goes with --pytorch-yaml (opcore's own helpers are in "
                "runtime/opcore/autograd/Formulas.h)")
    problem = _namespace_problem(args.namespace)
    if problem:
        p.error(f"--namespace {args.namespace!r}: {problem}")
    if args.pytorch_yaml and args.namespace != "aten":
        p.error("--pytorch-yaml reads PyTorch's own YAML, whose operators are in 'aten': not with --namespace")
    if args.backend_yaml is not None:
        _check_backend_args(p, args)
    if args.bc_check == "" or args.bc_allow == "":
        p.error("--bc-check and --bc-allow need a path, not an empty string")
    args.out = args.out or _DEFAULT_OUT
    return args


def _check_backend_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """--backend-yaml reads opcore's aten operators and writes a backend's two files."""
    if args.backend_yaml == "":
        p.error("--backend-yaml needs a path, not an empty string")
    others = [flag for flag, value in (("--check", args.check), ("--bc-check", args.bc_check),
                                       ("--pytorch-yaml", args.pytorch_yaml),
                                       ("--selected-operators", args.selected_operators),
                                       ("--namespace", args.namespace != "aten")) if value]
    if others:
        p.error(f"--backend-yaml cannot be combined with {others[0]}")


def _print_errors(errors: SpecErrors) -> None:
    shown = errors.errors[:MAX_ERRORS]
    for e in shown:
        print(format_error(e, errors.sources.get(e.loc.path)), file=sys.stderr)
    if len(errors.errors) > len(shown):
        print(f"gen: {len(errors.errors) - len(shown)} more error(s) not shown", file=sys.stderr)


def _print_report(report: OutputReport, dry_run: bool) -> None:
    if dry_run:
        for rel in report.written:
            print(f"would write {rel}")
        for rel in report.removed:
            print(f"would remove {rel}")
        return
    print(f"gen: {len(report.written)} written, {len(report.unchanged)} unchanged, "
          f"{len(report.removed)} removed")


def _print_check(report: CheckReport, directory: str, regenerate: str) -> None:
    """`regenerate`: the flags besides --out that write `directory` again."""
    if report.up_to_date:
        print(f"gen: {directory} is up to date")
        return
    for rel, diff in report.stale:
        print(f"stale: {rel}\n{diff}", end="")
    for rel in report.missing:
        print(f"missing: {rel}")
    for rel in report.extra:
        print(f"extra: {rel} (generated, but no longer an output)")
    print(f"gen: {directory} is out of date: {len(report.stale)} stale, {len(report.missing)} "
          f"missing, {len(report.extra)} extra (regenerate with: python3 -m gen{regenerate} --out {directory})")


def _bc_check(verdict, old_dir: str) -> int:
    for b in verdict.breaks:
        print(b, file=sys.stderr)
    for b in verdict.allowed:
        print(f"{b.loc}: note: allowed by the allow-list: {b.what} ('{b.name}')", file=sys.stderr)
    for a in verdict.expired:
        print(f"{a.loc}: warning: allow-list entry '{a.pattern}' expired on {a.expires}: it excuses "
              f"nothing; remove it", file=sys.stderr)
    if verdict.breaks:
        print(f"gen: bc-check: {len(verdict.breaks)} backward-incompatible change(s) since {old_dir}",
              file=sys.stderr)
        return 1
    print(f"gen: bc-check: compatible with {old_dir}" +
          (f" ({len(verdict.allowed)} change(s) allowed)" if verdict.allowed else ""))
    return 0


def _list_outputs(args: argparse.Namespace) -> int:
    from gen import pipeline
    if args.backend_yaml is not None:
        print("\n".join(os.path.join(args.out, rel) for rel in pipeline.backend_output_names(args.backend_yaml)))
        return 0
    print("\n".join(pipeline.fixed_output_paths(args.out, args.namespace)))
    return 0


def _run(args: argparse.Namespace) -> int:
    from gen import pipeline  # here, not at the top: --help and usage errors need none of it
    from gen.model.options import PYTORCH_OPTIONS, ParseOptions
    if args.backend_yaml is not None:
        args.yaml_dir = args.yaml_dir or pipeline.ATEN_YAML_DIR
        return _run_backend(args, pipeline)
    args.yaml_dir = args.yaml_dir or "yaml"
    if args.lint:
        for warning in pipeline.lint(args.yaml_dir, args.lint, args.namespace):
            print(warning, file=sys.stderr)
        print(f"gen: lint: {args.yaml_dir} agrees with {', '.join(args.lint)}")
        return 0
    if args.bc_check:
        return _bc_check(pipeline.bc_check(args.bc_check, args.yaml_dir, args.bc_allow, datetime.date.today(),
                                           args.namespace), args.bc_check)
    parse_options = PYTORCH_OPTIONS if args.pytorch_yaml else ParseOptions()
    if args.formula_helpers:
        parse_options = dataclasses.replace(parse_options,
                                            formula_helpers=pipeline.read_formula_helpers(args.formula_helpers))
    selective = pipeline.Selective(args.selected_operators, tuple(args.selection_sources),
                                   tuple(args.required_operators))
    if args.check:
        report = pipeline.check(args.yaml_dir, args.check, parse_options, args.namespace, selective)
        flags = [("--yaml-dir", args.yaml_dir, "yaml"), ("--namespace", args.namespace, "aten"),
                 ("--selected-operators", args.selected_operators, None)]
        _print_check(report, args.check, "".join(f" {flag} {value}" for flag, value, default in flags
                                                 if value != default) + " --pytorch-yaml" * args.pytorch_yaml)
        return 0 if report.up_to_date else 1
    options = pipeline.Options(yaml_dir=args.yaml_dir, out_dir=args.out, dry_run=args.dry_run,
                               manifest=args.manifest, depfile=args.depfile, stamp=args.stamp,
                               parse_options=parse_options, namespace=args.namespace, selective=selective)
    _print_report(pipeline.run(options), args.dry_run)
    return 0


def _run_backend(args: argparse.Namespace, pipeline) -> int:
    if args.lint:
        pipeline.lint_backend(args.backend_yaml, args.yaml_dir, args.lint)
        print(f"gen: lint: {', '.join(args.lint)} define every kernel of {args.backend_yaml}")
        return 0
    options = pipeline.Options(yaml_dir=args.yaml_dir, out_dir=args.out, dry_run=args.dry_run,
                               manifest=args.manifest, depfile=args.depfile, stamp=args.stamp,
                               backend_yaml=args.backend_yaml)
    _print_report(pipeline.run_backend(options), args.dry_run)
    return 0


def main(argv: list[str] | None = None) -> int:
    """The exit status. What goes to stdout (--help, reports, lists) is written once the run is
    over, so that a stdout that cannot be written (a full disk, a closed pipe) is an error
    saying so, not a traceback."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            status = _main(argv)
        except SystemExit as e:  # --help, or bad usage: argparse exits
            status = e.code if isinstance(e.code, int) else 0 if e.code is None else 2
    return _write_stdout(out.getvalue(), status)


def _write_stdout(text: str, status: int) -> int:
    if not text or sys.stdout is None:  # None: stdout closed
        return status
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as e:
        print(f"gen: error: cannot write to the standard output: {e.strerror or e}", file=sys.stderr)
        return 1
    return status


def _main(argv: list[str] | None) -> int:
    args = _parse_args(argv)
    try:
        return _list_outputs(args) if args.list_outputs else _run(args)
    except SpecErrors as errors:
        _print_errors(errors)
        return 1
    except SpecError as error:  # a side file (--selected-operators, --formula-helpers, ...) unreadable or not YAML
        _print_errors(SpecErrors([error]))
        return 1
    except BuildFileError as e:
        print(f"gen: error: {_describe(e.error)} (the generated files under {args.out} were all "
              f"updated; only this build file could not be written)", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"gen: error: {_describe(e)}", file=sys.stderr)
        return 1


def _describe(e: OSError) -> str:
    where = f"{e.filename}: " if e.filename else ""
    return f"{where}{e.strerror or e}"


if __name__ == "__main__":
    sys.exit(main())
