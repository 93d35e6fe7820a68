// Tests of the random operators (uniform_, normal_, rand, randn): the same seed gives the same
// numbers, ranges and moments, generators and their devices, the default generator,
// non-contiguous outputs, Meta tensors and argument errors.
#include <opcore/core/Generator.h>
#include <opcore/ops/rand.h>
#include <opcore/ops/randn.h>
#include <opcore/ops/uniform_native.h>

#include "TestUtil.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

double meanOf(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }

double varianceOf(const std::vector<double>& v) {
  const double m = meanOf(v);
  double s = 0;
  for (const double x : v) s += (x - m) * (x - m);
  return s / (v.size() - 1);
}

TEST(RandomTest, SameSeedSameNumbers) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 2024);
  const std::vector<float> first = toVector<float>(opcore::rand({5, 7}, g));
  const std::vector<float> next = toVector<float>(opcore::rand({5, 7}, g));
  EXPECT_NE(first, next) << "the generator moved on";
  g.set_current_seed(2024);
  EXPECT_EQ(toVector<float>(opcore::rand({5, 7}, g)), first);
  EXPECT_EQ(toVector<float>(opcore::rand({5, 7}, g)), next);
  // An independent generator with the same seed draws the same numbers.
  EXPECT_EQ(toVector<float>(opcore::rand({5, 7}, Generator::create(Device(DeviceType::CPU), 2024))), first);
  EXPECT_NE(toVector<float>(opcore::rand({5, 7}, Generator::create(Device(DeviceType::CPU), 2025))), first);
}

TEST(RandomTest, DefaultGeneratorFollowsManualSeed) {
  opcore::manual_seed(7);
  const std::vector<double> a = toVector<double>(opcore::randn({16}, std::nullopt, ScalarType::Double));
  opcore::manual_seed(7);
  const std::vector<double> b = toVector<double>(opcore::randn({16}, std::nullopt, ScalarType::Double));
  EXPECT_EQ(a, b);
  Tensor t = opcore::empty({16}, ScalarType::Double);
  opcore::manual_seed(7);
  t.normal_();
  EXPECT_EQ(toVector<double>(t), a) << "randn is normal_ on an empty tensor";
}

TEST(RandomTest, ValuesDoNotDependOnDtypeOrStrides) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 5);
  const std::vector<double> doubles = toVector<double>(opcore::rand({6}, g, ScalarType::Double));
  g.set_current_seed(5);
  const std::vector<float> floats = toVector<float>(opcore::rand({6}, g));
  for (size_t i = 0; i < doubles.size(); ++i) EXPECT_EQ(floats[i], static_cast<float>(doubles[i]));
  // A transposed (non-contiguous) tensor gets the same numbers in its logical order.
  g.set_current_seed(5);
  Tensor tr = opcore::empty({3, 2}, ScalarType::Double).t();
  ASSERT_FALSE(tr.is_contiguous());
  tr.uniform_(0, 1, g);
  EXPECT_EQ(toVector<double>(tr), doubles);
}

TEST(RandomTest, UniformStaysInItsRangeWithTheRightMoments) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 1);
  Tensor t = opcore::empty({20000}, ScalarType::Double);
  t.uniform_(-2, 3, g);
  const std::vector<double> v = toVector<double>(t);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), -2.0);
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 3.0);
  EXPECT_NEAR(meanOf(v), 0.5, 0.05);
  EXPECT_NEAR(varianceOf(v), 25.0 / 12.0, 0.1);
  // A degenerate range is a constant.
  Tensor f = opcore::empty({4});
  f.uniform_(1.5, 1.5, g);
  EXPECT_THAT(toVector<float>(f), Each(1.5f));
  // Floats never round up to the excluded bound.
  Tensor narrow = opcore::empty({5000});
  narrow.uniform_(1, 1 + 1e-7, g);
  EXPECT_THAT(toVector<float>(narrow), Each(::testing::Lt(static_cast<float>(1 + 1e-7))));
}

