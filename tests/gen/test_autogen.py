"""`autogen:` (Note [Generated overloads] in gen/model/autogen.py): the schemas derived for each
kind of entry, the generated overloads in the model, and their generated kernels. One error
case per rule is in tests/gen/errors/autogen_*.yaml; tests/api/AutogenTest.cpp runs the
repository's generated overloads."""
from __future__ import annotations

import pytest
from genutil import FIXTURES, load_model

from gen.emit.autogen import wrapper_view
from gen.model.autogen import functional_schema, out_schema
from gen.model.schema import FunctionSchema
from gen.model.spec import Spec


@pytest.mark.parametrize("entry, functional", [
    ("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", "fill.Scalar(Tensor self, Scalar value) -> Tensor"),
    ("_foreach_zero_(Tensor(a!)[] self) -> ()", "_foreach_zero(Tensor[] self) -> Tensor[] self_out"),
    ("bn(Tensor input, Tensor(a!) mean, Tensor(b!) var) -> (Tensor, Tensor)",
     "bn_functional(Tensor input, Tensor mean, Tensor var) -> (Tensor, Tensor, Tensor mean_out, Tensor var_out)"),
    ("step_.x(Tensor(a!) self, Tensor(b!) state, *, int n=1) -> Tensor(a!)",
     "step.x(Tensor self, Tensor state, *, int n=1) -> (Tensor, Tensor state_out)"),
])
def test_functional_schema(entry: str, functional: str) -> None:
    assert str(functional_schema(FunctionSchema.parse(entry))) == functional


@pytest.mark.parametrize("entry, out", [
    ("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
     "clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)"),
    ("add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
     "add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)"),
    ("max.dim(Tensor self, int dim) -> (Tensor values, Tensor indices)",
     "max.dim_out(Tensor self, int dim, *, Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))"),
    ("split(Tensor self, int n) -> Tensor[]", "split.out(Tensor self, int n, *, Tensor(a!)[] out) -> ()"),
    ("stats(Tensor self) -> (Tensor, float)", "stats.out(Tensor self, *, Tensor(a!) out0) -> float"),
    ("_foreach_exp_(Tensor(a!)[] self) -> ()", "_foreach_exp.out(Tensor[] self, *, Tensor(a!)[] out) -> ()"),
    ("bn(Tensor input, Tensor(a!) mean) -> Tensor",
     "bn.out(Tensor input, Tensor(a!) mean, *, Tensor(b!) out) -> Tensor(b!)"),
])
def test_out_schema(entry: str, out: str) -> None:
    assert str(out_schema(FunctionSchema.parse(entry))) == out


@pytest.fixture(scope="module")
def keys() -> dict:
    functions, errors = load_model(FIXTURES / "keys")
    assert errors == []
    return {f.name: f for f in functions}


@pytest.fixture(scope="module")
def spec(keys) -> Spec:
    """The same functions as the Spec the emitters read (its name index included)."""
    return Spec(tuple(keys.values()), (), ())


def test_generated_overloads_join_the_model(keys) -> None:
    out = keys["_batch_norm_stats.out"]
    assert out.autogen_source == "_batch_norm_stats"
    assert [(k.key.value, k.kernel) for k in out.dispatch] == [("CompositeExplicitAutograd", "_batch_norm_stats_out")]
    assert out.native_kernels == () and keys["_batch_norm_stats"].native_kernels != ()
    assert [f for f in keys if f.startswith("_batch_norm_stats")] == [
        "_batch_norm_stats", "_batch_norm_stats_functional", "_batch_norm_stats.out"]


def test_out_kernel_calls_the_functional_form_and_copies_every_mutated_value(keys, spec) -> None:
    body = wrapper_view(keys["_batch_norm_stats.out"], spec).statements
    assert body[0] == ("auto result = _ops::_batch_norm_stats_functional::call(input, running_mean, "
                       "running_var, momentum);")
    copies = [s for s in body if s.startswith("opcore::_ops::copy_::call")]
    assert copies == ["opcore::_ops::copy_::call(running_mean, std::get<2>(result), false);",
                      "opcore::_ops::copy_::call(running_var, std::get<3>(result), false);",
                      "opcore::_ops::copy_::call(out0, std::get<0>(result), false);",
                      "opcore::_ops::copy_::call(out1, std::get<1>(result), false);"]
    assert body[-1] == "return std::forward_as_tuple(out0, out1);"


def test_functional_kernel_runs_the_entry_on_copies(keys, spec) -> None:
    body = wrapper_view(keys["_batch_norm_stats_functional"], spec).statements
    assert "auto results = _ops::_batch_norm_stats::call(input, running_mean_copy, running_var_copy, momentum);" in body
    assert body[-1] == ("return std::make_tuple(std::get<0>(results), std::get<1>(results), "
                        "running_mean_copy, running_var_copy);")


def test_out_kernel_without_a_functional_overload_copies_lists(keys, spec) -> None:
    body = wrapper_view(keys["_foreach_add.Scalar_out"], spec).statements
    assert "_ops::_foreach_add__Scalar::call(self_copy, scalar);" in body
    assert any(s.startswith("detail::checkOutListSize(") for s in body)
    assert not any(s.startswith("return") for s in body)


def test_functional_and_inplace_overloads_may_share_an_autogen_name_in_pytorch_mode(tmp_path) -> None:
    """PyTorch's `_foreach_lerp.List` and `_foreach_lerp_.List` both list `_foreach_lerp.List_out`
    (torchgen's rule: one operator's overloads generate it once, here from the functional one);
    opcore's own rule is that one entry lists it (tests/gen/errors/autogen_twice.yaml)."""
    from genutil import make_yaml_dir
    from gen.model.options import PYTORCH_OPTIONS
    text = (FIXTURES / "keys" / "native_functions.yaml").read_text(encoding="utf-8") + """
- func: _foreach_lerp_.List(Tensor(a!)[] self, Tensor[] tensors1, Tensor[] weights) -> ()
  dispatch:
    CompositeExplicitAutograd: foreach_lerp_
  autogen: _foreach_lerp.List_out

- func: _foreach_lerp.List(Tensor[] self, Tensor[] tensors1, Tensor[] weights) -> Tensor[]
  dispatch:
    CompositeExplicitAutograd: foreach_lerp
  autogen: _foreach_lerp.List_out
"""
    yaml_dir = make_yaml_dir(tmp_path, text, tags=FIXTURES / "keys" / "tags.yaml")
    functions, errors = load_model(yaml_dir, PYTORCH_OPTIONS)
    assert errors == []
    out = [f for f in functions if f.name == "_foreach_lerp.List_out"]
    assert [(f.autogen_source, str(f.func)) for f in out] == [
        ("_foreach_lerp.List",
         "_foreach_lerp.List_out(Tensor[] self, Tensor[] tensors1, Tensor[] weights, *, Tensor(a!)[] out) -> ()")]
    _, errors = load_model(yaml_dir)
    assert [e.msg for e in errors] == ["'_foreach_lerp.List_out' is already generated by '_foreach_lerp_.List' "
                                       f"(line {text.count(chr(10)) - 8})"]
