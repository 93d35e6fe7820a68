// npu: an example PrivateUse1 backend (docs/backends.md, "Writing a backend"). Its devices,
// npu:0 and npu:1, are host memory, so its kernels compute with opcore's CPU kernels on CPU
// tensors over the same bytes; a real accelerator's would launch work on the device instead.
// Loading libnpu names PrivateUse1 "npu", installs the device's allocator and guard, and
// registers the kernels of npu_native_functions.yaml and the CPU fallback for the rest.
#pragma once

#include <opcore/Tensor.h>

#include <cstdint>

namespace npu {

constexpr int kDeviceCount = 2;

// What the device's allocator has handed out: every allocation so far, and the bytes and
// blocks not yet freed.
struct AllocatorStats {
  int64_t allocations = 0;
  int64_t live_bytes = 0;
  int64_t live_blocks = 0;
};
AllocatorStats allocator_stats();

// A CPU tensor over the bytes of an npu tensor (same sizes, strides and offset); a CPU tensor
// is returned as it is.
opcore::Tensor onHost(const opcore::Tensor& t);

}  // namespace npu

// The counters for Python (ctypes.CDLL(libnpu).npu_live_bytes()).
extern "C" {
int64_t npu_allocations();
int64_t npu_live_bytes();
}
