// ArrayRef<T>: a non-owning view of a contiguous array (pointer + length), the C++ type of
// `int[]` and `Tensor[]` arguments. Build one from a vector, an initializer list, a
// pointer and a length, or a single element:
//   IntArrayRef sizes = {2, 3};  // valid until the end of the full expression
#pragma once

#include <opcore/core/Error.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace opcore {

template <typename T>
class ArrayRef {
 public:
  using value_type = T;
  using iterator = const T*;

  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}  // NOLINT: implicit by design
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  template <typename A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  // The list's array lives until the end of the full expression, like any ArrayRef argument;
  // GCC's -Winit-list-lifetime cannot tell that this is the documented contract.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  constexpr ArrayRef(std::initializer_list<T> list)  // NOLINT: implicit by design
      : data_(list.begin() == list.end() ? nullptr : list.begin()), size_(list.size()) {}
#pragma GCC diagnostic pop

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  const T& at(size_t i) const {
    OPCORE_CHECK(i < size_, "ArrayRef: index ", i, " out of range for size ", size_);
    return data_[i];
  }
  const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  ArrayRef slice(size_t start, size_t len) const { return ArrayRef(data_ + start, len); }

  bool operator==(ArrayRef other) const {
    return size_ == other.size_ && std::equal(begin(), end(), other.begin());
  }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;

template <typename T>
std::ostream& operator<<(std::ostream& os, ArrayRef<T> list) {
  os << "[";
  for (size_t i = 0; i < list.size(); ++i) os << (i ? ", " : "") << list[i];
  return os << "]";
}

}  // namespace opcore
