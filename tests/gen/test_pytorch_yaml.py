"""Conformance: PyTorch's own native_functions.yaml and tags.yaml, read by opcore's model with
PYTORCH_OPTIONS (its backend keys dropped, the keys opcore lacks skipped, `dispatch:` optional).
Every entry must parse and pass opcore's invariants; an entry breaking one of our rules means
the rule is wrong (it should be torchgen's). The C++ API then accepts every entry, and the
emitters run, in memory, over all of them: generation without compiling.

Skips unless the files are there: Debian's python3-torch installs them under
/usr/lib/python3/dist-packages/torchgen/packaged/ATen/native/, or OPCORE_PYTORCH_YAML_DIR names
a directory holding both. Nothing of PyTorch's is copied into this repository.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import pytest
from genutil import REPO, load_model, run_gen

from gen import pipeline
from gen.api.autograd import AutogradKind, autograd_kind
from gen.api.signature_checks import check_functions
from gen.api.dispatcher import struct_name
from gen.model.errors import SpecError
from gen.model.native_function import NONDETERMINISTIC_SEEDED, NativeFunction
from gen.model.operators import group_name
from gen.model.options import PYTORCH_OPTIONS
from gen.model.schema import OperatorName
from gen.model.spec import Spec
from gen.model.tags import parse_tags
from gen.model.yaml_loader import load_yaml

_DEBIAN_DIR = Path("/usr/lib/python3/dist-packages/torchgen/packaged/ATen/native")

def _yaml_dir() -> Optional[Path]:
    directory = Path(os.environ.get("OPCORE_PYTORCH_YAML_DIR", _DEBIAN_DIR))
    has_both = all((directory / name).is_file() for name in ("native_functions.yaml", "tags.yaml"))
    return directory if has_both else None


pytestmark = pytest.mark.skipif(_yaml_dir() is None, reason="PyTorch's native_functions.yaml is not installed "
                                "(apt-get install python3-torch, or set OPCORE_PYTORCH_YAML_DIR)")


def _without_derivatives(tmp_path: Path) -> Path:
    """A YAML directory with PyTorch's native_functions.yaml and tags.yaml and an empty
    derivatives.yaml."""
    directory = _yaml_dir()
    assert directory is not None
    yaml_dir = tmp_path / "yaml"
    yaml_dir.mkdir()
    for name in ("native_functions.yaml", "tags.yaml"):
        shutil.copy(directory / name, yaml_dir / name)
    (yaml_dir / "derivatives.yaml").write_text("[]\n", encoding="utf-8")
    return yaml_dir


@pytest.fixture(scope="module")
def pytorch() -> tuple[dict[str, NativeFunction], list[SpecError], int, float]:
    """The valid entries by name, the errors, the number of entries, and the seconds taken."""
    directory = _yaml_dir()
    assert directory is not None
    start = time.perf_counter()
    functions, errors = load_model(directory, PYTORCH_OPTIONS)
    seconds = time.perf_counter() - start
    entries, _ = load_yaml(str(directory / "native_functions.yaml"))
    return {f.name: f for f in functions}, errors, len(entries), seconds


def test_every_entry_parses_and_validates(pytorch, record_property) -> None:
    functions, errors, entries, seconds = pytorch
    record_property("entries", entries)
    record_property("seconds", round(seconds, 2))
    print(f"\nPyTorch native_functions.yaml: {entries} entries, {len(functions)} valid, read in {seconds:.2f}s")
    assert [str(e) for e in errors] == []
    declared = [f for f in functions.values() if not f.autogen_source]
    assert len(declared) == entries
    assert entries > 2000
    generated = [f for f in functions.values() if f.autogen_source]
    # An operator's functional and in-place overloads may list the same one (PyTorch's
    # _foreach_lerp.List_out); it is generated once.
    assert len(generated) == len({str(name) for f in declared for name in f.autogen}) > 400


def test_autogen_derives_pytorchs_schemas(pytorch) -> None:
    """The overloads PyTorch generates from `autogen:`, with the schemas torchgen gives them."""
    functions, _, _, _ = pytorch
    expected = {
        "add.Scalar_out": "add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)",
        "uniform": "uniform(Tensor self, float from=0, float to=1, *, Generator? generator=None) -> Tensor",
        "_foreach_zero": "_foreach_zero(Tensor[] self) -> Tensor[] self_out",
        "_foreach_exp.out": "_foreach_exp.out(Tensor[] self, *, Tensor(a!)[] out) -> ()",
        "_fused_moving_avg_obs_fq_helper.out": (
            "_fused_moving_avg_obs_fq_helper.out(Tensor self, Tensor observer_on, Tensor fake_quant_on, "
            "Tensor(a!) running_min, Tensor(b!) running_max, Tensor(c!) scale, Tensor(d!) zero_point, "
            "float averaging_const, int quant_min, int quant_max, int ch_axis, bool per_row_fake_quant=False, "
            "bool symmetric_quant=False, *, Tensor(e!) out0, Tensor(f!) out1) -> (Tensor(e!), Tensor(f!))"),
        "_fused_moving_avg_obs_fq_helper_functional": (
            "_fused_moving_avg_obs_fq_helper_functional(Tensor self, Tensor observer_on, Tensor fake_quant_on, "
            "Tensor running_min, Tensor running_max, Tensor scale, Tensor zero_point, float averaging_const, "
            "int quant_min, int quant_max, int ch_axis, bool per_row_fake_quant=False, bool symmetric_quant=False) "
            "-> (Tensor output, Tensor mask, Tensor running_min_out, Tensor running_max_out, Tensor scale_out, "
            "Tensor zero_point_out)"),
    }
    assert {name: str(functions[name].func) for name in expected} == expected
    assert functions["uniform.out"].autogen_source == "uniform_"


def test_the_new_schema_forms_are_read(pytorch) -> None:
    functions, _, _, _ = pytorch
    assert functions["nll_loss"].func.argument("reduction").default == "Mean"
    assert functions["gelu"].func.argument("approximate").default == "'none'"
    assert functions["_test_string_default"].func.argument("a").default == '"\\"\'\\\\"'
    assert functions["_test_string_default"].func.argument("b").default == "'\"\\'\\\\'"
    assert str(functions["qscheme"].func.returns[0].type) == "QScheme"


def test_the_cpp_api_and_the_emitters(pytorch) -> None:
    """Generation without compiling: the C++ API accepts every entry (`std` names, QScheme
    included), and every emitter runs over all of them."""
    functions, _, entries, _ = pytorch
    accepted = tuple(functions.values())
    assert [str(e) for e in check_functions(accepted)] == []
    directory = _yaml_dir()
    assert directory is not None
    data, _ = load_yaml(str(directory / "tags.yaml"))
    tags, tag_errors = parse_tags(data, str(directory / "tags.yaml"))
    assert tag_errors == []
    generation = pipeline.Generation(Spec(accepted, tags, ()))
    rendered = [(path, b"".join(chunks).decode()) for path, chunks in generation.outputs()]
    files = dict(rendered)
    assert len(files) == len(rendered), "two outputs with the same path"
    assert len(files) > len(accepted)
    missing = [f.name for f in accepted
               if f"struct {struct_name(f.func)} {{" not in files[f"opcore/ops/{group_name(f)}_ops.h"]]
    assert missing == []
    assert 'std::string_view approximate = "none"' in files["opcore/ops/gelu.h"]
    assert "int64_t reduction = Reduction::Mean" in files["opcore/ops/nll_loss.h"]
    assert 'std::string_view a = "\\"\'\\\\", std::string_view b = "\\"\'\\\\"' in files["opcore/ops/_test_string_default.h"]
    if str(functions["std.correction"].func).startswith("std.correction(Tensor self, int[1]? dim, *, int? correction"):
        # PyTorch 1.13's schema (today's takes `Scalar? correction`).
        assert ("static Tensor call(const Tensor& self, OptionalIntArrayRef dim, ::std::optional<int64_t> correction, "
                "bool keepdim);") in files["opcore/ops/std_ops.h"]
        assert "Tensor std(OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim = false) const;" \
            in files["opcore/Tensor.h"]
    assert "inline Tensor normal(const Tensor& mean, double std = 1, " in files["opcore/ops/normal.h"]
    assert "QScheme qscheme() const;" in files["opcore/Tensor.h"]
    assert "static QScheme call(const Tensor& self);" in files["opcore/ops/qscheme_ops.h"]


def test_the_cli_and_the_benchmark_generate_it(tmp_path: Path) -> None:
    """`python3 -m gen --pytorch-yaml` writes the code of every entry; bench/gen_bench.py
    times it against torchgen on the same file (with an empty derivatives.yaml, as here)."""
    yaml_dir = _without_derivatives(tmp_path)
    strict = run_gen("--yaml-dir", str(yaml_dir), "--dry-run")
    assert strict.returncode == 1 and "error: missing required key 'dispatch'" in strict.stderr
    result = run_gen("--yaml-dir", str(yaml_dir), "--out", str(tmp_path / "out"), "--pytorch-yaml")
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "out" / "opcore" / "ops" / "qscheme_ops.h").is_file()
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import gen_bench
    finally:
        sys.path.remove(str(REPO / "bench"))
    assert gen_bench.opcore_rejects(yaml_dir) is None


def test_keys_are_read(pytorch) -> None:
    functions, _, _, _ = pytorch
    add_out, add = functions["add.out"], functions["add.Tensor"]
    assert add_out.structured and add_out.structured_inherits == "TensorIteratorBase"
    assert add.structured_delegate == OperatorName("add", "out") and not add.structured
    assert functions["add_.Tensor"].structured_delegate == OperatorName("add", "out")
    structured = [f for f in functions.values() if f.structured]
    assert len(structured) > 100
    assert sum(f.precomputed is not None for f in structured) > 5
    assert {f.python_module for f in functions.values()} >= {None, "nn", "fft", "linalg", "special"}
    assert sum(bool(f.autogen) for f in functions.values()) > 100
    assert sum(not f.device_guard for f in functions.values()) > 10
    assert any(f.cpp_no_default_args for f in functions.values())
    assert sum(len(f.dropped_dispatch_keys) for f in functions.values()) > 100


def test_random_operators_are_tagged(pytorch) -> None:
    """PyTorch tags every operator taking a Generator; opcore requires it."""
    functions, _, _, _ = pytorch
    seeded = [f for f in functions.values() if any(a.type.base == "Generator" for a in f.func.arguments)]
    assert len(seeded) > 10
    assert all(NONDETERMINISTIC_SEEDED in f.tags for f in seeded)


def test_its_derivatives_generate() -> None:
    """PyTorch's derivatives.yaml, when the directory has one, in torchgen's format (Note
    [torchgen's derivatives format]): every entry parses and passes torchgen's rules, and every
    node and autograd kernel is generated. Its formulas call PyTorch's own helpers
    (FunctionsManual.h), which the directory's formula_helpers.txt declares, one name per line
    (--formula-helpers)."""
    directory = _yaml_dir()
    assert directory is not None
    if not (directory / "derivatives.yaml").is_file():
        pytest.skip(f"no derivatives.yaml in {directory}")
    helpers = directory / "formula_helpers.txt"
    options = dataclasses.replace(PYTORCH_OPTIONS, formula_helpers=(
        pipeline.read_formula_helpers(str(helpers)) if helpers.is_file() else frozenset()))
    spec = pipeline.load_spec(str(directory), options)
    entries, _ = load_yaml(str(directory / "derivatives.yaml"))
    assert len(spec.derivatives) == len(entries) > 500
    generation = pipeline.Generation(spec)
    autograd = "".join(b"".join(chunks).decode() for path, chunks in generation.outputs()
                       if path.startswith("opcore/Autograd_"))
    nodes = autograd.count("::apply(variable_list&& grads)")
    with_nodes = [d for d in spec.derivatives if autograd_kind(spec.by_name[d.name], d) == AutogradKind.FORMULAS]
    print(f"\nPyTorch derivatives.yaml: {len(entries)} entries, {nodes} nodes generated")
    # The others have no differentiable output or input, or are CompositeImplicitAutograd: no
    # node, as in torchgen (docs/derivatives.md, "PyTorch's derivatives.yaml").
    assert nodes == len(with_nodes) > 0.8 * len(entries)


def test_its_generated_api_compiles(tmp_path: Path) -> None:
    """The C++ API generated from PyTorch's file compiles against opcore's runtime: a translation
    unit including <opcore/opcore.h> (every operator's function and method) and calling some,
    and every Operators_<i>.cpp. The registration files need PyTorch's kernels and are left out.
    `g++ -fsyntax-only` instantiates the templates but writes no code; bench/compile_bench.sh
    --pytorch-yaml times the full compilation against <ATen/ATen.h>."""
    yaml_dir = _without_derivatives(tmp_path)
    out = tmp_path / "out"
    result = run_gen("--yaml-dir", str(yaml_dir), "--out", str(out), "--pytorch-yaml")
    assert result.returncode == 0, result.stderr[-3000:]
    user = tmp_path / "user.cpp"
    user.write_text("#include <opcore/opcore.h>\n"
                    "opcore::Tensor f(const opcore::Tensor& a, const opcore::Tensor& b) {\n"
                    "  return opcore::addmm(a, a, b).relu_().detach() + a.sum() * b.mean() - opcore::zeros_like(b);\n"
                    "}\n", encoding="utf-8")
    sources = [user] + sorted((out / "opcore").glob("Operators_*.cpp"))
    assert len(sources) > 2
    for source in sources:
        compiled = subprocess.run(["g++", "-std=c++20", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror",
                                   "-fsyntax-only", "-I", str(REPO / "runtime"), "-I", str(out), str(source)],
                                  capture_output=True, text=True, timeout=600)
        assert compiled.returncode == 0, f"{source.name}:\n{compiled.stderr[:5000]}"
