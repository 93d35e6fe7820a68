// Composite shape operators of issue #33, written with other operators so that they work on
// every backend and (CompositeImplicitAutograd) get their gradients from their parts: stack,
// flatten, unflatten, split, split_with_sizes, chunk, narrow, unbind, expand_as, view_as, tile,
// movedim, pixel_shuffle, pixel_unshuffle; and the CompositeExplicitAutograd repeat and
// constant_pad_nd (derivatives.yaml).
//
// Note [Composite views]
// split, split_with_sizes and unbind are CompositeExplicitAutograd in PyTorch, with
// derivatives of their own; here they are narrow / select views, which autograd tracks one by
// one, so their results are views of `self` with the same gradients.
#include <opcore/ops/cat.h>
#include <opcore/ops/chunk_native.h>
#include <opcore/ops/constant_pad_nd_native.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/expand.h>
#include <opcore/ops/expand_as_native.h>
#include <opcore/ops/fill.h>
#include <opcore/ops/flatten.h>
#include <opcore/ops/flatten_native.h>
#include <opcore/ops/movedim_native.h>
#include <opcore/ops/narrow.h>
#include <opcore/ops/narrow_native.h>
#include <opcore/ops/permute.h>
#include <opcore/ops/pixel_shuffle_native.h>
#include <opcore/ops/pixel_unshuffle_native.h>
#include <opcore/ops/index_select.h>
#include <opcore/ops/repeat.h>
#include <opcore/ops/repeat_interleave.h>
#include <opcore/ops/repeat_interleave_native.h>
#include <opcore/ops/repeat_native.h>
#include <opcore/ops/reshape.h>
#include <opcore/ops/select.h>
#include <opcore/ops/slice.h>
#include <opcore/ops/split.h>
#include <opcore/ops/split_native.h>
#include <opcore/ops/split_with_sizes.h>
#include <opcore/ops/split_with_sizes_native.h>
#include <opcore/ops/stack_native.h>
#include <opcore/ops/tile_native.h>
#include <opcore/ops/unbind_native.h>
#include <opcore/ops/unflatten_native.h>
#include <opcore/ops/unsqueeze.h>
#include <opcore/ops/view.h>
#include <opcore/ops/view_as_native.h>

#include "common/Shape.h"

#include <algorithm>
#include <vector>

namespace opcore::native {

namespace {

std::vector<Tensor> unsqueezedForStack(TensorList tensors, int64_t dim) {
  OPCORE_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  const int64_t d = wrapDim(dim, tensors[0].dim() + 1);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    OPCORE_CHECK(tensors[i].sizes() == tensors[0].sizes(), "stack expects each tensor to be equal size, but got ",
                 tensors[0].sizes(), " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
    parts.push_back(opcore::unsqueeze(tensors[i], d));
  }
  return parts;
}

}  // namespace

Tensor stack(TensorList tensors, int64_t dim) {
  return opcore::cat(unsqueezedForStack(tensors, dim), dim);  // dim wraps as it did for the unsqueeze
}

Tensor& stack_out(TensorList tensors, int64_t dim, Tensor& out) {
  return opcore::cat_out(out, unsqueezedForStack(tensors, dim), dim);
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  const int64_t start = wrapDim(start_dim, self.dim()), end = wrapDim(end_dim, self.dim());
  OPCORE_CHECK(start <= end, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (self.dim() == 0) return opcore::reshape(self, {1});
  if (start == end) return self;
  DimVector shape(self.sizes().begin(), self.sizes().begin() + start);
  int64_t merged = 1;
  for (int64_t d = start; d <= end; ++d) merged *= self.size(d);
  shape.push_back(merged);
  shape.insert(shape.end(), self.sizes().begin() + end + 1, self.sizes().end());
  return opcore::reshape(self, shape);
}

Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  OPCORE_CHECK_INDEX(self.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = self.wrapDim(dim);
  OPCORE_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  const int64_t size = self.size(d);
  int64_t known = 1;
  int64_t inferred = 0;
  for (int64_t s : sizes) {
    if (s == -1) {
      ++inferred;
    } else {
      known *= s;
    }
  }
  const bool ok = inferred == 0 ? known == size : (inferred == 1 && known != 0 && size % known == 0);
  OPCORE_CHECK(inferred <= 1, "unflatten: only one dimension can be inferred");
  OPCORE_CHECK(ok, "unflatten: Provided sizes ", sizes, " don't multiply up to the size of dim ", dim, " (", size,
               ") in the input tensor");
  DimVector shape(self.sizes().begin(), self.sizes().begin() + d);
  for (int64_t s : sizes) shape.push_back(s == -1 ? size / known : s);
  shape.insert(shape.end(), self.sizes().begin() + d + 1, self.sizes().end());
  return self.view(shape);
}

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  OPCORE_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  OPCORE_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t d = self.wrapDim(dim);
  const int64_t size = self.size(d);
  OPCORE_CHECK(split_size > 0 || size == 0, "split_size can only be 0 if dimension size is 0, but got dimension size of ",
               size);
  // One (empty) piece when the dimension is empty, as in PyTorch.
  const int64_t pieces = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(pieces));
  for (int64_t i = 0; i < pieces; ++i) {
    const int64_t start = i * split_size;
    out.push_back(opcore::narrow(self, d, start, std::min(split_size, size - start)));
  }
  return out;
}

