// Tests of the fast float <-> Half / BFloat16 conversions (Note [Converting 16-bit floats] in
// kernels/cpu/Loops.cpp, Note [Branch-free conversions] in Half.h) and of the 16-bit loops
// built on them (Note [Reduced precision], Note [Streaming stores] in kernels/cpu/Loops.h): a
// contiguous conversion gives, element for element, what the scalar Half / BFloat16
// constructors give, NaN payloads, subnormals, overflow and ties included, at any length and
// thread count, and so does an operation whose output is large enough to be streamed.
#include <opcore/core/Parallel.h>
#include <opcore/ops/add.h>
#include <opcore/ops/arange.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/slice.h>
#include "TestUtil.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

// Floats whose bits sweep every exponent with varied mantissas, plus the edge cases.
std::vector<float> edgyFloats() {
  std::vector<uint32_t> bits = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
                                0x7f800001, 0x7fffffff, 0xffbfffff, 0x7fa00000, 0x477fefff, 0x477ff000,
                                0x47800000, 0x38800000, 0x387fffff, 0x33000000, 0x33000001, 0x337fffff,
                                0x3f801000, 0x3f803000, 0x3f808000, 0x3f818000, 0x00000001, 0x80800000};
  for (uint32_t u = 0; u < 0xffffff00u; u += 0x0100f3a7u) bits.push_back(u);
  for (uint32_t u = 0x33000000; u < 0x39000000; u += 0x00012345u) bits.push_back(u);  // subnormal halves
  std::vector<float> out(bits.size());
  std::memcpy(out.data(), bits.data(), bits.size() * sizeof(float));
  return out;
}

template <typename R>
void expectConversionsMatchTheScalarOnes() {
  const std::vector<float> values = edgyFloats();
  for (int threads : {1, 2, 3}) {
    const ThreadCount scope(threads);
    // Every length up to two vectors, and one long enough to be split among the threads.
    for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{9}, int64_t{17}, 3 * kGrainSize + 5}) {
      std::vector<float> in(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) in[i] = values[static_cast<size_t>(i) % values.size()];
      const Tensor f = fromVector<float>(in, {n});
      const Tensor r = f.to(CppTypeToScalarType<R>::value);
      const R* got = r.data_ptr<R>();
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i].x, R(in[i]).x) << "float -> 16 bits, n=" << n << " i=" << i << " threads=" << threads;
      }
      const Tensor back = r.to(kFloat);
      const float* fb = back.data_ptr<float>();
      for (int64_t i = 0; i < n; ++i) {
        const float expected = static_cast<float>(got[i]);
        ASSERT_EQ(std::memcmp(&fb[i], &expected, sizeof(float)), 0) << "16 bits -> float, i=" << i;
      }
    }
  }
}

TEST(ConvertTest, FloatToHalfMatchesTheScalarConversion) { expectConversionsMatchTheScalarOnes<Half>(); }
TEST(ConvertTest, FloatToBFloat16MatchesTheScalarConversion) { expectConversionsMatchTheScalarOnes<BFloat16>(); }

TEST(ConvertTest, EveryHalfConvertsToFloatAndBackUnchanged) {
  std::vector<Half> all(65536);
  for (uint32_t h = 0; h < 65536; ++h) all[h] = Half(static_cast<uint16_t>(h), Half::from_bits());
  const Tensor t = opcore::empty({65536}, kHalf);
  std::memcpy(t.data_ptr(), all.data(), 65536 * sizeof(Half));
  const Tensor round_trip = t.to(kFloat).to(kHalf);
  const Half* got = round_trip.data_ptr<Half>();
  for (uint32_t h = 0; h < 65536; ++h) {
    const bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
    if (!nan) ASSERT_EQ(got[h].x, h) << h;  // NaNs come back as the one quiet NaN, with their sign
    if (nan) ASSERT_EQ(got[h].x, (h & 0x8000u) | 0x7e00u) << h;
  }
}

TEST(ConvertTest, EveryHalfConvertsToTheScalarConversionsFloat) {
  const Tensor t = opcore::empty({65536}, kHalf);
  for (uint32_t h = 0; h < 65536; ++h) t.data_ptr<Half>()[h] = Half(static_cast<uint16_t>(h), Half::from_bits());
  const Tensor f = t.to(kFloat);
  for (uint32_t h = 0; h < 65536; ++h) {  // NaNs keep their payload, quiet or not, as halfBitsToFloat does
    const float expected = detail::halfBitsToFloat(static_cast<uint16_t>(h));
    ASSERT_EQ(std::memcmp(&f.data_ptr<float>()[h], &expected, sizeof(float)), 0) << h;
  }
}

// An output larger than half the last-level cache (here 17M elements of 2 bytes, 34 MiB, on one
// thread: above it on any machine, Note [Streaming stores]) is written with streaming stores,
// from an address that is not 16-byte aligned: the values are those of the scalar conversions
// all the same.
template <typename R>
void expectLargeOutputsMatchTheScalarResults() {
  const ThreadCount scope(1);
  const int64_t n = 17 << 20;
  const std::vector<float> values = edgyFloats();
  std::vector<float> in(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) in[i] = values[static_cast<size_t>(i * 7) % values.size()];
  const ScalarType dtype = CppTypeToScalarType<R>::value;
  const Tensor a = fromVector<float>(in, {n}).to(dtype);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(a.data_ptr<R>()[i].x, R(in[i]).x) << "float -> 16 bits, i=" << i;
  const Tensor storage = opcore::empty({n + 1}, dtype);
  Tensor out = opcore::slice(storage, 0, 1);  // 2 bytes past an aligned allocation
  opcore::add_out(out, a, a);
  for (int64_t i = 0; i < n; ++i) {
    const float x = static_cast<float>(a.data_ptr<R>()[i]);
    ASSERT_EQ(out.data_ptr<R>()[i].x, R(x + x).x) << "a + a, i=" << i;
  }
}

// The same for float and double rows (computed into a buffer, then streamed), of a length no
// block divides, from an aligned and a misaligned address.
TEST(ConvertTest, LargeFloatAndDoubleOutputsAreStreamedWhole) {
  const ThreadCount scope(1);
  const int64_t n = (9 << 20) + 7;  // 36 MiB of floats
  for (ScalarType dtype : {kFloat, kDouble}) {
    const Tensor a = opcore::arange(n, dtype).remainder(1000);
    const Tensor storage = opcore::empty({n + 1}, dtype);
    for (Tensor out : {opcore::slice(storage, 0, 0, n), opcore::slice(storage, 0, 1)}) {
      opcore::add_out(out, a, a);
      const Tensor values = out.to(kDouble);
      const double* v = values.data_ptr<double>();
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(v[i], 2.0 * static_cast<double>(i % 1000)) << dtype << " i=" << i;
    }
  }
}

TEST(ConvertTest, LargeHalfOutputsMatchTheScalarResults) { expectLargeOutputsMatchTheScalarResults<Half>(); }
TEST(ConvertTest, LargeBFloat16OutputsMatchTheScalarResults) { expectLargeOutputsMatchTheScalarResults<BFloat16>(); }

}  // namespace
}  // namespace opcore
