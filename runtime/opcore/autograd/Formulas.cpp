#include <opcore/autograd/Formulas.h>

#include <opcore/ops/abs.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/eq.h>
#include <opcore/ops/expand.h>
#include <opcore/ops/gt.h>
#include <opcore/ops/mul.h>
#include <opcore/ops/real.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/sign.h>
#include <opcore/ops/reshape.h>
#include <opcore/ops/slice.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/to.h>
#include <opcore/ops/unsqueeze.h>
#include <opcore/ops/view.h>
#include <opcore/ops/where.h>
#include <opcore/ops/zeros.h>

#include <algorithm>
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

Tensor zeros_like(const Tensor& t) { return opcore::zeros(t.sizes(), t.scalar_type(), t.device()); }

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
  const Tensor mask = opcore::arange(sizes[dim], ScalarType::Long).eq(index).to(grad.scalar_type());
  return grad.unsqueeze(dim) * alongDim(mask, dim, ndim);
}

Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step) {
  Tensor result = opcore::zeros(sizes, grad.scalar_type(), grad.device());
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
  const Tensor positions = alongDim(opcore::arange(sizes[dim], ScalarType::Long), dim, ndim);
  return g * positions.eq(idx).to(grad.scalar_type());
}

Tensor threshold_backward(const Tensor& grad, const Tensor& result) {
  return grad * result.gt(0).to(grad.scalar_type());
}

Tensor sgn(const Tensor& self) {
  if (!isComplexType(self.scalar_type())) return self.sign();
  const Tensor magnitude = opcore::abs(self);
  return opcore::where(magnitude.eq(0), zeros_like(self), self / magnitude);
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

}  // namespace opcore::autograd::formulas
