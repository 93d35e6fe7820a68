// Helpers for the backward formulas in yaml/derivatives.yaml. A formula is a C++ expression
// evaluated in the generated node's apply() with `using namespace opcore::autograd::formulas`;
// every helper is built from differentiable operators, so formulas that use them can be
// differentiated again (create_graph, gradgradcheck).
//
// The generator checks that a formula names only arguments, grad/grads/result names, operators
// and these helpers: keep gen/model/formulas.py's FORMULA_HELPERS in step with this file
// (tests/gen/test_formulas.py compares them).
#pragma once

#include <opcore/Tensor.h>
#include <opcore/TensorOperators.h>  // formulas use a * b, -grad, 1 - result
#include <opcore/core/OptionalArrayRef.h>

#include <optional>
#include <string_view>

namespace opcore::autograd::formulas {

// Sums `grad` over the dimensions broadcasting added or expanded, so that it has `sizes`
// (the gradient of an argument that was broadcast).
Tensor sum_to(const Tensor& grad, IntArrayRef sizes);
// `t * s`, without a multiplication when s is 1.
Tensor maybe_multiply(const Tensor& t, const Scalar& s);
// zeros with the sizes and dtype of `t`.
Tensor zeros_like(const Tensor& t);
// The gradient of sum(self, dim, keepdim) for `self` of `sizes`: grad broadcast back.
Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim);
// The gradient of squeeze(self, dim) for `self` of `sizes`.
Tensor unsqueeze_to(const Tensor& grad, int64_t dim, IntArrayRef sizes);
// The gradient of select(self, dim, index) for `self` of `sizes`.
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);
// The gradient of slice(dim, start, end, step): grad in the sliced positions, zeros elsewhere.
Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);
// The gradient of a reduction that picks one element along `dim` (max.dim): grad goes to the
// position `indices` names.
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                          IntArrayRef sizes, bool keepdim);
// Backward of relu given its result: grad where result > 0, else 0.
Tensor threshold_backward(const Tensor& grad, const Tensor& result);
// Throws "derivative for <op> is not implemented (<reason>)": the formula of an argument whose
// gradient opcore cannot compute yet. Runs only when that gradient is needed.
[[noreturn]] Tensor not_implemented(std::string_view op, std::string_view reason);

}  // namespace opcore::autograd::formulas
