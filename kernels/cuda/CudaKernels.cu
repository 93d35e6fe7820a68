// CUDA kernels of add, mul, fill_ and copy_ over strided and broadcast operands of any dtypes,
// launched on the current stream.
// See CudaLaunch.h for the opcore headers this file sees.
#include "CudaLaunch.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

namespace opcore::cuda {
namespace {

constexpr int kThreads = 256;
cudaStream_t stream() { return static_cast<cudaStream_t>(currentStreamHandle()); }

// Note [Elementwise CUDA loops]
// One thread per result element, grid-stride: a grid of at most 2^20 blocks walks any numel.
// Contiguous operands are indexed directly; others through the OffsetCalculator. An operation
// is a functor from its inputs, read as its compute type M, to the result: inputs of the
// result's dtype T are read as T, others through fetchAs (mixed dtypes: promotion, or a copy_
// that converts), and the result is stored as T, rounded once.
template <typename T, int N, bool kContiguous, bool kMixed, typename F>
__global__ void elementwiseKernel(StridedOperands<N> ops, F f) {
  using M = typename F::compute_type;
  constexpr int kInputs = N - 1;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < ops.numel; i += step) {
    int64_t off[N];
    if constexpr (kContiguous) {
      for (int k = 0; k < N; ++k) off[k] = i * ops.element_sizes[k];
    } else {
      ops.offsets.offsets(i, off);
    }
    M in[kInputs > 0 ? kInputs : 1];
    for (int k = 0; k < kInputs; ++k) {
      const char* p = ops.data[k + 1] + off[k + 1];
      if constexpr (kMixed) {
        in[k] = native::fetchAs<M>(p, ops.dtypes[k + 1]);
      } else {
        in[k] = static_cast<M>(*reinterpret_cast<const T*>(p));
      }
    }
    *reinterpret_cast<T*>(ops.data[0] + off[0]) = static_cast<T>(f(in));
  }
}

template <typename T, int N, typename F>
void launch(const StridedOperands<N>& ops, F f, const char* op) {
  if (ops.numel == 0) return;
  const auto blocks = static_cast<unsigned>(std::min<int64_t>((ops.numel + kThreads - 1) / kThreads, int64_t{1} << 20));
  const auto run = [&](auto contiguous, auto mixed) {
    elementwiseKernel<T, N, decltype(contiguous)::value, decltype(mixed)::value><<<blocks, kThreads, 0, stream()>>>(ops, f);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  if (ops.mixed_dtypes) {
    ops.contiguous ? run(Yes{}, Yes{}) : run(No{}, Yes{});
  } else {
    ops.contiguous ? run(Yes{}, No{}) : run(No{}, No{});
  }
  checkLaunch(op);
}

// Computed in opmath_t<T> (Note [Reduced precision] in kernels/cpu/Loops.h).
template <typename T>
struct AddOp {
  using compute_type = opmath_t<T>;
  compute_type alpha;
  __device__ compute_type operator()(const compute_type (&in)[2]) const { return in[0] + alpha * in[1]; }
};

template <typename T>
struct MulOp {
  using compute_type = opmath_t<T>;
  __device__ compute_type operator()(const compute_type (&in)[2]) const { return in[0] * in[1]; }
};

template <typename T>
struct FillOp {
  using compute_type = T;
  T value;
  __device__ T operator()(const T (&)[1]) const { return value; }
};

// Read straight as T: one conversion, as the CPU's copy_ makes it.
template <typename T>
struct CopyOp {
  using compute_type = T;
  __device__ T operator()(const T (&in)[1]) const { return in[0]; }
};

}  // namespace

void launchAdd(ScalarType t, const StridedOperands<3>& ops, const Scalar& alpha) {
  OPCORE_DISPATCH_EVERY_TYPE(t, "add", [&] {
    launch<scalar_t>(ops, AddOp<scalar_t>{static_cast<opmath_t<scalar_t>>(alpha.to<scalar_t>())}, "add kernel launch");
  });
}

void launchMul(ScalarType t, const StridedOperands<3>& ops) {
  OPCORE_DISPATCH_EVERY_TYPE(t, "mul", [&] { launch<scalar_t>(ops, MulOp<scalar_t>{}, "mul kernel launch"); });
}

void launchFill(ScalarType t, const StridedOperands<1>& ops, const Scalar& value) {
  OPCORE_DISPATCH_EVERY_TYPE(t, "fill_", [&] {
    launch<scalar_t>(ops, FillOp<scalar_t>{value.to<scalar_t>()}, "fill_ kernel launch");
  });
}

void launchCopy(ScalarType t, const StridedOperands<2>& ops) {
  OPCORE_DISPATCH_EVERY_TYPE(t, "copy_", [&] { launch<scalar_t>(ops, CopyOp<scalar_t>{}, "copy_ kernel launch"); });
}

}  // namespace opcore::cuda
