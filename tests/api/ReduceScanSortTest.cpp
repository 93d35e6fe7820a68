// Tests of the reductions, scans and sorts of issue #33 where the operator table
// (tests/python/opinfo.py) does not reach: rows long enough to be cut into blocks (the same
// bits on 1 and 2 threads, the first NaN / first maximum across blocks), the radix sort against
// std::stable_sort, the parallel topk, meta tensors and the errors.
#include <opcore/ops/all.h>
#include <opcore/ops/amax.h>
#include <opcore/ops/any.h>
#include <opcore/ops/argmax.h>
#include <opcore/ops/cumprod.h>
#include <opcore/ops/cumsum.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/kthvalue.h>
#include <opcore/ops/max.h>
#include <opcore/ops/median.h>
#include <opcore/ops/min.h>
#include <opcore/ops/mode.h>
#include <opcore/ops/prod.h>
#include <opcore/ops/sort.h>
#include <opcore/ops/topk.h>
#include <opcore/ops/var.h>
#include <opcore/ops/var_mean.h>
#include "TestUtil.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <tuple>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)
using ::opcore::testing::ThreadCount;
using ::testing::HasSubstr;

constexpr int64_t kLong = 1 << 20;  // long enough to be cut into blocks (kLongScanRow = 8 * 32768)

std::vector<float> randomFloats(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(gen);
  return v;
}

bool sameBits(const Tensor& a, const Tensor& b) {
  return a.numel() == b.numel() && a.scalar_type() == b.scalar_type() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), static_cast<size_t>(a.numel() * a.element_size())) == 0;
}

TEST(ReduceScanSortTest, ArgmaxFindsTheFirstNanAndTheFirstMaximumAcrossBlocks) {
  std::vector<float> v(kLong, 0.0F);
  v[700000] = 5.0F;
  v[900000] = 5.0F;
  EXPECT_EQ(opcore::argmax(fromVector<float>(v)).item<int64_t>(), 700000);
  EXPECT_EQ(opcore::amax(fromVector<float>(v)).item<float>(), 5.0F);
  v[800000] = std::numeric_limits<float>::quiet_NaN();
  v[950000] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(opcore::argmax(fromVector<float>(v)).item<int64_t>(), 800000);
  EXPECT_TRUE(std::isnan(opcore::max(fromVector<float>(v)).item<float>()));
  EXPECT_TRUE(std::isnan(opcore::min(fromVector<float>(v)).item<float>()));
}

TEST(ReduceScanSortTest, LongRowsGiveTheSameBitsOnOneAndTwoThreads) {
  const Tensor x = fromVector<float>(randomFloats(kLong + 17, 1));
  Tensor var1, cum1, prod1;
  {
    ThreadCount one(1);
    var1 = opcore::var(x);
    cum1 = opcore::cumsum(x, 0);
    prod1 = opcore::prod(x.div(x.abs().add(1e-3)));  // +-1: the product stays finite
  }
  ThreadCount two(2);
  EXPECT_TRUE(sameBits(var1, opcore::var(x)));
  EXPECT_TRUE(sameBits(cum1, opcore::cumsum(x, 0)));
  EXPECT_TRUE(sameBits(prod1, opcore::prod(x.div(x.abs().add(1e-3)))));
}

// any/all of a long row combine one flag per block, written by both threads; the flags once
// shared words (a std::vector<bool>), and a lost write gave a wrong answer now and then (seen
// once in some hundred calls of a Python check; here the ThreadSanitizer build,
// OPCORE_SANITIZE=thread, is the one to catch it).
TEST(ReduceScanSortTest, AnyAndAllOfLongRowsSeeEveryBlock) {
  ThreadCount two(2);
  for (int64_t pos : {int64_t{0}, kLong / 2 + 5, 4 * kLong - 1}) {
    std::vector<uint8_t> one(4 * kLong, 0), zero(4 * kLong, 1);
    one[static_cast<size_t>(pos)] = 1;
    zero[static_cast<size_t>(pos)] = 0;
    const Tensor a = fromVector<uint8_t>(one).to(ScalarType::Bool), b = fromVector<uint8_t>(zero).to(ScalarType::Bool);
    for (int rep = 0; rep < 50; ++rep) {
      ASSERT_TRUE(opcore::any(a).item<bool>()) << "at " << pos;
      ASSERT_FALSE(opcore::all(b).item<bool>()) << "at " << pos;
    }
  }
}

