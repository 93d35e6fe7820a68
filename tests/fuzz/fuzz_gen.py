"""A seeded fuzz driver for the generator's input parsers (issue #32): mutates schema strings and
YAML files and checks what the generator does with them.

    /usr/bin/python3 tests/fuzz/fuzz_gen.py --seconds 60 --target schema [--seed 1]
    /usr/bin/python3 tests/fuzz/fuzz_gen.py --list-targets
    /usr/bin/python3 tests/fuzz/fuzz_gen.py --replay tests/fuzz/regressions/schema/*.txt

Targets (see TARGETS):
  schema        gen.model.schema.FunctionSchema.parse: parses or raises SchemaParseError, prints
                back to its input, re-parses to the same schema; its fast path and its
                recursive-descent parser agree.
  yaml          whole YAML files through gen.pipeline (load_spec, select, read_formula_helpers,
                bc_check): each loads or raises the located SpecError(s), never anything else.
  differential  the generator's parser against the runtime's (opcore._C._parse_schema): the same
                schemas accepted, printed alike, rejected with the same message.

Each finding is written to --artifacts (default build/fuzz/<target>/) in the format of
tests/fuzz/regressions/<target>/, which --replay and tests/{gen,python}/test_fuzz_regressions.py
read. Exit status: 0 when nothing was found, 1 otherwise, 2 for a usage error.
No coverage feedback: a mutated input joins the in-memory corpus when its outcome (accepted, or
the kind of error) is new, which steers mutation towards the parsers' distinct paths.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from gen import pipeline  # noqa: E402  (needs the path above)
from gen.model import schema as gen_schema  # noqa: E402
from gen.model.errors import LINE_BREAK, SpecError, SpecErrors, format_error  # noqa: E402
from gen.model.options import PYTORCH_OPTIONS, ParseOptions  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_mutators import (SCHEMA_TOKENS, YAML_TOKENS, Mutator, generated_schema, mutate_lines,  # noqa: E402
                           mutate_structure)

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
REGRESSIONS = HERE / "regressions"
# One input that takes more CPU time than this is a finding (a hang, or a parser gone
# quadratic). CPU time, not wall time: a hang burns CPU, and a machine loaded by other work
# (CI compiles beside the tests) must not turn a slow input into a finding.
TIME_LIMIT_S = 2.0
MAX_SCHEMA_LEN = 2000
MAX_CORPUS = 4000


class Hang(Exception):
    """Raised by the interval timer inside an input that ran past TIME_LIMIT_S."""


def _on_cpu_limit(signum, frame):
    raise Hang(f"no result after {TIME_LIMIT_S} s of CPU time")


# ---------------------------------------------------------------------------------------------
# Targets


@dataclass
class Finding:
    """What went wrong with one input: `kind` groups findings (one artifact per kind and
    place), `detail` says what happened."""

    kind: str
    detail: str


def _crash(e: BaseException) -> Finding:
    """An unexpected exception, grouped by type and the innermost frame in gen/."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if "/gen/" in f.filename] or \
        traceback.extract_tb(e.__traceback__)[-1:]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return Finding(f"{type(e).__name__} at {where}", "".join(traceback.format_exception(e))[-3000:])


def _parse_outcome(text: str) -> tuple[Optional[gen_schema.FunctionSchema], Optional[gen_schema.SchemaParseError]]:
    try:
        return gen_schema.FunctionSchema.parse(text), None
    except gen_schema.SchemaParseError as e:
        return None, e


def check_schema(text: str) -> Optional[Finding]:
    """The schema target's oracle for one string (None: fine)."""
    parsed, error = _parse_outcome(text)
    slow: object
    try:
        slow = gen_schema._Parser(text).parse()
    except gen_schema.SchemaParseError as e:
        slow = e
    fast = gen_schema._parse_well_formed(text)
    if fast is not None and fast != slow:
        return Finding("fast path disagrees with _Parser", f"{text!r}: fast {fast!r}, _Parser {slow!r}")
    if error is not None:
        if not 1 <= error.column <= len(text) + 1:
            return Finding("error column outside the text", f"{text!r}: {error}")
        return None
    assert parsed is not None
    if str(parsed) != text:
        return Finding("printing differs from the input", f"{text!r} printed {str(parsed)!r}")
    again = gen_schema.FunctionSchema.parse(str(parsed))
    if again != parsed or hash(again) != hash(parsed):
        return Finding("re-parse differs", f"{text!r}: {parsed!r} then {again!r}")
    return None


