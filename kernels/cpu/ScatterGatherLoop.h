// The loop of the scatter and gather kernels (kernels/cpu/ScatterGather.cpp): the positions
// of an index tensor as rows along one dimension, with the offsets of up to four operands.
//   RowLoop loop(dim, index.sizes(), {self.strides(), index.strides(), out.strides()});
//   loop.forEach(true, [&](const RowPart& part) { ... });
#pragma once

#include <opcore/core/ArrayRef.h>
#include <opcore/core/Parallel.h>

#include "common/Shape.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace opcore::native::cpu {

// One call's share of a row: the element offsets of the operands at the start of the row
// (base[0..3]) and a range [begin, end) of positions along the loop's dimension, whose operand
// k sits at base[k] + j * dimStride(k); and, so that a kernel can request the memory of the row
// it takes next while it works on this one (Note [Prefetching the indexed row] in
// ScatterGather.cpp), the offsets of that row (null when the thread takes no other) and
// whether this is the first row the thread takes (whose memory nothing requested yet).
struct RowPart {
  const int64_t* base;
  int64_t begin, end;
  const int64_t* next;
  bool first;
};

// Row r is one position of `sizes` outside `dim`; forEach hands f a RowPart per row (or per
// piece of a row). A 0-dim shape is read as [1], and the strides of a 0-dim operand or of one
// not given as 0.
class RowLoop {
 public:
  static constexpr size_t kOperands = 4;

  RowLoop(int64_t dim, IntArrayRef sizes, std::array<IntArrayRef, kOperands> strides) {
    const int64_t ndim = std::max<int64_t>(static_cast<int64_t>(sizes.size()), 1);
    for (int64_t d = 0; d < ndim; ++d) {
      const int64_t size = d < static_cast<int64_t>(sizes.size()) ? sizes[d] : 1;
      std::array<int64_t, kOperands> s{};
      for (size_t k = 0; k < kOperands; ++k) s[k] = d < static_cast<int64_t>(strides[k].size()) ? strides[k][d] : 0;
      if (d == dim) {
        length_ = size;
        dim_strides_ = s;
        continue;
      }
      outer_sizes_.push_back(size);
      for (size_t k = 0; k < kOperands; ++k) outer_strides_[k].push_back(s[k]);
      rows_ *= size;
    }
  }

  int64_t dimStride(size_t k) const { return dim_strides_[k]; }
  int64_t rows() const { return rows_; }
  int64_t length() const { return length_; }

  // Rows go to threads whole. split_rows: when there are too few rows to share, each row's
  // range is split instead (only for loops whose positions along dim write distinct places).
  template <typename F>
  void forEach(bool split_rows, const F& f) const {
    if (rows_ == 0 || length_ == 0) return;
    if (split_rows && rows_ < 4 && length_ >= 2 * kGrainSize) {
      for (int64_t r = 0; r < rows_; ++r) {
        const std::array<int64_t, kOperands> base = baseOf(r);
        parallel_for(0, length_, kGrainSize, [&](int64_t begin, int64_t end) {
          f(RowPart{base.data(), begin, end, nullptr, true});
        });
      }
      return;
    }
    const int64_t grain = grainFor(length_);
    parallel_for(0, rows_, grain, [&](int64_t begin, int64_t end) {
      const size_t n = outer_sizes_.size();
      DimVector pos(n, 0);
      std::array<int64_t, kOperands> base{};
      int64_t rest = begin;
      for (size_t k = n; k-- > 0;) {
        pos[k] = rest % outer_sizes_[k];
        rest /= outer_sizes_[k];
        for (size_t o = 0; o < kOperands; ++o) base[o] += pos[k] * outer_strides_[o][k];
      }
      std::array<int64_t, kOperands> next = base;
      for (int64_t r = begin; r < end; ++r) {
        // The odometer moves `next` one row on; `base` follows it after the call.
        for (size_t k = n; k-- > 0;) {
          if (++pos[k] < outer_sizes_[k]) {
            for (size_t o = 0; o < kOperands; ++o) next[o] += outer_strides_[o][k];
            break;
          }
          for (size_t o = 0; o < kOperands; ++o) next[o] -= (outer_sizes_[k] - 1) * outer_strides_[o][k];
          pos[k] = 0;
        }
        f(RowPart{base.data(), 0, length_, r + 1 < end ? next.data() : nullptr, r == begin});
        base = next;
      }
    });
  }

 private:
  std::array<int64_t, kOperands> baseOf(int64_t r) const {
    std::array<int64_t, kOperands> base{};
    for (size_t k = outer_sizes_.size(); k-- > 0;) {
      const int64_t p = r % outer_sizes_[k];
      r /= outer_sizes_[k];
      for (size_t o = 0; o < kOperands; ++o) base[o] += p * outer_strides_[o][k];
    }
    return base;
  }

  int64_t length_ = 1;
  int64_t rows_ = 1;
  std::array<int64_t, kOperands> dim_strides_{};
  DimVector outer_sizes_;
  std::array<DimVector, kOperands> outer_strides_;
};

}  // namespace opcore::native::cpu
