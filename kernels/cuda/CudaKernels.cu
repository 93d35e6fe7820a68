// CUDA kernels of add, mul, fill_ and copy_ over strided and broadcast operands of one dtype,
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
// Contiguous operands are indexed directly; others through the OffsetCalculator. The
// operation is a functor that loads its inputs and stores the result at the operands'
// addresses for one element.
template <bool kContiguous, int N, typename F>
__global__ void elementwiseKernel(StridedOperands<N> ops, int64_t element_size, F f) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < ops.numel; i += step) {
    int64_t off[N];
    if constexpr (kContiguous) {
      for (int k = 0; k < N; ++k) off[k] = i * element_size;
    } else {
      ops.offsets.offsets(i, off);
    }
    char* ptrs[N];
    for (int k = 0; k < N; ++k) ptrs[k] = ops.data[k] + off[k];
    f(ptrs);
  }
}

template <typename T, int N, typename F>
void launch(const StridedOperands<N>& ops, F f, const char* op) {
  if (ops.numel == 0) return;
  const auto blocks = static_cast<unsigned>(std::min<int64_t>((ops.numel + kThreads - 1) / kThreads, int64_t{1} << 20));
  if (ops.contiguous) {
    elementwiseKernel<true><<<blocks, kThreads, 0, stream()>>>(ops, static_cast<int64_t>(sizeof(T)), f);
  } else {
    elementwiseKernel<false><<<blocks, kThreads, 0, stream()>>>(ops, static_cast<int64_t>(sizeof(T)), f);
  }
  checkLaunch(op);
}

// Elements are read as opmath_t<T> and the result rounded once (Note [Reduced precision] in
// kernels/cpu/Loops.h).
template <typename T>
__device__ opmath_t<T> load(const char* p) {
  return static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(p));
}

template <typename T>
struct AddOp {
  opmath_t<T> alpha;
  __device__ void operator()(char* const (&p)[3]) const {
    *reinterpret_cast<T*>(p[0]) = static_cast<T>(load<T>(p[1]) + alpha * load<T>(p[2]));
  }
};

template <typename T>
struct MulOp {
  __device__ void operator()(char* const (&p)[3]) const {
    *reinterpret_cast<T*>(p[0]) = static_cast<T>(load<T>(p[1]) * load<T>(p[2]));
  }
};

template <typename T>
struct FillOp {
  T value;
  __device__ void operator()(char* const (&p)[1]) const { *reinterpret_cast<T*>(p[0]) = value; }
};

template <typename T>
struct CopyOp {
  __device__ void operator()(char* const (&p)[2]) const { *reinterpret_cast<T*>(p[0]) = *reinterpret_cast<const T*>(p[1]); }
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
