// What the CPU kernels generated from ExecuTorch's `kernels:` (Note [Kernel keys] in
// gen/model/kernel_keys.py) use to choose the kernel whose key matches a call.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace opcore {
class TensorBase;
}  // namespace opcore

namespace opcore::detail {

// Whether t's dimensions, from the outermost in memory to the innermost, are `dim_order`
// (ExecuTorch's dim order: {0, 1, 2, 3} is contiguous, {0, 2, 3, 1} channels-last). Dimensions
// of equal stride count in their natural order, so a contiguous tensor has {0, 1, ..., n-1}.
bool hasDimOrder(const TensorBase& t, std::initializer_list<int64_t> dim_order);

// One tensor argument of a call, as the error below describes it.
struct KeyedArgument {
  const char* name;
  const TensorBase* tensor;
};

// Throws the error of a call no kernel key matches: "myops::f: no kernel for self Double (dim
// order 0, 1); its kernels take: <keys>".
[[noreturn]] void throwNoKernelForKey(const char* op, std::initializer_list<KeyedArgument> arguments,
                                      const char* keys);

}  // namespace opcore::detail
