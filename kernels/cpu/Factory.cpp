// CPU factory and filling kernels: empty_cpu, arange_out, fill_ and copy_ (broadcasting,
// dtype-converting, safe when source and destination overlap).
#include <opcore/ops/arange.h>
#include <opcore/ops/arange_native.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/copy_native.h>
#include <opcore/ops/empty_native.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/fill_native.h>

#include "common/Shape.h"
#include "cpu/Loops.h"
#include "cpu/ScalarConvert.h"

namespace opcore::native {

using cpu::LoopPlan;

Tensor empty_cpu(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  OPCORE_CHECK(!device || device->is_cpu(), "empty_cpu: asked for a tensor on ", *device);
  return detail::emptyCpu(size, dtype.value_or(kDefaultFloat));
}

Tensor& arange_out(const Scalar& start, const Scalar& end, const Scalar& step, Tensor& out) {
  cpu::checkCpu("arange", {&out});
  const int64_t n = arangeLength(start, end, step);
  const bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  detail::resizeOutput(out, {n});
  if (n == 0) return out;
  const int64_t stride = out.stride(0);
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, out.scalar_type(), "arange", [&] {
    scalar_t* p = out.data_ptr<scalar_t>();
    if (integral) {
      const int64_t s = start.toLong(), st = step.toLong();
      for (int64_t i = 0; i < n; ++i) p[i * stride] = static_cast<scalar_t>(s + i * st);
    } else {
      // Each value from the start (not by repeated addition), so errors do not accumulate.
      const double s = start.toDouble(), st = step.toDouble();
      for (int64_t i = 0; i < n; ++i) p[i * stride] = static_cast<scalar_t>(s + static_cast<double>(i) * st);
    }
  });
  return out;
}

Tensor& fill_(Tensor& self, const Scalar& value) {
  cpu::checkCpu("fill_", {&self});
  const LoopPlan plan(self.sizes(), {&self});
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), "fill_", [&] {
    const scalar_t v = cpu::checkedConvert<scalar_t>(value);
    cpu::runElementwise<scalar_t>(plan, [v]() { return v; });
  });
  return self;
}

Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking) {
  cpu::checkCpu("copy_", {&self, &src});
  const DimVector shape = broadcastShapes(self.sizes(), src.sizes());
  OPCORE_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
  if (self.numel() == 0 || cpu::sameLayout(self, src)) return self;
  cpu::checkNoInternalOverlap(self);
  if (cpu::sharesStorage(self, src)) {
    // Reading src while writing self would see half-updated values: go through a copy.
    TensorBase tmp = detail::emptyCpu(src.sizes(), src.scalar_type());
    cpu::copyInto(tmp, src);
    cpu::copyInto(self, tmp);
  } else {
    cpu::copyInto(self, src);
  }
  return self;
}

}  // namespace opcore::native
