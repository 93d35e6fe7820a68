"""opcore.library: Library (DEF / IMPL / FRAGMENT), define / impl / fallback, Python kernels
composing with C++ ones and with autograd, custom_op with schema inference, register_fake,
register_autograd, OpOverload.py_impl at a dispatch key, and every error the seed guards."""
import gc
import itertools
import re

import pytest

import opcore
from opcore import DispatchKey, Tag, ops
from opcore.library import Library, custom_op, fallthrough_kernel, infer_schema

_names = itertools.count()


@pytest.fixture
def ns():
    """A namespace no other test uses (registrations are process-wide)."""
    return f"pylib{next(_names)}"


def test_define_and_impl_make_a_callable_operator_with_its_tags(ns):
    lib = Library(ns, "DEF")
    assert lib.define("scale(Tensor x, float factor=2.0) -> Tensor", tags=(Tag.pointwise,)) == "scale"
    lib.impl("scale", lambda x, factor: x * factor, "CPU")
    op = getattr(ops, ns).scale
    assert op(opcore.tensor([1.0, 2.0])).tolist() == [2.0, 4.0]
    assert op.default(opcore.tensor([1.0]), factor=5.0).tolist() == [5.0]
    assert op.default.tags == (Tag.pointwise,)
    assert str(op.default._schema) == f"{ns}::scale(Tensor x, float factor=2.0) -> Tensor"
    assert repr(lib) == f"Library(kind=DEF, ns={ns}, dispatch_key=)>"


def test_device_index_and_sym_bool_arguments(ns):
    """PyTorch's newer schema types: DeviceIndex is an int in int8_t's range, SymBool a bool."""
    lib = Library(ns, "DEF")
    lib.define("pick(Tensor x, DeviceIndex index, SymBool flag=True) -> Tensor")
    lib.impl("pick", lambda x, index, flag: x + (index if flag else 0), "CPU")
    op = getattr(ops, ns).pick
    assert op(opcore.tensor([1.0]), 3).tolist() == [4.0]
    assert op(opcore.tensor([1.0]), 3, flag=False).tolist() == [1.0]
    with pytest.raises(ValueError, match="a DeviceIndex argument must be between -128 and 127, but got 300"):
        op(opcore.tensor([1.0]), 300)
    assert str(op.default._schema) == f"{ns}::pick(Tensor x, DeviceIndex index, SymBool flag=True) -> Tensor"


def test_registrations_name_their_python_site_and_end_with_the_library(ns):
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x + 1, "CPU")
    line = test_registrations_name_their_python_site_and_end_with_the_library.__code__.co_firstlineno
    state = opcore._C._dispatch_dump(f"{ns}::f")
    assert f"registered at test_library.py:{line + 2}" in state  # the define
    assert re.search(rf"CPU: \[?registered at test_library.py:{line + 3}", state), state
    lib._destroy()
    assert f"{ns}::f" not in opcore._C._dispatch_get_all_op_names()
    with pytest.raises(RuntimeError, match="destroyed"):
        lib.define("g(Tensor x) -> Tensor")


def test_a_library_that_is_garbage_collected_takes_its_registrations_with_it(ns):
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    del lib
    gc.collect()
    assert f"{ns}::f" not in opcore._C._dispatch_get_all_op_names()


def test_defining_an_operator_twice_names_both_sites(ns):
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    frag = Library(ns, "FRAGMENT")
    with pytest.raises(RuntimeError, match=r"defined twice: first registered at test_library.py:\d+.*then registered "
                                           r"at test_library.py:\d+"):
        frag.define("f(Tensor x) -> Tensor")


def test_claiming_a_namespace_twice_and_reserved_namespaces_are_errors(ns):
    keep = Library(ns, "DEF")
    with pytest.raises(RuntimeError, match=ns):
        Library(ns, "DEF")
    with pytest.raises(ValueError, match="aten is a reserved namespace"):
        Library("aten", "DEF")
    with pytest.raises(ValueError, match="Unsupported kind"):
        Library(ns, "DEFINE")
    with pytest.raises(ValueError, match="unknown dispatch key 'Cpu'"):
        Library(ns, "IMPL", "Cpu")
    del keep


