"""Selective builds (--selected-operators; Note [Selective builds] in gen/emit/selection.py): both
list formats, the operators a selected one needs, what is generated for the others, and each
mistake in a list as a located error. ctest's selective_build builds one and calls it."""
from __future__ import annotations

from pathlib import Path

import pytest

from genutil import REPO, run_gen
from gen import pipeline
from gen.emit.selection import CallScanner, kept_operators
from gen.model.errors import SpecErrors

STARTER = REPO / "tests" / "build" / "starter_operators.yaml"


@pytest.fixture(scope="module")
def spec():
    return pipeline.load_spec(str(REPO / "yaml"))


REQUIRED = REPO / "runtime" / "required_operators.txt"


def _select(spec, tmp_path: Path, text: str, sources: tuple[str, ...] = (), required: tuple[str, ...] = ()):
    path = tmp_path / "ops.txt"
    path.write_text(text, encoding="utf-8")
    return pipeline.select(spec, str(path), list(sources), required)


def test_a_plain_list_and_pytorch_s_yaml_select_alike(spec, tmp_path: Path) -> None:
    plain = _select(spec, tmp_path, "aten::mm\naten::add.Tensor   # the bias\n\naten::relu\naten::ones\n")
    assert plain.selection_file == "ops.txt"
    pytorch = _select(spec, tmp_path, "operators:\n  aten::mm: {}\n  aten::add.Tensor: {include_all_overloads: false}\n"
                                      "  aten::relu:\n  aten::ones: {is_root_operator: true}\n")
    assert (plain.kept, plain.trained) == (pytorch.kept, pytorch.trained)
    # The starter list names the same operators, for inference only: mm's formula's t and conj go.
    assert pipeline.select(spec, str(STARTER), []).kept == plain.kept - {"t", "conj"}


def test_a_selected_operator_brings_what_it_needs(spec, tmp_path: Path) -> None:
    kept = _select(spec, tmp_path, "aten::mm\naten::add.Tensor\naten::relu\n").kept
    # add.Tensor delegates to the structured add.out; mm's formulas call t and conj (and mm);
    # relu's formula calls threshold_backward, which opcore does not declare: a helper of Formulas.h
    assert kept == {"mm", "mm.out", "add.Tensor", "add.out", "relu", "t", "conj"}
    kept = _select(spec, tmp_path, "aten::clone.out\n").kept  # generated from clone (autogen), copies with copy_
    assert {"clone.out", "clone", "copy_"} <= kept


def test_an_operator_not_used_for_training_gets_no_autograd_kernel(spec, tmp_path: Path) -> None:
    inference = _select(spec, tmp_path, "operators:\n  aten::mm: {is_used_for_training: false}\n")
    assert inference.kept == {"mm", "mm.out"} and inference.trained == set()  # no `t` for mm's formula
    training = _select(spec, tmp_path, "operators:\n  aten::mm: {is_used_for_training: true}\n")
    assert training.kept == training.trained == {"mm", "mm.out", "t", "conj"}
    # An operator used for training needs mm's autograd kernel when its kernel calls mm.
    both = _select(spec, tmp_path, "operators:\n  aten::mm: {is_used_for_training: false}\n  aten::matmul: {}\n",
                   sources=(str(REPO / "kernels"),))
    assert {"matmul", "mm"} <= both.trained
    # An in-place overload's autograd kernel uses its functional overload's formulas.
    assert {"relu_", "relu"} <= _select(spec, tmp_path, "aten::relu_\n").trained
    path = tmp_path / "inference.yaml"
    path.write_text("operators:\n  aten::mm: {is_used_for_training: false}\n", encoding="utf-8")
    files = dict(pipeline.generate(str(REPO / "yaml"), selective=pipeline.Selective(str(path))).files)
    autograd = "".join(t for p, t in files.items() if p.startswith("opcore/Autograd_"))
    schema = files["opcore/RegisterSchema.cpp"]
    assert "wrapper_Autograd_mm(" not in autograd and 'm.def("mm(Tensor self' in schema
    # The build records it, so that backward() through it says why it has no derivative; mm.out,
    # which has none in a training build either, is not recorded.
    assert 'autograd::registerInferenceOnly({\n    "aten::mm",\n}, "this selective build keeps it for inference ' \
           'only (inference.yaml, OPCORE_SELECTED_OPERATORS): mark it, or an operator that calls it, ' \
           '`is_used_for_training: true` to train through it");' in schema
    full = dict(pipeline.generate(str(REPO / "yaml")).files)["opcore/RegisterSchema.cpp"]
    assert "registerInferenceOnly" not in full and "registerExcluded" not in full


