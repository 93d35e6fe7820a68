// The CUDA launcher of the unary pointwise operations (Note [CUDA pointwise operations] in
// CudaLaunch.h): each instantiates the element function the CPU kernel calls
// (kernels/common/pointwise/*.h) in the elementwise loops of CudaLoops.cuh, over the dtypes
// the CPU kernel takes, complex ones included.
#include "CudaLoops.cuh"

#include <common/pointwise/Activation.h>
#include <common/pointwise/Binary.h>
#include <common/pointwise/Unary.h>

#include <limits>

namespace opcore::cuda {
namespace {

namespace pw = opcore::pointwise;
namespace npw = opcore::native::pointwise;

// A functor Name<M> computing `expr` of x, an M.
#define OPCORE_CUDA_UNARY_FUNCTOR(Name, expr)                      \
  template <typename M>                                            \
  struct Name {                                                    \
    using compute_type = M;                                        \
    __device__ auto operator()(M x) const { return expr; }         \
  };

OPCORE_CUDA_UNARY_FUNCTOR(SinFn, pw::sinOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(CosFn, pw::cosOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(TanFn, pw::tanOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(AsinFn, pw::asinOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(AcosFn, pw::acosOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(AtanFn, pw::atanOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(SinhFn, pw::sinhOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(CoshFn, pw::coshOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(AsinhFn, pw::asinhOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(AcoshFn, pw::acoshOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(AtanhFn, pw::atanhOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(ExpFn, pw::expOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(Exp2Fn, pw::exp2Of(x))
OPCORE_CUDA_UNARY_FUNCTOR(Expm1Fn, pw::expm1Of(x))
OPCORE_CUDA_UNARY_FUNCTOR(LogFn, pw::logOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(Log2Fn, pw::log2Of(x))
OPCORE_CUDA_UNARY_FUNCTOR(Log10Fn, pw::log10Of(x))
OPCORE_CUDA_UNARY_FUNCTOR(Log1pFn, pw::log1pOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(SqrtFn, pw::sqrtOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(RsqrtFn, pw::rsqrtOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(ReciprocalFn, pw::reciprocalOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(SigmoidFn, pw::sigmoidOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(TanhFn, pw::tanhOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(ErfFn, pw::erfOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(ErfinvFn, pw::erfinvOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(SiluFn, npw::siluOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(NegFn, pw::negOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(AbsFn, pw::absOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(SgnFn, pw::sgnOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(CeilFn, pw::ceilOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(FloorFn, pw::floorOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(TruncFn, pw::truncOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(RoundFn, pw::roundOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(FracFn, pw::fracOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(BitwiseNotFn, pw::bitwiseNotOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(ReluFn, pw::reluOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(LogicalNotFn, pw::logicalNotOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(IsnanFn, pw::isnanOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(IsinfFn, pw::isinfOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(IdentityFn, x)
OPCORE_CUDA_UNARY_FUNCTOR(AngleFn, pw::angleOf(x))
OPCORE_CUDA_UNARY_FUNCTOR(ConjFn, pw::conjOf(x))
#undef OPCORE_CUDA_UNARY_FUNCTOR

// A functor over x and the captured values of `params` (an M each).
#define OPCORE_CUDA_UNARY_FUNCTOR_WITH(Name, expr, ...)            \
  template <typename M>                                            \
  struct Name {                                                    \
    using compute_type = M;                                        \
    M __VA_ARGS__;                                                 \
    __device__ auto operator()(M x) const { return expr; }         \
  };

OPCORE_CUDA_UNARY_FUNCTOR_WITH(LeakyReluFn, npw::leakyReluOf(x, slope), slope)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(EluFn, npw::eluOf(x, negcoef, poscoef, negiptcoef), negcoef, poscoef, negiptcoef)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(HardtanhFn, npw::hardtanhOf(x, lo, hi), lo, hi)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(ClampMinFn, npw::clampMinScalar(x, lo), lo)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(ClampMaxFn, npw::clampMaxScalar(x, hi), hi)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(ClampBothFn, npw::clampScalar(x, lo, hi, true, true), lo, hi)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(ConstantFn, value, value)  // clamp with a NaN bound: every element
OPCORE_CUDA_UNARY_FUNCTOR_WITH(EqFn, x == other, other)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(NeFn, x != other, other)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(LtFn, x < other, other)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(LeFn, x <= other, other)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(GtFn, x > other, other)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(GeFn, x >= other, other)
OPCORE_CUDA_UNARY_FUNCTOR_WITH(NanToNumFn, (pw::NanToNum<M>{nan, posinf, neginf}(x)), nan, posinf, neginf)
#undef OPCORE_CUDA_UNARY_FUNCTOR_WITH

template <typename M>
struct GeluFn {
  using compute_type = M;
  bool tanh;
  __device__ M operator()(M x) const { return npw::geluOf(x, tanh); }
};

template <typename M>
struct RoundDecimalsFn {
  using compute_type = M;
  pw::RoundDecimals<M> round;
  __device__ M operator()(M x) const { return round(x); }
};

// x ** e for a number e, with the CPU kernel's shortcuts (pow_Tensor_Scalar_out in
// kernels/cpu/Pow.cpp): integer tensors by squaring (Note [Integer powers]).
template <typename M>
struct PowScalarFn {
  using compute_type = M;
  M e;
  __device__ M operator()(M x) const {
    if constexpr (std::is_integral_v<M>) {
      return npw::powInt(x, e);
    } else {
      if (e == M(2)) return x * x;
      if (e == M(3)) return x * x * x;
      if (e == M(-2)) return M(1) / (x * x);
      if (e == M(0.5)) return pw::sqrtOf(x);
      if (e == M(-0.5)) return M(1) / pw::sqrtOf(x);
      if (e == M(-1)) return M(1) / x;
      return npw::powFloat(x, e);
    }
  }
};

// The value of a number argument in compute type M, converted through the dtype T first (a
// Half's bound is a Half), as the CPU kernels take them.
template <typename T>
opmath_t<T> valueOf(const Scalar& s) {
  return static_cast<opmath_t<T>>(s.to<T>());
}

// Same-dtype operations: Out = In = T, computed in opmath_t<T>.
template <typename T, template <typename> class Fn, typename... Params>
void same(const StridedOperands<2>& ops, const char* name, Params... params) {
  using M = opmath_t<T>;
  gpuKernel<T, T>(ops, Fn<M>{static_cast<M>(params)...}, name);
}
// Real results of real or complex inputs: a complex<T> input gives a T (abs, angle).
template <typename T, template <typename> class Fn>
void realOf(const StridedOperands<2>& ops, const char* name) {
  if constexpr (is_complex_v<T>) {
    gpuKernel<typename T::value_type, T>(ops, Fn<T>{}, name);
  } else {
    same<T, Fn>(ops, name);
  }
}
// Predicates: a bool result.
template <typename T, template <typename> class Fn, typename... Params>
void predicate(const StridedOperands<2>& ops, const char* name, Params... params) {
  using M = opmath_t<T>;
  gpuKernel<bool, T>(ops, Fn<M>{static_cast<M>(params)...}, name);
}

#define OPCORE_CUDA_FLOATING(dtype, name, ...) \
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] { __VA_ARGS__; })
#define OPCORE_CUDA_FLOATING_AND_COMPLEX(dtype, name, ...) \
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] { __VA_ARGS__; })
#define OPCORE_CUDA_REAL(dtype, name, ...) \
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] { __VA_ARGS__; })

void launchComparison(UnaryOp op, const char* name, ScalarType dtype, const StridedOperands<2>& ops, const Scalar& other) {
  const auto run = [&]<template <typename> class Fn>() {
    OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, dtype, name,
                                   [&] { predicate<scalar_t, Fn>(ops, name, valueOf<scalar_t>(other)); });
  };
  // eq and ne take complex dtypes too (the order comparisons have none), as on the CPU
  const auto runEquality = [&]<template <typename> class Fn>() {
    OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { predicate<scalar_t, Fn>(ops, name, valueOf<scalar_t>(other)); });
  };
  switch (op) {
    case UnaryOp::EqScalar: return runEquality.template operator()<EqFn>();
    case UnaryOp::NeScalar: return runEquality.template operator()<NeFn>();
    case UnaryOp::LtScalar: return run.template operator()<LtFn>();
    case UnaryOp::LeScalar: return run.template operator()<LeFn>();
    case UnaryOp::GtScalar: return run.template operator()<GtFn>();
    default: return run.template operator()<GeFn>();
  }
}

}  // namespace

void launchUnary(UnaryOp op, const char* name, ScalarType dtype, const StridedOperands<2>& ops,
                 const PointwiseArgs& args) {
  switch (op) {
#define OPCORE_CUDA_FLOATING_CASE(Op) \
  case UnaryOp::Op:                   \
    return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, Op##Fn>(ops, name));
// the functions the CPU kernel takes complex dtypes for
#define OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Op) \
  case UnaryOp::Op:                               \
    return OPCORE_CUDA_FLOATING_AND_COMPLEX(dtype, name, same<scalar_t, Op##Fn>(ops, name));
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Sin)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Cos)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Tan)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Asin)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Acos)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Atan)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Sinh)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Cosh)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Asinh)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Acosh)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Atanh)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Exp)
    OPCORE_CUDA_FLOATING_CASE(Exp2)
    OPCORE_CUDA_FLOATING_CASE(Expm1)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Log)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Log2)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Log10)
    OPCORE_CUDA_FLOATING_CASE(Log1p)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Sqrt)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Rsqrt)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Reciprocal)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Sigmoid)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Tanh)
    OPCORE_CUDA_FLOATING_CASE(Erf)
    OPCORE_CUDA_FLOATING_CASE(Erfinv)
    OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE(Silu)
    OPCORE_CUDA_FLOATING_CASE(Frac)
#undef OPCORE_CUDA_FLOATING_CASE
#undef OPCORE_CUDA_FLOATING_AND_COMPLEX_CASE
    case UnaryOp::Gelu:
      return OPCORE_CUDA_FLOATING(dtype, name, gpuKernel<scalar_t, scalar_t>(ops, GeluFn<opmath_t<scalar_t>>{args.flags[0]}, name));
    case UnaryOp::Elu:
      return OPCORE_CUDA_FLOATING(dtype, name, {
        using M = opmath_t<scalar_t>;
        const M alpha = args.scalars[0].to<M>(), scale = args.scalars[1].to<M>(), input_scale = args.scalars[2].to<M>();
        gpuKernel<scalar_t, scalar_t>(ops, EluFn<M>{alpha * scale, scale, input_scale}, name);
      });
    case UnaryOp::LeakyRelu:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, LeakyReluFn>(ops, name, args.scalars[0].to<opmath_t<scalar_t>>()));
    case UnaryOp::RoundDecimals:
      return OPCORE_CUDA_FLOATING(dtype, name, {
        using M = opmath_t<scalar_t>;
        gpuKernel<scalar_t, scalar_t>(ops, RoundDecimalsFn<M>{pw::RoundDecimals<M>(args.integer)}, name);
      });
    case UnaryOp::Angle:  // a complex input gives its real dtype
      return OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] { realOf<scalar_t, AngleFn>(ops, name); });
    case UnaryOp::ConjPhysical:
      return OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { same<scalar_t, ConjFn>(ops, name); });
    case UnaryOp::Neg:
      return OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, name, [&] { same<scalar_t, NegFn>(ops, name); });
    case UnaryOp::Abs:  // a complex input gives its real dtype
      return OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, name, [&] { realOf<scalar_t, AbsFn>(ops, name); });
    case UnaryOp::Sign:
      return OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, dtype, name, [&] { same<scalar_t, SgnFn>(ops, name); });
    case UnaryOp::Sgn:
      return OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kHalf, kBFloat16, kBool, dtype, name, [&] { same<scalar_t, SgnFn>(ops, name); });
    case UnaryOp::Ceil:
      return OPCORE_CUDA_REAL(dtype, name, same<scalar_t, CeilFn>(ops, name));
    case UnaryOp::Floor:
      return OPCORE_CUDA_REAL(dtype, name, same<scalar_t, FloorFn>(ops, name));
    case UnaryOp::Trunc:
      return OPCORE_CUDA_REAL(dtype, name, same<scalar_t, TruncFn>(ops, name));
    case UnaryOp::Round:
      return OPCORE_CUDA_REAL(dtype, name, same<scalar_t, RoundFn>(ops, name));
    case UnaryOp::Relu:
      return OPCORE_CUDA_REAL(dtype, name, same<scalar_t, ReluFn>(ops, name));
    case UnaryOp::BitwiseNot:
      return OPCORE_DISPATCH_INTEGRAL_TYPES_AND(kBool, dtype, name, [&] { same<scalar_t, BitwiseNotFn>(ops, name); });
    case UnaryOp::NanToNum:
      if (isIntegralType(dtype, /*include_bool=*/true)) {
        return OPCORE_DISPATCH_INTEGRAL_TYPES_AND(kBool, dtype, name, [&] { same<scalar_t, IdentityFn>(ops, name); });
      }
      return OPCORE_CUDA_FLOATING(dtype, name, {
        // The replacements are values of scalar_t (a Half's largest is 65504), computed in M.
        using M = opmath_t<scalar_t>;
        const M nan = valueOf<scalar_t>(args.scalars[0]);
        const M posinf = args.flags[0] ? valueOf<scalar_t>(args.scalars[1]) : static_cast<M>(std::numeric_limits<scalar_t>::max());
        const M neginf = args.flags[1] ? valueOf<scalar_t>(args.scalars[2]) : static_cast<M>(std::numeric_limits<scalar_t>::lowest());
        gpuKernel<scalar_t, scalar_t>(ops, NanToNumFn<M>{nan, posinf, neginf}, name);
      });
    case UnaryOp::Hardtanh:
      // Integral tensors take the limits as integers (PyTorch's hardtanh).
      return OPCORE_CUDA_REAL(dtype, name, same<scalar_t, HardtanhFn>(ops, name, valueOf<scalar_t>(args.scalars[0]), valueOf<scalar_t>(args.scalars[1])));
    case UnaryOp::Clamp:  // Note [Clamp and NaN] in common/pointwise/Binary.h
      return OPCORE_CUDA_REAL(dtype, name, {
        using M = opmath_t<scalar_t>;
        const bool has_lo = args.flags[0], has_hi = args.flags[1];
        const M lo = has_lo ? valueOf<scalar_t>(args.scalars[0]) : M(0);
        const M hi = has_hi ? valueOf<scalar_t>(args.scalars[1]) : M(0);
        if (has_lo && has_hi && (npw::isNan(lo) || npw::isNan(hi))) {
          gpuKernel<scalar_t, scalar_t>(ops, ConstantFn<M>{npw::isNan(lo) ? lo : hi}, name);
        } else if (has_lo && has_hi) {
          gpuKernel<scalar_t, scalar_t>(ops, ClampBothFn<M>{lo, hi}, name);
        } else if (has_lo) {
          gpuKernel<scalar_t, scalar_t>(ops, ClampMinFn<M>{lo}, name);
        } else {
          gpuKernel<scalar_t, scalar_t>(ops, ClampMaxFn<M>{hi}, name);
        }
      });
    case UnaryOp::PowScalar:
      return OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, name, [&] {
        using M = opmath_t<scalar_t>;
        const M e = std::is_integral_v<scalar_t> ? static_cast<M>(args.scalars[0].to<scalar_t>()) : args.scalars[0].to<M>();
        gpuKernel<scalar_t, scalar_t>(ops, PowScalarFn<M>{e}, name);
      });
    case UnaryOp::LogicalNot:
      return OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { predicate<scalar_t, LogicalNotFn>(ops, name); });
    case UnaryOp::Isnan:
      return OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { predicate<scalar_t, IsnanFn>(ops, name); });
    case UnaryOp::Isinf:
      return OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { predicate<scalar_t, IsinfFn>(ops, name); });
    case UnaryOp::EqScalar:
    case UnaryOp::NeScalar:
    case UnaryOp::LtScalar:
    case UnaryOp::LeScalar:
    case UnaryOp::GtScalar:
    case UnaryOp::GeScalar:
      return launchComparison(op, name, dtype, ops, args.scalars[0]);
  }
}

}  // namespace opcore::cuda