std::vector<Tensor> split(const Tensor& self, IntArrayRef split_size, int64_t dim) {
  return opcore::split_with_sizes(self, split_size, dim);
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  OPCORE_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  const int64_t d = self.wrapDim(dim);
  const int64_t size = self.size(d);
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    OPCORE_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
                 split_sizes);
    total += s;
  }
  OPCORE_CHECK(total == size, "split_with_sizes expects split_sizes to sum exactly to ", size,
               " (input tensor's size at dimension ", d, "), but got split_sizes=", split_sizes);
  std::vector<Tensor> out;
  out.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(opcore::narrow(self, d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  OPCORE_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  OPCORE_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t size = self.size(dim);
  const int64_t split_size = (size + chunks - 1) / chunks;
  if (split_size == 0 && size == 0) {  // `chunks` empty pieces, as in PyTorch
    return opcore::split_with_sizes(self, std::vector<int64_t>(static_cast<size_t>(chunks), 0), dim);
  }
  return opcore::split(self, split_size, dim);
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  OPCORE_CHECK(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  OPCORE_CHECK(length >= 0, "narrow(): length must be non-negative.");
  const int64_t d = self.wrapDim(dim);
  const int64_t size = self.size(d);
  OPCORE_CHECK_INDEX(start >= -size && start <= size, "start out of range (expected to be in range of [", -size, ", ",
                     size, "], but got ", start, ")");
  if (start < 0) start += size;
  OPCORE_CHECK(start <= size - length, "start (", start, ") + length (", length, ") exceeds dimension size (", size,
               ").");
  return opcore::slice(self, d, start, start + length, 1);
}

Tensor narrow(const Tensor& self, int64_t dim, const Tensor& start, int64_t length) {
  OPCORE_CHECK(start.dim() == 0 && isIntegralType(start.scalar_type(), /*includeBool=*/false),
               "start must be an 0-dim integral Tensor.");
  return native::narrow(self, dim, start.item<int64_t>(), length);
}

std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  OPCORE_CHECK_INDEX(self.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = self.wrapDim(dim);
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(self.size(d)));
  for (int64_t i = 0; i < self.size(d); ++i) out.push_back(opcore::select(self, d, i));
  return out;
}

Tensor expand_as(const Tensor& self, const Tensor& other) { return self.expand(other.sizes()); }

Tensor view_as(const Tensor& self, const Tensor& other) { return self.view(other.sizes()); }

Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  OPCORE_CHECK(static_cast<int64_t>(repeats.size()) >= self.dim(),
               "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  const size_t lead = repeats.size() - static_cast<size_t>(self.dim());
  DimVector padded(lead, 1), target, interleaved, source;
  padded.insert(padded.end(), self.sizes().begin(), self.sizes().end());
  for (size_t i = 0; i < repeats.size(); ++i) {
    target.push_back(padded[i] * repeats[i]);
    interleaved.push_back(repeats[i]);
    interleaved.push_back(padded[i]);
    source.push_back(1);
    source.push_back(padded[i]);
  }
  for (int64_t s : target) {
    OPCORE_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", IntArrayRef(target));
  }
  Tensor result = opcore::empty(target, self.scalar_type(), std::nullopt, self.device());
  if (result.numel() == 0 || result.device().is_meta()) return result;  // a Meta tensor has no values
  // result as [r0, s0, r1, s1, ...] takes self as [1, s0, 1, s1, ...] broadcast along the r's.
  result.view(interleaved).copy_(opcore::reshape(self, source).expand(interleaved));
  return result;
}

Tensor tile(const Tensor& self, IntArrayRef dims) {
  const auto have = static_cast<int64_t>(dims.size());
  if (have >= self.dim()) return self.repeat(dims);
  DimVector padded(static_cast<size_t>(self.dim() - have), 1);
  padded.insert(padded.end(), dims.begin(), dims.end());
  return self.repeat(padded);
}

Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  OPCORE_CHECK(source.size() == destination.size(), "movedim: Invalid source or destination dims: source (", source,
               " dims) should contain the same number of dims as destination (", destination, " dims)");
  const int64_t ndim = self.dim();
  const auto n = static_cast<size_t>(std::max<int64_t>(ndim, 1));
  std::vector<int64_t> order(n, -1);
  std::vector<bool> moved(n, false), taken(n, false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t s = self.wrapDim(source[i]), t = self.wrapDim(destination[i]);
    OPCORE_CHECK(!moved[static_cast<size_t>(s)], "movedim: repeated dim in `source` (", source, ")");
    OPCORE_CHECK(!taken[static_cast<size_t>(t)], "movedim: repeated dim in `destination` (", destination, ")");
    moved[static_cast<size_t>(s)] = true;
    taken[static_cast<size_t>(t)] = true;
    order[static_cast<size_t>(t)] = s;
  }
  if (ndim == 0) return self;
  int64_t next = 0;  // the dimensions not moved keep their order in the free places
  for (size_t pos = 0; pos < n; ++pos) {
    if (order[pos] != -1) continue;
    while (moved[static_cast<size_t>(next)]) ++next;
    order[pos] = next++;
  }
  return opcore::permute(self, order);
}

Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return native::movedim(self, IntArrayRef(&source, 1), IntArrayRef(&destination, 1));
}

Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  OPCORE_CHECK(pad.size() % 2 == 0, "Length of pad must be even but instead it equals ", pad.size());
  const int64_t ndim = self.dim();
  const auto pairs = static_cast<int64_t>(pad.size() / 2);
  OPCORE_CHECK(pairs <= ndim, "Length of pad should be no more than twice the number of dimensions of the input. "
               "Pad length is ", pad.size(), " while the input has ", ndim, " dimensions.");
  const int64_t first = ndim - pairs;  // the first padded dimension
  // pad[2k], pad[2k + 1]: before and after the last dimension but k.
  const auto before = [&](int64_t d) { return pad[static_cast<size_t>(2 * (ndim - d - 1))]; };
  const auto after = [&](int64_t d) { return pad[static_cast<size_t>(2 * (ndim - d - 1) + 1)]; };
  Tensor input = self;
  bool any_positive = false;
  for (int64_t d = first; d < ndim; ++d) {
    if (before(d) < 0) input = opcore::narrow(input, d, -before(d), input.size(d) + before(d));
    if (after(d) < 0) input = opcore::narrow(input, d, 0, input.size(d) + after(d));
    any_positive = any_positive || before(d) > 0 || after(d) > 0;
  }
  DimVector shape = self.sizes().vec();
  for (int64_t d = first; d < ndim; ++d) {
    const int64_t size = self.size(d) + before(d) + after(d);
    OPCORE_CHECK(size >= 0, "The input size ", self.size(d), ", plus negative padding ", before(d), " and ", after(d),
                 " resulted in a negative output size, which is invalid. Check dimension ", d, " of your input.");
    shape[static_cast<size_t>(d)] = size;
  }
  Tensor out = opcore::empty(shape, self.scalar_type(), std::nullopt, self.device());
  if (out.device().is_meta()) return out;  // a Meta tensor has no values
  if (!any_positive) {
    out.copy_(input);
    return out;
  }
  out.fill_(value);
  Tensor inner = out;
  for (int64_t d = first; d < ndim; ++d) {
    if (before(d) > 0) inner = opcore::narrow(inner, d, before(d), inner.size(d) - before(d));
    if (after(d) > 0) inner = opcore::narrow(inner, d, 0, inner.size(d) - after(d));
  }
  inner.copy_(input);
  return out;
}


