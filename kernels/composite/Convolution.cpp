// Convolutions (issue #34): convolution and convolution_backward for 1, 2 and 3 spatial
// dimensions, written with other operators so that every backend with those operators has
// them; conv1d/2d/3d, their "valid"/"same" padding forms and conv_transpose1d/2d/3d, which call
// convolution as PyTorch's do.
//
// Note [Convolution as a product]
// Each output element is a dot product of the weight with one window of the zero-padded
// input. Viewing the padded input [N, C, *S] with as_strided as [groups, C/groups, *kernel, N,
// *out] names every window without copying; reshaping that view to [groups, C/groups *
// kernel, N * out] copies the windows into columns (im2col, by the strided copy loops), and one
// batched product with the weight [groups, C_out/groups, C/groups * kernel] computes the whole
// result, on the BLAS (bmm). The weight's gradient is the same product with the output's
// gradient in the weight's place. The input's gradient (and a transposed convolution's
// forward) goes the other way: the product of the weight's transpose with the output's
// gradient gives a column per window, and the columns are added back into the windows they
// came from (col2im), one strided add_ per kernel offset. The product's result comes out as
// [C_out, N, *out] and is copied once into PyTorch's [N, C_out, *out] layout.
//
// Note [Stride-1 input gradients]
// With stride 1, the input's gradient is itself a forward convolution: of the output's
// gradient, padded by dilation * (kernel - 1) - padding, with the weight's channels swapped in
// each group and its kernel reversed. Its columns are the output gradient's, col2im's the
// input's, and col2im adds its columns back with one strided add_ per kernel offset: so it is
// computed as a convolution where the output has no more channels than the input (its
// columns no more than col2im's, and one copy where col2im has kernel-many adds), the padding
// is not negative and the result has the input's size. Elsewhere, and wherever the stride is
// not 1, col2im: where the output has more channels than the input, the copy moves more than
// the adds save (measured in bench/README.md, "The digits step as users run it").
#include <opcore/ops/add.h>
#include <opcore/ops/bmm.h>
#include <opcore/ops/constant_pad_nd.h>
#include <opcore/ops/conv1d_native.h>
#include <opcore/ops/conv2d_native.h>
#include <opcore/ops/conv3d_native.h>
#include <opcore/ops/conv_transpose1d_native.h>
#include <opcore/ops/conv_transpose2d_native.h>
#include <opcore/ops/conv_transpose3d_native.h>
#include <opcore/ops/convolution.h>
#include <opcore/ops/convolution_backward_native.h>
#include <opcore/ops/convolution_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/flip.h>
#include <opcore/ops/sum.h>
#include <opcore/ops/to.h>
#include <opcore/ops/zeros.h>

#include "common/Shape.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <string>

namespace opcore::native {

namespace {

// The parameters of one convolution, checked, with the sizes they imply.
struct ConvShape {
  int64_t dims;              // spatial dimensions: 1, 2 or 3
  int64_t groups;
  DimVector stride, padding, dilation, output_padding;
  DimVector kernel;          // weight.sizes()[2:]
};

// The spatial sizes of a [N, C, *spatial] tensor.
IntArrayRef spatialSizes(const Tensor& t) { return t.sizes().slice(2, static_cast<size_t>(t.dim() - 2)); }

std::string listOf(IntArrayRef values) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i) s += (i ? " x " : "") + std::to_string(values[i]);
  return s;
}

