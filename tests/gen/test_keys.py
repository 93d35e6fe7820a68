"""The entry keys beyond func/variants/dispatch/tags/doc: the values the model parses from the
fixtures (mini: rendered by the golden test; keys: model only, see its header), their defaults,
ParseOptions, and the checks across entries when some entries are broken. Each rule's error
message is pinned by a file in tests/gen/errors/."""
from __future__ import annotations

from pathlib import Path

import pytest
from genutil import FIXTURES, load_model

from gen.model.dispatch import PYTORCH_ONLY_DISPATCH_KEYS
from gen.model.errors import SpecError
from gen.model.native_function import DeviceCheck, DispatchKey, NativeFunction
from gen.model.native_functions_yaml import parse_native_functions
from gen.model.options import ParseOptions
from gen.model.precompute import PrecomputedElement, Replacement
from gen.model.schema import FunctionSchema, OperatorName, SchemaType, alias_set
from gen.model.yaml_loader import load_yaml


@pytest.fixture(scope="module")
def mini() -> dict[str, NativeFunction]:
    functions, errors = load_model(FIXTURES / "mini")
    assert errors == []
    return {f.name: f for f in functions}


@pytest.fixture(scope="module")
def keys() -> dict[str, NativeFunction]:
    functions, errors = load_model(FIXTURES / "keys")
    assert errors == []
    return {f.name: f for f in functions}


def test_structured_group(mini: dict[str, NativeFunction]) -> None:
    out, functional, inplace = mini["sub.out"], mini["sub.Tensor"], mini["sub_.Tensor"]
    assert out.structured and out.structured_inherits == "TensorIteratorBase"
    assert out.structured_delegate is None and out.precomputed is None
    assert [(k.key, k.kernel) for k in out.dispatch] == [(DispatchKey.CPU, "sub_out"), (DispatchKey.PrivateUse1, "sub_out")]
    for f in (functional, inplace):
        assert f.structured_delegate == OperatorName("sub", "out") and str(f.structured_delegate) == "sub.out"
        assert not f.structured and f.dispatch == ()


def test_precomputed(mini: dict[str, NativeFunction]) -> None:
    p = mini["pool2d.out"].precomputed
    assert p is not None
    assert p.replace == (Replacement("kernel_size", (PrecomputedElement("int", "kH"), PrecomputedElement("int", "kW"))),
                         Replacement("stride", (PrecomputedElement("int", "dH"), PrecomputedElement("int", "dW"))))
    assert p.add == (PrecomputedElement("int", "batch"),)
    assert p.replacement("stride") == (PrecomputedElement("int", "dH"), PrecomputedElement("int", "dW"))
    assert p.replacement("self") is None
    assert [e.name for e in p.elements()] == ["kH", "kW", "dH", "dW", "batch"]
    assert p.lines() == ["kernel_size -> int kH, int kW", "stride -> int dH, int dW", "int batch"]


def test_other_keys(mini: dict[str, NativeFunction]) -> None:
    assert mini["pool2d"].python_module == "nn"
    assert mini["sub.out"].device_check == DeviceCheck.NoCheck
    same_size = mini["is_same_size"]
    assert (same_size.device_check, same_size.device_guard) == (DeviceCheck.NoCheck, False)
    hook = mini["_backward_hook"]
    assert hook.manual_kernel_registration and hook.dispatch == ()
    assert mini["_version"].manual_cpp_binding
    assert mini["clamp"].cpp_no_default_args == frozenset({"min"})
    fill = mini["fill_.Scalar"]
    assert fill.autogen == (OperatorName("fill", "Scalar"), OperatorName("fill", "Scalar_out"))
    assert [k.key for k in fill.dispatch] == [DispatchKey.CompositeExplicitAutogradNonFunctional]