_RAISED_AT = re.compile(r" \(raised at [^()]*\)$")


def runtime_parse(text: str) -> tuple[Optional[str], Optional[str]]:
    """(printed schema, None) or (None, error message) from the C++ parser."""
    try:
        return _runtime()._parse_schema(text), None
    except RuntimeError as e:
        return None, _RAISED_AT.sub("", str(e))


def _runtime():
    """opcore._C: installed, or built in build/python. Only the differential target needs it."""
    if "opcore._C" not in sys.modules:
        try:
            import opcore._C  # noqa: F401
        except ImportError:
            sys.path.append(str(REPO / "build" / "python"))
            import opcore._C  # noqa: F401
    return sys.modules["opcore._C"]


def check_differential(text: str) -> Optional[Finding]:
    """The differential target's oracle: both parsers accept or both reject; alike printed;
    alike messages (columns count characters in both)."""
    parsed, error = _parse_outcome(text)
    printed, message = runtime_parse(text)
    if (parsed is None) != (printed is None):
        gen_says = "accepts" if parsed is not None else f"rejects ({error.msg})"
        cpp_says = "accepts" if printed is not None else f"rejects ({message})"
        return Finding(f"gen {gen_says.split(' ')[0]}, C++ {cpp_says.split(' ')[0]}",
                       f"{text!r}: gen {gen_says}; C++ {cpp_says}")
    if parsed is not None:
        if printed != str(parsed):
            return Finding("printed differently", f"{text!r}: gen {str(parsed)!r}, C++ {printed!r}")
        return None
    if "\x00" not in text and message != str(error):  # a C++ message is a C string: it ends at NUL
        return Finding(f"different messages ({error.msg.split(' ')[0]})",
                       f"{text!r}:\n  gen {str(error)!r}\n  C++ {message!r}")
    return None


def _schema_outcome(text: str) -> str:
    """A coarse outcome of one schema, for corpus growth: accepted, or the error's kind."""
    try:
        s = gen_schema.FunctionSchema.parse(text)
        return "ok " + " ".join(sorted({a.type.shape + a.type.base + ("=" if a.default else "") for a in s.arguments}))
    except gen_schema.SchemaParseError as e:
        return re.sub(r"'[^']*'", "''", e.msg)
    except Exception:  # noqa: BLE001  (the oracle reports it)
        return "crash"


def schema_seeds() -> list[str]:
    """Schema strings: tests/fuzz/corpus/{schema,differential}/*, the schema corpus of the
    tests (tests/schemas/) and every func: of the repository's YAML."""
    seeds = [p.read_text("utf-8") for d in ("schema", "differential") for p in sorted((CORPUS / d).glob("*"))]
    for name in ("valid.txt", "invalid.txt"):
        seeds += [line.split("\t")[0] for line in (REPO / "tests" / "schemas" / name).read_text().splitlines() if line]
    for path in _yaml_seed_paths():
        seeds += re.findall(r"^- (?:func|op): (.*)$", path.read_text("utf-8"), re.MULTILINE)
    return [s for s in dict.fromkeys(seeds) if s]


