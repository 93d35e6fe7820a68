"""derivatives.yaml: the model (gen/model/derivatives.py, samples.py, cross_entry_checks.py) and
the autograd decisions built on it (gen/api/autograd.py: kernel kinds, node names, what a node
saves; gen/api/gradcheck.py: the tests' inputs). Error messages are in tests/gen/errors/derivatives/."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from genutil import FIXTURES, REPO, make_yaml_dir

from gen import pipeline
from gen.api import autograd, gradcheck
from gen.api.autograd import AutogradKind
from gen.api.gradcheck import CheckKind
from gen.model.derivatives import ForwardKind
from gen.model.errors import SpecErrors
from gen.model.samples import CppValue, Literal, RandomTensor, TensorListValue, TensorValues
from gen.model.spec import Spec


@pytest.fixture(scope="module")
def real() -> Spec:
    return pipeline.load_spec(str(REPO / "yaml"))


@pytest.fixture(scope="module")
def mini() -> Spec:
    return pipeline.load_spec(str(FIXTURES / "mini"))


def _spec(tmp_path: Path, derivatives: str, native: str | None = None) -> Spec:
    """The mini fixture's operators (or `native`) with `derivatives` as derivatives.yaml."""
    text = native if native is not None else (FIXTURES / "mini" / "native_functions.yaml").read_text(encoding="utf-8")
    yaml_dir = make_yaml_dir(tmp_path, text, tags=FIXTURES / "mini" / "tags.yaml")
    (yaml_dir / "derivatives.yaml").write_text(derivatives, encoding="utf-8")
    return pipeline.load_spec(str(yaml_dir))


def _errors(tmp_path: Path, derivatives: str, native: str | None = None) -> list[str]:
    with pytest.raises(SpecErrors) as e:
        _spec(tmp_path, derivatives, native)
    return [err.msg for err in e.value.errors]


def _entry(spec: Spec, name: str):
    return next(d for d in spec.derivatives if d.name == name)


def _function(spec: Spec, name: str):
    return next(f for f in spec.functions if f.name == name)


# ---- the model -----------------------------------------------------------------------------

def test_every_key_is_parsed(mini: Spec) -> None:
    scale = _entry(mini, "scale")
    assert [f.names for f in scale.formulas] == [("self", "weight")]
    assert [f.kind for f in scale.forwards] == [ForwardKind.formula]
    assert [s.get("mode") for s in scale.samples] == [Literal("sum"), None]
    assert scale.samples[1].get("self") == CppValue("opcore::ones({2, 3}, ScalarType::Double)")
    max_dim = _entry(mini, "max.dim")
    assert max_dim.output_differentiability == (True, False) and max_dim.differentiable_outputs == (0,)
    assert max_dim.samples[0].get("self") == TensorValues((2, 3), (0.5, -1.0, 2.0, 1.5, 0.25, -0.75))
    where = _entry(mini, "where.self")
    assert [f.non_differentiable for f in where.formulas] == [True, False, False]
    assert [a.name for a in where.differentiable_arguments] == ["self", "other"]
    assert where.samples[0].get("condition") == TensorValues((2, 2), (True, False, False, True), "Bool")
    assert [f.kind for f in _entry(mini, "relu_").forwards] == [ForwardKind.auto_element_wise]
    assert [f.kind for f in _entry(mini, "transpose.int").forwards] == [ForwardKind.auto_linear]
    assert _entry(mini, "clamp").formulas[0].not_implemented == "the mask of the clamped elements"
    cat = _entry(mini, "cat")
    assert cat.samples[1].get("tensors") == TensorListValue((RandomTensor((2, 2)), RandomTensor((2, 1), 0.5, 1.0)))


def test_result_names(mini: Spec) -> None:
    assert _entry(mini, "max.dim").result_names == ("result0", "result1", "values", "indices")
    assert _entry(mini, "relu_").result_names == ("result",)
    assert _entry(mini, "max.dim").output_index("indices") == 1
    assert _entry(mini, "max.dim").output_index("result") is None


def test_inplace_and_out_overloads_use_the_functional_entry(real: Spec) -> None:
    mul = _entry(real, "mul.Tensor")
    for name in ("mul.Tensor", "mul_.Tensor", "mul.out"):
        assert real.derivative_for(_function(real, name)) is mul, name
    assert real.derivative_for(_function(real, "sum.IntList_out")) is _entry(real, "sum.dim_IntList")
    assert real.derivative_for(_function(real, "mul_.Scalar")) is _entry(real, "mul.Scalar")
    assert real.derivative_for(_function(real, "copy_")) is _entry(real, "copy_")
    assert real.derivative_for(_function(real, "uniform_")) is None


