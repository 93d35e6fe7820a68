// The CUDA kernels of cumsum and cumprod (the impls of the structured cumsum.out and
// cumprod.out, after their meta functions): the CPU kernels' dtypes and checks
// (kernels/cpu/Scan.cpp), the scan in CudaScanKernels.cu.
#include "CudaOperands.h"

#include "cpu/Loops.h"

#include <opcore/ops/cumprod_native.h>
#include <opcore/ops/cumsum_native.h>
#include <opcore/core/Empty.h>
#include <opcore/ops/empty.h>

#include <algorithm>
#include <optional>

namespace opcore::native {
namespace {

void scanInto(bool sum, const char* name, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype,
              const Tensor& out) {
  cpu::checkNoInternalOverlap(out);
  const ScalarType out_dtype = dtype.value_or(out.scalar_type());
  Tensor in = self.to(out_dtype).contiguous();
  // Each element is read by the thread that writes it, before it writes it: a result written
  // over its own input is safe. An out that shares the input's memory otherwise (or is to be
  // resized: the structured wrapper leaves that to the kernel then) gets a copy of the input.
  if (cpu::sharesStorage(in, out) && !cpu::sameLayout(in, out)) in = in.clone();
  detail::resizeOutput(out, in.sizes());
  const bool direct = out.is_contiguous() && out.scalar_type() == out_dtype;
  const Tensor result = direct ? out : opcore::empty(in.sizes(), out.options().dtype(out_dtype));
  cuda::ScanProblem p;
  p.in = static_cast<const char*>(in.data_ptr());
  p.out = static_cast<char*>(result.data_ptr());
  if (in.dim() > 0) {
    p.len = in.size(dim);
    for (int64_t k = 0; k < dim; ++k) p.outer *= in.size(k);
    for (int64_t k = dim + 1; k < in.dim(); ++k) p.inner *= in.size(k);
  }
  cuda::launchScan(sum, name, out_dtype, p);
  if (!result.is_same(out)) out.copy_(result);
}

}  // namespace

void cumsum_out_cuda(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  scanInto(true, "cumsum", self, dim, dtype, out);
}

void cumprod_out_cuda(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& out) {
  scanInto(false, "cumprod", self, dim, dtype, out);
}

}  // namespace opcore::native