// A long row is scanned in groups of blocks taken in turn by the threads (Note [Parallel
// scans]), float and double sums in vectors (Note [Vectorized sum scans]): every element agrees
// with a serial double scan, for lengths that end inside a vector, a block and a group.
TEST(ReduceScanSortTest, LongCumsumMatchesASerialScan) {
  for (int threads : {1, 2, 3}) {
    ThreadCount count(threads);
    for (int64_t n : {int64_t{262144}, int64_t{262144} + 16384 * 5 + 7, 3 * kLong + 3}) {
      const std::vector<float> v = randomFloats(n, static_cast<uint32_t>(n));
      const std::vector<float> f = toVector<float>(opcore::cumsum(fromVector<float>(v), 0));
      const Tensor d = opcore::cumsum(fromVector<float>(v).to(ScalarType::Double), 0);
      const std::vector<double> dv = toVector<double>(d);
      double acc = 0;
      for (size_t i = 0; i < v.size(); ++i) {
        acc += v[i];
        ASSERT_NEAR(dv[i], acc, 1e-9) << "double, n = " << n << ", i = " << i << ", threads " << threads;
        ASSERT_NEAR(f[i], static_cast<float>(acc), 1.2e-7 * std::max(1.0, std::abs(acc)))  // an ulp or two
            << "float, n = " << n << ", i = " << i << ", threads " << threads;
      }
    }
  }
}

// The float or double sum scan of a long row as Notes [Parallel scans] and [Vectorized sum
// scans] associate it, one element at a time, in double: blocks of 64 KiB, four to a group;
// each block's total in 16 lanes; in a whole group, vectors of eight with their running sums by
// shifts of one, two and four lanes; elsewhere one element after the other.
template <typename T>
std::vector<T> documentedCumsum(const std::vector<T>& x) {
  constexpr int64_t kBlock = 65536 / static_cast<int64_t>(sizeof(T)), kChains = 4, kLanes = 16;
  const auto n = static_cast<int64_t>(x.size());
  std::vector<T> out(x.size());
  double carry = 0;
  for (int64_t first = 0; first < n; first += kChains * kBlock) {
    const int64_t count = std::min(kChains, (n - first + kBlock - 1) / kBlock);
    const int64_t common = count == kChains ? std::min(kBlock, n - (first + 3 * kBlock)) : 0;
    for (int64_t c = 0; c < count; ++c) {
      const int64_t begin = first + c * kBlock, len = std::min(kBlock, n - begin);
      double lanes[kLanes] = {};
      int64_t i = 0;
      for (; i + kLanes <= len; i += kLanes) {
        for (int64_t j = 0; j < kLanes; ++j) lanes[j] += x[static_cast<size_t>(begin + i + j)];
      }
      for (; i < len; ++i) lanes[0] += x[static_cast<size_t>(begin + i)];
      double total = lanes[0];
      for (int64_t j = 1; j < kLanes; ++j) total += lanes[j];
      double acc = carry;
      carry += total;
      i = 0;
      for (; i + 8 <= common; i += 8) {
        double p[8];
        for (int k = 0; k < 8; ++k) p[k] = x[static_cast<size_t>(begin + i + k)];
        for (int shift : {1, 2, 4}) {
          for (int k = 7; k >= shift; --k) p[k] += p[k - shift];
        }
        for (int k = 0; k < 8; ++k) out[static_cast<size_t>(begin + i + k)] = static_cast<T>(acc + p[k]);
        acc += p[7];
      }
      for (; i < len; ++i) {
        acc += x[static_cast<size_t>(begin + i)];
        out[static_cast<size_t>(begin + i)] = static_cast<T>(acc);
      }
    }
  }
  return out;
}

// Every form of the vector scan (SSE2, AVX2, AVX-512: CMakeLists.txt runs this test once per
// OPCORE_CPU_CAPABILITY) gives these bits, on any number of threads, for a row that ends in a
// whole group, one whose last group is whole but its last block not, and one that ends inside
// a block of a partial group. The elements' magnitudes lie far apart, so that a vector's eight
// additions in double round (of similar floats they are exact in any order); a double row
// shows each rounding, a float row mostly the blocks' and the running totals'.
template <typename T>
void expectDocumentedCumsum() {
  constexpr int64_t kBlock = 65536 / static_cast<int64_t>(sizeof(T));
  for (int threads : {1, 2}) {
    ThreadCount count(threads);
    for (int64_t n : {kBlock * 4 * 10, kBlock * 43 + 1003, kBlock * 41 + 1003}) {  // long rows, of either dtype
      std::vector<T> v(static_cast<size_t>(n));
      const std::vector<float> normal = randomFloats(n, static_cast<uint32_t>(n) + 7);
      for (size_t i = 0; i < v.size(); ++i) {
        v[i] = std::ldexp(static_cast<T>(normal[i]), static_cast<int>(i * 7919 % 61) - 30);
      }
      const std::vector<T> got = toVector<T>(opcore::cumsum(fromVector<T>(v), 0));
      const std::vector<T> want = documentedCumsum(v);
      for (size_t i = 0; i < v.size(); ++i) {
        ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0)
            << sizeof(T) << "-byte elements, n = " << n << ", i = " << i << ", threads " << threads << ": "
            << got[i] << " against " << want[i];
      }
    }
  }
}

