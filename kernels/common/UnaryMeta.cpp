// The meta functions of the structured unary pointwise operators of issue #33 (Note
// [Structured kernels] in gen/api/structured.py): the result's shape, dtype and device, and
// PyTorch's checks. The float functions give integer and bool inputs the default float dtype;
// the rounding functions, frac, sgn and bitwise_not keep self's dtype.
#include <opcore/core/Empty.h>
#include <opcore/ops/acos_native.h>
#include <opcore/ops/acosh_native.h>
#include <opcore/ops/asin_native.h>
#include <opcore/ops/asinh_native.h>
#include <opcore/ops/atan_native.h>
#include <opcore/ops/atanh_native.h>
#include <opcore/ops/bitwise_not_native.h>
#include <opcore/ops/ceil_native.h>
#include <opcore/ops/cos_native.h>
#include <opcore/ops/cosh_native.h>
#include <opcore/ops/erf_native.h>
#include <opcore/ops/erfinv_native.h>
#include <opcore/ops/exp2_native.h>
#include <opcore/ops/expm1_native.h>
#include <opcore/ops/floor_native.h>
#include <opcore/ops/frac_native.h>
#include <opcore/ops/isinf_native.h>
#include <opcore/ops/isnan_native.h>
#include <opcore/ops/log10_native.h>
#include <opcore/ops/log1p_native.h>
#include <opcore/ops/log2_native.h>
#include <opcore/ops/logical_not_native.h>
#include <opcore/ops/nan_to_num_native.h>
#include <opcore/ops/reciprocal_native.h>
#include <opcore/ops/round_native.h>
#include <opcore/ops/rsqrt_native.h>
#include <opcore/ops/sgn_native.h>
#include <opcore/ops/sin_native.h>
#include <opcore/ops/sinh_native.h>
#include <opcore/ops/tan_native.h>
#include <opcore/ops/trunc_native.h>

#include "common/TypePromotion.h"

namespace opcore::meta {

using native::toFloatingType;

namespace {

TensorSpec unarySame(const Tensor& self) {
  return {std::vector<int64_t>(self.sizes().begin(), self.sizes().end()), self.scalar_type(), self.device()};
}

TensorSpec unaryFloat(const Tensor& self) {
  return {std::vector<int64_t>(self.sizes().begin(), self.sizes().end()), toFloatingType(self.scalar_type()),
          self.device()};
}

// ceil, floor and trunc: PyTorch's message (round and frac refuse complex in their kernels).
TensorSpec unaryRounding(const char* name, const Tensor& self) {
  OPCORE_CHECK(!isComplexType(self.scalar_type()), name, " is not supported for complex inputs");
  return unarySame(self);
}

}  // namespace

acos_out acos(const Tensor& self) { return {unaryFloat(self)}; }
acosh_out acosh(const Tensor& self) { return {unaryFloat(self)}; }
asin_out asin(const Tensor& self) { return {unaryFloat(self)}; }
asinh_out asinh(const Tensor& self) { return {unaryFloat(self)}; }
atan_out atan(const Tensor& self) { return {unaryFloat(self)}; }
atanh_out atanh(const Tensor& self) { return {unaryFloat(self)}; }
cos_out cos(const Tensor& self) { return {unaryFloat(self)}; }
cosh_out cosh(const Tensor& self) { return {unaryFloat(self)}; }
erf_out erf(const Tensor& self) { return {unaryFloat(self)}; }
erfinv_out erfinv(const Tensor& self) { return {unaryFloat(self)}; }
exp2_out exp2(const Tensor& self) { return {unaryFloat(self)}; }
expm1_out expm1(const Tensor& self) { return {unaryFloat(self)}; }
log10_out log10(const Tensor& self) { return {unaryFloat(self)}; }
log1p_out log1p(const Tensor& self) { return {unaryFloat(self)}; }
log2_out log2(const Tensor& self) { return {unaryFloat(self)}; }
reciprocal_out reciprocal(const Tensor& self) { return {unaryFloat(self)}; }
rsqrt_out rsqrt(const Tensor& self) { return {unaryFloat(self)}; }
sin_out sin(const Tensor& self) { return {unaryFloat(self)}; }
sinh_out sinh(const Tensor& self) { return {unaryFloat(self)}; }
tan_out tan(const Tensor& self) { return {unaryFloat(self)}; }

ceil_out ceil(const Tensor& self) { return {unaryRounding("ceil", self)}; }
floor_out floor(const Tensor& self) { return {unaryRounding("floor", self)}; }
trunc_out trunc(const Tensor& self) { return {unaryRounding("trunc", self)}; }
round_out round(const Tensor& self) { return {unarySame(self)}; }
round_decimals_out round(const Tensor& self, int64_t decimals) { return {unarySame(self)}; }
frac_out frac(const Tensor& self) { return {unarySame(self)}; }
sgn_out sgn(const Tensor& self) { return {unarySame(self)}; }
bitwise_not_out bitwise_not(const Tensor& self) { return {unarySame(self)}; }

}  // namespace opcore::meta

// Meta kernels of the unary operators that are not structured (as in PyTorch): the result's
// shape and dtype, and the same checks as the CPU kernels.
namespace opcore::native {

Tensor& logical_not_out_meta(const Tensor& self, Tensor& out) {
  detail::resizeOutput(out, self.sizes());
  return out;
}

Tensor& nan_to_num_out_meta(const Tensor& self, std::optional<double>, std::optional<double>,
                            std::optional<double>, Tensor& out) {
  OPCORE_CHECK(out.scalar_type() == self.scalar_type(), "nan_to_num: dtype of out: ", out.scalar_type(),
               " should be same as input: ", self.scalar_type());
  detail::resizeOutput(out, self.sizes());
  return out;
}

Tensor isnan_meta(const Tensor& self) { return detail::empty(self.sizes(), ScalarType::Bool, self.device()); }
Tensor isinf_meta(const Tensor& self) { return detail::empty(self.sizes(), ScalarType::Bool, self.device()); }

}  // namespace opcore::native
