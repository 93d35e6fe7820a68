// Allocation of new tensors, used by the factory kernels (empty_cpu, ...) and by kernels
// that allocate their outputs. These bypass the dispatcher.
//   TensorBase t = detail::empty({2, 3}, ScalarType::Float, Device(DeviceType::CPU));
#pragma once

#include <opcore/core/Layout.h>
#include <opcore/core/MemoryFormat.h>
#include <opcore/core/TensorBase.h>

#include <optional>

namespace opcore::detail {

// An uninitialised tensor on `device` (Meta: no data is allocated), dense in `format`'s
// dimension order (Preserve names no layout and throws). `pinned`: a CPU tensor in pinned
// memory, pinned for the accelerator this machine has (CachingHostAllocator.h); refused for
// other devices, and on a machine without an accelerator.
TensorBase empty(IntArrayRef sizes, ScalarType dtype, Device device, MemoryFormat format = MemoryFormat::Contiguous,
                 bool pinned = false);
// Refuses every layout but strided: "<op>: only the strided layout is supported, got <layout>".
void checkStridedLayout(const char* op, std::optional<Layout> layout);
inline TensorBase emptyCpu(IntArrayRef sizes, ScalarType dtype) {
  return empty(sizes, dtype, Device(DeviceType::CPU));
}
// A tensor sharing `base`'s storage with new sizes, strides and offset (a view).
TensorBase makeView(const TensorBase& base, IntArrayRef sizes, IntArrayRef strides,
                    int64_t storage_offset);
// The same with another dtype (view_as_real, view_as_complex): sizes, strides and offset are
// in elements of `dtype`.
TensorBase makeView(const TensorBase& base, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                    int64_t storage_offset);
// Gives an out= tensor the shape `sizes` (a no-op when it already has it): contiguous
// strides, and new storage when the current one is too small. Other views of the old
// storage keep it.   detail::resizeOutput(out, {2, 3});
void resizeOutput(const TensorBase& out, IntArrayRef sizes);
// Tensor.resize_'s storage work: `self` gets `sizes` with `format`'s dense strides at its
// storage offset; a storage too small is replaced by a larger one that starts with the old
// bytes (`copy(dst, src, nbytes)` moves them; nullptr on Meta). Other views of the old storage
// keep it.
void resizeKeepingData(const TensorBase& self, IntArrayRef sizes, MemoryFormat format,
                       void (*copy)(void* dst, const void* src, size_t nbytes));

}  // namespace opcore::detail
