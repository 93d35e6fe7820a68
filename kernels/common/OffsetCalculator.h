// Where each operand's element of an elementwise loop lives, for loops that walk the elements
// of a result one index at a time (the CUDA loops: one thread per index, grid-stride): the
// index in the result's row-major order maps to a byte offset in every operand, whatever its
// strides, broadcast operands having stride 0. Written for both compilers (Note [nvcc-clean
// pointwise headers] in pointwise/Binary.h): the host builds it, the device reads it.
//   const int64_t* strides[2] = {out_strides, in_strides};  // bytes, expanded to out's shape
//   auto calc = OffsetCalculator<2>::make(ndim, sizes, strides);
//   int64_t off[2];  calc.offsets<uint32_t>(i, off);        // out at off[0], input at off[1]
//
// Note [Coalesced dimensions]
// make() drops dimensions of size 1 and merges a dimension into the next outer one when every
// operand steps across the pair as across one dimension (inner stride x inner size == outer
// stride), so a contiguous or uniformly strided operand set becomes one dimension and a
// transposed one two: the per-index division below runs once per remaining dimension.
//
// Note [Division by invariant integers]
// A GPU has no integer divider: `n / d` is a long instruction sequence, and the offsets divide
// once per dimension per element. The sizes are fixed for a whole launch, so each is turned on
// the host into a multiplier and a shift (Granlund and Montgomery's method, as ATen's
// IntDivider): with s = ceil(log2 d) and m = floor(2^W (2^s - d) / d) + 1,
//   n / d == (mulhi_W(n, m) + n) >> s    for n < 2^(W-1),
// one high multiplication, an addition and a shift. W = 32 serves a launch whose element
// count fits in int32 (the loops then index in 32 bits); W = 64 serves any other.
#pragma once

#include <opcore/core/Macros.h>

#include <cstdint>
#include <type_traits>

namespace opcore::native {

// d > 0; see Note [Division by invariant integers].
struct IntDivider {
  uint64_t divisor = 1;
  uint64_t magic64 = 1;
  uint32_t magic32 = 1;
  int shift = 0;

  IntDivider() = default;
  explicit IntDivider(uint64_t d) : divisor(d) {
    while (shift < 63 && (uint64_t{1} << shift) < d) ++shift;
    const unsigned __int128 excess = (static_cast<unsigned __int128>(1) << shift) - d;  // < d
    magic64 = static_cast<uint64_t>((excess << 64) / d + 1);
    magic32 = static_cast<uint32_t>(((excess << 32) / d + 1));  // meaningful for d < 2^31 only
  }

  // n / divisor, for n < 2^31 (the 32-bit form: divisor < 2^31 too) or n < 2^63.
  OPCORE_HOST_DEVICE uint32_t divide(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const uint32_t high = __umulhi(n, magic32);
#else
    const auto high = static_cast<uint32_t>((static_cast<uint64_t>(n) * magic32) >> 32);
#endif
    return (high + n) >> shift;
  }
  OPCORE_HOST_DEVICE uint64_t divide(uint64_t n) const {
#if defined(__CUDA_ARCH__)
    const uint64_t high = __umul64hi(n, magic64);
#else
    const auto high = static_cast<uint64_t>((static_cast<unsigned __int128>(n) * magic64) >> 64);
#endif
    return (high + n) >> shift;
  }
};

// Dimensions left after coalescing that an OffsetCalculator holds; more is refused by make().
constexpr int kMaxOffsetDims = 16;

template <int N>
struct OffsetCalculator {
  int dims = 0;                              // after coalescing, innermost first
  int64_t sizes[kMaxOffsetDims] = {};
  IntDivider dividers[kMaxOffsetDims];       // by sizes[d]
  int64_t strides[kMaxOffsetDims][N] = {};   // bytes

  // out[k]: the byte offset of operand k's element at row-major index `linear` of the shape.
  // Index is uint32_t when the shape has fewer than 2^31 elements, else uint64_t.
  template <typename Index>
  OPCORE_HOST_DEVICE void offsets(Index linear, int64_t (&out)[N]) const {
    static_assert(std::is_same_v<Index, uint32_t> || std::is_same_v<Index, uint64_t>);
    for (int k = 0; k < N; ++k) out[k] = 0;
    for (int d = 0; d < dims; ++d) {
      const Index quotient = dividers[d].divide(linear);
      const auto i = static_cast<int64_t>(linear - quotient * static_cast<Index>(sizes[d]));
      linear = quotient;
      for (int k = 0; k < N; ++k) out[k] += i * strides[d][k];
    }
  }

  // Whether every operand is dense in index order, operand k in steps of element_sizes[k]: the
  // loop may then index each operand by the element index alone.
  bool contiguous(const int64_t (&element_sizes)[N]) const {
    if (dims == 0) return true;
    if (dims > 1) return false;
    for (int k = 0; k < N; ++k) {
      if (strides[0][k] != element_sizes[k]) return false;
    }
    return true;
  }

  // From `ndim` sizes (outermost first, as a tensor's) and each operand's byte strides over
  // them (broadcast dimensions stride 0). Returns false, leaving `calc` unusable, when more
  // than kMaxOffsetDims dimensions remain after coalescing.
  static bool make(int ndim, const int64_t* sizes, const int64_t* const* byte_strides, OffsetCalculator& calc) {
    calc.dims = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      if (sizes[d] == 1) continue;
      if (calc.dims > 0 && mergesWithInner(calc, sizes, byte_strides, d)) {
        calc.sizes[calc.dims - 1] *= sizes[d];
        continue;
      }
      if (calc.dims == kMaxOffsetDims) return false;
      calc.sizes[calc.dims] = sizes[d];
      for (int k = 0; k < N; ++k) calc.strides[calc.dims][k] = byte_strides[k][d];
      ++calc.dims;
    }
    for (int d = 0; d < calc.dims; ++d) {  // a size-0 shape has no index to divide
      calc.dividers[d] = calc.sizes[d] > 0 ? IntDivider(static_cast<uint64_t>(calc.sizes[d])) : IntDivider();
    }
    return true;
  }

 private:
  // Whether tensor dimension `d` continues the innermost coalesced dimension in every operand.
  static bool mergesWithInner(const OffsetCalculator& calc, const int64_t* sizes, const int64_t* const* byte_strides,
                              int d) {
    const int inner = calc.dims - 1;
    for (int k = 0; k < N; ++k) {
      if (byte_strides[k][d] != calc.strides[inner][k] * calc.sizes[inner]) return false;
    }
    return true;
  }
};

}  // namespace opcore::native
