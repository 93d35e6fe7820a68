// The CUDA launcher of the binary pointwise operations (Note [CUDA pointwise operations] in
// CudaLaunch.h), on the element functions the CPU kernels call (kernels/common/pointwise/*.h).
#include "CudaLoops.cuh"

#include <common/Wrapping.h>
#include <common/pointwise/Activation.h>
#include <common/pointwise/Binary.h>
#include <common/pointwise/Loss.h>

namespace opcore::cuda {
namespace {

namespace npw = opcore::native::pointwise;
using native::wrappingAdd;
using native::wrappingMul;
using native::wrappingSub;

// A functor Name<M> computing `expr` of a and b, Ms (and of the captured values `...`, Ms).
#define OPCORE_CUDA_BINARY_FUNCTOR(Name, expr)                     \
  template <typename M>                                            \
  struct Name {                                                    \
    using compute_type = M;                                        \
    __device__ auto operator()(M a, M b) const { return expr; }    \
  };
#define OPCORE_CUDA_BINARY_FUNCTOR_WITH(Name, expr, ...)           \
  template <typename M>                                            \
  struct Name {                                                    \
    using compute_type = M;                                        \
    M __VA_ARGS__;                                                 \
    __device__ auto operator()(M a, M b) const { return expr; }    \
  };

// Integer results wrap, as the CPU's (Note [Wrapping integer arithmetic] in common/Wrapping.h);
// for bool, add is `or` and mul `and`. An alpha of 1 is no product, as on the CPU: complex
// 1 + nan*j keeps its real part (a product by 1 + 0j would make it NaN).
template <typename M>
struct AddFn {
  using compute_type = M;
  M alpha;  // -alpha for sub
  __device__ M operator()(M a, M b) const {
    if constexpr (std::is_same_v<M, bool>) {
      return a || (alpha && b);
    } else {
      return alpha == M(1) ? wrappingAdd(a, b) : wrappingAdd(a, wrappingMul(alpha, b));
    }
  }
};
template <typename M>
struct MulFn {
  using compute_type = M;
  __device__ M operator()(M a, M b) const { return wrappingMul(a, b); }
};

// Integer division by zero gives 0 here: a GPU kernel cannot raise, and PyTorch's CUDA kernels
// do not check either (its CPU kernels raise ZeroDivisionError, as opcore's).
#define OPCORE_CUDA_DIVISION_FUNCTOR(Name, fn)                     \
  template <typename M>                                            \
  struct Name {                                                    \
    using compute_type = M;                                        \
    __device__ M operator()(M a, M b) const {                      \
      bool by_zero = false;                                        \
      return fn(a, b, &by_zero);                                   \
    }                                                              \
  };
OPCORE_CUDA_DIVISION_FUNCTOR(FmodFn, npw::fmod)
OPCORE_CUDA_DIVISION_FUNCTOR(RemainderFn, npw::remainder)
OPCORE_CUDA_DIVISION_FUNCTOR(DivFloorFn, npw::floorDivide)
#undef OPCORE_CUDA_DIVISION_FUNCTOR

template <typename M>
struct DivTruncFn {
  using compute_type = M;
  __device__ M operator()(M a, M b) const {
    if constexpr (std::is_integral_v<M>) {
      bool by_zero = false;
      return npw::truncDivInt(a, b, &by_zero);
    } else {
      return std::trunc(a / b);
    }
  }
};

template <typename M>
struct PowFn {
  using compute_type = M;
  __device__ M operator()(M a, M b) const {
    if constexpr (std::is_integral_v<M>) {
      return npw::powInt(a, b);
    } else {
      return npw::powFloat(a, b);
    }
  }
};

// lerp with a number weight (Note [Lerp from the nearer end]).
template <typename M>
struct LerpFn {
  using compute_type = M;
  M weight;
  bool small_weight;
  __device__ M operator()(M a, M b) const { return npw::lerp(a, b, weight, small_weight); }
};

template <typename M>
struct GeluBackwardFn {
  using compute_type = M;
  bool tanh;
  __device__ M operator()(M grad, M x) const { return npw::geluBackwardOf(grad, x, tanh); }
};

template <typename M>
struct EluBackwardFn {
  using compute_type = M;
  M negcoef, poscoef, negiptcoef;
  bool is_result;
  __device__ M operator()(M grad, M b) const { return npw::eluBackwardOf(grad, b, negcoef, poscoef, negiptcoef, is_result); }
};

OPCORE_CUDA_BINARY_FUNCTOR(DivFn, a / b)
OPCORE_CUDA_BINARY_FUNCTOR_WITH(DropoutBackwardFn, a * (b * scale), scale)  // b: the mask, 1 or 0
OPCORE_CUDA_BINARY_FUNCTOR(MaximumFn, npw::maximum(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(MinimumFn, npw::minimum(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(Atan2Fn, npw::atan2(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(HypotFn, npw::hypot(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(CopysignFn, npw::copysign(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(BitwiseAndFn, npw::bitwiseAnd(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(BitwiseOrFn, npw::bitwiseOr(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(BitwiseXorFn, npw::bitwiseXor(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(ShiftLeftFn, npw::shiftLeft(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(ShiftRightFn, npw::shiftRight(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(SigmoidBackwardFn, npw::sigmoidBackwardOf(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(TanhBackwardFn, npw::tanhBackwardOf(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(SiluBackwardFn, npw::siluBackwardOf(a, b))
OPCORE_CUDA_BINARY_FUNCTOR_WITH(LeakyReluBackwardFn, npw::leakyReluBackwardOf(a, b, slope), slope)
OPCORE_CUDA_BINARY_FUNCTOR_WITH(HardtanhBackwardFn, npw::hardtanhBackwardOf(a, b, lo, hi), lo, hi)
OPCORE_CUDA_BINARY_FUNCTOR(MseLossFn, npw::mseOf(a, b))
OPCORE_CUDA_BINARY_FUNCTOR_WITH(SmoothL1LossFn, npw::smoothL1Of(a, b, beta), beta)
OPCORE_CUDA_BINARY_FUNCTOR_WITH(HuberLossFn, npw::huberOf(a, b, delta), delta)
OPCORE_CUDA_BINARY_FUNCTOR(BinaryCrossEntropyFn, npw::binaryCrossEntropyOf(a, b))
OPCORE_CUDA_BINARY_FUNCTOR(EqFn, a == b)
OPCORE_CUDA_BINARY_FUNCTOR(NeFn, a != b)
OPCORE_CUDA_BINARY_FUNCTOR(LtFn, a < b)
OPCORE_CUDA_BINARY_FUNCTOR(LeFn, a <= b)
OPCORE_CUDA_BINARY_FUNCTOR(GtFn, a > b)
OPCORE_CUDA_BINARY_FUNCTOR(GeFn, a >= b)
OPCORE_CUDA_BINARY_FUNCTOR(LogicalAndFn, static_cast<bool>(a) && static_cast<bool>(b))
OPCORE_CUDA_BINARY_FUNCTOR(LogicalOrFn, static_cast<bool>(a) || static_cast<bool>(b))
OPCORE_CUDA_BINARY_FUNCTOR(LogicalXorFn, static_cast<bool>(a) != static_cast<bool>(b))
#undef OPCORE_CUDA_BINARY_FUNCTOR
#undef OPCORE_CUDA_BINARY_FUNCTOR_WITH

template <typename T, template <typename> class Fn, typename... Params>
void same(const StridedOperands<3>& ops, const char* name, Params... params) {
  using M = opmath_t<T>;
  gpuKernel<T, T>(ops, Fn<M>{static_cast<M>(params)...}, name);
}
template <typename T, template <typename> class Fn>
void predicate(const StridedOperands<3>& ops, const char* name) {
  gpuKernel<bool, T>(ops, Fn<opmath_t<T>>{}, name);
}

#define OPCORE_CUDA_FLOATING(dtype, name, ...) \
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] { __VA_ARGS__; })
#define OPCORE_CUDA_FLOATING_AND_COMPLEX(dtype, name, ...) \
  OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] { __VA_ARGS__; })
#define OPCORE_CUDA_REAL(dtype, name, ...) \
  OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] { __VA_ARGS__; })
#define OPCORE_CUDA_REAL_AND_BOOL(dtype, name, ...) \
  OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, dtype, name, [&] { __VA_ARGS__; })
// Complex add, sub, mul, div, pow, lerp, the comparisons for equality and the activations'
// gradients run on the device (complex<T>'s arithmetic and functions are OPCORE_HOST_DEVICE).
#define OPCORE_CUDA_EVERY(dtype, name, ...) OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { __VA_ARGS__; })

template <typename T>
opmath_t<T> valueOf(const Scalar& s) {
  return static_cast<opmath_t<T>>(s.to<T>());
}

}  // namespace

void launchBinary(BinaryOp op, const char* name, ScalarType dtype, const StridedOperands<3>& ops,
                  const PointwiseArgs& args) {
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return OPCORE_CUDA_EVERY(dtype, name, {
        using M = opmath_t<scalar_t>;
        const M alpha = std::is_same_v<scalar_t, bool> ? M(args.scalars[0].toBool()) : valueOf<scalar_t>(args.scalars[0]);
        gpuKernel<scalar_t, scalar_t>(ops, AddFn<M>{op == BinaryOp::Sub ? native::wrappingSub(M(0), alpha) : alpha}, name);
      });
    case BinaryOp::Mul:
      return OPCORE_CUDA_EVERY(dtype, name, same<scalar_t, MulFn>(ops, name));
    case BinaryOp::Div:
      return OPCORE_CUDA_FLOATING_AND_COMPLEX(dtype, name, same<scalar_t, DivFn>(ops, name));
    case BinaryOp::DivTrunc:
      return OPCORE_CUDA_REAL(dtype, name, same<scalar_t, DivTruncFn>(ops, name));
    case BinaryOp::DivFloor:
      return OPCORE_CUDA_REAL(dtype, name, same<scalar_t, DivFloorFn>(ops, name));
    case BinaryOp::Fmod:
      return OPCORE_CUDA_REAL(dtype, name, same<scalar_t, FmodFn>(ops, name));
    case BinaryOp::Remainder:
      return OPCORE_CUDA_REAL(dtype, name, same<scalar_t, RemainderFn>(ops, name));
    case BinaryOp::Pow:
      return OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, name,
                                                        [&] { same<scalar_t, PowFn>(ops, name); });
    case BinaryOp::Maximum:
      return OPCORE_CUDA_REAL_AND_BOOL(dtype, name, same<scalar_t, MaximumFn>(ops, name));
    case BinaryOp::Minimum:
      return OPCORE_CUDA_REAL_AND_BOOL(dtype, name, same<scalar_t, MinimumFn>(ops, name));
    case BinaryOp::Atan2:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, Atan2Fn>(ops, name));
    case BinaryOp::Hypot:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, HypotFn>(ops, name));
    case BinaryOp::Copysign:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, CopysignFn>(ops, name));
    case BinaryOp::BitwiseAnd:
      return OPCORE_DISPATCH_INTEGRAL_TYPES_AND(kBool, dtype, name, [&] { same<scalar_t, BitwiseAndFn>(ops, name); });
    case BinaryOp::BitwiseOr:
      return OPCORE_DISPATCH_INTEGRAL_TYPES_AND(kBool, dtype, name, [&] { same<scalar_t, BitwiseOrFn>(ops, name); });
    case BinaryOp::BitwiseXor:
      return OPCORE_DISPATCH_INTEGRAL_TYPES_AND(kBool, dtype, name, [&] { same<scalar_t, BitwiseXorFn>(ops, name); });
    case BinaryOp::ShiftLeft:
      return OPCORE_DISPATCH_INTEGRAL_TYPES(dtype, name, [&] { same<scalar_t, ShiftLeftFn>(ops, name); });
    case BinaryOp::ShiftRight:
      return OPCORE_DISPATCH_INTEGRAL_TYPES(dtype, name, [&] { same<scalar_t, ShiftRightFn>(ops, name); });
    case BinaryOp::Lerp:
      return OPCORE_CUDA_FLOATING_AND_COMPLEX(dtype, name, {
        using M = opmath_t<scalar_t>;
        const M w = args.scalars[0].to<M>();
        gpuKernel<scalar_t, scalar_t>(ops, LerpFn<M>{w, npw::magnitude(w) < 0.5}, name);
      });
    case BinaryOp::SigmoidBackward:
      return OPCORE_CUDA_FLOATING_AND_COMPLEX(dtype, name, same<scalar_t, SigmoidBackwardFn>(ops, name));
    case BinaryOp::TanhBackward:
      return OPCORE_CUDA_FLOATING_AND_COMPLEX(dtype, name, same<scalar_t, TanhBackwardFn>(ops, name));
    case BinaryOp::SiluBackward:
      return OPCORE_CUDA_FLOATING_AND_COMPLEX(dtype, name, same<scalar_t, SiluBackwardFn>(ops, name));
    case BinaryOp::GeluBackward:
      return OPCORE_CUDA_FLOATING(dtype, name, gpuKernel<scalar_t, scalar_t>(ops, GeluBackwardFn<opmath_t<scalar_t>>{args.flags[0]}, name));
    case BinaryOp::LeakyReluBackward:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, LeakyReluBackwardFn>(ops, name, args.scalars[0].to<opmath_t<scalar_t>>()));
    case BinaryOp::HardtanhBackward:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, HardtanhBackwardFn>(ops, name, args.scalars[0].to<opmath_t<scalar_t>>(), args.scalars[1].to<opmath_t<scalar_t>>()));
    case BinaryOp::EluBackward:
      return OPCORE_CUDA_FLOATING(dtype, name, {
        using M = opmath_t<scalar_t>;
        const M alpha = args.scalars[0].to<M>(), scale = args.scalars[1].to<M>(), input_scale = args.scalars[2].to<M>();
        gpuKernel<scalar_t, scalar_t>(ops, EluBackwardFn<M>{alpha * scale, scale, input_scale, args.flags[0]}, name);
      });
    case BinaryOp::DropoutBackward:
      return OPCORE_CUDA_FLOATING_AND_COMPLEX(dtype, name, same<scalar_t, DropoutBackwardFn>(ops, name, args.scalars[0].to<opmath_t<scalar_t>>()));
    case BinaryOp::MseLoss:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, MseLossFn>(ops, name));
    case BinaryOp::SmoothL1Loss:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, SmoothL1LossFn>(ops, name, args.scalars[0].to<opmath_t<scalar_t>>()));
    case BinaryOp::HuberLoss:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, HuberLossFn>(ops, name, args.scalars[0].to<opmath_t<scalar_t>>()));
    case BinaryOp::BinaryCrossEntropy:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, BinaryCrossEntropyFn>(ops, name));
    case BinaryOp::Eq:
      return OPCORE_CUDA_EVERY(dtype, name, predicate<scalar_t, EqFn>(ops, name));
    case BinaryOp::Ne:
      return OPCORE_CUDA_EVERY(dtype, name, predicate<scalar_t, NeFn>(ops, name));
    case BinaryOp::Lt:
      return OPCORE_CUDA_REAL_AND_BOOL(dtype, name, predicate<scalar_t, LtFn>(ops, name));
    case BinaryOp::Le:
      return OPCORE_CUDA_REAL_AND_BOOL(dtype, name, predicate<scalar_t, LeFn>(ops, name));
    case BinaryOp::Gt:
      return OPCORE_CUDA_REAL_AND_BOOL(dtype, name, predicate<scalar_t, GtFn>(ops, name));
    case BinaryOp::Ge:
      return OPCORE_CUDA_REAL_AND_BOOL(dtype, name, predicate<scalar_t, GeFn>(ops, name));
    case BinaryOp::LogicalAnd:
      return OPCORE_CUDA_EVERY(dtype, name, predicate<scalar_t, LogicalAndFn>(ops, name));
    case BinaryOp::LogicalOr:
      return OPCORE_CUDA_EVERY(dtype, name, predicate<scalar_t, LogicalOrFn>(ops, name));
    case BinaryOp::LogicalXor:
      return OPCORE_CUDA_EVERY(dtype, name, predicate<scalar_t, LogicalXorFn>(ops, name));
  }
}

}  // namespace opcore::cuda
