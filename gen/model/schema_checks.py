"""Checks on one operator's schema that the grammar alone does not enforce (NativeFunction runs
them when it is made), and parse_schema: a schema read from YAML, its errors located there.

Note [Operator kinds]
- functional: no mutable argument; returns new tensors (or views, `Tensor(a)`).
- in-place (`add_`, `__iadd__`): first argument `Tensor(a!) self`, returned as `Tensor(a!)`;
  or `Tensor(a!)[] self` (a list updated in place, `_foreach_add_`), returning `()`.
- out= (`add.out`): keyword-only `Tensor(a!) out` arguments, last, returned in order; or
  `Tensor(a!)[] out` arguments and no return.
- mutable (torchgen's term): other mutable arguments, positional and never returned
  (`_native_batch_norm_legit` updates its running statistics).
Only tensors are mutable, and a mutable argument is returned only as an in-place `self` or an
out= argument, so the C++ API can tell which argument a returned reference is. These are
torchgen's rules; PyTorch's own native_functions.yaml follows them.
"""
from __future__ import annotations

from gen.model.errors import Loc, SpecError, TextLoc
from gen.model.schema import SCALAR_ONLY_TYPES, Argument, FunctionSchema, SchemaParseError, alias_set

_INPLACE_SELF = "Tensor(a!)"


def check_schema(func: FunctionSchema, loc: TextLoc) -> None:
    """Raises SpecError for the first broken invariant. `loc` is where the schema text starts;
    errors point at the argument or return concerned (loc.at(its offset in str(func)))."""
    _check_scalar_only_types(func, loc)
    _check_fixed_size_defaults(func, loc)
    _check_mutable_arguments(func, loc)
    if func.is_inplace:
        _check_inplace(func, loc)
    if func.is_out:
        _check_out(func, loc)
    _check_returns(func, loc)


def check_out_overload_name(func: FunctionSchema, loc: TextLoc) -> None:
    """opcore's rule (torchgen has none): the overload names `out` and `*_out` are for out=
    overloads, so that the name says how the operator is called."""
    if not func.is_out and (func.name.overload == "out" or func.name.overload.endswith("_out")):
        at = loc.at(len(str(func.name)) - len(func.name.overload))
        raise SpecError(at, f"overload name '{func.name.overload}' is reserved for out= overloads, "
                            "which take a keyword-only 'Tensor(a!) out' argument")


def _check_scalar_only_types(func: FunctionSchema, loc: TextLoc) -> None:
    for i, a in enumerate(func.arguments):
        if a.type.base in SCALAR_ONLY_TYPES and a.type.is_list:
            raise SpecError(loc.at(func.argument_offset(i)),
                            f"argument '{a.name}' is a list of {a.type.base} ({a.type}): {a.type.base} has no "
                            "list form (use int[] or bool[])")
    for i, r in enumerate(func.returns):
        if r.type.base in SCALAR_ONLY_TYPES and r.type.is_list:
            raise SpecError(loc.at(func.return_offset(i)),
                            f"return {i} is a list of {r.type.base} ({r.type}): {r.type.base} has no list form")


def _check_fixed_size_defaults(func: FunctionSchema, loc: TextLoc) -> None:
    """bool[N] is a std::array<bool, N> in C++: a default list of another length would be
    padded with false (or not compile). int[N] takes any length, as in PyTorch."""
    for i, a in enumerate(func.arguments):
        size = a.type.list_size
        if a.type.base != "bool" or size is None or a.default is None or not a.default.startswith("["):
            continue
        values = [v for v in a.default[1:-1].split(",") if v.strip()]
        if len(values) != size:
            raise SpecError(loc.at(func.argument_offset(i)), f"the default {a.default} of '{a.name}' has "
                                                             f"{len(values)} value(s), but {a.type} takes {size}")


def _at_argument(func: FunctionSchema, loc: TextLoc, arg: Argument) -> Loc:
    return loc.at(func.argument_offset(func.arguments.index(arg)))


def _check_mutable_arguments(func: FunctionSchema, loc: TextLoc) -> None:
    returned = frozenset().union(*(alias_set(r.type) for r in func.returns))
    for i, a in enumerate(func.arguments):
        if not a.type.is_mutable:
            continue
        if a.type.base != "Tensor":
            raise SpecError(_at_argument(func, loc, a),
                            f"argument '{a.name}' is mutable ({a.type}): only Tensor arguments may be")
        inplace_self = func.is_inplace and i == 0
        if inplace_self or a.kwarg_only or not alias_set(a.type) & returned:
            continue
        if i == 0 and a.name == "self":
            raise SpecError(_at_argument(func, loc, a),
                            f"'{func.name}' returns its mutable 'self' ({a.type}), so it is in-place and its "
                            f"name must end in '_' ('{func.name.base}_')")
        raise SpecError(_at_argument(func, loc, a),
                        f"argument '{a.name}' is mutable ({a.type}) and returned, so it must be a "
                        "keyword-only out= argument (after '*')")


