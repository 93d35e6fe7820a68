"""ExecuTorch's kernel YAML (Note [Kernel keys] in gen/model/kernel_keys.py): `kernels:` with
arg_meta, type_alias and dim_order_alias read and expanded, the CPU wrapper that routes a call
to the kernel whose key matches, `- op:` entries resolved against opcore's operators, and each
rule's located error. examples/executorch is built and called by ctest's `extension`."""
from __future__ import annotations

from pathlib import Path

import pytest

from genutil import REPO, make_yaml_dir, run_gen
from gen import pipeline
from gen.emit.kernel_keys import routing_statements
from gen.model.errors import SpecErrors
from gen.model.kernel_keys import ArgMeta

EXAMPLE = REPO / "examples" / "executorch" / "yaml"

SCALE = """\
- func: scale.out(Tensor self, float factor, *, Tensor(a!) out) -> Tensor(a!)
  type_alias:
    T0: [Float, Double]
  dim_order_alias:
    D0: [0, 1]
    D1: [1, 0]
  kernels:
    - arg_meta: {self: [T0, D0], out: [T0, D0]}
      kernel_name: lib::scale_contiguous
    - arg_meta: {self: [T0, D1], out: [T0, D0]}
      kernel_name: scale_transposed
"""


def _spec(tmp_path: Path, text: str, namespace: str = "myops"):
    return pipeline.load_spec(str(make_yaml_dir(tmp_path, text)), namespace=namespace)


def _error(tmp_path: Path, text: str, namespace: str = "myops") -> str:
    with pytest.raises(SpecErrors) as e:
        _spec(tmp_path, text, namespace)
    return "\n".join(str(x) for x in e.value.errors)


def test_each_alias_dtype_is_a_kernel_key(tmp_path: Path) -> None:
    f = _spec(tmp_path, SCALE).functions[0]
    assert [(k.cpp_namespace, k.kernel) for k in f.kernels] == [("lib", "scale_contiguous")] * 2 + [("", "scale_transposed")] * 2
    assert f.kernels[1].arg_meta == (ArgMeta("self", "Double", (0, 1)), ArgMeta("out", "Double", (0, 1)))
    assert f.kernels[2].arg_meta == (ArgMeta("self", "Float", (1, 0)), ArgMeta("out", "Float", (0, 1)))
    assert f.dispatch == ()


def test_the_cpu_wrapper_tries_the_keys_in_order_then_says_what_it_got(tmp_path: Path) -> None:
    f = _spec(tmp_path, SCALE).functions[0]
    body = routing_statements(f, f.kernels, "myops")
    assert body[0] == ("if (self.scalar_type() == ScalarType::Float && detail::hasDimOrder(self, {0, 1}) && "
                       "out.scalar_type() == ScalarType::Float && detail::hasDimOrder(out, {0, 1})) {")
    assert body[1] == "  return ::lib::native::scale_contiguous(self, factor, out);"
    assert body[7] == "  return native::scale_transposed(self, factor, out);"
    assert body[-1].startswith('detail::throwNoKernelForKey("myops::scale.out", {{"self", &self}, {"out", &out}}, '
                               '"self Float (dim order 0, 1), out Float (dim order 0, 1) | ')


def test_a_null_arg_meta_serves_every_other_call(tmp_path: Path) -> None:
    text = SCALE + "    - arg_meta: null\n      kernel_name: scale_any\n"
    f = _spec(tmp_path, text).functions[0]
    assert routing_statements(f, f.kernels, "myops")[-1] == "return native::scale_any(self, factor, out);"


def test_a_kernel_name_in_the_library_s_namespace_is_its_own(tmp_path: Path) -> None:
    f = _spec(tmp_path, SCALE.replace("lib::scale_contiguous", "myops::scale_contiguous")).functions[0]
    assert routing_statements(f, f.kernels, "myops")[1] == "  return native::scale_contiguous(self, factor, out);"


