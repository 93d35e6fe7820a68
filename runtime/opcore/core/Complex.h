// complex<T>: the element type of complex64 (complex<float>) and complex128 (complex<double>),
// laid out as {real, imag} like std::complex and c10::complex, so that view_as_real can see
// it as two T. Arithmetic as std::complex's, which it uses for division and the transcendental
// functions: std::complex on the host, libcu++'s cuda::std::complex in CUDA device code (its
// own implementation, from libc++'s: results may differ from the host's in the last bits), so
// that every function here runs on both.
//   complex<float> z(1, 2);  z * z == complex<float>(-3, 4);  abs(z) == std::sqrt(5.f)
#pragma once

#include <opcore/core/Macros.h>

#include <cmath>
#include <complex>
#include <ostream>
#include <type_traits>

#ifdef __CUDACC__
#include <cuda/std/complex>
#endif

namespace opcore {

namespace detail {
// The standard complex type of the code being compiled: std::complex on the host,
// cuda::std::complex on the GPU. Its functions are found by argument-dependent lookup.
#ifdef __CUDA_ARCH__
template <typename T>
using StdComplex = ::cuda::std::complex<T>;
#else
template <typename T>
using StdComplex = std::complex<T>;
#endif
}  // namespace detail

template <typename T>
struct alignas(2 * sizeof(T)) complex {
  using value_type = T;
  T real_ = T(0);
  T imag_ = T(0);

  constexpr complex() = default;
  constexpr OPCORE_HOST_DEVICE complex(T re, T im = T(0)) : real_(re), imag_(im) {}  // NOLINT
  template <typename U>
  constexpr OPCORE_HOST_DEVICE explicit complex(const complex<U>& other)
      : real_(static_cast<T>(other.real())), imag_(static_cast<T>(other.imag())) {}
  constexpr complex(const std::complex<T>& z) : real_(z.real()), imag_(z.imag()) {}  // NOLINT
  constexpr operator std::complex<T>() const { return {real_, imag_}; }                // NOLINT

  constexpr OPCORE_HOST_DEVICE T real() const { return real_; }
  constexpr OPCORE_HOST_DEVICE T imag() const { return imag_; }
  // Zero is false, anything else true (as Python's bool(complex)).
  constexpr OPCORE_HOST_DEVICE explicit operator bool() const { return real_ != T(0) || imag_ != T(0); }

  constexpr OPCORE_HOST_DEVICE complex& operator+=(complex b) { return *this = *this + b; }
  constexpr OPCORE_HOST_DEVICE complex& operator-=(complex b) { return *this = *this - b; }
  constexpr OPCORE_HOST_DEVICE complex& operator*=(complex b) { return *this = *this * b; }
  OPCORE_HOST_DEVICE complex& operator/=(complex b) { return *this = *this / b; }

  friend constexpr OPCORE_HOST_DEVICE complex operator+(complex a, complex b) {
    return {a.real_ + b.real_, a.imag_ + b.imag_};
  }
  friend constexpr OPCORE_HOST_DEVICE complex operator-(complex a, complex b) {
    return {a.real_ - b.real_, a.imag_ - b.imag_};
  }
  friend constexpr OPCORE_HOST_DEVICE complex operator-(complex a) { return {-a.real_, -a.imag_}; }
  friend constexpr OPCORE_HOST_DEVICE complex operator*(complex a, complex b) {
    return {a.real_ * b.real_ - a.imag_ * b.imag_, a.real_ * b.imag_ + a.imag_ * b.real_};
  }
  // std::complex's division: scaled, with C99 Annex G's infinities and NaNs.
  friend OPCORE_HOST_DEVICE complex operator/(complex a, complex b) {
    const auto q = detail::StdComplex<T>(a.real_, a.imag_) / detail::StdComplex<T>(b.real_, b.imag_);
    return {q.real(), q.imag()};
  }
  friend constexpr OPCORE_HOST_DEVICE bool operator==(complex a, complex b) {
    return a.real_ == b.real_ && a.imag_ == b.imag_;
  }
  friend constexpr OPCORE_HOST_DEVICE bool operator!=(complex a, complex b) { return !(a == b); }
};

template <typename T>
inline constexpr bool is_complex_v = false;
template <typename T>
inline constexpr bool is_complex_v<complex<T>> = true;

template <typename T>
constexpr OPCORE_HOST_DEVICE complex<T> conj(complex<T> z) {
  return {z.real(), -z.imag()};
}
// |z|, its argument, and the transcendental functions complex tensors need, std::complex's.
template <typename T>
OPCORE_HOST_DEVICE T abs(complex<T> z) {
  return abs(detail::StdComplex<T>(z.real(), z.imag()));
}
template <typename T>
OPCORE_HOST_DEVICE T arg(complex<T> z) {
  return arg(detail::StdComplex<T>(z.real(), z.imag()));
}
#define OPCORE_COMPLEX_FUNCTION(fn)                                  \
  template <typename T>                                              \
  OPCORE_HOST_DEVICE complex<T> fn(complex<T> z) {                   \
    const auto w = fn(detail::StdComplex<T>(z.real(), z.imag()));    \
    return {w.real(), w.imag()};                                     \
  }
OPCORE_COMPLEX_FUNCTION(exp)
OPCORE_COMPLEX_FUNCTION(log)
OPCORE_COMPLEX_FUNCTION(sqrt)
OPCORE_COMPLEX_FUNCTION(tanh)
#undef OPCORE_COMPLEX_FUNCTION

// Python's spelling: (1+2j), (-0-1.5j).
template <typename T>
std::ostream& operator<<(std::ostream& os, complex<T> z) {
  return os << '(' << z.real() << (std::signbit(z.imag()) ? "" : "+") << z.imag() << "j)";
}

}  // namespace opcore
