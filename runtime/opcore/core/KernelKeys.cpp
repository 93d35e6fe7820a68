#include <opcore/core/KernelKeys.h>

#include <opcore/core/Error.h>
#include <opcore/core/TensorBase.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace opcore::detail {

namespace {

std::vector<int64_t> dimOrder(const TensorBase& t) {
  std::vector<int64_t> order(static_cast<size_t>(t.dim()));
  std::iota(order.begin(), order.end(), 0);
  const IntArrayRef strides = t.strides();
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return strides[static_cast<size_t>(a)] > strides[static_cast<size_t>(b)];
  });
  return order;
}

}  // namespace

bool hasDimOrder(const TensorBase& t, std::initializer_list<int64_t> dim_order) {
  if (static_cast<size_t>(t.dim()) != dim_order.size()) return false;
  const std::vector<int64_t> order = dimOrder(t);
  return std::equal(order.begin(), order.end(), dim_order.begin());
}

void throwNoKernelForKey(const char* op, std::initializer_list<KeyedArgument> arguments, const char* keys) {
  std::string call;
  for (const KeyedArgument& a : arguments) {
    std::string order;
    for (int64_t d : dimOrder(*a.tensor)) order += (order.empty() ? "" : ", ") + std::to_string(d);
    call += std::string(call.empty() ? "" : ", ") + a.name + " " + toString(a.tensor->scalar_type()) +
            " (dim order " + order + ")";
  }
  throwError(__FILE__, __LINE__, strCat(op, ": no kernel for ", call, "; its kernels take: ", keys));
}

}  // namespace opcore::detail
