// The CUDA softmax and log_softmax, forward and backward, over contiguous rows (the softmax
// dimension last; CudaSoftmax.cpp moves it there): a block per row, three passes (maximum, sum,
// result), on the element functions of kernels/common/pointwise/Softmax.h.
#include "CudaLoops.cuh"

#include <common/pointwise/Softmax.h>

#include <cmath>

namespace opcore::cuda {
namespace {

namespace sm = opcore::native::softmax;

constexpr int kRowThreads = 256;

// Every thread of the block gets the combination of the block's values.
template <typename A, typename F>
__device__ A blockAll(A v, F combine) {
  __shared__ A warp_values[kRowThreads / 32];
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  for (int offset = 16; offset > 0; offset /= 2) v = combine(v, __shfl_down_sync(0xffffffffu, v, offset));
  __syncthreads();  // warp_values may still be read by the previous call
  if (lane == 0) warp_values[warp] = v;
  __syncthreads();
  v = warp_values[0];
  for (int w = 1; w < kRowThreads / 32; ++w) v = combine(v, warp_values[w]);
  return v;
}

template <typename A>
struct Plus {
  __device__ A operator()(A a, A b) const { return a + b; }
};
template <typename A>
struct Max {
  __device__ A operator()(A a, A b) const { return sm::maxOf(b, a); }  // NaN skipped (Note [Softmax of rows with NaN and infinities])
};

template <typename T, typename O, bool kLog>
__global__ void softmaxForwardKernel(const T* x, O* y, int64_t rows, int64_t len) {
  using A = opmath_t<T>;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * len;
    O* yr = y + row * len;
    A m = -INFINITY;
    for (int64_t j = threadIdx.x; j < len; j += kRowThreads) m = sm::maxOf(static_cast<A>(xr[j]), m);
    m = blockAll(m, Max<A>{});
    A s = 0;
    for (int64_t j = threadIdx.x; j < len; j += kRowThreads) s += std::exp(static_cast<A>(xr[j]) - m);
    s = blockAll(s, Plus<A>{});
    if constexpr (kLog) {
      const A log_sum = std::log(s);
      for (int64_t j = threadIdx.x; j < len; j += kRowThreads) {
        yr[j] = static_cast<O>(sm::logScaled(static_cast<A>(xr[j]) - m, log_sum));
      }
    } else {
      const A inv_sum = A(1) / s;
      for (int64_t j = threadIdx.x; j < len; j += kRowThreads) {
        yr[j] = static_cast<O>(sm::scaled(std::exp(static_cast<A>(xr[j]) - m), inv_sum));
      }
    }
  }
}

template <typename T, typename O, bool kLog>
__global__ void softmaxBackwardKernel(const T* grad, const T* y, O* out, int64_t rows, int64_t len) {
  using A = opmath_t<T>;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* gr = grad + row * len;
    const T* yr = y + row * len;
    O* o = out + row * len;
    A s = 0;  // log_softmax: sum(g); softmax: sum(g * y)
    for (int64_t j = threadIdx.x; j < len; j += kRowThreads) {
      s += kLog ? static_cast<A>(gr[j]) : static_cast<A>(gr[j]) * static_cast<A>(yr[j]);
    }
    s = blockAll(s, Plus<A>{});
    for (int64_t j = threadIdx.x; j < len; j += kRowThreads) {
      const A g = static_cast<A>(gr[j]), v = static_cast<A>(yr[j]);
      o[j] = static_cast<O>(kLog ? sm::logSoftmaxGrad(g, std::exp(v), s) : sm::softmaxGrad(g, v, s));
    }
  }
}

unsigned rowBlocks(int64_t rows) { return static_cast<unsigned>(std::clamp<int64_t>(rows, 1, kMaxBlocks)); }

// Runs body(O{}) with O the C++ type of the result: T, or what the meta function chose besides
// it: float for a Half or BFloat16 softmax with half_to_float, and Half or BFloat16 for the
// gradient of one (T float).
template <typename T, typename F>
void withOutputType(ScalarType out, const F& body) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    if (out == ScalarType::Float) return body(float{});
  } else if constexpr (std::is_same_v<T, float>) {
    if (out == ScalarType::Half) return body(Half{});
    if (out == ScalarType::BFloat16) return body(BFloat16{});
  }
  body(T{});
}

}  // namespace

void launchSoftmax(bool log, const char* name, ScalarType dtype, ScalarType out_dtype, const char* x, char* y,
                   int64_t rows, int64_t len) {
  if (rows == 0 || len == 0) return;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] {
    withOutputType<scalar_t>(out_dtype, [&](auto o) {
      using O = decltype(o);
      const auto* in = reinterpret_cast<const scalar_t*>(x);
      auto* out = reinterpret_cast<O*>(y);
      if (log) {
        softmaxForwardKernel<scalar_t, O, true><<<rowBlocks(rows), kRowThreads, 0, currentStream()>>>(in, out, rows, len);
      } else {
        softmaxForwardKernel<scalar_t, O, false><<<rowBlocks(rows), kRowThreads, 0, currentStream()>>>(in, out, rows, len);
      }
    });
  });
  checkLaunch(name);
}

void launchSoftmaxBackward(bool log, const char* name, ScalarType dtype, ScalarType out_dtype, const char* grad,
                           const char* y, char* grad_input, int64_t rows, int64_t len) {
  if (rows == 0 || len == 0) return;
  OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] {
    withOutputType<scalar_t>(out_dtype, [&](auto o) {
      using O = decltype(o);
      const auto* g = reinterpret_cast<const scalar_t*>(grad);
      const auto* v = reinterpret_cast<const scalar_t*>(y);
      auto* out = reinterpret_cast<O*>(grad_input);
      if (log) {
        softmaxBackwardKernel<scalar_t, O, true><<<rowBlocks(rows), kRowThreads, 0, currentStream()>>>(g, v, out, rows, len);
      } else {
        softmaxBackwardKernel<scalar_t, O, false><<<rowBlocks(rows), kRowThreads, 0, currentStream()>>>(g, v, out, rows, len);
      }
    });
  });
  checkLaunch(name);
}

}  // namespace opcore::cuda