def _check_inplace(func: FunctionSchema, loc: TextLoc) -> None:
    name = str(func.name)
    first = func.arguments[0] if func.arguments else None
    if (first is None or first.name != "self" or first.type.base != "Tensor" or not first.type.is_mutable
            or first.type.suffix not in ("", "[]") or first.kwarg_only):
        at = _at_argument(func, loc, first) if first is not None else loc.at(len(name) + 1)
        raise SpecError(at, f"in-place operator '{name}' must take '{_INPLACE_SELF} self' "
                            "as its first argument")
    got = ", ".join(str(r.type) for r in func.returns) or "()"
    if first.type.suffix and func.returns:
        raise SpecError(loc.at(func.return_offset()), f"in-place operator '{name}' updates the tensor list "
                                                      f"'self' ({first.type}), so it returns '()' (got '{got}')")
    if not first.type.suffix and (len(func.returns) != 1 or func.returns[0].type != first.type):
        raise SpecError(loc.at(func.return_offset()),
                        f"in-place operator '{name}' must return '{first.type}' (got '{got}')")
    if func.is_out:
        raise SpecError(_at_argument(func, loc, func.out_arguments[0]),
                        f"in-place operator '{name}' cannot have out= arguments")


def _check_out(func: FunctionSchema, loc: TextLoc) -> None:
    name = str(func.name)
    outs = func.out_arguments
    for a in outs:
        if a.type.base != "Tensor" or a.type.suffix not in ("", "[]"):
            raise SpecError(_at_argument(func, loc, a), f"out= argument '{a.name}' of '{name}' must be a "
                                                        f"Tensor(x!) or a Tensor(x!)[], not {a.type}")
    first_out = func.arguments.index(outs[0])
    for a in func.arguments[first_out:]:
        if a not in outs:
            raise SpecError(_at_argument(func, loc, a), f"out= arguments of '{name}' must come "
                                                        f"last, but '{a.name}' follows '{outs[0].name}'")
    aliases = [alias_set(a.type) for a in outs]
    repeated = [a for i, a in enumerate(outs) if any(aliases[i] & earlier for earlier in aliases[:i])]
    if repeated:
        raise SpecError(_at_argument(func, loc, repeated[0]),
                        f"out= arguments of '{name}' must have distinct alias sets")
    got = ", ".join(str(r.type) for r in func.returns)
    lists = [a for a in outs if a.type.suffix]
    if lists and func.returns:
        raise SpecError(loc.at(func.return_offset()), f"out= overload '{name}' fills the tensor list "
                                                      f"'{lists[0].name}', so it returns '()' (got '{got}')")
    expected = ", ".join(str(a.type) for a in outs)
    if not lists and expected != got:
        raise SpecError(loc.at(func.return_offset()), f"out= overload '{name}' must return its out= "
                                                      f"arguments '{expected}' (got '{got or '()'}')")
    if not func.name.overload:
        raise SpecError(loc.at(0), f"out= overload '{name}' needs an overload name, e.g. '{name}.out'")


def _check_returns(func: FunctionSchema, loc: TextLoc) -> None:
    arg_aliases = frozenset().union(*(alias_set(a.type) for a in func.arguments))
    writable = frozenset().union(*(alias_set(a.type) for a in func.out_arguments))
    if func.is_inplace:
        writable |= alias_set(func.arguments[0].type)
    names: set[str] = set()
    for i, r in enumerate(func.returns):
        if r.type.alias is not None and not alias_set(r.type) & arg_aliases:
            raise SpecError(loc.at(func.return_offset(i)),
                            f"return type '{r.type}' of '{func.name}' aliases no argument")
        if r.type.is_mutable and not alias_set(r.type) & writable:
            raise SpecError(loc.at(func.return_offset(i)),
                            f"return type '{r.type}' of '{func.name}' is mutable, but only an in-place "
                            "'self' or an out= argument may be returned mutable")
        if r.name and r.name in names:
            raise SpecError(loc.at(func.return_offset(i)),
                            f"duplicate return name '{r.name}' in '{func.name}'")
        names.add(r.name)


def parse_schema(text: str, loc: TextLoc) -> FunctionSchema:
    """FunctionSchema.parse(text), where `loc` is where `text` starts in the YAML file; a
    malformed schema raises SpecError pointing at the offending character."""
    try:
        return FunctionSchema.parse(text)
    except SchemaParseError as e:
        # The caret shows the column; when it cannot (a multi-line value), the message does.
        raise SpecError(loc.at(e.column - 1), f"invalid schema: {e.msg}" if loc.exact else str(e)) from None
