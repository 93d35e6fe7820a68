// Names of memory formats, and the strides each one gives.
#include <opcore/core/MemoryFormat.h>

#include <opcore/core/Error.h>

#include <ostream>

namespace opcore {

const char* toString(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return "Contiguous";
    case MemoryFormat::Preserve: return "Preserve";
    case MemoryFormat::ChannelsLast: return "ChannelsLast";
    case MemoryFormat::ChannelsLast3d: return "ChannelsLast3d";
  }
  return "UnknownMemoryFormat";
}

std::ostream& operator<<(std::ostream& os, MemoryFormat f) { return os << toString(f); }

namespace {

// The dimensions from outermost to innermost in memory: 0 1 2 3 for Contiguous,
// 0 2 3 1 (N H W C) for ChannelsLast, 0 2 3 4 1 for ChannelsLast3d.
std::vector<size_t> memoryOrder(size_t ndim, MemoryFormat format) {
  std::vector<size_t> order;
  if (format == MemoryFormat::Contiguous) {
    for (size_t d = 0; d < ndim; ++d) order.push_back(d);
    return order;
  }
  order.push_back(0);
  for (size_t d = 2; d < ndim; ++d) order.push_back(d);
  order.push_back(1);
  return order;
}

size_t channelsLastRank(MemoryFormat format) { return format == MemoryFormat::ChannelsLast ? 4 : 5; }

}  // namespace

std::vector<int64_t> contiguousStrides(IntArrayRef sizes, MemoryFormat format) {
  OPCORE_CHECK(format != MemoryFormat::Preserve,
               "MemoryFormat::Preserve names no layout: resolve it against a tensor first");
  if (format != MemoryFormat::Contiguous) {
    OPCORE_CHECK(sizes.size() == channelsLastRank(format), toString(format), " needs a ",
                 channelsLastRank(format), "-D tensor, got sizes ", sizes);
  }
  std::vector<int64_t> strides(sizes.size());
  const std::vector<size_t> order = memoryOrder(sizes.size(), format);
  int64_t step = 1;
  bool overflow = false;  // Note [Size arithmetic] in TensorImpl.cpp
  for (size_t i = order.size(); i-- > 0;) {
    strides[order[i]] = step;
    if (i > 0) overflow |= __builtin_mul_overflow(step, sizes[order[i]] > 1 ? sizes[order[i]] : 1, &step);
  }
  OPCORE_CHECK(!overflow, "sizes ", sizes, ": the ", toString(format), " strides overflow int64_t");
  return strides;
}

bool isContiguousAs(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format) {
  OPCORE_CHECK(format != MemoryFormat::Preserve,
               "MemoryFormat::Preserve names no layout: resolve it against a tensor first");
  OPCORE_INTERNAL_ASSERT(sizes.size() == strides.size(), "sizes and strides of different ranks");
  if (format != MemoryFormat::Contiguous && sizes.size() != channelsLastRank(format)) return false;
  for (const int64_t size : sizes) {
    if (size == 0) return true;  // an empty tensor is contiguous in every format
  }
  const std::vector<size_t> order = memoryOrder(sizes.size(), format);
  int64_t expected = 1;
  for (size_t i = order.size(); i-- > 0;) {
    const size_t d = order[i];
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

}  // namespace opcore
