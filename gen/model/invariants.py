"""Checks on one operator's schema that the grammar alone does not enforce.

Note [Operator kinds]
- functional: no mutable argument; returns new tensors (or views, `Tensor(a)`).
- in-place (`add_`): first argument `Tensor(a!) self`, returns `Tensor(a!)`.
- out= (`add.out`): keyword-only `Tensor(a!) out` arguments, last, returned in order.
Any other mutable argument is an error, so every mutation is visible from the name.
"""
from __future__ import annotations

from gen.model.errors import Loc, SpecError, TextLoc
from gen.model.schema import Argument, FunctionSchema

_INPLACE_SELF = "Tensor(a!)"


def check_schema(func: FunctionSchema, loc: TextLoc) -> None:
    """Raises SpecError for the first broken invariant. `loc` is where the schema text starts;
    errors point at the argument or return concerned (loc.at(its offset in str(func)))."""
    _check_mutable_arguments(func, loc)
    if func.is_inplace:
        _check_inplace(func, loc)
    if func.is_out:
        _check_out(func, loc)
    elif func.name.overload == "out" or func.name.overload.endswith("_out"):
        at = loc.at(len(str(func.name)) - len(func.name.overload))
        raise SpecError(at, f"overload name '{func.name.overload}' is reserved for out= overloads, "
                            "which take a keyword-only 'Tensor(a!) out' argument")
    _check_returns(func, loc)


def _at_argument(func: FunctionSchema, loc: TextLoc, arg: Argument) -> Loc:
    return loc.at(func.argument_offset(func.arguments.index(arg)))


def _check_mutable_arguments(func: FunctionSchema, loc: TextLoc) -> None:
    for i, a in enumerate(func.arguments):
        if not a.type.is_mutable:
            continue
        inplace_self = func.is_inplace and i == 0 and not a.kwarg_only
        if not (inplace_self or a.kwarg_only):
            raise SpecError(_at_argument(func, loc, a),
                            f"argument '{a.name}' is mutable ({a.type}): only the first "
                            "argument of an in-place operator (name ending in '_') or a "
                            "keyword-only out= argument may be")


def _check_inplace(func: FunctionSchema, loc: TextLoc) -> None:
    name = str(func.name)
    first = func.arguments[0] if func.arguments else None
    if first is None or first.name != "self" or str(first.type) != _INPLACE_SELF or first.kwarg_only:
        at = _at_argument(func, loc, first) if first is not None else loc.at(len(name) + 1)
        raise SpecError(at, f"in-place operator '{name}' must take '{_INPLACE_SELF} self' "
                            "as its first argument")
    got = ", ".join(str(r.type) for r in func.returns) or "()"
    if len(func.returns) != 1 or str(func.returns[0].type) != _INPLACE_SELF:
        raise SpecError(loc.at(func.return_offset()),
                        f"in-place operator '{name}' must return '{_INPLACE_SELF}' (got '{got}')")
    if func.is_out:
        raise SpecError(_at_argument(func, loc, func.out_arguments[0]),
                        f"in-place operator '{name}' cannot have out= arguments")


def _check_out(func: FunctionSchema, loc: TextLoc) -> None:
    name = str(func.name)
    outs = func.out_arguments
    for a in outs:
        if a.type.base != "Tensor" or a.type.suffix:
            raise SpecError(_at_argument(func, loc, a),
                            f"out= argument '{a.name}' of '{name}' must be a Tensor(x!), not {a.type}")
    first_out = func.arguments.index(outs[0])
    for a in func.arguments[first_out:]:
        if a not in outs:
            raise SpecError(_at_argument(func, loc, a), f"out= arguments of '{name}' must come "
                                                        f"last, but '{a.name}' follows '{outs[0].name}'")
    aliases = [a.type.alias for a in outs]
    repeated = [a for i, a in enumerate(outs) if a.type.alias in aliases[:i]]
    if repeated:
        raise SpecError(_at_argument(func, loc, repeated[0]),
                        f"out= arguments of '{name}' must have distinct alias sets")
    expected = ", ".join(str(a.type) for a in outs)
    got = ", ".join(str(r.type) for r in func.returns)
    if expected != got:
        raise SpecError(loc.at(func.return_offset()), f"out= overload '{name}' must return its out= "
                                                      f"arguments '{expected}' (got '{got or '()'}')")
    if not func.name.overload:
        raise SpecError(loc.at(0), f"out= overload '{name}' needs an overload name, e.g. '{name}.out'")


def _alias_sets(alias: str) -> set[str]:
    """The alias sets an annotation names: {"a"} for `a`, `a!` and `a -> *`; {"a", "b"} for `a|b`."""
    return set(alias.removesuffix(" -> *").removesuffix("!").split("|"))


def _check_returns(func: FunctionSchema, loc: TextLoc) -> None:
    arg_aliases: set[str] = set()
    for a in func.arguments:
        if a.type.alias is not None:
            arg_aliases |= _alias_sets(a.type.alias)
    names: set[str] = set()
    for i, r in enumerate(func.returns):
        if r.type.alias is not None and not _alias_sets(r.type.alias) <= arg_aliases:
            raise SpecError(loc.at(func.return_offset(i)),
                            f"return type '{r.type}' of '{func.name}' aliases no argument")
        if r.name and r.name in names:
            raise SpecError(loc.at(func.return_offset(i)),
                            f"duplicate return name '{r.name}' in '{func.name}'")
        names.add(r.name)