def test_formula_for_an_optional_tensor_list_is_an_error(tmp_path: Path) -> None:
    native = ("- func: index.Tensor(Tensor self, Tensor?[] indices) -> Tensor\n  dispatch: {CPU: index}\n")
    derivatives = ("- name: index.Tensor(Tensor self, Tensor?[] indices) -> Tensor\n  self: grad\n"
                   "  indices: grad\n")
    assert _errors(tmp_path, derivatives, native) == [
        "'indices' is a Tensor?[]: only Tensor, Tensor? and Tensor[] arguments have gradients "
        "(write 'indices: non_differentiable')"]


def test_arguments_may_not_take_the_names_of_gradients(tmp_path: Path) -> None:
    native = "- func: twice(Tensor self, Tensor grad) -> Tensor\n  dispatch: {CPU: twice}\n"
    derivatives = "- name: twice(Tensor self, Tensor grad) -> Tensor\n  self: grads[0]\n  grad: grads[0]\n"
    assert _errors(tmp_path, derivatives, native) == [
        "argument 'grad' has a name formulas use for the gradients or outputs"]


def test_names_in_formulas(tmp_path: Path) -> None:
    """Operators with a function variant, helpers, types, keywords and std are known names."""
    ok = ("- name: transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)\n"
          "  self: 'static_cast<int64_t>(dim0) == 0 ? where(grad > 0, grad, zeros_like(grad)) : "
          "std::move(Tensor(grad)).transpose(dim0, dim1)'\n")
    assert _spec(tmp_path, ok).derivatives
    method_only = ("- name: transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)\n"
                   "  self: to(grad, dim0)\n")  # to.device is a method only
    assert _errors(tmp_path / "2", method_only)[0].startswith("unknown name 'to' in the formula for 'self'")


def test_samples_of_every_kind_of_value(tmp_path: Path) -> None:
    derivatives = (
        "- name: check_shapes(Tensor self, int[2] stride=1, int[] padding=[0,0], bool[3] output_mask=[True,False,True],"
        " int? groups=None, float? scale=None, Device? device=None) -> ()\n"
        "  self: non_differentiable\n"
        "  samples:\n"
        "    - {self: [1], stride: [1, 2, 3], padding: [], output_mask: [true, false, true], groups: null,"
        " scale: 2, device: {cpp: 'Device(DeviceType::CPU)'}}\n")
    sample = _entry(_spec(tmp_path, derivatives), "check_shapes").samples[0]
    assert sample.get("stride") == Literal((1, 2, 3))  # int[2] takes any length, as in PyTorch
    assert sample.get("padding") == Literal(())
    assert sample.get("scale") == Literal(2)
    bad = derivatives.replace("output_mask: [true, false, true]", "output_mask: [true]")
    assert _errors(tmp_path / "2", bad) == ["'output_mask' (bool[3]) takes 3 values, got 1"]


# ---- kernels and nodes ---------------------------------------------------------------------

@pytest.mark.parametrize("name,kind", [
    ("mul.Tensor", AutogradKind.FORMULAS), ("mul_.Tensor", AutogradKind.FORMULAS), ("mul.out", AutogradKind.OUT),
    ("eq.Tensor", AutogradKind.PLAIN),             # output_differentiability: [False]
    ("uniform_", AutogradKind.NOT_IMPLEMENTED),    # no entry
    ("empty_like", AutogradKind.PLAIN),            # output_differentiability: [False]
    ("mean", AutogradKind.NONE),                   # CompositeImplicitAutograd
    ("zeros", AutogradKind.NONE),                  # no tensor argument
    ("arange.start_out", AutogradKind.OUT),
])
def test_kernel_kinds(real: Spec, name: str, kind: AutogradKind) -> None:
    f = _function(real, name)
    assert autograd.autograd_kind(f, real.derivative_for(f)) == kind


def test_node_names(real: Spec) -> None:
    names = autograd.node_names(real.derivatives)
    assert (names["add.Tensor"], names["add.Scalar"], names["sum"], names["sum.dim_IntList"]) == \
        ("AddBackward0", "AddBackward1", "SumBackward0", "SumBackward1")
    assert (names["copy_"], names["fill.Scalar"], names["max.dim"]) == ("CopyBackward0", "FillBackward0", "MaxBackward0")


def _saved(spec: Spec, op: str) -> dict[str, tuple[str, str]]:
    f = _function(spec, op)
    return {v.field: (v.type, v.save) for v in autograd.saved_values(f, spec.derivative_for(f))}