def test_a_schema_with_a_syntax_error_is_located_by_column(ns):
    lib = Library(ns, "DEF")
    with pytest.raises(RuntimeError, match=r"column \d+"):
        lib.define("f(Tensor x,, int y) -> Tensor")


def test_impl_of_an_unknown_operator_is_an_error_naming_it(ns):
    lib = Library(ns, "IMPL", "CPU")
    with pytest.raises(RuntimeError, match=rf"impl: operator '{ns}::nothing' is not defined"):
        lib.impl("nothing", lambda x: x)
    frag = Library(ns, "FRAGMENT")
    frag.define("something(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match=rf"'{ns}::something.other' is not defined"):
        lib.impl("something.other", lambda x: x)
    with pytest.raises(TypeError, match="callable"):
        lib.impl("something", 3)
    assert f"{ns}::nothing" not in opcore._C._dispatch_find_dangling_impls()


def test_an_impl_library_registers_only_at_its_key(ns):
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    impl = Library(ns, "IMPL", "CPU")
    with pytest.raises(RuntimeError, match="at dispatch key Meta in an OPCORE_LIBRARY_IMPL block for CPU"):
        impl.impl("f", lambda x: x, "Meta")


def test_a_python_kernel_that_raises_propagates_its_exception_unchanged(ns):
    class Custom(Exception):
        pass

    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")

    def kernel(x):
        raise Custom("from the kernel")
    lib.impl("f", kernel, "CPU")
    with pytest.raises(Custom, match="from the kernel"):
        getattr(ops, ns).f(opcore.ones(1))


def test_a_kernel_returning_the_wrong_type_is_a_type_error_naming_the_schema(ns):
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.define("g(Tensor x) -> (Tensor, Tensor)")
    lib.impl("f", lambda x: 3, "CPU")
    lib.impl("g", lambda x: x, "CPU")
    with pytest.raises(TypeError, match=rf"the Python kernel of {ns}::f returned a value the schema"):
        getattr(ops, ns).f(opcore.ones(1))
    with pytest.raises(TypeError, match="must return a tuple of 2 values"):
        getattr(ops, ns).g(opcore.ones(1))


def test_a_kernel_may_return_none_for_a_tensor_an_undefined_tensor(ns):
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> (Tensor, Tensor)")
    lib.define("g(Tensor x) -> Tensor[]")
    lib.impl("f", lambda x: (None, x), "CPU")
    lib.impl("g", lambda x: [None], "CPU")
    first, second = getattr(ops, ns).f(opcore.ones(1))  # undefined comes back to Python as None
    assert first is None and second.tolist() == [1.0]
    with pytest.raises(TypeError, match=rf"the Python kernel of {ns}::g returned a value the schema"):
        getattr(ops, ns).g(opcore.ones(1))  # a list's elements are tensors still


def test_python_kernels_compose_with_cpp_kernels_and_cpp_callers(ns):
    lib = Library(ns, "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: opcore.mul(x, 2), "CompositeImplicitAutograd")
    a = opcore.tensor([1.0, 3.0], requires_grad=True)
    out = getattr(ops, ns).twice(a)  # autograd comes from the C++ kernels the Python one calls
    out.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]
    assert getattr(ops, ns).twice.default(opcore.ones(1)).tolist() == [2.0]  # the boxed path


def test_a_python_kernel_at_autograd_with_an_autograd_function(ns):
    lib = Library(ns, "DEF")
    lib.define("cube(Tensor x) -> Tensor")
    lib.impl("cube", lambda x: x * x * x, "CPU")
    op = getattr(ops, ns).cube.default

    class Cube(opcore.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            with opcore._ops._AutoDispatchBelowAutograd():
                return op(x)

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * 3 * x * x
    lib.impl("cube", Cube.apply, "Autograd")
    a = opcore.tensor([1.0, 2.0], requires_grad=True)
    y = op(a)
    assert y.tolist() == [1.0, 8.0]
    y.sum().backward()
    assert a.grad.tolist() == [3.0, 12.0]


def test_with_keyset_hands_the_kernel_the_keys_to_redispatch_with(ns):
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x + 100, "CPU")
    seen = []

    def logging(keyset, x):
        seen.append(keyset.highestPriorityTypeId())
        return getattr(ops, ns).f.default.redispatch(keyset - opcore.DispatchKeySet(DispatchKey.AutogradFunctionality), x)
    lib.impl("f", logging, "AutogradCPU", with_keyset=True)
    assert getattr(ops, ns).f(opcore.ones(1, requires_grad=True)).tolist() == [101.0]
    assert seen == [DispatchKey.AutogradCPU]


def test_a_fallback_serves_every_operator_without_its_own_kernel_at_the_key(ns):
    calls = []

    def fallback(op, *args, **kwargs):
        calls.append(op)
        return op.redispatch(opcore.DispatchKeySet(DispatchKey.CPU), *args, **kwargs)
    lib = Library("_", "IMPL", "AutocastCPU")
    lib.fallback(fallback)
    # No operator has an AutocastCPU kernel: with the key included, every call reaches the fallback.
    opcore._C._dispatch_tls_set_dispatch_key_included(DispatchKey.AutocastCPU, True)
    try:
        r = opcore.ones(2) + 1
    finally:
        opcore._C._dispatch_tls_set_dispatch_key_included(DispatchKey.AutocastCPU, False)
    assert r.tolist() == [2.0, 2.0]
    assert calls[0] is ops.aten.ones.default and ops.aten.add.Scalar in calls  # and what their kernels call
    with pytest.raises(RuntimeError, match=r"registered at test_library.py:\d+.*registered at test_library.py:\d+"):
        Library("_", "IMPL", "AutocastCPU").fallback(fallback)
    with pytest.raises(RuntimeError, match="fallback\\(\\) outside"):
        Library(ns, "DEF").fallback(fallback, "AutocastCPU")
    lib._destroy()
    assert (opcore.ones(1) + 1).tolist() == [2.0]


def test_fallthrough_kernel_makes_calls_skip_the_key(ns):
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x + 1, "CPU")
    lib.impl("f", lambda x: x + 1000, "AutogradCPU")
    a = opcore.ones(1, requires_grad=True)
    assert getattr(ops, ns).f(a).tolist() == [1001.0]
    lib2 = Library(ns, "FRAGMENT")
    lib2.impl("f", fallthrough_kernel, "AutogradCPU")
    assert getattr(ops, ns).f(a).tolist() == [2.0]
    assert opcore._C._dispatch_kernel_for_dispatch_key_is_fallthrough(f"{ns}::f", DispatchKey.AutogradCPU)
    lib2._destroy()
    assert getattr(ops, ns).f(a).tolist() == [1001.0]  # the earlier kernel is back


