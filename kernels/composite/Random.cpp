// Composite random factories: rand and randn (and their out= forms), an empty tensor filled by
// uniform_ / normal_ on whatever backend it lives on.
#include <opcore/ops/empty.h>
#include <opcore/ops/normal.h>
#include <opcore/ops/rand_native.h>
#include <opcore/ops/randn_native.h>
#include <opcore/ops/uniform.h>
#include <opcore/core/Empty.h>

namespace opcore::native {

Tensor rand(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device) {
  detail::checkStridedLayout("rand", layout);
  Tensor out = opcore::empty(size, dtype.value_or(kDefaultFloat), layout, device);
  out.uniform_(0, 1, generator);
  return out;
}

Tensor randn(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
             std::optional<Layout> layout, std::optional<Device> device) {
  detail::checkStridedLayout("randn", layout);
  Tensor out = opcore::empty(size, dtype.value_or(kDefaultFloat), layout, device);
  out.normal_(0, 1, generator);
  return out;
}

Tensor& rand_out(IntArrayRef size, const std::optional<Generator>& generator, Tensor& out) {
  detail::resizeOutput(out, size);
  return out.uniform_(0, 1, generator);
}

Tensor& randn_out(IntArrayRef size, const std::optional<Generator>& generator, Tensor& out) {
  detail::resizeOutput(out, size);
  return out.normal_(0, 1, generator);
}

}  // namespace opcore::native
