// Allocation of new tensors and views.
#include <opcore/core/Empty.h>

#include <opcore/core/CachingHostAllocator.h>
#include <opcore/core/DeviceGuard.h>

#include <vector>

namespace opcore::detail {

namespace {

// `nbytes` of uninitialised memory on `device` (Meta: none), pinned when asked; small CPU
// storages hold their bytes inline (Note [Small storages inline] in Storage.h).
Storage newStorage(size_t nbytes, Device device, bool pinned = false) {
  if (pinned) {
    OPCORE_CHECK(device.is_cpu(), "only dense CPU tensors can be pinned, not a tensor on ", device);
    return makeIntrusive<StorageImpl>(pinningAllocator(std::nullopt, "pin_memory").allocate(nbytes), nbytes);
  }
  if (device.is_cpu() && nbytes > 0 && nbytes <= StorageImpl::kInlineBytes && cpuAllocatorIsBuiltin()) {
    return StorageImpl::makeInline(nbytes);
  }
  if (device.is_meta()) return makeIntrusive<StorageImpl>(DataPtr(nullptr, nullptr, device), nbytes);
  // A device's allocator serves its current device (cuda:1 made current for cuda:1's bytes).
  const DeviceGuard guard(device);
  DataPtr data = getAllocator(device.type())->allocate(nbytes);
  return makeIntrusive<StorageImpl>(std::move(data), nbytes);
}

// A larger storage to replace `old` (a resize): pinned memory stays pinned by its allocator, as
// PyTorch's storages grow with the allocator that made them.
Storage grownStorage(const Storage& old, size_t nbytes, Device device) {
  if (CachingHostAllocator* pinned = old ? CachingHostAllocator::pinnedBy(old->data_ptr()) : nullptr) {
    return makeIntrusive<StorageImpl>(pinned->allocate(nbytes), nbytes);
  }
  return newStorage(nbytes, device);
}

}  // namespace

TensorBase empty(IntArrayRef sizes, ScalarType dtype, Device device, MemoryFormat format, bool pinned) {
  checkSupportedScalarType(dtype);
  // Sized with overflow checks (Note [Size arithmetic] in TensorImpl.cpp).
  const auto nbytes = static_cast<size_t>(checkedNbytes(sizes, checkedNumel(sizes), elementSize(dtype)));
  std::vector<int64_t> strides;
  if (format != MemoryFormat::Contiguous) strides = contiguousStrides(sizes, format);  // may throw: before allocating
  Storage storage = newStorage(nbytes, device, pinned);
  if (device.has_device_index_type() && device.index() < 0) device = storage->device();
  auto impl = makeIntrusive<TensorImpl>(std::move(storage), dtype, device);
  if (strides.empty()) {
    impl->setSizesContiguous(sizes);
  } else {
    impl->setSizesAndStrides(sizes, strides, 0);
  }
  return TensorBase(std::move(impl));
}

void checkStridedLayout(const char* op, std::optional<Layout> layout) {
  OPCORE_CHECK(!layout || *layout == Layout::Strided, op, ": only the strided layout is supported, got ", *layout);
}

TensorBase makeView(const TensorBase& base, IntArrayRef sizes, IntArrayRef strides,
                    int64_t storage_offset) {
  return makeView(base, base.scalar_type(), sizes, strides, storage_offset);
}

TensorBase makeView(const TensorBase& base, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                    int64_t storage_offset) {
  auto impl = makeIntrusive<TensorImpl>(base.unsafeGetTensorImpl()->storage(), dtype, base.device());
  impl->setSizesAndStrides(sizes, strides, storage_offset);
  return TensorBase(std::move(impl));
}

void resizeOutput(const TensorBase& out, IntArrayRef sizes) {
  if (out.sizes() == sizes) return;
  // Sized with overflow checks (Note [Size arithmetic] in TensorImpl.cpp).
  const int64_t numel = checkedNumel(sizes);
  TensorImpl* impl = out.unsafeGetTensorImpl();
  const size_t elem = elementSize(out.scalar_type());
  const Storage& storage = impl->storage();
  // The elements the storage holds past the offset (offset + numel could overflow).
  const int64_t room = storage ? static_cast<int64_t>(storage->nbytes() / elem) - impl->storage_offset() : 0;
  if (storage && numel <= room) {
    impl->setSizesContiguous(sizes);
    return;
  }
  // Too small: fresh storage for exactly `numel` elements, starting at offset 0.
  const Device device = out.device();
  const auto nbytes = static_cast<size_t>(checkedNbytes(sizes, numel, elem));
  int64_t strides[TensorImpl::kMaxDims];
  OPCORE_CHECK(sizes.size() <= TensorImpl::kMaxDims, "tensors have at most ", TensorImpl::kMaxDims,
               " dimensions, got ", sizes.size());
  contiguousStridesInto(sizes, strides);  // before the storage changes: it may throw
  impl->setStorage(grownStorage(storage, nbytes, device));
  impl->setSizesAndStrides(sizes, IntArrayRef(strides, sizes.size()), 0);
}

void resizeKeepingData(const TensorBase& self, IntArrayRef sizes, MemoryFormat format,
                       void (*copy)(void* dst, const void* src, size_t nbytes)) {
  const std::vector<int64_t> strides = contiguousStrides(sizes, format);
  TensorImpl* impl = self.unsafeGetTensorImpl();
  const size_t elem = elementSize(self.scalar_type());
  const int64_t offset = impl->storage_offset();
  // The storage must hold offset + numel elements (Note [Size arithmetic] in TensorImpl.cpp).
  int64_t needed = 0;
  OPCORE_CHECK(!__builtin_add_overflow(offset, checkedNumel(sizes), &needed), "resize_: sizes ", sizes,
               " at storage offset ", offset, " overflow int64_t");
  const int64_t need[] = {needed};
  const auto nbytes = static_cast<size_t>(checkedNbytes(IntArrayRef(need, 1), needed, elem));
  const Storage& old = impl->storage();
  const size_t have = old ? old->nbytes() : 0;
  if (nbytes > have) {
    Storage grown = grownStorage(old, nbytes, self.device());
    if (copy != nullptr && have > 0) copy(grown->data(), old->data(), have);
    impl->setStorage(std::move(grown));
  }
  impl->setSizesAndStrides(sizes, strides, offset);
}

}  // namespace opcore::detail