// PyTorch's checks of convolution's arguments, with its messages.
ConvShape checkConvolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                           IntArrayRef output_padding, int64_t groups) {
  const int64_t k = weight.dim();
  OPCORE_CHECK(k >= 3 && k <= 5, "convolution: expected a weight of 3, 4 or 5 dimensions ([C_out, C_in / groups, "
               "*kernel] with 1, 2 or 3 spatial dimensions), got ", weight.sizes());
  OPCORE_CHECK(input.dim() == k, "Expected ", k, "-dimensional input for ", k, "-dimensional weight ", weight.sizes(),
               ", but got ", input.dim(), "-dimensional input of size ", input.sizes(), " instead");
  const auto d = static_cast<size_t>(k - 2);
  const auto checkLength = [d](IntArrayRef list, const char* name) {
    OPCORE_CHECK(list.size() == d, "expected ", name, " to be a single integer value or a list of ", d,
                 " values to match the convolution dimensions, but got ", name, "=", list);
  };
  checkLength(stride, "stride");
  checkLength(padding, "padding");
  checkLength(dilation, "dilation");
  if (transposed) checkLength(output_padding, "output_padding");
  OPCORE_CHECK(groups > 0, "non-positive groups is not supported");
  for (size_t i = 0; i < d; ++i) {
    OPCORE_CHECK(stride[i] > 0, "non-positive stride is not supported");
    OPCORE_CHECK(padding[i] >= 0, "negative padding is not supported");
    OPCORE_CHECK(dilation[i] > 0, "dilation should be greater than zero");
    if (transposed) {
      OPCORE_CHECK(output_padding[i] >= 0, "negative output_padding is not supported");
      OPCORE_CHECK(output_padding[i] < stride[i] || output_padding[i] < dilation[i],
                   "output padding must be smaller than either stride or dilation, but got output_padding=",
                   output_padding, ", stride=", stride, ", dilation=", dilation);
    }
  }
  OPCORE_CHECK(input.scalar_type() == weight.scalar_type(), "expected scalar type ", weight.scalar_type(),
               " but found ", input.scalar_type(), " (convolution's input and weight must have one dtype)");
  // torch 1.13's CPU convolutions refuse complex numbers too.
  if (!isFloatingType(input.scalar_type())) detail::throwNotImplementedForDtype("convolution", input.scalar_type());
  OPCORE_CHECK(weight.size(0) % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
               " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  const int64_t channels = input.size(1);
  if (transposed) {
    OPCORE_CHECK(channels == weight.size(0), "Given transposed=1, weight of size ", weight.sizes(),
                 ", expected input", input.sizes(), " to have ", weight.size(0), " channels, but got ", channels,
                 " channels instead");
  } else {
    OPCORE_CHECK(channels == weight.size(1) * groups, "Given groups=", groups, ", weight of size ", weight.sizes(),
                 ", expected input", input.sizes(), " to have ", weight.size(1) * groups, " channels, but got ",
                 channels, " channels instead");
  }
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  if (bias && bias->defined()) {
    OPCORE_CHECK(bias->dim() == 1 && bias->size(0) == out_channels, "Given weight of size ", weight.sizes(),
                 ", expected bias to be 1-dimensional with ", out_channels, " elements, but got bias of size ",
                 bias->sizes(), " instead");
    OPCORE_CHECK(bias->scalar_type() == weight.scalar_type(), "expected scalar type ", weight.scalar_type(),
                 " but found ", bias->scalar_type(), " (convolution's bias)");
  }
  ConvShape shape{static_cast<int64_t>(d), groups, stride.vec(), padding.vec(), dilation.vec(),
                  transposed ? output_padding.vec() : DimVector(d, 0), spatialSizes(weight).vec()};
  if (!transposed) {
    DimVector padded(d), extent(d);
    for (size_t i = 0; i < d; ++i) {
      padded[i] = input.size(static_cast<int64_t>(i) + 2) + 2 * padding[i];
      extent[i] = dilation[i] * (shape.kernel[i] - 1) + 1;
    }
    bool fits = true;
    for (size_t i = 0; i < d; ++i) fits = fits && extent[i] <= padded[i];
    OPCORE_CHECK(fits, "Calculated padded input size per channel: (", listOf(padded), "). Kernel size: (",
                 listOf(extent), "). Kernel size can't be greater than actual input size");
  }
  return shape;
}

// The output's spatial sizes for an input's.
DimVector outputSizes(const ConvShape& c, IntArrayRef in, bool transposed) {
  DimVector out(static_cast<size_t>(c.dims));
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t extent = c.dilation[i] * (c.kernel[i] - 1) + 1;
    out[i] = transposed ? (in[i] - 1) * c.stride[i] - 2 * c.padding[i] + extent + c.output_padding[i]
                        : (in[i] + 2 * c.padding[i] - extent) / c.stride[i] + 1;
  }
  return out;
}

int64_t product(IntArrayRef v) { return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>()); }

// constant_pad_nd's list for `padding` on every spatial dimension (last dimension first).
DimVector padList(const ConvShape& c) {
  DimVector pad;
  for (int64_t i = c.dims - 1; i >= 0; --i) pad.insert(pad.end(), {c.padding[i], c.padding[i]});
  return pad;
}

bool anyPadding(const ConvShape& c) {
  for (int64_t p : c.padding) {
    if (p != 0) return true;
  }
  return false;
}