def test_defaults(mini: dict[str, NativeFunction]) -> None:
    f = mini["add.Tensor"]
    assert (f.structured, f.structured_delegate, f.structured_inherits, f.precomputed) == (False, None, None, None)
    assert (f.device_check, f.device_guard) == (DeviceCheck.ExactSame, True)
    assert (f.manual_kernel_registration, f.manual_cpp_binding, f.python_module) == (False, False, None)
    assert (f.cpp_no_default_args, f.autogen, f.dropped_dispatch_keys) == (frozenset(), (), ())


def test_model_only_fixture(keys: dict[str, NativeFunction]) -> None:
    assert keys["bernoulli.p"].tags == ("nondeterministic_seeded",)
    foreach = keys["_foreach_add_.Scalar"]
    assert foreach.func.is_inplace and foreach.func.returns == ()
    assert foreach.autogen == (OperatorName("_foreach_add", "Scalar_out"),)
    assert keys["split_copy.Tensor_out"].func.is_out
    stats = keys["_batch_norm_stats"]
    assert not stats.func.is_inplace and not stats.func.is_out
    assert [str(n) for n in stats.autogen] == ["_batch_norm_stats_functional", "_batch_norm_stats.out"]
    assert keys["__iand__.Tensor"].func.is_inplace
    assert [k.key for k in keys["lerp.Scalar"].dispatch] == [DispatchKey.CompositeImplicitAutograd]
    assert keys["lerp_.Scalar"].structured_delegate == OperatorName("lerp", "Scalar_out")


def test_key_locations(mini: dict[str, NativeFunction]) -> None:
    f = mini["sub.Tensor"]
    text = (FIXTURES / "mini" / "native_functions.yaml").read_text(encoding="utf-8").splitlines()
    loc = f.value_loc("structured_delegate")
    assert text[loc.line - 1][loc.col - 1:] == "sub.out"
    loc = mini["fill_.Scalar"].item_loc("autogen", 1)
    assert text[loc.line - 1][loc.col - 1:] == "fill.Scalar_out"


def _parse(tmp_path: Path, text: str, options: ParseOptions = ParseOptions()):
    path = tmp_path / "nf.yaml"
    path.write_text(text, encoding="utf-8")
    data, errors = load_yaml(str(path))
    assert errors == []
    return parse_native_functions(data, "nf.yaml", frozenset({"core"}), options)


def test_autogen_as_a_list_or_a_string(tmp_path: Path) -> None:
    entry = "- func: fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)\n  dispatch: {CPU: fill_}\n"
    as_string, _ = _parse(tmp_path, entry + "  autogen: fill.Scalar,fill.Scalar_out\n")
    as_list, _ = _parse(tmp_path, entry + "  autogen:\n  - fill.Scalar\n  - fill.Scalar_out\n")
    assert as_string[0].autogen == as_list[0].autogen == (OperatorName("fill", "Scalar"), OperatorName("fill", "Scalar_out"))


def test_pytorch_options(tmp_path: Path) -> None:
    text = ("- func: neg(Tensor self) -> Tensor\n"
            "  use_const_ref_for_mutable_tensors: True\n"
            "  dispatch:\n    CPU, SparseCPU: neg\n    MkldnnCPU: neg_mkldnn\n"
            "- func: abs(Tensor self) -> Tensor\n")
    functions, errors = _parse(tmp_path, text, ParseOptions(
        ignored_dispatch_keys=PYTORCH_ONLY_DISPATCH_KEYS,
        ignored_entry_keys=frozenset({"use_const_ref_for_mutable_tensors"}), dispatch_required=False))
    assert errors == []
    neg, abs_ = functions
    assert [k.key for k in neg.dispatch] == [DispatchKey.CPU]
    assert neg.dropped_dispatch_keys == ("SparseCPU", "MkldnnCPU")
    assert abs_.dispatch == ()
    _, errors = _parse(tmp_path, text)
    assert [(e.loc.line, e.msg.split(" (")[0]) for e in errors] == [
        (2, "unknown key 'use_const_ref_for_mutable_tensors'"), (6, "missing required key 'dispatch'")]


