// Tests of the Philox generator: the engine against the published known answers, seeding,
// offsets, clones, the default generators, and reservations from many threads.
#include <opcore/core/Error.h>
#include <opcore/core/Generator.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <thread>
#include <vector>

namespace opcore {
namespace {

using ::testing::ElementsAre;

// Known-answer vectors of Philox4x32-10 from the Random123 distribution (kat_vectors).
TEST(GeneratorTest, PhiloxMatchesTheKnownAnswers) {
  EXPECT_THAT(detail::philox4x32({0, 0, 0, 0}, {0, 0}), ElementsAre(0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u));
  EXPECT_THAT(detail::philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
              ElementsAre(0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu));
  EXPECT_THAT(detail::philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
              ElementsAre(0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u));
  static_assert(detail::philox4x32({0, 0, 0, 0}, {0, 0})[0] == 0x6627e8d5u, "usable at compile time");
}

TEST(GeneratorTest, UniformBitsCoverZeroToOneHalfOpen) {
  EXPECT_EQ(uniformFromBits(0, 0), 0.0);
  EXPECT_LT(uniformFromBits(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_EQ(uniformFromBits(0x80000000u, 0), 0.5);
}

TEST(GeneratorTest, SameSeedSameBlocks) {
  const Generator a = Generator::create(Device(DeviceType::CPU), 123);
  const Generator b = Generator::create(Device(DeviceType::CPU), 123);
  const Generator c = Generator::create(Device(DeviceType::CPU), 124);
  const PhiloxBlocks ra = a.reserveBlocks(4), rb = b.reserveBlocks(4), rc = c.reserveBlocks(4);
  for (uint64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(ra.block(i), rb.block(i));
    EXPECT_NE(ra.block(i), rc.block(i));
  }
  EXPECT_NE(ra.block(0), ra.block(1));
}

TEST(GeneratorTest, ReservationsAdvanceTheOffsetAndSeedingRestartsTheStream) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 7);
  EXPECT_EQ(g.current_seed(), 7u);
  EXPECT_EQ(g.get_offset(), 0u);
  const PhiloxBlocks first = g.reserveBlocks(3);
  const PhiloxBlocks second = g.reserveBlocks(2);
  EXPECT_EQ(first.offset, 0u);
  EXPECT_EQ(second.offset, 3u);
  EXPECT_EQ(g.get_offset(), 5u);
  EXPECT_EQ(second.block(0), first.block(3)) << "block i of a reservation is block offset + i of the stream";
  g.set_current_seed(7);
  EXPECT_EQ(g.get_offset(), 0u);
  EXPECT_EQ(g.reserveBlocks(1).block(0), first.block(0));
  g.set_offset(3);
  EXPECT_EQ(g.reserveBlocks(1).block(0), second.block(0));
}

TEST(GeneratorTest, CopiesShareTheStateClonesDoNot) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 1);
  const Generator shared = g;
  shared.reserveBlocks(10);
  EXPECT_EQ(g.get_offset(), 10u);
  EXPECT_EQ(shared, g);
  const Generator clone = g.clone();
  EXPECT_NE(clone, g);
  EXPECT_EQ(clone.current_seed(), 1u);
  EXPECT_EQ(clone.get_offset(), 10u);
  EXPECT_EQ(clone.reserveBlocks(1).block(0), g.reserveBlocks(1).block(0));
  clone.reserveBlocks(5);
  EXPECT_EQ(g.get_offset(), 11u);
  EXPECT_EQ(clone.device(), Device(DeviceType::CPU));
}

TEST(GeneratorTest, DefaultGeneratorsPerDeviceTypeAndManualSeed) {
  const Generator& cpu = defaultGenerator(DeviceType::CPU);
  EXPECT_EQ(&cpu, &defaultGenerator(DeviceType::CPU));
  EXPECT_NE(cpu, defaultGenerator(DeviceType::Meta));
  EXPECT_EQ(cpu.device(), Device(DeviceType::CPU));
  EXPECT_EQ(defaultGenerator(DeviceType::CUDA).device().type(), DeviceType::CUDA);
  manual_seed(99);
  EXPECT_EQ(cpu.current_seed(), 99u);
  EXPECT_EQ(cpu.get_offset(), 0u);
  EXPECT_EQ(defaultGenerator(DeviceType::Meta).current_seed(), 99u);
  EXPECT_EQ(Generator::create().current_seed(), kDefaultRngSeed);
  // generatorOrDefault: a given, defined generator wins.
  const Generator mine = Generator::create();
  EXPECT_EQ(generatorOrDefault(mine, DeviceType::CPU), mine);
  EXPECT_EQ(generatorOrDefault(std::nullopt, DeviceType::CPU), cpu);
  EXPECT_EQ(generatorOrDefault(Generator(), DeviceType::CPU), cpu);
}

TEST(GeneratorTest, UndefinedGeneratorIsAnError) {
  const Generator g;
  EXPECT_FALSE(g.defined());
  for (const auto& use : std::vector<std::function<void()>>{[&] { g.reserveBlocks(1); }, [&] { g.device(); },
                                                             [&] { g.set_current_seed(1); }}) {
    try {
      use();
      ADD_FAILURE() << "expected an opcore::Error";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("operation on an undefined Generator"));
    }
  }
  std::ostringstream os;
  os << g;
  EXPECT_EQ(os.str(), "Generator(undefined)");
}

// See Note [Generator thread safety]: concurrent reservations never overlap, and together
// they cover the stream without gaps.
TEST(GeneratorTest, ConcurrentReservationsAreDisjoint) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 3);
  constexpr int kThreads = 8, kPerThread = 1000;
  std::vector<std::vector<uint64_t>> offsets(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) offsets[t].push_back(g.reserveBlocks(2).offset);
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<uint64_t> all;
  for (const auto& o : offsets) all.insert(all.end(), o.begin(), o.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), static_cast<size_t>(kThreads * kPerThread));
  for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], 2 * i);
  EXPECT_EQ(g.get_offset(), 2u * kThreads * kPerThread);
}

}  // namespace
}  // namespace opcore
