// select and slice: the view of one index along one dimension (t.select(0, i) is t[i] in
// PyTorch), and of every step-th index in a range (t.slice(0, 1, 5, 2) is t[1:5:2]).
// Device-generic: only metadata changes, so CPU, CUDA and Meta share them.
#include <opcore/ops/select.h>
#include <opcore/ops/select_native.h>
#include <opcore/ops/slice_native.h>
#include <opcore/core/Empty.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace opcore::native {

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  OPCORE_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");  // IndexError, as in PyTorch
  const int64_t d = self.wrapDim(dim);
  const int64_t size = self.size(d);
  OPCORE_CHECK_INDEX(index >= -size && index < size, "select(): index ", index,
                     " out of range for tensor of size ", self.sizes(), " at dimension ", dim);
  const int64_t i = index < 0 ? index + size : index;
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return detail::makeView(self, sizes, strides, self.storage_offset() + i * self.stride(d));
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  OPCORE_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");  // IndexError, as in PyTorch
  OPCORE_CHECK(step > 0, "slice(): step must be positive, got ", step);
  const int64_t d = self.wrapDim(dim);
  const int64_t size = self.size(d);
  // Python's clamping: negative bounds count from the end, then both are clipped to [0, size].
  const auto bound = [size](std::optional<int64_t> value, int64_t absent) {
    int64_t v = value.value_or(absent);
    if (v < 0) v = v < -size ? 0 : v + size;
    return std::min(v, size);
  };
  const int64_t first = bound(start, 0);
  const int64_t last = std::max(bound(end, size), first);
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  sizes[d] = (last - first + step - 1) / step;
  strides[d] *= step;
  return detail::makeView(self, sizes, strides, self.storage_offset() + first * self.stride(d));
}

}  // namespace opcore::native
