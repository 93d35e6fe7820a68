#include <opcore/autograd/Formulas.h>

#include <opcore/ops/abs.h>
#include <opcore/ops/add.h>
#include <opcore/ops/any.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/as_strided.h>
#include <opcore/ops/clamp_min.h>
#include <opcore/ops/constant_pad_nd.h>
#include <opcore/ops/convolution.h>
#include <opcore/ops/convolution_backward.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/cumprod.h>
#include <opcore/ops/cumsum.h>
#include <opcore/ops/diagonal.h>
#include <opcore/ops/embedding.h>
#include <opcore/ops/div.h>
#include <opcore/ops/eq.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/expand.h>
#include <opcore/ops/gather.h>
#include <opcore/ops/ge.h>
#include <opcore/ops/gt.h>
#include <opcore/ops/log.h>
#include <opcore/ops/logical_and.h>
#include <opcore/ops/masked_fill.h>
#include <opcore/ops/mean.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/ne.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/permute.h>
#include <opcore/ops/prod.h>
#include <opcore/ops/real.h>
#include <opcore/ops/reciprocal.h>
#include <opcore/ops/reshape.h>
#include <opcore/ops/rsqrt.h>
#include <opcore/ops/roll.h>
#include <opcore/ops/scatter.h>
#include <opcore/ops/scatter_add.h>
#include <opcore/ops/scatter_reduce.h>
#include <opcore/ops/sgn.h>
#include <opcore/ops/slice.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/to.h>
#include <opcore/ops/unsqueeze.h>
#include <opcore/ops/view.h>
#include <opcore/ops/where.h>
#include <opcore/ops/zeros.h>
#include <opcore/ops/zeros_like.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace opcore::autograd::formulas {

namespace {

// A {n} mask along dimension `dim` of an `ndim`-dimensional shape: viewed as {n, 1, ..., 1} so
// that broadcasting lines it up with `dim`.
Tensor alongDim(const Tensor& t, int64_t dim, int64_t ndim) {
  std::vector<int64_t> shape(static_cast<size_t>(ndim - dim), 1);
  shape[0] = t.numel();
  return t.view(shape);
}

// 0, 1, ..., n - 1 on `device`: the gradient's, as every tensor a formula makes must be.
Tensor positionsOn(Device device, int64_t n) {
  return opcore::arange(n, TensorOptions().dtype(ScalarType::Long).device(device));
}

}  // namespace

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == sizes) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < grad.dim(); ++i) {
    if (i < lead || (sizes[i - lead] == 1 && grad.size(i) != 1)) dims.push_back(i);
  }
  Tensor reduced = dims.empty() ? grad : opcore::sum(grad, dims, /*keepdim=*/true);
  return reduced.sizes() == sizes ? reduced : reduced.reshape(sizes);
}

Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  const bool is_one = s.isComplex()         ? s.toComplexDouble() == complex<double>(1.0, 0.0)
                      : s.isFloatingPoint() ? s.toDouble() == 1.0
                                            : s.to<int64_t>() == 1;
  return is_one ? t : t * s;
}

Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, OptionalIntArrayRef dim, bool keepdim) {
  const auto ndim = static_cast<int64_t>(sizes.size());
  if (keepdim || ndim == 0) return grad.expand(sizes);
  std::vector<int64_t> dims;
  if (dim.has_value() && !(*dim).empty()) {
    for (int64_t d : *dim) dims.push_back(wrapDim(d, ndim));
  } else {
    for (int64_t d = 0; d < ndim; ++d) dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end());
  Tensor g = grad;
  for (int64_t d : dims) g = g.unsqueeze(d);
  return g.expand(sizes);
}

Tensor unsqueeze_to(const Tensor& grad, int64_t dim, IntArrayRef sizes) {
  const auto ndim = static_cast<int64_t>(sizes.size());
  if (ndim == 0) return grad;
  dim = wrapDim(dim, ndim);
  return sizes[dim] == 1 ? grad.unsqueeze(dim) : grad;
}

Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index) {
  const auto ndim = static_cast<int64_t>(sizes.size());
  dim = wrapDim(dim, ndim);
  if (index < 0) index += sizes[dim];
  const Tensor mask = positionsOn(grad.device(), sizes[dim]).eq(index).to(grad.scalar_type());
  return grad.unsqueeze(dim) * alongDim(mask, dim, ndim);
}

Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  Tensor result = opcore::zeros(sizes, grad.options());
  result.slice(dim, start, end, step).copy_(grad);
  return result;
}

Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                          IntArrayRef sizes, bool keepdim) {
  const auto ndim = static_cast<int64_t>(sizes.size());
  if (ndim == 0) return grad;
  dim = wrapDim(dim, ndim);
  const Tensor g = keepdim ? grad : grad.unsqueeze(dim);
  const Tensor idx = keepdim ? indices : indices.unsqueeze(dim);
  return opcore::zeros(sizes, grad.options()).scatter(dim, idx, g);
}

