// The CUDA launcher of the ternary pointwise operations (Note [CUDA pointwise operations] in
// CudaLaunch.h): where, clamp with tensor bounds, lerp with a tensor weight, addcmul, addcdiv,
// the pointwise losses' gradients and binary_cross_entropy_with_logits.
#include "CudaLoops.cuh"

#include <common/Wrapping.h>
#include <common/pointwise/Binary.h>
#include <common/pointwise/Loss.h>

#include <cmath>

namespace opcore::cuda {
namespace {

namespace npw = opcore::native::pointwise;

// where(condition, a, b): the condition is read as M too (a bool operand among M ones: the
// general loop), nonzero is true.
template <typename M>
struct WhereFn {
  using compute_type = M;
  __device__ M operator()(M c, M a, M b) const { return npw::whereSelect(c != M(0), a, b); }
};

template <typename M>
struct ClampFn {
  using compute_type = M;
  __device__ M operator()(M x, M lo, M hi) const { return npw::minimum(npw::maximum(x, lo), hi); }
};

template <typename M>
struct LerpFn {
  using compute_type = M;
  __device__ M operator()(M a, M b, M w) const { return npw::lerp(a, b, w, npw::magnitude(w) < 0.5); }
};

// self + value * a * b; real floats with one rounding for the last product and the sum, as
// the CPU kernel (addcmul_out in kernels/cpu/Ternary.cpp).
template <typename M>
struct AddcmulFn {
  using compute_type = M;
  M value;
  __device__ M operator()(M s, M a, M b) const {
    if constexpr (std::is_floating_point_v<M>) {
      return std::fma(value * a, b, s);
    } else {
      return native::wrappingAdd(s, native::wrappingMul(native::wrappingMul(value, a), b));
    }
  }
};

template <typename M>
struct AddcdivFn {
  using compute_type = M;
  M value;
  __device__ M operator()(M s, M a, M b) const { return s + value * a / b; }
};

// The losses' gradients of (grad_output, self, target), scaled by `norm`.
template <typename M>
struct MseLossBackwardFn {
  using compute_type = M;
  M norm;
  __device__ M operator()(M g, M x, M y) const { return npw::mseBackwardOf(g, x, y, norm); }
};

template <typename M>
struct SmoothL1LossBackwardFn {
  using compute_type = M;
  M norm, beta;
  __device__ M operator()(M g, M x, M y) const { return npw::smoothL1BackwardOf(g, x, y, norm, beta); }
};

template <typename M>
struct HuberLossBackwardFn {
  using compute_type = M;
  M norm, delta;
  __device__ M operator()(M g, M x, M y) const { return npw::huberBackwardOf(g, x, y, norm, delta); }
};

template <typename M>
struct BinaryCrossEntropyBackwardFn {
  using compute_type = M;
  M norm;
  __device__ M operator()(M g, M x, M y) const { return npw::binaryCrossEntropyBackwardOf(g, x, y, norm); }
};

template <typename M>
struct BinaryCrossEntropyWithLogitsFn {
  using compute_type = M;
  bool has_pos_weight;
  __device__ M operator()(M x, M y, M pos_weight) const {
    return npw::binaryCrossEntropyWithLogitsOf(x, y, has_pos_weight ? pos_weight : M(1));
  }
};

template <typename T, template <typename> class Fn, typename... Params>
void same(const StridedOperands<4>& ops, const char* name, Params... params) {
  using M = opmath_t<T>;
  gpuKernel<T, T>(ops, Fn<M>{static_cast<M>(params)...}, name);
}

#define OPCORE_CUDA_FLOATING(dtype, name, ...) \
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] { __VA_ARGS__; })

}  // namespace

void launchTernary(TernaryOp op, const char* name, ScalarType dtype, const StridedOperands<4>& ops,
                   const PointwiseArgs& args) {
  switch (op) {
    case TernaryOp::Where:
      return OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] {
        gpuKernel<scalar_t, scalar_t>(ops, WhereFn<opmath_t<scalar_t>>{}, name);
      });
    case TernaryOp::ClampTensor:
      return OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] {
        gpuKernel<scalar_t, scalar_t>(ops, ClampFn<opmath_t<scalar_t>>{}, name);
      });
    case TernaryOp::LerpTensor:
      return OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] {
        gpuKernel<scalar_t, scalar_t>(ops, LerpFn<opmath_t<scalar_t>>{}, name);
      });
    case TernaryOp::Addcmul:
      return OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, name, [&] {
        using M = opmath_t<scalar_t>;
        gpuKernel<scalar_t, scalar_t>(ops, AddcmulFn<M>{static_cast<M>(args.scalars[0].to<scalar_t>())}, name);
      });
    case TernaryOp::Addcdiv:
      return OPCORE_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] {
        using M = opmath_t<scalar_t>;
        gpuKernel<scalar_t, scalar_t>(ops, AddcdivFn<M>{args.scalars[0].to<M>()}, name);
      });
    case TernaryOp::MseLossBackward:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, MseLossBackwardFn>(ops, name, args.scalars[0].toDouble()));
    case TernaryOp::SmoothL1LossBackward:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, SmoothL1LossBackwardFn>(ops, name, args.scalars[0].toDouble(), args.scalars[1].toDouble()));
    case TernaryOp::HuberLossBackward:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, HuberLossBackwardFn>(ops, name, args.scalars[0].toDouble(), args.scalars[1].toDouble()));
    case TernaryOp::BinaryCrossEntropyBackward:
      return OPCORE_CUDA_FLOATING(dtype, name, same<scalar_t, BinaryCrossEntropyBackwardFn>(ops, name, args.scalars[0].toDouble()));
    case TernaryOp::BinaryCrossEntropyWithLogits:
      return OPCORE_CUDA_FLOATING(dtype, name, gpuKernel<scalar_t, scalar_t>(ops, BinaryCrossEntropyWithLogitsFn<opmath_t<scalar_t>>{args.flags[0]}, name));
  }
}

}  // namespace opcore::cuda
