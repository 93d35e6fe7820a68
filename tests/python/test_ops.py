"""opcore.ops: namespaces, OpOverloadPacket, OpOverload, schemas, tags, redispatch,
decompose, load_library (seed 000, sections 1-4.2)."""
import copy
import os
import pathlib

import pytest

import opcore
from opcore import DispatchKey, DispatchKeySet, ops
from opcore._ops import FunctionSchema, OpOverload, OpOverloadPacket, _OpNamespace, _Ops

BUILD = pathlib.Path(__file__).resolve().parents[2] / "build"
PLUGIN = os.environ.get("OPCORE_TEST_PLUGIN_PATH", str(BUILD / "libopcore_test_plugin.so"))
BROKEN_PLUGIN = os.environ.get("OPCORE_TEST_BROKEN_PLUGIN_PATH", str(BUILD / "libopcore_test_broken_plugin.so"))


def test_ops_is_a_module_whose_namespaces_are_made_on_first_access_and_cached():
    fresh = _Ops()
    assert isinstance(fresh, type(os))
    assert list(fresh) == []
    aten = fresh.aten
    assert isinstance(aten, _OpNamespace)
    assert aten.__name__ == "opcore.ops.aten"
    assert fresh.aten is aten
    assert "aten" in fresh.__dict__  # a plain attribute from now on
    fresh.myns
    assert list(fresh) == ["aten", "myns"]


def test_a_namespace_binds_each_operator_once_and_iterates_over_those_seen():
    ns = _OpNamespace("aten")
    packet = ns.mul
    assert isinstance(packet, OpOverloadPacket)
    assert ns.mul is packet
    assert ns.__dict__["mul"] is packet
    ns.sub
    assert list(ns) == ["mul", "sub"]
    assert packet.__module__ == "opcore._ops.aten"


def test_an_unknown_operator_or_namespace_attribute_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="'_OpNamespace' 'aten' object has no attribute 'no_such_op'"):
        ops.aten.no_such_op
    assert getattr(ops.aten, "no_such_op", None) is None
    with pytest.raises(AttributeError, match="Invalid attribute '__origin__'"):
        ops.aten.__origin__
    with pytest.raises(AttributeError):
        ops.__wrapped__


def test_an_unknown_function_of_opcore_or_nn_functional_is_python_s_attribute_error():
    # A selective build's left-out operators say so instead (tests/build/selective_check.py).
    with pytest.raises(AttributeError, match="^module 'opcore' has no attribute 'no_such_op'$"):
        opcore.no_such_op
    with pytest.raises(AttributeError, match="^module 'opcore.nn.functional' has no attribute 'relu6'$"):
        opcore.nn.functional.relu6
    assert not hasattr(opcore, "__wrapped__") and hasattr(opcore, "add")
    with pytest.raises(ImportError):
        from opcore import no_such_op  # noqa: F401


def test_packet_repr_str_name_hash_and_deepcopy():
    add = ops.aten.add
    assert repr(add) == "<OpOverloadPacket(op='aten.add')>"
    assert str(add) == "aten.add"
    assert add.__name__ == "add"
    assert add._qualified_op_name == "aten::add"
    assert hash(add) == hash("aten::add")
    assert copy.deepcopy(add) is add
    assert add.op is add
    assert add.__file__ == "opcore.ops"


def test_overloads_lists_every_overload_with_the_empty_one_as_default():
    assert ops.aten.add.overloads() == ["Scalar", "Scalar_out", "Tensor", "out"]
    assert ops.aten.sum.overloads()[0] == "default"
    assert "dim_IntList" in ops.aten.sum.overloads()


def test_default_is_the_empty_overload_name_and_overloads_are_cached_and_iterated():
    packet = _OpNamespace("aten").sum
    assert list(packet) == []
    default = packet.default
    assert isinstance(default, OpOverload)
    assert default._schema.overload_name == ""
    assert default.__name__ == "sum.default"
    assert packet.default is default
    packet.dim_IntList
    assert list(packet) == ["default", "dim_IntList"]


def test_an_unknown_overload_is_an_attribute_error_and_dunders_need_no_registry_lookup():
    with pytest.raises(AttributeError, match="The underlying op of 'aten.add' has no overload name 'nope'"):
        ops.aten.add.nope
    with pytest.raises(AttributeError, match="can't have an overload name beginning with '__'"):
        ops.aten.add.__wrapped__
    assert not hasattr(ops.aten.add, "__torch_function__")


