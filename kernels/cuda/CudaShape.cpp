// The CUDA kernels of the copying shape operators flip, roll, tril and triu, and of linspace and
// repeat_interleave, with the CPU kernels' checks (common/ShapeChecks.h, the meta functions)
// and results (kernels/cpu/Shape.cpp, Factory.cpp).
#include "CudaOperands.h"

#include "common/ShapeChecks.h"
#include "common/pointwise/Shape.h"
#include "cpu/Loops.h"

#include <opcore/ops/empty.h>
#include <opcore/ops/flip_native.h>
#include <opcore/ops/linspace_native.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/repeat_interleave_native.h>
#include <opcore/ops/roll_native.h>
#include <opcore/ops/tril_native.h>
#include <opcore/ops/triu_native.h>
#include <opcore/ops/zeros.h>

#include <vector>

namespace opcore::native {
namespace {

// A new tensor of src's shape and dtype, on its GPU.
Tensor emptyLike(const Tensor& src) { return opcore::empty(src.sizes(), src.options()); }

// src rolled by `shift` along `dim` into a new tensor: two slice copies.
Tensor rollOne(const Tensor& src, int64_t shift, int64_t dim) {
  const Tensor out = emptyLike(src);
  const int64_t n = src.size(dim);
  const int64_t s = pointwise::wrapShift(shift, n);
  if (s == 0) {
    out.copy_(src);
    return out;
  }
  out.narrow(dim, s, n - s).copy_(src.narrow(dim, 0, n - s));
  out.narrow(dim, 0, s).copy_(src.narrow(dim, n - s, s));
  return out;
}

void triangleOut(bool lower, const Tensor& self, int64_t diagonal, const Tensor& out) {
  if (out.numel() == 0) return;
  cpu::checkNoInternalOverlap(out);
  // each element is read by the thread that writes it: out may be self, not another view of it
  const bool direct = out.scalar_type() == self.scalar_type() &&
                      (!cpu::sharesStorage(out, self) || cpu::sameLayout(out, self));
  const Tensor dst = direct ? out : emptyLike(self);
  cuda::launchTriangle(self.scalar_type(), lower, diagonal, self.size(-2), self.size(-1),
                       cuda::stridedOperands<2>(lower ? "tril" : "triu", {&dst, &self}));
  if (!direct) out.copy_(dst);
}

}  // namespace

// A copy through a view of self that starts at the last element of each flipped dimension
// and steps backwards along it (negative byte strides, which the OffsetCalculator takes).
Tensor flip_cuda(const Tensor& self, IntArrayRef dims) {
  const std::vector<bool> mask = flipDims(self, dims);
  const Tensor out = emptyLike(self);
  if (self.numel() == 0) return out;
  const int64_t esize = self.element_size();
  std::vector<int64_t> out_strides(static_cast<size_t>(self.dim())), in_strides(static_cast<size_t>(self.dim()));
  char* src = static_cast<char*>(self.data_ptr());
  for (int64_t k = 0; k < self.dim(); ++k) {
    out_strides[k] = out.stride(k) * esize;
    in_strides[k] = self.stride(k) * esize;
    if (mask[k]) {
      src += (self.size(k) - 1) * in_strides[k];
      in_strides[k] = -in_strides[k];
    }
  }
  cuda::StridedOperands<2> ops;
  ops.data[0] = static_cast<char*>(out.data_ptr());
  ops.data[1] = src;
  for (int k = 0; k < 2; ++k) {
    ops.dtypes[k] = self.scalar_type();
    ops.element_sizes[k] = esize;
  }
  ops.numel = self.numel();
  const int64_t* strides[2] = {out_strides.data(), in_strides.data()};
  OPCORE_CHECK(OffsetCalculator<2>::make(static_cast<int>(self.dim()), self.sizes().data(), strides, ops.offsets),
               "flip (CUDA): more than ", kMaxOffsetDims, " dimensions remain after merging; not supported");
  cuda::launchCopy(self.scalar_type(), ops);
  return out;
}

Tensor roll_cuda(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  checkRollArguments(self, shifts, dims);
  if (self.numel() == 0 || self.dim() == 0) return self.clone();
  if (dims.empty()) return rollOne(self.reshape({-1}), shifts[0], 0).view(self.sizes());  // flattened
  Tensor result = self;
  for (size_t i = 0; i < dims.size(); ++i) result = rollOne(result, shifts[i], self.wrapDim(dims[i]));
  return result;
}

void tril_out_cuda(const Tensor& self, int64_t diagonal, const Tensor& out) { triangleOut(true, self, diagonal, out); }

void triu_out_cuda(const Tensor& self, int64_t diagonal, const Tensor& out) { triangleOut(false, self, diagonal, out); }

Tensor& linspace_out_cuda(const Scalar& start, const Scalar& end, int64_t steps, Tensor& out) {
  linspace_out_meta(start, end, steps, out);  // checks steps, resizes out
  if (steps == 0) return out;
  if (steps == 1) {
    out.fill_(start);
    return out;
  }
  cuda::launchLinspace(out.scalar_type(), static_cast<char*>(out.data_ptr()), out.stride(0), steps, start, end);
  return out;
}

// Position k of the result holds the number of the repeats' running sums at or below k: a
// mark at each running sum (index_add: a repeat of 0 marks one place twice), then their
// running sum. The total and the checks are read back (the result's size depends on them).
Tensor repeat_interleave_cuda(const Tensor& repeats, std::optional<int64_t> output_size) {
  OPCORE_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  const ScalarType type = repeats.scalar_type();
  OPCORE_CHECK(type == ScalarType::Long || type == ScalarType::Int, "repeats has to be Long or Int tensor, got ",
               toString(type));
  const Tensor counts = repeats.to(ScalarType::Long);
  OPCORE_CHECK(counts.numel() == 0 || counts.min().item<int64_t>() >= 0, "repeats can not be negative");
  // the sum in double too: a total past int64_t's range is an error, as on the CPU
  OPCORE_CHECK(counts.to(ScalarType::Double).sum().item<double>() < 9223372036854775807.0,
               "repeat_interleave: the repeats' sum overflows int64_t");
  const Tensor ends = counts.cumsum(0);
  const int64_t total = counts.numel() == 0 ? 0 : ends.select(0, counts.numel() - 1).item<int64_t>();
  OPCORE_CHECK(!output_size || *output_size == total, "allocated size does not match required size: output_size is ",
               output_size.value_or(0), " but the repeats sum to ", total);
  const Tensor marks = opcore::zeros({total + 1}, counts.options());
  marks.index_add_(0, ends, opcore::ones({counts.numel()}, counts.options()));
  return marks.narrow(0, 0, total).cumsum(0).to(type);
}

}  // namespace opcore::native
