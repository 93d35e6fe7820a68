// OptionalArrayRef<T>: the C++ type of `int[1]?` arguments (OptionalIntArrayRef). Unlike
// std::optional<ArrayRef<T>> it takes a braced list or a single value directly, with the
// lifetime of an ArrayRef argument (until the end of the full expression):
//   opcore::sum(t, {0, 1});  opcore::sum(t, 1);  opcore::sum(t, std::nullopt);
#pragma once

#include <opcore/core/ArrayRef.h>
#include <opcore/core/Error.h>

#include <initializer_list>
#include <optional>
#include <vector>

namespace opcore {

template <typename T>
class OptionalArrayRef {
 public:
  constexpr OptionalArrayRef() = default;
  constexpr OptionalArrayRef(std::nullopt_t) {}                          // NOLINT: implicit by design
  constexpr OptionalArrayRef(ArrayRef<T> values) : value_(values) {}     // NOLINT
  constexpr OptionalArrayRef(std::initializer_list<T> list)              // NOLINT
      : value_(ArrayRef<T>(list)) {}
  constexpr OptionalArrayRef(const T& one) : value_(ArrayRef<T>(one)) {} // NOLINT
  template <typename A>
  OptionalArrayRef(const std::vector<T, A>& v) : value_(ArrayRef<T>(v)) {}  // NOLINT
  constexpr OptionalArrayRef(const std::optional<ArrayRef<T>>& o) : value_(o) {}  // NOLINT

  constexpr bool has_value() const { return value_.has_value(); }  // NOLINT: std::optional's name
  constexpr explicit operator bool() const { return value_.has_value(); }
  constexpr const ArrayRef<T>& operator*() const { return *value_; }
  constexpr const ArrayRef<T>* operator->() const { return &*value_; }
  ArrayRef<T> value() const {
    OPCORE_CHECK(value_.has_value(), "OptionalArrayRef::value() on an empty optional");
    return *value_;
  }
  constexpr ArrayRef<T> value_or(ArrayRef<T> other) const { return value_.value_or(other); }  // NOLINT
  constexpr operator std::optional<ArrayRef<T>>() const { return value_; }  // NOLINT

 private:
  std::optional<ArrayRef<T>> value_;
};

}  // namespace opcore