class SchemaTarget:
    name = "schema"
    ext = ".txt"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.mutator = Mutator(rng, SCHEMA_TOKENS + tuple(gen_schema.BASE_TYPES))
        self.corpus = schema_seeds()
        self.outcomes = {_schema_outcome(s) for s in self.corpus}

    def next_input(self) -> str:
        base = generated_schema(self.rng) if self.rng.random() < 0.25 else self.rng.choice(self.corpus)
        text = self.mutator.mutate(base, self.corpus) if self.rng.random() < 0.85 else base
        return text[:MAX_SCHEMA_LEN]

    def check(self, text: str) -> Optional[Finding]:
        return check_schema(text)

    def learn(self, text: str) -> None:
        if self.rng.random() < 0.75:  # one input in four: the outcome costs another parse
            return
        outcome = _schema_outcome(text)
        if outcome not in self.outcomes and len(self.corpus) < MAX_CORPUS:
            self.outcomes.add(outcome)
            self.corpus.append(text)

    @staticmethod
    def encode(text: str) -> bytes:
        return text.encode("utf-8", "surrogatepass")

    @staticmethod
    def decode(data: bytes) -> str:
        return data.decode("utf-8", "surrogatepass")


class DifferentialTarget(SchemaTarget):
    name = "differential"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.mutator = Mutator(rng, self.mutator.tokens)
        runtime_parse("f() -> ()")  # fails here, not per input, without the built package

    def next_input(self) -> str:
        text = super().next_input()
        # C++ takes UTF-8: a lone surrogate cannot reach it.
        return text.encode("utf-8", "replace").decode("utf-8")

    def check(self, text: str) -> Optional[Finding]:
        return check_differential(text)


# ---------------------------------------------------------------------------------------------
# The YAML target. An input is (role, base, text): the file `role` with content `text`, the other
# files of its directory taken from `base` (a directory of the repository).

_ATEN_ROLES = ("native_functions.yaml", "tags.yaml", "derivatives.yaml")
_EXECUTORCH_ROLES = ("custom_ops.yaml", "functions.yaml")
_SIDE_ROLES = ("selection", "formula_helpers", "allow_list")
# How often each file is the one mutated: the operators' files most, whose entries reach the most checks.
_ROLE_WEIGHTS = {"native_functions.yaml": 30, "derivatives.yaml": 20, "custom_ops.yaml": 8, "functions.yaml": 7,
                 "tags.yaml": 10, "selection": 10, "formula_helpers": 7, "allow_list": 8}
_SEED_DIRS = ("yaml", "tests/gen/fixtures/mini", "tests/gen/fixtures/keys", "tests/gen/fixtures/types",
              "tests/gen/fixtures/torchgen_derivatives", "examples/executorch/yaml")


def _yaml_seed_paths() -> list[Path]:
    return [p for d in _SEED_DIRS for p in sorted((REPO / d).glob("*.yaml"))]


@dataclass(frozen=True)
class YamlInput:
    role: str   # a file name of _ATEN_ROLES or _EXECUTORCH_ROLES, or one of _SIDE_ROLES
    base: str   # the directory (relative to the repository) the other files come from
    data: bytes

    def to_json(self) -> bytes:
        try:
            body = {"text": self.data.decode("utf-8")}
        except UnicodeDecodeError:
            body = {"hex": self.data.hex()}
        return (json.dumps({"role": self.role, "base": self.base, **body}, indent=1, ensure_ascii=False)
                + "\n").encode()

    @staticmethod
    def from_json(data: bytes) -> "YamlInput":
        d = json.loads(data)
        raw = d["text"].encode("utf-8") if "text" in d else bytes.fromhex(d["hex"])
        return YamlInput(d["role"], d["base"], raw)


def yaml_seeds() -> list[YamlInput]:
    """Every YAML file of _SEED_DIRS, and tests/fuzz/corpus/yaml/ (`<role>--<anything>`, each
    with the files of `base` named by its first line `# base: DIR`, mini's by default)."""
    seeds = [YamlInput(p.name, str(p.parent.relative_to(REPO)), p.read_bytes()) for p in _yaml_seed_paths()]
    for p in sorted((CORPUS / "yaml").glob("*--*")):
        data = p.read_bytes()
        m = re.match(rb"# base: (\S+)", data)
        seeds.append(YamlInput(p.name.split("--")[0], m.group(1).decode() if m else "tests/gen/fixtures/mini", data))
    return seeds


def _options_for(base: str) -> ParseOptions:
    return PYTORCH_OPTIONS if base.endswith("torchgen_derivatives") else ParseOptions()


