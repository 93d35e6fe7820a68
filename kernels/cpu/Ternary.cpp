// CPU kernels of the clamping and ternary pointwise operators of issue #33: the impls of the
// structured clamp (number and tensor bounds), clamp_min, clamp_max, lerp, addcmul and addcdiv
// (meta functions in common/BinaryMeta.cpp), on the element functions of
// common/pointwise/Binary.h.
#include <opcore/ops/addcdiv_native.h>
#include <opcore/ops/addcmul_native.h>
#include <opcore/ops/clamp_max_native.h>
#include <opcore/ops/clamp_min_native.h>
#include <opcore/ops/clamp_native.h>
#include <opcore/ops/lerp_native.h>

#include "common/ClampType.h"
#include "common/TypePromotion.h"
#include "common/pointwise/Binary.h"
#include "cpu/Loops.h"
#include "common/Wrapping.h"

#include <cmath>

namespace opcore::native {

using cpu::ElementwiseOp;
namespace pw = pointwise;

namespace {


}  // namespace

// --- clamp with number bounds (Note [Clamp and NaN] in common/pointwise/Binary.h) -------------

void clamp_out(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max,
               const Tensor& out) {
  const ScalarType dtype = clampType(self, min, max);
  ElementwiseOp op("clamp", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, "clamp", [&] {
    using M = opmath_t<scalar_t>;
    const M lo = min ? static_cast<M>(min->to<scalar_t>()) : M(0);
    const M hi = max ? static_cast<M>(max->to<scalar_t>()) : M(0);
    if (min && max && (pw::isNan(lo) || pw::isNan(hi))) {
      op.run<scalar_t, scalar_t>([lo, hi](M) { return pw::isNan(lo) ? lo : hi; });
    } else if (min && max) {
      op.run<scalar_t, scalar_t>([lo, hi](M x) { return pw::clampScalar(x, lo, hi, true, true); });
    } else if (min) {
      op.run<scalar_t, scalar_t>([lo](M x) { return pw::clampMinScalar(x, lo); });
    } else {
      op.run<scalar_t, scalar_t>([hi](M x) { return pw::clampMaxScalar(x, hi); });
    }
  });
}

void clamp_min_out(const Tensor& self, const Scalar& min, const Tensor& out) {
  clamp_out(self, min, std::nullopt, out);
}
void clamp_max_out(const Tensor& self, const Scalar& max, const Tensor& out) {
  clamp_out(self, std::nullopt, max, out);
}

// --- clamp with tensor bounds: NaN anywhere gives NaN (maximum, then minimum) -----------------

void clamp_Tensor_out(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max,
                      const Tensor& out) {
  const bool has_min = min && min->defined(), has_max = max && max->defined();
  const ScalarType dtype = clampType(self, min, max);
  if (has_min && has_max) {
    ElementwiseOp op("clamp", out, dtype, {{self, dtype}, {*min, dtype}, {*max, dtype}});
    OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, "clamp", [&] {
      using M = opmath_t<scalar_t>;
      op.run<scalar_t, scalar_t, scalar_t, scalar_t>(
          [](M x, M lo, M hi) { return pw::minimum(pw::maximum(x, lo), hi); });
    });
    return;
  }
  const Tensor& bound = has_min ? *min : *max;
  ElementwiseOp op("clamp", out, dtype, {{self, dtype}, {bound, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, "clamp", [&] {
    using M = opmath_t<scalar_t>;
    if (has_min) {
      op.run<scalar_t, scalar_t, scalar_t>([](M x, M lo) { return pw::maximum(x, lo); });
    } else {
      op.run<scalar_t, scalar_t, scalar_t>([](M x, M hi) { return pw::minimum(x, hi); });
    }
  });
}

void clamp_min_Tensor_out(const Tensor& self, const Tensor& min, const Tensor& out) {
  clamp_Tensor_out(self, min, std::nullopt, out);
}
void clamp_max_Tensor_out(const Tensor& self, const Tensor& max, const Tensor& out) {
  clamp_Tensor_out(self, std::nullopt, max, out);
}

// --- lerp (Note [Lerp from the nearer end]) ---------------------------------------------------

void lerp_Scalar(const Tensor& self, const Tensor& end, const Scalar& weight, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("lerp", out, dtype, {{self, dtype}, {end, dtype}});
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, "lerp", [&] {
    using M = opmath_t<scalar_t>;
    const M w = weight.to<M>();
    const bool small = pw::magnitude(w) < 0.5;
    op.run<scalar_t, scalar_t, scalar_t>([w, small](M a, M b) { return pw::lerp(a, b, w, small); });
  });
}

void lerp_Tensor(const Tensor& self, const Tensor& end, const Tensor& weight, const Tensor& out) {
  const ScalarType dtype = self.scalar_type();
  ElementwiseOp op("lerp", out, dtype, {{self, dtype}, {end, dtype}, {weight, dtype}});
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, "lerp", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t, scalar_t, scalar_t>(
        [](M a, M b, M w) { return pw::lerp(a, b, w, pw::magnitude(w) < 0.5); });
  });
}

// --- addcmul, addcdiv: self + value * tensor1 (* or /) tensor2 --------------------------------

void addcmul_out(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                 const Tensor& out) {
  ResultTypeState state;
  state.add(self);
  state.add(tensor1);
  state.add(tensor2);
  const ScalarType dtype = state.result();
  ElementwiseOp op("addcmul", out, dtype, {{self, dtype}, {tensor1, dtype}, {tensor2, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, "addcmul", [&] {
    using M = opmath_t<scalar_t>;
    const M v = static_cast<M>(value.to<scalar_t>());
    op.run<scalar_t, scalar_t, scalar_t, scalar_t>([v](auto s, auto a, auto b) -> M {  // auto: discards the branch
      // Real floats: one rounding for the last product and the sum, as torch's kernel computes
      // it, written out so that every build gives it (the compiler would fuse it in some
      // builds and not in others: extreme values then differ, inf against NaN).
      if constexpr (std::is_floating_point_v<M>) {
        return std::fma(v * a, b, s);
      } else {
        return wrappingAdd(s, wrappingMul(wrappingMul(v, a), b));
      }
    });
  });
}

void addcdiv_out(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value,
                 const Tensor& out) {
  ResultTypeState state;
  state.add(self);
  state.add(tensor1);
  state.add(tensor2);
  const ScalarType dtype = state.result();
  ElementwiseOp op("addcdiv", out, dtype, {{self, dtype}, {tensor1, dtype}, {tensor2, dtype}});
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, "addcdiv", [&] {
    using M = opmath_t<scalar_t>;
    const M v = value.to<M>();
    op.run<scalar_t, scalar_t, scalar_t, scalar_t>([v](M s, M a, M b) { return s + v * a / b; });
  });
}

}  // namespace opcore::native