@pytest.mark.parametrize("dtype", ["Byte", "Char", "Short", "Half", "BFloat16", "ComplexFloat", "ComplexDouble"])
def test_a_key_of_every_dtype_opcore_holds_matches(tmp_path: Path, dtype: str) -> None:
    f = _spec(tmp_path, SCALE.replace("[Float, Double]", f"[{dtype}]")).functions[0]
    body = routing_statements(f, f.kernels, "myops")
    assert body[0] == (f"if (self.scalar_type() == ScalarType::{dtype} && detail::hasDimOrder(self, {{0, 1}}) && "
                       f"out.scalar_type() == ScalarType::{dtype} && detail::hasDimOrder(out, {{0, 1}})) {{")
    assert [k.matchable for k in f.kernels] == [True, True]


@pytest.mark.parametrize("dtype", ["ComplexHalf", "QInt8", "QUInt8", "QInt32", "Float8_e5m2", "UInt16"])
def test_a_key_of_a_dtype_opcore_cannot_hold_never_matches(tmp_path: Path, dtype: str) -> None:
    """ExecuTorch's own dtypes are read (a library written for ExecuTorch may name them); no call
    can bring such a tensor, so the key is dead, not wrong (Note [Kernel keys])."""
    f = _spec(tmp_path, SCALE.replace("[Float, Double]", f"[Half, {dtype}]")).functions[0]
    body = routing_statements(f, f.kernels, "myops")
    assert body[0].startswith("if (self.scalar_type() == ScalarType::Half && ")
    assert body[3] == (f"// never matches (opcore has no tensors of some of its dtypes): self {dtype} (dim order 0, 1), "
                       f"out {dtype} (dim order 0, 1)")
    assert [k.matchable for k in f.kernels] == [True, False, True, False]


@pytest.mark.parametrize("alias, message", [
    ("[Float, Hafl]", "3:17: error: unknown dtype 'Hafl' (did you mean 'Half'?)"),
    ("[Float, half]", "3:17: error: unknown dtype 'half' (did you mean 'Half'?)"),
    ("[Qint8]", "3:10: error: unknown dtype 'Qint8' (did you mean 'QInt8'?)"),
    ("[Float, 6]", "3:17: error: unknown dtype the number 6"),
])
def test_a_misspelled_dtype_is_a_located_error_with_a_suggestion(tmp_path: Path, alias: str, message: str) -> None:
    holds = "Byte, Char, Short, Int, Long, Half, Float, Double, ComplexFloat, ComplexDouble, Bool, BFloat16"
    error = _error(tmp_path, SCALE.replace("[Float, Double]", alias))
    assert error == (f"{tmp_path}/yaml/native_functions.yaml:{message} (a type alias lists c10's dtype names; "
                     f"opcore's tensors hold: {holds})")


def test_the_example_generates_its_routing_and_its_impl(tmp_path: Path) -> None:
    files = dict(pipeline.generate(str(EXAMPLE), namespace="etlib").files)
    cpu = next(t for p, t in files.items() if p.startswith("etlib/RegisterCPU_") and "m.impl" in t)
    assert "return ::etlib::native::add_scaled_floating" not in cpu  # etlib:: is its own namespace
    assert "return native::add_scaled_floating(self, other, alpha, out);" in cpu
    assert '#include <opcore/core/KernelKeys.h>' in cpu
    impls = files["etlib/RegisterImpls.cpp"]
    assert 'OPCORE_LIBRARY_IMPL(aten, CPU, m) {\n  m.impl("neg.out", OPCORE_FN(wrapper_CPU_neg_out));' in impls
    assert "Tensor& neg_out_counted(const Tensor& self, Tensor& out);" in files["etlib/NativeImpls.h"]