TEST(ReduceScanSortTest, LongCumsumHasTheDocumentedBits) {
  expectDocumentedCumsum<float>();
  expectDocumentedCumsum<double>();
}

TEST(ReduceScanSortTest, LongCumsumAccumulatesInDouble) {
  const Tensor ones = fromVector<float>(std::vector<float>(20000000 / 8, 1.0F));
  const Tensor c = opcore::cumsum(ones, 0);
  EXPECT_EQ(toVector<float>(c).back(), static_cast<float>(ones.numel()));
  const Tensor i = opcore::cumsum(fromVector<int32_t>(std::vector<int32_t>(kLong, 3)), 0);
  EXPECT_EQ(i.scalar_type(), ScalarType::Long);
  EXPECT_EQ(toVector<int64_t>(i).back(), 3 * kLong);
  EXPECT_THAT(toVector<int64_t>(opcore::cumprod(fromVector<int64_t>({2, 3, 4}), 0)), ElementsAre(2, 6, 24));
}

TEST(ReduceScanSortTest, VarAndMeanOfALongRow) {
  std::vector<double> v(kLong);
  for (int64_t i = 0; i < kLong; ++i) v[static_cast<size_t>(i)] = static_cast<double>(i % 7) + 1e9;
  const auto [var, mean] = opcore::var_mean(fromVector<double>(v), std::nullopt, Scalar(0), false);
  double m = 0, q = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(kLong);
  for (double x : v) q += (x - m) * (x - m);
  EXPECT_NEAR(mean.item<double>(), m, 1e-6);
  EXPECT_NEAR(var.item<double>(), q / static_cast<double>(kLong), 1e-6);
}

// float32 var sums each chunk of 4096 elements once around a shift, the previous chunk's mean,
// and again in two passes where that loses too much (Note [Variance]): rows that jump between
// chunks, an outlier, constant runs, a trend and an offset much larger than the spread must all
// give the float nearest the exact variance, as the two passes over each block did.
TEST(ReduceScanSortTest, FloatVarOfLongRowsWithJumpsIsExactToTheFloat) {
  std::mt19937 gen(3);
  std::normal_distribution<float> dist;
  const int64_t n = kLong + 17;
  std::vector<std::vector<float>> rows(5, std::vector<float>(static_cast<size_t>(n)));
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    rows[0][k] = (i / 4096) % 2 != 0 ? 1e8F + 10.0F * dist(gen) : dist(gen);  // jumps between chunks
    rows[1][k] = (i / 5000) % 2 != 0 ? 0.1F : 0.3F;                          // constant runs
    rows[2][k] = static_cast<float>(i);                                       // a trend
    rows[3][k] = 1e4F + 1e-2F * dist(gen);                                    // offset >> spread
    rows[4][k] = dist(gen);
  }
  rows[4][0] = 1e30F;  // an outlier, the first shift
  rows[4][static_cast<size_t>(n / 2)] = -1e20F;
  for (const std::vector<float>& v : rows) {
    long double m = 0, q = 0;
    for (float x : v) m += x;
    m /= static_cast<long double>(n);
    for (float x : v) q += (x - m) * (x - m);
    const float expected = static_cast<float>(q / static_cast<long double>(n - 1));
    EXPECT_EQ(opcore::var(fromVector<float>(v)).item<float>(), expected) << "row starting " << v[0] << ", " << v[4096];
  }
}

TEST(ReduceScanSortTest, RadixSortIsStableAndAgreesWithStdStableSort) {
  std::vector<float> v = randomFloats(100000, 2);
  for (size_t i = 0; i < v.size(); i += 3) v[i] = std::round(v[i]);  // ties
  v[10] = std::numeric_limits<float>::quiet_NaN();
  v[20] = -0.0F;
  v[30] = std::numeric_limits<float>::infinity();
  for (bool descending : {false, true}) {
    const auto [values, indices] = opcore::sort(fromVector<float>(v), 0, descending);
    std::vector<int64_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    const auto key = [&](int64_t i) { return std::isnan(v[i]) ? std::numeric_limits<float>::infinity() : v[i]; };
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const bool nan_a = std::isnan(v[a]), nan_b = std::isnan(v[b]);
      if (nan_a != nan_b) return descending ? nan_a : nan_b;
      return descending ? key(a) > key(b) : key(a) < key(b);
    });
    EXPECT_EQ(toVector<int64_t>(indices), order) << (descending ? "descending" : "ascending");
    EXPECT_EQ(std::isnan(toVector<float>(values)[descending ? 0 : v.size() - 1]), true);
  }
}

