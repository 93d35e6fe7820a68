// Tests of the random operators (uniform_, normal_, rand, randn, random_, randint, bernoulli,
// multinomial): the same seed gives the same numbers, ranges, moments and frequencies,
// generators and their devices, the default generator, non-contiguous outputs, thread counts,
// Meta tensors and argument errors.
#include <opcore/core/Generator.h>
#include <opcore/ops/bernoulli.h>
#include <opcore/ops/full.h>
#include <opcore/ops/multinomial.h>
#include <opcore/ops/ones.h>
#include <opcore/ops/rand.h>
#include <opcore/ops/randint.h>
#include <opcore/ops/randn.h>
#include <opcore/ops/random.h>
#include <opcore/ops/uniform_native.h>
#include <opcore/ops/zeros.h>

#include "TestUtil.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>

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


// The kernels compute Philox blocks several at a time (philoxBatch in kernels/cpu/Random.cpp):
// element i of rand is still the uniform of words (0, 1) or (2, 3) of block i / 2, as
// detail::philox4x32 gives them, across batches and a counter's carry into its high word.
TEST(RandomTest, BatchedBlocksAreThePhiloxBlocks) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 0x123456789abcdefULL);
  const uint64_t offset = (uint64_t{1} << 32) - 20;
  g.set_offset(offset);
  const std::vector<double> v = toVector<double>(opcore::rand({101}, g, ScalarType::Double));
  for (int64_t i = 0; i < 101; ++i) {
    const uint64_t c = offset + static_cast<uint64_t>(i / 2);
    const auto w = detail::philox4x32({static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0u, 0u},
                                      {0x89abcdefu, 0x01234567u});
    EXPECT_EQ(v[i], i % 2 == 0 ? uniformFromBits(w[0], w[1]) : uniformFromBits(w[2], w[3])) << "element " << i;
  }
}

// Every value of the range drawn, and none outside it, for each real dtype.
TEST(RandomTest, RandomIntegersCoverTheirRangeInEveryDtype) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 11);
  for (ScalarType type : {ScalarType::Byte, ScalarType::Char, ScalarType::Short, ScalarType::Int, ScalarType::Long,
                          ScalarType::Half, ScalarType::BFloat16, ScalarType::Float, ScalarType::Double}) {
    const int64_t low = type == ScalarType::Byte ? 0 : -3;
    Tensor t = opcore::empty({2000}, type);
    t.random_(low, 5, g);
    const std::vector<double> v = toVector<double>(t.to(ScalarType::Double));
    EXPECT_EQ(std::set<double>(v.begin(), v.end()).size(), static_cast<size_t>(5 - low)) << type;
    EXPECT_EQ(*std::min_element(v.begin(), v.end()), static_cast<double>(low)) << type;
    EXPECT_EQ(*std::max_element(v.begin(), v.end()), 4.0) << type;
  }
  Tensor flags = opcore::empty({100}, ScalarType::Bool);
  flags.random_(g);
  const std::vector<bool> b = toVector<bool>(flags);
  EXPECT_TRUE(std::count(b.begin(), b.end(), true) > 20 && std::count(b.begin(), b.end(), false) > 20);
  // random_() and random_.from without `to` reach the dtype's highest exact integer.
  Tensor chars = opcore::empty({500}, ScalarType::Char);
  chars.random_(120, std::nullopt, g);
  const std::vector<int8_t> c = toVector<int8_t>(chars);
  EXPECT_EQ(*std::min_element(c.begin(), c.end()), 120);
  EXPECT_EQ(*std::max_element(c.begin(), c.end()), 127);
  Tensor halves = opcore::empty({4000}, ScalarType::Half);
  halves.random_(g);
  const std::vector<double> h = toVector<double>(halves.to(ScalarType::Double));
  EXPECT_TRUE(std::all_of(h.begin(), h.end(), [](double x) { return x >= 0 && x <= 2048 && x == std::floor(x); }));
  EXPECT_GT(*std::max_element(h.begin(), h.end()), 1900.0);
  Tensor longs = opcore::empty({1000}, ScalarType::Long);
  longs.random_(std::numeric_limits<int64_t>::min(), std::nullopt, g);  // every int64: all 64 bits
  const std::vector<int64_t> l = toVector<int64_t>(longs);
  EXPECT_TRUE(std::any_of(l.begin(), l.end(), [](int64_t x) { return x < -(int64_t{1} << 62); }));
  EXPECT_TRUE(std::any_of(l.begin(), l.end(), [](int64_t x) { return x > (int64_t{1} << 62); }));
  Tensor tens = opcore::empty({300}, ScalarType::Long);
  tens.random_(10, g);
  const std::vector<int64_t> d = toVector<int64_t>(tens);
  EXPECT_EQ(std::set<int64_t>(d.begin(), d.end()), (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(RandomTest, RandintIsRandomOfANewTensor) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 5);
  const Tensor t = opcore::randint(10, {3, 400}, g);
  EXPECT_EQ(t.scalar_type(), ScalarType::Long);
  EXPECT_EQ(shapeOf(t), (Shape{3, 400}));
  g.set_current_seed(5);
  Tensor expected = opcore::empty({3, 400}, ScalarType::Long);
  expected.random_(0, 10, g);
  EXPECT_EQ(toVector<int64_t>(t), toVector<int64_t>(expected));
  const Tensor f = opcore::randint(-2, 2, {50}, g, ScalarType::Float);
  EXPECT_EQ(f.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(f), Each(::testing::AllOf(::testing::Ge(-2.0f), ::testing::Lt(2.0f))));
  Tensor out = opcore::empty({1}, ScalarType::Int);
  g.set_current_seed(7);
  EXPECT_TRUE(opcore::randint_outf(-4, 4, {2, 5}, g, out).is_same(out));
  EXPECT_EQ(shapeOf(out), (Shape{2, 5}));
  g.set_current_seed(7);
  EXPECT_EQ(toVector<int32_t>(out), toVector<int32_t>(opcore::randint(-4, 4, {2, 5}, g, ScalarType::Int)));
  const Tensor m = opcore::randint(3, {2}, std::nullopt, std::nullopt, std::nullopt, Device(DeviceType::Meta));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.scalar_type(), ScalarType::Long);
}