def test_schemas_of_a_packet_and_the_schema_object_of_an_overload():
    schemas = ops.aten.add._schemas
    assert set(schemas) == {"Scalar", "Scalar_out", "Tensor", "out"}
    assert schemas["Tensor"] is ops.aten.add.Tensor._schema
    s = ops.aten.add.Tensor._schema
    assert isinstance(s, FunctionSchema)
    assert s.name == "aten::add" and s.overload_name == "Tensor"
    assert str(s) == "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    self_arg, other, alpha = s.arguments
    assert (self_arg.name, self_arg.type, self_arg.kwarg_only, self_arg.has_default_value) == ("self", "Tensor", False, False)
    assert (alpha.name, alpha.type, alpha.kwarg_only, alpha.default_value) == ("alpha", "Scalar", True, 1)
    assert [r.type for r in s.returns] == ["Tensor"]
    out = ops.aten.add.out._schema
    assert out.arguments[-1].alias_info.is_write and out.arguments[-1].is_out
    assert out.arguments[-1].alias_info.before_set == frozenset({"a"})
    assert out.returns[0].alias_info.is_write
    assert out.is_mutable and not s.is_mutable


def test_an_overload_knows_its_name_namespace_packet_tags_and_whether_it_is_a_view():
    add = ops.aten.add.Tensor
    assert add.name() == "aten::add.Tensor"
    assert add.namespace == "aten"
    assert add.overloadpacket is ops.aten.add
    assert repr(add) == "<OpOverload(op='aten.add', overload='Tensor')>"
    assert str(add) == "aten.add.Tensor"
    assert add.__qualname__ == "aten::add.Tensor"
    assert opcore.Tag.pointwise in add.tags and opcore.Tag.core in add.tags
    assert all(isinstance(t, opcore.Tag) for t in ops.aten.sum.default.tags)
    assert copy.deepcopy(add) is add
    assert not add.is_view


def test_calling_an_overload_or_a_packet_runs_the_operator_as_the_generated_binding_does():
    a, b = opcore.tensor([1.0, 2.0]), opcore.tensor([10.0, 20.0])
    assert ops.aten.add.Tensor(a, b).tolist() == [11.0, 22.0]
    assert ops.aten.add.Tensor(a, b, alpha=2).tolist() == [21.0, 42.0]
    assert ops.aten.add.Tensor(self=a, other=b).tolist() == [11.0, 22.0]  # `self` by keyword too
    assert ops.aten.add(a, b).tolist() == [11.0, 22.0]     # picks Tensor
    assert ops.aten.add(a, 1.5).tolist() == [2.5, 3.5]     # picks Scalar
    assert ops.aten.sum(a).item() == 3.0
    out = opcore.empty(2)
    assert ops.aten.add.out(a, b, out=out) is out
    assert ops.aten.add_.Tensor(a, b) is a and a.tolist() == [11.0, 22.0]
    values, indices = ops.aten.max.dim(opcore.tensor([[1.0, 5.0], [7.0, 2.0]]), 1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]


def test_bad_calls_raise_type_errors_listing_the_signatures():
    with pytest.raises(TypeError, match="other"):
        ops.aten.add.Tensor(opcore.ones(1))
    with pytest.raises(TypeError, match=r"aten::add"):
        ops.aten.add("a", "b")


def test_autograd_flows_through_ops_calls():
    a = opcore.tensor([1.0, 2.0], requires_grad=True)
    ops.aten.sum.default(ops.aten.mul.Tensor(a, a)).backward()
    assert a.grad.tolist() == [2.0, 4.0]


def test_redispatch_runs_the_kernel_of_the_given_keys_skipping_autograd():
    a = opcore.tensor([1.0, 2.0], requires_grad=True)
    r = ops.aten.mul.Tensor.redispatch(DispatchKeySet(DispatchKey.CPU), a, a)
    assert r.tolist() == [1.0, 4.0] and r.grad_fn is None
    assert ops.aten.mul.Tensor(a, a).grad_fn is not None


def test_has_kernel_for_dispatch_key_and_for_any_key_of_a_set():
    add = ops.aten.add.Tensor
    assert add.has_kernel_for_dispatch_key(DispatchKey.CPU)
    assert add.has_kernel_for_dispatch_key(DispatchKey.Autograd)
    assert not add.has_kernel_for_dispatch_key(DispatchKey.CompositeImplicitAutograd)
    assert add.has_kernel_for_any_dispatch_key(DispatchKeySet([DispatchKey.CUDA, DispatchKey.CPU]))
    assert not add.has_kernel_for_any_dispatch_key(DispatchKeySet(DispatchKey.PrivateUse1))


