// Meta backend kernels: tensors with sizes, strides and dtype but no data, for shape
// inference. Views come from View.cpp, shared with the other backends.
#include <opcore/NativeFunctions.h>
#include <opcore/core/Empty.h>

namespace opcore::native {

Tensor empty_meta(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  OPCORE_CHECK(!device || device->isMeta(), "empty_meta: asked for a tensor on ", *device);
  return detail::empty(size, dtype.value_or(kDefaultFloat), Device(DeviceType::Meta));
}

}  // namespace opcore::native
