"""derivatives.yaml in torchgen's format (--pytorch-yaml; Note [torchgen's derivatives format] in
gen/model/derivatives.py): every construct of fixtures/torchgen_derivatives parses, is validated
and generates under PYTORCH_OPTIONS, and each is a located error under opcore's own rules."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from genutil import FIXTURES, run_gen

from gen import pipeline
from gen.model.derivatives import ForwardKind
from gen.model.errors import SpecErrors
from gen.model.formulas import unqualified_names
from gen.model.options import PYTORCH_OPTIONS, ParseOptions
from gen.model.spec import Spec

DIR = FIXTURES / "torchgen_derivatives"
HELPERS = DIR / "formula_helpers.txt"
OPTIONS = dataclasses.replace(PYTORCH_OPTIONS, formula_helpers=pipeline.read_formula_helpers(str(HELPERS)))


@pytest.fixture(scope="module")
def spec() -> Spec:
    return pipeline.load_spec(str(DIR), OPTIONS)


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return dict(pipeline.generate(str(DIR), OPTIONS).files)


def _entry(spec: Spec, name: str):
    return next(d for d in spec.derivatives if d.name == name)


def _autograd(generated: dict[str, str]) -> str:
    return "".join(text for path, text in generated.items() if path.startswith("opcore/Autograd_"))


def _errors(options: ParseOptions) -> list[str]:
    with pytest.raises(SpecErrors) as e:
        pipeline.load_spec(str(DIR), options)
    return [f"{err.loc.line}:{err.loc.col}: {err.msg}" for err in e.value.errors]


def test_a_key_naming_outputs_is_a_forward_formula(spec: Spec) -> None:
    cholesky = _entry(spec, "cholesky_ex")
    assert [f.names for f in cholesky.formulas] == [("self",)]
    assert [(f.outputs, f.kind) for f in cholesky.forwards] == [(("L",), ForwardKind.formula)]
    rnn = _entry(spec, "rnn")
    assert [(f.outputs, f.expr) for f in rnn.forwards] == [(("result",), "rnn_jvp(input_t, hx, params)")]


def test_dispatch_blocks_read_default(spec: Spec, generated: dict[str, str]) -> None:
    values = _entry(spec, "values")
    assert [(f.names, f.expr) for f in values.formulas] == [(("self",), "values_backward(grad, self)")]
    code = _autograd(generated)
    assert "values_backward(grad, self)" in code and "nested_values_backward" not in code


def test_an_argument_named_grad(spec: Spec, generated: dict[str, str]) -> None:
    bag = _entry(spec, "bag_backward")
    assert [(f.names, f.not_implemented, f.non_differentiable) for f in bag.formulas] == [
        (("grad",), "bag_backward", False), (("indices",), None, True)]
    # `weights` has no formula: torchgen's reading is that it is not differentiable.
    assert [a.name for a in bag.differentiable_arguments] == ["grad"]
    node = _autograd(generated).split("BagBackwardBackward0::apply", 1)[1].split("\n}\n", 1)[0]
    assert 'not_implemented("aten::bag_backward", "bag_backward")' in node
    assert "grad_.unpack" not in node  # the argument is not saved: `grad` in a formula is the gradient


def test_tensor_lists_in_a_key_of_several_arguments(spec: Spec, generated: dict[str, str]) -> None:
    rnn = _entry(spec, "rnn")
    assert [f.names for f in rnn.backward_formulas] == [("input", "hx", "params")]
    assert [(f.names, f.non_differentiable) for f in rnn.formulas][1] == (("dropout",), True)
    node = _autograd(generated).split("RnnBackward0::apply", 1)[1].split("\n}\n", 1)[0]
    assert "grad_inputs[0] = std::get<0>(std::move(grad_result));" in node
    assert "copyRange(grad_inputs, 1, std::get<1>(std::move(grad_result)));" in node
    assert "copyRange(grad_inputs, 1 + hx_size_, std::get<2>(std::move(grad_result)));" in node


def test_not_implemented_with_a_message_constant(generated: dict[str, str]) -> None:
    assert 'not_implemented("aten::rnn_backward", kDoubleBackwardMsg)' in _autograd(generated)


def test_a_conditionally_differentiable_output(spec: Spec, generated: dict[str, str]) -> None:
    to_copy = _entry(spec, "to_copy")
    assert to_copy.output_condition.expr == "!dtype || isDifferentiableType(*dtype)"
    assert to_copy.differentiable_outputs == (0,)
    kernel = _autograd(generated).split("wrapper_Autograd_to_copy(", 1)[1].split("\n}\n", 1)[0]
    assert "autograd::computeRequiresGrad(self) && (!dtype || isDifferentiableType(*dtype))" in kernel


def test_each_construct_is_an_error_in_opcore_format() -> None:
    """opcore's own rules: one located error per construct, saying where it is allowed (the
    names torchgen's generated code defines are unknown names)."""
    assert _errors(ParseOptions()) == [
        "7:3: 'L' is not an argument of 'cholesky_ex': 'L' is an output; a forward-mode formula is written "
        "'result:' (for an operator with one output)",
        "12:3: 'dispatch:' blocks of formulas per autograd key are torchgen's format (read with --pytorch-yaml); "
        "opcore has one autograd key: write the formulas in the entry",
        "19:29: argument 'grad' has a name formulas use for the gradients or outputs",
        "26:10: 'hx' is a tensor list: its gradients need a formula of their own",
        "32:10: not_implemented(\"reason\") takes one argument (the form with a message constant is torchgen's: "
        "read with --pytorch-yaml)",
        "38:31: 'output_differentiability' must be a list of True/False, one per output, got "
        "'!dtype || isDifferentiableType(*dtype)' (a condition, as torchgen allows for one output: read with "
        "--pytorch-yaml)",
        "43:9: unknown name 'retain_variables' in the formula for 'self' (a formula may use the arguments, grad, "
        "grads, grad_input_mask, the results, operators and the helpers of Formulas.h)",
        "47:15: unknown name 'i' in the formula for 'self' (a formula may use the arguments, grad, grads, "
        "grad_input_mask, the results, operators and the helpers of Formulas.h)",
        "48:17: unknown name 'i' in the formula for 'other' (a formula may use the arguments, grad, grads, "
        "grad_input_mask, the results, operators and the helpers of Formulas.h)",
        "49:38: unknown name 'i' in the forward derivative (a formula may use the arguments, grad, grads, "
        "grad_input_mask, the results, operators and the helpers of Formulas.h)",
        "53:19: unknown name 'fmap' in the formula for 'self' (a formula may use the arguments, grad, grads, "
        "grad_input_mask, the results, operators and the helpers of Formulas.h)",
    ]