// A view of the padded [N, C, *S] `padded` as [groups, C/groups, *kernel, N, *out]: every
// window (Note [Convolution as a product]). Without the kernel's dimensions
// (with_kernel false) it is [groups, C/groups, N, *out]: the elements each window has at one
// kernel offset, `offset` elements from the windows' starts.
Tensor windows(const Tensor& padded, const ConvShape& c, IntArrayRef out, bool with_kernel = true,
               int64_t offset = 0) {
  const int64_t cg = padded.size(1) / c.groups;
  DimVector sizes = {c.groups, cg}, strides = {cg * padded.stride(1), padded.stride(1)};
  for (size_t i = 0; with_kernel && i < static_cast<size_t>(c.dims); ++i) {
    sizes.push_back(c.kernel[i]);
    strides.push_back(padded.stride(static_cast<int64_t>(i) + 2) * c.dilation[i]);
  }
  sizes.push_back(padded.size(0));
  strides.push_back(padded.stride(0));
  for (size_t i = 0; i < static_cast<size_t>(c.dims); ++i) {
    sizes.push_back(out[i]);
    strides.push_back(padded.stride(static_cast<int64_t>(i) + 2) * c.stride[i]);
  }
  return padded.as_strided(sizes, strides, padded.storage_offset() + offset);
}

// The columns of `input` [N, C, *in]: [groups, C/groups * kernel, N * out].
Tensor columns(const Tensor& input, const ConvShape& c, IntArrayRef out) {
  const Tensor padded = anyPadding(c) ? opcore::constant_pad_nd(input, padList(c)) : input;
  const int64_t cg = input.size(1) / c.groups;
  return windows(padded, c, out).reshape({c.groups, cg * product(c.kernel), input.size(0) * product(out)});
}

// [groups, C/groups, N * out] products as PyTorch's [N, C, *out].
Tensor fromProduct(const Tensor& product, int64_t batch, IntArrayRef out) {
  DimVector shape = {product.size(0) * product.size(1), batch};
  shape.insert(shape.end(), out.begin(), out.end());
  return product.reshape(shape).transpose(0, 1);
}

// [N, C, *out] as [groups, C/groups, N * out] (a copy unless N is 1).
Tensor toProduct(const Tensor& t, int64_t groups) {
  return t.transpose(0, 1).reshape({groups, t.size(1) / groups, -1});
}

// Columns are built for a part of the batch at a time, at most about this many bytes of them
// (one image at least): written and read back by the product while they are still in the
// last-level cache, where a whole batch's (58 MB for 8 images of 64 channels at 56x56, 3x3)
// went to memory and back (bench/README.md).
constexpr int64_t kColumnBytes = int64_t{4} << 20;

// The images per part of a batch whose columns are [channels * kernel, out] per image.
int64_t batchPart(int64_t channels, const ConvShape& c, IntArrayRef out, const Tensor& t) {
  const int64_t image_bytes = channels * product(c.kernel) * product(out) * t.element_size();
  return std::max<int64_t>(1, kColumnBytes / std::max<int64_t>(1, image_bytes));
}

// f(first, n) -> [n, ...] on the parts of a batch of `batch` images, `part` at a time, joined
// along the batch.
template <typename F>
Tensor joinParts(int64_t batch, int64_t part, const F& f) {
  if (part >= batch) return f(0, batch);
  Tensor result;
  for (int64_t first = 0; first < batch; first += part) {
    const int64_t n = std::min(part, batch - first);
    const Tensor piece = f(first, n);
    if (!result.defined()) {
      DimVector shape = piece.sizes().vec();
      shape[0] = batch;
      result = opcore::empty(shape, piece.scalar_type(), std::nullopt, piece.device());
    }
    result.narrow(0, first, n).copy_(piece);
  }
  return result;
}

// The forward convolution of `input` [N, C, *in] with `weight` [C_out, C/groups, *kernel].
Tensor convolutionForward(const Tensor& input, const Tensor& weight, const ConvShape& c) {
  const DimVector out = outputSizes(c, spatialSizes(input), false);
  const Tensor w = weight.reshape({c.groups, weight.size(0) / c.groups, -1});
  return joinParts(input.size(0), batchPart(input.size(1), c, out, input), [&](int64_t first, int64_t n) {
    return fromProduct(opcore::bmm(w, columns(input.narrow(0, first, n), c, out)), n, out);
  });
}

