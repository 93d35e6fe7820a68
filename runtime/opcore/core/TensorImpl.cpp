// TensorImpl metadata updates.
#include <opcore/core/TensorImpl.h>

#include <opcore/core/Error.h>

#include <cstring>

namespace opcore {

DispatchKeySet keySetForDevice(Device d) {
  switch (d.type) {
    case DeviceType::CPU: return DispatchKeySet(DispatchKey::CPU);
    case DeviceType::CUDA: return DispatchKeySet(DispatchKey::CUDA);
    case DeviceType::Meta: return DispatchKeySet(DispatchKey::Meta);
  }
  OPCORE_INTERNAL_ASSERT(false, "unknown device type");
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, Device device)
    : storage_(std::move(storage)), dtype_(dtype), device_(device), key_set_(keySetForDevice(device).add(DispatchKey::ADInplaceOrView)) {}

void TensorImpl::setStorage(Storage storage) {
  if (storage_ && storage && storage.get() != storage_.get()) storage->setVersion(storage_->version() + 1);
  storage_ = std::move(storage);
}

void* TensorImpl::data() const {
  if (!storage_ || storage_->data() == nullptr) return nullptr;
  return static_cast<char*>(storage_->data()) +
         storage_offset_ * static_cast<int64_t>(elementSize(dtype_));
}

void TensorImpl::setSizesAndStrides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  OPCORE_INTERNAL_ASSERT(sizes.size() == strides.size());
  for (int64_t s : sizes) OPCORE_CHECK(s >= 0, "negative dimension ", s, " in sizes ", sizes);
  OPCORE_CHECK(sizes.size() <= kMaxDims, "tensors have at most ", kMaxDims, " dimensions, got ",
               sizes.size());
  // Copy through a buffer first: sizes/strides may point into our own arrays.
  int64_t buffer[2 * kMaxDims];
  if (!sizes.empty()) {  // memcpy from a null pointer is undefined even for 0 bytes
    std::memcpy(buffer, sizes.data(), sizes.size() * sizeof(int64_t));
    std::memcpy(buffer + sizes.size(), strides.data(), strides.size() * sizeof(int64_t));
  }
  dim_ = sizes.size();
  if (dim_ <= kInlineDims) {
    heap_.reset();
  } else {
    heap_.reset(new int64_t[2 * dim_]);
  }
  if (dim_ > 0) std::memcpy(dims(), buffer, 2 * dim_ * sizeof(int64_t));
  storage_offset_ = storage_offset;
  refreshDerived();
}

void TensorImpl::setSizesContiguous(IntArrayRef sizes) {
  int64_t strides[kMaxDims];
  OPCORE_CHECK(sizes.size() <= kMaxDims, "tensors have at most ", kMaxDims, " dimensions, got ",
               sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= sizes[i] > 1 ? sizes[i] : 1;
  }
  setSizesAndStrides(sizes, IntArrayRef(strides, sizes.size()), storage_offset_);
}

void TensorImpl::refreshDerived() {
  const int64_t* sz = dims();
  const int64_t* st = dims() + dim_;
  numel_ = 1;
  for (size_t i = 0; i < dim_; ++i) numel_ *= sz[i];
  // Contiguous: strides are the row-major strides, ignoring dimensions of size 1.
  is_contiguous_ = true;
  int64_t expected = 1;
  for (size_t i = dim_; i-- > 0;) {
    if (sz[i] == 1) continue;
    if (st[i] != expected) {
      is_contiguous_ = numel_ == 0;
      break;
    }
    expected *= sz[i];
  }
}

}  // namespace opcore