TEST(ReduceScanSortTest, SortsAlongAnInnerDimensionIntoAStridedOut) {
  const Tensor x = fromVector<int32_t>({3, 1, 2, 0, 5, 4}, {3, 2});  // columns [3, 2, 5], [1, 0, 4]
  Tensor values = opcore::empty({2, 3}, ScalarType::Int).t();
  Tensor indices = opcore::empty({3, 2}, ScalarType::Long);
  opcore::sort_outf(x, std::optional<bool>(true), 0, false, values, indices);
  EXPECT_THAT(toVector<int32_t>(values), ElementsAre(2, 0, 3, 1, 5, 4));
  EXPECT_THAT(toVector<int64_t>(indices), ElementsAre(1, 1, 0, 0, 2, 2));
}

TEST(ReduceScanSortTest, TopkOfALongRowMatchesASort) {
  const std::vector<float> v = randomFloats(kLong, 3);
  const Tensor x = fromVector<float>(v);
  std::vector<float> sorted = v;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  for (int threads : {1, 2}) {
    ThreadCount count(threads);
    const auto [values, indices] = opcore::topk(x, 5);
    EXPECT_THAT(toVector<float>(values), ElementsAre(sorted[0], sorted[1], sorted[2], sorted[3], sorted[4]));
    for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(v[toVector<int64_t>(indices)[i]], sorted[i]);
    const auto [low, low_indices] = opcore::topk(x, 2, -1, /*largest=*/false);
    EXPECT_EQ(toVector<float>(low)[0], sorted.back());
  }
}

TEST(ReduceScanSortTest, SelectionsAlongADimension) {
  const Tensor x = fromVector<float>({3, 1, 2, 2, 9, 2}, {2, 3});
  EXPECT_THAT(toVector<float>(std::get<0>(opcore::kthvalue(x, 2))), ElementsAre(2, 2));
  EXPECT_THAT(toVector<float>(std::get<0>(opcore::median(x, 1))), ElementsAre(2, 2));
  EXPECT_EQ(opcore::median(x).item<float>(), 2);
  const auto [mode, where] = opcore::mode(x, 1);
  EXPECT_THAT(toVector<float>(mode), ElementsAre(1, 2));
  EXPECT_THAT(toVector<int64_t>(where), ElementsAre(1, 2));  // of equal values, the last occurrence
  EXPECT_THAT(toVector<bool>(opcore::any(x.gt(8), 1)), ElementsAre(false, true));
  EXPECT_THAT(toVector<bool>(opcore::all(x.gt(0), std::vector<int64_t>{0, 1})), ElementsAre(true));
}

TEST(ReduceScanSortTest, MetaTensorsGetShapesOnly) {
  const Tensor m = opcore::empty({4, 5}, ScalarType::Float, std::nullopt, Device(DeviceType::Meta));
  EXPECT_EQ(shapeOf(opcore::var(m, std::vector<int64_t>{1}, std::nullopt, true)), (Shape{4, 1}));
  EXPECT_EQ(shapeOf(opcore::amax(m, {0})), (Shape{5}));
  EXPECT_EQ(shapeOf(std::get<1>(opcore::topk(m, 3))), (Shape{4, 3}));
  EXPECT_EQ(shapeOf(std::get<0>(opcore::kthvalue(m, 2, 0))), (Shape{5}));
  EXPECT_EQ(shapeOf(opcore::cumsum(m, 1)), (Shape{4, 5}));
  EXPECT_EQ(opcore::max(m).dim(), 0);
}

TEST(ReduceScanSortTest, ErrorsAreLocatedAsPyTorchs) {
  const Tensor empty = opcore::empty({0, 3}, ScalarType::Float);
  EXPECT_THROW(opcore::amax(empty), IndexError);
  EXPECT_THAT(errorOf([&] { opcore::amax(empty, {0}); }), HasSubstr("amax(): Expected reduction dim 0 to have non-zero size."));
  EXPECT_THAT(errorOf([&] { opcore::max(empty); }), HasSubstr("max(): Expected reduction dim to be specified"));
  const Tensor x = fromVector<float>({1, 2, 3}, {1, 3});
  EXPECT_THAT(errorOf([&] { opcore::kthvalue(x, 4); }), HasSubstr("kthvalue(): selected number k out of range"));
  EXPECT_THAT(errorOf([&] { opcore::topk(x, 4); }), HasSubstr("selected index k out of range"));
  EXPECT_THROW(opcore::cumsum(x, 2), IndexError);
  EXPECT_THAT(errorOf([&] { opcore::var(fromVector<int64_t>({1, 2})); }), HasSubstr("std and var only support floating point"));
  EXPECT_THAT(errorOf([&] { opcore::sort(fromVector<complex<float>>({complex<float>(1, 0)})); }),
              HasSubstr("\"sort\" not implemented for 'ComplexFloat'"));
}

}  // namespace
}  // namespace opcore