// The adjoint of convolutionForward in its input (col2im): `grad` [N, C_out, *out] into an
// input of spatial sizes `in` [N, C, *in], weight [C_out, C/groups, *kernel].
Tensor convolutionInputGradPart(const Tensor& grad, const Tensor& weight, const ConvShape& c, IntArrayRef in) {
  const int64_t batch = grad.size(0), channels = weight.size(1) * c.groups;
  const DimVector out = spatialSizes(grad).vec();
  const Tensor w = weight.reshape({c.groups, weight.size(0) / c.groups, -1});
  const Tensor cols = opcore::bmm(w.transpose(1, 2), toProduct(grad, c.groups));  // [g, C/g * kernel, N * out]
  // cols as [groups, C/groups, *kernel, N, *out], one kernel offset at a time.
  DimVector cols_shape = {c.groups, channels / c.groups};
  cols_shape.insert(cols_shape.end(), c.kernel.begin(), c.kernel.end());
  cols_shape.push_back(batch);
  cols_shape.insert(cols_shape.end(), out.begin(), out.end());
  const Tensor cols_view = cols.view(cols_shape);
  DimVector padded_shape = {batch, channels};
  for (size_t i = 0; i < static_cast<size_t>(c.dims); ++i) padded_shape.push_back(in[i] + 2 * c.padding[i]);
  const Tensor padded = opcore::zeros(padded_shape, grad.options());
  const int64_t offsets = product(c.kernel);
  for (int64_t k = 0; k < offsets; ++k) {
    // Kernel offset k: its position along each spatial dimension, and the window's start.
    int64_t rest = k, start = 0;
    Tensor part = cols_view;
    for (int64_t i = c.dims - 1; i >= 0; --i) {
      const int64_t at = rest % c.kernel[static_cast<size_t>(i)];
      rest /= c.kernel[static_cast<size_t>(i)];
      start += at * c.dilation[static_cast<size_t>(i)] * padded.stride(i + 2);
      part = part.select(2 + i, at);
    }
    windows(padded, c, out, /*with_kernel=*/false, start).add_(part);
  }
  if (!anyPadding(c)) return padded;
  Tensor result = padded;
  for (int64_t i = 0; i < c.dims; ++i) result = result.narrow(i + 2, c.padding[static_cast<size_t>(i)], in[i]);
  return result.contiguous();
}

// The convolution whose forward is the input gradient of `c`'s (Note [Stride-1 input
// gradients]) with `weight`, for an output gradient of spatial sizes `out` and an input of
// `in`; none where col2im is used.
std::optional<ConvShape> adjointShape(const ConvShape& c, const Tensor& weight, IntArrayRef out, IntArrayRef in) {
  if (weight.size(0) > weight.size(1) * c.groups) return std::nullopt;  // more output channels than input ones
  ConvShape a = c;
  for (size_t i = 0; i < static_cast<size_t>(c.dims); ++i) {
    a.padding[i] = c.dilation[i] * (c.kernel[i] - 1) - c.padding[i];
    if (c.stride[i] != 1 || a.padding[i] < 0) return std::nullopt;
  }
  if (outputSizes(a, out, false) != DimVector(in.begin(), in.end())) return std::nullopt;  // output_padding
  return a;
}

// `weight` [C_out, C/groups, *kernel] as the adjoint convolution's [C, C_out/groups, *kernel]:
// each group's channels swapped, the kernel reversed.
Tensor adjointWeight(const Tensor& weight, const ConvShape& c) {
  DimVector grouped = {c.groups, weight.size(0) / c.groups}, spatial, swapped = {weight.size(1) * c.groups,
                                                                                   weight.size(0) / c.groups};
  grouped.insert(grouped.end(), weight.sizes().begin() + 1, weight.sizes().end());
  for (int64_t i = 0; i < c.dims; ++i) spatial.push_back(i + 3);
  swapped.insert(swapped.end(), c.kernel.begin(), c.kernel.end());
  return weight.view(grouped).transpose(1, 2).flip(spatial).reshape(swapped);
}

Tensor convolutionInputGrad(const Tensor& grad, const Tensor& weight, const ConvShape& c, IntArrayRef in) {
  if (const std::optional<ConvShape> a = adjointShape(c, weight, spatialSizes(grad), in)) {
    return convolutionForward(grad, adjointWeight(weight, c), *a).contiguous();
  }
  const int64_t part = batchPart(weight.size(1) * c.groups, c, spatialSizes(grad), grad);
  return joinParts(grad.size(0), part, [&](int64_t first, int64_t n) {
    return convolutionInputGradPart(grad.narrow(0, first, n), weight, c, in);
  });
}