// --- The reductions and scans of issue #33 ---

Tensor restore_reduced_dims(const Tensor& output, IntArrayRef dims, bool keepdim) {
  if (keepdim || dims.empty()) return output;
  const int64_t total = output.dim() + static_cast<int64_t>(dims.size());
  std::vector<int64_t> shape(static_cast<size_t>(total), 0);
  for (int64_t d : dims) shape[static_cast<size_t>(wrapDim(d, total))] = 1;
  size_t j = 0;
  for (int64_t k : output.sizes()) {
    while (shape[j] != 0) ++j;
    shape[j++] = k;
  }
  return output.reshape(shape);
}

Tensor scale_grad_by_count(const Tensor& grad, const Tensor& mask, IntArrayRef dims) {
  const Tensor m = mask.to(grad.scalar_type());
  return (grad / m.sum(dims, true)) * m;
}

Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& value) {
  const bool nan = value.ne(value).item<bool>();
  const Tensor mask = (nan ? input.ne(input) : input.eq(value)).to(grad.scalar_type());
  return mask * (grad / mask.sum());
}

namespace {

// prod_backward along `dim` of a tensor with at least one dimension; grad and result keep the
// reduced dimension (size 1). Each element's gradient is the product of the others: result / x
// without zeros; with zeros, each position's product of the others computed apart (every
// operation differentiable, so that the gradient's own gradient is right at the zeros too).
Tensor prodBackwardKept(const Tensor& grad, const Tensor& input, const Tensor& result, int64_t dim) {
  if (!input.eq(0).any().item<bool>()) return grad * (result / input).conj();
  const int64_t n = input.size(dim);
  const Tensor positions = alongDim(positionsOn(input.device(), n), dim, input.dim());
  const Tensor one = opcore::ones({}, input.scalar_type());
  Tensor others = zeros_like(input);
  for (int64_t i = 0; i < n; ++i) {
    const Tensor at_i = positions.eq(i);
    others = others + opcore::where(at_i, one, input).prod(dim, true) * at_i.to(input.scalar_type());
  }
  return grad * others.conj();
}

}  // namespace

Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result) {
  if (input.dim() == 0) return grad;
  const Tensor flat = input.reshape({-1});
  return prodBackwardKept(grad.reshape({1}), flat, result.reshape({1}), 0).reshape(input.sizes());
}

Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result, int64_t dim, bool keepdim) {
  if (input.dim() == 0) return grad;
  dim = wrapDim(dim, input.dim());
  const Tensor g = keepdim ? grad : grad.unsqueeze(dim);
  const Tensor r = keepdim ? result : result.unsqueeze(dim);
  return prodBackwardKept(g, input, r, dim);
}

Tensor cumsum_backward(const Tensor& grad, int64_t dim) {
  if (grad.dim() == 0) return grad;
  return grad.sum(std::vector<int64_t>{dim}, true) - grad.cumsum(dim) + grad;
}

Tensor cumprod_backward(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& output) {
  if (input.numel() <= 1) return grad;
  if (!input.eq(0).any().item<bool>()) return cumsum_backward(grad * output.conj(), dim) / input.conj();
  // With zeros: d output[j] / d input[i] is the product of input[0..j] but input[i], for j >= i,
  // computed for one position i at a time (every operation differentiable).
  dim = wrapDim(dim, input.dim());
  const int64_t n = input.size(dim);
  const Tensor positions = alongDim(positionsOn(input.device(), n), dim, input.dim());
  const Tensor one = opcore::ones({}, input.scalar_type());
  Tensor result = zeros_like(input);
  for (int64_t i = 0; i < n; ++i) {
    const Tensor at_i = positions.eq(i);
    const Tensor without_i = opcore::where(at_i, one, input).cumprod(dim);
    const Tensor after = positions.ge(i).to(grad.scalar_type());
    const Tensor gi = (grad * without_i.conj() * after).sum(std::vector<int64_t>{dim}, true);
    result = result + gi * at_i.to(grad.scalar_type());
  }
  return result;
}

Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, IntArrayRef dim, bool keepdim) {
  return restore_reduced_dims(grad, dim, keepdim) * (self - restore_reduced_dims(result, dim, keepdim)).exp();
}

namespace {

// The number of elements a reduction over `dim` (None or empty: all) combines.
int64_t reducedCount(IntArrayRef sizes, OptionalIntArrayRef dim) {
  int64_t n = 1;
  if (!dim.has_value() || (*dim).empty()) {
    for (int64_t s : sizes) n *= s;
    return n;
  }
  for (int64_t d : *dim) n *= sizes.empty() ? 1 : sizes[static_cast<size_t>(wrapDim(d, static_cast<int64_t>(sizes.size())))];
  return n;
}

}  // namespace