def test_tensors_used_only_for_their_sizes_are_saved_as_sizes(real: Spec) -> None:
    assert _saved(real, "add.Tensor") == {
        "self_sizes_": ("std::vector<int64_t>", "self.sizes().vec()"),
        "self_scalar_type_": ("ScalarType", "self.scalar_type()"),
        "other_sizes_": ("std::vector<int64_t>", "other.sizes().vec()"),
        "other_scalar_type_": ("ScalarType", "other.scalar_type()"),
        "alpha_": ("Scalar", "alpha")}
    d = _entry(real, "add.Tensor")
    assert autograd.formula_expression(d, d.formulas[1], "aten") == \
        "handle_r_to_c(other_scalar_type_, sum_to(maybe_multiply(grad, alpha.conj()), other_sizes_))"


def test_tensors_used_otherwise_are_saved_whole(real: Spec) -> None:
    assert _saved(real, "mul.Tensor") == {"self_": ("SavedVariable", "SavedVariable(self, false)"),
                                          "other_": ("SavedVariable", "SavedVariable(other, false)")}
    d = _entry(real, "mul.Tensor")
    assert autograd.formula_expression(d, d.formulas[0], "aten") == \
        "handle_r_to_c(self.scalar_type(), sum_to(grad * other.conj(), self.sizes()))"


def test_inplace_overloads_save_a_clone_of_self(real: Spec) -> None:
    assert _saved(real, "mul_.Tensor")["self_"] == ("SavedVariable", "SavedVariable(self.clone(), false)")
    assert _saved(real, "add_.Tensor")["self_sizes_"] == ("std::vector<int64_t>", "self.sizes().vec()")


def test_outputs_are_saved_after_the_call(real: Spec, mini: Spec) -> None:
    assert _saved(real, "exp")["result_"] == ("SavedVariable", "SavedVariable({out}, true)")
    indices = _saved(real, "max.dim")["indices_"]   # not differentiable: saved as a plain tensor
    assert indices == ("SavedVariable", "SavedVariable({out}, false)")
    f = _function(mini, "relu_")
    assert autograd.output_expressions(f, "result") == ("self",)


def test_other_arguments_are_saved_as_their_owning_type(real: Spec, mini: Spec) -> None:
    assert _saved(real, "sum.dim_IntList")["dim_"] == (
        "std::optional<std::vector<int64_t>>", "dim ? std::make_optional(dim->vec()) : std::nullopt")
    assert _saved(real, "div.Tensor_mode")["rounding_mode_"] == (
        "std::optional<std::string>", "rounding_mode ? std::make_optional(std::string(*rounding_mode)) : std::nullopt")
    assert _saved(mini, "pool2d")["kernel_size_"] == ("std::vector<int64_t>", "kernel_size.vec()")


def test_saved_values_are_restored_with_the_kernel_types(real: Spec) -> None:
    f = _function(real, "sum.dim_IntList")
    restores = [v.restore for v in autograd.saved_values(f, real.derivative_for(f))]
    assert "const OptionalIntArrayRef dim = dim_ ? OptionalIntArrayRef(*dim_) : OptionalIntArrayRef();" in restores


def test_edge_ranges_after_a_tensor_list(mini: Spec) -> None:
    d = _entry(mini, "cat")
    ranges = autograd.edge_ranges(d.differentiable_arguments, autograd.list_size_field)
    assert [(r.begin, r.size) for r in ranges] == [("0", "tensors_size_")]
    args = _entry(mini, "where.self").func.arguments  # condition, self, other; pretend self is a list
    fake = (args[1], args[0].__class__(args[0].type.__class__("Tensor", None, "[]"), "xs"), args[2])
    assert [(r.begin, r.size) for r in autograd.edge_ranges(fake, lambda n: f"{n}.size()")] == \
        [("0", None), ("1", "xs.size()"), ("1 + xs.size()", None)]


# ---- gradcheck tests -----------------------------------------------------------------------

def test_test_kinds_and_inputs(real: Spec, mini: Spec) -> None:
    assert gradcheck.check_kind(_entry(real, "mul.Tensor")) == CheckKind.GRADIENTS
    assert gradcheck.check_kind(_entry(real, "eq.Tensor")) == CheckKind.NO_GRADIENTS
    assert gradcheck.check_kind(_entry(mini, "clamp")) == CheckKind.NOT_IMPLEMENTED
    assert [a.name for a in gradcheck.input_arguments(_entry(real, "where.self"))] == ["self", "other"]
    assert [a.name for a in gradcheck.input_arguments(_entry(real, "eq.Tensor"))] == ["self", "other"]


