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

#include <array>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace opcore::autograd::formulas {

// Sums `grad` over the dimensions broadcasting added or expanded, so that it has `sizes`
// (the gradient of an argument that was broadcast).
Tensor sum_to(const Tensor& grad, IntArrayRef sizes);
// `t * s`, without a multiplication when s is 1.
Tensor maybe_multiply(const Tensor& t, const Scalar& s);
// The gradient of sum(self, dim, keepdim) for `self` of `sizes`: grad broadcast back.
Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim);
// The gradient of squeeze(self, dim) for `self` of `sizes`.
Tensor unsqueeze_to(const Tensor& grad, int64_t dim, IntArrayRef sizes);
// The gradient of select(self, dim, index) for `self` of `sizes`.
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);
// The gradient of slice(dim, start, end, step): grad in the sliced positions, zeros elsewhere.
Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);
// The gradient of an operator that picks elements along `dim` (max.dim, kthvalue, sort, topk):
// grad scattered to the positions `indices` names (keepdim false: one per slice, `dim` removed).
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                          IntArrayRef sizes, bool keepdim);
// --- The reductions and scans of issue #33 (PyTorch's helpers of the same names) ---
// `output` of a reduction over `dims` with its reduced dimensions back, as size 1 (a no-op
// with keepdim; no dims: a full reduction, the 0-dim output broadcasts as it is).
Tensor restore_reduced_dims(const Tensor& output, IntArrayRef dims, bool keepdim);
// grad shared evenly among the positions `mask` selects along `dims` (amax, amin).
Tensor scale_grad_by_count(const Tensor& grad, const Tensor& mask, IntArrayRef dims);
// The gradient of max() / min() of every element: shared evenly among the elements equal to
// `value` (the NaNs when it is NaN).
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& value);
// The gradient of prod() of every element and of prod along `dim`, zeros in the input included.
Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result);
Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result, int64_t dim, bool keepdim);
// The gradient of cumsum along `dim`: the sums of grad from each position to the end.
Tensor cumsum_backward(const Tensor& grad, int64_t dim);
// The gradient of cumprod along `dim`, zeros in the input included.
Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& output);
// The gradient of logsumexp over `dim`: grad * exp(self - result).
Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim);
// The gradients of var / std (and var_mean / std_mean) with a correction over `dim`.
Tensor var_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim);
Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim);
Tensor var_mean_backward(const Tensor& gvar, const Tensor& gmean, const Tensor& self, OptionalIntArrayRef dim,
                         const std::optional<Scalar>& correction, bool keepdim);
Tensor std_mean_backward(const Tensor& gstd, const Tensor& gmean, const Tensor& self, const Tensor& std,
                         OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim);
// The gradients of norm (every element, and over `dim`) and linalg_vector_norm.
Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& norm);
Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& norm,
                     IntArrayRef dim, bool keepdim);
Tensor linalg_vector_norm_backward(const Tensor& grad, const Tensor& self, const Scalar& ord, const Tensor& result,
                                   OptionalIntArrayRef dim, bool keepdim);
// Backward of relu given its result: grad where result > 0, else 0.
Tensor threshold_backward(const Tensor& grad, const Tensor& result);
// Note [Complex gradients]
// For complex tensors opcore follows PyTorch ("Autograd for Complex Numbers"): the gradient of
// a real-valued loss L with respect to z = x + iy is dL/dx + i dL/dy, the conjugate Wirtinger
// derivative (times 2), so the gradient of a real loss is the direction of steepest ascent. A
// backward formula is a vector-Jacobian product in this sense: for a holomorphic f it is
// grad * conj(f'(z)), hence the .conj() in derivatives.yaml (grad * other.conj() for mul). A
// complex number is a pair of reals: Gradcheck.cpp checks every formula by perturbing real and
// imaginary parts separately. conj() of a real tensor is the tensor itself, so the formulas
// compute exactly what they computed before for real inputs.
//
// The gradient of abs is grad * sgn(self), the operator (sign for a real self, self / abs(self),
// 0 where self is 0, for a complex one).
// `grad` for an argument of dtype `self_type`: its real part when the argument was real and
// the gradient is complex (the argument took part in a complex computation), else grad itself.
Tensor handle_r_to_c(ScalarType self_type, const Tensor& grad);
// The gradient of angle(self): zeros for a real self; grad * i * self / |self|^2 (0 where self
// is 0) for a complex one.
Tensor angle_backward(const Tensor& grad, const Tensor& self);

// Shape and view operators (issue #33).
// The gradient of permute(self, dims): grad permuted back by the inverse permutation.
Tensor permute_backwards(const Tensor& grad, IntArrayRef dims);
// The gradients of cat(tensors, dim): grad's pieces along dim, one per tensor (zeros of size
// [0] for the 1-D empty tensors cat skips).
std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<Tensor>& tensors, int64_t dim);
// The gradient of roll(self, shifts, dims): grad rolled back.
Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims);
// The gradient of repeat(self, repeats) for `self` of `sizes`: the sum of grad's copies.
Tensor repeat_backward(const Tensor& grad, IntArrayRef repeats, IntArrayRef sizes);
// The gradient of diagonal(self, offset, dim1, dim2) for `self` of `sizes`: grad on that
// diagonal, zeros elsewhere.
Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2);
// The gradient of as_strided(self, size, stride, storage_offset): grad written at the storage
// positions the view reads, seen through self's geometry. Throws when the view reads one
// position twice (an overlapping view).
Tensor as_strided_backward(const Tensor& grad, const Tensor& self, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset);
// The gradient of constant_pad_nd(self, pad): grad with the padding cut off again.
Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad);