Tensor var_backward(const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim) {
  const double dof = static_cast<double>(reducedCount(self.sizes(), dim)) - (correction ? correction->toDouble() : 1.0);
  return sum_backward(grad, self.sizes(), dim, keepdim) * (2.0 / dof) * (self - self.mean(dim, true));
}

Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, OptionalIntArrayRef dim,
                    const std::optional<Scalar>& correction, bool keepdim) {
  const Tensor grad_var = opcore::where(result.eq(0), zeros_like(grad), grad / (result * 2));
  return var_backward(grad_var, self, dim, correction, keepdim);
}

Tensor var_mean_backward(const Tensor& gvar, const Tensor& gmean, const Tensor& self, OptionalIntArrayRef dim,
                         const std::optional<Scalar>& correction, bool keepdim) {
  Tensor result;
  if (gvar.defined()) result = var_backward(gvar, self, dim, correction, keepdim);
  if (gmean.defined()) {
    const double n = static_cast<double>(reducedCount(self.sizes(), dim));
    const Tensor aux = sum_backward(gmean, self.sizes(), dim, keepdim) / n;
    result = result.defined() ? result + aux : aux;
  }
  return result.defined() ? result : zeros_like(self);
}

Tensor std_mean_backward(const Tensor& gstd, const Tensor& gmean, const Tensor& self, const Tensor& std,
                         OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  Tensor result;
  if (gstd.defined()) result = std_backward(std, gstd, self, dim, correction, keepdim);
  if (gmean.defined()) {
    const double n = static_cast<double>(reducedCount(self.sizes(), dim));
    const Tensor aux = sum_backward(gmean, self.sizes(), dim, keepdim) / n;
    result = result.defined() ? result + aux : aux;
  }
  return result.defined() ? result : zeros_like(self);
}

namespace {

// |self|^e for e of either sign, through exp and log (0 where |self| is 0 and e > 0).
Tensor absPower(const Tensor& self, double e) {
  return (self.abs().log() * e).exp();
}

}  // namespace

Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& norm) {
  return norm_backward(grad, self, p, norm, IntArrayRef{}, false);
}

Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p_, const Tensor& norm,
                     IntArrayRef dim, bool keepdim) {
  const double p = p_ ? p_->toDouble() : 2.0;
  const Tensor g = restore_reduced_dims(grad, dim, keepdim);
  const Tensor n = restore_reduced_dims(norm, dim, keepdim);
  const Tensor zero = zeros_like(self);
  if (p == 0.0) return zero;
  if (p == 1.0) return opcore::sgn(self) * g;
  if (p == 2.0) return g * opcore::where(n.eq(0), zero, self / n);
  if (std::isinf(p)) {
    const Tensor a = self.abs();
    const Tensor mask = a.eq(n).to(g.scalar_type()) + a.ne(a).to(g.scalar_type());  // the extremes, or the NaNs
    return opcore::sgn(self) * ((g / mask.sum(dim, true)) * mask);
  }
  const Tensor scale = opcore::where(n.eq(0), zeros_like(n), g / absPower(n, p - 1));
  if (p < 1.0) return opcore::sgn(self) * opcore::where(self.eq(0), zero, absPower(self, p - 1)) * g * absPower(n, 1 - p);
  if (p < 2.0) return opcore::sgn(self) * absPower(self, p - 1) * scale;
  return self * absPower(self, p - 2) * scale;
}

Tensor linalg_vector_norm_backward(const Tensor& grad, const Tensor& self, const Scalar& ord, const Tensor& result,
                                   OptionalIntArrayRef dim, bool keepdim) {
  return norm_backward(grad, self, ord, result, dim.has_value() ? *dim : IntArrayRef{}, keepdim);
}

// grad where result > 0, else 0, as PyTorch's threshold_backward(grad, result, 0): a NaN
// gradient is 0 where the result is not positive (grad * mask would keep it), and no mask of
// grad's dtype is made.
Tensor threshold_backward(const Tensor& grad, const Tensor& result) {
  return opcore::where(result.gt(0), grad, 0);
}

Tensor handle_r_to_c(ScalarType self_type, const Tensor& grad) {
  if (isComplexType(self_type) || !grad.defined() || !isComplexType(grad.scalar_type())) return grad;
  return opcore::real(grad);
}

Tensor angle_backward(const Tensor& grad, const Tensor& self) {
  if (!isComplexType(self.scalar_type())) return zeros_like(grad);
  const Tensor magnitude = opcore::abs(self);
  const Tensor g = grad * self / (magnitude * magnitude) * Scalar(complex<double>(0.0, 1.0));
  return opcore::where(self.eq(0), zeros_like(g), g);
}

