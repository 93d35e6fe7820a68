// MemoryFormat: the order in which a tensor's dimensions are laid out in memory
// (`MemoryFormat memory_format=contiguous_format`), and the strides each format gives.
//   contiguousStrides({2, 3, 4, 5}, MemoryFormat::ChannelsLast) == {60, 1, 15, 3}   // NHWC
#pragma once

#include <opcore/core/ArrayRef.h>

#include <cstdint>
#include <iosfwd>
#include <vector>

namespace opcore {

enum class MemoryFormat : int8_t {
  Contiguous = 0,  // row-major (`contiguous_format`)
  Preserve,        // keep the input's layout (`preserve_format`); not a layout by itself
  ChannelsLast,    // 4-D NCHW sizes laid out as NHWC (`channels_last`)
  ChannelsLast3d,  // 5-D NCDHW sizes laid out as NDHWC (`channels_last_3d`)
};
constexpr int kNumMemoryFormats = 4;

// "Contiguous", "Preserve", "ChannelsLast", "ChannelsLast3d" (the enumerator name).
const char* toString(MemoryFormat f);
std::ostream& operator<<(std::ostream& os, MemoryFormat f);

// The strides of a dense tensor of `sizes` laid out in `format`. Throws for Preserve (it
// names no layout) and for a channels-last format of the wrong rank (4-D, 5-D for 3d).
std::vector<int64_t> contiguousStrides(IntArrayRef sizes, MemoryFormat format);

// Whether `strides` lay out `sizes` densely in `format` (sizes of 1 may have any stride,
// as for PyTorch's is_contiguous(memory_format)). False for a channels-last format of the
// wrong rank; throws for Preserve.
bool isContiguousAs(IntArrayRef sizes, IntArrayRef strides, MemoryFormat format);

}  // namespace opcore
