// Generator: a seeded source of random numbers (`Generator? generator=None` in schemas).
// A Generator is a shared handle (one intrusive pointer): copies draw from the same stream,
// clone() makes an independent one with the same state. Without a generator, kernels use the
// device's default one, which manual_seed() reseeds.
//   Generator g = Generator::create(Device(DeviceType::CPU), /*seed=*/42);
//   Tensor a = opcore::rand({3}, g);  g.set_current_seed(42);  Tensor b = opcore::rand({3}, g);  // a == b
//
// Note [Philox generator]
// The engine is Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC'11), the counter-based generator PyTorch uses on CUDA: block k of a stream is
// philox(counter = k, key = seed), four 32-bit words, computed independently of every other
// block. The state is just (seed, offset): offset counts the blocks handed out so far. A
// kernel that needs n blocks reserves them with one short critical section and then computes
// them in any order, on any number of threads, and the result depends only on the seed and
// on the calls made before it, never on scheduling.
//
// Note [Generator thread safety]
// As in PyTorch, a generator carries a mutex and whoever draws from it holds it: reserve()
// and the state setters have "Precondition: mutex() held". The convenience calls on Generator
// (manual_seed, current_seed, offset, set_offset, reserveBlocks, clone) take it themselves.
#pragma once

#include <opcore/core/Device.h>
#include <opcore/core/IntrusivePtr.h>
#include <opcore/core/Philox.h>

#include <array>
#include <cstdint>
#include <iosfwd>
#include <mutex>
#include <optional>

namespace opcore {

// The seed every default generator starts from (the same value as PyTorch's).
constexpr uint64_t kDefaultRngSeed = 67280421310721ULL;

namespace detail {

// One Philox4x32-10 block: four 32-bit words from a 128-bit counter and a 64-bit key.
constexpr std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key) {
  uint32_t words[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
  philoxRounds(words, key[0], key[1]);
  return {words[0], words[1], words[2], words[3]};
}

}  // namespace detail

// Blocks [offset, offset + n) of the stream keyed by `seed`, reserved by one caller
// (Generator::reserveBlocks). block(i) is the i-th of them; no lock is needed to compute it.
struct PhiloxBlocks {
  uint64_t seed = 0;
  uint64_t offset = 0;

  constexpr std::array<uint32_t, 4> block(uint64_t i) const {
    const uint64_t c = offset + i;
    return detail::philox4x32({static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0u, 0u},
                              {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
  }
};

// The state behind a Generator. See Note [Philox generator] and Note [Generator thread safety].
class GeneratorImpl final : public IntrusiveTarget {
 public:
  explicit GeneratorImpl(Device device, uint64_t seed = kDefaultRngSeed) : device_(device), seed_(seed) {}

  Device device() const { return device_; }
  std::mutex& mutex() const { return mutex_; }

  // Precondition for the rest: mutex() held.
  uint64_t current_seed() const { return seed_; }
  uint64_t get_offset() const { return offset_; }
  // A new seed restarts the stream (offset 0), as torch.manual_seed does.
  void setCurrentSeed(uint64_t seed) {
    seed_ = seed;
    offset_ = 0;
  }
  void set_offset(uint64_t offset) { offset_ = offset; }
  // Hands out the next `n` blocks.
  PhiloxBlocks reserve(uint64_t n) {
    const PhiloxBlocks blocks{seed_, offset_};
    offset_ += n;
    return blocks;
  }

 private:
  const Device device_;
  uint64_t seed_;
  uint64_t offset_ = 0;
  mutable std::mutex mutex_;
};

class Generator {
 public:
  // An undefined generator (defined() is false); a kernel given one uses the default.
  Generator() = default;
  explicit Generator(IntrusivePtr<GeneratorImpl> impl) : impl_(std::move(impl)) {}
  // A new generator on `device`, at the start of the stream of `seed`.
  static Generator create(Device device = Device(DeviceType::CPU), uint64_t seed = kDefaultRngSeed);

  bool defined() const { return static_cast<bool>(impl_); }
  GeneratorImpl* get() const { return impl_.get(); }
  const IntrusivePtr<GeneratorImpl>& getIntrusivePtr() const { return impl_; }
  Device device() const { return impl()->device(); }
  std::mutex& mutex() const { return impl()->mutex(); }

  // Each of these locks mutex() for its duration.
  void set_current_seed(uint64_t seed) const;
  uint64_t current_seed() const;
  uint64_t get_offset() const;
  void set_offset(uint64_t offset) const;
  PhiloxBlocks reserveBlocks(uint64_t n) const;
  // An independent generator with this one's device, seed and offset.
  Generator clone() const;

  // The same generator (not: the same state).
  bool operator==(const Generator& o) const { return impl_.get() == o.impl_.get(); }
  bool operator!=(const Generator& o) const { return !(*this == o); }

 private:
  GeneratorImpl* impl() const;
  IntrusivePtr<GeneratorImpl> impl_;
};

// The process-wide generator of a device type (CPU, CUDA, Meta), created on first use with
// kDefaultRngSeed.   defaultGenerator(DeviceType::CPU).set_current_seed(0);
const Generator& defaultGenerator(DeviceType type);
// `generator` when given and defined, else the default generator of `type`.
const Generator& generatorOrDefault(const std::optional<Generator>& generator, DeviceType type);
// Reseeds the default generator of every device type (torch.manual_seed).
void manual_seed(uint64_t seed);

// "Generator(device=cpu, seed=42, offset=3)", or "Generator(undefined)".
std::ostream& operator<<(std::ostream& os, const Generator& g);

}  // namespace opcore
