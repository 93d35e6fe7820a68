// set_.source_Storage on every backend: the tensor becomes a 1-D view of a whole storage.
#include <opcore/ops/set_native.h>

namespace opcore::native {

Tensor& set_(Tensor& self, const Storage& source) {
  OPCORE_CHECK(source, "set_: the source storage is undefined");
  const Device have = source->device(), want = self.device();
  OPCORE_CHECK(have.type() == want.type() && (have.index() < 0 || want.index() < 0 || have.index() == want.index()),
               "set_: expected a storage on ", want, ", got one on ", have);
  const int64_t size[] = {static_cast<int64_t>(source->nbytes() / self.element_size())};
  const int64_t stride[] = {1};
  TensorImpl* impl = self.unsafeGetTensorImpl();
  impl->setStorage(source);
  impl->setSizesAndStrides(IntArrayRef(size, 1), IntArrayRef(stride, 1), 0);
  return self;
}

}  // namespace opcore::native