class YamlRunner:
    """Runs one YamlInput through the pipeline in a scratch directory."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="fuzz_gen_"))
        (self.tmp / "in").mkdir()
        self.current: dict[str, bytes] = {}  # the files in tmp/in
        self.repo_files: dict[Path, bytes] = {}
        self.mini = pipeline.load_spec(str(REPO / "tests/gen/fixtures/mini"))

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run(self, inp: YamlInput) -> None:
        """Runs it; raises whatever the pipeline raises."""
        d = self.tmp / "in"
        wanted = {} if inp.role in _SIDE_ROLES else {
            name: self._repo_file(REPO / inp.base / name) for name in _ATEN_ROLES + _EXECUTORCH_ROLES
            if (REPO / inp.base / name).exists()}
        wanted[inp.role] = inp.data
        # The directory is kept from one input to the next (removing one costs milliseconds
        # here): only the files that change are written.
        for name in set(self.current) - set(wanted):
            (d / name).unlink()
            del self.current[name]
        for name, data in wanted.items():
            if self.current.get(name) != data:
                (d / name).write_bytes(data)
                self.current[name] = data
        self._call(inp, d, d / inp.role)

    def _repo_file(self, path: Path) -> bytes:
        if path not in self.repo_files:
            self.repo_files[path] = path.read_bytes()
        return self.repo_files[path]

    def _call(self, inp: YamlInput, d: Path, path: Path) -> None:
        if inp.role == "selection":
            pipeline.select(self.mini, str(path), [], ())
        elif inp.role == "formula_helpers":
            pipeline.read_formula_helpers(str(path))
        elif inp.role == "allow_list":
            import datetime
            pipeline.bc_check(str(REPO / "tests/gen/fixtures/mini"), str(REPO / "tests/gen/fixtures/mini"),
                              str(path), datetime.date(2026, 1, 1))
        elif inp.role in _EXECUTORCH_ROLES:
            pipeline.load_spec(str(d), namespace="etlib")
        else:
            pipeline.load_spec(str(d), _options_for(inp.base))


def _located(e: SpecError, files: dict[str, str]) -> Optional[str]:
    """Why `e`'s location is wrong, or None: it must name a file, and a line and column in it."""
    loc = e.loc
    if not str(e).startswith(f"{loc.path}:{loc.line}:{loc.col}: error: "):
        return f"not 'path:line:col: error:' form: {str(e)[:200]!r}"
    if loc.line < 1 or loc.col < 1:
        return f"line or column below 1: {loc}"
    text = files.get(loc.path)
    if text is None and os.path.isfile(loc.path):
        text = Path(loc.path).read_text("utf-8", "replace")
    if text is None:
        return f"names no file: {loc}"
    lines = LINE_BREAK.split(text.removeprefix("\ufeff"))
    if loc.line > len(lines):
        return f"line {loc.line} past the end ({len(lines)} lines): {e}"
    format_error(e, text)
    return None


def check_yaml(runner: YamlRunner, inp: YamlInput) -> tuple[Optional[Finding], tuple[str, ...]]:
    """The YAML target's oracle: loads, or raises SpecError(s) each located in a file. Also
    returns what it printed: () when it loaded, else every error message."""
    try:
        runner.run(inp)
        return None, ()
    except SpecErrors as e:
        errors = e.errors
    except SpecError as e:
        errors = (e,)
    except Hang:
        raise
    except Exception as e:  # noqa: BLE001  (anything else is the finding)
        return _crash(e), ("crash",)
    files = _written(runner)
    for e in errors:
        why = _located(e, files)
        if why:
            return Finding(f"badly located error ({re.sub(r'[0-9]+', 'N', why.split(':')[0])})",
                           f"{why}\n  {str(e)[:300]}"), ("crash",)
    return None, tuple(str(e) for e in errors)


def _written(runner: YamlRunner) -> dict[str, str]:
    d = runner.tmp / "in"
    return {str(d / name): data.decode("utf-8", "replace") for name, data in runner.current.items()}


_SCHEMA_LINE = re.compile(r"^( *-? *(?:func|op|name): )(.+)$", re.MULTILINE)


