// max() and min() of every element into out= (max.unary_out, min.unary_out), for every device
// (CPU, CUDA and Meta): the result is computed by the operator for self's device, then checked
// against out, which is resized to 0-dim and given the value.
#include <opcore/core/Empty.h>
#include <opcore/ops/max.h>
#include <opcore/ops/max_native.h>
#include <opcore/ops/min.h>
#include <opcore/ops/min_native.h>

namespace opcore::native {
namespace {

Tensor& unaryOut(const Tensor& result, Tensor& out, const char* name) {
  OPCORE_CHECK(out.device() == result.device(), name, ": Expected out tensor to be on ", result.device(),
               ", but got ", out.device());
  OPCORE_CHECK(canCast(result.scalar_type(), out.scalar_type()), "result type ", result.scalar_type(),
               " can't be cast to the desired output type ", out.scalar_type());
  detail::resizeOutput(out, {});
  if (!out.is_meta()) out.copy_(result);
  return out;
}

}  // namespace

Tensor& max_unary_out(const Tensor& self, Tensor& out) { return unaryOut(opcore::max(self), out, "max"); }

Tensor& min_unary_out(const Tensor& self, Tensor& out) { return unaryOut(opcore::min(self), out, "min"); }

}  // namespace opcore::native
