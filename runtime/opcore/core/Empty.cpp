// Allocation of new tensors and views.
#include <opcore/core/Empty.h>

namespace opcore::detail {

TensorBase empty(IntArrayRef sizes, ScalarType dtype, Device device) {
  int64_t numel = 1;
  for (int64_t s : sizes) {
    OPCORE_CHECK(s >= 0, "empty(): negative dimension ", s, " in size ", sizes);
    numel *= s;
  }
  const size_t nbytes = static_cast<size_t>(numel) * elementSize(dtype);
  DataPtr data = device.isMeta() ? DataPtr(nullptr, nullptr, device)
                                 : getAllocator(device.type)->allocate(nbytes);
  if (device.isCuda() && device.index < 0) device = data.device();
  auto storage = makeIntrusive<StorageImpl>(std::move(data), nbytes);
  auto impl = makeIntrusive<TensorImpl>(std::move(storage), dtype, device);
  impl->setSizesContiguous(sizes);
  return TensorBase(std::move(impl));
}

TensorBase makeView(const TensorBase& base, IntArrayRef sizes, IntArrayRef strides,
                    int64_t storage_offset) {
  auto impl = makeIntrusive<TensorImpl>(base.unsafeGetTensorImpl()->storage(), base.scalarType(),
                                        base.device());
  impl->setSizesAndStrides(sizes, strides, storage_offset);
  return TensorBase(std::move(impl));
}

}  // namespace opcore::detail
