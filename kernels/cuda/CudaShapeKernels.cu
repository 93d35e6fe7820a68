// The CUDA kernels of tril, triu and linspace (CudaLaunch.h), on the CPU kernels' element
// functions (common/pointwise/Shape.h).
#include "CudaLoops.cuh"

#include <common/pointwise/Shape.h>

namespace opcore::cuda {
namespace {

namespace npw = native::pointwise;

// A thread per element: (row, col) from its index in the row-major order of the shape.
template <typename T, typename Index>
__global__ void triangleKernel(StridedOperands<2> ops, bool lower, int64_t diagonal, int64_t rows, int64_t cols) {
  const auto numel = static_cast<Index>(ops.numel);
  const Index step = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < numel; i += step) {
    int64_t off[2];
    ops.offsets.offsets(i, off);
    const auto col = static_cast<int64_t>(i % static_cast<Index>(cols));
    const auto row = static_cast<int64_t>((i / static_cast<Index>(cols)) % static_cast<Index>(rows));
    const bool keep = lower ? npw::trilKeeps(row, col, diagonal) : npw::triuKeeps(row, col, diagonal);
    *reinterpret_cast<T*>(ops.data[0] + off[0]) = keep ? *reinterpret_cast<const T*>(ops.data[1] + off[1]) : T(0);
  }
}

template <typename T, typename M>
__global__ void linspaceKernel(T* out, int64_t stride, int64_t steps, M a, M b, M delta) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < steps; i += step) {
    out[i * stride] = static_cast<T>(npw::linspaceValue(i, steps, a, b, delta));
  }
}

template <typename T, typename M>
void linspace(char* out, int64_t stride, int64_t steps, M a, M b) {
  const M delta = (b - a) / static_cast<M>(static_cast<double>(steps - 1));
  linspaceKernel<T, M><<<blocksFor(steps), kThreads, 0, currentStream()>>>(reinterpret_cast<T*>(out), stride, steps, a,
                                                                           b, delta);
}

// The types and the arithmetic of the CPU kernel (linspaceFill in kernels/cpu/Factory.cpp):
// complex<double> for complex dtypes, double for integral ones (start and end converted to the
// dtype first, wrapping), opmath_t otherwise.
template <typename T>
void linspaceOf(char* out, int64_t stride, int64_t steps, const Scalar& start, const Scalar& end) {
  if constexpr (is_complex_v<T>) {
    linspace<T>(out, stride, steps, start.toComplexDouble(), end.toComplexDouble());
  } else if constexpr (std::is_integral_v<T>) {
    linspace<T>(out, stride, steps, static_cast<double>(static_cast<T>(start.toLong())),
                static_cast<double>(static_cast<T>(end.toLong())));
  } else {
    using M = opmath_t<T>;
    linspace<T>(out, stride, steps, static_cast<M>(start.toDouble()), static_cast<M>(end.toDouble()));
  }
}

}  // namespace

void launchTriangle(ScalarType dtype, bool lower, int64_t diagonal, int64_t rows, int64_t cols,
                    const StridedOperands<2>& ops) {
  OPCORE_DISPATCH_EVERY_TYPE(dtype, lower ? "tril" : "triu", [&] {
    if (ops.numel == 0) return;
    if (ops.numel <= INT32_MAX) {
      triangleKernel<scalar_t, uint32_t><<<blocksFor(ops.numel), kThreads, 0, currentStream()>>>(ops, lower, diagonal,
                                                                                                  rows, cols);
    } else {
      triangleKernel<scalar_t, uint64_t><<<blocksFor(ops.numel), kThreads, 0, currentStream()>>>(ops, lower, diagonal,
                                                                                                  rows, cols);
    }
    checkLaunch(lower ? "tril" : "triu");
  });
}

void launchLinspace(ScalarType dtype, char* out, int64_t stride, int64_t steps, const Scalar& start,
                    const Scalar& end) {
  OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, dtype, "linspace", [&] {
    linspaceOf<scalar_t>(out, stride, steps, start, end);
    checkLaunch("linspace");
  });
}

}  // namespace opcore::cuda