# --- py_impl at a dispatch key ------------------------------------------------------------------

def test_py_impl_wins_at_its_key_only_and_the_dispatch_cache_follows_registrations(ns):
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x + 1, "CPU")
    lib.impl("f", lambda x: x, "Meta")
    op = getattr(ops, ns).f.default
    assert op._get_dispatch(DispatchKey.CPU) == DispatchKey.CPU
    assert DispatchKey.CPU in op._dispatch_cache

    @op.py_impl(DispatchKey.CPU)
    def cpu(x):
        return x + 10

    assert op._dispatch_cache == {}
    assert op._get_dispatch(DispatchKey.CPU) is cpu
    assert op(opcore.zeros(1)).tolist() == [10.0]
    assert op(opcore.empty(1, device="meta")).device.type == "meta"  # Meta kept its C++-registered kernel
    assert op.has_kernel_for_dispatch_key(DispatchKey.CPU)
    with pytest.raises(RuntimeError, match=rf"Trying to override a python impl for CPU on operator {ns}::f"):
        op.py_impl(DispatchKey.CPU)(cpu)
    with pytest.raises(RuntimeError, match="register a mode"):
        op.py_impl(DispatchKey.Python)(cpu)
    # a registration from elsewhere changes the table: the cache notices
    other = Library(ns, "FRAGMENT")
    other.impl("f", lambda x: x + 100, "CPU")
    assert op._get_dispatch(DispatchKey.CPU) == DispatchKey.CPU
    assert op(opcore.zeros(1)).tolist() == [100.0]


