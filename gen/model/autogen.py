"""`autogen:`: the overloads an entry generates, derived from its schema (torchgen's rules).

Note [Generated overloads]
An entry lists in `autogen:` the overloads that should exist without being written: the
functional form of an in-place or mutating operator, and the out= form of any operator. The
generator derives each one's schema from the entry's, adds it to the model as an ordinary
NativeFunction (function variant, one CompositeExplicitAutograd kernel, `autogen_source` set to
the entry's name), and writes that kernel itself (gen/emit/autogen.py):

  entry (kind)                                  functional overload         out= overload
  add.Scalar(Tensor self, Scalar other, ...)    (it is one)                 add.Scalar_out
  fill_.Scalar(Tensor(a!) self, Scalar value)   fill.Scalar                 fill.Scalar_out
  foo(Tensor x, Tensor(a!) stats) -> Tensor     foo_functional              foo.out

- Functional form: every mutable argument becomes immutable; its new value is returned, after
  the entry's own returns, as `<name>_out` (unless the entry already returns it). Its kernel
  copies the mutable arguments and runs the entry on the copies.
- out= form: each tensor return becomes a keyword-only out= argument (`out`, or `out0`, `out1`
  ... for several), aliased by a fresh letter; an in-place entry's `self` becomes `out`. Its
  kernel computes the functional result (calling the functional overload when there is one,
  declared or generated), then resizes each out= argument like PyTorch's out= overloads do and
  copies the result into it with `copy_` (the YAML must declare `copy_`).
"""
from __future__ import annotations

import string
from dataclasses import replace
from typing import Optional

from gen.model.dispatch import BackendKernel, DispatchKey
from gen.model.errors import Loc, SpecError, TextLoc
from gen.model.native_function import NativeFunction, Variant
from gen.model.operators import OperatorIndex
from gen.model.schema import Argument, FunctionSchema, OperatorName, Return, SchemaType

# What the generated kernels copy values with; they call it as `copy_(self, src, non_blocking)`.
COPY_SCHEMA = "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)"

# Tags that describe how an operator is written rather than what it computes.
_NOT_INHERITED_TAGS = frozenset({"inplace_view", "view_copy"})


def is_functional(func: FunctionSchema) -> bool:
    return not any(a.type.is_mutable for a in func.arguments)


def mutable_arguments(func: FunctionSchema) -> tuple[Argument, ...]:
    return tuple(a for a in func.arguments if a.type.is_mutable)


def functional_name(func: FunctionSchema) -> Optional[OperatorName]:
    """`fill.Scalar` for fill_.Scalar, `foo_functional` for a mutating foo; None for an operator
    that is functional already or an out= overload (nothing to derive)."""
    if is_functional(func) or func.is_out:
        return None
    base = func.name.functional_base if func.is_inplace else f"{func.name.base}_functional"
    return OperatorName(base, func.name.overload)


def out_name(func: FunctionSchema) -> Optional[OperatorName]:
    """`add.Scalar_out` for add.Scalar and add_.Scalar, `neg.out` for neg; None for an out=
    overload."""
    if func.is_out:
        return None
    overload = f"{func.name.overload}_out" if func.name.overload else "out"
    return OperatorName(func.name.functional_base, overload)


def _plain(t: SchemaType) -> SchemaType:
    return SchemaType(t.base, None, t.suffix)


def _is_tensor_like(t: SchemaType) -> bool:
    return t.base == "Tensor"


def functional_schema(func: FunctionSchema) -> FunctionSchema:
    """The functional form of an in-place or mutating operator (Note [Generated overloads])."""
    name = functional_name(func)
    assert name is not None, f"{func} has no functional form: generator bug"
    returned = {r.type.alias for r in func.returns if r.type.alias is not None}
    arguments = tuple(replace(a, type=_plain(a.type)) if a.type.is_mutable else a for a in func.arguments)
    returns = tuple(Return(_plain(r.type), r.name) for r in func.returns)
    returns += tuple(Return(_plain(a.type), f"{a.name}_out") for a in mutable_arguments(func)
                     if a.type.alias not in returned)
    return FunctionSchema(name, arguments, returns, parenthesized_returns=len(returns) != 1)


def out_schema(func: FunctionSchema) -> FunctionSchema:
    """The out= form (Note [Generated overloads]); raises ValueError saying why there is none."""
    name = out_name(func)
    assert name is not None, f"{func} is an out= overload already: generator bug"
    if func.is_inplace:
        self_arg = func.arguments[0]
        arguments = (replace(self_arg, type=_plain(self_arg.type)),) + func.arguments[1:]
        out = Argument(self_arg.type, "out", kwarg_only=True)
        return FunctionSchema(name, arguments + (out,), func.returns, func.parenthesized_returns)
    if any(r.type.alias is not None for r in func.returns):
        raise ValueError("it returns a view of or a reference to an argument")
    tensors = [i for i, r in enumerate(func.returns) if _is_tensor_like(r.type)]
    if not tensors:
        raise ValueError("it returns no tensor")
    used = {letter for a in func.arguments if a.type.alias for letter in a.type.alias if letter.isalpha()}
    letters = iter(c for c in string.ascii_lowercase if c not in used)
    all_plain_tensors = all(r.type.base == "Tensor" and not r.type.suffix for r in func.returns)
    outs, returns = [], []
    for i, r in enumerate(func.returns):
        if i not in tensors:
            returns.append(r)
            continue
        alias = f"{next(letters)}!"
        outs.append(Argument(SchemaType(r.type.base, alias, r.type.suffix),
                             "out" if len(func.returns) == 1 else f"out{i}", kwarg_only=True))
        if all_plain_tensors:
            returns.append(Return(SchemaType("Tensor", alias)))
    return FunctionSchema(name, func.arguments + tuple(outs), tuple(returns),
                          parenthesized_returns=len(returns) != 1)


