// TensorImpl metadata updates.
#include <opcore/core/TensorImpl.h>

#include <opcore/core/Error.h>

#include <algorithm>
#include <cstring>

namespace opcore {

DispatchKeySet keySetForDevice(Device d) {
  switch (d.type()) {
    case DeviceType::CPU: return DispatchKeySet(DispatchKey::CPU);
    case DeviceType::CUDA: return DispatchKeySet(DispatchKey::CUDA);
    case DeviceType::Meta: return DispatchKeySet(DispatchKey::Meta);
    case DeviceType::PrivateUse1: return DispatchKeySet(DispatchKey::PrivateUse1);
  }
  OPCORE_INTERNAL_ASSERT(false, "unknown device type");
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, Device device)
    : storage_(std::move(storage)), dtype_(dtype), device_(device), key_set_(keySetForDevice(device).add(DispatchKey::ADInplaceOrView)) {}

void TensorImpl::setStorage(Storage storage) {
  if (storage_ && storage && storage.get() != storage_.get()) storage->setVersion(storage_->version() + 1);
  storage_ = std::move(storage);
}

// Note [Size arithmetic]
// Sizes, strides and storage offsets come from users (factories, view shapes, empty_strided,
// set_), so every product and sum over them is computed with an overflow check: a wrapped
// element count would allocate a few bytes for a tensor that kernels then index far past.
// The checks sit where storage is sized (detail::empty, detail::resizeOutput) and where
// metadata is set (setSizesAndStrides, which every factory and view goes through), so no caller
// can skip them: a tensor's numel fits int64_t, and every element it can reach lies inside its
// storage. Products of an existing tensor's sizes therefore need no further check.

namespace {

// a * b into *out; true when the product does not fit int64_t.
bool mulOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }

}  // namespace

int64_t checkedNumel(IntArrayRef sizes) {
  int64_t numel = 1;
  bool overflow = false;
  bool empty = false;  // a 0 makes the product 0, however the sizes before it overflowed
  for (const int64_t s : sizes) {
    OPCORE_CHECK(s >= 0, "negative dimension ", s, " in sizes ", sizes);
    empty |= s == 0;
    overflow |= mulOverflows(numel, s, &numel);
  }
  if (empty) return 0;
  OPCORE_CHECK(!overflow, "sizes ", sizes, " have more elements than int64_t can count");
  return numel;
}

int64_t checkedNbytes(IntArrayRef sizes, int64_t numel, size_t element_size) {
  int64_t nbytes = 0;
  OPCORE_CHECK(!mulOverflows(numel, static_cast<int64_t>(element_size), &nbytes), "sizes ", sizes,
               ": ", numel, " elements of ", element_size, " bytes need more bytes than int64_t can count");
  return nbytes;
}

std::optional<int64_t> storageExtent(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  int64_t last = storage_offset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    int64_t step = 0;
    if (mulOverflows(sizes[d] - 1, strides[d], &step) || __builtin_add_overflow(last, step, &last)) {
      return std::nullopt;
    }
  }
  int64_t extent = 0;
  if (__builtin_add_overflow(last, 1, &extent)) return std::nullopt;
  return extent;
}

void contiguousStridesInto(IntArrayRef sizes, int64_t* strides) {
  int64_t stride = 1;
  bool overflow = false;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    if (i > 0) overflow |= mulOverflows(stride, sizes[i] > 1 ? sizes[i] : 1, &stride);
  }
  OPCORE_CHECK(!overflow, "sizes ", sizes, ": the contiguous strides overflow int64_t");
}

void TensorImpl::setSizesAndStrides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  OPCORE_INTERNAL_ASSERT(sizes.size() == strides.size());
  OPCORE_CHECK(sizes.size() <= kMaxDims, "tensors have at most ", kMaxDims, " dimensions, got ",
               sizes.size());
  const int64_t numel = checkedNumel(sizes);
  OPCORE_CHECK(storage_offset >= 0, "negative storage offset ", storage_offset);
  for (const int64_t st : strides) OPCORE_CHECK(st >= 0, "negative stride ", st, " in strides ", strides);
  if (numel > 0 && storage_) {
    // The furthest element reachable, as a byte count, must lie inside the storage.
    const std::optional<int64_t> extent = storageExtent(sizes, strides, storage_offset);
    int64_t needed = 0;
    const bool overflow = !extent || mulOverflows(*extent, static_cast<int64_t>(elementSize(dtype_)), &needed);
    OPCORE_CHECK(!overflow && needed <= static_cast<int64_t>(storage_->nbytes()), "sizes ", sizes,
                 ", strides ", strides, " and storage offset ", storage_offset, " reach ",
                 overflow ? "more bytes than int64_t can count" : detail::strCat(needed, " bytes"),
                 ", beyond the storage's ", storage_->nbytes(), " bytes");
  }
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
  numel_ = numel;
  refreshContiguity();
}