class YamlTarget:
    name = "yaml"
    ext = ".json"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.mutator = Mutator(rng, YAML_TOKENS + SCHEMA_TOKENS)
        self.schema_mutator = Mutator(rng, SCHEMA_TOKENS + tuple(gen_schema.BASE_TYPES), unicode=False)
        self.corpus = yaml_seeds()
        self.texts = [s.data.decode("utf-8", "replace") for s in self.corpus]
        self.by_role: dict[str, list[YamlInput]] = {role: [] for role in _ROLE_WEIGHTS}
        for seed in self.corpus:
            self.by_role[seed.role].append(seed)
        self.runner = YamlRunner()
        self.outcomes: set[str] = set()
        self.outcome = ""

    def next_input(self) -> YamlInput:
        role = self.rng.choices(list(_ROLE_WEIGHTS), weights=list(_ROLE_WEIGHTS.values()))[0]
        # Small files more often: a large one costs ten times as much per run.
        seed = min((self.rng.choice(self.by_role[role]) for _ in range(2)), key=lambda s: len(s.data))
        text = seed.data.decode("utf-8", "replace")
        r = self.rng.random()
        if r < 0.3:
            text = self._new_schema(text)
        elif r < 0.6:
            text = mutate_structure(self.rng, text, self.texts)
        for _ in range(int(self.rng.expovariate(1.0)) + (r >= 0.6)):
            text = mutate_lines(self.mutator, text, self.texts)
        data = text.encode("utf-8", "surrogatepass")
        if self.rng.random() < 0.02:  # bytes that are not UTF-8
            i = self.rng.randrange(len(data) + 1)
            data = data[:i] + bytes([self.rng.randrange(0x80, 0x100)]) + data[i:]
        return YamlInput(seed.role, seed.base, data)

    def _new_schema(self, text: str) -> str:
        """`text` with the schema of one `func:` (or `name:`, `op:`) replaced: by one made from
        the grammar, or an edit of it; the checks past the schema parser see unusual types."""
        lines = [m for m in _SCHEMA_LINE.finditer(text)]
        if not lines:
            return text
        m = self.rng.choice(lines)
        new = generated_schema(self.rng) if self.rng.random() < 0.5 else self.schema_mutator.mutate(m.group(2), [])
        return text[:m.start(2)] + new.replace("\n", " ") + text[m.end(2):]

    def check(self, inp: YamlInput) -> Optional[Finding]:
        finding, messages = check_yaml(self.runner, inp)
        if finding is None and self.rng.random() < 0.05:
            # The same input, the same errors: no state kept from one load to the next.
            again = check_yaml(self.runner, inp)[1]
            if again != messages:
                finding = Finding("a second load differs", f"first {messages}\n  then {again}")
        self.outcome = " ".join(sorted({re.sub(r"'[^']*'|\d+", "", m.split(": error: ", 1)[-1])[:60]
                                        for m in messages})) or "ok"
        return finding

    def learn(self, inp: YamlInput) -> None:
        outcome = f"{inp.role} {self.outcome}"
        if outcome not in self.outcomes and len(self.corpus) < MAX_CORPUS:
            self.outcomes.add(outcome)
            self.corpus.append(inp)
            self.by_role[inp.role].append(inp)
            self.texts.append(inp.data.decode("utf-8", "replace"))

    @staticmethod
    def encode(inp: YamlInput) -> bytes:
        return inp.to_json()

    @staticmethod
    def decode(data: bytes) -> YamlInput:
        return YamlInput.from_json(data)


TARGETS = {"schema": SchemaTarget, "yaml": YamlTarget, "differential": DifferentialTarget}


# ---------------------------------------------------------------------------------------------
# Running


def timed_check(target, inp) -> Optional[Finding]:
    """target.check(inp) under the time limit; any exception out of the oracle is a finding."""
    signal.setitimer(signal.ITIMER_PROF, TIME_LIMIT_S)
    start = time.process_time()
    try:
        finding = target.check(inp)
    except Hang as e:
        finding = Finding("hang", str(e))
    except RecursionError as e:
        finding = _crash(e)
    except Exception as e:  # noqa: BLE001
        finding = _crash(e)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    if finding is None and time.process_time() - start > TIME_LIMIT_S:  # C++ ignores the timer
        finding = Finding("hang", f"took {time.process_time() - start:.1f} s of CPU time")
    return finding


