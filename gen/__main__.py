"""Command line of the generator: `python3 -m gen [--yaml-dir DIR] [--out DIR] ...`.

Parses flags and calls gen.pipeline; all the work happens there.
"""
from __future__ import annotations

import argparse
import sys

from gen import pipeline
from gen.model.errors import MAX_ERRORS, SpecErrors, format_error


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m gen",
        description="Generate opcore's C++ operator library from yaml/native_functions.yaml. "
                    "Errors in the YAML are printed as `path:line:col: error: message`, then the "
                    "source line and a caret under the column; exit status 1.",
    )
    p.add_argument("--yaml-dir", default="yaml", metavar="DIR",
                   help="directory with native_functions.yaml, tags.yaml, derivatives.yaml "
                        "(default: %(default)s)")
    p.add_argument("--out", default="build/generated", metavar="DIR",
                   help="output directory (default: %(default)s)")
    p.add_argument("--list-outputs", action="store_true",
                   help="print the generated file paths, one per line, and exit (reads no YAML)")
    p.add_argument("--dry-run", action="store_true",
                   help="validate and render, print which files would change, write nothing")
    return p


def _print_errors(errors: SpecErrors) -> None:
    shown = errors.errors[:MAX_ERRORS]
    for e in shown:
        print(format_error(e, errors.sources.get(e.loc.path)), file=sys.stderr)
    if len(errors.errors) > len(shown):
        print(f"gen: {len(errors.errors) - len(shown)} more error(s) not shown", file=sys.stderr)


def _print_report(report, dry_run: bool) -> None:
    if dry_run:
        for rel in report.written:
            print(f"would write {rel}")
        for rel in report.removed:
            print(f"would remove {rel}")
        return
    print(f"gen: {len(report.written)} written, {len(report.unchanged)} unchanged, "
          f"{len(report.removed)} removed")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.list_outputs:
        print("\n".join(pipeline.output_paths(args.out)))
        return 0
    options = pipeline.Options(yaml_dir=args.yaml_dir, out_dir=args.out, dry_run=args.dry_run)
    try:
        report = pipeline.run(options)
    except SpecErrors as errors:
        _print_errors(errors)
        return 1
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"gen: error: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    _print_report(report, args.dry_run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