def test_an_entry_without_gradgrad_checks_that_a_double_backward_refuses(real: Spec) -> None:
    assert not _entry(real, "grid_sampler_2d").supports_gradgrad and _entry(real, "mul.Tensor").supports_gradgrad
    text = dict(pipeline.generate(str(REPO / "yaml")).files)["tests/Gradcheck.cpp"]
    body = text[text.index("TEST(GradcheckTest, GridSampler2dSample0)"):]
    body = body[:body.index("\n}\n")]
    assert "autograd::gradcheck(fn, inputs);" in body and "gradgradcheck" not in body
    assert 'EXPECT_EQ(autograd::checkDoubleBackwardNotImplemented(fn, inputs), "");' in body


def test_derived_samples(mini: Spec) -> None:
    derived = gradcheck.derived_sample(_entry(mini, "add.Tensor"))
    assert derived is not None and derived.values == (("self", RandomTensor((2, 3))), ("other", RandomTensor((2, 3))))
    assert gradcheck.derived_sample(_entry(mini, "pool2d")) is None  # kernel_size has no default


@pytest.mark.parametrize("value,expected", [
    (Literal((1, 2)), "IntArrayRef{1, 2}"), (Literal(()), "IntArrayRef{}"), (Literal(None), "std::nullopt"),
])
def test_list_literals_keep_their_type(real: Spec, value: Literal, expected: str) -> None:
    dim = _entry(real, "sum.dim_IntList").func.argument("dim")  # int[1]?: `{}` alone would mean None
    assert gradcheck.literal(dim, value) == expected


def test_test_names_and_seeds(real: Spec) -> None:
    assert gradcheck.test_name(_entry(real, "sum.dim_IntList")) == "SumDimIntList"
    assert gradcheck.test_name(_entry(real, "copy_")) == "CopyInplace"
    assert gradcheck.seed("AddTensorSample0") == gradcheck.seed("AddTensorSample0") != gradcheck.seed("AddTensorSample1")


def test_real_gradcheck_file_has_one_test_per_sample(real: Spec) -> None:
    text = dict(pipeline.generate(str(REPO / "yaml")).files)["tests/Gradcheck.cpp"]
    expected = sum(max(1, len(d.samples)) for d in real.derivatives)
    assert text.count("TEST(GradcheckTest, ") == expected
    assert "FAIL()" not in text  # every real entry has samples


# ---- the generated files -------------------------------------------------------------------

def _autograd_text(yaml_dir: Path) -> str:
    files = dict(pipeline.generate(str(yaml_dir)).files)
    return "".join(text for path, text in files.items() if path.startswith("opcore/Autograd_"))


def test_every_operator_taking_a_tensor_gets_one_autograd_kernel(real: Spec) -> None:
    text = _autograd_text(REPO / "yaml")
    registered = re.findall(r'm\.impl\("([^"]+)", OPCORE_FN\(wrapper_Autograd_', text)
    assert sorted(registered) == sorted(f.name for f in real.functions if autograd.has_autograd_layer(f))
    assert "mean" not in registered and "zeros" not in registered and "mul.Tensor" in registered
    views = set(re.findall(r'm\.impl\("([^"]+)", OPCORE_FN\(wrapper_ADInplaceOrView_', text))
    assert {"view", "transpose.int", "mul_.Tensor", "mul.out", "copy_", "uniform_"} <= views
    assert not views & {"mul.Tensor", "neg", "mm", "reshape", "t"}  # neither views nor writing (or composite)


def test_kernel_locals_make_way_for_arguments(tmp_path: Path) -> None:
    native = "- func: blend2(Tensor result, Tensor grad_fn, bool guard) -> Tensor\n  dispatch: {CPU: blend2}\n"
    text = _autograd_text(make_yaml_dir(tmp_path, native))
    assert "std::shared_ptr<NotImplemented> grad_fn_;" in text
    assert "Tensor result_ = [&] {" in text and "AutoDispatchBelowADInplaceOrView guard_;" in text
    assert "autograd::setHistory(result_, grad_fn_);" in text and "return result_;" in text


def test_values_no_node_can_save_are_located_errors(tmp_path: Path) -> None:
    native = "- func: pick(Tensor self, str[] names) -> Tensor\n  dispatch: {CPU: pick}\n"
    derivatives = "- name: pick(Tensor self, str[] names) -> Tensor\n  self: grad.pick_backward(names)\n"
    assert _errors(tmp_path, derivatives, native) == [
        "'pick': formulas cannot use 'names' (str[]) yet: a node cannot save that type"]
