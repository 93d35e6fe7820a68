// Meta backend kernels of the operators that are not structured: tensors with sizes, strides
// and dtype but no data, for shape and dtype inference. Structured operators (add, exp, ...)
// need none: their meta functions (common/*Meta.cpp) serve the Meta key too (Note
// [Structured kernels] in gen/api/structured.py). Views come from View.cpp, shared with the
// other backends.
#include <opcore/ops/empty_native.h>
#include <opcore/core/Empty.h>

namespace opcore::native {

Tensor empty_meta(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  OPCORE_CHECK(!device || device->is_meta(), "empty_meta: asked for a tensor on ", *device);
  return detail::empty(size, dtype.value_or(kDefaultFloat), Device(DeviceType::Meta));
}

}  // namespace opcore::native
