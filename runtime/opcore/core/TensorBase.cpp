// Dimension wrapping, element access for printing, and PyTorch-style tensor printing.
#include <opcore/core/TensorBase.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <type_traits>

namespace opcore {

int64_t wrapDim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim == 0 ? 1 : ndim;
  OPCORE_CHECK_INDEX(dim >= -n && dim < n, "dimension out of range (expected to be in range of [", -n,
                     ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

int64_t TensorBase::wrapDim(int64_t dim) const { return opcore::wrapDim(dim, this->dim()); }

namespace detail {

namespace {

// A Scalar of the kind PyTorch's item() gives: bool, int64, double or complex<double>.
template <typename T>
Scalar toScalar(T v) {
  if constexpr (std::is_same_v<T, bool> || is_complex_v<T>) {
    return Scalar(v);
  } else if constexpr (std::is_integral_v<T>) {
    return Scalar(static_cast<int64_t>(v));
  } else {
    return Scalar(static_cast<double>(static_cast<opmath_t<T>>(v)));
  }
}

}  // namespace

Scalar elementAt(const TensorBase& t, int64_t i) {
  OPCORE_CHECK(t.is_cpu(), "reading elements of a ", t.device(), " tensor; copy it to the CPU first");
  // Convert the row-major index into a storage offset through the strides.
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (i % t.sizes()[d]) * t.strides()[d];
    i /= t.sizes()[d];
  }
  return OPCORE_DISPATCH_EVERY_TYPE(t.scalar_type(), "item", [&] {
    return toScalar(static_cast<const scalar_t*>(t.data_ptr())[offset]);
  });
}

}  // namespace detail

namespace {

struct Printer {
  const TensorBase& t;
  bool floating;
  bool all_integral = true;  // floats print as "2." when every value is integral
  size_t width = 0;          // elements are right-aligned to the widest one
  std::ostringstream os;

  std::string padded(const Scalar& s) const {
    std::string e = element(s);
    return std::string(width > e.size() ? width - e.size() : 0, ' ') + e;
  }

  std::string element(const Scalar& s) const {
    if (t.scalar_type() == ScalarType::Bool) return s.toBool() ? "True" : "False";
    if (s.isComplex()) {  // 1.+2.j, 0.5000-1.0000j
      const complex<double> z = s.toComplexDouble();
      const std::string im = real(z.imag());
      return real(z.real()) + (im[0] == '-' ? "" : "+") + im + "j";
    }
    if (!floating) return std::to_string(s.toLong());
    return real(s.toDouble());
  }

  std::string real(double v) const {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, all_integral ? "%.0f." : "%.4f", v);
    return buf;
  }

  void print(int64_t dim, int64_t first, int indent) {
    if (t.dim() == 0) {
      os << element(detail::elementAt(t, 0));
      return;
    }
    const int64_t n = t.sizes()[dim];
    int64_t inner = 1;
    for (int64_t d = dim + 1; d < t.dim(); ++d) inner *= t.sizes()[d];
    os << "[";
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0) {
        os << ",";
        if (dim + 1 < t.dim()) {
          os << std::string(static_cast<size_t>(t.dim() - dim - 1), '\n')
             << std::string(static_cast<size_t>(indent + 1), ' ');
        } else {
          os << " ";
        }
      }
      if (dim + 1 < t.dim()) {
        print(dim + 1, first + i * inner, indent + 1);
      } else {
        os << padded(detail::elementAt(t, first + i));
      }
    }
    os << "]";
  }
};

}  // namespace

std::string TensorBase::toString() const {
  if (!defined()) return "tensor(undefined)";
  std::ostringstream suffix;
  if (!is_cpu()) suffix << ", device='" << device() << "'";
  const bool default_dtype = scalar_type() == kDefaultFloat || scalar_type() == kDefaultComplex || scalar_type() == ScalarType::Long ||
                             scalar_type() == ScalarType::Bool;
  if (!default_dtype) suffix << ", dtype=" << opcore::toString(scalar_type());
  if (!is_cpu()) return "tensor(..., size=" + detail::strCat(sizes()) + suffix.str() + ")";

  Printer p{*this, isFloatingType(scalar_type()) || isComplexType(scalar_type()), true, 0, {}};
  for (int64_t i = 0; p.floating && i < numel(); ++i) {
    const complex<double> z = detail::elementAt(*this, i).toComplexDouble();
    for (const double v : {z.real(), z.imag()}) {
      if (std::isfinite(v) && v != std::floor(v)) p.all_integral = false;
    }
  }
  for (int64_t i = 0; i < numel(); ++i) {
    p.width = std::max(p.width, p.element(detail::elementAt(*this, i)).size());
  }
  p.os << "tensor(";
  if (numel() == 0) {
    p.os << "[]";
  } else {
    p.print(0, 0, static_cast<int>(sizeof("tensor(") - 1));
  }
  p.os << suffix.str() << ")";
  return p.os.str();
}

std::ostream& operator<<(std::ostream& os, const TensorBase& t) { return os << t.toString(); }

}  // namespace opcore