def test_include_all_overloads_and_include_all_operators(spec, tmp_path: Path) -> None:
    kept = _select(spec, tmp_path, "operators:\n  aten::sum:\n    include_all_overloads: true\n").kept
    assert {"sum", "sum.dim_IntList", "sum.IntList_out"} <= kept
    assert _select(spec, tmp_path, "include_all_operators: true\noperators: {}\n").kept is None


def test_hand_written_code_counts_when_it_implements_a_kept_operator_or_none(spec) -> None:
    sources = {
        "kernels/Neg.cpp": '#include <opcore/ops/neg_native.h>\nTensor neg(...) { return self.exp(); }',
        "kernels/Log.cpp": '#include <opcore/ops/log_native.h>\nTensor log(...) { return opcore::sqrt(self); }',
        "kernels/Helper.cpp": "void run() { opcore::tanh(t); std::max(a, b); v.empty(); }",
    }
    kept = kept_operators(spec, frozenset({"neg"}), sources).operators
    assert {"neg", "exp", "tanh"} <= kept          # Neg.cpp implements neg; Helper.cpp implements none
    assert not {"sqrt", "max.dim", "empty"} & kept  # Log.cpp's log is not kept; std::max; a method .empty()


@pytest.mark.parametrize("code, calls", [
    ("return exp(x);", {"exp"}),
    ("auto y = at::sqrt(x) + opcore::tanh(x);", {"sqrt", "tanh"}),
    ("_ops::neg::call(x);", {"neg"}),
    ("static Vec exp(Vec x) { return Avx2::exp(x) * std::numeric_limits<float>::max(); }", set()),
    ("// calls exp(x)\n/* and sqrt(x) */ throw Error(\"tanh(x) failed\");", set()),
])
def test_the_scan_counts_calls_not_declarations_comments_or_other_scopes(spec, code: str, calls: set[str]) -> None:
    assert CallScanner(spec).called(code) == calls


def test_a_formula_s_operators_are_the_calls_they_make(spec) -> None:
    scanner = CallScanner(spec)
    assert {"mul.Tensor", "mul.Scalar", "div.Tensor", "div.Scalar", "neg", "full"} <= \
        scanner.called_in_formula("-grad * self / other")
    assert "mul.Tensor" not in scanner.called("-grad * self / other")  # C++ sources: `*` is mostly a pointer's


def test_the_runtime_s_required_operators_are_kept_with_what_they_need(spec, tmp_path: Path) -> None:
    kept = _select(spec, tmp_path, "aten::relu\n", required=(str(REQUIRED),)).kept
    assert {"relu", "select.int", "zeros", "add.Tensor", "add.out"} <= kept  # add.Tensor's structured out=
    assert "matmul" not in kept
    (tmp_path / "required.txt").write_text("aten::relu\naten::mmm\n", encoding="utf-8")
    with pytest.raises(SpecErrors) as e:
        _select(spec, tmp_path, "aten::mm\n", required=(str(tmp_path / "required.txt"),))
    assert "required.txt:2:1: error: 'aten::mmm' names no operator of this build" in str(e.value.errors[0])