// The gradients of scatter_reduce.two(self, dim, index, src, reduce, include_self) for self and
// for src (PyTorch's scatter_reduce_backward): sum passes grad through; mean divides it by each
// place's count; prod by the factor (the product of the others for a single zero); amax/amin
// share it evenly among the values equal to the result. Without include_self, the scattered
// places of self get none.
std::pair<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                  const Tensor& index, const Tensor& src, std::string_view reduce,
                                                  bool include_self, const Tensor& result);

// The second derivatives of the activations of issue #34, as PyTorch's FunctionsManual: the
// gradient for `self` of gelu_backward(grad_output, self, approximate), given the incoming `grad`
// (real dtypes); and the gradients for grad_output and self of silu_backward(grad_output, self)
// (conjugated as the Note [Complex gradients] below says; silu_backward itself is not).
Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate);
std::tuple<Tensor, Tensor> silu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self);
// The gradient of embedding_dense_backward (linear in grad_output) given `grad`, the gradient
// of its [num_weights, dim] result: the rows of grad at indices (divided by how often each
// index occurs with scale_grad_by_freq), zero at padding_idx.
Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t padding_idx,
                                       bool scale_grad_by_freq);
// The gradients of convolution_backward (grad_output, input, weight) given those of its three
// results (each may be undefined). The convolution is bilinear in (input, weight), so each is
// a convolution or a convolution_backward again: for grad_output, the convolutions of the
// input's gradient with the weight and of the input with the weight's gradient, plus the
// bias's gradient; for the input, the input gradient of a convolution with the weight's
// gradient; for the weight, the weight gradient of one with the input's gradient.
std::tuple<Tensor, Tensor, Tensor> convolution_double_backward(
    const Tensor& grad_grad_input, const Tensor& grad_grad_weight, const Tensor& grad_grad_bias,
    const Tensor& grad_output, const Tensor& input, const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups,
    std::array<bool, 3> output_mask);

// The gradients of native_layer_norm_backward's (grad_input, grad_weight, grad_bias) with
// respect to its `input`, `weight` and `grad_out`, given their incoming gradients ggI, ggW,
// ggB (each may be undefined), as PyTorch's layer_norm_double_backward: `mean` and `rstd` are
// taken as functions of `input` (what native_layer_norm computed), not as independent inputs
// (Note [Normalization double backward] in Formulas.cpp).
std::tuple<Tensor, Tensor, Tensor> layer_norm_double_backward(const Tensor& input, const std::optional<Tensor>& weight,
                                                              const Tensor& ggI, const Tensor& ggW, const Tensor& ggB,
                                                              const Tensor& grad_out, const Tensor& mean,
                                                              const Tensor& rstd, IntArrayRef normalized_shape);
// The same for native_batch_norm_backward (PyTorch's batchnorm_double_backward): in training the
// saved statistics are functions of `input`; in evaluation the running ones are constants.
std::tuple<Tensor, Tensor, Tensor> batchnorm_double_backward(const Tensor& input, const std::optional<Tensor>& weight,
                                                             const Tensor& ggI, const Tensor& ggW, const Tensor& ggB,
                                                             const Tensor& grad_out,
                                                             const std::optional<Tensor>& running_mean,
                                                             const std::optional<Tensor>& running_var, bool train,
                                                             double eps, const std::optional<Tensor>& save_mean,
                                                             const std::optional<Tensor>& save_invstd);
// The same for native_group_norm_backward: each (sample, group) of `input` seen as [N, group,
// C / group, HxW] normalized together, its rstd a function of `input`.
std::tuple<Tensor, Tensor, Tensor> group_norm_double_backward(const Tensor& input, const std::optional<Tensor>& weight,
                                                              const Tensor& ggI, const Tensor& ggW, const Tensor& ggB,
                                                              const Tensor& grad_out, const Tensor& rstd, int64_t N,
                                                              int64_t C, int64_t HxW, int64_t group);

// The derivatives of the binary cross entropy losses of issue #34, as PyTorch's FunctionsManual:
// binary_cross_entropy's gradient for `target`; binary_cross_entropy_backward's for `self` and
// `target` (given the incoming `grad`); binary_cross_entropy_with_logits's for `self` and
// `target`. Each is multiplied by `weight` when it is defined and divided by the number of
// elements for reduction Mean (1).
Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction);
Tensor binary_cross_entropy_double_backward(const Tensor& grad_output, const Tensor& grad, const Tensor& self,
                                            const Tensor& target, const std::optional<Tensor>& weight,
                                            int64_t reduction);
Tensor binary_cross_entropy_double_backward_target(const Tensor& grad, const Tensor& grad_output,
                                                   const Tensor& self, const Tensor& target,
                                                   const std::optional<Tensor>& weight, int64_t reduction);
Tensor binary_cross_entropy_with_logits_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                 const std::optional<Tensor>& weight,
                                                 const std::optional<Tensor>& pos_weight, int64_t reduction);
Tensor binary_cross_entropy_with_logits_target_backward(const Tensor& grad, const Tensor& self,
                                                        const Tensor& target, const std::optional<Tensor>& weight,
                                                        const std::optional<Tensor>& pos_weight,
                                                        int64_t reduction);

// Throws "derivative for <op> is not implemented (<reason>)": the formula of an argument whose
// gradient opcore cannot compute yet. Runs only when that gradient is needed.
[[noreturn]] Tensor not_implemented(std::string_view op, std::string_view reason);

}  // namespace opcore::autograd::formulas