def composite_implicit_operator():
    """An operator of the YAML whose only kernel is CompositeImplicitAutograd."""
    for name in opcore._C._dispatch_get_all_op_names():
        if name.startswith("aten::") and opcore._C._dispatch_has_kernel_for_dispatch_key(
                name, DispatchKey.CompositeImplicitAutograd):
            ns_name, _, overload = name.partition(".")
            return getattr(getattr(ops.aten, ns_name.split("::")[1]), overload or "default")
    pytest.fail("the YAML has no CompositeImplicitAutograd operator")


def test_decompose_runs_the_composite_implicit_kernel_and_is_not_implemented_without_one():
    assert ops.aten.add.Tensor.decompose(opcore.ones(1), opcore.ones(1)) is NotImplemented
    assert not ops.aten.add.Tensor._can_decompose()
    op = composite_implicit_operator()
    assert op._can_decompose()
    args = [opcore.ones(2, 3) if a.type == "Tensor" else None for a in op._schema.arguments]
    if all(a is not None for a in args):
        assert op.decompose(*args).tolist() == op(*args).tolist()


def test_load_library_registers_a_plugins_operators_and_records_the_path():
    assert os.path.exists(PLUGIN), f"build the test plugin first: {PLUGIN}"
    ops.load_library(PLUGIN)
    assert os.path.realpath(PLUGIN) in ops.loaded_libraries
    assert ops.plugin_ops.triple(opcore.ones(2, 2)) == 12
    assert ops.plugin_ops.triple.default._schema.name == "plugin_ops::triple"


def test_load_library_of_a_missing_file_is_an_os_error():
    with pytest.raises(OSError, match="no_such_library.so"):
        ops.load_library("/nonexistent/no_such_library.so")
    with pytest.raises(OSError, match="could not load"):
        ops.load_library(__file__)  # exists, not a shared library


def test_a_library_that_fails_to_register_is_unloaded_and_leaves_the_registry_as_it_was():
    before = opcore._C._dispatch_dump("aten::add.Tensor")
    with pytest.raises(RuntimeError, match=r"registration block at BrokenPlugin.cpp:\d+ failed.*defined twice"):
        ops.load_library(BROKEN_PLUGIN)
    assert not any(n.startswith("broken_plugin_ops::") for n in opcore._C._dispatch_get_all_op_names())
    assert opcore._C._dispatch_dump("aten::add.Tensor") == before
    assert BROKEN_PLUGIN not in ops.loaded_libraries


def test_import_module_imports_a_module_by_name(tmp_path, monkeypatch):
    (tmp_path / "registers_ops.py").write_text("import opcore\nLOADED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    ops.import_module("registers_ops")
    import sys
    assert sys.modules["registers_ops"].LOADED


def test_the_seeds_example_rewritten_for_opcore():
    # Seed 000, section 6: calling an ATen operator through the ops namespace (the seed uses
    # aten::linear, which opcore's YAML does not have; mm with the transposed weight is the same
    # product without bias).
    batch_size, in_features, out_features = 4, 12, 6
    input_tensor = opcore.randn(batch_size, in_features)
    weight_tensor = opcore.randn(out_features, in_features)
    output = ops.aten.mm(input_tensor, weight_tensor.t())
    assert output.shape == (batch_size, out_features)
    assert output.tolist() == opcore.mm(input_tensor, weight_tensor.t()).tolist()


def test_a_packet_resolves_overloads_in_the_generated_bindings_order():
    # A zero-dim tensor matches both `Tensor other` and `Scalar other`: Tensor wins, as in
    # opcore.add (a mode sees which overload ran).
    from opcore.utils._python_dispatch import TorchDispatchMode
    seen = []

    class Capture(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))
    a, zero_dim = opcore.ones(2), opcore.tensor(2.0)
    with Capture():
        assert ops.aten.add(a, zero_dim).tolist() == [3.0, 3.0]
        assert opcore.add(a, zero_dim).tolist() == [3.0, 3.0]
        assert ops.aten.add(a, 2.0).tolist() == [3.0, 3.0]
    assert seen == [ops.aten.add.Tensor, ops.aten.add.Tensor, ops.aten.add.Scalar]
