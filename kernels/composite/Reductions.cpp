// Composite reductions: sum of all elements (through the structured sum.dim_IntList; its meta
// function is in common/ReductionMeta.cpp) and mean (sum divided by the number of reduced
// elements; floating and complex dtypes only, as in PyTorch); prod of all elements, logsumexp
// and the unbiased= forms of var, std, var_mean and std_mean (issue #33).
#include <opcore/ops/abs.h>
#include <opcore/ops/add.h>
#include <opcore/ops/amax.h>
#include <opcore/ops/div.h>
#include <opcore/ops/eq.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/linalg_vector_norm.h>
#include <opcore/ops/log.h>
#include <opcore/ops/norm_native.h>
#include <opcore/ops/logsumexp_native.h>
#include <opcore/ops/prod.h>
#include <opcore/ops/prod_native.h>
#include <opcore/ops/std.h>
#include <opcore/ops/std_mean.h>
#include <opcore/ops/std_mean_native.h>
#include <opcore/ops/std_native.h>
#include <opcore/ops/sub.h>
#include <opcore/ops/var.h>
#include <opcore/ops/var_mean.h>
#include <opcore/ops/var_mean_native.h>
#include <opcore/ops/var_native.h>
#include <opcore/ops/where.h>
#include <opcore/ops/zeros.h>
#include <opcore/core/Empty.h>
#include <opcore/core/Structured.h>

#include <limits>
#include <opcore/ops/mean.h>
#include <opcore/ops/mean_native.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/sum_native.h>

#include "common/Shape.h"

namespace opcore::native {

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  return opcore::sum(self, std::nullopt, false, dtype);
}

Tensor mean(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  const ScalarType out_dtype = dtype.value_or(self.scalar_type());
  const auto floatingOrComplex = [](ScalarType t) { return isFloatingType(t) || isComplexType(t); };
  if (dtype) {
    OPCORE_CHECK(floatingOrComplex(*dtype), "mean(): could not infer output dtype. Optional dtype must "
                 "be either a floating point or complex dtype. Got: ", *dtype);
  } else {
    OPCORE_CHECK(floatingOrComplex(self.scalar_type()), "mean(): could not infer output dtype. Input "
                 "dtype must be either a floating point or complex dtype. Got: ", self.scalar_type());
  }
  const std::vector<bool> mask = reductionMask(dim, self.dim());
  int64_t count = 1;
  for (size_t i = 0; i < mask.size(); ++i) count *= mask[i] ? self.sizes()[i] : 1;
  // Half and BFloat16: the sum and the division in float, rounded once at the end.
  const ScalarType compute = isReducedFloatingType(out_dtype) ? kFloat : out_dtype;
  const Tensor total = opcore::sum(self, dim, keepdim, compute);
  return opcore::div(total, Scalar(count)).to(out_dtype);  // 0 / 0 gives nan for an empty reduction
}

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  return native::mean(self, std::nullopt, false, dtype);
}

// As PyTorch's: without dtype, the mean is computed in out's dtype.
Tensor& mean_out(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                 Tensor& out) {
  OPCORE_CHECK(!dtype || *dtype == out.scalar_type(), "Expected out tensor to have dtype ", *dtype, ", but got ",
               out.scalar_type(), " instead");
  const Tensor result = native::mean(self, dim, keepdim, out.scalar_type());
  detail::prepareOut("aten::mean.out", out, detail::specOf(result), {});
  return out.copy_(result);
}

Tensor& mean_dtype_out(const Tensor& self, std::optional<ScalarType> dtype, Tensor& out) {
  return mean_out(self, std::nullopt, false, dtype, out);
}

}  // namespace opcore::native

// --- Core ATen part 1 (issue #33): reductions, scans and sorting ---------------------------------

namespace opcore::native {

namespace {
std::optional<Scalar> correctionOf(bool unbiased) {
  return Scalar(unbiased ? 1 : 0);
}
}  // namespace

// prod of every element: the product along the one dimension of the flattened self.
Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  return opcore::prod(self.reshape({-1}), 0, false, dtype);
}

// log(sum(exp(self))) over `dim`, with the maximum subtracted first (an infinite maximum is
// not: inf - inf would give NaN), as PyTorch's composite.
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  const Tensor x = isIntegralType(self.scalar_type(), true) ? self.to(kDefaultFloat) : self;
  if (x.numel() == 0) return opcore::log(opcore::sum(opcore::exp(x), dim, keepdim));
  const Tensor maxes = opcore::amax(x, dim, true);
  const Tensor shift = opcore::where(opcore::abs(maxes).eq(std::numeric_limits<double>::infinity()),
                                     opcore::zeros(maxes.sizes(), maxes.options()), maxes);
  const Tensor kept = opcore::add(opcore::log(opcore::sum(opcore::exp(opcore::sub(x, shift)), dim, true)), shift);
  if (keepdim) return kept;
  return kept.reshape(reducedShape(x.sizes(), reductionMask(dim, x.dim()), false));
}

Tensor& logsumexp_out(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  const Tensor result = native::logsumexp(self, dim, keepdim);
  OPCORE_CHECK(canCast(result.scalar_type(), out.scalar_type()), "result type ", result.scalar_type(),
               " can't be cast to the desired output type ", out.scalar_type());
  detail::resizeOutput(out, result.sizes());
  out.copy_(result);
  return out;
}

// The unbiased= forms: correction 1 (unbiased) or 0.
Tensor var(const Tensor& self, bool unbiased) {
  return opcore::var(self, std::nullopt, correctionOf(unbiased), false);
}

Tensor var(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return opcore::var(self, dim, correctionOf(unbiased), keepdim);
}

Tensor& var_out(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim, Tensor& out) {
  return opcore::var_outf(self, dim, correctionOf(unbiased), keepdim, out);
}

Tensor std(const Tensor& self, bool unbiased) {
  return opcore::std(self, std::nullopt, correctionOf(unbiased), false);
}

Tensor std(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return opcore::std(self, dim, correctionOf(unbiased), keepdim);
}

Tensor& std_out(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim, Tensor& out) {
  return opcore::std_outf(self, dim, correctionOf(unbiased), keepdim, out);
}

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased) {
  return opcore::var_mean(self, std::nullopt, correctionOf(unbiased), false);
}

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return opcore::var_mean(self, dim, correctionOf(unbiased), keepdim);
}

std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased) {
  return opcore::std_mean(self, std::nullopt, correctionOf(unbiased), false);
}

std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return opcore::std_mean(self, dim, correctionOf(unbiased), keepdim);
}

// norm of every element (PyTorch's CompositeExplicitAutograd kernels): linalg_vector_norm.
Tensor norm(const Tensor& self, const std::optional<Scalar>& p, ScalarType dtype) {
  OPCORE_CHECK(isFloatingType(self.scalar_type()) || isComplexType(self.scalar_type()),
               "norm(): input dtype should be either floating point or complex. Got ", self.scalar_type(), " instead.");
  return opcore::linalg_vector_norm(self, p.value_or(Scalar(2.0)), std::nullopt, false, dtype);
}

Tensor norm(const Tensor& self, const Scalar& p) {
  OPCORE_CHECK(isFloatingType(self.scalar_type()) || isComplexType(self.scalar_type()),
               "norm(): input dtype should be either floating point or complex. Got ", self.scalar_type(), " instead.");
  return opcore::linalg_vector_norm(self, p, std::nullopt, false, std::nullopt);
}

}  // namespace opcore::native
