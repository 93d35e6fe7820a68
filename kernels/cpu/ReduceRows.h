// The rows of a reduction, scan or sort (issue #33): the input viewed with the kept dimensions
// first and the reduced ones last, made contiguous, so that each output element (or each sorted
// row) reads one contiguous run. See Note [Reduction rows] in ReduceOps.cpp.
//   Rows r = reductionRows(self, mask);  // r.data is [r.outer, r.len]
#pragma once

#include <opcore/core/Empty.h>
#include <opcore/core/TensorBase.h>

#include "common/Shape.h"
#include "cpu/Loops.h"

#include <vector>

namespace opcore::native {

struct Rows {
  TensorBase data;  // contiguous, [outer, len]
  int64_t outer = 0;
  int64_t len = 0;
};

// Precondition: mask.size() == self.dim().
inline Rows reductionRows(const TensorBase& self, const std::vector<bool>& mask) {
  DimVector sizes, strides;
  int64_t outer = 1, len = 1;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < mask.size(); ++i) {
      if (mask[i] != (pass == 1)) continue;
      sizes.push_back(self.sizes()[i]);
      strides.push_back(self.strides()[i]);
      (pass == 0 ? outer : len) *= self.sizes()[i];
    }
  }
  const TensorBase view = detail::makeView(self, sizes, strides, self.storage_offset());
  return {cpu::contiguousCopy(view), outer, len};
}

// `t` viewed with the dimensions in `mask` last, as reductionRows orders them (a view of t: a
// kernel writes a sort's [outer, len] rows into it with cpu::copyInto).
inline TensorBase rowsOrderView(const TensorBase& t, const std::vector<bool>& mask) {
  DimVector sizes, strides;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < mask.size(); ++i) {
      if (mask[i] != (pass == 1)) continue;
      sizes.push_back(t.sizes()[i]);
      strides.push_back(t.strides()[i]);
    }
  }
  return detail::makeView(t, sizes, strides, t.storage_offset());
}

// A mask with only `wrapped` set (none for a 0-dim tensor).
inline std::vector<bool> oneDimMask(int64_t ndim, int64_t wrapped) {
  std::vector<bool> mask(static_cast<size_t>(ndim), false);
  if (ndim > 0) mask[static_cast<size_t>(wrapped)] = true;
  return mask;
}

// Runs fill(Out*) on a contiguous buffer of out's shape with dtype `dtype` (out itself when it
// is one), then stores it into out.
template <typename Out, typename F>
void writeOutput(const TensorBase& out, ScalarType dtype, const F& fill) {
  if (out.is_contiguous() && out.scalar_type() == dtype) {
    fill(out.data_ptr<Out>());
    return;
  }
  const TensorBase tmp = detail::emptyCpu(out.sizes(), dtype);
  fill(tmp.data_ptr<Out>());
  cpu::copyInto(out, tmp);
}

// The input of a kernel writing `outs`, read before they are resized: a copy when it shares
// memory with one of them.
inline TensorBase readInput(const TensorBase& self, std::initializer_list<const TensorBase*> outs) {
  for (const TensorBase* o : outs) {
    if (cpu::sharesStorage(self, *o)) return cpu::ownedCopy(self);
  }
  return self;
}

}  // namespace opcore::native
