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
  if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
  if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  if constexpr (std::is_same_v<T, float>) return "float";
  return "double";
}

// s as a T; throws when the value lies outside T's range (bool accepts anything; floats
// accept inf and nan).
template <typename T>
T checkedConvert(const Scalar& s) {
  if constexpr (std::is_same_v<T, bool>) {
    return s.toBool();
  } else if constexpr (std::is_integral_v<T>) {
    bool ok = true;
    if (s.isFloatingPoint()) {
      const double v = s.toDouble();
      // The bounds are powers of two, exactly representable as doubles.
      ok = std::isfinite(v) && v >= static_cast<double>(std::numeric_limits<T>::min()) &&
           v < -2.0 * static_cast<double>(std::numeric_limits<T>::min());
    } else if constexpr (sizeof(T) < sizeof(int64_t)) {
      const int64_t v = s.toLong();
      ok = v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
    }
    OPCORE_CHECK(ok, "value cannot be converted to type ", cppTypeName<T>(), " without overflow");
    return s.to<T>();
  } else {
    const double v = s.toDouble();
    OPCORE_CHECK(!std::isfinite(v) || std::fabs(v) <= static_cast<double>(std::numeric_limits<T>::max()),
                 "value cannot be converted to type ", cppTypeName<T>(), " without overflow");
    return static_cast<T>(v);
  }
}

}  // namespace opcore::native::cpu
