// The boundary between the CUDA kernels (CudaKernels.cu, compiled by nvcc) and the opcore
// kernels that call them (CudaOps.cpp, compiled by the C++ compiler). Only plain types and
// the element types (ScalarType.h and Scalar.h, written for both compilers: Half,
// BFloat16 and complex<T> are OPCORE_HOST_DEVICE) cross it; nvcc parses no other opcore header.
#pragma once

#include <opcore/core/Scalar.h>
#include <opcore/core/ScalarType.h>

#include <cstddef>
#include <cstdint>

namespace opcore::cuda {

// out[i] = a[i] + alpha * b[i] over n contiguous elements of any dtype, computed in
// opmath_t (Half and BFloat16 in float, through CUDA's __half and __nv_bfloat16 conversions)
// and rounded once.
void launchAdd(ScalarType t, void* out, const void* a, const void* b, const Scalar& alpha, int64_t n);
// out[i] = a[i] * b[i].
void launchMul(ScalarType t, void* out, const void* a, const void* b, int64_t n);
// out[i] = value, for every dtype.
void launchFill(ScalarType t, void* out, const Scalar& value, int64_t n);

// The number of visible GPUs; 0 when there is none or the driver is missing.
int deviceCount();
// The calling thread's current GPU, and switching it (cudaGetDevice / cudaSetDevice).
int currentDevice();
void setCurrentDevice(int index);

// Memory and copies; each throws std::runtime_error with CUDA's message on failure.
void* deviceAlloc(size_t nbytes, int* device_index);
void deviceFree(void* p);
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };
void deviceCopy(void* dst, const void* src, size_t nbytes, CopyKind kind);

}  // namespace opcore::cuda