Tensor not_implemented(std::string_view op, std::string_view reason) {
  OPCORE_FAIL("derivative for ", op, " is not implemented (", reason, ")");
}

// Shape and view operators (issue #33).

Tensor permute_backwards(const Tensor& grad, IntArrayRef dims) {
  const auto ndim = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inverse(dims.size());
  for (int64_t i = 0; i < ndim; ++i) inverse[static_cast<size_t>(wrapDim(dims[i], ndim))] = i;
  return opcore::permute(grad, inverse);
}

std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<Tensor>& tensors, int64_t dim) {
  std::vector<Tensor> grads(tensors.size());
  if (!grad.defined()) return grads;
  // 1-D empty tensors were skipped (Note [cat's legacy empty tensors]); dim wraps against the others.
  const auto skipped = [](const Tensor& t) { return t.dim() == 1 && t.numel() == 0; };
  const auto ref = std::find_if(tensors.begin(), tensors.end(), [&](const Tensor& t) { return !skipped(t); });
  const int64_t d = ref == tensors.end() ? 0 : wrapDim(dim, ref->dim());
  int64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skipped(t)) {
      grads[i] = opcore::zeros(t.sizes(), grad.options().dtype(t.scalar_type()));
      continue;
    }
    grads[i] = handle_r_to_c(t.scalar_type(), grad.slice(d, offset, offset + t.size(d)));
    offset += t.size(d);
  }
  return grads;
}

Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims) {
  std::vector<int64_t> back;
  for (int64_t s : shifts) back.push_back(-s);
  return opcore::roll(grad, back, dims);
}

Tensor repeat_backward(const Tensor& grad, IntArrayRef repeats, IntArrayRef sizes) {
  const size_t lead = repeats.size() - sizes.size();
  std::vector<int64_t> interleaved, reduced;
  for (size_t i = 0; i < repeats.size(); ++i) {
    interleaved.push_back(repeats[i]);
    interleaved.push_back(i < lead ? 1 : sizes[i - lead]);
    reduced.push_back(static_cast<int64_t>(2 * i));
  }
  if (grad.numel() == 0) return opcore::zeros(sizes, grad.options());
  return opcore::sum(grad.reshape(interleaved), reduced, /*keepdim=*/false).reshape(sizes);
}

Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor result = opcore::zeros(sizes, grad.options());
  opcore::diagonal(result, offset, dim1, dim2).copy_(grad);
  return result;
}

Tensor as_strided_backward(const Tensor& grad, const Tensor& self, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset) {
  const int64_t out_offset = storage_offset.value_or(self.storage_offset());
  // Extent of the storage positions the input and the output reach.
  const auto reach = [](IntArrayRef sz, IntArrayRef st, int64_t off) {
    int64_t last = off;
    for (size_t i = 0; i < sz.size(); ++i) {
      if (sz[i] == 0) return off - 1;
      last += (sz[i] - 1) * st[i];
    }
    return last;
  };
  // The output reads no position twice when, dimensions sorted by stride, each stride passes the
  // extent of the smaller ones.
  std::vector<size_t> order;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] > 1) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return stride[a] < stride[b]; });
  int64_t extent = 1;
  for (size_t i : order) {
    OPCORE_CHECK(stride[i] >= extent, "as_strided_backward: the gradient of a view that reads an element twice "
                 "(size ", size, ", stride ", stride, ") is not implemented");
    extent = stride[i] * (size[i] - 1) + extent;
  }
  const int64_t low = std::min(self.storage_offset(), out_offset);
  const int64_t high = std::max(reach(self.sizes(), self.strides(), self.storage_offset()),
                                reach(size, stride, out_offset));
  Tensor flat = opcore::zeros({std::max<int64_t>(high - low + 1, 0)}, grad.options());
  opcore::as_strided(flat, size, stride, out_offset - low).copy_(grad);
  return opcore::as_strided(flat, self.sizes(), self.strides(), self.storage_offset() - low);
}

Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad) {
  std::vector<int64_t> back;
  for (int64_t p : pad) back.push_back(-p);
  return opcore::constant_pad_nd(grad, back, 0);
}

