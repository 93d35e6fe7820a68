"""The rules of derivatives.yaml that need native_functions.yaml: each entry names a declared
overload with its exact schema, once; every differentiable input has a formula; formulas use
only names the generated code defines (Note [Names in formulas] in formulas.py).

    errors = check_derivatives(derivatives, functions)   # list of SpecError
"""
from __future__ import annotations

from gen.model.derivatives import NON_DIFFERENTIABLE, Derivative, Formula, ForwardKind, is_differentiable_type
from gen.model.dispatch import DispatchKey
from gen.model.errors import SpecError, did_you_mean
from gen.model.formulas import COMMON_NAMES, FORMULA_HELPERS, GRADIENT_NAMES, grads_indices, result_index, unqualified_names
from gen.model.native_function import NativeFunction, Variant

def check_derivatives(derivatives: tuple[Derivative, ...],
                      functions: tuple[NativeFunction, ...]) -> list[SpecError]:
    """Each entry names a declared overload, with its exact schema, at most once; then the
    rules of each entry against its operator."""
    declared = {f.name: f for f in functions}
    operators = operator_names(functions)
    seen: dict[str, Derivative] = {}
    errors = []
    for d in derivatives:
        f = declared.get(d.name)
        if f is None:
            hint = did_you_mean(d.name, tuple(declared)) or " (declare it in native_functions.yaml)"
            errors.append(SpecError(d.loc.at(0), f"derivatives for unknown operator '{d.name}'{hint}"))
        elif d.func != f.func:
            errors.append(SpecError(d.loc.at(0), f"schema of '{d.name}' differs from its declaration "
                                                 f"(line {f.func_loc.line}): '{f.func}'"))
        elif d.name in seen:
            errors.append(SpecError(d.loc.at(0), f"duplicate derivatives for '{d.name}' "
                                                 f"(first at line {seen[d.name].loc.line})"))
        else:
            errors += _check_entry(d, f, operators)
        seen.setdefault(d.name, d)
    return errors


def operator_names(functions: tuple[NativeFunction, ...]) -> frozenset[str]:
    """The functions of the C++ API (`opcore::add`, `opcore::add_out`/`add_outf`; see Note
    [out= functions] in gen/api/cpp.py), which formulas may call."""
    names = set()
    for f in functions:
        if f.func.is_out:
            names |= {f"{f.func.name.base}_out", f"{f.func.name.base}_outf"}
        elif Variant.function in f.variants:
            names.add(f.func.name.base)
    return frozenset(names)


def _check_entry(d: Derivative, f: NativeFunction, operators: frozenset[str]) -> list[SpecError]:
    if d.func.is_out:
        return [SpecError(d.loc.at(0), f"'{d.name}' is an out= overload: out= overloads are not differentiable, "
                                       "and use the entry of their functional overload")]
    if any(k.key == DispatchKey.CompositeImplicitAutograd for k in f.dispatch):
        return [SpecError(d.loc.at(0), f"'{d.name}' has a CompositeImplicitAutograd kernel, which autograd "
                                       "differentiates through, so these formulas would never be used: give it "
                                       "another kernel (CompositeExplicitAutograd or backend) or remove the entry")]
    errors = _check_coverage(d)
    if d.func.is_inplace and d.differentiable_outputs and "self" not in {a.name for a in d.differentiable_arguments}:
        errors.append(SpecError(d.loc.at(d.func.argument_name_offset(0)),
                                f"'self' of the in-place overload '{d.name}' needs a formula: the call overwrites it "
                                "(its gradient is often zeros_like(grad))"))
    for formula in d.backward_formulas:
        errors += _check_backward_formula(d, formula, operators)
    if d.forward is not None and d.forward.kind == ForwardKind.formula:
        errors += _check_forward_formula(d, operators)
    return errors


def _check_coverage(d: Derivative) -> list[SpecError]:
    """Every differentiable input needs a formula or `non_differentiable`, unless no output is
    differentiable."""
    if not d.differentiable_outputs:
        return []
    errors = []
    for i, a in enumerate(d.func.arguments):
        if is_differentiable_type(a) and d.formula_for(a.name) is None:
            errors.append(SpecError(d.loc.at(d.func.argument_name_offset(i)),
                                    f"argument '{a.name}' of '{d.name}' needs a formula, or "
                                    f"'{a.name}: {NON_DIFFERENTIABLE}'"))
    return errors


def _check_backward_formula(d: Derivative, formula: Formula, operators: frozenset[str]) -> list[SpecError]:
    key = ", ".join(formula.names)
    allowed = ({a.name for a in d.func.arguments} | set(GRADIENT_NAMES) | set(d.result_names) | operators
               | COMMON_NAMES)
    errors = []
    for n in unqualified_names(formula.expr):
        at = formula.loc.at(n.offset)
        if n.text in ("grad", "grads") and not d.differentiable_outputs:
            errors.append(SpecError(at, f"the formula for '{key}' uses '{n.text}', but no output of '{d.name}' "
                                        "is differentiable"))
        elif n.text not in allowed:
            errors.append(SpecError(at, _unknown_name_message(d, n.text, f"the formula for '{key}'",
                                                              sorted(allowed - COMMON_NAMES) + list(FORMULA_HELPERS))))
    for index, offset in grads_indices(formula.expr):
        if d.differentiable_outputs and index >= len(d.differentiable_outputs):
            errors.append(SpecError(formula.loc.at(offset),
                                    f"'grads[{index}]': '{d.name}' has {len(d.differentiable_outputs)} "
                                    "differentiable output(s)"))
    return errors[:1]


def _unknown_name_message(d: Derivative, name: str, where: str, choices: list[str]) -> str:
    n = len(d.func.returns)
    if name == "result" and n != 1:
        names = [f"result{i}" for i in range(n)] + [r.name for r in d.func.returns if r.name]
        use = f": use {', '.join(repr(x) for x in names)}" if n else ""
        return f"'result' in {where} is ambiguous: '{d.name}' returns {n} outputs{use}"
    if result_index(name) is not None:
        return f"'{name}' in {where} names no output of '{d.name}' (it returns {n}; results: " \
               f"{', '.join(d.result_names) or 'none'})"
    hint = did_you_mean(name, choices) or (" (a formula may use the arguments, grad, grads, grad_input_mask, "
                                           "the results, operators and the helpers of Formulas.h)")
    return f"unknown name '{name}' in {where}{hint}"


def _check_forward_formula(d: Derivative, operators: frozenset[str]) -> list[SpecError]:
    """A forward formula (PyTorch's meaning) uses the primals `x_p`, the tangents `x_t` of the
    differentiable inputs, the arguments, `result` and operators; not the backward names."""
    assert d.forward is not None, "caller checks: generator bug"
    tangents = {f"{a.name}{suffix}" for a in d.differentiable_arguments for suffix in ("_p", "_t")}
    allowed = {a.name for a in d.func.arguments} | tangents | {"result"} | operators | COMMON_NAMES
    for n in unqualified_names(d.forward.expr):
        if n.text in GRADIENT_NAMES:
            return [SpecError(d.forward.loc.at(n.offset), f"a forward derivative cannot use '{n.text}': it "
                                                            "computes the output's tangent from the inputs' (x_t)")]
        if n.text not in allowed:
            choices = sorted(allowed - COMMON_NAMES) + list(FORMULA_HELPERS)
            return [SpecError(d.forward.loc.at(n.offset),
                              _unknown_name_message(d, n.text, "the forward derivative", choices))]
    return []
