// The CUDA kernels of the reductions named in native_functions.yaml: sum, prod, amax, amin,
// max / min (all, and along a dimension with indices), argmax, argmin, any, all, var, std,
// var_mean, std_mean and the vector norms. Each lays the input out as rows or columns (Note
// [CUDA reductions] in CudaLaunch.h), launches CudaReduceKernels.cu, and writes the results
// into out, with the CPU kernels' dtypes and checks (kernels/cpu/Reduce.cpp, ReduceOps.cpp);
// the structured ones after their meta function.
#include "CudaOperands.h"

#include "common/Shape.h"
#include "cpu/Loops.h"

#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/all_native.h>
#include <opcore/ops/amax_native.h>
#include <opcore/ops/amin_native.h>
#include <opcore/ops/any_native.h>
#include <opcore/ops/argmax_native.h>
#include <opcore/ops/argmin_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/imag.h>
#include <opcore/ops/linalg_vector_norm_native.h>
#include <opcore/ops/max_native.h>
#include <opcore/ops/min_native.h>
#include <opcore/ops/norm_native.h>
#include <opcore/ops/prod_native.h>
#include <opcore/ops/real.h>
#include <opcore/ops/std_mean_native.h>
#include <opcore/ops/std_native.h>
#include <opcore/ops/sum_native.h>
#include <opcore/ops/var_mean_native.h>
#include <opcore/ops/var_native.h>

#include <tuple>
#include <vector>