// repeat_interleave(self, repeats, dim): self's entries along dim (of the flattened self when dim
// is None) each repeated repeats[i] times, as index_select of repeat_interleave(repeats)'s
// positions; so autograd comes from index_select. A 0-dim or one-element repeats serves every entry.
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  OPCORE_CHECK_INDEX(!dim || self.dim() > 0, "Dimension specified as ", *dim, " but tensor has no dimensions");
  const Tensor input = dim ? self : self.flatten();
  const int64_t d = dim ? input.wrapDim(*dim) : 0;
  Tensor counts = repeats;
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.size(0) == 1)) {
    counts = repeats.reshape({1}).expand({input.size(d)});
  } else {
    OPCORE_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
    OPCORE_CHECK(repeats.size(0) == input.size(d), "repeats must have the same size as input along dim, but got "
                 "repeats.size(0) = ", repeats.size(0), " and input.size(", d, ") = ", input.size(d));
  }
  return input.index_select(d, opcore::repeat_interleave(counts, output_size));
}

// With one count for every entry, each entry is an expanded view repeated in place, and the copy
// that flattens it moves whole rows (index_select of a computed index read every row through the
// index); autograd comes from expand and reshape.
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  OPCORE_CHECK(repeats >= 0, "repeats can not be negative");
  OPCORE_CHECK_INDEX(!dim || self.dim() > 0, "Dimension specified as ", *dim, " but tensor has no dimensions");
  const Tensor input = dim ? self : self.flatten();
  const int64_t d = input.wrapDim(dim.value_or(0));
  OPCORE_CHECK(!output_size || *output_size == input.size(d) * repeats,
               "allocated size does not match required size: output_size is ", output_size.value_or(0),
               " but the repeats sum to ", input.size(d) * repeats);
  std::vector<int64_t> sizes = input.sizes().vec();
  sizes.insert(sizes.begin() + d + 1, repeats);
  return input.unsqueeze(d + 1).expand(sizes).flatten(d, d + 1);
}