std::pair<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                  const Tensor& index, const Tensor& src, std::string_view reduce,
                                                  bool include_self, const Tensor& result) {
  Tensor grad_self, grad_src;
  const auto ones = [&](const Tensor& like) { return opcore::ones(like.sizes(), grad.options()); };
  if (reduce == "sum") {
    grad_self = grad;
    grad_src = grad.gather(dim, index);
  } else if (reduce == "mean") {
    // How many values each place averaged: its own (when included) and those scattered to it.
    Tensor count = (include_self ? ones(self) : zeros_like(grad)).scatter_add(dim, index, ones(src));
    count = count.masked_fill(count.eq(0), 1);
    grad_self = grad / count;
    grad_src = grad_self.gather(dim, index);
  } else if (reduce == "prod") {
    // d(product)/dx is the product of the other factors: result / x when x is not 0. For a zero
    // of self, the product of the place's src values; for the single zero of src at a place, the
    // product with that zero replaced by 1. (With two zeros at a place every factor's gradient
    // is 0, which result / x, masked, gives.)
    const Tensor masked_self = self.masked_fill(self.eq(0), 1);
    grad_self = grad * masked_self.scatter_reduce(dim, index, src, reduce, include_self) / masked_self;
    const Tensor src_zero = src.eq(0);
    const Tensor zeros_at_place =
        zeros_like(self).scatter_add(dim, index, src_zero.to(self.scalar_type())).gather(dim, index);
    const Tensor single_zero = opcore::logical_and(src_zero, zeros_at_place.eq(1));
    const Tensor without_zero = self.scatter_reduce(dim, index, src.masked_fill(single_zero, 1), reduce, include_self);
    grad_src = opcore::where(single_zero, (grad * without_zero).gather(dim, index),
                             (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1));
  } else if (reduce == "amax" || reduce == "amin") {
    // Shared evenly among the values (self's and src's) equal to the place's result.
    const Tensor value = result.gather(dim, index);
    const Tensor self_is_result = self.eq(result).to(grad.scalar_type());
    const Tensor src_is_result = src.eq(value).to(grad.scalar_type());
    const Tensor share = grad / self_is_result.scatter_add(dim, index, src_is_result);
    grad_self = self_is_result * share;
    grad_src = src_is_result * share.gather(dim, index);
  } else {
    not_implemented("scatter_reduce.two", "an unknown reduce");
  }
  if (!include_self) grad_self = grad_self.scatter(dim, index, 0);
  return {grad_self, grad_src};
}

Tensor gelu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self,
                            std::string_view approximate) {
  if (approximate == "tanh") {
    constexpr double kBeta = 0.797884560802865355879892119868763737;  // sqrt(2 / pi)
    constexpr double kKappa = 0.044715;
    const Tensor inner = (self + self * self * self * kKappa) * kBeta;
    const Tensor t = inner.tanh();
    const Tensor f = self * 0.5;
    const Tensor g = 1 - t * t;  // sech^2(inner)
    const Tensor h = (1 + self * self * (3 * kKappa)) * kBeta;
    const Tensor f_prime_gh = g * h * 0.5;
    const Tensor g_prime_fh = f * h * (-2 * g * t * h);
    const Tensor h_prime_fg = f * g * (self * (6 * kKappa * kBeta));
    return grad * grad_output * (f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg);
  }
  constexpr double kPdf = 0.398942280401432677939946059934381868;  // 1 / sqrt(2 pi)
  const Tensor self_sq = self * self;
  const Tensor pdf = (self_sq * -0.5).exp() * kPdf;
  return grad * grad_output * (2 * pdf - self_sq * pdf);
}

std::tuple<Tensor, Tensor> silu_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& self) {
  // silu_backward(g, x) = g * h(x), h(x) = s * (1 + x * (1 - s)), s = sigmoid(x), holomorphic
  // in both: the gradients are grad * conj(h(x)) and grad * conj(g * h'(x)).
  const Tensor s = self.sigmoid();
  const Tensor grad_grad_output = grad * (s * (1 + self * (1 - s))).conj();
  const Tensor grad_self = grad * (grad_output * (s * (1 - s)) * (2 + self * (1 - 2 * s))).conj();
  return {grad_grad_output, grad_self};
}

Tensor embedding_dense_double_backward(const Tensor& grad, const Tensor& indices, int64_t padding_idx,
                                       bool scale_grad_by_freq) {
  Tensor rows = grad;
  if (scale_grad_by_freq) {
    // Rows no index names (count 0, never read below) are divided by 1: a 0 / 0 would reach
    // the gradient of this division as NaN.
    const Tensor flat = indices.reshape({-1}).to(ScalarType::Long);
    const Tensor counts = opcore::zeros({grad.size(0)}, grad.options())
                              .scatter_add(0, flat, opcore::ones({flat.numel()}, grad.options()));
    rows = grad / counts.clamp_min(1).unsqueeze(1);
  }
  const Tensor picked = opcore::embedding(rows, indices);
  if (padding_idx < 0) return picked;
  return picked.masked_fill((indices == padding_idx).unsqueeze(-1), 0);
}

