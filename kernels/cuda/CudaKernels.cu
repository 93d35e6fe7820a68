// CUDA kernels for the contiguous fast paths of add, mul and fill, and device memory
// management. See CudaLaunch.h for why this file sees no opcore headers.
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

template <typename T>
__global__ void addKernel(T* out, const T* a, const T* b, T alpha, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + alpha * b[i];
}

template <typename T>
__global__ void mulKernel(T* out, const T* a, const T* b, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] * b[i];
}

template <typename T>
__global__ void fillKernel(T* out, T value, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = value;
}

// Runs f with a value of the C++ type of `t` (a null pointer of that type).
template <typename F>
void forFloatingType(ElementType t, F f) {
  if (t == ElementType::Float) return f(static_cast<float*>(nullptr));
  if (t == ElementType::Double) return f(static_cast<double*>(nullptr));
  throw std::runtime_error("CUDA kernel: only float32 and float64 are supported");
}

}  // namespace

void launchAdd(ElementType t, void* out, const void* a, const void* b, double alpha, int64_t n) {
  if (n == 0) return;
  forFloatingType(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    addKernel<<<blocksFor(n), kThreads>>>(static_cast<T*>(out), static_cast<const T*>(a),
                                          static_cast<const T*>(b), static_cast<T>(alpha), n);
  });
  check(cudaGetLastError(), "add kernel launch");
}

void launchMul(ElementType t, void* out, const void* a, const void* b, int64_t n) {
  if (n == 0) return;
  forFloatingType(t, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    mulKernel<<<blocksFor(n), kThreads>>>(static_cast<T*>(out), static_cast<const T*>(a),
                                          static_cast<const T*>(b), n);
  });
  check(cudaGetLastError(), "mul kernel launch");
}

void launchFill(ElementType t, void* out, double value, int64_t n) {
  if (n == 0) return;
  switch (t) {
    case ElementType::Bool: fillKernel<<<blocksFor(n), kThreads>>>(static_cast<bool*>(out), value != 0, n); break;
    case ElementType::Int: fillKernel<<<blocksFor(n), kThreads>>>(static_cast<int32_t*>(out), static_cast<int32_t>(value), n); break;
    case ElementType::Long: fillKernel<<<blocksFor(n), kThreads>>>(static_cast<int64_t*>(out), static_cast<int64_t>(value), n); break;
    case ElementType::Float: fillKernel<<<blocksFor(n), kThreads>>>(static_cast<float*>(out), static_cast<float>(value), n); break;
    case ElementType::Double: fillKernel<<<blocksFor(n), kThreads>>>(static_cast<double*>(out), value, n); break;
  }
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