// Every new tensor comes through here (detail::empty), so this is setSizesAndStrides with
// what contiguity already tells: the strides are non-negative and the furthest element is
// offset + numel - 1. A first pass checks what checkedNumel and contiguousStridesInto check
// (on a bad size those two run to throw their located errors) and a tensor that would not fit
// its storage goes to setSizesAndStrides, which throws the located error; only then is the
// tensor changed, in a second pass that writes the sizes and strides in place (not through a
// buffer: copying freshly written elements with wider loads stalls the store buffer).
void TensorImpl::setSizesContiguous(IntArrayRef sizes) {
  const size_t dim = sizes.size();
  OPCORE_CHECK(dim <= kMaxDims, "tensors have at most ", kMaxDims, " dimensions, got ", dim);
  int64_t numel = 1;
  int64_t stride = 1;
  bool bad = false;  // a negative size, or a product beyond int64_t
  bool empty = false;
  for (size_t i = dim; i-- > 0;) {
    const int64_t s = sizes[i];
    bad |= s < 0;
    empty |= s == 0;
    bad |= mulOverflows(numel, s, &numel);
    if (i > 0) bad |= mulOverflows(stride, s > 1 ? s : 1, &stride);
  }
  if (empty) numel = 0;
  if (bad) {
    checkedNumel(sizes);  // throws for a negative size or too many elements
    int64_t strides[kMaxDims];
    contiguousStridesInto(sizes, strides);  // throws for strides beyond int64_t
  }
  int64_t needed = 0;
  const bool fits = numel == 0 || !storage_ ||
                    (!__builtin_add_overflow(storage_offset_, numel, &needed) &&
                     !mulOverflows(needed, static_cast<int64_t>(elementSize(dtype_)), &needed) &&
                     needed <= static_cast<int64_t>(storage_->nbytes()));
  if (!fits) {
    int64_t strides[kMaxDims];
    contiguousStridesInto(sizes, strides);
    setSizesAndStrides(sizes, IntArrayRef(strides, dim), storage_offset_);
    OPCORE_INTERNAL_ASSERT(false, "setSizesContiguous: the sizes should not have fit");
  }
  // `sizes` may be this tensor's own (t.sizes()), which the writes below replace.
  int64_t copy[kMaxDims];
  const auto at = reinterpret_cast<uintptr_t>(sizes.data());
  const auto own = reinterpret_cast<uintptr_t>(dims());
  if (at >= own && at < own + 2 * dim_ * sizeof(int64_t)) {
    std::copy(sizes.begin(), sizes.end(), copy);
    sizes = IntArrayRef(copy, dim);
  }
  dim_ = dim;
  if (dim <= kInlineDims) {
    heap_.reset();
  } else {
    heap_.reset(new int64_t[2 * dim]);
  }
  int64_t* out = dims();
  stride = 1;
  for (size_t i = dim; i-- > 0;) {
    out[i] = sizes[i];
    out[dim + i] = stride;
    if (i > 0) stride *= sizes[i] > 1 ? sizes[i] : 1;  // checked above
  }
  numel_ = numel;
  is_contiguous_ = true;
}

void TensorImpl::refreshContiguity() {
  const int64_t* sz = dims();
  const int64_t* st = dims() + dim_;
  // Contiguous: strides are the row-major strides, ignoring dimensions of size 1. An empty
  // tensor is contiguous whatever its strides (and the products below could overflow for it).
  is_contiguous_ = true;
  if (numel_ == 0) return;
  int64_t expected = 1;
  for (size_t i = dim_; i-- > 0;) {
    if (sz[i] == 1) continue;
    if (st[i] != expected) {
      is_contiguous_ = false;
      return;
    }
    expected *= sz[i];
  }
}

}  // namespace opcore