def expand_autogen(operators: OperatorIndex, aten: Optional[OperatorIndex] = None
                   ) -> tuple[tuple[NativeFunction, ...], list[SpecError]]:
    """The functions of `operators` with the overloads their `autogen:` lists inserted after
    each entry, and an error for each listed name that cannot be generated. Names already
    declared were reported by cross_entry_checks.py; they are skipped here. The generated
    kernels copy with aten's `copy_`: declared in `operators` or, for an extension's, in `aten`
    (opcore's operators)."""
    copy_ = (aten if aten is not None and aten.functions else operators).get("copy_")
    source = _sources(operators.functions)
    result: list[NativeFunction] = []
    errors: list[SpecError] = []
    for f in operators.functions:
        result.append(f)
        for i, name in enumerate(f.autogen):
            if str(name) in operators or source[str(name)] is not f:
                continue
            at = f.item_loc("autogen", i)
            try:
                func = _derive(f, name)
                if func.is_out:
                    _check_functional(f, operators)
                if copy_ is None or str(copy_.func) != COPY_SCHEMA:
                    why = "is not declared" if copy_ is None else f"is declared as '{copy_.func}'"
                    raise ValueError(f"its kernel copies with '{COPY_SCHEMA}', which {why}")
            except ValueError as e:
                errors.append(SpecError(at, f"cannot generate '{name}' from '{f.name}': {e}"))
                continue
            result.append(_generated(f, func, at))
    return tuple(result), errors


def _sources(functions: tuple[NativeFunction, ...]) -> dict[str, NativeFunction]:
    """The entry each autogen name is generated from. Under torchgen's rules an operator's
    functional and in-place overloads may both list it (ParseOptions.shared_autogen); it is then
    generated once, from the one that is not in-place, as torchgen does."""
    source: dict[str, NativeFunction] = {}
    for f in functions:
        for name in map(str, f.autogen):
            if name not in source or (source[name].func.is_inplace and not f.func.is_inplace):
                source[name] = f
    return source


def derived_schema(f: NativeFunction, name: OperatorName) -> Optional[FunctionSchema]:
    """The schema `f` would generate for `name`, or None when it cannot generate it."""
    try:
        return _derive(f, name)
    except ValueError:
        return None


def _derive(f: NativeFunction, name: OperatorName) -> FunctionSchema:
    candidates = [n for n in (functional_name(f.func), out_name(f.func)) if n is not None]
    if name not in candidates:
        can = " or ".join(f"'{n}'" for n in candidates) or "nothing (it is an out= overload)"
        raise ValueError(f"'{f.name}' can generate {can}")
    func = functional_schema(f.func) if name == functional_name(f.func) else out_schema(f.func)
    copied = [a.type for a in func.arguments if a.type.is_mutable] + [r.type for r in f.func.returns]
    odd = next((t for t in copied if t.base == "Tensor" and t.suffix not in ("", "[]")), None)
    if odd is not None:
        raise ValueError(f"its kernel would copy a '{odd.without_alias()}', and only tensors and tensor lists are copied")
    return func


def _check_functional(source: NativeFunction, operators: OperatorIndex) -> None:
    """The kernel of a generated out= overload calls the source's declared functional overload
    (add.Scalar for add_.Scalar) as if it were the generated functional form."""
    name = functional_name(source.func)
    declared = operators.get(str(name)) if name is not None else None
    if declared is None:
        return
    expected = functional_schema(source.func)
    def shape(func: FunctionSchema) -> tuple:
        return (tuple((a.name, a.type.without_alias()) for a in func.arguments),
                tuple(r.type.without_alias() for r in func.returns))
    if shape(declared.func) != shape(expected):
        raise ValueError(f"its kernel calls the functional overload '{name}' (line {declared.func_loc.line}), "
                         f"which must take and return what '{expected}' does")


def _generated(source: NativeFunction, func: FunctionSchema, at: Loc) -> NativeFunction:
    kernel = f"{func.name.base}_{func.name.overload}" if func.name.overload else func.name.base
    kind = "out= overload" if func.is_out else "functional form"
    return NativeFunction(
        func=func,
        variants=frozenset({Variant.function}),
        dispatch=(BackendKernel(DispatchKey.CompositeExplicitAutograd, kernel, at, at),),
        tags=tuple(t for t in source.tags if t not in _NOT_INHERITED_TAGS),
        doc=f"The {kind} of `{source.name}`, generated (`autogen`).",
        loc=at,
        func_loc=TextLoc(at.path, at.line, at.col),
        python_module=source.python_module,
        namespace=source.namespace,
        autogen_source=source.name,
    )
