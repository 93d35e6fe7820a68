// The boundary between the CUDA kernels (CudaKernels.cu, compiled by nvcc) and the opcore
// kernels that call them (CudaOps.cpp, compiled by the C++ compiler). Only plain types, the
// element types (ScalarType.h and Scalar.h, written for both compilers: Half, BFloat16 and
// complex<T> are OPCORE_HOST_DEVICE) and the offsets of strided operands
// (common/OffsetCalculator.h) cross it; nvcc parses no other opcore header.
#pragma once

#include <opcore/core/Scalar.h>
#include <opcore/core/ScalarType.h>

#include <common/DynamicCast.h>
#include <common/OffsetCalculator.h>

#include <cstddef>
#include <cstdint>

namespace opcore::cuda {

// The operands of an elementwise kernel: operand 0 is the result, and element i of the
// result's row-major order is at data[k] + offset k of OffsetCalculator (broadcast inputs
// stride 0). Inputs of another dtype than the result's are read through fetchAs
// (common/DynamicCast.h). CudaOps.cpp builds them from tensors.
template <int N>
struct StridedOperands {
  char* data[N] = {};
  ScalarType dtypes[N] = {};
  int64_t element_sizes[N] = {};
  native::OffsetCalculator<N> offsets;
  int64_t numel = 0;
  bool contiguous = false;  // every operand dense, in index order: data[k] + i * element_sizes[k]
  bool mixed_dtypes = false;
};

// out = a + alpha * b, for any dtype t of out, computed in opmath_t<t> (Half and BFloat16 in float, through
// CUDA's __half and __nv_bfloat16 conversions) and rounded once.
void launchAdd(ScalarType t, const StridedOperands<3>& ops, const Scalar& alpha);
// out = a * b.
void launchMul(ScalarType t, const StridedOperands<3>& ops);
// out = value.
void launchFill(ScalarType t, const StridedOperands<1>& ops, const Scalar& value);
// out = a, converted to out's dtype t, any strides (a device-to-device copy_ that no memcpy does).
void launchCopy(ScalarType t, const StridedOperands<2>& ops);

// From CudaRuntime.cpp: the cudaStream_t of the calling thread's current stream on its current
// GPU, which every kernel launches on (nullptr: the GPU's default stream), and the check after
// a launch, which throws opcore::Error naming `op` (cudaGetLastError).
void* currentStreamHandle();
void checkLaunch(const char* op);

}  // namespace opcore::cuda