@pytest.mark.parametrize("text, message", [
    (SCALE.replace("[T0, D1]", "[T9, D1]"), "'T9' is not declared in 'type_alias'"),
    (SCALE.replace("[T0, D1]", "[T0, D7]"), "'D7' is not declared in 'dim_order_alias'"),
    (SCALE.replace("D1: [1, 0]", "D1: [1, 1]"), "dim order [1, 1] ('D1') is not a permutation of 0..1"),
    (SCALE.replace("[Float, Double]", "[Float, Quad]"), "unknown dtype 'Quad' (a type alias lists c10's dtype names"),
    (SCALE.replace("{self: [T0, D1]", "{factor: [T0, D1]"), "'factor' is not a Tensor argument of 'scale.out'"),
    (SCALE.replace("{self: [T0, D1]", "{self: [T0]"), "the kernel key of 'self' is [type alias, dim order alias]"),
    (SCALE.replace("kernel_name: scale_transposed", "kernel_name: scale-transposed"), "'kernel_name' must be a C++ function name"),
    (SCALE.replace("[T0, D1], out", "[T0, D0], out"), "a second kernel for the same kernel key (the first is at line 9)"),
    (SCALE + "  dispatch:\n    CPU: scale_cpu\n", "has CPU kernels in both 'kernels:' and 'dispatch:'"),
    (SCALE.replace("  kernels:", "  kernelz:"), "unknown key 'kernelz'"),
    ("- func: f(Tensor self) -> Tensor\n  type_alias: {T0: [Float]}\n  dispatch: {CPU: f}\n", "'type_alias' is only read with 'kernels:'"),
    ("- op: nope.out\n  kernels:\n    - {arg_meta: null, kernel_name: k}\n", "'- op: nope.out': opcore declares no operator 'aten::nope.out'"),
    ("- op: clamp.out\n  cpp_no_default_args: [mni]\n", "'cpp_no_default_args' names 'mni', which is not an "
     "argument of 'clamp.out' (did you mean 'min'?)"),
    ("- op: clamp.out\n  cpp_no_default_args: [self]\n", "'cpp_no_default_args' names 'self', which has no default"),
    ("- op: clamp.out\n  cpp_no_default_args: min\n", "'cpp_no_default_args' must be a list of argument names"),
    ("- op: neg.out\n- op: neg.out\n  kernels:\n    - {arg_meta: null, kernel_name: k}\n",
     "a second '- op: neg.out' (the first is at line 1)"),
    ("- op: nope.out\n", "'- op: nope.out': opcore declares no operator 'aten::nope.out'"),
    ("- op: neg.out\n  kernels:\n    - {arg_meta: null, kernel_name: k}\n- op: aten::neg.out\n  dispatch: {Meta: m}\n",
     "a second '- op: neg.out' (the first is at line 1)"),
    ("- func: f(Tensor self) -> Tensor\n  op: f\n  dispatch: {CPU: f}\n", "an entry has 'func:' (it declares the operator) or 'op:'"),
])
def test_each_rule_is_a_located_error(tmp_path: Path, text: str, message: str) -> None:
    error = _error(tmp_path, text)
    assert message in error and "native_functions.yaml:" in error


def test_an_op_entry_s_unknown_key_lists_each_key_once(tmp_path: Path) -> None:
    error = _error(tmp_path, "- op: neg.out\n  zzz: 1\n")
    assert error.endswith("native_functions.yaml:2:3: error: unknown key 'zzz' (expected one of: op, kernels, "
                          "type_alias, dim_order_alias, dispatch, cpp_no_default_args)")


def test_an_op_entry_without_kernels_keeps_opcore_s_kernel(tmp_path: Path) -> None:
    """ExecuTorch's ATen-mode files list operators without kernels, some twice (Note [An '- op:'
    entry's keys]): opcore's kernel stays, and nothing is registered."""
    text = "- op: neg.out\n- op: abs.out\n  dispatch: {}\n- op: aten::neg.out\n"
    spec = _spec(tmp_path, text)
    assert [(i.function.name, i.own_kernels) for i in spec.impls] == [("neg.out", True), ("abs.out", True)]
    files = dict(pipeline.generate(str(tmp_path / "yaml"), namespace="myops").files)
    assert "m.impl" not in files["myops/RegisterImpls.cpp"]
    assert "neg_ops.h" not in files["myops/NativeImpls.h"] and "abs_ops.h" not in files["myops/NativeImpls.h"]