# --- custom_op ---------------------------------------------------------------------------------

def test_infer_schema_from_type_hints():
    from typing import List, Optional, Tuple

    def f(x: opcore.Tensor, xs: List[opcore.Tensor], n: int, s: float = 2.0, flag: bool = True,
          name: str = "a", o: Optional[opcore.Tensor] = None, *, k: Optional[int] = None) -> Tuple[opcore.Tensor, opcore.Tensor]:
        pass
    assert infer_schema(f, mutates_args=()) == (
        "(Tensor x, Tensor[] xs, int n, float s=2.0, bool flag=True, str name='a', Tensor? o=None, *, int? k=None)"
        " -> (Tensor, Tensor)")

    def g(out: opcore.Tensor, x: list[int]) -> None:
        pass
    assert infer_schema(g, mutates_args=("out",)) == "(Tensor(a!) out, int[] x) -> ()"


def test_infer_schema_errors_name_the_parameter_and_the_type():
    def bad(x: dict) -> opcore.Tensor:
        pass
    with pytest.raises(ValueError, match="parameter 'x' has unsupported type"):
        infer_schema(bad, mutates_args=())

    def unannotated(x):
        pass
    with pytest.raises(ValueError, match="parameter 'x' has no type annotation"):
        infer_schema(unannotated, mutates_args=())

    def f(x: opcore.Tensor, n: int) -> opcore.Tensor:
        pass
    with pytest.raises(ValueError, match="mutates_args names \\['y'\\]"):
        infer_schema(f, mutates_args=("y",))
    with pytest.raises(ValueError, match="'n' is in mutates_args but is a int"):
        infer_schema(f, mutates_args=("n",))
    with pytest.raises(TypeError, match="not a str"):
        infer_schema(f, mutates_args="x")


def test_custom_op_defines_the_operator_with_the_function_as_kernel(ns):
    @custom_op(f"{ns}::myexp", mutates_args=())
    def myexp(x: opcore.Tensor, scale: float = 1.0) -> opcore.Tensor:
        return opcore.exp(x) * scale

    x = opcore.tensor([0.0, 1.0])
    assert myexp(x, 2.0).tolist() == (opcore.exp(x) * 2).tolist()
    op = getattr(ops, ns).myexp.default
    assert str(op._schema) == f"{ns}::myexp(Tensor x, float scale=1.0) -> Tensor"
    assert op(x).tolist() == opcore.exp(x).tolist()

    @myexp.register_fake
    def _(x, scale=1.0):
        return opcore.empty(x.shape, device="meta")
    assert op(opcore.empty(3, device="meta")).shape == (3,)


def test_custom_op_that_mutates_its_argument(ns):
    @custom_op(f"{ns}::fill_ones", mutates_args=("out",))
    def fill_ones(out: opcore.Tensor) -> None:
        out.fill_(1.0)
    t = opcore.zeros(2)
    assert fill_ones(t) is None and t.tolist() == [1.0, 1.0]
    assert getattr(ops, ns).fill_ones.default._schema.arguments[0].alias_info.is_write


def test_register_autograd_gives_the_custom_op_a_backward(ns):
    @custom_op(f"{ns}::square", mutates_args=())
    def square(x: opcore.Tensor) -> opcore.Tensor:
        return x * x

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 2 * x
    square.register_autograd(backward, setup_context=setup_context)
    a = opcore.tensor([1.0, 3.0], requires_grad=True)
    y = square(a)
    assert y.grad_fn is not None
    y.sum().backward()
    assert a.grad.tolist() == [2.0, 6.0]


def test_custom_op_name_errors():
    with pytest.raises(ValueError, match="namespace::name"):
        custom_op("nonamespace", mutates_args=())(lambda x: x)