namespace opcore::native {
namespace {

using cuda::ReduceOp;

// The input of a reduction over `mask`, laid out for the kernels, and what keeps its memory.
struct Layout {
  Tensor data;  // contiguous
  int64_t rows = 1, cols = 1;
  bool columns = false;
};

Layout layOut(const Tensor& self, const std::vector<bool>& mask) {
  Layout l;
  bool reduced_first = true, seen_kept = false;  // every reduced dimension before every kept one
  for (size_t d = 0; d < mask.size(); ++d) {
    (mask[d] ? l.cols : l.rows) *= self.size(static_cast<int64_t>(d));
    if (!mask[d]) seen_kept = true;
    if (mask[d] && seen_kept) reduced_first = false;
  }
  if (self.is_contiguous() && reduced_first && l.rows > 1 && l.cols > 1) {
    l.data = self;
    l.columns = true;
    return l;
  }
  DimVector sizes, strides;
  for (int pass = 0; pass < 2; ++pass) {  // kept dimensions first, then the reduced ones
    for (size_t d = 0; d < mask.size(); ++d) {
      if (mask[d] != (pass == 1)) continue;
      sizes.push_back(self.size(static_cast<int64_t>(d)));
      strides.push_back(self.stride(static_cast<int64_t>(d)));
    }
  }
  l.data = Tensor(detail::makeView(self, sizes, strides, self.storage_offset())).contiguous();
  return l;
}

// A contiguous buffer for `shape` results of `dtype`: `out` itself when it is one and does not
// share memory with the input, else a new tensor copied into out by finish().
Tensor resultBuffer(const Tensor& out, const Tensor& input, ScalarType dtype) {
  if (out.is_contiguous() && out.scalar_type() == dtype && !cpu::sharesStorage(out, input)) return out;
  return opcore::empty(out.sizes(), out.options().dtype(dtype));
}

void finish(const Tensor& out, const Tensor& buffer) {
  if (!buffer.is_same(out)) out.copy_(buffer);
}

// Reduces `in` over `mask` into out (already of the result's shape, or resized here) and, for
// MaxWithIndex / MinWithIndex, indices (and for Var with means, means).
void reduceInto(ReduceOp op, const char* name, const Tensor& in, const std::vector<bool>& mask, bool keepdim,
                const Tensor& out, const Tensor& indices = Tensor(), const Tensor& means = Tensor(),
                const cuda::PointwiseArgs& args = {}) {
  cpu::checkNoInternalOverlap(out);
  if (indices.defined()) cpu::checkNoInternalOverlap(indices);
  const DeviceGuard guard(in.device());
  const Layout l = layOut(in, mask);
  const DimVector shape = reducedShape(in.sizes(), mask, keepdim);
  detail::resizeOutput(out, shape);
  const Tensor result = resultBuffer(out, l.data, cuda::reduceResultType(op, in.scalar_type()));
  cuda::ReduceProblem p;
  p.in = static_cast<const char*>(l.data.data_ptr());
  p.rows = l.rows;
  p.cols = l.cols;
  p.columns = l.columns;
  p.out = static_cast<char*>(result.data_ptr());
  Tensor index_buffer, mean_buffer;
  if (indices.defined()) {
    detail::resizeOutput(indices, shape);
    index_buffer = resultBuffer(indices, l.data, kLong);
    p.indices = index_buffer.data_ptr<int64_t>();
  }
  if (means.defined()) {
    detail::resizeOutput(means, shape);
    mean_buffer = resultBuffer(means, l.data, in.scalar_type());
    p.means = static_cast<char*>(mean_buffer.data_ptr());
  }
  p.chunks = cuda::reduceChunks(p.rows, p.cols, p.columns);
  Tensor scratch;
  if (p.chunks > 1) {
    scratch = opcore::empty({p.rows * p.chunks * cuda::kReduceAccBytes}, in.options().dtype(kByte));
    p.scratch = scratch.data_ptr();
  }
  cuda::launchReduce(op, name, in.scalar_type(), p, args);
  finish(out, result);
  if (indices.defined()) finish(indices, index_buffer);
  if (means.defined()) finish(means, mean_buffer);
}

std::vector<bool> allDims(const Tensor& self) { return std::vector<bool>(static_cast<size_t>(self.dim()), true); }

std::vector<bool> oneDim(const Tensor& self, int64_t dim) {
  std::vector<bool> mask(static_cast<size_t>(self.dim()), false);
  if (self.dim() > 0) mask[static_cast<size_t>(self.wrapDim(dim))] = true;
  return mask;
}

}  // namespace

// ---- sum, prod: computed in out's dtype, the input converted first (as the CPU's) -----------------

void sum_out_cuda(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                  const Tensor& out) {
  OPCORE_CHECK(!dtype || out.scalar_type() == *dtype, "Expected out tensor to have dtype ", *dtype,
               ", but got ", out.scalar_type(), " instead");
  reduceInto(ReduceOp::Sum, "sum", self.to(out.scalar_type()), reductionMask(dim, self.dim()), keepdim, out);
}

void prod_out_cuda(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype, const Tensor& out) {
  const ScalarType out_dtype = dtype.value_or(out.scalar_type());
  reduceInto(ReduceOp::Prod, "prod", self.to(out_dtype), oneDim(self, dim), keepdim, out);
}

// ---- extremes ------------------------------------------------------------------------------------

void amax_out_cuda(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  reduceInto(ReduceOp::Amax, "amax", self, reductionMask(dim, self.dim()), keepdim, out);
}

void amin_out_cuda(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  reduceInto(ReduceOp::Amin, "amin", self, reductionMask(dim, self.dim()), keepdim, out);
}

void max_out_cuda(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values, const Tensor& indices) {
  OPCORE_CHECK(!cpu::sharesStorage(values, indices), "max(): the values and indices outputs share memory");
  reduceInto(ReduceOp::MaxWithIndex, "max", self, oneDim(self, dim), keepdim, values, indices);
}

void min_out_cuda(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values, const Tensor& indices) {
  OPCORE_CHECK(!cpu::sharesStorage(values, indices), "min(): the values and indices outputs share memory");
  reduceInto(ReduceOp::MinWithIndex, "min", self, oneDim(self, dim), keepdim, values, indices);
}

void argmax_out_cuda(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  reduceInto(ReduceOp::Argmax, "argmax", self, dim ? oneDim(self, *dim) : allDims(self), keepdim, out);
}

void argmin_out_cuda(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  reduceInto(ReduceOp::Argmin, "argmin", self, dim ? oneDim(self, *dim) : allDims(self), keepdim, out);
}

Tensor max_all_cuda(const Tensor& self) {
  OPCORE_CHECK(self.numel() > 0, "max(): Expected reduction dim to be specified for input.numel() == 0. "
               "Specify the reduction dim with the 'dim' argument.");
  Tensor out = opcore::empty({}, self.options());
  reduceInto(ReduceOp::Amax, "max_all", self, allDims(self), false, out);
  return out;
}

Tensor min_all_cuda(const Tensor& self) {
  OPCORE_CHECK(self.numel() > 0, "min(): Expected reduction dim to be specified for input.numel() == 0. "
               "Specify the reduction dim with the 'dim' argument.");
  Tensor out = opcore::empty({}, self.options());
  reduceInto(ReduceOp::Amin, "min_all", self, allDims(self), false, out);
  return out;
}

// ---- any, all -------------------------------------------------------------------------------------

void any_out_cuda(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out) {
  reduceInto(ReduceOp::Any, "any", self, oneDim(self, dim), keepdim, out);
}
void any_dims_out_cuda(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, const Tensor& out) {
  reduceInto(ReduceOp::Any, "any", self, reductionMask(dim, self.dim()), keepdim, out);
}
void any_all_out_cuda(const Tensor& self, const Tensor& out) {
  reduceInto(ReduceOp::Any, "any", self, allDims(self), false, out);
}
void all_out_cuda(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out) {
  reduceInto(ReduceOp::All, "all", self, oneDim(self, dim), keepdim, out);
}
void all_dims_out_cuda(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, const Tensor& out) {
  reduceInto(ReduceOp::All, "all", self, reductionMask(dim, self.dim()), keepdim, out);
}
void all_all_out_cuda(const Tensor& self, const Tensor& out) {
  reduceInto(ReduceOp::All, "all", self, allDims(self), false, out);
}

// ---- var, std and their means (Note [Variance] in kernels/cpu/ReduceOps.cpp) ---------------------

namespace {

void checkVarDtype(const Tensor& self) {
  const ScalarType t = self.scalar_type();
  OPCORE_CHECK(isFloatingType(t) || isComplexType(t), "std and var only support floating point and complex dtypes");
}

void checkMomentsOut(const Tensor& self, const Tensor& out, const char* name) {
  const ScalarType want = toRealValueType(self.scalar_type());
  OPCORE_CHECK(out.scalar_type() == want, name, ": Expected out tensor to have dtype ", want, ", but got ",
               out.scalar_type(), " instead");
  OPCORE_CHECK(out.device() == self.device(), name, ": Expected out tensor to be on ", self.device());
}

cuda::PointwiseArgs momentArgs(const std::optional<Scalar>& correction, bool take_sqrt) {
  cuda::PointwiseArgs args;
  args.scalars[0] = correction.value_or(Scalar(1.0));
  args.flags[0] = take_sqrt;
  return args;
}

// The variance (or with take_sqrt the standard deviation) into out, and the mean into `mean`
// when defined. A complex self's variance is its real part's plus its imaginary part's (the
// squared moduli of the deviations add up), its mean the complex mean.
void momentsInto(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim,
                 bool take_sqrt, const char* name, const Tensor& out, const Tensor& mean) {
  if (!isComplexType(self.scalar_type())) {
    reduceInto(ReduceOp::Var, name, self, reductionMask(dim, self.dim()), keepdim, out, Tensor(), mean,
               momentArgs(correction, take_sqrt));
    return;
  }
  const Tensor re = opcore::real(self), im = opcore::imag(self);
  const Tensor var_re = opcore::empty({}, re.options()), var_im = opcore::empty({}, re.options());
  reduceInto(ReduceOp::Var, name, re, reductionMask(dim, re.dim()), keepdim, var_re, Tensor(), Tensor(),
             momentArgs(correction, false));
  reduceInto(ReduceOp::Var, name, im, reductionMask(dim, im.dim()), keepdim, var_im, Tensor(), Tensor(),
             momentArgs(correction, false));
  const Tensor var = var_re.add(var_im);
  detail::resizeOutput(out, var.sizes());
  out.copy_(take_sqrt ? var.sqrt() : var);
  if (mean.defined()) {
    const Tensor m = self.to(ScalarType::ComplexDouble).mean(dim, keepdim);  // summed in double, as on the CPU
    detail::resizeOutput(mean, m.sizes());
    mean.copy_(m);
  }
}

std::tuple<Tensor, Tensor> moments(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction,
                                   bool keepdim, bool take_sqrt, bool with_mean, const char* name) {
  checkVarDtype(self);
  Tensor out = opcore::empty({}, self.options().dtype(toRealValueType(self.scalar_type())));
  Tensor mean = with_mean ? opcore::empty({}, self.options()) : Tensor();
  momentsInto(self, dim, correction, keepdim, take_sqrt, name, out, mean);
  return {out, mean};
}

}  // namespace

Tensor var_cuda(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  return std::get<0>(moments(self, dim, correction, keepdim, false, false, "var"));
}

Tensor std_cuda(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim) {
  return std::get<0>(moments(self, dim, correction, keepdim, true, false, "std"));
}

Tensor& var_out_cuda(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim,
                     Tensor& out) {
  checkVarDtype(self);
  checkMomentsOut(self, out, "var");
  momentsInto(self, dim, correction, keepdim, false, "var", out, Tensor());
  return out;
}

Tensor& std_out_cuda(const Tensor& self, OptionalIntArrayRef dim, const std::optional<Scalar>& correction, bool keepdim,
                     Tensor& out) {
  checkVarDtype(self);
  checkMomentsOut(self, out, "std");
  momentsInto(self, dim, correction, keepdim, true, "std", out, Tensor());
  return out;
}

std::tuple<Tensor, Tensor> var_mean_cuda(const Tensor& self, OptionalIntArrayRef dim,
                                         const std::optional<Scalar>& correction, bool keepdim) {
  return moments(self, dim, correction, keepdim, false, true, "var_mean");
}

std::tuple<Tensor, Tensor> std_mean_cuda(const Tensor& self, OptionalIntArrayRef dim,
                                         const std::optional<Scalar>& correction, bool keepdim) {
  return moments(self, dim, correction, keepdim, true, true, "std_mean");
}

// ---- vector norms ---------------------------------------------------------------------------------

namespace {
void vectorNormInto(const Tensor& self, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                    std::optional<ScalarType> dtype, const Tensor& out, const char* name) {
  const Tensor converted = dtype ? self.to(*dtype) : self;
  // a complex vector's norm is that of its elements' moduli
  const Tensor in = isComplexType(converted.scalar_type()) ? converted.abs() : converted;
  cuda::PointwiseArgs args;
  args.scalars[0] = ord;
  reduceInto(ReduceOp::Norm, name, in, reductionMask(dim, in.dim()), keepdim, out, Tensor(), Tensor(), args);
}
}  // namespace

void linalg_vector_norm_out_cuda(const Tensor& self, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                                 std::optional<ScalarType> dtype, const Tensor& out) {
  vectorNormInto(self, ord, dim, keepdim, dtype, out, "linalg_vector_norm");
}

void norm_out_cuda(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
                   const Tensor& out) {
  vectorNormInto(self, p.value_or(Scalar(2.0)), dim, keepdim, std::nullopt, out, "norm");
}

void norm_dtype_out_cuda(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
                         ScalarType dtype, const Tensor& out) {
  vectorNormInto(self, p.value_or(Scalar(2.0)), dim, keepdim, dtype, out, "norm");
}

}  // namespace opcore::native
