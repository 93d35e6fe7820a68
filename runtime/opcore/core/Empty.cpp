// Allocation of new tensors and views.
#include <opcore/core/Empty.h>

#include <vector>

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

void resizeOutput(const TensorBase& out, IntArrayRef sizes) {
  if (out.sizes() == sizes) return;
  int64_t numel = 1;
  for (int64_t s : sizes) {
    OPCORE_CHECK(s >= 0, "resizeOutput(): negative dimension ", s, " in size ", sizes);
    numel *= s;
  }
  TensorImpl* impl = out.unsafeGetTensorImpl();
  const size_t elem = elementSize(out.scalarType());
  const size_t needed = static_cast<size_t>(impl->storageOffset() + numel) * elem;
  const Storage& storage = impl->storage();
  if (storage && storage->nbytes() >= needed) {
    impl->setSizesContiguous(sizes);
    return;
  }
  // Too small: fresh storage for exactly `numel` elements, starting at offset 0.
  const Device device = out.device();
  const size_t nbytes = static_cast<size_t>(numel) * elem;
  DataPtr data = device.isMeta() ? DataPtr(nullptr, nullptr, device)
                                 : getAllocator(device.type)->allocate(nbytes);
  impl->setStorage(makeIntrusive<StorageImpl>(std::move(data), nbytes));
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= sizes[i] > 1 ? sizes[i] : 1;
  }
  impl->setSizesAndStrides(sizes, strides, 0);
}

}  // namespace opcore::detail