def test_a_kernel_that_changes_or_removes_its_own_operator_mid_call_does_not_crash(ns):
    lib = Library(ns, "DEF")
    lib.define("f(Tensor(a!) x) -> Tensor(a!)")
    later = []

    def reregisters(x):
        extra = Library(ns, "FRAGMENT")
        extra.impl("f", lambda x: x, "CPU")  # a new snapshot while this call is in flight
        later.append(extra)
        return x
    lib.impl("f", reregisters, "CPU")
    op = getattr(ops, ns).f.default
    t = opcore.ones(1)
    assert op(t) is t
    assert op(t) is t  # now the newer kernel
    later.clear()

    lib2 = Library(ns, "FRAGMENT")
    lib2.define("g(Tensor x) -> Tensor")
    lib2.impl("g", lambda x: (lib2._destroy(), x)[1], "CPU")
    with pytest.raises(RuntimeError, match="has no schema: it is not defined .never, or no longer"):
        getattr(ops, ns).g(t)
    with pytest.raises(RuntimeError, match="has no definition any more"):
        getattr(ops, ns).g(t)


@pytest.mark.parametrize("spelling", ["custom_op_def", "name", "op_overload", "packet"])
def test_register_fake_and_register_autograd_take_what_torch_takes(ns, spelling):
    # torch.library.register_fake / register_autograd take the CustomOpDef, "ns::op" and the OpOverload.
    from opcore.library import register_autograd, register_fake

    @custom_op(f"{ns}::cube", mutates_args=())
    def cube(x: opcore.Tensor) -> opcore.Tensor:
        return x * x * x
    op = {"custom_op_def": cube, "name": f"{ns}::cube", "op_overload": getattr(ops, ns).cube.default,
          "packet": getattr(ops, ns).cube}[spelling]
    fake_calls = []

    @register_fake(op)
    def cube_fake(x):
        fake_calls.append(x.shape)
        return opcore.empty(x.shape, device="meta")
    assert cube(opcore.empty(2, 3, device="meta")).shape == (2, 3)
    assert fake_calls == [(2, 3)]

    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 3 * x * x
    register_autograd(op, backward, setup_context=lambda ctx, inputs, output: ctx.save_for_backward(inputs[0]))
    a = opcore.tensor([1.0, 2.0], requires_grad=True)
    cube(a).sum().backward()
    assert a.grad.tolist() == [3.0, 12.0]
    assert "registered at test_library.py" in opcore._C._dispatch_dump(f"{ns}::cube")


@pytest.mark.parametrize("spelling", ["name", "op_overload"])
def test_register_fake_and_register_autograd_of_an_operator_a_library_defined(ns, spelling):
    lib = Library(ns, "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CPU")
    op = f"{ns}::twice" if spelling == "name" else getattr(ops, ns).twice.default
    opcore.library.register_fake(op)(lambda x: opcore.empty(x.shape, device="meta"))
    assert getattr(ops, ns).twice(opcore.empty(4, device="meta")).shape == (4,)
    opcore.library.register_autograd(op, lambda ctx, grad: grad * 2)
    a = opcore.tensor([1.0, 5.0], requires_grad=True)
    getattr(ops, ns).twice(a).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]


def test_register_fake_errors_name_what_it_was_given(ns):
    from opcore.library import register_fake
    with pytest.raises(ValueError, match="expected an operator name 'namespace::name\\[.overload\\]', not 'nope'"):
        register_fake("nope")
    with pytest.raises(RuntimeError, match=f"operator '{ns}::missing' is not defined"):
        register_fake(f"{ns}::missing")
    with pytest.raises(TypeError, match="expected a CustomOpDef, an operator name 'ns::op' or an OpOverload, not 3"):
        register_fake(3)


def test_an_operator_with_no_kernel_for_the_key_is_a_not_implemented_error(ns):
    lib = Library(ns, "DEF")
    lib.define("cpu_only(Tensor x) -> Tensor")
    lib.impl("cpu_only", lambda x: x + 1, "CPU")
    with pytest.raises(NotImplementedError, match=f"could not run '{ns}::cpu_only' with arguments from the 'Meta' "
                                                  f"backend: no kernel is registered for dispatch key Meta"):
        getattr(ops, ns).cpu_only(opcore.empty(2, device="meta"))