TEST(RandomTest, RandomIntegerErrors) {
  Tensor bytes = opcore::empty({3}, ScalarType::Byte);
  EXPECT_THAT(errorOf([&] { bytes.random_(5, 5); }),
              HasSubstr("random_ expects 'from' to be less than 'to', but got from=5 >= to=5"));
  EXPECT_THAT(errorOf([&] { bytes.random_(-1, 5); }), HasSubstr("random_: from=-1 is out of bounds for dtype Byte"));
  EXPECT_THAT(errorOf([&] { bytes.random_(0, 257); }),
              HasSubstr("random_: to - 1=256 is out of bounds for dtype Byte"));
  Tensor floats = opcore::empty({3});
  EXPECT_THAT(errorOf([&] { floats.random_(0, (int64_t{1} << 24) + 2); }), HasSubstr("exact in [-16777216, 16777216]"));
  Tensor complex = opcore::empty({3}, ScalarType::ComplexFloat);
  EXPECT_THAT(errorOf([&] { complex.random_(); }), HasSubstr("\"random_\" not implemented for 'ComplexFloat'"));
  EXPECT_THAT(errorOf([] { opcore::randint(0, {2}); }), HasSubstr("from=0 >= to=0"));
  Tensor m = opcore::empty({2}, ScalarType::Byte, std::nullopt, Device(DeviceType::Meta));
  EXPECT_THAT(errorOf([&] { m.random_(-1, 5); }), HasSubstr("random_: from=-1 is out of bounds for dtype Byte"));
  EXPECT_TRUE(m.random_(0, 5).is_meta());
}

