// Composite layout and memory-format operators: empty_strided, empty_like and contiguous,
// built on empty (so they work on every backend) and copy_.
#include <opcore/ops/contiguous_native.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/empty_like.h>
#include <opcore/ops/empty_like_native.h>
#include <opcore/ops/empty_strided.h>
#include <opcore/ops/empty_strided_native.h>
#include <opcore/core/Empty.h>

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

}  // namespace

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device) {
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
  const Tensor flat = opcore::empty({*extent}, dtype, std::nullopt, device);
  return detail::makeView(flat, size, stride, 0);
}

Tensor empty_like(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                  std::optional<Device> device, std::optional<MemoryFormat> memory_format) {
  detail::checkStridedLayout("empty_like", layout);
  const ScalarType type = dtype.value_or(self.scalar_type());
  const Device where = device.value_or(self.device());
  MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  if (format == MemoryFormat::Preserve) {
    if (isNonOverlappingAndDense(self.sizes(), self.strides())) {
      return opcore::empty_strided(self.sizes(), self.strides(), type, std::nullopt, where);
    }
    format = suggestMemoryFormat(self);
  }
  return opcore::empty_strided(self.sizes(), contiguousStrides(self.sizes(), format), type, std::nullopt, where);
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  OPCORE_CHECK(memory_format != MemoryFormat::Preserve,
               "contiguous: preserve_format names no layout; ask for contiguous_format, channels_last or "
               "channels_last_3d");
  if (self.is_contiguous(memory_format)) return self;
  Tensor out = opcore::empty_like(self, std::nullopt, std::nullopt, std::nullopt, memory_format);
  if (!out.is_meta()) out.copy_(self);  // a Meta tensor has no values to copy
  return out;
}

}  // namespace opcore::native
