// Tensors to the operands of a CUDA elementwise kernel (CudaLaunch.h's StridedOperands), for
// the C++ side of the CUDA backend (CudaOps.cpp, CudaPointwise.cpp).
//   const Tensor a = cuda::onDevice(self, out), b = cuda::onDevice(other, out);
//   cuda::launchBinary(BinaryOp::Add, "add", dtype, cuda::stridedOperands<3>("add", {&out, &a, &b}), args);
#pragma once

#include "CudaLaunch.h"

#include <opcore/Tensor.h>

#include <array>
#include <optional>
#include <vector>

namespace opcore::cuda {

// Byte strides of `t` over `shape` (t broadcast to it: missing and size-1 dimensions step 0).
std::vector<int64_t> broadcastByteStrides(const char* op, const Tensor& t, IntArrayRef shape);

// The operands of an elementwise kernel: operands[0] is the result, whose shape the others
// broadcast to; all live on the GPU, in any dtypes.
template <int N>
StridedOperands<N> stridedOperands(const char* op, std::array<const Tensor*, N> operands) {
  const Tensor& out = *operands[0];
  std::array<std::vector<int64_t>, N> strides;
  const int64_t* stride_ptrs[N];
  StridedOperands<N> ops;
  for (int k = 0; k < N; ++k) {
    const Tensor& t = *operands[k];
    OPCORE_CHECK(t.is_cuda(), op, " (CUDA): expected every tensor on the GPU, but one is on ", t.device());
    strides[k] = broadcastByteStrides(op, t, out.sizes());
    stride_ptrs[k] = strides[k].data();
    ops.data[k] = static_cast<char*>(t.data_ptr());
    ops.dtypes[k] = t.scalar_type();
    ops.element_sizes[k] = t.element_size();
  }
  ops.numel = out.numel();
  OPCORE_CHECK(native::OffsetCalculator<N>::make(static_cast<int>(out.dim()), out.sizes().data(), stride_ptrs, ops.offsets),
               op, " (CUDA): more than ", native::kMaxOffsetDims, " dimensions remain after merging; not supported");
  ops.contiguous = ops.offsets.contiguous(ops.element_sizes);
  return ops;
}

// An operand of launchIndexed (Note [CUDA gather and scatter] in CudaLaunch.h): a tensor on
// the GPU and its strides in elements over the walked shape, 0 where it does not move.
struct IndexedOperand {
  const Tensor* tensor = nullptr;
  std::vector<int64_t> strides;
};

// launchIndexed's problem over `shape`: the written, read and index (Long) operands, the
// indexed side moving index_stride elements per index, indices in [0, bound) (wrapped first
// when `wrap`; checked before by badIndex).
IndexedProblem indexedProblem(const char* op, IntArrayRef shape, const IndexedOperand& written,
                              const IndexedOperand& read, const IndexedOperand& index, int64_t index_stride,
                              int64_t bound, bool wrap);

// The first value of `indices` (Long, on the GPU) outside [0, bound), or [-bound, bound) when
// `wrap`, for the caller to raise its error before anything is written: checked by a kernel
// whose flag is copied back (a wait for the stream; PyTorch's CUDA kernels assert on the device
// instead, which loses the process's GPU). nullopt when every index is inside.
std::optional<int64_t> badIndex(const Tensor& indices, int64_t bound, bool wrap = false);

// A zeroed Int flag on `device` for a kernel to set, and whether one did: a copy to the host
// that waits for the stream, after which the host can raise the CPU kernel's error (where
// PyTorch's CUDA kernels assert on the device and lose the process's GPU).
Tensor newFlag(Device device);
bool flagged(const Tensor& flag);

// Where a kernel writes out: out itself when it is contiguous, else a contiguous tensor of its
// shape, copied into it afterwards by copyBack.
Tensor contiguousOutput(const Tensor& out);
void copyBack(const Tensor& out, const Tensor& written);

// The dtype a kernel computes `dtype` in (opmath_t's): float for Half and BFloat16.
inline ScalarType opmathType(ScalarType dtype) {
  return dtype == ScalarType::Half || dtype == ScalarType::BFloat16 ? ScalarType::Float : dtype;
}

// `t` on out's GPU: a 0-dim CPU tensor (a wrapped number, Note [Devices of structured kernels]
// in gen/emit/structured.py) becomes a 0-dim GPU tensor filled by a kernel on the current
// stream (no copy from the host to wait for); any other tensor is returned as it is.
Tensor onDevice(const Tensor& t, const Tensor& out);

}  // namespace opcore::cuda
