// select: the view of one index along one dimension (t.select(0, i) is t[i] in PyTorch).
// Device-generic: only metadata changes, so CPU, CUDA and Meta share it.
#include <opcore/ops/select.h>
#include <opcore/ops/select_native.h>
#include <opcore/core/Empty.h>

#include <vector>

namespace opcore::native {

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  OPCORE_CHECK(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  const int64_t d = self.wrapDim(dim);
  const int64_t size = self.size(d);
  OPCORE_CHECK(index >= -size && index < size, "select(): index ", index,
               " out of range for tensor of size ", self.sizes(), " at dimension ", dim);
  const int64_t i = index < 0 ? index + size : index;
  std::vector<int64_t> sizes = self.sizes().vec(), strides = self.strides().vec();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return detail::makeView(self, sizes, strides, self.storage_offset() + i * self.stride(d));
}

}  // namespace opcore::native
