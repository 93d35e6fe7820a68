// Tests of the vectorized math behind exp, log, sqrt, and float tanh and sigmoid (kernels/cpu/VecMath.cpp):
// within 1 ulp of the scalar std:: function for float and double over a wide sweep of inputs
// and the special values, sqrt exactly equal, and the same bits whatever an element's position
// (vector body, tail, strided rows). ctest runs this suite once per instruction set the machine
// has (OPCORE_CPU_CAPABILITY=default, avx2, avx512; see CMakeLists.txt).
#include <opcore/ops/empty.h>
#include <opcore/ops/exp.h>
#include <opcore/ops/log.h>
#include <opcore/ops/sigmoid.h>
#include <opcore/ops/sqrt.h>
#include <opcore/ops/tanh.h>
#include "TestUtil.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)
using ::testing::ElementsAreArray;

// The distance in units in the last place between two finite values of one sign (or 0 when
// both are the same NaN-ness / infinity).
template <typename T>
double ulpDistance(T got, T want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : INFINITY;
  if (got == want) return 0;
  if (std::isinf(want) || std::isinf(got)) {
    // An overflow boundary: the largest finite value is 1 ulp from infinity.
    const T big = std::numeric_limits<T>::max();
    return (std::isinf(want) && std::abs(got) == big) || (std::isinf(got) && std::abs(want) == big) ? 1 : INFINITY;
  }
  const T spacing = std::nextafter(std::abs(want), std::numeric_limits<T>::infinity()) - std::abs(want);
  return std::abs(double(got) - double(want)) / double(spacing);
}

// Inputs: a dense sweep of [lo, hi], the special values, and the extremes.
template <typename T>
std::vector<T> sweep(double lo, double hi, int64_t n) {
  std::vector<T> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<T>(lo + (hi - lo) * double(i) / double(n - 1)));
  const T specials[] = {T(0), -T(0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(1), T(-1), T(0.5)};
  v.insert(v.end(), std::begin(specials), std::end(specials));
  return v;
}

template <typename T, typename Op, typename Ref>
void checkAgainstStd(const char* name, const Op& op, const Ref& ref, double lo, double hi, double max_ulp) {
  const std::vector<T> values = sweep<T>(lo, hi, 200001);
  const Tensor x = fromVector<T>(values);
  const std::vector<T> got = toVector<T>(op(x));
  double worst = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double d = ulpDistance<T>(got[i], static_cast<T>(ref(values[i])));
    ASSERT_LE(d, max_ulp) << name << "(" << values[i] << ") = " << got[i] << ", std:: gives " << ref(values[i]);
    worst = std::max(worst, d);
  }
  ::testing::Test::RecordProperty(std::string(name) + (sizeof(T) == 4 ? "_float" : "_double") + "_max_ulp", std::to_string(worst));
}

template <typename T>
void checkAllFunctions() {
  checkAgainstStd<T>("exp", [](const Tensor& x) { return opcore::exp(x); }, [](T v) { return std::exp(v); },
                     -110, 100, 1);
  checkAgainstStd<T>("log", [](const Tensor& x) { return opcore::log(x); }, [](T v) { return std::log(v); },
                     -1, 1e6, 1);
  checkAgainstStd<T>("sqrt", [](const Tensor& x) { return opcore::sqrt(x); }, [](T v) { return std::sqrt(v); },
                     -1, 1e6, 0);  // exactly rounded
}

TEST(VecMathTest, FloatFunctionsAreWithinOneUlpOfStd) {
  checkAllFunctions<float>();
  // Sigmoid is computed in double precision and rounded once (Note [Vectorized math]): within
  // 1 ulp of the exact value (there is no std:: sigmoid), underflow to denormals included.
  checkAgainstStd<float>("sigmoid", [](const Tensor& x) { return opcore::sigmoid(x); },
                         [](float v) { return static_cast<float>(1.0 / (1.0 + std::exp(-double(v)))); }, -110, 40, 1);
}

TEST(VecMathTest, DoubleFunctionsAreWithinOneUlpOfStd) { checkAllFunctions<double>(); }

// tanh against the exact value (computed in long double), which glibc's tanh and tanhf miss by
// up to 2 ulp: tanh(-0.81624f) is -0.67301818839 exactly, -0.6730182f rounded (what opcore
// gives), and tanhf gives -0.6730181f; tanh(-0.9702) is -0.748792162187761279 exactly, and
// glibc's double tanh gives ...146 (1.6 ulp away).
TEST(VecMathTest, TanhIsWithinOneUlpOfTheExactValue) {
  checkAgainstStd<float>("tanh", [](const Tensor& x) { return opcore::tanh(x); },
                         [](float v) { return static_cast<float>(std::tanh(static_cast<long double>(v))); }, -12, 12, 1);
  checkAgainstStd<double>("tanh", [](const Tensor& x) { return opcore::tanh(x); },
                          [](double v) { return static_cast<double>(std::tanh(static_cast<long double>(v))); }, -20, 20, 1);
}

TEST(VecMathTest, AnElementsResultDoesNotDependOnItsPosition) {
  std::vector<float> values;
  for (int i = 0; i < 100; ++i) values.push_back(0.731f * float(i) - 30.0f);
  const Tensor all = opcore::exp(fromVector<float>(values));
  const std::vector<float> expected = toVector<float>(all);
  // Every length around the vector widths (tails of 1..16 elements), each starting anywhere.
  for (int64_t start = 0; start < 20; ++start) {
    for (int64_t len = 1; len <= 40 && start + len <= 100; ++len) {
      std::vector<float> part(values.begin() + start, values.begin() + start + len);
      const std::vector<float> got = toVector<float>(opcore::exp(fromVector<float>(part)));
      for (int64_t i = 0; i < len; ++i) ASSERT_EQ(got[i], expected[start + i]) << start << "+" << i;
    }
  }
  // Strided input and output.
  const Tensor strided = fromVector<float>(values, {10, 10}).t();
  const std::vector<float> got = toVector<float>(opcore::exp(strided));
  for (int64_t i = 0; i < 10; ++i) {
    for (int64_t j = 0; j < 10; ++j) ASSERT_EQ(got[i * 10 + j], expected[j * 10 + i]);
  }
  Tensor out = opcore::empty({10, 10}).t();
  opcore::exp_out(out, fromVector<float>(values, {10, 10}));
  EXPECT_THAT(toVector<float>(out.t().contiguous().t()), ElementsAreArray(toVector<float>(all.view({10, 10}))));
}

TEST(VecMathTest, OutAliasingTheInputAndIntegralInputs) {
  Tensor t = fromVector<double>({0, 1, 2, 3, 4});
  Tensor same = t.exp();
  opcore::exp_out(t, t);
  EXPECT_THAT(toVector<double>(t), ElementsAreArray(toVector<double>(same)));
  Tensor ints = opcore::sqrt(fromVector<int64_t>({0, 4, 9, 2}));
  EXPECT_EQ(ints.scalar_type(), ScalarType::Float);
  EXPECT_THAT(toVector<float>(ints), ElementsAre(0, 2, 3, std::sqrt(2.0f)));
}

}  // namespace
}  // namespace opcore
