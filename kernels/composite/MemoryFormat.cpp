// Composite layout and memory-format operators: empty_strided, empty_like, contiguous, the
// copies that keep a tensor's layout (_to_copy) and pinned memory (is_pinned, pin_memory,
// _pin_memory), built on empty (so they work on every backend) and copy_.
#include <opcore/ops/_pin_memory.h>
#include <opcore/ops/_pin_memory_native.h>
#include <opcore/ops/_to_copy_native.h>
#include <opcore/ops/contiguous_native.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/empty_like.h>
#include <opcore/ops/empty_like_native.h>
#include <opcore/ops/empty_strided.h>
#include <opcore/ops/empty_strided_native.h>
#include <opcore/ops/is_pinned.h>
#include <opcore/ops/is_pinned_native.h>
#include <opcore/ops/pin_memory_native.h>
#include <opcore/core/CachingHostAllocator.h>
#include <opcore/core/Empty.h>
#include <opcore/core/TensorImpl.h>

#include "common/Shape.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace opcore::native {

namespace {

// Whether (sizes, strides) cover a block of memory exactly once, in some dimension order
// (PyTorch's is_non_overlapping_and_dense): such a tensor's strides can be copied as they are.
bool isNonOverlappingAndDense(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return sizes[a] == 1 ? false : (sizes[b] == 1 ? true : strides[a] < strides[b]);
  });
  int64_t expected = 1;
  for (const size_t d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

// The memory format to use for a copy of `t` when its own strides cannot be kept.
MemoryFormat suggestMemoryFormat(const Tensor& t) {
  for (const MemoryFormat f : {MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d}) {
    if (!t.is_contiguous() && t.is_contiguous(f)) return f;
  }
  return MemoryFormat::Contiguous;
}

// The strides of an uninitialised tensor like `t` in `format` (Preserve: `t`'s own when it is
// dense and non-overlapping, else its suggested format's).
std::vector<int64_t> stridesLike(const Tensor& t, MemoryFormat format) {
  if (format == MemoryFormat::Preserve) {
    if (isNonOverlappingAndDense(t.sizes(), t.strides())) return t.strides().vec();
    format = suggestMemoryFormat(t);
  }
  return contiguousStrides(t.sizes(), format);
}

// An uninitialised CPU tensor like `t` (stridesLike's strides for `format`) in `dtype`, in memory
// pinned for `device`'s accelerator (the machine's without one). `op` names the caller in errors.
Tensor emptyPinnedLike(const Tensor& t, ScalarType dtype, MemoryFormat format, std::optional<Device> device,
                       const char* op) {
  CachingHostAllocator& allocator = pinningAllocator(device, op);
  const size_t nbytes = static_cast<size_t>(t.numel()) * elementSize(dtype);  // dense strides: no gaps
  auto impl = makeIntrusive<TensorImpl>(makeIntrusive<StorageImpl>(allocator.allocate(nbytes), nbytes), dtype,
                                        Device(DeviceType::CPU));
  impl->setSizesAndStrides(t.sizes(), stridesLike(t, format), 0);
  return Tensor(TensorBase(std::move(impl)));
}

}  // namespace

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device, std::optional<bool> pin_memory) {
  detail::checkStridedLayout("empty_strided", layout);
  OPCORE_CHECK(size.size() == stride.size(), "empty_strided: got ", size.size(), " sizes but ", stride.size(),
               " strides");
  for (size_t d = 0; d < size.size(); ++d) {
    OPCORE_CHECK(size[d] >= 0, "empty_strided: negative dimension ", size[d], " in size ", size);
    OPCORE_CHECK(stride[d] >= 0, "empty_strided: negative stride ", stride[d], " in stride ", stride);
  }
  // The storage holds the furthest element the strides reach (none when a size is 0).
  const std::optional<int64_t> extent = storageExtent(size, stride, 0);
  OPCORE_CHECK(extent.has_value(), "empty_strided: size ", size, " with stride ", stride,
               " reaches more elements than int64_t can count");
  const Tensor flat = opcore::empty({*extent}, dtype, std::nullopt, device, pin_memory);
  return detail::makeView(flat, size, stride, 0);
}

Tensor empty_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  detail::checkStridedLayout("empty_like", layout);
  return opcore::empty_strided(self.sizes(), stridesLike(self, memory_format.value_or(MemoryFormat::Preserve)),
                               dtype.value_or(self.scalar_type()), std::nullopt, device.value_or(self.device()),
                               pin_memory);
}

// A copy laid out as empty_like lays it out. A non-blocking copy from an accelerator to the CPU
// lands in memory pinned for that accelerator, as PyTorch's does (when its backend pins memory):
// only then can the copy return before it has run; the caller synchronizes before reading.
Tensor _to_copy(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking,
                std::optional<MemoryFormat> memory_format) {
  detail::checkStridedLayout("_to_copy", layout);
  const bool pin_out = non_blocking && device && device->is_cpu() && self.device().has_device_index_type() &&
                       hostAllocator(self.device().type()) != nullptr;
  Tensor out = pin_out ? emptyPinnedLike(self, dtype.value_or(self.scalar_type()),
                                         memory_format.value_or(MemoryFormat::Preserve), self.device(), "to")
                       : opcore::empty_like(self, dtype, layout, device, pin_memory, memory_format);
  if (!out.device().is_meta()) out.copy_(self, non_blocking);
  return out;
}

bool is_pinned(const Tensor& self, std::optional<Device> device) {
  OPCORE_CHECK(!device || device->has_device_index_type(), "is_pinned: expected an accelerator device, got ", *device);
  return self.is_cpu() && isPinned(self.storage()->data_ptr(), device);
}

Tensor pin_memory(const Tensor& self, std::optional<Device> device) {
  return self.is_pinned(device) ? self : opcore::_pin_memory(self, device);
}

Tensor _pin_memory(const Tensor& self, std::optional<Device> device) {
  OPCORE_CHECK(self.is_cpu(), "cannot pin a tensor on ", self.device(), ": only dense CPU tensors can be pinned");
  Tensor out = emptyPinnedLike(self, self.scalar_type(), MemoryFormat::Preserve, device, "pin_memory");
  out.copy_(self);
  return out;
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  OPCORE_CHECK(memory_format != MemoryFormat::Preserve,
               "contiguous: preserve_format names no layout; ask for contiguous_format, channels_last or "
               "channels_last_3d");
  if (self.is_contiguous(memory_format)) return self;
  Tensor out = opcore::empty_like(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt, memory_format);
  if (!out.is_meta()) out.copy_(self);  // a Meta tensor has no values to copy
  return out;
}

}  // namespace opcore::native
