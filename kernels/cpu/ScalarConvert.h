// Converting a Scalar argument to a kernel's element type, with PyTorch's overflow check
// ("value cannot be converted to type int32_t without overflow").
//   const float v = checkedConvert<float>(value);
#pragma once

#include <opcore/core/Error.h>
#include <opcore/core/Scalar.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace opcore::native::cpu {

template <typename T>
constexpr const char* cppTypeName() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
  if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
  if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
  if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
  if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  if constexpr (std::is_same_v<T, Half>) return "opcore::Half";
  if constexpr (std::is_same_v<T, BFloat16>) return "opcore::BFloat16";
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, complex<float>>) return "opcore::complex<float>";
  if constexpr (std::is_same_v<T, complex<double>>) return "opcore::complex<double>";
  return "double";
}

// s as a T; throws when the value lies outside T's range, or is complex with a nonzero
// imaginary part and T is real (bool accepts anything; floats accept inf and nan).
template <typename T>
T checkedConvert(const Scalar& s) {
  if constexpr (std::is_same_v<T, bool>) {
    return s.toBool();
  } else if constexpr (is_complex_v<T>) {
    using V = typename T::value_type;
    const complex<double> z = s.toComplexDouble();
    const auto fits = [](double v) {
      return !std::isfinite(v) || std::fabs(v) <= static_cast<double>(std::numeric_limits<V>::max());
    };
    OPCORE_CHECK(fits(z.real()) && fits(z.imag()), "value cannot be converted to type ", cppTypeName<T>(),
                 " without overflow");
    return s.to<T>();
  } else {
    OPCORE_CHECK(!s.isComplex() || s.toComplexDouble().imag() == 0, "value cannot be converted to type ",
                 cppTypeName<T>(), " without overflow");
    bool ok = true;
    if constexpr (std::is_integral_v<T>) {
      if (s.isFloatingPoint() || s.isComplex()) {
        const double v = s.toDouble();
        // The bounds are exactly representable as doubles: min is 0 or -2^k, max + 1 is 2^k.
        ok = std::isfinite(v) && v >= static_cast<double>(std::numeric_limits<T>::min()) &&
             v < static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
      } else if constexpr (sizeof(T) < sizeof(int64_t)) {
        const int64_t v = s.toLong();
        ok = v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
      }
    } else {
      const double v = s.toDouble();
      ok = !std::isfinite(v) || std::fabs(v) <= static_cast<double>(std::numeric_limits<T>::max());
    }
    OPCORE_CHECK(ok, "value cannot be converted to type ", cppTypeName<T>(), " without overflow");
    return s.to<T>();
  }
}

}  // namespace opcore::native::cpu
