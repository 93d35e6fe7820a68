// The offsets of the CUDA elementwise loops (kernels/common/OffsetCalculator.h), computed on
// the host: for transposed, sliced, broadcast and size-1 shapes, every index's offsets equal
// those walked from the tensors' own sizes and strides, and the dimensions merge as Note
// [Coalesced dimensions] says.
#include <common/OffsetCalculator.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace opcore::native {
namespace {

// Offsets of row-major index `linear` walked dimension by dimension, outermost first.
std::vector<int64_t> naiveOffsets(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& strides,
                                  int64_t linear) {
  std::vector<int64_t> out(strides.size(), 0);
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    const int64_t i = linear % sizes[d];
    linear /= sizes[d];
    for (size_t k = 0; k < strides.size(); ++k) out[k] += i * strides[k][d];
  }
  return out;
}

template <int N>
OffsetCalculator<N> build(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& strides) {
  const int64_t* ptrs[N];
  for (int k = 0; k < N; ++k) ptrs[k] = strides[k].data();
  OffsetCalculator<N> calc;
  EXPECT_TRUE(OffsetCalculator<N>::make(static_cast<int>(sizes.size()), sizes.data(), ptrs, calc));
  return calc;
}

template <int N>
void expectSameOffsets(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& strides) {
  const OffsetCalculator<N> calc = build<N>(sizes, strides);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  for (int64_t i = 0; i < numel; ++i) {
    int64_t off32[N], off64[N];
    calc.offsets(static_cast<uint32_t>(i), off32);
    calc.offsets(static_cast<uint64_t>(i), off64);
    const std::vector<int64_t> expected = naiveOffsets(sizes, strides, i);
    for (int k = 0; k < N; ++k) {
      ASSERT_EQ(off32[k], expected[k]) << "32-bit index " << i << ", operand " << k;
      ASSERT_EQ(off64[k], expected[k]) << "64-bit index " << i << ", operand " << k;
    }
  }
}

// Note [Division by invariant integers]: every divisor against dividends at the edges of each
// width's range and random ones.
TEST(OffsetCalculatorTest, DividersDivideExactlyInBothWidths) {
  std::mt19937_64 rng(11);
  std::vector<uint64_t> divisors = {1, 2, 3, 5, 7, 10, 255, 256, 257, 1000, 65535, 65536, 65537, (1u << 30) + 1,
                                    (1u << 31) - 1};
  for (int i = 0; i < 200; ++i) divisors.push_back(1 + rng() % ((uint64_t{1} << 31) - 1));
  for (uint64_t d : divisors) {
    const IntDivider div(d);
    std::vector<uint64_t> dividends = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, (uint64_t{1} << 31) - 1};
    for (int i = 0; i < 200; ++i) dividends.push_back(rng() % (uint64_t{1} << 31));
    for (uint64_t n : dividends) {
      if (n >= (uint64_t{1} << 31)) continue;
      ASSERT_EQ(div.divide(static_cast<uint32_t>(n)), n / d) << n << " / " << d << " in 32 bits";
      ASSERT_EQ(div.divide(n), n / d) << n << " / " << d << " in 64 bits";
    }
  }
  for (int i = 0; i < 2000; ++i) {  // 64-bit divisors and dividends below 2^63
    const uint64_t d = 1 + (rng() >> (1 + rng() % 63));
    const uint64_t n = rng() >> 1;
    const IntDivider div(d);
    ASSERT_EQ(div.divide(n), n / d) << n << " / " << d;
    ASSERT_EQ(div.divide((uint64_t{1} << 63) - 1), ((uint64_t{1} << 63) - 1) / d) << "2^63 - 1 / " << d;
  }
}

TEST(OffsetCalculatorTest, ContiguousOperandsMergeIntoOneDenseDimension) {
  const OffsetCalculator<3> calc = build<3>({4, 1, 5, 6}, {{120, 120, 24, 4}, {120, 999, 24, 4}, {240, 0, 48, 8}});
  EXPECT_EQ(calc.dims, 1);
  EXPECT_EQ(calc.sizes[0], 120);
  EXPECT_FALSE(calc.contiguous({4, 4, 4})) << "operand 2 steps 8 bytes";
  EXPECT_TRUE(calc.contiguous({4, 4, 8})) << "as a double operand beside float ones";
  const OffsetCalculator<2> dense = build<2>({4, 5, 6}, {{120, 24, 4}, {120, 24, 4}});
  EXPECT_TRUE(dense.contiguous({4, 4}));
  const OffsetCalculator<1> scalar = build<1>({}, {{}});
  EXPECT_EQ(scalar.dims, 0);
  int64_t off[1];
  scalar.offsets(uint32_t{0}, off);
  EXPECT_EQ(off[0], 0);
}

TEST(OffsetCalculatorTest, TransposedAndBroadcastOperandsKeepTheirDimensions) {
  // out (3, 4, 5) contiguous; a transposed (its dims 0 and 2 swapped); b broadcast along dim 1.
  const std::vector<int64_t> sizes = {3, 4, 5};
  const std::vector<std::vector<int64_t>> strides = {{80, 20, 4}, {4, 12, 48}, {20, 0, 4}};
  EXPECT_EQ((build<3>(sizes, strides).dims), 3);
  expectSameOffsets<3>(sizes, strides);
}

TEST(OffsetCalculatorTest, RandomStridedShapesGiveTheWalkedOffsets) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int ndim = static_cast<int>(rng() % 6);
    std::vector<int64_t> sizes(ndim);
    for (auto& s : sizes) s = 1 + rng() % 4;
    std::vector<std::vector<int64_t>> strides(2, std::vector<int64_t>(ndim));
    for (auto& operand : strides) {
      for (auto& st : operand) st = static_cast<int64_t>(rng() % 5) * 2 - 2;  // -2 .. 6, with 0 for broadcasts
    }
    expectSameOffsets<2>(sizes, strides);
  }
}

TEST(OffsetCalculatorTest, MoreDimensionsThanItHoldsAreRefused) {
  std::vector<int64_t> sizes(kMaxOffsetDims + 1, 2), strides(kMaxOffsetDims + 1);
  for (int d = 0; d <= kMaxOffsetDims; ++d) strides[d] = int64_t{3} << d;  // no two merge
  const int64_t* ptrs[1] = {strides.data()};
  OffsetCalculator<1> calc;
  EXPECT_FALSE(OffsetCalculator<1>::make(static_cast<int>(sizes.size()), sizes.data(), ptrs, calc));
}

}  // namespace
}  // namespace opcore::native