// The gradient of convolutionForward in its weight: `grad` [N, C_out, *out] with the columns
// of `input`, summed over the parts of the batch.
Tensor convolutionWeightGrad(const Tensor& grad, const Tensor& input, const ConvShape& c, IntArrayRef weight_sizes) {
  const DimVector out = spatialSizes(grad).vec();
  const int64_t batch = input.size(0), part = batchPart(input.size(1), c, out, input);
  Tensor sum;
  for (int64_t first = 0; first == 0 || first < batch; first += part) {  // once for an empty batch
    const int64_t n = std::min(part, batch - first);
    const Tensor cols = columns(input.narrow(0, first, n), c, out);  // [g, C/g * kernel, n * out]
    const Tensor product = opcore::bmm(toProduct(grad.narrow(0, first, n), c.groups), cols.transpose(1, 2));
    sum = sum.defined() ? sum.add_(product) : product;
  }
  return sum.reshape(weight_sizes);
}

// 16-bit floats are convolved in float and rounded once (a product and the col2im sums would
// otherwise round at every step).
bool inFloat(ScalarType t) { return t == kHalf || t == kBFloat16; }

Tensor toFloat(const Tensor& t) { return t.defined() ? t.to(kFloat) : t; }

Tensor addBias(const Tensor& result, const std::optional<Tensor>& bias) {
  if (!bias || !bias->defined()) return result.contiguous();
  DimVector shape(static_cast<size_t>(result.dim() - 1), 1);
  shape[0] = bias->size(0);
  return opcore::add(result, bias->view(shape)).contiguous();
}

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  const ConvShape c = checkConvolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  if (inFloat(input.scalar_type())) {
    const std::optional<Tensor> bias_float = bias ? std::optional<Tensor>(toFloat(*bias)) : std::nullopt;
    return native::convolution(toFloat(input), toFloat(weight), bias_float, stride, padding, dilation, transposed,
                       output_padding, groups)
        .to(input.scalar_type());
  }
  if (!transposed) return addBias(convolutionForward(input, weight, c), bias);
  const DimVector out = outputSizes(c, spatialSizes(input), true);
  return addBias(convolutionInputGrad(input, weight, c, out), bias);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, OptionalIntArrayRef bias_sizes,
                                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                        bool transposed, IntArrayRef output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask) {
  const ConvShape c = checkConvolution(input, weight, std::nullopt, stride, padding, dilation, transposed,
                                       output_padding, groups);
  DimVector expected = {input.size(0), transposed ? weight.size(1) * groups : weight.size(0)};
  const DimVector out = outputSizes(c, spatialSizes(input), transposed);
  expected.insert(expected.end(), out.begin(), out.end());
  OPCORE_CHECK(grad_output.sizes() == IntArrayRef(expected), "convolution_backward: expected grad_output of size ",
               IntArrayRef(expected), " (the convolution's output), got ", grad_output.sizes());
  OPCORE_CHECK(grad_output.scalar_type() == input.scalar_type(), "expected scalar type ", input.scalar_type(),
               " but found ", grad_output.scalar_type(), " (convolution_backward's grad_output)");
  if (inFloat(input.scalar_type())) {
    auto [gi, gw, gb] = native::convolution_backward(toFloat(grad_output), toFloat(input), toFloat(weight), bias_sizes, stride,
                                             padding, dilation, transposed, output_padding, groups, output_mask);
    const auto back = [&](const Tensor& t) { return t.defined() ? t.to(input.scalar_type()) : t; };
    return {back(gi), back(gw), back(gb)};
  }
  Tensor grad_input, grad_weight, grad_bias;
  // A transposed convolution is the adjoint of a forward one: its input's gradient is a
  // forward convolution, its weight's gradient a forward one's with the roles swapped.
  if (output_mask[0]) {
    if (transposed) {
      // A forward convolution of the output's sizes has one row more per dimension where
      // output_padding >= stride (stride 1, output_padding < dilation): that row is the
      // output padding's, which no input element reached.
      grad_input = convolutionForward(grad_output, weight, c);
      for (int64_t i = 0; i < c.dims; ++i) grad_input = grad_input.narrow(i + 2, 0, input.size(i + 2));
      grad_input = grad_input.contiguous();
    } else {
      grad_input = convolutionInputGrad(grad_output, weight, c, spatialSizes(input));
    }
  }
  if (output_mask[1]) {
    grad_weight = transposed ? convolutionWeightGrad(input, grad_output, c, weight.sizes())
                             : convolutionWeightGrad(grad_output, input, c, weight.sizes());
  }
  if (output_mask[2]) {
    DimVector dims = {0};
    for (int64_t i = 2; i < grad_output.dim(); ++i) dims.push_back(i);
    grad_bias = opcore::sum(grad_output, dims);
    if (bias_sizes.has_value()) {
      OPCORE_CHECK(bias_sizes->size() == 1 && (*bias_sizes)[0] == grad_bias.size(0),
                   "convolution_backward: expected bias_sizes [", grad_bias.size(0), "], got ", *bias_sizes);
    }
  }
  return {grad_input, grad_weight, grad_bias};
}

