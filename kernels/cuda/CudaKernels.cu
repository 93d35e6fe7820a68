// CUDA kernels for the contiguous fast paths of add, mul and fill, and device memory
// management. See CudaLaunch.h for the opcore headers this file sees.
#include "CudaLaunch.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <type_traits>
#include <string>

namespace opcore::cuda {
namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

constexpr int kThreads = 256;
int blocksFor(int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

// Elements are read as opmath_t<T> and the result rounded once (Note [Reduced precision] in
// kernels/cpu/Loops.h).
template <typename T>
__global__ void addKernel(T* out, const T* a, const T* b, opmath_t<T> alpha, int64_t n) {
  using M = opmath_t<T>;
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<T>(static_cast<M>(a[i]) + alpha * static_cast<M>(b[i]));
}

template <typename T>
__global__ void mulKernel(T* out, const T* a, const T* b, int64_t n) {
  using M = opmath_t<T>;
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<T>(static_cast<M>(a[i]) * static_cast<M>(b[i]));
}

template <typename T>
__global__ void fillKernel(T* out, T value, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = value;
}

}  // namespace

void launchAdd(ScalarType t, void* out, const void* a, const void* b, const Scalar& alpha, int64_t n) {
  if (n == 0) return;
  OPCORE_DISPATCH_EVERY_TYPE(t, "add", [&] {
    addKernel<<<blocksFor(n), kThreads>>>(static_cast<scalar_t*>(out), static_cast<const scalar_t*>(a),
                                          static_cast<const scalar_t*>(b),
                                          static_cast<opmath_t<scalar_t>>(alpha.to<scalar_t>()), n);
  });
  check(cudaGetLastError(), "add kernel launch");
}

void launchMul(ScalarType t, void* out, const void* a, const void* b, int64_t n) {
  if (n == 0) return;
  OPCORE_DISPATCH_EVERY_TYPE(t, "mul", [&] {
    mulKernel<<<blocksFor(n), kThreads>>>(static_cast<scalar_t*>(out), static_cast<const scalar_t*>(a),
                                          static_cast<const scalar_t*>(b), n);
  });
  check(cudaGetLastError(), "mul kernel launch");
}

void launchFill(ScalarType t, void* out, const Scalar& value, int64_t n) {
  if (n == 0) return;
  OPCORE_DISPATCH_EVERY_TYPE(t, "fill_", [&] {
    fillKernel<<<blocksFor(n), kThreads>>>(static_cast<scalar_t*>(out), value.to<scalar_t>(), n);
  });
  check(cudaGetLastError(), "fill kernel launch");
}

int deviceCount() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

int currentDevice() {
  int index = 0;
  check(cudaGetDevice(&index), "cudaGetDevice");
  return index;
}

void setCurrentDevice(int index) { check(cudaSetDevice(index), "cudaSetDevice"); }

void* deviceAlloc(size_t nbytes, int* device_index) {
  check(cudaGetDevice(device_index), "cudaGetDevice");
  void* p = nullptr;
  check(cudaMalloc(&p, nbytes), "cudaMalloc");
  return p;
}

void deviceFree(void* p) { cudaFree(p); }

void deviceCopy(void* dst, const void* src, size_t nbytes, CopyKind kind) {
  const cudaMemcpyKind k = kind == CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
                           : kind == CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                            : cudaMemcpyDeviceToDevice;
  check(cudaMemcpy(dst, src, nbytes, k), "cudaMemcpy");
}

}  // namespace opcore::cuda
