// Writing a kernel's result into an out= tensor of any strides: the kernel writes
// contiguousOutput(out) (out itself when contiguous, else a contiguous temporary), then
// copyBack(out, written) copies a temporary into out.
#pragma once

#include "cpu/Loops.h"

namespace opcore::native::cpu {

inline TensorBase contiguousOutput(const TensorBase& out) {
  return out.is_contiguous() ? out : detail::emptyCpu(out.sizes(), out.scalar_type());
}

inline void copyBack(const TensorBase& out, const TensorBase& written) {
  if (!written.is_same(out)) copyInto(out, written);
}

}  // namespace opcore::native::cpu