def test_cpp_no_default_args_of_an_op_entry_is_read_and_has_no_effect(tmp_path: Path) -> None:
    """ExecuTorch writes it for clamp.out; opcore's C++ API of clamp.out comes from opcore's own
    entry, so the generated files are those of the same entry without it."""
    kernels = "  kernels:\n    - {arg_meta: null, kernel_name: clamp_out_mine}\n  dispatch: {}\n"
    with_it = dict(pipeline.generate(str(make_yaml_dir(tmp_path / "a", "- op: clamp.out\n  cpp_no_default_args: "
                                                         "['min']\n" + kernels)), namespace="myops").files)
    without_it = dict(pipeline.generate(str(make_yaml_dir(tmp_path / "b", "- op: clamp.out\n" + kernels)),
                                        namespace="myops").files)
    assert with_it == without_it
    assert "return native::clamp_out_mine(self, min, max, out);" in with_it["myops/RegisterImpls.cpp"]


def test_op_entries_are_an_extension_s(tmp_path: Path) -> None:
    error = _error(tmp_path, "- op: neg.out\n  kernels:\n    - {arg_meta: null, kernel_name: k}\n", namespace="aten")
    assert "native_functions.yaml:1:7: error: '- op:' gives kernels to an operator declared elsewhere, which " \
           "only an extension's YAML does (--namespace)" in error


def test_an_aten_func_in_an_extension_points_at_op(tmp_path: Path) -> None:
    error = _error(tmp_path, "- func: aten::neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch: {CPU: k}\n")
    assert "to give one kernels, write '- op: aten::neg.out' with 'dispatch:' or 'kernels:'" in error


def test_executorch_s_files_are_read_without_tags_or_derivatives(tmp_path: Path) -> None:
    (tmp_path / "custom_ops.yaml").write_text(SCALE)
    (tmp_path / "functions.yaml").write_text("- op: neg.out\n  kernels:\n    - {arg_meta: null, kernel_name: k}\n")
    spec = pipeline.load_spec(str(tmp_path), namespace="myops")
    assert [f.name for f in spec.functions] == ["scale.out"] and [i.function.name for i in spec.impls] == ["neg.out"]
    assert spec.files[:2] == (str(tmp_path / "custom_ops.yaml"), str(tmp_path / "functions.yaml"))
    assert str(REPO / "yaml" / "native_functions.yaml") in spec.files  # opcore's, which it extends


def test_an_operator_in_two_files_is_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "custom_ops.yaml").write_text(SCALE)
    (tmp_path / "functions.yaml").write_text("\n" + SCALE)
    with pytest.raises(SpecErrors) as e:
        pipeline.load_spec(str(tmp_path), namespace="myops")
    assert str(e.value.errors[0]) == (f"{tmp_path / 'functions.yaml'}:2:9: error: duplicate operator 'scale.out' "
                                      f"(first defined at {tmp_path / 'custom_ops.yaml'}:1)")


def test_opcore_s_own_directory_needs_its_three_files(tmp_path: Path) -> None:
    (tmp_path / "custom_ops.yaml").write_text(SCALE)
    with pytest.raises(SpecErrors) as e:
        pipeline.load_spec(str(tmp_path))
    assert "tags.yaml" in str(e.value.errors[0])


def test_lint_finds_the_kernels_of_kernels_and_op_entries(tmp_path: Path) -> None:
    assert run_gen("--namespace", "etlib", "--yaml-dir", str(EXAMPLE), "--lint",
                   str(REPO / "examples" / "executorch" / "kernels")).returncode == 0
    (tmp_path / "k.cpp").write_text("Tensor& native::add_scaled_floating(const Tensor& self) {}\n")
    result = run_gen("--namespace", "etlib", "--yaml-dir", str(EXAMPLE), "--lint", str(tmp_path))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{EXAMPLE / 'custom_ops.yaml'}:25:20: error: kernel 'add_scaled_long' (CPU, kernels:) is not defined" \
           in result.stderr
    assert f"{EXAMPLE / 'custom_ops.yaml'}:30:20: error: kernel 'add_scaled_byte' (CPU, kernels:) is not defined" \
           in result.stderr
    assert f"{EXAMPLE / 'functions.yaml'}:8:18: error: kernel 'neg_out_privateuse1' (PrivateUse1)" in result.stderr
    assert "add_scaled_floating" not in result.stderr