def test_names_outside_opcore_need_formula_helpers() -> None:
    errors = _errors(PYTORCH_OPTIONS)
    assert errors[0] == ("6:9: unknown name 'cholesky_backward' in the formula for 'self' (a formula may use "
                         "the arguments, grad, grads, grad_input_mask, the results, operators and the helpers "
                         "of Formulas.h or --formula-helpers FILE)")
    unknown = {e.split("'")[1] for e in errors}
    # Only a formula's first unknown name is reported: qr's not_implemented_list follows qr_backward.
    assert unknown == set(OPTIONS.formula_helpers) - {"not_implemented_list"}


def test_torchgen_rules_that_remain(tmp_path: Path) -> None:
    """Under --pytorch-yaml too: formulas go in the blocks once an entry has `dispatch:`, and a
    condition is for an operator with one output."""
    (tmp_path / "yaml").mkdir()
    for name in ("native_functions.yaml", "tags.yaml"):
        (tmp_path / "yaml" / name).write_text((DIR / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "yaml" / "derivatives.yaml").write_text(
        "- name: values(Tensor(a) self) -> Tensor(a)\n"
        "  self: grad\n"
        "  dispatch:\n"
        "    Default:\n"
        "      self: grad\n"
        "- name: cholesky_ex(Tensor self, *, bool upper=False) -> (Tensor L, Tensor info)\n"
        "  self: grad\n"
        "  output_differentiability: [\"upper\"]\n", encoding="utf-8")
    with pytest.raises(SpecErrors) as e:
        pipeline.load_spec(str(tmp_path / "yaml"), PYTORCH_OPTIONS)
    assert [f"{err.loc.line}:{err.loc.col}: {err.msg}" for err in e.value.errors] == [
        "2:3: the formula for 'self' is outside 'dispatch': with 'dispatch', every formula goes in its blocks",
        "8:29: a condition in 'output_differentiability' is for an operator with one output, as the list's only "
        "value; 'cholesky_ex' returns 2 output(s)",
    ]


def test_formula_helpers_on_the_command_line(tmp_path: Path) -> None:
    ok = run_gen("--yaml-dir", str(DIR), "--out", str(tmp_path / "out"), "--dry-run", "--pytorch-yaml",
                 "--formula-helpers", str(HELPERS))
    assert ok.returncode == 0, ok.stderr
    bad = tmp_path / "helpers.txt"
    bad.write_text("cholesky_backward\n  two words  # a comment\n", encoding="utf-8")
    failed = run_gen("--yaml-dir", str(DIR), "--out", str(tmp_path / "out"), "--dry-run", "--pytorch-yaml",
                     "--formula-helpers", str(bad))
    assert failed.returncode == 1
    assert failed.stderr.startswith(f"{bad}:2:3: error: expected one C++ name per line (a function formulas may "
                                    "call), got 'two words'\n")
    usage = run_gen("--yaml-dir", str(DIR), "--dry-run", "--formula-helpers", str(HELPERS))
    assert usage.returncode == 2 and "--formula-helpers goes with --pytorch-yaml" in usage.stderr


def test_every_entry_with_formulas_gets_its_node(generated: dict[str, str]) -> None:
    code = _autograd(generated)
    assert sorted(re.findall(r"struct (\w+) final : public Node", code)) == [
        "BagBackwardBackward0", "CholeskyExBackward0", "ForeachDivBackward0", "QrBackward0", "RnnBackward0",
        "RnnBackwardBackward0", "RollBackward0", "ToCopyBackward0", "ValuesBackward0"]


def test_named_gradients_and_retain_variables(generated: dict[str, str]) -> None:
    node = _autograd(generated).split("QrBackward0::apply", 1)[1].split("\n}\n", 1)[0]
    assert "const Tensor& grad_Q = grads[0];" in node and "const Tensor& grad_R = grads[1];" in node
    assert "const bool retain_variables = true;" in node


def test_a_foreach_formula_runs_per_element(generated: dict[str, str]) -> None:
    node = _autograd(generated).split("ForeachDivBackward0::apply", 1)[1].split("\n}\n", 1)[0]
    assert "for (size_t i = 0; i < self_size_; ++i) grad_result[i] = grads[i] / other[i];" in node
    assert "copyRange(grad_inputs, self_size_, std::move(grad_result));" in node


def test_a_lambda_parameter_is_local(spec: Spec) -> None:
    roll = _entry(spec, "roll")
    assert "s" not in {n.text for n in unqualified_names(roll.formulas[0].expr)}