std::tuple<Tensor, Tensor, Tensor> convolution_double_backward(
    const Tensor& grad_grad_input, const Tensor& grad_grad_weight, const Tensor& grad_grad_bias,
    const Tensor& grad_output, const Tensor& input, const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups,
    std::array<bool, 3> output_mask) {
  Tensor for_grad_output, for_input, for_weight;
  if (output_mask[0]) {
    const auto add = [&](const Tensor& t) { for_grad_output = for_grad_output.defined() ? for_grad_output + t : t; };
    if (grad_grad_input.defined()) {
      add(opcore::convolution(grad_grad_input, weight, std::nullopt, stride, padding, dilation, transposed,
                              output_padding, groups));
    }
    if (grad_grad_weight.defined()) {
      add(opcore::convolution(input, grad_grad_weight, std::nullopt, stride, padding, dilation, transposed,
                              output_padding, groups));
    }
    if (grad_grad_bias.defined()) {
      std::vector<int64_t> shape(static_cast<size_t>(grad_output.dim()), 1);
      shape[1] = grad_grad_bias.numel();
      add(grad_grad_bias.view(shape).expand(grad_output.sizes()));
    }
    if (!for_grad_output.defined()) for_grad_output = zeros_like(grad_output);
  }
  if (output_mask[1] && grad_grad_weight.defined()) {
    for_input = std::get<0>(opcore::convolution_backward(grad_output, input, grad_grad_weight, std::nullopt, stride,
                                                         padding, dilation, transposed, output_padding, groups,
                                                         {true, false, false}));
  }
  if (output_mask[2] && grad_grad_input.defined()) {
    for_weight = std::get<1>(opcore::convolution_backward(grad_output, grad_grad_input, weight, std::nullopt, stride,
                                                          padding, dilation, transposed, output_padding, groups,
                                                          {false, true, false}));
  }
  return {for_grad_output, for_input, for_weight};
}