def test_the_others_are_declared_not_registered(tmp_path: Path) -> None:
    files = dict(pipeline.generate(str(REPO / "yaml"), selective=pipeline.Selective(str(STARTER))).files)
    schema = files["opcore/RegisterSchema.cpp"]
    assert 'm.def("mm(Tensor self, Tensor mat2) -> Tensor"' in schema and 'm.def("matmul(' not in schema
    assert '    "aten::matmul",\n' in schema and \
           '}, "it is not in the operator list of this selective build (starter_operators.yaml, ' \
           'OPCORE_SELECTED_OPERATORS)");' in schema
    registrations = "".join(t for p, t in files.items() if p.startswith(("opcore/Register", "opcore/Autograd_")))
    assert '"mm"' in registrations and '"matmul"' not in registrations
    assert "inline Tensor matmul(" in files["opcore/ops/matmul.h"]  # the C++ API stays
    bindings = "".join(t for p, t in files.items() if p.startswith("python/PythonFunctions"))
    assert "aten::mm(" in bindings and "aten::matmul(" not in bindings
    # Its _ops struct throws why, with none of the typed call path compiled.
    operators = "".join(t for p, t in files.items() if p.startswith("opcore/Operators_"))
    assert "Tensor matmul::call(const Tensor& self, const Tensor& other) {\n" \
           "  Dispatcher::singleton().throwExcluded(matmul::name, matmul::overload_name);\n}" in operators
    assert "create_matmul_typed_handle" not in operators and "create_mm_typed_handle" in operators


@pytest.mark.parametrize("text, message", [
    ("aten::mmm\n", "ops.txt:1:1: error: 'aten::mmm' names no operator of this build (did you mean 'mm'?)"),
    ("aten::mm\n  mm\n", "ops.txt:2:3: error: an operator is named with its namespace ('aten::add.Tensor'), got 'mm'"),
    ("myops::mm\n", "ops.txt:1:1: error: 'myops::mm' is not in namespace 'aten'"),
    ("operators:\n  aten::mm: {is_root: true}\n", "ops.txt:2:14: error: unknown key 'is_root' for an operator"),
    ("operator:\n  aten::mm: {}\n", "ops.txt:1:1: error: unknown key 'operator' (did you mean 'operators'?)"),
    ("operators: [aten::mm]\n", "ops.txt:1:12: error: 'operators' must be a mapping"),
    ("operators:\n  aten::mm: {is_used_for_training: no way}\n",
     "ops.txt:2:36: error: 'is_used_for_training' must be true or false, got 'no way'"),
])
def test_each_mistake_in_a_list_is_a_located_error(spec, tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(SpecErrors) as e:
        _select(spec, tmp_path, text)
    assert message in "\n".join(str(x) for x in e.value.errors)


def test_the_cli_takes_a_list_and_its_sources(tmp_path: Path) -> None:
    result = run_gen("--selected-operators", str(STARTER), "--selection-sources", "kernels",
                     "--required-operators", str(REQUIRED), "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert "registerExcluded" in (tmp_path / "out" / "opcore" / "RegisterSchema.cpp").read_text()
    for flag, value in (("--selection-sources", "kernels"), ("--required-operators", str(REQUIRED))):
        usage = run_gen(flag, value, "--dry-run")
        assert usage.returncode == 2 and f"{flag} goes with --selected-operators" in usage.stderr
    missing = run_gen("--selected-operators", str(STARTER), "--selection-sources", "nowhere", "--dry-run")
    assert missing.returncode == 1 and "nowhere" in missing.stderr


@pytest.mark.parametrize("flags, content", [
    (("--selected-operators",), None),                  # a directory
    (("--selected-operators",), b"\xff\xfe not text"),
    (("--selected-operators",), b"operators: {aten::mm: \n"),
    (("--selected-operators", str(STARTER), "--required-operators"), None),
    (("--selected-operators", str(STARTER), "--required-operators"), b"\xff\xfe not text"),
    (("--pytorch-yaml", "--dry-run", "--formula-helpers"), None),
    (("--bc-check", "yaml", "--bc-allow"), b"\xff"),
])
def test_an_unreadable_side_file_is_a_located_error_not_a_traceback(tmp_path: Path, flags: tuple[str, ...],
                                                                     content: bytes | None) -> None:
    path = tmp_path / "side"
    path.mkdir() if content is None else path.write_bytes(content)
    mode = () if "--dry-run" in flags or "--bc-check" in flags else ("--dry-run",)
    result = run_gen(*flags, str(path), *mode)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{path}:") and ": error: " in result.stderr
