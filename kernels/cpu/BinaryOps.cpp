// CPU kernels of the binary pointwise operators of issue #33: the impls of the structured
// atan2, hypot, copysign, bitwise and / or / xor, the shifts, fmod, remainder, maximum and
// minimum (their meta functions are in common/BinaryMeta.cpp), and the unstructured
// logical_and / or / xor and floor_divide. The element functions are those of
// common/pointwise/Binary.h.
#include <opcore/ops/atan2_native.h>
#include <opcore/ops/bitwise_and_native.h>
#include <opcore/ops/bitwise_left_shift_native.h>
#include <opcore/ops/bitwise_or_native.h>
#include <opcore/ops/bitwise_right_shift_native.h>
#include <opcore/ops/bitwise_xor_native.h>
#include <opcore/ops/copysign_native.h>
#include <opcore/ops/floor_divide_native.h>
#include <opcore/ops/fmod_native.h>
#include <opcore/ops/hypot_native.h>
#include <opcore/ops/logical_and_native.h>
#include <opcore/ops/logical_or_native.h>
#include <opcore/ops/logical_xor_native.h>
#include <opcore/ops/maximum_native.h>
#include <opcore/ops/minimum_native.h>
#include <opcore/ops/remainder_native.h>

#include "common/Shape.h"
#include "common/TypePromotion.h"
#include "common/pointwise/Binary.h"
#include "cpu/Loops.h"

#include <atomic>
#include <type_traits>

namespace opcore::native {

using cpu::ElementwiseOp;
namespace pw = pointwise;

namespace {

// Note [Integer division by zero]
// fmod, remainder and floor division of integers by zero raise PyTorch's "ZeroDivisionError"
// (a RuntimeError). The element functions report it through a flag (Note [nvcc-clean pointwise
// headers] in common/pointwise/Binary.h); each element that hits it sets a shared atomic, which
// is checked once the loop is done (the output then holds zeros there, as it is an error).
template <typename T, typename Fn>
void runDivisionLike(ElementwiseOp& op, Fn fn) {
  using M = opmath_t<T>;
  if constexpr (std::is_integral_v<T>) {
    std::atomic<bool> by_zero{false};
    op.run<T, T, T>([&by_zero, fn](T a, T b) {
      bool zero = false;
      const T r = fn(a, b, &zero);
      if (zero) by_zero.store(true, std::memory_order_relaxed);
      return r;
    });
    OPCORE_CHECK(!by_zero.load(), "ZeroDivisionError");
  } else {
    op.run<T, T, T>([fn](M a, M b) {
      bool unused = false;
      return fn(a, b, &unused);
    });
  }
}

struct FmodFn {
  template <typename T>
  T operator()(T a, T b, bool* z) const { return pw::fmod(a, b, z); }
};
struct RemainderFn {
  template <typename T>
  T operator()(T a, T b, bool* z) const { return pw::remainder(a, b, z); }
};
struct FloorDivideFn {
  template <typename T>
  T operator()(T a, T b, bool* z) const { return pw::floorDivide(a, b, z); }
};

template <typename Fn>
void divisionLikeOut(const char* name, const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op(name, out, dtype, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] { runDivisionLike<scalar_t>(op, Fn()); });
}

// In-place forms of unstructured operators: self must already have the broadcast shape.
void checkInplaceShape(const Tensor& self, const Tensor& other) {
  const DimVector shape = broadcastShapes(self.sizes(), other.sizes());
  OPCORE_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
}

// logical_*: nonzero is true; the result is Bool, converted to out's dtype when it has another.
template <typename Op>
void logicalOut(const char* name, const Tensor& self, const Tensor& other, const Tensor& out, Op logical) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op(name, out, ScalarType::Bool, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] {
    using M = opmath_t<scalar_t>;
    op.run<bool, scalar_t, scalar_t>(
        [logical](M a, M b) { return logical(static_cast<bool>(a), static_cast<bool>(b)); });
  });
}

}  // namespace

// --- floating functions -----------------------------------------------------------------------

void atan2_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = toFloatingType(resultType(self, other));
  ElementwiseOp op("atan2", out, dtype, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "atan2", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t, scalar_t>([](M a, M b) { return pw::atan2(a, b); });
  });
}

