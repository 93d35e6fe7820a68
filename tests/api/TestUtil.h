// Helpers for the API tests: build CPU tensors from values (through opcore::empty and
// data_ptr, never through a kernel under test) and read them back as vectors.
//   Tensor t = fromVector<float>({1, 2, 3, 4}, {2, 2});
//   EXPECT_THAT(toVector<float>(t), ElementsAre(1, 2, 3, 4));
#pragma once

#include <opcore/core/Parallel.h>
#include <opcore/ops/empty.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace opcore::testing {

// A contiguous CPU tensor of shape `sizes` holding `values` in row-major order.
template <typename T>
Tensor fromVector(const std::vector<T>& values, std::vector<int64_t> sizes) {
  Tensor t = opcore::empty(sizes, CppTypeToScalarType<T>::value);
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size()) << "fromVector: values do not fill the shape";
  T* p = t.data_ptr<T>();
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.numel()); ++i) p[i] = values[i];
  return t;
}

// A 1-D tensor.
template <typename T>
Tensor fromVector(const std::vector<T>& values) {
  return fromVector<T>(values, {static_cast<int64_t>(values.size())});
}

// A zero-dim tensor.
template <typename T>
Tensor scalarTensor(T value) {
  Tensor t = opcore::empty({}, CppTypeToScalarType<T>::value);
  *t.data_ptr<T>() = value;
  return t;
}

// The elements of a CPU tensor of dtype T (any strides) in row-major order.
template <typename T>
std::vector<T> toVector(const Tensor& t) {
  EXPECT_EQ(t.scalar_type(), CppTypeToScalarType<T>::value) << "toVector: wrong dtype";
  std::vector<T> out;
  if (t.scalar_type() != CppTypeToScalarType<T>::value) return out;
  const T* base = static_cast<const T*>(t.data_ptr());
  std::vector<int64_t> index(static_cast<size_t>(t.dim()), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t offset = 0;
    for (int64_t d = 0; d < t.dim(); ++d) offset += index[d] * t.strides()[d];
    out.push_back(base[offset]);
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++index[d] < t.sizes()[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

inline std::vector<int64_t> shapeOf(const Tensor& t) { return t.sizes().vec(); }

// A 1-D float64 leaf that requires grad (the autograd tests' inputs).
inline Tensor leaf(const std::vector<double>& values) {
  Tensor t = fromVector<double>(values);
  t.requires_grad_();
  return t;
}

// Sets the thread count for one scope (restored however the scope ends, a failed ASSERT too).
class ThreadCount {
 public:
  explicit ThreadCount(int n) : saved_(get_num_threads()) { set_num_threads(n); }
  ~ThreadCount() { set_num_threads(saved_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int saved_;
};

// The message of the opcore::Error thrown by f, or "" (and a test failure) when none is.
template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const opcore::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an opcore::Error";
  return "";
}

}  // namespace opcore::testing

// Everything the API tests use, in one line: `using namespace ::opcore::testing::prelude;`
namespace opcore::testing::prelude {
using ::opcore::testing::errorOf;
using ::opcore::testing::fromVector;
using ::opcore::testing::scalarTensor;
using ::opcore::testing::shapeOf;
using ::opcore::testing::ThreadCount;
using ::opcore::testing::toVector;
using ::testing::DoubleNear;
using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::FloatEq;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;
using Shape = std::vector<int64_t>;
}  // namespace opcore::testing::prelude