TEST(RandomTest, BernoulliDrawsOnesWithTheirProbability) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 8);
  Tensor t = opcore::empty({20000}, ScalarType::Double);
  t.bernoulli_(0.3, g);
  const std::vector<double> v = toVector<double>(t);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x == 0 || x == 1; }));
  EXPECT_NEAR(meanOf(v), 0.3, 0.015);
  Tensor flags = opcore::empty({50}, ScalarType::Bool);
  EXPECT_THAT(toVector<bool>(flags.bernoulli_(0.0, g)), Each(false));
  EXPECT_THAT(toVector<bool>(flags.bernoulli_(1.0, g)), Each(true));
  // A tensor of probabilities, broadcast to self's shape: each row at its own rate.
  const Tensor p = fromVector<double>({0.0, 1.0, 0.25}, {3, 1});
  Tensor rows = opcore::empty({3, 8000}, ScalarType::Int);
  rows.bernoulli_(p, g);
  const Tensor rate = rows.to(ScalarType::Double).mean({1});
  EXPECT_EQ(toVector<double>(rate)[0], 0.0);
  EXPECT_EQ(toVector<double>(rate)[1], 1.0);
  EXPECT_NEAR(toVector<double>(rate)[2], 0.25, 0.02);
  // bernoulli(probabilities): a new tensor in their dtype; bernoulli(self, p): self's shape.
  const Tensor probs = fromVector<float>({0.0f, 1.0f, 1.0f, 0.0f}, {4});
  EXPECT_THAT(toVector<float>(opcore::bernoulli(probs, g)), ElementsAre(0, 1, 1, 0));
  const Tensor q = opcore::bernoulli(opcore::empty({4, 5}, ScalarType::Half), 1.0, g);
  EXPECT_EQ(q.scalar_type(), ScalarType::Half);
  EXPECT_THAT(toVector<double>(q.to(ScalarType::Double)), Each(1.0));
  // Into itself (self aliases p), and into a non-contiguous tensor.
  Tensor self_p = fromVector<double>({1.0, 0.0, 1.0}, {3});
  EXPECT_THAT(toVector<double>(self_p.bernoulli_(self_p, g)), ElementsAre(1, 0, 1));
  Tensor wide = opcore::zeros({4, 6}).t();
  wide.bernoulli_(1.0, g);
  EXPECT_THAT(toVector<float>(wide.contiguous()), Each(1.0f));
}

TEST(RandomTest, BernoulliErrors) {
  Tensor t = opcore::empty({3});
  EXPECT_THAT(errorOf([&] { t.bernoulli_(1.5); }), HasSubstr("bernoulli_ expects p to be in [0, 1], but got p=1.5"));
  EXPECT_THAT(errorOf([&] { t.bernoulli_(fromVector<double>({0.5, 2.0, 0.5}, {3})); }),
              HasSubstr("bernoulli_: every probability must be in [0, 1], got 2 at element 1"));
  EXPECT_THAT(errorOf([&] { t.bernoulli_(fromVector<int64_t>({1, 0, 1}, {3})); }),
              HasSubstr("expected a floating-point tensor of probabilities, got dtype Long"));
  EXPECT_THAT(errorOf([&] { t.bernoulli_(opcore::full({2}, 0.5)); }), HasSubstr("cannot be broadcast to self's shape"));
  EXPECT_THAT(errorOf([] { opcore::bernoulli(fromVector<float>({-0.5f}, {1})); }),
              HasSubstr("bernoulli: every probability must be in [0, 1], got -0.5 at element 0"));
  Tensor complex = opcore::empty({2}, ScalarType::ComplexDouble);
  EXPECT_THAT(errorOf([&] { complex.bernoulli_(0.5); }), HasSubstr("not implemented for 'ComplexDouble'"));
  Tensor m = opcore::empty({2}, std::nullopt, std::nullopt, Device(DeviceType::Meta));
  EXPECT_THAT(errorOf([&] { m.bernoulli_(2.0); }), HasSubstr("bernoulli_ expects p to be in [0, 1]"));
  EXPECT_EQ(shapeOf(opcore::bernoulli(m)), (Shape{2}));
}

