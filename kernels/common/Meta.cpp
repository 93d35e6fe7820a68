// Meta backend kernels of the operators that are not structured: tensors with sizes, strides
// and dtype but no data, for shape and dtype inference. Structured operators (add, exp, ...)
// need none: their meta functions (PointwiseMeta.cpp) serve the Meta key too (Note
// [Structured kernels] in gen/api/structured.py). Views come from View.cpp, shared with the
// other backends.
#include <opcore/ops/empty_native.h>
#include <opcore/ops/mm_native.h>
#include <opcore/core/Empty.h>

namespace opcore::native {

namespace {

void checkMeta(const char* name, std::initializer_list<const TensorBase*> tensors) {
  for (const TensorBase* t : tensors) {
    OPCORE_CHECK(t->isMeta(), name, ": expected all tensors on the meta device, but one is on ", t->device());
  }
}

}  // namespace

Tensor empty_meta(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  OPCORE_CHECK(!device || device->isMeta(), "empty_meta: asked for a tensor on ", *device);
  return detail::empty(size, dtype.value_or(kDefaultFloat), Device(DeviceType::Meta));
}

Tensor& mm_out_meta(const Tensor& self, const Tensor& mat2, Tensor& out) {
  checkMeta("mm", {&self, &mat2, &out});
  OPCORE_CHECK(self.dim() == 2, "self must be a matrix");
  OPCORE_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  OPCORE_CHECK(self.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", self.size(0), "x",
               self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  OPCORE_CHECK(self.scalarType() == mat2.scalarType(), "expected mat1 and mat2 to have the same dtype, but got: ",
               self.scalarType(), " != ", mat2.scalarType());
  OPCORE_CHECK(self.scalarType() != ScalarType::Bool, "mm: not implemented for dtype Bool");
  OPCORE_CHECK(out.scalarType() == self.scalarType(), "Expected out tensor to have dtype ", self.scalarType(),
               ", but got ", out.scalarType(), " instead");
  detail::resizeOutput(out, {self.size(0), mat2.size(1)});
  return out;
}

}  // namespace opcore::native
