// The element functions of the shape operators of issue #33 and of linspace, written once for
// the CPU kernels (kernels/cpu/Shape.cpp, Factory.cpp) and the CUDA ones (CudaShapeKernels.cu):
// nvcc-clean, value types only.
#pragma once

#include <opcore/core/Macros.h>

#include <cstdint>

namespace opcore::native::pointwise {

// Whether tril(diagonal) keeps the element at (row, col) of a matrix: on or below the diagonal
// `diagonal` (0 the main one, > 0 above it, < 0 below).
OPCORE_HOST_DEVICE inline bool trilKeeps(int64_t row, int64_t col, int64_t diagonal) { return col - row <= diagonal; }

// Whether triu(diagonal) keeps the element at (row, col): on or above that diagonal.
OPCORE_HOST_DEVICE inline bool triuKeeps(int64_t row, int64_t col, int64_t diagonal) { return col - row >= diagonal; }

// The first column tril keeps none of / triu keeps all of in row `row` of a matrix of `cols`
// columns: the end of tril's kept run and the start of triu's, clamped to [0, cols].
OPCORE_HOST_DEVICE inline int64_t diagonalColumn(int64_t row, int64_t diagonal, int64_t cols, bool lower) {
  const int64_t c = lower ? row + diagonal + 1 : row + diagonal;
  return c < 0 ? 0 : (c > cols ? cols : c);
}

// Python's modulo for roll's shifts: the shift in [0, n) that moves elements as `shift` does.
OPCORE_HOST_DEVICE inline int64_t wrapShift(int64_t shift, int64_t n) {
  const int64_t r = n == 0 ? 0 : shift % n;
  return r < 0 ? r + n : r;
}

// linspace's value i of `steps` from a to b, step = (b - a) / (steps - 1): the first half
// counted from a, the second half back from b, so that both ends are exact (PyTorch's). M is
// the type computed in: double for integral dtypes, opmath_t otherwise.
template <typename M>
OPCORE_HOST_DEVICE inline M linspaceValue(int64_t i, int64_t steps, M a, M b, M step) {
  return i < steps / 2 ? a + step * static_cast<M>(static_cast<double>(i))
                       : b - step * static_cast<M>(static_cast<double>(steps - i - 1));
}

}  // namespace opcore::native::pointwise