TEST(RandomTest, MultinomialDrawsInProportionToTheWeights) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 4);
  const Tensor w = fromVector<double>({0.0, 1.0, 3.0}, {3});
  const std::vector<int64_t> with = toVector<int64_t>(opcore::multinomial(w, 40000, true, g));
  std::map<int64_t, int64_t> counts;
  for (const int64_t k : with) ++counts[k];
  EXPECT_EQ(counts.count(0), 0u) << "a zero weight is never drawn";
  EXPECT_NEAR(counts[2] / 40000.0, 0.75, 0.01);
  // Without replacement: distinct samples, zero weights never, the first one in proportion.
  const Tensor rows = fromVector<float>({1.0f, 0.0f, 2.0f, 3.0f}, {4}).expand({6000, 4});
  const Tensor s = rows.multinomial(3, false, g);
  EXPECT_EQ(s.scalar_type(), ScalarType::Long);
  EXPECT_EQ(shapeOf(s), (Shape{6000, 3}));
  const std::vector<int64_t> v = toVector<int64_t>(s);
  std::map<int64_t, int64_t> first;
  for (size_t r = 0; r < 6000; ++r) {
    const std::set<int64_t> row(v.begin() + 3 * r, v.begin() + 3 * r + 3);
    EXPECT_EQ(row, (std::set<int64_t>{0, 2, 3})) << "row " << r;
    ++first[v[3 * r]];
  }
  EXPECT_NEAR(first[0] / 6000.0, 1.0 / 6, 0.02);
  EXPECT_NEAR(first[3] / 6000.0, 3.0 / 6, 0.02);
  // The same generator state gives the same samples, whatever the thread count.
  const Tensor many = opcore::rand({300, 50}, g);
  g.set_current_seed(9);
  const std::vector<int64_t> two = toVector<int64_t>(many.multinomial(20, false, g));
  {
    const ::opcore::testing::ThreadCount one(1);
    g.set_current_seed(9);
    EXPECT_EQ(toVector<int64_t>(many.multinomial(20, false, g)), two);
  }
  Tensor out = opcore::empty({0}, ScalarType::Long);
  g.set_current_seed(9);
  EXPECT_TRUE(opcore::multinomial_outf(many, 20, false, g, out).is_same(out));
  EXPECT_EQ(toVector<int64_t>(out), two);
}

TEST(RandomTest, MultinomialErrors) {
  const Tensor w = fromVector<double>({1.0, 2.0}, {2});
  EXPECT_THAT(errorOf([&] { opcore::multinomial(w, 3); }),
              HasSubstr("cannot sample n_sample > prob_dist.size(-1) samples without replacement"));
  EXPECT_THAT(errorOf([&] { opcore::multinomial(w, 0); }), HasSubstr("cannot sample n_sample <= 0 samples"));
  EXPECT_THAT(errorOf([&] { opcore::multinomial(fromVector<double>({1.0, -1.0}, {2}), 1); }),
              HasSubstr("probability tensor contains either `inf`, `nan` or element < 0"));
  EXPECT_THAT(errorOf([&] { opcore::multinomial(fromVector<double>({0.0, 0.0}, {2}), 1, true); }),
              HasSubstr("invalid multinomial distribution (sum of probabilities <= 0)"));
  EXPECT_THAT(errorOf([&] { opcore::multinomial(fromVector<double>({0.0, 1.0, 0.0}, {3}), 2); }),
              HasSubstr("not enough non-negative category to sample"));
  EXPECT_THAT(errorOf([&] { opcore::multinomial(fromVector<int64_t>({1, 2}, {2}), 1); }),
              HasSubstr("multinomial only supports floating-point dtypes for input, got: Long"));
  EXPECT_THAT(errorOf([&] { opcore::multinomial(opcore::ones({2, 2, 2}), 1); }),
              HasSubstr("prob_dist must be 1 or 2 dim"));
  Tensor floats = opcore::empty({0});
  EXPECT_THAT(errorOf([&] { opcore::multinomial_outf(w, 1, false, std::nullopt, floats); }),
              HasSubstr("multinomial expects Long tensor out, got: Float"));
  const Tensor m = opcore::empty({5, 7}, std::nullopt, std::nullopt, Device(DeviceType::Meta));
  EXPECT_EQ(shapeOf(opcore::multinomial(m, 4)), (Shape{5, 4}));
}

}  // namespace
}  // namespace opcore