def save(target, inp, finding: Finding, artifacts: Path) -> Path:
    data = target.encode(inp)
    artifacts.mkdir(parents=True, exist_ok=True)
    path = artifacts / (hashlib.sha1(data).hexdigest()[:16] + target.ext)
    path.write_bytes(data)
    return path


def fuzz(target_name: str, seconds: float, iterations: Optional[int], seed: int, artifacts: Path,
         quiet: bool = False) -> tuple[int, float, dict[str, tuple[Path, Finding]]]:
    """Runs the target until `seconds` pass or `iterations` inputs ran; returns (inputs run,
    seconds taken, the first finding of each kind with its artifact)."""
    signal.signal(signal.SIGPROF, _on_cpu_limit)
    target = TARGETS[target_name](random.Random(seed))
    found: dict[str, tuple[Path, Finding]] = {}
    start = time.perf_counter()
    deadline = start + seconds
    runs = 0
    try:
        while (iterations is None or runs < iterations) and (runs % 16 or time.perf_counter() < deadline):
            inp = target.next_input()
            finding = timed_check(target, inp)
            runs += 1
            if finding is not None:
                if finding.kind not in found:
                    found[finding.kind] = (save(target, inp, finding, artifacts), finding)
                    if not quiet:
                        print(f"[{target_name}] FOUND {finding.kind}: {found[finding.kind][0]}\n  "
                              f"{finding.detail[:1500]}", flush=True)
            else:
                target.learn(inp)
    finally:
        if hasattr(target, "runner"):
            target.runner.close()
    return runs, time.perf_counter() - start, found


def replay(paths: list[Path]) -> list[tuple[Path, Finding]]:
    """Runs each regression file (its target: the name of its directory) through its oracle."""
    signal.signal(signal.SIGPROF, _on_cpu_limit)
    failures = []
    targets: dict[str, object] = {}
    try:
        for path in paths:
            name = path.parent.name
            if name not in targets:
                targets[name] = TARGETS[name](random.Random(0))
            target = targets[name]
            finding = timed_check(target, target.decode(path.read_bytes()))
            if finding is not None:
                failures.append((path, finding))
    finally:
        for t in targets.values():
            if hasattr(t, "runner"):
                t.runner.close()
    return failures


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", choices=sorted(TARGETS), help="the target to fuzz (default: each in turn)")
    ap.add_argument("--seconds", type=float, default=10.0, help="how long to fuzz each target")
    ap.add_argument("--iterations", type=int, help="stop after this many inputs (per target)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--artifacts", type=Path, help="where findings go (default: build/fuzz/<target>/)")
    ap.add_argument("--list-targets", action="store_true", help="print the target names, one a line")
    ap.add_argument("--replay", type=Path, nargs="+", help="check these regression files and exit")
    args = ap.parse_args(argv)
    if args.list_targets:
        print("\n".join(TARGETS))
        return 0
    if args.replay:
        failures = replay(args.replay)
        for path, finding in failures:
            print(f"{path}: {finding.kind}\n  {finding.detail}")
        print(f"{len(args.replay) - len(failures)}/{len(args.replay)} regression cases pass")
        return 1 if failures else 0
    total = 0
    for name in [args.target] if args.target else list(TARGETS):
        artifacts = args.artifacts or REPO / "build" / "fuzz" / name
        try:
            runs, took, found = fuzz(name, args.seconds, args.iterations, args.seed, artifacts)
        except ImportError as e:  # the differential target without a built opcore._C
            print(f"[{name}] cannot run: {e} (build it: ninja -C build)", file=sys.stderr)
            return 2
        print(f"[{name}] {runs} inputs in {took:.1f} s ({runs / took:.0f}/s), seed {args.seed}, "
              f"{len(found)} finding(s)" + (f" in {artifacts}" if found else ""), flush=True)
        total += len(found)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
