// The CUDA kernels of the copying shape operators flip, roll, tril and triu, and of linspace,
// with the CPU kernels' checks (common/ShapeChecks.h, the meta functions) and results
// (kernels/cpu/Shape.cpp, Factory.cpp).
#include "CudaOperands.h"

#include "common/ShapeChecks.h"
#include "common/pointwise/Shape.h"
#include "cpu/Loops.h"

#include <opcore/ops/empty.h>
#include <opcore/ops/flip_native.h>
#include <opcore/ops/linspace_native.h>
#include <opcore/ops/roll_native.h>
#include <opcore/ops/tril_native.h>
#include <opcore/ops/triu_native.h>

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

}  // namespace opcore::native
