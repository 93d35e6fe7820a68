// The boundary between the CUDA kernels (CudaKernels.cu, compiled by nvcc) and the opcore
// kernels that call them (CudaOps.cpp, compiled by the C++ compiler). Only plain types
// cross it, so nvcc never parses opcore's headers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace opcore::cuda {

enum class ElementType : int { Bool, Int, Long, Float, Double };

// out[i] = a[i] + alpha * b[i] over n contiguous elements of one floating type.
void launchAdd(ElementType t, void* out, const void* a, const void* b, double alpha, int64_t n);
// out[i] = a[i] * b[i].
void launchMul(ElementType t, void* out, const void* a, const void* b, int64_t n);
// out[i] = value, for every element type.
void launchFill(ElementType t, void* out, double value, int64_t n);

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
