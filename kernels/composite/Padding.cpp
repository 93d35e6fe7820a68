// one_hot and pad (issue #34), CompositeImplicitAutograd as PyTorch's: one_hot scatters ones into
// zeros; pad picks constant_pad_nd, the circular padding (_pad_circular, written with cat: its
// gradient comes from cat's and narrow's) or the reflection / replication padding operators.
#include <opcore/ops/_pad_circular.h>
#include <opcore/ops/_pad_circular_native.h>
#include <opcore/ops/cat.h>
#include <opcore/ops/constant_pad_nd.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/max.h>
#include <opcore/ops/min.h>
#include <opcore/ops/narrow.h>
#include <opcore/ops/one_hot_native.h>
#include <opcore/ops/pad_native.h>
#include <opcore/ops/reflection_pad1d.h>
#include <opcore/ops/reflection_pad2d.h>
#include <opcore/ops/reflection_pad3d.h>
#include <opcore/ops/replication_pad1d.h>
#include <opcore/ops/replication_pad2d.h>
#include <opcore/ops/replication_pad3d.h>
#include <opcore/ops/scatter.h>
#include <opcore/ops/unsqueeze.h>
#include <opcore/ops/zeros.h>

#include <algorithm>
#include <string>

namespace opcore::native {

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  // PyTorch's message, with the dtype it got
  OPCORE_CHECK(self.scalar_type() == kLong, "one_hot is only applicable to index tensor. Got ", self.scalar_type(),
               ".");
  std::vector<int64_t> shape = self.sizes().vec();
  if (self.numel() == 0) {
    // no value to infer the classes from
    OPCORE_CHECK(num_classes > 0, "Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return opcore::empty(shape, kLong, std::nullopt, self.device());
  }
  OPCORE_CHECK(opcore::min(self).item<int64_t>() >= 0, "Class values must be non-negative.");
  const int64_t largest = opcore::max(self).item<int64_t>();
  if (num_classes == -1) {
    num_classes = largest + 1;
  } else {
    OPCORE_CHECK(num_classes > largest, "Class values must be smaller than num_classes.");
  }
  shape.push_back(num_classes);
  Tensor out = opcore::zeros(shape, self.options().dtype(kLong));
  out.scatter_(-1, self.unsqueeze(-1), 1);
  return out;
}

// Circular padding of the last pad.size() / 2 dimensions of a [N, C, ...] input: each is
// extended by its own last pad_l elements in front and its first pad_r behind (a negative pad
// drops elements), dimension by dimension from the last, so that corners wrap in both.
Tensor _pad_circular(const Tensor& self, IntArrayRef pad) {
  const int64_t ndim = self.dim();
  const auto padded = static_cast<int64_t>(pad.size() / 2);
  OPCORE_CHECK(pad.size() % 2 == 0 && padded + 2 == ndim, "Invalid padding size, expected ",
               std::max<int64_t>(2 * (ndim - 2), 0), " but got ", pad.size());
  Tensor out = self;
  for (int64_t k = 0; k < padded; ++k) {
    const int64_t d = ndim - 1 - k;
    const int64_t left = pad[static_cast<size_t>(2 * k)], right = pad[static_cast<size_t>(2 * k + 1)];
    const int64_t size = self.size(d);
    OPCORE_CHECK(left <= size && right <= size, "Padding value causes wrapping around more than once.");
    OPCORE_CHECK(size + left + right >= 0, "Negative padding value is resulting in an empty dimension");
    if (left < 0) out = opcore::narrow(out, d, -left, out.size(d) + left);
    if (right < 0) out = opcore::narrow(out, d, 0, out.size(d) + right);
    std::vector<Tensor> parts;
    if (left > 0) parts.push_back(opcore::narrow(out, d, out.size(d) - left, left));
    parts.push_back(out);
    if (right > 0) parts.push_back(opcore::narrow(out, d, 0, right));
    if (parts.size() > 1) out = opcore::cat(parts, d);
  }
  return out;
}

Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode, std::optional<double> value) {
  OPCORE_CHECK_NOT_IMPLEMENTED(mode == "constant" || mode == "reflect" || mode == "replicate" || mode == "circular",
                               "Unrecognised padding mode ", mode);
  const int64_t ndim = self.dim();
  OPCORE_CHECK(pad.size() % 2 == 0, "Padding length must be divisible by 2");
  OPCORE_CHECK(static_cast<int64_t>(pad.size()) <= ndim * 2,
               "Padding length should be less than or equal to two times the input dimension but got padding length ",
               pad.size(), " and input of dimension ", ndim);
  if (mode == "constant") return opcore::constant_pad_nd(self, pad, value.value_or(0.0));
  OPCORE_CHECK(!value.has_value() || *value == 0, "Padding mode \"", mode, "\" doesn't take in value argument");
  const auto padded = static_cast<int64_t>(pad.size() / 2);
  const bool batchable = padded >= 1 && padded <= 3 && (ndim == padded + 1 || ndim == padded + 2);
  // _pad_circular takes [N, C, ...] only, as PyTorch 1.13's (an unbatched input is refused there)
  if (batchable && mode == "circular") return opcore::_pad_circular(self, pad);
  if (batchable && padded == 1) {
    return mode == "reflect" ? opcore::reflection_pad1d(self, pad) : opcore::replication_pad1d(self, pad);
  }
  if (batchable && padded == 2) {
    return mode == "reflect" ? opcore::reflection_pad2d(self, pad) : opcore::replication_pad2d(self, pad);
  }
  if (batchable) {
    return mode == "reflect" ? opcore::reflection_pad3d(self, pad) : opcore::replication_pad3d(self, pad);
  }
  detail::throwNotImplementedError(__FILE__, __LINE__,
                                   "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
}

}  // namespace opcore::native
