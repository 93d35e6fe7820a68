"""Writing generated files: only when the content changed (unchanged files keep their mtime,
so Ninja rebuilds nothing), atomically (temporary file in the same directory, then
os.replace), and removing stale generated files that are no longer outputs.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

_SOURCE_SUFFIXES = (".h", ".cpp")


@dataclass(frozen=True)
class OutputReport:
    """Paths relative to the output directory."""

    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def _write_atomically(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.tmp{os.getpid()}")
    # 0o666 minus the umask, like any other file the build creates (mkstemp would give 0o600).
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _is_generated(path: str, mark: str) -> bool:
    if not path.endswith(_SOURCE_SUFFIXES):
        return False
    with open(path, "rb") as f:
        return f.readline().startswith(mark.encode())


def stale_files(out_dir: str, outputs: set[str], mark: str, subdir: str = "opcore") -> list[str]:
    """Generated files (first line starts with `mark`) under out_dir/subdir not in `outputs`."""
    stale = []
    for root, _dirs, names in os.walk(os.path.join(out_dir, subdir)):
        for name in sorted(names):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, out_dir).replace(os.sep, "/")
            if rel not in outputs and _is_generated(path, mark):
                stale.append(rel)
    return sorted(stale)


def write_outputs(out_dir: str, files: list[tuple[str, str]], mark: str,
                  dry_run: bool = False) -> OutputReport:
    """Writes `files` ((relative path, text) pairs) under out_dir; removes stale ones.

    With dry_run, reports what would change and touches nothing.
    """
    paths = [rel for rel, _ in files]
    assert len(set(paths)) == len(paths), "a file is written twice: generator bug"
    written, unchanged = [], []
    for rel, text in files:
        path = os.path.join(out_dir, rel)
        data = text.encode("utf-8")
        if _read(path) == data:
            unchanged.append(rel)
            continue
        if not dry_run:
            _write_atomically(path, data)
        written.append(rel)
    removed = stale_files(out_dir, set(paths), mark)
    if not dry_run:
        for rel in removed:
            os.unlink(os.path.join(out_dir, rel))
    return OutputReport(tuple(written), tuple(unchanged), tuple(removed))
