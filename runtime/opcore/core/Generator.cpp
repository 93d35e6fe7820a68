// Generator handles, the default generators and printing. See Note [Philox generator].
#include <opcore/core/Generator.h>

#include <opcore/core/Error.h>

#include <iterator>
#include <ostream>

namespace opcore {

Generator Generator::create(Device device, uint64_t seed) {
  return Generator(makeIntrusive<GeneratorImpl>(device, seed));
}

GeneratorImpl* Generator::impl() const {
  OPCORE_CHECK(impl_, "operation on an undefined Generator");
  return impl_.get();
}

void Generator::set_current_seed(uint64_t seed) const {
  const std::lock_guard<std::mutex> guard(mutex());
  impl_->setCurrentSeed(seed);
}

uint64_t Generator::current_seed() const {
  const std::lock_guard<std::mutex> guard(mutex());
  return impl_->current_seed();
}

uint64_t Generator::get_offset() const {
  const std::lock_guard<std::mutex> guard(mutex());
  return impl_->get_offset();
}

void Generator::set_offset(uint64_t offset) const {
  const std::lock_guard<std::mutex> guard(mutex());
  impl_->set_offset(offset);
}

PhiloxBlocks Generator::reserveBlocks(uint64_t n) const {
  const std::lock_guard<std::mutex> guard(mutex());
  return impl_->reserve(n);
}

Generator Generator::clone() const {
  const std::lock_guard<std::mutex> guard(mutex());
  Generator copy = create(impl_->device(), impl_->current_seed());
  copy.impl_->set_offset(impl_->get_offset());
  return copy;
}

namespace {

// Indexed by the DeviceType value.
constexpr DeviceType kDeviceTypes[] = {DeviceType::CPU, DeviceType::CUDA, DeviceType::Meta, DeviceType::PrivateUse1};
static_assert(static_cast<int>(DeviceType::CPU) == 0 && static_cast<int>(DeviceType::CUDA) == 1 &&
              static_cast<int>(DeviceType::Meta) == 2 && static_cast<int>(DeviceType::PrivateUse1) == 3 &&
              std::size(kDeviceTypes) == kNumDeviceTypes);

}  // namespace

const Generator& defaultGenerator(DeviceType type) {
  // Leaked on purpose: kernels running during static destruction may still draw from them.
  static const Generator* const generators = [] {
    auto* g = new Generator[std::size(kDeviceTypes)];
    for (size_t i = 0; i < std::size(kDeviceTypes); ++i) g[i] = Generator::create(Device(kDeviceTypes[i]));
    return g;
  }();
  const auto index = static_cast<size_t>(type);
  OPCORE_CHECK(index < std::size(kDeviceTypes), "defaultGenerator: unknown device type ", static_cast<int>(type));
  return generators[index];
}

const Generator& generatorOrDefault(const std::optional<Generator>& generator, DeviceType type) {
  if (generator && generator->defined()) return *generator;
  return defaultGenerator(type);
}

void manual_seed(uint64_t seed) {
  for (const DeviceType type : kDeviceTypes) defaultGenerator(type).set_current_seed(seed);
}

std::ostream& operator<<(std::ostream& os, const Generator& g) {
  if (!g.defined()) return os << "Generator(undefined)";
  const std::lock_guard<std::mutex> guard(g.mutex());
  return os << "Generator(device=" << g.device() << ", seed=" << g.get()->current_seed()
            << ", offset=" << g.get()->get_offset() << ")";
}

}  // namespace opcore