TEST(RandomTest, NormalHasTheRightMoments) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 3);
  Tensor t = opcore::empty({20001}, ScalarType::Double);  // odd: the last block is half used
  t.normal_(10, 2, g);
  const std::vector<double> v = toVector<double>(t);
  EXPECT_NEAR(meanOf(v), 10.0, 0.06);
  EXPECT_NEAR(std::sqrt(varianceOf(v)), 2.0, 0.05);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); }));
  Tensor z = opcore::empty({3});
  z.normal_(4, 0, g);
  EXPECT_THAT(toVector<float>(z), Each(4.0f)) << "stddev 0 is the mean";
}

TEST(RandomTest, EachCallAdvancesTheGeneratorByItsBlocks) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 0);
  opcore::rand({5}, g);  // 5 elements, 2 per block
  EXPECT_EQ(g.get_offset(), 3u);
  opcore::randn({4}, g);
  EXPECT_EQ(g.get_offset(), 5u);
  opcore::rand({0}, g);
  EXPECT_EQ(g.get_offset(), 5u);
}

TEST(RandomTest, RandAndRandnTakeDtypeLayoutAndDevice) {
  EXPECT_EQ(opcore::rand({2}).scalar_type(), ScalarType::Float);
  EXPECT_EQ(opcore::rand({2}, std::nullopt, ScalarType::Double).scalar_type(), ScalarType::Double);
  EXPECT_EQ(shapeOf(opcore::randn({2, 3})), (Shape{2, 3}));
  EXPECT_EQ(opcore::rand({2}, std::nullopt, Layout::Strided).numel(), 2);
  EXPECT_THAT(errorOf([] { opcore::rand({2}, std::nullopt, Layout::Sparse); }),
              HasSubstr("rand: only the strided layout is supported, got Sparse"));
  EXPECT_THAT(errorOf([] { opcore::randn({2}, std::nullopt, ScalarType::Long); }),
              HasSubstr("normal_: expected a floating-point tensor, got dtype Long"));
  // Meta: shapes only, and the generator does not move.
  const Generator g = Generator::create(Device(DeviceType::Meta));
  Tensor m = opcore::rand({3, 4}, g, std::nullopt, std::nullopt, Device(DeviceType::Meta));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(shapeOf(m), (Shape{3, 4}));
  EXPECT_EQ(g.get_offset(), 0u);
}

TEST(RandomTest, ArgumentErrors) {
  Tensor t = opcore::empty({3});
  EXPECT_THAT(errorOf([&] { t.uniform_(2, 1); }),
              HasSubstr("uniform_: expects to return a [from, to) range, but found from=2 > to=1"));
  EXPECT_THAT(errorOf([&] { t.uniform_(0, std::numeric_limits<double>::infinity()); }),
              HasSubstr("uniform_: expects finite bounds"));
  EXPECT_THAT(errorOf([&] { t.normal_(0, -1); }), HasSubstr("normal_: expects a finite stddev >= 0, got -1"));
  Tensor ints = opcore::empty({3}, ScalarType::Int);
  EXPECT_THAT(errorOf([&] { ints.uniform_(); }), HasSubstr("uniform_: expected a floating-point tensor, got dtype Int"));
  Tensor expanded = opcore::empty({1}).expand({3});
  EXPECT_THAT(errorOf([&] { expanded.uniform_(); }), HasSubstr("stride 0"));
  // A generator must be on the tensor's device type. (A Meta generator also sends the call to
  // the Meta kernel, which rejects the CPU tensor there.)
  const Generator cuda = Generator::create(Device(DeviceType::CUDA));
  EXPECT_THAT(errorOf([&] { opcore::native::uniform_(t, 0, 1, cuda); }),
              HasSubstr("uniform_: expected a generator on cpu for a tensor on cpu, got one on cuda"));
  Tensor m = opcore::empty({2}, std::nullopt, std::nullopt, Device(DeviceType::Meta));
  EXPECT_THAT(errorOf([&] { m.normal_(0, 1, Generator::create()); }),
              HasSubstr("normal_: expected a generator on meta for a tensor on meta, got one on cpu"));
}

}  // namespace
}  // namespace opcore
