"""The backward node classes of Autograd_<i>.cpp, one per derivatives.yaml entry used in the
shard: fields (Note [What a node saves] in gen/api/autograd.py), name(), releaseVariables()
and apply(), which computes each formula whose gradient is needed.

    variable_list MulBackward0::apply(variable_list&& grads) {
      const Tensor& grad = grads[0];
      const Tensor self = self_.unpack();
      const Tensor other = other_.unpack();
      variable_list grad_inputs(numOutputs());
      if (shouldComputeOutput(0)) {
        grad_inputs[0] = sum_to(grad * other, self.sizes());
      }
      ...
"""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import autograd
from gen.api.autograd import EdgeRange
from gen.model.derivatives import Derivative, Formula
from gen.model.formulas import is_foreach_formula, named_gradients, uses
from gen.model.native_function import NativeFunction


@dataclass(frozen=True)
class FormulaView:
    """One `if (<needed>) { ... }` block of apply()."""

    condition: str             # "shouldComputeOutput(0) || shouldComputeOutput(1)"
    body: tuple[str, ...]      # statements: "grad_inputs[0] = -grad;"


@dataclass(frozen=True)
class NodeView:
    """What Autograd.cpp.j2 reads about one node class."""

    comment: str                 # "derivatives.yaml:17: add.Tensor(Tensor self, ...) -> Tensor"
    name: str                    # "AddBackward0"
    fields: tuple[str, ...]      # "SavedVariable self_;", "std::vector<int64_t> other_sizes_;"
    releases: tuple[str, ...]    # "self_.reset();"
    has_releases: bool
    prologue: tuple[str, ...]    # apply(): "const Tensor& grad = grads[0];", unpacked saved values
    formulas: tuple[FormulaView, ...]


def should_compute(r: EdgeRange, node: str) -> str:
    """Whether the gradient of r's argument is needed, asked of `node` ("grad_fn" in a kernel,
    "this" in apply())."""
    member = "" if node == "this" else f"{node}->"
    if r.size is None:
        return f"{member}shouldComputeOutput({r.begin})"
    return f"shouldComputeAny(*{node}, {r.begin}, {r.size})"


def apply_ranges(d: Derivative) -> dict[str, EdgeRange]:
    """The next edges of d's differentiable arguments, as apply() computes them."""
    return {r.argument.name: r for r in autograd.edge_ranges(d.differentiable_arguments, autograd.list_size_field)}


def _formula_view(d: Derivative, formula: Formula, ranges: dict[str, EdgeRange], namespace: str) -> FormulaView:
    rs = [ranges[name] for name in formula.names]
    checks = [should_compute(r, "this") for r in rs]
    expr = autograd.formula_expression(d, formula, namespace)
    if formula.not_implemented is not None:  # throws: there is no gradient to store
        return FormulaView(" || ".join(checks), (f"{expr};",))
    body = []
    if is_foreach_formula(d.func, formula.names) and uses(formula.expr, "i"):
        r = rs[0]  # torchgen's per-element formula of a _foreach_ operator: grads[i], self[i]
        return FormulaView(checks[0], (f"std::vector<Tensor> grad_result({r.size});",
                                       f"for (size_t i = 0; i < {r.size}; ++i) grad_result[i] = {expr};",
                                       f"copyRange(grad_inputs, {r.begin}, std::move(grad_result));"))
    if uses(formula.expr, "grad_input_mask"):
        body.append(f"const std::array<bool, {len(rs)}> grad_input_mask = {{{', '.join(checks)}}};")
    if len(rs) == 1:
        single = rs[0]
        body.append(f"grad_inputs[{single.begin}] = {expr};" if single.size is None
                    else f"copyRange(grad_inputs, {single.begin}, {expr});")
    else:
        body.append(f"auto grad_result = {expr};")
        body += [f"if ({check}) grad_inputs[{r.begin}] = std::get<{i}>(std::move(grad_result));" if r.size is None
                 else f"if ({check}) copyRange(grad_inputs, {r.begin}, std::get<{i}>(std::move(grad_result)));"
                 for i, (r, check) in enumerate(zip(rs, checks))]
    return FormulaView(" || ".join(checks), tuple(body))


def node_view(f: NativeFunction, d: Derivative, name: str, comment: str) -> NodeView:
    """The node class of entry `d`, as used by `f` (d's operator or an in-place overload
    sharing it: they save the same fields)."""
    values = autograd.saved_values(f, d)
    sizes = [autograd.list_size_field(a.name) for a in d.differentiable_arguments if a.type.is_list]
    fields = tuple(f"{v.type} {v.field}{v.init};" for v in values) + tuple(f"size_t {s} = 0;" for s in sizes)
    prologue = []
    if any(uses(formula.expr, "grad") for formula in d.backward_formulas):
        prologue.append("const Tensor& grad = grads[0];")
    for gradient, index in named_gradients(d.func, d.differentiable_outputs).items():
        if any(uses(formula.expr, gradient) for formula in d.backward_formulas):
            prologue.append(f"const Tensor& {gradient} = grads[{index}];")  # torchgen's named gradient
    if any(uses(formula.expr, "retain_variables") for formula in d.backward_formulas):
        # torchgen's: whether saved values may be freed after this call; opcore keeps them.
        prologue.append("const bool retain_variables = true;")
    prologue += [v.restore for v in values if v.restore]
    prologue.append("variable_list grad_inputs(numOutputs());")
    ranges = apply_ranges(d)
    releases = tuple(v.release for v in values if v.release)
    return NodeView(comment, name, fields, releases, bool(releases), tuple(prologue),
                    tuple(_formula_view(d, formula, ranges, f.namespace) for formula in d.backward_formulas))


