// im2col and col2im (issue #34), torch.nn.functional's unfold and fold: the sliding blocks of an
// image as columns, and columns added back into an image. Written with other operators as
// convolution is (Note [Convolution as a product] in Convolution.cpp): im2col is a strided
// view of the zero-padded image copied by reshape, col2im one strided add_ per kernel offset.
// Each is linear, and the other's adjoint: their derivatives (derivatives.yaml) are each other.
#include <opcore/ops/col2im_native.h>
#include <opcore/ops/constant_pad_nd.h>
#include <opcore/ops/im2col_native.h>
#include <opcore/ops/zeros.h>

#include <ostream>

namespace opcore::native {

namespace {

// The four pairs of both operators, checked with PyTorch's messages.
struct Blocks {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
};

Blocks checkBlocks(IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  const auto pair = [](IntArrayRef v, const char* name) {
    OPCORE_CHECK(v.size() == 2, "It is expected ", name, " equals to 2, but got size ", v.size());
    return std::pair{v[0], v[1]};
  };
  const auto [kh, kw] = pair(kernel_size, "kernel_size");
  const auto [dh, dw] = pair(dilation, "dilation");
  const auto [ph, pw] = pair(padding, "padding");
  const auto [sh, sw] = pair(stride, "stride");
  OPCORE_CHECK(kh > 0 && kw > 0, "kernel size should be greater than zero, but got kernel_height: ", kh,
               " kernel_width: ", kw);
  OPCORE_CHECK(sh > 0 && sw > 0, "stride should be greater than zero, but got stride_height: ", sh,
               " stride_width: ", sw);
  OPCORE_CHECK(dh > 0 && dw > 0, "dilation should be greater than zero, but got dilation_height: ", dh,
               " dilation_width: ", dw);
  OPCORE_CHECK(ph >= 0 && pw >= 0, "padding should be non-negative, but got pad_height: ", ph, " pad_width: ", pw);
  return {kh, kw, dh, dw, ph, pw, sh, sw};
}

// The number of blocks along a dimension of `size` (may be < 1: the callers check).
int64_t blockCount(int64_t size, int64_t k, int64_t d, int64_t p, int64_t s) {
  return (size + 2 * p - (d * (k - 1) + 1)) / s + 1;
}

// Two values as PyTorch's messages print them: (a, b).
struct Pair {
  int64_t a, b;
};
std::ostream& operator<<(std::ostream& os, Pair p) { return os << "(" << p.a << ", " << p.b << ")"; }
Pair pairOf(int64_t a, int64_t b) { return {a, b}; }

void checkFloating(const Tensor& t, const char* name) {
  const ScalarType dtype = t.scalar_type();
  if (!isFloatingType(dtype) && !isComplexType(dtype)) detail::throwNotImplementedForDtype(name, dtype);
}

// The [N, C, kh, kw, oh, ow] view of the zero-padded [N, C, H + 2ph, W + 2pw] `padded`, whose
// block (i, j) starts at row i * sh, column j * sw.
Tensor blockView(const Tensor& padded, const Blocks& b, int64_t oh, int64_t ow) {
  const int64_t sH = padded.stride(2), sW = padded.stride(3);
  return padded.as_strided({padded.size(0), padded.size(1), b.kh, b.kw, oh, ow},
                           {padded.stride(0), padded.stride(1), b.dh * sH, b.dw * sW, b.sh * sH, b.sw * sW},
                           padded.storage_offset());
}

bool isReduced(ScalarType t) { return t == kHalf || t == kBFloat16; }

}  // namespace

// [N, C, H, W] (or unbatched [C, H, W]) -> [N, C * kh * kw, L]: column l holds block l
// (row-major over the oh x ow blocks), its elements in (channel, kernel row, kernel column) order.
Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride) {
  const Blocks b = checkBlocks(kernel_size, dilation, padding, stride);
  const bool batched = self.dim() == 4;
  OPCORE_CHECK((self.dim() == 3 || batched) && self.size(-1) > 0 && self.size(-2) > 0 && self.size(-3) > 0,
               "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
               "input, but got: ", self.sizes());
  checkFloating(self, "im2col");
  const Tensor x = batched ? self : self.unsqueeze(0);
  const int64_t h = x.size(2), w = x.size(3);
  const int64_t oh = blockCount(h, b.kh, b.dh, b.ph, b.sh), ow = blockCount(w, b.kw, b.dw, b.pw, b.sw);
  OPCORE_CHECK(oh >= 1 && ow >= 1, "Given input with spatial size ", pairOf(h, w), ", kernel_size=",
               pairOf(b.kh, b.kw), ", dilation=", pairOf(b.dh, b.dw), ", padding=", pairOf(b.ph, b.pw),
               ", calculated shape of the array of sliding blocks as ", pairOf(oh, ow),
               ", but its components must be at least one.");
  const Tensor padded = b.ph || b.pw ? opcore::constant_pad_nd(x, {b.pw, b.pw, b.ph, b.ph}) : x;
  const Tensor cols = blockView(padded, b, oh, ow).reshape({x.size(0), x.size(1) * b.kh * b.kw, oh * ow});
  return batched ? cols : cols.squeeze(0);
}