// ---- conv1d/2d/3d and conv_transpose1d/2d/3d -------------------------------------------------

namespace {

// One value for every spatial dimension, as PyTorch's expand_param_if_needed: conv2d(x, w, b,
// {2}) strides by 2 along both (a list of another length is refused by convolution).
DimVector expanded(IntArrayRef values, int64_t dims) {
  return values.size() == 1 ? DimVector(static_cast<size_t>(dims), values[0]) : values.vec();
}

// PyTorch's unbatched inputs: one dimension fewer, given a batch of 1 and returned without it.
Tensor withBatch(const char* name, int64_t dims, const Tensor& input, const std::function<Tensor(const Tensor&)>& f) {
  OPCORE_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2, "Expected ", dims + 1, "D (unbatched) or ",
               dims + 2, "D (batched) input to ", name, ", but got input of size: ", input.sizes());
  if (input.dim() == dims + 2) return f(input);
  return f(input.unsqueeze(0)).squeeze(0);
}

Tensor convNd(const char* name, int64_t dims, const Tensor& input, const Tensor& weight,
              const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
              int64_t groups) {
  return withBatch(name, dims, input, [&](const Tensor& batched) {
    return opcore::convolution(batched, weight, bias, expanded(stride, dims), expanded(padding, dims),
                               expanded(dilation, dims), false, DimVector(static_cast<size_t>(dims), 0), groups);
  });
}

// padding="valid" (none) or "same": for stride 1, the total padding dilation * (kernel - 1)
// per dimension, split with the odd element on the right, as PyTorch's _convolution_mode
// (an asymmetric split pads the input first).
Tensor convNdPadding(const char* name, int64_t dims, const Tensor& input, const Tensor& weight,
                     const std::optional<Tensor>& bias, IntArrayRef stride, std::string_view padding,
                     IntArrayRef dilation, int64_t groups) {
  const DimVector none(static_cast<size_t>(dims), 0);
  if (padding == "valid") return convNd(name, dims, input, weight, bias, stride, none, dilation, groups);
  OPCORE_CHECK(padding == "same", "Invalid padding string: '", padding, "'");
  for (int64_t s : stride) OPCORE_CHECK(s == 1, "padding='same' is not supported for strided convolutions");
  const DimVector dilations = expanded(dilation, dims);
  OPCORE_CHECK(weight.dim() == dims + 2, "Expected ", dims + 2, "-dimensional weight for ", name, ", got ",
               weight.sizes());
  DimVector symmetric(static_cast<size_t>(dims)), extra;
  bool asymmetric = false;
  for (int64_t i = dims - 1; i >= 0; --i) {
    const auto u = static_cast<size_t>(i);
    const int64_t total = (u < dilations.size() ? dilations[u] : 1) * (weight.size(i + 2) - 1);
    symmetric[u] = total / 2;
    extra.insert(extra.end(), {0, total % 2});
    asymmetric = asymmetric || total % 2 != 0;
  }
  const Tensor padded = asymmetric ? opcore::constant_pad_nd(input, extra) : input;
  return convNd(name, dims, padded, weight, bias, stride, symmetric, dilation, groups);
}

Tensor convTransposeNd(const char* name, int64_t dims, const Tensor& input, const Tensor& weight,
                       const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                       IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  return withBatch(name, dims, input, [&](const Tensor& batched) {
    return opcore::convolution(batched, weight, bias, expanded(stride, dims), expanded(padding, dims),
                               expanded(dilation, dims), true, expanded(output_padding, dims), groups);
  });
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return convNd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return convNd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return convNd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv1d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                      IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return convNdPadding("conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv2d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                      IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return convNdPadding("conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv3d_padding(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                      IntArrayRef stride, std::string_view padding, IntArrayRef dilation, int64_t groups) {
  return convNdPadding("conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return convTransposeNd("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                         dilation);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return convTransposeNd("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                         dilation);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return convTransposeNd("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                         dilation);
}

}  // namespace opcore::native