// Note [Normalization double backward]
// For each group of n elements normalized together (a row of layer_norm, a channel of
// batch_norm, a (sample, group) of group_norm): xhat = (x - mean) * r, r = 1 / sqrt(var + eps),
// dyw = dy * w (w constant or varying within a group). The backward computes
// dx = r * (dyw - avg(dyw) - xhat * avg(dyw * xhat)), dw = sum of dy * xhat and db = sum of dy
// over what w is shared by. With L = <ggI, dx> + <ggW, dw> + <ggB, db>:
//   dL/d dy = w * G + ggW * xhat + ggB,  G = r * (ggI - avg(ggI) - xhat * avg(ggI * xhat))
//   dL/d w  = sum of dy * G
//   dL/d x  = r * (v - avg(v) - xhat * avg(v * xhat)) - D * r^2 * xhat / n, where
//     v = -r * (ggI * avg(dyw * xhat) + avg(ggI * xhat) * dyw) + ggW * dy (dL/d xhat at fixed r)
//     D = sum(ggI * (dyw - avg(dyw) - xhat * avg(dyw * xhat)))         (dL/d r at fixed xhat)
// (the first term is the product with d xhat / d x = r * (I - 1/n - xhat xhat^T / n), the
// second with d r / d x = -r^2 xhat / n); avg and the sums in D run over a group. So that these
// can be differentiated again, mean and r are recomputed from x with operators (the saved mean
// is x's group mean; eps is recovered from the saved r as 1 / r^2 - var and held constant).
//
// `x` is the input viewed so that a group is the elements sharing their indices outside
// `group_dims`; `rstd` broadcasts to x with size 1 along group_dims; `w`, `ggW` and `ggB` (each
// may be undefined) broadcast to x, and a parameter's gradient is summed over `param_dims`
// (keeping them, so it has w's view's shape).
static std::tuple<Tensor, Tensor, Tensor> normalization_double_backward(const Tensor& x, const Tensor& w,
                                                                        const Tensor& ggI, const Tensor& ggW,
                                                                        const Tensor& ggB, const Tensor& dy,
                                                                        const Tensor& rstd, IntArrayRef group_dims,
                                                                        IntArrayRef param_dims) {
  int64_t n = 1;
  for (const int64_t d : group_dims) n *= x.size(d);
  const std::vector<int64_t> dims(group_dims.begin(), group_dims.end());
  const std::vector<int64_t> pdims(param_dims.begin(), param_dims.end());
  const Tensor mu = x.mean(dims, true);
  const Tensor var = ((x - mu) * (x - mu)).mean(dims, true);
  const Tensor eps = (rstd * rstd).reciprocal().detach() - var.detach();
  const Tensor r = (var + eps).rsqrt();
  const Tensor xhat = (x - mu) * r;
  const bool has_weight = w.defined();
  const Tensor dyw = has_weight ? dy * w : dy;
  Tensor d_dy, d_w, d_x, v;
  const auto add = [](Tensor& acc, const Tensor& t) { acc = acc.defined() ? acc + t : t; };
  if (ggI.defined()) {
    const Tensor gg_xhat = (ggI * xhat).mean(dims, true);
    const Tensor g = r * (ggI - ggI.mean(dims, true) - xhat * gg_xhat);
    add(d_dy, has_weight ? w * g : g);
    if (has_weight) d_w = (dy * g).sum(pdims, true);
    const Tensor dyw_xhat = (dyw * xhat).mean(dims, true);
    add(v, (ggI * dyw_xhat + gg_xhat * dyw) * r * (-1.0));
    const Tensor d = (ggI * (dyw - dyw.mean(dims, true) - xhat * dyw_xhat)).sum(dims, true);
    add(d_x, d * r * r * xhat * (-1.0 / static_cast<double>(n)));
  }
  if (ggW.defined()) {
    add(d_dy, ggW * xhat);
    add(v, ggW * dy);
  }
  if (ggB.defined()) add(d_dy, ggB.expand(x.sizes()));
  if (v.defined()) add(d_x, r * (v - v.mean(dims, true) - xhat * (v * xhat).mean(dims, true)));
  return {d_x.defined() ? d_x : zeros_like(x), d_w, d_dy.defined() ? d_dy : zeros_like(dy)};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_double_backward(const Tensor& input, const std::optional<Tensor>& weight,
                                                              const Tensor& ggI, const Tensor& ggW, const Tensor& ggB,
                                                              const Tensor& grad_out, const Tensor& mean,
                                                              const Tensor& rstd, IntArrayRef normalized_shape) {
  (void)mean;  // recomputed from input (Note [Normalization double backward])
  int64_t n = 1;
  for (const int64_t s : normalized_shape) n *= s;
  const int64_t m = n == 0 ? 0 : input.numel() / n;
  const bool has_weight = weight && weight->defined();
  if (m == 0 || n == 0) {
    return {zeros_like(input), has_weight ? zeros_like(*weight) : Tensor(), zeros_like(grad_out)};
  }
  const auto rows = [&](const Tensor& t) { return t.defined() ? t.reshape({m, n}) : Tensor(); };
  const auto row = [&](const Tensor& t) { return t.defined() ? t.reshape({1, n}) : Tensor(); };
  auto [d_x, d_w, d_dy] = normalization_double_backward(
      rows(input), has_weight ? row(*weight) : Tensor(), rows(ggI), row(ggW), row(ggB), rows(grad_out),
      rstd.reshape({m, 1}), std::vector<int64_t>{1}, std::vector<int64_t>{0});
  return {d_x.reshape(input.sizes()),
          has_weight ? (d_w.defined() ? d_w.reshape(normalized_shape) : zeros_like(*weight)) : Tensor(),
          d_dy.reshape(grad_out.sizes())};
}

std::tuple<Tensor, Tensor, Tensor> batchnorm_double_backward(const Tensor& input, const std::optional<Tensor>& weight,
                                                             const Tensor& ggI, const Tensor& ggW, const Tensor& ggB,
                                                             const Tensor& grad_out,
                                                             const std::optional<Tensor>& running_mean,
                                                             const std::optional<Tensor>& running_var, bool train,
                                                             double eps, const std::optional<Tensor>& save_mean,
                                                             const std::optional<Tensor>& save_invstd) {
  (void)save_mean;  // recomputed from input (Note [Normalization double backward])
  const bool has_weight = weight && weight->defined();
  if (input.numel() == 0) {
    return {zeros_like(input), has_weight ? zeros_like(*weight) : Tensor(), zeros_like(grad_out)};
  }
  const int64_t n = input.size(0), c = input.size(1);
  const int64_t hw = input.numel() / (n * c);
  const auto chunks = [&](const Tensor& t) { return t.defined() ? t.reshape({n, c, hw}) : Tensor(); };
  const auto channel = [&](const Tensor& t) { return t.defined() ? t.reshape({1, c, 1}) : Tensor(); };
  const Tensor w = has_weight ? channel(*weight) : Tensor();
  const std::vector<int64_t> dims{0, 2};
  if (train) {
    auto [d_x, d_w, d_dy] = normalization_double_backward(chunks(input), w, chunks(ggI), channel(ggW), channel(ggB),
                                                          chunks(grad_out), channel(*save_invstd), dims, dims);
    return {d_x.reshape(input.sizes()),
            has_weight ? (d_w.defined() ? d_w.reshape({c}) : zeros_like(*weight)) : Tensor(),
            d_dy.reshape(grad_out.sizes())};
  }
  // Evaluation: dx = dy * w * r, a linear map of dy with r and the mean constants.
  const Tensor x = chunks(input), dy = chunks(grad_out);
  const Tensor r = (channel(*running_var) + eps).rsqrt();
  const Tensor xhat = (x - channel(*running_mean)) * r;
  const Tensor gg = chunks(ggI), gw = channel(ggW), gb = channel(ggB);
  Tensor d_dy = zeros_like(dy), d_x = zeros_like(x), d_w;
  if (gg.defined()) {
    d_dy = d_dy + (has_weight ? gg * w * r : gg * r);
    if (has_weight) d_w = (gg * dy * r).sum(dims, true).reshape({c});
  }
  if (gw.defined()) {
    d_dy = d_dy + gw * xhat;
    d_x = d_x + gw * dy * r;
  }
  if (gb.defined()) d_dy = d_dy + gb;
  return {d_x.reshape(input.sizes()), has_weight ? (d_w.defined() ? d_w : zeros_like(*weight)) : Tensor(),
          d_dy.reshape(grad_out.sizes())};
}

std::tuple<Tensor, Tensor, Tensor> group_norm_double_backward(const Tensor& input, const std::optional<Tensor>& weight,
                                                              const Tensor& ggI, const Tensor& ggW, const Tensor& ggB,
                                                              const Tensor& grad_out, const Tensor& rstd, int64_t N,
                                                              int64_t C, int64_t HxW, int64_t group) {
  const bool has_weight = weight && weight->defined();
  if (input.numel() == 0) {
    return {zeros_like(input), has_weight ? zeros_like(*weight) : Tensor(), zeros_like(grad_out)};
  }
  const int64_t cpg = C / group;
  const auto split = [&](const Tensor& t) { return t.defined() ? t.reshape({N, group, cpg, HxW}) : Tensor(); };
  const auto channel = [&](const Tensor& t) { return t.defined() ? t.reshape({1, group, cpg, 1}) : Tensor(); };
  auto [d_x, d_w, d_dy] = normalization_double_backward(
      split(input), has_weight ? channel(*weight) : Tensor(), split(ggI), channel(ggW), channel(ggB), split(grad_out),
      rstd.reshape({N, group, 1, 1}), std::vector<int64_t>{2, 3}, std::vector<int64_t>{0, 3});
  return {d_x.reshape(input.sizes()),
          has_weight ? (d_w.defined() ? d_w.reshape({C}) : zeros_like(*weight)) : Tensor(),
          d_dy.reshape(grad_out.sizes())};
}

namespace {

// t times the weight (when given), divided by its number of elements for reduction Mean.
Tensor weightedLossGradient(Tensor t, const std::optional<Tensor>& weight, int64_t reduction) {
  if (weight && weight->defined()) t = t * *weight;
  if (reduction == 1) t = t / static_cast<double>(t.numel());
  return t;
}

// log(sigmoid(z)), which is -inf where sigmoid(z) rounds to 0 (|z| beyond about 745 in double).
Tensor logSigmoid(const Tensor& z) { return z.sigmoid().log(); }

}  // namespace

Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self, const Tensor& /*target*/,
                                            const std::optional<Tensor>& weight, int64_t reduction) {
  // d/dy of -(y log x + (1 - y) log(1 - x)) = log(1 - x) - log(x) = -logit(x)
  return weightedLossGradient(grad * ((1 - self).log() - self.log()), weight, reduction);
}

