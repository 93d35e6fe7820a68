// CPU kernels of pow (issue #33): the impls of the structured pow.Tensor_Tensor,
// pow.Tensor_Scalar and pow.Scalar (meta functions in common/BinaryMeta.cpp). Integers by
// squaring (Note [Integer powers] in common/pointwise/Binary.h), floats and complex numbers
// with Binary.h's powFloat (std::pow) in opmath_t; a number exponent of 2, 3, -2, 0.5,
// -0.5 or -1 takes the shortcuts PyTorch's kernel takes (x * x, sqrt, 1 / x, ...).
#include <opcore/ops/pow_native.h>

#include "common/TypePromotion.h"
#include "common/pointwise/Binary.h"
#include "cpu/Loops.h"
#include "cpu/VecPow.h"

#include <cmath>
#include <complex>
#include <type_traits>

namespace opcore::native {

using cpu::ElementwiseOp;
namespace pw = pointwise;

namespace {

template <typename M>
M powValue(M a, M b) {
  if constexpr (std::is_integral_v<M>) {
    return pw::powInt(a, b);
  } else {
    return pw::powFloat(a, b);
  }
}

template <typename M>
M complexSqrt(M x) {
  if constexpr (is_complex_v<M>) {
    return opcore::sqrt(x);
  } else {
    return std::sqrt(x);
  }
}

// Note [Vectorized pow]
// float and double pow of contiguous operands of one shape (the common case, and the
// benchmark's) go to SLEEF's vector pow, within 1 ulp as std::pow, several times faster (torch
// does the same); any other layout or dtype takes the elementwise loop. `exponent` null: the
// number `e` for every element.
template <typename T>
bool tryVecPow(const Tensor& self, const Tensor* exponent, T e, const Tensor& out) {
  const bool dense = out.scalar_type() == CppTypeToScalarType<T>::value && self.scalar_type() == out.scalar_type() &&
                     out.is_contiguous() && self.is_contiguous() && self.sizes() == out.sizes() &&
                     (exponent == nullptr || (exponent->scalar_type() == out.scalar_type() &&
                                              exponent->is_contiguous() && exponent->sizes() == out.sizes()));
  // An operand overlapping out in another place (not the same elements) takes the loop, which
  // reads such inputs before writing.
  const auto apart = [&](const Tensor& t) { return !cpu::sharesStorage(t, out) || t.data_ptr() == out.data_ptr(); };
  if (!dense || !apart(self) || (exponent != nullptr && !apart(*exponent))) return false;
  const T* a = self.data_ptr<T>();
  const T* b = exponent ? exponent->data_ptr<T>() : nullptr;
  T* r = out.data_ptr<T>();
  parallel_for(0, out.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
    if (b) {
      cpu::vecPow(a + begin, b + begin, r + begin, end - begin);
    } else {
      cpu::vecPow(a + begin, e, r + begin, end - begin);
    }
  });
  return true;
}

void powTensorTensor(const Tensor& self, const Tensor& exponent, const Tensor& out, ScalarType dtype) {
  if (dtype == kFloat && tryVecPow<float>(self, &exponent, 0.0f, out)) return;
  if (dtype == kDouble && tryVecPow<double>(self, &exponent, 0.0, out)) return;
  ElementwiseOp op("pow", out, dtype, {{self, dtype}, {exponent, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, "pow", [&] {
    using M = opmath_t<scalar_t>;
    op.run<scalar_t, scalar_t, scalar_t>([](M a, M b) { return powValue<M>(a, b); });
  });
}

template <typename T>
void powTensorScalar(ElementwiseOp& op, const Scalar& exponent) {
  using M = opmath_t<T>;
  if constexpr (std::is_integral_v<T>) {
    const T e = exponent.to<T>();
    op.run<T, T>([e](T x) { return pw::powInt(x, e); });
  } else {
    const M e = exponent.to<M>();
    const M one(1);
    if (e == M(2)) {
      op.run<T, T>([](M x) { return x * x; });
    } else if (e == M(3)) {
      op.run<T, T>([](M x) { return x * x * x; });
    } else if (e == M(-2)) {
      op.run<T, T>([one](M x) { return one / (x * x); });
    } else if (e == M(0.5)) {
      op.run<T, T>([](M x) { return complexSqrt(x); });
    } else if (e == M(-0.5)) {
      op.run<T, T>([one](M x) { return one / complexSqrt(x); });
    } else if (e == M(-1)) {
      op.run<T, T>([one](M x) { return one / x; });
    } else {
      op.run<T, T>([e](M x) { return powValue<M>(x, e); });
    }
  }
}

// The number exponent of a float or double tensor, vectorized where it can be (Note
// [Vectorized pow]); the shortcuts of powTensorScalar come first.
bool tryVecPowScalar(const Tensor& self, const Scalar& exponent, const Tensor& out, ScalarType dtype) {
  if ((dtype != kFloat && dtype != kDouble) || exponent.isComplex()) return false;
  const double e = exponent.toDouble();
  if (e == 2 || e == 3 || e == -2 || e == 0.5 || e == -0.5 || e == -1) return false;
  if (dtype == kFloat) return tryVecPow<float>(self, nullptr, static_cast<float>(e), out);
  return tryVecPow<double>(self, nullptr, e, out);
}

}  // namespace

void pow_Tensor_Tensor_out(const Tensor& self, const Tensor& exponent, const Tensor& out) {
  powTensorTensor(self, exponent, out, resultType(self, exponent));
}

void pow_Tensor_Scalar_out(const Tensor& self, const Scalar& exponent, const Tensor& out) {
  const ScalarType dtype = resultType(self, exponent);
  if (tryVecPowScalar(self, exponent, out, dtype)) return;
  ElementwiseOp op("pow", out, dtype, {{self, dtype}});
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, "pow", [&] { powTensorScalar<scalar_t>(op, exponent); });
}

// 1 ** anything is 1 (NaN included), as in PyTorch; other bases are a zero-dim operand (Note
// [Scalar operands]: 300 ** uint8 wraps the base to 44, as in PyTorch).
void pow_Scalar_out(const Scalar& self, const Tensor& exponent, const Tensor& out) {
  const ScalarType dtype = resultType(exponent, self);
  if (!self.isComplex() && !self.isBoolean() && self.toDouble() == 1.0) {
    out.fill_(1);
    return;
  }
  const Tensor base = wrappedNumber(self, dtype, exponent.device());
  powTensorTensor(base, exponent, out, dtype);
}

}  // namespace opcore::native
