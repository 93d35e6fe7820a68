// Composite random factories: rand and randn, an empty tensor filled by uniform_ / normal_ on
// whatever backend it lives on.
#include <opcore/ops/empty.h>
#include <opcore/ops/normal.h>
#include <opcore/ops/rand_native.h>
#include <opcore/ops/randn_native.h>
#include <opcore/ops/uniform.h>

namespace opcore::native {

namespace {

Tensor emptyForRandom(const char* name, IntArrayRef size, std::optional<ScalarType> dtype,
                      std::optional<Layout> layout, std::optional<Device> device) {
  OPCORE_CHECK(!layout || *layout == Layout::Strided, name, ": only the strided layout is supported, got ",
               *layout);
  return opcore::empty(size, dtype.value_or(kDefaultFloat), device);
}

}  // namespace

Tensor rand(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device) {
  Tensor out = emptyForRandom("rand", size, dtype, layout, device);
  out.uniform_(0, 1, generator);
  return out;
}

Tensor randn(IntArrayRef size, const std::optional<Generator>& generator, std::optional<ScalarType> dtype,
             std::optional<Layout> layout, std::optional<Device> device) {
  Tensor out = emptyForRandom("randn", size, dtype, layout, device);
  out.normal_(0, 1, generator);
  return out;
}

}  // namespace opcore::native
