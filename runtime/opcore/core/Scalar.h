// Scalar: a number passed to an operator (`Scalar alpha=1`): a double, an int64, a bool or a
// complex<double>, remembering which, because type promotion treats 2, 2.0 and 2j differently.
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
  template <ReducedFloat R>
  Scalar(R v) : Scalar(static_cast<double>(static_cast<float>(v))) {}  // NOLINT
  Scalar(bool v) : tag_(Tag::Bool) { v_.i = v; }        // NOLINT
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : tag_(Tag::Long) {  // NOLINT: implicit by design
    v_.i = static_cast<int64_t>(v);
  }
  template <typename T>
  Scalar(complex<T> v) : tag_(Tag::ComplexDouble) {  // NOLINT
    v_.z = {static_cast<double>(v.real()), static_cast<double>(v.imag())};
  }

  bool isFloatingPoint() const { return tag_ == Tag::Double; }
  bool isIntegral(bool include_bool) const {
    return tag_ == Tag::Long || (include_bool && tag_ == Tag::Bool);
  }
  bool isBoolean() const { return tag_ == Tag::Bool; }
  bool isComplex() const { return tag_ == Tag::ComplexDouble; }
  // The dtype this scalar has on its own: Double, Long, Bool or ComplexDouble.
  ScalarType type() const {
    switch (tag_) {
      case Tag::Double: return kDouble;
      case Tag::Long: return kLong;
      case Tag::Bool: return kBool;
      case Tag::ComplexDouble: return kComplexDouble;
    }
    return kLong;
  }

  // The value as T; a complex value read as a real type gives its real part (ScalarConvert.h
  // checks that the imaginary part is zero where PyTorch does).
  template <typename T>
  T to() const {
    if constexpr (is_complex_v<T>) {
      using V = typename T::value_type;
      if (tag_ == Tag::ComplexDouble) return T(static_cast<V>(v_.z.re), static_cast<V>(v_.z.im));
      return T(tag_ == Tag::Double ? static_cast<V>(v_.d) : static_cast<V>(v_.i));
    } else {
      if (tag_ == Tag::Double) return static_cast<T>(v_.d);
      if (tag_ == Tag::ComplexDouble) {
        if constexpr (std::is_same_v<T, bool>) return v_.z.re != 0 || v_.z.im != 0;
        return static_cast<T>(v_.z.re);
      }
      return static_cast<T>(v_.i);
    }
  }
  double toDouble() const { return to<double>(); }
  int64_t toLong() const { return to<int64_t>(); }
  bool toBool() const { return to<bool>(); }
  complex<double> toComplexDouble() const { return to<complex<double>>(); }
  // The complex conjugate (c10's Scalar::conj): a real, integral or bool value is itself.
  Scalar conj() const { return isComplex() ? Scalar(opcore::conj(toComplexDouble())) : *this; }

 private:
  enum class Tag : uint8_t { Double, Long, Bool, ComplexDouble };
  Tag tag_;
  union {
    double d;
    int64_t i;
    struct {
      double re, im;
    } z;
  } v_;
};

inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.isFloatingPoint()) return os << s.toDouble();
  if (s.isBoolean()) return os << (s.toBool() ? "True" : "False");
  if (s.isComplex()) return os << s.toComplexDouble();
  return os << s.toLong();
}

}  // namespace opcore
