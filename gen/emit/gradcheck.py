"""tests/Gradcheck.cpp: one GoogleTest per derivatives.yaml entry and sample, compiled into
opcore_tests (Note [Gradcheck tests] in gen/api/gradcheck.py)."""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import dispatcher, gradcheck
from gen.api.gradcheck import CheckKind
from gen.emit.common import FileSpec, callable_operators, cpp_namespace, cpp_string_literal, ops_header
from gen.model.derivatives import Derivative
from gen.model.formulas import names_in
from gen.model.native_function import NativeFunction
from gen.model.operators import group_name
from gen.model.samples import CppValue, Literal, Sample, TensorListValue
from gen.model.schema import Argument
from gen.model.spec import Spec

# Names of the test body (Gradcheck.cpp.j2) that a local made for an argument must not take.
_TEST_LOCALS = frozenset({"g", "inputs", "fn", "x", "result", "outputs", "self_copy"})


@dataclass(frozen=True)
class InplaceView:
    """The in-place overload sharing the entry, checked on a copy of the first input."""

    name: str   # "inplace_add__Tensor": the local holding its fn
    call: str   # "opcore::_ops::add__Tensor::call(self_copy, x[1], 1)"


@dataclass(frozen=True)
class GradcheckTestView:
    """One TEST of Gradcheck.cpp.j2."""

    comment: str                  # "derivatives.yaml:19: add.Tensor, sample 0"
    name: str                     # "AddTensorSample0"
    has_failure: bool
    failure: str                  # a C++ string literal: why the entry has no test
    seed: str
    setup: tuple[str, ...]        # tensors built once: "const Tensor condition = inputFromValues<bool>(...);"
    inputs: str                   # "{uniformInput({2, 3}, -1.0, 1.0, g), uniformInput({3}, -1.0, 1.0, g)}"
    body: tuple[str, ...]         # fn's statements
    gradients: bool               # CheckKind.GRADIENTS
    gradgrad: bool                # gradients, and the entry supports gradgrad (else: a double backward must refuse)
    inplace: tuple[InplaceView, ...]
    no_gradients: bool            # CheckKind.NO_GRADIENTS
    not_implemented: bool         # CheckKind.NOT_IMPLEMENTED


def _local(name: str) -> str:
    return f"{name}_value" if name in _TEST_LOCALS else name


class _Arguments:
    """The C++ arguments of one sample's call: inputs as x[i], other tensors as locals built
    in the setup, other values written out."""

    def __init__(self, d: Derivative, sample: Sample) -> None:
        self.setup: list[str] = []
        self.inputs: list[str] = []
        self.exprs: dict[str, str] = {}
        inputs = {a.name for a in gradcheck.input_arguments(d)}
        for a in d.func.arguments:
            value = sample.get(a.name)
            if value is None:
                self.exprs[a.name] = gradcheck.default_expression(a)
            elif isinstance(value, CppValue) and a.name not in inputs and not a.type.is_mutable:
                self.exprs[a.name] = value.expr  # evaluated inside fn
            elif isinstance(value, Literal):
                self.exprs[a.name] = gradcheck.literal(a, value)
            elif a.name in inputs:
                self.exprs[a.name] = self._input(value)
            else:
                self.exprs[a.name] = self._local_tensor(a, value)

    def _input(self, value: object) -> str:
        if not isinstance(value, TensorListValue):
            self.inputs.append(gradcheck.tensor_expression(value))
            return f"x[{len(self.inputs) - 1}]"
        first = len(self.inputs)
        self.inputs += [gradcheck.tensor_expression(item) for item in gradcheck.tensor_list_items(value)]
        return "TensorList(variable_list{" + ", ".join(f"x[{i}]" for i in range(first, len(self.inputs))) + "})"

    def _local_tensor(self, a: Argument, value: object) -> str:
        name = _local(a.name)
        if not isinstance(value, TensorListValue):
            # a mutable argument (Tensor(a!) running_mean) binds to Tensor&: built once, not const
            const = "" if a.type.is_mutable else "const "
            self.setup.append(f"{const}Tensor {name} = {gradcheck.tensor_expression(value)};")
            return name
        optional = "?[" in a.type.suffix
        items = ", ".join("std::nullopt" if item is None else gradcheck.tensor_expression(item)
                          for item in gradcheck.tensor_list_items(value))
        element = "std::optional<Tensor>" if optional else "Tensor"
        self.setup.append(f"const std::vector<{element}> {name} = {{{items}}};")
        return name

    def call(self, f: NativeFunction, replace: dict[str, str]) -> str:
        args = ", ".join(replace.get(a.name, self.exprs[a.name]) for a in f.func.arguments)
        return f"{cpp_namespace(f.namespace)}::_ops::{dispatcher.struct_name(f.func)}::call({args})"