def test_references_to_broken_entries_are_not_reported(tmp_path: Path) -> None:
    """One mistake, one error: a delegate or an autogen name pointing at an entry that failed
    to parse is not reported again as unknown, nor the out= overload as lacking a delegate."""
    text = ("- func: add.out(Tensor self, Tensr other, *, Tensor(a!) out) -> Tensor(a!)\n"
            "  structured: True\n  dispatch: {CPU: add_out}\n"
            "- func: add(Tensor self, Tensor other) -> Tensor\n  structured_delegate: add.out\n"
            "- func: mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n"
            "  structured: True\n  dispatch: {CPU: mul_out}\n"
            "- func: mul(Tensor self, Tensr other) -> Tensor\n  structured_delegate: mul.out\n"
            "- func: add_(Tensor(a!) self, Tensor other) -> Tensor(a!)\n  dispatch: {CPU: add_}\n"
            "  autogen: add.out\n")
    functions, errors = _parse(tmp_path, text)
    assert [f.name for f in functions] == ["add", "mul.out", "add_"]
    assert [(e.loc.line, e.msg.split(":")[0]) for e in errors] == [
        (1, "invalid schema"), (9, "invalid schema"), (13, "'add.out' is declared in this file, so 'add_' cannot generate it")]


def test_pytorch_only_dispatch_keys() -> None:
    for key in ("SparseCPU", "SparseCUDA", "QuantizedCPU", "MkldnnCPU", "NestedTensorCPU", "ZeroTensor", "MPS", "XPU",
                "SparseCsrCUDA", "CompositeImplicitAutogradNestedTensor"):
        assert key in PYTORCH_ONLY_DISPATCH_KEYS
    assert not PYTORCH_ONLY_DISPATCH_KEYS & {k.value for k in DispatchKey}


@pytest.mark.parametrize("name,inplace,functional_base", [
    ("add", False, "add"), ("add_", True, "add"), ("__iand__", True, "__and__"), ("__and__", False, "__and__"),
    ("__iter__", False, "__iter__"), ("_foreach_add_", True, "_foreach_add"),
])
def test_inplace_names(name: str, inplace: bool, functional_base: str) -> None:
    op = OperatorName(name, "Tensor")
    assert (op.is_inplace, op.functional_base) == (inplace, functional_base)


@pytest.mark.parametrize("type_,aliases", [
    (SchemaType("Tensor"), set()), (SchemaType("Tensor", "a!"), {"a"}), (SchemaType("Tensor", "a -> *"), {"a"}),
    (SchemaType("Tensor", "a|b"), {"a", "b"}), (SchemaType("Tensor", "b!", "[]"), {"b"}),
])
def test_alias_set(type_: SchemaType, aliases: set[str]) -> None:
    assert alias_set(type_) == aliases


def test_schema_kinds_of_the_keys_fixture(keys: dict[str, NativeFunction]) -> None:
    """The mutable arguments of a `mutable` operator are neither out= nor returned."""
    func: FunctionSchema = keys["_batch_norm_stats"].func
    mutable = [a.name for a in func.arguments if a.type.is_mutable]
    assert mutable == ["running_mean", "running_var"] and func.out_arguments == ()


def test_entries_made_without_locations_are_checked(mini: dict[str, NativeFunction]) -> None:
    """An entry the generator derives from another (no YAML of its own) gets the same checks;
    errors about its keys point at the entry."""
    out = mini["sub.out"]
    with pytest.raises(SpecError) as info:
        NativeFunction(func=out.func, variants=out.variants, dispatch=(), tags=(), doc="", loc=out.loc,
                       func_loc=out.func_loc, structured_inherits="TensorIteratorBase")
    assert info.value.loc == out.loc
    assert info.value.msg == "'structured_inherits' is only for structured kernels: 'sub.out' needs 'structured: True'"