// [N, C * kh * kw, L] (or unbatched [C * kh * kw, L]) -> [N, C, H, W] with (H, W) =
// output_size: each column added into the block it names (overlapping blocks sum). 16-bit
// floats are summed in float and rounded once.
Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  OPCORE_CHECK(output_size.size() == 2, "It is expected output_size equals to 2, but got size ", output_size.size());
  const Blocks b = checkBlocks(kernel_size, dilation, padding, stride);
  const bool batched = self.dim() == 3;
  OPCORE_CHECK((self.dim() == 2 || batched) && self.size(-1) > 0 && self.size(-2) > 0,
               "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions "
               "for input, but got: ", self.sizes());
  checkFloating(self, "col2im");
  const Tensor cols = batched ? self : self.unsqueeze(0);
  const int64_t kernel = b.kh * b.kw;
  OPCORE_CHECK(cols.size(1) % kernel == 0, "Expected size of input's dimension 1 to be divisible by the product of "
               "kernel_size, but got input.size(1)=", cols.size(1), " and kernel_size=", pairOf(b.kh, b.kw), ".");
  const int64_t h = output_size[0], w = output_size[1];
  const int64_t oh = blockCount(h, b.kh, b.dh, b.ph, b.sh), ow = blockCount(w, b.kw, b.dw, b.pw, b.sw);
  OPCORE_CHECK(oh >= 1 && ow >= 1 && cols.size(2) == oh * ow, "Given output_size=", pairOf(h, w), ", kernel_size=",
               pairOf(b.kh, b.kw), ", dilation=", pairOf(b.dh, b.dw), ", padding=", pairOf(b.ph, b.pw), ", stride=",
               pairOf(b.sh, b.sw), ", expected size of input's dimension 2 to match the calculated number of sliding "
               "blocks ", std::max<int64_t>(oh, 0), " * ", std::max<int64_t>(ow, 0), " = ",
               std::max<int64_t>(oh, 0) * std::max<int64_t>(ow, 0), ", but got input.size(2)=", cols.size(2), ".");
  const ScalarType dtype = cols.scalar_type(), sum_dtype = isReduced(dtype) ? kFloat : dtype;
  const int64_t n = cols.size(0), c = cols.size(1) / kernel;
  const Tensor padded = opcore::zeros({n, c, h + 2 * b.ph, w + 2 * b.pw}, cols.options().dtype(sum_dtype));
  const Tensor blocks = cols.to(sum_dtype).reshape({n, c, b.kh, b.kw, oh, ow});
  const Tensor targets = blockView(padded, b, oh, ow);
  for (int64_t i = 0; i < b.kh; ++i) {
    for (int64_t j = 0; j < b.kw; ++j) targets.select(2, i).select(2, j).add_(blocks.select(2, i).select(2, j));
  }
  Tensor image = b.ph || b.pw ? padded.slice(2, b.ph, b.ph + h).slice(3, b.pw, b.pw + w).contiguous() : padded;
  if (sum_dtype != dtype) image = image.to(dtype);
  return batched ? image : image.squeeze(0);
}

}  // namespace opcore::native
