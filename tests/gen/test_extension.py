"""Operator libraries of another namespace (--namespace; Note [Operator namespaces] in
gen/emit/common.py): examples/extension/yaml generates myops' files only, in C++ namespace
myops, and the rules an extension's YAML must keep are located errors. The library is built
and called by ctest's `extension` (tests/install/test_extension.sh)."""
from __future__ import annotations

from pathlib import Path

import pytest

from genutil import REPO, make_yaml_dir, run_gen
from gen import pipeline
from gen.emit.files import fixed_outputs
from gen.model.errors import SpecErrors

EXAMPLE = REPO / "examples" / "extension" / "yaml"


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return dict(pipeline.generate(str(EXAMPLE), namespace="myops").files)


def test_its_files_are_the_namespace_s_library_and_gradcheck_tests(files: dict[str, str]) -> None:
    per_operator = sorted(p for p in files if p.startswith("myops/ops/"))
    assert list(files) == list(fixed_outputs("myops")) + per_operator
    assert all(p.startswith(("myops/", "tests/")) for p in files)
    assert "myops/ops/fused_gelu.h" in per_operator and "myops/ops/scaled_residual_native.h" in per_operator
    assert not any(p.startswith(("opcore/", "python/", "docs/")) for p in fixed_outputs("myops"))


def test_its_operators_register_in_its_namespace(files: dict[str, str]) -> None:
    schema = files["myops/RegisterSchema.cpp"]
    assert "OPCORE_LIBRARY(myops, m) {" in schema and "aten" not in schema
    assert 'm.def("fused_gelu(Tensor self) -> Tensor", {"pointwise"});' in schema  # `myops::` written, not kept
    cpu = next(text for path, text in files.items() if path.startswith("myops/RegisterCPU_") and "m.impl" in text)
    assert "OPCORE_LIBRARY_IMPL(myops, CPU, m) {" in cpu
    assert 'static constexpr const char* name = "myops::fused_gelu";' in files["myops/ops/fused_gelu_ops.h"]


def test_its_cpp_api_is_in_its_namespace_and_sees_opcore_s_names(files: dict[str, str]) -> None:
    api = files["myops/ops/fused_gelu.h"]
    assert "namespace myops {\nusing namespace ::opcore;" in api
    assert "inline Tensor fused_gelu(const Tensor& self) {\n  return _ops::fused_gelu::call(self);" in api
    native = files["myops/ops/fused_gelu_native.h"]
    assert "namespace myops::meta {" in native and "namespace myops::native {" in native
    assert "namespace opcore" not in native


def test_its_formulas_call_its_operators_and_opcore_s(files: dict[str, str]) -> None:
    autograd = next(text for path, text in files.items() if path.startswith("myops/Autograd_") and "Backward" in text)
    assert "namespace myops::autograd::generated {" in autograd
    assert "fused_gelu_backward(grad, self)" in autograd
    assert "#include <myops/ops/fused_gelu_backward.h>" in autograd
    assert "OPCORE_LIBRARY_IMPL(myops, Autograd, m) {" in autograd
    gradcheck = files["tests/Gradcheck.cpp"]
    assert "myops::_ops::fused_gelu::call(x[0])" in gradcheck and "#include <opcore/ops/empty.h>" in gradcheck


def test_its_generated_overloads_copy_with_opcore_s_copy(files: dict[str, str]) -> None:
    kernel = next(text for path, text in files.items()
                  if path.startswith("myops/RegisterCompositeExplicitAutograd_") and "scaled_residual_out" in text)
    assert "opcore::_ops::copy_::call(out, result, false);" in kernel
    assert "#include <opcore/ops/copy_ops.h>" in kernel


def test_it_reads_opcore_s_yaml_as_an_input() -> None:
    spec = pipeline.load_spec(str(EXAMPLE), namespace="myops")
    assert spec.namespace == "myops" and any(f.name == "add.Tensor" for f in spec.aten_functions)
    assert all(f.qualified_name.startswith("myops::") for f in spec.functions)


def test_the_cli_lists_and_writes_the_namespace_s_files(tmp_path: Path) -> None:
    listed = run_gen("--namespace", "myops", "--out", str(tmp_path), "--list-outputs")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == [str(tmp_path / p) for p in fixed_outputs("myops")]
    written = run_gen("--namespace", "myops", "--yaml-dir", str(EXAMPLE), "--out", str(tmp_path))
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "myops" / "Functions.h").is_file() and not (tmp_path / "opcore").exists()


def _errors(tmp_path: Path, native_functions: str, derivatives: str = "[]\n") -> str:
    yaml_dir = make_yaml_dir(tmp_path, native_functions)
    (yaml_dir / "derivatives.yaml").write_text(derivatives, encoding="utf-8")
    with pytest.raises(SpecErrors) as e:
        pipeline.load_spec(str(yaml_dir), namespace="myops")
    return "\n".join(str(x) for x in e.value.errors)


def test_an_operator_of_another_namespace_is_a_located_error(tmp_path: Path) -> None:
    message = _errors(tmp_path, "- func: other::f(Tensor self) -> Tensor\n  dispatch:\n    CPU: f\n")
    assert "native_functions.yaml:1:9: error: operator 'other::f' is in namespace 'other': every operator of " \
           "this file is in 'myops' (--namespace), one namespace per file" in message


def test_an_aten_operator_in_an_extension_is_a_located_error(tmp_path: Path) -> None:
    message = _errors(tmp_path, "- func: aten::add.Tensor(Tensor self, Tensor other) -> Tensor\n"
                                "  dispatch:\n    CPU: add\n")
    assert "native_functions.yaml:1:9: error: operator 'aten::add.Tensor' is in namespace 'aten': 'myops' is an " \
           "extension, and the aten operators are opcore's" in message


def test_an_extension_operator_is_no_tensor_method(tmp_path: Path) -> None:
    message = _errors(tmp_path, "- func: f(Tensor self) -> Tensor\n  variants: function, method\n"
                                "  dispatch:\n    CPU: f\n")
    assert "native_functions.yaml:2:13: error: 'myops::f' cannot be a Tensor method" in message


def test_a_formula_may_not_call_what_neither_library_declares(tmp_path: Path) -> None:
    native = "- func: f(Tensor self) -> Tensor\n  dispatch:\n    CPU: f\n"
    message = _errors(tmp_path, native, "- name: f(Tensor self) -> Tensor\n  self: mull(grad, self)\n")
    assert "unknown name 'mull'" in message and "'mul'" in message
    yaml_dir = tmp_path / "yaml"
    (yaml_dir / "derivatives.yaml").write_text("- name: f(Tensor self) -> Tensor\n  self: mul(grad, f(self))\n")
    assert pipeline.load_spec(str(yaml_dir), namespace="myops").derivatives


@pytest.mark.parametrize("namespace, why", [
    ("opcore", "reserved: its generated C++ namespace would collide with opcore's runtime"),
    ("std", "reserved"), ("class", "reserved"), ("_x", "reserved"),
    ("my-ops", "an operator namespace is a C++ identifier"), ("1ops", "an operator namespace is a C++ identifier"),
])
def test_a_namespace_that_cannot_name_a_library_is_a_usage_error(namespace: str, why: str) -> None:
    result = run_gen("--namespace", namespace, "--list-outputs")
    assert result.returncode == 2 and why in result.stderr and f"--namespace {namespace!r}" in result.stderr


def test_pytorch_yaml_is_aten_s() -> None:
    result = run_gen("--namespace", "myops", "--pytorch-yaml", "--dry-run")
    assert result.returncode == 2 and "not with --namespace" in result.stderr
