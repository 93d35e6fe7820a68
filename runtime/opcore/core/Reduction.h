// Reduction: how a loss reduces its elementwise values, passed as a plain `int` (PyTorch's
// schemas write `int reduction=Mean`; the schema grammar lets an int default be Mean or Sum).
// The enumerators convert to int64_t, so the generated default `Reduction::Mean` fits an
// `int64_t` or `std::optional<int64_t>` parameter:
//   int64_t r = Reduction::Mean;  if (r == Reduction::Sum) ...
#pragma once

#include <cstdint>

namespace opcore {
namespace Reduction {

enum Reduction : int64_t {
  None = 0,  // keep every element
  Mean = 1,  // the mean of the elements (schema default spelling: `Mean`)
  Sum = 2,   // the sum of the elements (`Sum`)
};

}  // namespace Reduction
}  // namespace opcore