Tensor binary_cross_entropy_double_backward(const Tensor& grad_output, const Tensor& grad, const Tensor& self,
                                            const Tensor& target, const std::optional<Tensor>& weight,
                                            int64_t reduction) {
  // d/dx of (x - y) / (x (1 - x)) = (x^2 - 2xy + y) / (x (1 - x))^2
  const Tensor v = self * (1 - self);
  return weightedLossGradient(grad * grad_output * (self * self - 2 * self * target + target) / (v * v), weight,
                              reduction);
}

Tensor binary_cross_entropy_double_backward_target(const Tensor& grad, const Tensor& grad_output,
                                                   const Tensor& self, const Tensor& /*target*/,
                                                   const std::optional<Tensor>& weight, int64_t reduction) {
  return weightedLossGradient(-(grad * grad_output) / (self * (1 - self)), weight, reduction);
}

Tensor binary_cross_entropy_with_logits_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                 const std::optional<Tensor>& weight,
                                                 const std::optional<Tensor>& pos_weight, int64_t reduction) {
  Tensor g;
  if (pos_weight && pos_weight->defined()) {
    const Tensor t = *pos_weight * target;
    g = (t + 1 - target) * self.sigmoid() - t;
  } else {
    g = self.sigmoid() - target;
  }
  return weightedLossGradient(g * grad, weight, reduction);
}

Tensor binary_cross_entropy_with_logits_target_backward(const Tensor& grad, const Tensor& self,
                                                        const Tensor& /*target*/, const std::optional<Tensor>& weight,
                                                        const std::optional<Tensor>& pos_weight,
                                                        int64_t reduction) {
  Tensor g;
  if (pos_weight && pos_weight->defined()) {
    g = logSigmoid(-self) - logSigmoid(self) * *pos_weight;
  } else {
    g = -self;
  }
  return weightedLossGradient(g * grad, weight, reduction);
}

}  // namespace opcore::autograd::formulas
