// Argument checks of the copying shape operators (see ShapeChecks.h).
#include "common/ShapeChecks.h"

#include <opcore/core/Error.h>

#include <algorithm>

namespace opcore::native {

std::vector<bool> flipDims(const TensorBase& self, IntArrayRef dims) {
  std::vector<bool> mask(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
  for (int64_t d : dims) {
    const auto w = static_cast<size_t>(self.wrapDim(d));
    OPCORE_CHECK(!mask[w], "dim ", w, " appears multiple times in the list of dims");
    mask[w] = true;
  }
  if (self.dim() == 0) mask.clear();
  return mask;
}

void checkRollArguments(const TensorBase& self, IntArrayRef shifts, IntArrayRef dims) {
  OPCORE_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty() && shifts.size() == 1) return;  // a roll of the flattened tensor
  OPCORE_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
               ", dims:", dims.size());
  for (int64_t d : dims) self.wrapDim(d);
}

}  // namespace opcore::native
