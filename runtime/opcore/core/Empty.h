// Allocation of new tensors, used by the factory kernels (empty_cpu, ...) and by kernels
// that allocate their outputs. These bypass the dispatcher.
//   TensorBase t = detail::empty({2, 3}, ScalarType::Float, Device(DeviceType::CPU));
#pragma once

#include <opcore/core/TensorBase.h>

namespace opcore::detail {

// A contiguous, uninitialised tensor on `device` (Meta: no data is allocated).
TensorBase empty(IntArrayRef sizes, ScalarType dtype, Device device);
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

}  // namespace opcore::detail
