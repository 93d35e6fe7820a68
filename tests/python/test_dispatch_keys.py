"""opcore._C.DispatchKey, DispatchKeySet, and the dispatcher's state read from Python:
tensors' keys, this thread's included/excluded keys, registrations and tables, the trace."""
import subprocess
import sys

import pytest

import opcore
from opcore import DispatchKey, DispatchKeySet
from opcore._C import _dispatch_keys


def test_dispatch_key_lists_every_key_alias_keys_included():
    for name in ("CPU", "CUDA", "Meta", "PrivateUse1", "Python", "ADInplaceOrView", "AutogradCPU", "Autograd",
                 "CompositeImplicitAutograd", "CompositeExplicitAutograd", "BackendSelect", "Dense"):
        assert name in DispatchKey.__members__
    assert str(DispatchKey.CPU) == "DispatchKey.CPU"
    assert DispatchKey.CPU.name == "CPU"
    assert opcore._C._dispatch_is_alias_key(DispatchKey.Autograd)
    assert not opcore._C._dispatch_is_alias_key(DispatchKey.AutogradCPU)


def test_key_set_operators_and_queries():
    cpu, autograd = DispatchKeySet(DispatchKey.CPU), DispatchKeySet(DispatchKey.AutogradCPU)
    both = cpu | autograd
    assert both.has(DispatchKey.CPU) and both.has(DispatchKey.AutogradCPU)
    assert both.highestPriorityTypeId() == DispatchKey.AutogradCPU
    assert (both - DispatchKeySet(DispatchKey.AutogradFunctionality)).highestPriorityTypeId() == DispatchKey.CPU
    assert (both & autograd) == autograd
    assert both.remove(DispatchKey.AutogradFunctionality) == cpu
    assert cpu.add(DispatchKey.Python).highestPriorityTypeId() == DispatchKey.Python
    assert DispatchKeySet([DispatchKey.CPU, DispatchKey.Python]) == cpu.add(DispatchKey.Python)
    assert DispatchKeySet("CPU") == cpu
    assert repr(both) == "DispatchKeySet(CPU, AutogradCPU)"
    assert DispatchKeySet().empty() and not cpu.empty()
    assert len({cpu, DispatchKeySet(DispatchKey.CPU)}) == 1


def test_key_set_errors_name_the_bad_key():
    with pytest.raises(ValueError, match="unknown dispatch key 'Nope'"):
        DispatchKeySet("Nope")
    with pytest.raises(TypeError, match="expected a DispatchKey"):
        DispatchKeySet(DispatchKey.CPU).has(3.5)


def test_a_tensors_keys_are_the_ones_torch_reports_for_its_device():
    # Note [The keys _dispatch_keys reports]: torch 2.x prints
    # DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU) for a plain CPU tensor.
    t = opcore.ones(2)
    cpu = DispatchKeySet([DispatchKey.CPU, DispatchKey.ADInplaceOrView, DispatchKey.AutogradCPU, DispatchKey.AutocastCPU])
    assert _dispatch_keys(t) == cpu
    assert repr(_dispatch_keys(t)) == "DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)"
    assert _dispatch_keys(t).highestPriorityTypeId() == DispatchKey.AutocastCPU
    t.requires_grad_()
    assert _dispatch_keys(t) == cpu
    # torch has no Autocast key for Meta: DispatchKeySet(Meta, ADInplaceOrView, AutogradMeta).
    assert repr(_dispatch_keys(opcore.empty(2, device="meta"))) == "DispatchKeySet(Meta, ADInplaceOrView, AutogradMeta)"
    with pytest.raises(TypeError, match="expected a Tensor"):
        _dispatch_keys(3)


def test_the_threads_included_and_excluded_keys_can_be_set_and_restored():
    C = opcore._C
    assert not C._dispatch_tls_is_dispatch_key_excluded(DispatchKey.AutogradFunctionality)
    a = opcore.ones(2, requires_grad=True)
    C._dispatch_tls_set_dispatch_key_excluded(DispatchKey.AutogradFunctionality, True)
    try:
        assert C._dispatch_tls_local_exclude_set().has(DispatchKey.AutogradFunctionality)
        assert (a * a).grad_fn is None  # autograd skipped
    finally:
        C._dispatch_tls_set_dispatch_key_excluded(DispatchKey.AutogradFunctionality, False)
    assert (a * a).grad_fn is not None
    assert C._dispatch_tls_local_include_set().empty()


def test_dump_and_table_show_the_registrations_and_their_resolution():
    state = opcore._C._dispatch_dump("aten::add.Tensor")
    assert "aten::add.Tensor" in state and "CPU" in state and "RegisterSchema.cpp" in state
    table = opcore._C._dispatch_dump_table("aten::add.Tensor")
    assert "AutogradCPU" in table and "CPU" in table
    opcore._C._dispatch_check_invariants("aten::add.Tensor")
    assert "aten::add.Tensor" in opcore._C._dispatch_get_all_op_names()
    with pytest.raises(RuntimeError, match="aten::no_such"):
        opcore._C._dispatch_dump("aten::no_such")


def test_fallthrough_and_computed_kernel_queries():
    C = opcore._C
    assert C._dispatch_kernel_for_dispatch_key_is_fallthrough("aten::add.Tensor", DispatchKey.ADInplaceOrView)
    assert not C._dispatch_kernel_for_dispatch_key_is_fallthrough("aten::add.Tensor", DispatchKey.CPU)
    assert C._dispatch_has_computed_kernel_for_dispatch_key("aten::add.Tensor", DispatchKey.AutogradCPU)


def test_the_dispatch_trace_switch_prints_calls_while_on():
    code = ("import opcore; a = opcore.ones(2); opcore._C._dispatch_set_trace(True); a + a; "
            "opcore._C._dispatch_set_trace(False); a * a; print(opcore._C._dispatch_trace_enabled())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "[call] op=[aten::add.Tensor]" in r.stderr
    assert "aten::mul" not in r.stderr
    assert r.stdout.strip() == "False"


def test_the_stubs_list_every_key_with_its_value():
    import ast
    import pathlib
    stub = pathlib.Path(opcore.__file__).resolve().parent.parent.parent / "gen" / "templates" / "_C_handwritten.pyi"
    tree = ast.parse(stub.read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "DispatchKey")
    stubbed = {a.targets[0].id: a.value.value for a in cls.body if isinstance(a, ast.Assign)}
    assert stubbed == {name: key.value for name, key in DispatchKey.__members__.items()}