def _fn_body(d: Derivative, f: NativeFunction, args: _Arguments, kind: CheckKind) -> tuple[str, ...]:
    """fn's statements: call `f`, return the outputs checked (the differentiable ones, or every
    tensor output for NO_GRADIENTS). An in-place `f` runs on a copy of `self`."""
    if f.func.is_inplace:
        return (f"Tensor self_copy = {args.exprs['self']}.clone();", f"{args.call(f, {'self': 'self_copy'})};",
                "return {self_copy};")
    call = args.call(f, {})
    indices = [i for i, r in enumerate(f.func.returns) if r.type.is_tensor and r.type.shape == ""]
    if kind != CheckKind.NO_GRADIENTS:
        indices = [i for i in d.differentiable_outputs if i in indices]
    if len(f.func.returns) == 1:
        return (f"return {{{call}}};",) if indices else (f"{call};", "return {};")
    outs = ", ".join(f"std::get<{i}>(result)" for i in indices)
    return (f"const auto result = {call};", f"return {{{outs}}};")


def _inplace_views(d: Derivative, overloads: tuple[NativeFunction, ...], args: _Arguments) -> tuple[InplaceView, ...]:
    """The in-place overloads sharing `d`, when its first input is their `self`."""
    if args.exprs.get("self") != "x[0]":
        return ()
    return tuple(InplaceView(f"inplace_{dispatcher.struct_name(f.func)}", args.call(f, {"self": "self_copy"}))
                 for f in overloads)


def test_views(d: Derivative, overloads: tuple[NativeFunction, ...], f: NativeFunction) -> list[GradcheckTestView]:
    """The tests of entry `d` (of operator `f`); `overloads`: the in-place overloads using it."""
    name, kind = gradcheck.test_name(d), gradcheck.check_kind(d)
    samples = list(enumerate(d.samples))
    derived = gradcheck.derived_sample(d) if not samples else None
    if derived is not None:
        samples = [(0, derived)]
    if not samples:
        message = (f"derivatives.yaml:{d.loc.line}: '{d.name}' has no samples: and they cannot be derived "
                   "from its schema; add samples:")
        return [GradcheckTestView(f"derivatives.yaml:{d.loc.line}: {d.name}", f"{name}HasSamples", True,
                                  cpp_string_literal(message), "0", (), "{}", (), False, False, (), False, False)]
    views = []
    for i, sample in samples:
        args = _Arguments(d, sample)
        where = "a sample derived from its schema" if derived is not None else f"sample {i}"
        test = f"{name}Sample{i}"
        views.append(GradcheckTestView(
            comment=f"derivatives.yaml:{sample.loc.line}: {d.name}, {where}", name=test, has_failure=False,
            failure="", seed=str(gradcheck.seed(test)), setup=tuple(args.setup),
            inputs="{" + ", ".join(args.inputs) + "}", body=_fn_body(d, f, args, kind),
            gradients=kind == CheckKind.GRADIENTS, gradgrad=kind == CheckKind.GRADIENTS and d.supports_gradgrad,
            inplace=_inplace_views(d, overloads, args) if kind == CheckKind.GRADIENTS else (),
            no_gradients=kind == CheckKind.NO_GRADIENTS, not_implemented=kind == CheckKind.NOT_IMPLEMENTED))
    return views


def _includes(spec: Spec, operators: dict[str, str]) -> list[str]:
    """The per-operator headers the tests use: the operators checked, empty() (the inputs) and
    every operator a {cpp: ...} sample names, so that a new operator does not recompile them."""
    headers = {ops_header(f.namespace, group_name(f)) for f in spec.functions
               if spec.derivative_for(f) is not None and not f.func.is_out}
    headers |= {operators["empty"]} if "empty" in operators else set()
    for d in spec.derivatives:
        for sample in d.samples:
            exprs = [v.expr for _, v in sample.values if isinstance(v, CppValue)]
            exprs += [item.expr for _, v in sample.values if isinstance(v, TensorListValue)
                      for item in v.items if isinstance(item, CppValue)]
            headers |= {operators[n.text] for expr in exprs for n in names_in(expr) if n.text in operators}
    return sorted(headers)


def emit(spec: Spec) -> list[FileSpec]:
    tests = []
    for d in spec.derivatives:
        overloads = tuple(f for f in spec.functions
                          if f.func.is_inplace and f.name != d.name and spec.derivative_for(f) is d)
        tests += test_views(d, overloads, spec.by_name[d.name])
    includes = _includes(spec, callable_operators(spec))
    return [FileSpec("tests/Gradcheck.cpp", "Gradcheck.cpp.j2", {"tests": tests, "includes": includes})]