// pixel_shuffle and pixel_unshuffle: a view splitting the dimensions, a permute, and a reshape
// (a copy, Note [Zipped copies] in kernels/cpu/Loops.cpp) joining them. `self` is
// (*, C, r, r, H, W) seen as (*, C, H, r, W, r) for the shuffle, and (*, C, H, r, W, r) seen as
// (*, C, r, r, H, W) for its inverse.
namespace {

// The sizes of `self` but its last three dimensions, followed by `tail`.
DimVector batchAnd(const Tensor& self, std::initializer_list<int64_t> tail) {
  DimVector sizes(self.sizes().begin(), self.sizes().end() - 3);
  sizes.insert(sizes.end(), tail);
  return sizes;
}

// The identity permutation of the first `batch` dimensions, followed by `batch` + each of `tail`.
DimVector batchPermutation(int64_t batch, std::initializer_list<int64_t> tail) {
  DimVector perm;
  for (int64_t d = 0; d < batch; ++d) perm.push_back(d);
  for (int64_t d : tail) perm.push_back(batch + d);
  return perm;
}

// The result as a new tensor, as the schema promises: the reshape keeps a view of `self` where
// nothing moves (a factor of 1).
Tensor fresh(const Tensor& result, const Tensor& self) {
  const bool shared = result.unsafeGetTensorImpl()->storage().get() == self.unsafeGetTensorImpl()->storage().get();
  return shared ? result.clone() : result;
}

void checkPixelShuffleInput(const char* name, const Tensor& self, const char* factor_name, int64_t factor) {
  OPCORE_CHECK(self.dim() >= 3, name, " expects input to have at least 3 dimensions, but got input with ", self.dim(),
               " dimension(s)");
  OPCORE_CHECK(factor > 0, name, " expects a positive ", factor_name, ", but got ", factor);
}

}  // namespace

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  checkPixelShuffleInput("pixel_shuffle", self, "upscale_factor", upscale_factor);
  const int64_t r = upscale_factor, c = self.size(-3), h = self.size(-2), w = self.size(-1);
  OPCORE_CHECK(c % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
               "of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r * r);
  const Tensor split = opcore::reshape(self, batchAnd(self, {c / (r * r), r, r, h, w}));
  const Tensor moved = split.permute(batchPermutation(self.dim() - 3, {0, 3, 1, 4, 2}));
  return fresh(opcore::reshape(moved, batchAnd(self, {c / (r * r), h * r, w * r})), self);
}

Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  checkPixelShuffleInput("pixel_unshuffle", self, "downscale_factor", downscale_factor);
  const int64_t r = downscale_factor, c = self.size(-3), h = self.size(-2), w = self.size(-1);
  OPCORE_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
               " is not divisible by ", r);
  OPCORE_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=", w,
               " is not divisible by ", r);
  const Tensor split = opcore::reshape(self, batchAnd(self, {c, h / r, r, w / r, r}));
  const Tensor moved = split.permute(batchPermutation(self.dim() - 3, {0, 2, 4, 1, 3}));
  return fresh(opcore::reshape(moved, batchAnd(self, {c * r * r, h / r, w / r})), self);
}

}  // namespace opcore::native
