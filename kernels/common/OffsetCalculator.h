// Where each operand's element of an elementwise loop lives, for loops that walk the elements
// of a result one index at a time (the CUDA loops: one thread per index, grid-stride): the
// index in the result's row-major order maps to a byte offset in every operand, whatever its
// strides, broadcast operands having stride 0. Written for both compilers (Note [nvcc-clean
// pointwise headers] in pointwise/Binary.h): the host builds it, the device reads it.
//   const int64_t* strides[2] = {out_strides, in_strides};  // bytes, expanded to out's shape
//   auto calc = OffsetCalculator<2>::make(ndim, sizes, strides);
//   int64_t off[2];  calc.offsets(i, off);                  // out at off[0], input at off[1]
//
// Note [Coalesced dimensions]
// make() drops dimensions of size 1 and merges a dimension into the next outer one when every
// operand steps across the pair as across one dimension (inner stride x inner size == outer
// stride), so a contiguous or uniformly strided operand set becomes one dimension and a
// transposed one two: the per-index division below runs once per remaining dimension.
#pragma once

#include <opcore/core/Macros.h>

#include <cstdint>

namespace opcore::native {

// Dimensions left after coalescing that an OffsetCalculator holds; more is refused by make().
constexpr int kMaxOffsetDims = 16;

template <int N>
struct OffsetCalculator {
  int dims = 0;                              // after coalescing, innermost first
  int64_t sizes[kMaxOffsetDims] = {};
  int64_t strides[kMaxOffsetDims][N] = {};   // bytes

  // out[k]: the byte offset of operand k's element at row-major index `linear` of the shape.
  OPCORE_HOST_DEVICE void offsets(int64_t linear, int64_t (&out)[N]) const {
    for (int k = 0; k < N; ++k) out[k] = 0;
    for (int d = 0; d < dims; ++d) {
      const int64_t size = sizes[d];
      const int64_t i = linear % size;
      linear /= size;
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
