// The elementwise loops of the CUDA kernels (ATen's gpu_kernel): gpuKernel<Out, In>(ops, f)
// computes f over every element of the operands, on the current stream.
//   struct SinFn { using compute_type = float; __device__ float operator()(float x) const { ... } };
//   gpuKernel<float, float>(operands, SinFn{}, "sin");
// Included by the kernels/cuda/*.cu files only.
#pragma once

#include "CudaLaunch.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace opcore::cuda {

// Note [Elementwise CUDA loops]
// An operation is a functor over its inputs read as `compute_type` M (opmath_t: float for Half
// and BFloat16), returning the result; the element functions it calls are the CPU's
// (kernels/common/pointwise/*.h, Note [nvcc-clean pointwise headers]). gpuKernel<Out, In>
// picks one of two kernels, both grid-stride, one thread per element (or per vector):
//  - the vectorized one, when the result is of type Out and every input of type In, all dense
//    in index order and aligned to 16-byte vectors: each thread loads one vector per operand
//    (16 bytes of the widest of Out and In) and stores one, a few scalar elements at the end;
//  - the general one for everything else (broadcast, strided, overlapping, misaligned, mixed
//    dtypes): each element's byte offsets come from the OffsetCalculator, in 32-bit index
//    arithmetic when the element count fits in int32 (Note [Division by invariant integers]);
//    inputs of another dtype are read through fetchAs and a result of another dtype is
//    stored through storeAs (common/DynamicCast.h), as ATen's dynamic casting: each by way of
//    In and Out, so that a Half operation rounds its inputs and its result to Half, as the
//    CPU's does (int32 2049 + Half 1.0 is 2048 in Half, and stays 2048 in a float32 out).
// Each (operation, dtype) thus instantiates three kernels: vectorized, general 32-bit and
// general 64-bit.

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t{1} << 20;

inline cudaStream_t currentStream() { return static_cast<cudaStream_t>(currentStreamHandle()); }

inline unsigned blocksFor(int64_t work) {
  return static_cast<unsigned>(std::clamp<int64_t>((work + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

template <typename T, int kVec>
struct alignas(sizeof(T) * kVec) Vector {
  T v[kVec];
};

// Elements per vector: 16 bytes of the wider of the result and input types.
template <typename Out, typename In>
constexpr int kVectorSize = static_cast<int>(16 / std::max(sizeof(Out), sizeof(In))) > 0
                                ? static_cast<int>(16 / std::max(sizeof(Out), sizeof(In)))
                                : 1;

template <int N>
struct DataPointers {
  char* data[N];
};

template <typename F, typename M, size_t... I>
__device__ __forceinline__ auto applyTo(const F& f, const M* in, std::index_sequence<I...>) {
  return f(in[I]...);
}

template <typename Out, typename In, int kVec, int N, typename F>
__global__ void vectorizedKernel(DataPointers<N> ptrs, int64_t numel, F f) {
  using M = typename F::compute_type;
  constexpr int kInputs = N - 1;
  constexpr auto kArgs = std::make_index_sequence<kInputs>();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t vectors = numel / kVec;
  for (int64_t v = first; v < vectors; v += step) {
    Vector<In, kVec> in[kInputs > 0 ? kInputs : 1];
    for (int k = 0; k < kInputs; ++k) in[k] = reinterpret_cast<const Vector<In, kVec>*>(ptrs.data[k + 1])[v];
    Vector<Out, kVec> out;
    for (int j = 0; j < kVec; ++j) {
      M args[kInputs > 0 ? kInputs : 1];
      for (int k = 0; k < kInputs; ++k) args[k] = static_cast<M>(in[k].v[j]);
      out.v[j] = convertValue<Out>(applyTo(f, args, kArgs));
    }
    reinterpret_cast<Vector<Out, kVec>*>(ptrs.data[0])[v] = out;
  }
  for (int64_t i = vectors * kVec + first; i < numel; i += step) {  // the tail
    M args[kInputs > 0 ? kInputs : 1];
    for (int k = 0; k < kInputs; ++k) args[k] = static_cast<M>(reinterpret_cast<const In*>(ptrs.data[k + 1])[i]);
    reinterpret_cast<Out*>(ptrs.data[0])[i] = convertValue<Out>(applyTo(f, args, kArgs));
  }
}

template <typename Out, typename In, typename Index, int N, typename F>
__global__ void generalKernel(StridedOperands<N> ops, bool mixed, F f) {
  using M = typename F::compute_type;
  constexpr int kInputs = N - 1;
  const auto numel = static_cast<Index>(ops.numel);
  const Index step = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < numel; i += step) {
    int64_t off[N];
    ops.offsets.offsets(i, off);
    M args[kInputs > 0 ? kInputs : 1];
    for (int k = 0; k < kInputs; ++k) {
      const char* p = ops.data[k + 1] + off[k + 1];
      args[k] = static_cast<M>(mixed ? native::fetchAs<In>(p, ops.dtypes[k + 1]) : *reinterpret_cast<const In*>(p));
    }
    const auto result = applyTo(f, args, std::make_index_sequence<kInputs>());
    char* o = ops.data[0] + off[0];
    if (mixed) {
      native::storeAs(o, ops.dtypes[0], convertValue<Out>(result));
    } else {
      *reinterpret_cast<Out*>(o) = convertValue<Out>(result);
    }
  }
}

// Runs f over `ops` (operand 0 the result) on the current stream; Out is the type f's result
// is stored as and In the inputs' type when no conversion is needed. `op` names the operation
// in a launch error.
template <typename Out, typename In, int N, typename F>
void gpuKernel(const StridedOperands<N>& ops, const F& f, const char* op) {
  if (ops.numel == 0) return;
  bool mixed = ops.dtypes[0] != CppTypeToScalarType<Out>::value;
  for (int k = 1; k < N; ++k) mixed = mixed || ops.dtypes[k] != CppTypeToScalarType<In>::value;
  constexpr int kVec = kVectorSize<Out, In>;
  bool aligned = reinterpret_cast<uintptr_t>(ops.data[0]) % alignof(Vector<Out, kVec>) == 0;
  for (int k = 1; k < N; ++k) aligned = aligned && reinterpret_cast<uintptr_t>(ops.data[k]) % alignof(Vector<In, kVec>) == 0;
  if (!mixed && ops.contiguous && aligned) {
    DataPointers<N> ptrs;
    for (int k = 0; k < N; ++k) ptrs.data[k] = ops.data[k];
    vectorizedKernel<Out, In, kVec><<<blocksFor(ops.numel / kVec), kThreads, 0, currentStream()>>>(ptrs, ops.numel, f);
  } else if (ops.numel <= INT32_MAX) {
    generalKernel<Out, In, uint32_t><<<blocksFor(ops.numel), kThreads, 0, currentStream()>>>(ops, mixed, f);
  } else {
    generalKernel<Out, In, uint64_t><<<blocksFor(ops.numel), kThreads, 0, currentStream()>>>(ops, mixed, f);
  }
  checkLaunch(op);
}

}  // namespace opcore::cuda