void hypot_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op("hypot", out, dtype, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "hypot", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t, scalar_t>([](M a, M b) { return pw::hypot(a, b); });
  });
}

void copysign_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = toFloatingType(resultType(self, other));
  ElementwiseOp op("copysign", out, dtype, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, "copysign", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t, scalar_t>([](M a, M b) { return pw::copysign(a, b); });
  });
}

// --- bitwise and shifts -----------------------------------------------------------------------

namespace {

// Integral and bool (the shifts: integral only), computed in the promoted dtype.
template <bool kWithBool, typename Fn>
void bitwiseOut(const char* name, const Tensor& self, const Tensor& other, const Tensor& out, Fn fn) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op(name, out, dtype, {{self, dtype}, {other, dtype}});
  const auto body = [&](auto tag) {
    using T = decltype(tag);
    op.run<T, T, T>([fn](T a, T b) { return fn(a, b); });
  };
  if constexpr (kWithBool) {
    OPCORE_DISPATCH_INTEGRAL_TYPES_AND(kBool, dtype, name, [&] { body(scalar_t()); });
  } else {
    OPCORE_DISPATCH_INTEGRAL_TYPES(dtype, name, [&] { body(scalar_t()); });
  }
}

}  // namespace

void bitwise_and_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  bitwiseOut<true>("bitwise_and", self, other, out, [](auto a, auto b) { return pw::bitwiseAnd(a, b); });
}
void bitwise_or_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  bitwiseOut<true>("bitwise_or", self, other, out, [](auto a, auto b) { return pw::bitwiseOr(a, b); });
}
void bitwise_xor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  bitwiseOut<true>("bitwise_xor", self, other, out, [](auto a, auto b) { return pw::bitwiseXor(a, b); });
}
void bitwise_left_shift_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  bitwiseOut<false>("bitwise_left_shift", self, other, out, [](auto a, auto b) { return pw::shiftLeft(a, b); });
}
void bitwise_right_shift_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  bitwiseOut<false>("bitwise_right_shift", self, other, out, [](auto a, auto b) { return pw::shiftRight(a, b); });
}

// --- logical ----------------------------------------------------------------------------------

Tensor& logical_and_out(const Tensor& self, const Tensor& other, Tensor& out) {
  logicalOut("logical_and", self, other, out, [](bool a, bool b) { return a && b; });
  return out;
}
Tensor& logical_or_out(const Tensor& self, const Tensor& other, Tensor& out) {
  logicalOut("logical_or", self, other, out, [](bool a, bool b) { return a || b; });
  return out;
}
Tensor& logical_xor_out(const Tensor& self, const Tensor& other, Tensor& out) {
  logicalOut("logical_xor", self, other, out, [](bool a, bool b) { return a != b; });
  return out;
}

// --- division-like ----------------------------------------------------------------------------

void fmod_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  divisionLikeOut<FmodFn>("fmod", self, other, out);
}
void remainder_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  divisionLikeOut<RemainderFn>("remainder", self, other, out);
}

Tensor& floor_divide_out(const Tensor& self, const Tensor& other, Tensor& out) {
  divisionLikeOut<FloorDivideFn>("floor_divide", self, other, out);
  return out;
}
Tensor floor_divide(const Tensor& self, const Tensor& other) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op("floor_divide", TensorBase(), dtype, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, "floor_divide",
                                 [&] { runDivisionLike<scalar_t>(op, FloorDivideFn()); });
  return op.output();
}
Tensor& floor_divide_(Tensor& self, const Tensor& other) {
  checkInplaceShape(self, other);
  checkCanCast(resultType(self, other), self.scalar_type());
  divisionLikeOut<FloorDivideFn>("floor_divide", self, other, self);
  return self;
}

// --- maximum, minimum -------------------------------------------------------------------------

void maximum_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op("maximum", out, dtype, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, dtype, "maximum", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t, scalar_t>([](M a, M b) { return pw::maximum(a, b); });
  });
}
void minimum_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  const ScalarType dtype = resultType(self, other);
  ElementwiseOp op("minimum", out, dtype, {{self, dtype}, {other, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, dtype, "minimum", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t, scalar_t>([](M a, M b) { return pw::minimum(a, b); });
  });
}

}  // namespace opcore::native
