// Scalar: a number passed to an operator (`Scalar alpha=1`): a double, an int64 or a bool,
// remembering which, because type promotion treats 2 and 2.0 differently.
//   Scalar s = 2.5;  s.isFloatingPoint() == true;  s.to<int64_t>() == 2
#pragma once

#include <opcore/core/ScalarType.h>

#include <cstdint>
#include <ostream>
#include <type_traits>

namespace opcore {

class Scalar {
 public:
  Scalar() : Scalar(int64_t{0}) {}
  Scalar(double v) : tag_(Tag::Double) { v_.d = v; }  // NOLINT: implicit by design
  Scalar(float v) : Scalar(static_cast<double>(v)) {}  // NOLINT
  Scalar(bool v) : tag_(Tag::Bool) { v_.i = v; }        // NOLINT
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : tag_(Tag::Long) {  // NOLINT: implicit by design
    v_.i = static_cast<int64_t>(v);
  }

  bool isFloatingPoint() const { return tag_ == Tag::Double; }
  bool isIntegral(bool include_bool) const {
    return tag_ == Tag::Long || (include_bool && tag_ == Tag::Bool);
  }
  bool isBoolean() const { return tag_ == Tag::Bool; }
  // The dtype this scalar has on its own: Double, Long or Bool.
  ScalarType type() const {
    return tag_ == Tag::Double ? ScalarType::Double
                               : (tag_ == Tag::Long ? ScalarType::Long : ScalarType::Bool);
  }

  template <typename T>
  T to() const {
    if (tag_ == Tag::Double) return static_cast<T>(v_.d);
    return static_cast<T>(v_.i);
  }
  double toDouble() const { return to<double>(); }
  int64_t toLong() const { return to<int64_t>(); }
  bool toBool() const { return tag_ == Tag::Double ? v_.d != 0 : v_.i != 0; }

 private:
  enum class Tag : uint8_t { Double, Long, Bool };
  Tag tag_;
  union {
    double d;
    int64_t i;
  } v_;
};

inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.isFloatingPoint()) return os << s.toDouble();
  if (s.isBoolean()) return os << (s.toBool() ? "True" : "False");
  return os << s.toLong();
}

}  // namespace opcore
