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

void Generator::manualSeed(uint64_t seed) const {
  const std::lock_guard<std::mutex> guard(mutex());
  impl_->setCurrentSeed(seed);
}

uint64_t Generator::currentSeed() const {
  const std::lock_guard<std::mutex> guard(mutex());
  return impl_->currentSeed();
}

uint64_t Generator::offset() const {
  const std::lock_guard<std::mutex> guard(mutex());
  return impl_->offset();
}

void Generator::setOffset(uint64_t offset) const {
  const std::lock_guard<std::mutex> guard(mutex());
  impl_->setOffset(offset);
}

PhiloxBlocks Generator::reserveBlocks(uint64_t n) const {
  const std::lock_guard<std::mutex> guard(mutex());
  return impl_->reserve(n);
}

Generator Generator::clone() const {
  const std::lock_guard<std::mutex> guard(mutex());
  Generator copy = create(impl_->device(), impl_->currentSeed());
  copy.impl_->setOffset(impl_->offset());
  return copy;
}

namespace {

// Indexed by the DeviceType value.
constexpr DeviceType kDeviceTypes[] = {DeviceType::CPU, DeviceType::CUDA, DeviceType::Meta};
static_assert(static_cast<int>(DeviceType::CPU) == 0 && static_cast<int>(DeviceType::CUDA) == 1 &&
              static_cast<int>(DeviceType::Meta) == 2);

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

void manualSeed(uint64_t seed) {
  for (const DeviceType type : kDeviceTypes) defaultGenerator(type).manualSeed(seed);
}

std::ostream& operator<<(std::ostream& os, const Generator& g) {
  if (!g.defined()) return os << "Generator(undefined)";
  const std::lock_guard<std::mutex> guard(g.mutex());
  return os << "Generator(device=" << g.device() << ", seed=" << g.get()->currentSeed()
            << ", offset=" << g.get()->offset() << ")";
}

}  // namespace opcore
