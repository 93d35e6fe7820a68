// Layout: how a tensor's elements are arranged in memory (`Layout? layout=None` in factory
// schemas). opcore tensors are strided; the sparse layouts exist so that a schema can name
// them and a kernel can refuse them by name.
//   Layout l = Layout::Strided;  std::cout << l;  // "Strided"
#pragma once

#include <cstdint>
#include <iosfwd>

namespace opcore {

enum class Layout : int8_t {
  Strided = 0,  // dense, described by sizes and strides (schema default spelling: `strided`)
  Sparse,       // COO sparse (`sparse_coo`)
  SparseCsr,    // compressed sparse rows (`sparse_csr`)
};
constexpr int kNumLayouts = 3;
// ATen's names for the layouts.
constexpr Layout kStrided = Layout::Strided;
constexpr Layout kSparse = Layout::Sparse;
constexpr Layout kSparseCsr = Layout::SparseCsr;

// "Strided", "Sparse", "SparseCsr" (the enumerator name).
const char* toString(Layout l);
std::ostream& operator<<(std::ostream& os, Layout l);

}  // namespace opcore
