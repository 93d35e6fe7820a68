// LoopPlan construction, ElementwiseOp bookkeeping and the dtype-converting copy.
#include "cpu/Loops.h"

#include "common/TypePromotion.h"
#include "cpu/VecMath.h"

#include <immintrin.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

namespace opcore::native::cpu {

LoopPlan::LoopPlan(IntArrayRef shape, std::initializer_list<const TensorBase*> operands)
    : ntensors_(static_cast<int>(operands.size())) {
  OPCORE_INTERNAL_ASSERT(ntensors_ <= kMaxOperands, "LoopPlan: too many operands");
  const auto ndim = static_cast<int64_t>(shape.size());
  int k = 0;
  for (const TensorBase* t : operands) {
    OPCORE_INTERNAL_ASSERT(t->dim() <= ndim, "LoopPlan: operand has more dims than the shape");
    data_[k++] = static_cast<char*>(t->data_ptr());
  }
  numel_ = checkedNumel(shape);
  // Innermost first; size-1 dimensions contribute nothing and are dropped.
  for (int64_t d = ndim - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    sizes_[ndim_] = shape[d];
    k = 0;
    for (const TensorBase* t : operands) {
      const int64_t e = d - (ndim - t->dim());  // the operand's own dimension, if any
      const bool broadcast = e < 0 || t->sizes()[e] == 1;
      OPCORE_INTERNAL_ASSERT(broadcast || t->sizes()[e] == shape[d], "LoopPlan: bad broadcast");
      strides_[ndim_][k++] =
          broadcast ? 0 : t->strides()[e] * static_cast<int64_t>(t->element_size());
    }
    ++ndim_;
  }
  coalesce();
  decideTiling();
}

LoopPlan LoopPlan::dense(int64_t numel, std::initializer_list<const TensorBase*> operands) {
  LoopPlan plan;
  plan.ntensors_ = static_cast<int>(operands.size());
  plan.ndim_ = 1;
  plan.numel_ = numel;
  plan.sizes_[0] = numel;
  int k = 0;
  for (const TensorBase* t : operands) {
    plan.data_[k] = static_cast<char*>(t->data_ptr());
    plan.strides_[0][k++] = static_cast<int64_t>(t->element_size());
  }
  return plan;
}

LoopPlan LoopPlan::narrowed(int64_t begin, int64_t end) const {
  OPCORE_INTERNAL_ASSERT(0 <= begin && begin <= end && end <= outerSize(), "LoopPlan: bad narrowing");
  LoopPlan plan = *this;
  if (ndim_ == 0) return plan;
  const int d = ndim_ - 1;
  plan.sizes_[d] = end - begin;
  plan.numel_ = sizes_[d] == 0 ? 0 : numel_ / sizes_[d] * (end - begin);
  for (int k = 0; k < ntensors_; ++k) plan.data_[k] += begin * strides_[d][k];
  return plan;
}

void LoopPlan::decideTiling() {
  if (ndim_ < 2 || sizes_[0] < kTileInner || sizes_[1] < 2) return;
  for (int k = 0; k < ntensors_; ++k) {
    const int64_t inner = std::abs(strides_[0][k]), outer = std::abs(strides_[1][k]);
    if (outer != 0 && outer < inner) tiled_ = true;
  }
}

void LoopPlan::coalesce() {
  if (ndim_ <= 1) return;
  int out = 0;  // the dimension currently being grown
  for (int d = 1; d < ndim_; ++d) {
    bool mergeable = true;
    for (int k = 0; k < ntensors_; ++k) {
      mergeable = mergeable && strides_[d][k] == strides_[out][k] * sizes_[out];
    }
    if (mergeable) {
      sizes_[out] *= sizes_[d];
      continue;
    }
    ++out;
    sizes_[out] = sizes_[d];
    for (int k = 0; k < ntensors_; ++k) strides_[out][k] = strides_[d][k];
  }
  ndim_ = out + 1;
}

// Note [Dense operands]
// Most calls are on operands that are already what the kernel reads: contiguous, one shape,
// the compute dtype, and an out of that shape and dtype (a structured kernel's wrapper has
// just allocated it). For them the constructor checks only that and the plan is one
// dimension (LoopPlan::dense), so a one-element add spends its time in dispatch and
// allocation, not in broadcasting, promotion and coalescing that would change nothing.
// An input that shares out's storage qualifies only at out's own address (in place). The op
// then reads and writes the caller's tensors through pointers, taking no references.
bool ElementwiseOp::isDense(ScalarType output_dtype, std::initializer_list<ElementwiseInput> inputs) const {
  if (!out_.defined() || !out_.is_cpu() || out_.scalar_type() != output_dtype || !out_.is_contiguous()) {
    return false;
  }
  const IntArrayRef sizes = out_.sizes();
  for (const ElementwiseInput& in : inputs) {
    const TensorBase& t = in.tensor;
    if (!t.is_cpu() || t.scalar_type() != in.dtype || !t.is_contiguous() || t.sizes() != sizes) return false;
    if (t.data_ptr() != out_.data_ptr() && sharesStorage(t, out_)) return false;
  }
  return true;
}

LoopPlan ElementwiseOp::plan(std::initializer_list<const TensorBase*> operands) const {
  return dense_ ? LoopPlan::dense(out_.numel(), operands) : LoopPlan(shape_, operands);
}

ElementwiseOp::ElementwiseOp(const char* name, TensorBase out, ScalarType output_dtype,
                             std::initializer_list<ElementwiseInput> inputs)
    : name_(name), out_(std::move(out)) {
  OPCORE_INTERNAL_ASSERT(inputs.size() < kMaxOperands, "ElementwiseOp: too many inputs");
  if (isDense(output_dtype, inputs)) {
    dense_ = true;
    operands_[0] = &out_;
    for (const ElementwiseInput& in : inputs) operands_[++ninputs_] = &in.tensor;
    return;
  }
  // Validate everything before touching out, so that a failure leaves it unchanged.
  for (const ElementwiseInput& in : inputs) {
    checkCpu(name, {&in.tensor});
    shape_ = ninputs_ == 0 ? in.tensor.sizes().vec() : broadcastShapes(shape_, in.tensor.sizes());
    ++ninputs_;
  }
  if (out_.defined()) {
    checkCpu(name, {&out_});
    checkCanCast(output_dtype, out_.scalar_type());
    checkNoInternalOverlap(out_);
  }
  const bool overlap = captureInputs(inputs);
  if (!out_.defined()) {
    out_ = detail::emptyCpu(shape_, output_dtype);
  } else {
    detail::resizeOutput(out_, shape_);
  }
  target_ = overlap || out_.scalar_type() != output_dtype ? detail::emptyCpu(shape_, output_dtype)
                                                         : out_;
  operands_[0] = &target_;
  for (int k = 0; k < ninputs_; ++k) operands_[k + 1] = &inputs_[k];
}

bool ElementwiseOp::captureInputs(std::initializer_list<ElementwiseInput> inputs) {
  // An input that shares memory with an out about to be resized must be copied first; one
  // that partially overlaps out makes the kernel write a temporary instead.
  const bool resizing = out_.defined() && out_.sizes() != IntArrayRef(shape_);
  bool overlap = false;
  int k = 0;
  for (const ElementwiseInput& in : inputs) {
    TensorBase t = convertTo(in.tensor, in.dtype);
    if (out_.defined() && sharesStorage(t, out_)) {
      if (resizing) {
        t = ownedCopy(t);
      } else {
        overlap = overlap || !sameLayout(t, out_);
      }
    }
    inputs_[k++] = std::move(t);
  }
  return overlap;
}

void ElementwiseOp::checkTypes(ScalarType out, std::initializer_list<ScalarType> inputs) const {
  OPCORE_INTERNAL_ASSERT(out == operands_[0]->scalar_type() && inputs.size() == size_t(ninputs_),
                         "ElementwiseOp ", name_, ": kernel instantiated for the wrong output type or arity");
  int k = 0;
  for (ScalarType t : inputs) {
    OPCORE_INTERNAL_ASSERT(t == operands_[++k]->scalar_type(), "ElementwiseOp ", name_, ": wrong input type");
  }
}

void ElementwiseOp::finish() {
  if (dense_) return;
  if (!target_.is_same(out_)) copyInto(out_, target_);
  target_ = out_;
  for (int k = 0; k < ninputs_; ++k) inputs_[k] = TensorBase();  // release converted copies
}

namespace {

// Note [Converting 16-bit floats]
// toFloat and fromFloat (Note [Reduced precision] in Loops.h) have a copy per instruction set,
// picked at load time as OPCORE_CPU_CLONES does (the plain x86-64 one alone when
// OPCORE_LOAD_TIME_CLONES is 0). BFloat16 is the upper half of a float: its conversions are a
// shift and a rounding add, which the compiler vectorizes at every width, widest with
// AVX-512. Half's branch-free conversions (Note [Branch-free conversions] in Half.h) vectorize
// too, but packing and unpacking 16-bit lanes costs the compiler about five instructions per
// element; F16C's vcvtps2ph and vcvtph2ps (in every x86-64-v3 CPU) convert 8 elements in one,
// rounding to nearest even, with the same results for every input but NaN: the instructions
// keep a NaN's payload where Half.h gives the one quiet NaN (float to Half) or keeps the
// payload without setting the quiet bit (Half to float). Those lanes are patched, rarely
// taken (checked on all 2^32 floats and 2^16 halves when this was written).
// AVX512-BF16's vcvtneps2bf16 is not used: it reads denormal floats as zero.
#if OPCORE_LOAD_TIME_CLONES
#define OPCORE_TARGET_DEFAULT_ __attribute__((target("default")))
#define OPCORE_BF16_CLONES_ __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define OPCORE_TARGET_DEFAULT_
#define OPCORE_BF16_CLONES_
#endif

OPCORE_TARGET_DEFAULT_ void halvesToFloats(const Half* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
}
OPCORE_TARGET_DEFAULT_ void floatsToHalves(const float* in, Half* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = Half(in[i]);
}
#if OPCORE_LOAD_TIME_CLONES
__attribute__((target("arch=x86-64-v3"))) void halvesToFloats(const Half* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    __m256 x = _mm256_cvtph_ps(h);
    const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    if (!_mm256_testz_ps(nan, nan)) {  // keep the payload as it is: the bits of halfBitsToFloat
      const __m256i wide = _mm256_cvtepu16_epi32(h);
      const __m256i bits = _mm256_or_si256(
          _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(wide, _mm256_set1_epi32(0x8000)), 16),
                          _mm256_slli_epi32(_mm256_and_si256(wide, _mm256_set1_epi32(0x7fff)), 13)),
          _mm256_set1_epi32(0x7f800000));
      x = _mm256_blendv_ps(x, _mm256_castsi256_ps(bits), nan);
    }
    _mm256_storeu_ps(out + i, x);
  }
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}
__attribute__((target("arch=x86-64-v3"))) void floatsToHalves(const float* in, Half* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    __m128i h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    if (!_mm256_testz_ps(nan, nan)) {  // sign | 0x7e00 where x is NaN
      const __m256i quiet = _mm256_or_si256(
          _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(x), 16), _mm256_set1_epi32(0x8000)),
          _mm256_set1_epi32(0x7e00));
      const __m256i mask = _mm256_castps_si256(nan);
      h = _mm_blendv_epi8(h, _mm_packus_epi32(_mm256_castsi256_si128(quiet), _mm256_extracti128_si256(quiet, 1)),
                          _mm_packs_epi32(_mm256_castsi256_si128(mask), _mm256_extracti128_si256(mask, 1)));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < n; ++i) out[i] = Half(in[i]);
}
#endif

OPCORE_BF16_CLONES_ void bfloat16sToFloats(const BFloat16* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
}
OPCORE_BF16_CLONES_ void floatsToBFloat16s(const float* in, BFloat16* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = BFloat16(in[i]);
}

template <typename Out>
void copyFrom(const LoopPlan& plan, ScalarType src_dtype) {
  OPCORE_DISPATCH_EVERY_TYPE(src_dtype, "copy_", [&] {
    // Into Half or BFloat16 through float: the loop rounds once (Note [Reduced precision]).
    runElementwise<Out, scalar_t>(plan, [](opmath_t<scalar_t> v) { return convertValue<opmath_t<Out>>(v); });
  });
}

// A dense conversion between float and a 16-bit float is the conversion function itself, on
// each thread's range (streamed as Note [Streaming stores] says): not the elementwise loop,
// whose 16-bit rows would go through a float buffer first.
template <typename Out, typename In>
void convertRange(const In* in, Out* out, int64_t n) {
  const auto convert = [](const In* from, Out* to, int64_t len) {
    if constexpr (std::is_same_v<In, float>) {
      loops_detail::fromFloat(from, to, len);
    } else {
      loops_detail::toFloat(from, to, len);
    }
  };
  if (!loops_detail::streamStores(n * static_cast<int64_t>(sizeof(Out)))) {
    convert(in, out, n);
    return;
  }
  constexpr int64_t kBlock = 1024;
  alignas(64) Out block[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    convert(in + start, block, len);
    loops_detail::streamCopy(out + start, block, len * static_cast<int64_t>(sizeof(Out)));
  }
  loops_detail::streamFence();
}

template <typename Out, typename In>
void convertAll(void* out, const void* in, int64_t n) {
  parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
    convertRange(static_cast<const In*>(in) + begin, static_cast<Out*>(out) + begin, end - begin);
  });
}

// Converts n contiguous elements when the pair is float and a 16-bit float; false otherwise.
bool convertDense(ScalarType out_dtype, void* out, ScalarType in_dtype, const void* in, int64_t n) {
  if (in_dtype == kFloat && out_dtype == kHalf) convertAll<Half, float>(out, in, n);
  else if (in_dtype == kFloat && out_dtype == kBFloat16) convertAll<BFloat16, float>(out, in, n);
  else if (in_dtype == kHalf && out_dtype == kFloat) convertAll<float, Half>(out, in, n);
  else if (in_dtype == kBFloat16 && out_dtype == kFloat) convertAll<float, BFloat16>(out, in, n);
  else return false;
  return true;
}

// Note [Transposed copies]
// A same-dtype copy whose source is dense along another dimension than the destination's
// innermost one (permute(...).contiguous(), a transpose) is, after coalescing, a batch of 2-D
// transposes: dst[i][j] = src[j][i], both inner runs dense. The tiled elementwise loop (Note
// [Tiling]) took it 16 elements a call through its strided path, a load that missed the cache
// per element, at about a fifth of a memcpy's speed. Here it is cut into strips of source rows
// (stripRows: the j of 128 bytes of each destination row; with AVX2 steps up to 512 when the
// destination's rows are 2 KiB or more apart, so that a strip writes at least 512 bytes of each
// page it touches), each walked along its rows for at most kStripCols<N> elements (4 KiB of
// each). So the source is read as sequential runs, which the hardware prefetchers follow
// (helped by prefetching each run 256 bytes ahead, except in the AVX-512 steps: on a Xeon,
// 2-byte elements moved a sixth faster without, floats a little; bench/README.md, "The same
// Xeon, later"), and each destination row gets whole cache lines,
// written with streaming stores when the result is larger than half the last-level cache
// (Note [Streaming stores]) and the stores are aligned. A step of the strip transposes a block
// in registers and stores it straight into the destination:
// - with AVX-512 (cpuCapability(), 2- and 4-byte elements): a cache line of each of 64 / N
//   source rows (16 rows of floats, 32 of Half), then each of the 64 / N destination lines with
//   one store (transposeStripAvx512);
// - with AVX2 (8-byte elements; 4-byte ones without AVX-512): 16 source rows of 8 floats (8
//   rows of 4 doubles) as two 8x8 (4x4) transposes, then each destination row's 64 bytes back
//   to back, so that one write-combining buffer fills at a time; from 32-byte (AVX-512: 64-byte)
//   aligned source columns where the source allows (the first columns of a strip go to the SSE
//   step).
// - otherwise (2-byte elements without AVX-512 too): four blocks of 16 bytes by as many source
//   rows in SSE registers (4x4 floats, 2x2 doubles, 8x8 of 2-byte elements: Half and BFloat16
//   went one at a time, at a fifth of the speed), then each destination row's 64 bytes back to
//   back too (transposeBlocks);
//   1-byte elements one at a time.
// Steps that stored 16 bytes of eight destination rows in turn left eight lines partly
// written at once, which an EPYC (Zen 3) drains far below a memcpy's speed (streamed, 2-byte
// elements moved at 4 GB/s); the 64-byte stores, the taller strips and the aligned loads each
// raised it there (figures in bench/README.md, "Issue #33's families on a Zen 3 EPYC without
// AVX-512"). The strips replaced 128x64 tiles transposed through an L1 buffer with the
// next tile prefetched: 512-byte runs, a buffer pass more, and slower; buffering each
// destination row's 512 bytes of a strip to stream them in order was no faster either.
// Moves only: the bits are the source's, and each element is written by one thread.
struct CopyDim {
  int64_t size, dst, src;  // byte strides
};

// A strip's source rows: 128 bytes (two cache lines) of each destination row, more when fewer
// destination rows share a page, so that a strip writes at least 512 bytes of each page it
// touches (an EPYC's AVX2 steps; the AVX-512 steps keep 128 bytes: on a Xeon, taller strips
// were no faster for floats and slower for 2-byte elements); and its length along them.
template <size_t N>
int64_t stripRows(int64_t dst_row, bool avx512) {
  return (avx512 ? 128 : std::clamp<int64_t>(dst_row / 8, 128, 512)) / static_cast<int64_t>(N);
}
template <size_t N>
constexpr int64_t kStripCols = 4096 / static_cast<int64_t>(N);

// The transpose of a block of 16 / N rows of 16 bytes, N-byte elements (row k becomes column
// k): pairs of rows interleaved by elements, then by pairs of them, then by quadruples (SSE2).
template <size_t N>
OPCORE_ALWAYS_INLINE void transposeBlock(__m128i (&r)[16 / N]) {
  static_assert(N == 2 || N == 4 || N == 8);
  if constexpr (N == 2) {
    __m128i a[8];
    for (int k = 0; k < 8; k += 2) {
      a[k] = _mm_unpacklo_epi16(r[k], r[k + 1]);
      a[k + 1] = _mm_unpackhi_epi16(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
      r[k] = _mm_unpacklo_epi32(a[k], a[k + 2]);
      r[k + 1] = _mm_unpackhi_epi32(a[k], a[k + 2]);
      r[k + 2] = _mm_unpacklo_epi32(a[k + 1], a[k + 3]);
      r[k + 3] = _mm_unpackhi_epi32(a[k + 1], a[k + 3]);
    }
    for (int k = 0; k < 4; ++k) {  // r[k] and r[k + 4] hold columns 2k and 2k + 1
      a[2 * k] = _mm_unpacklo_epi64(r[k], r[k + 4]);
      a[2 * k + 1] = _mm_unpackhi_epi64(r[k], r[k + 4]);
    }
    for (int k = 0; k < 8; ++k) r[k] = a[k];
  } else if constexpr (N == 4) {
    const __m128i a0 = _mm_unpacklo_epi32(r[0], r[1]), a1 = _mm_unpackhi_epi32(r[0], r[1]);
    const __m128i a2 = _mm_unpacklo_epi32(r[2], r[3]), a3 = _mm_unpackhi_epi32(r[2], r[3]);
    r[0] = _mm_unpacklo_epi64(a0, a2);
    r[1] = _mm_unpackhi_epi64(a0, a2);
    r[2] = _mm_unpacklo_epi64(a1, a3);
    r[3] = _mm_unpackhi_epi64(a1, a3);
  } else {
    const __m128i a0 = r[0];
    r[0] = _mm_unpacklo_epi64(a0, r[1]);
    r[1] = _mm_unpackhi_epi64(a0, r[1]);
  }
}

// kGroups blocks of 16 / N source rows of 16 bytes from s down, transposed and stored 16 *
// kGroups bytes of each destination row at a time, back to back (kStream: streaming stores,
// every one 16-byte aligned).
template <size_t N, bool kStream, int kGroups>
OPCORE_ALWAYS_INLINE void transposeBlocks(char* d, int64_t dst_row, const char* s, int64_t src_row) {
  constexpr int kBlock = 16 / N;
  __m128i r[kGroups][kBlock];
  for (int g = 0; g < kGroups; ++g) {
    for (int k = 0; k < kBlock; ++k) {
      r[g][k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + (g * kBlock + k) * src_row));
    }
    transposeBlock<N>(r[g]);
  }
  for (int k = 0; k < kBlock; ++k) {
    for (int g = 0; g < kGroups; ++g) {
      auto* p = reinterpret_cast<__m128i*>(d + k * dst_row + g * 16);
      if constexpr (kStream) _mm_stream_si128(p, r[g][k]);
      else _mm_storeu_si128(p, r[g][k]);
    }
  }
}

// Each of a strip's n_j source rows requested 256 bytes past its byte `at`, once per cache line
// of columns (when `at` starts one): the prefetching of Note [Transposed copies].
OPCORE_ALWAYS_INLINE void prefetchRows(const char* src, int64_t src_row, int64_t n_j, int64_t at) {
  constexpr int64_t kPrefetchAhead = 256;
  if (at % 64 != 0) return;
  for (int64_t j = 0; j < n_j; ++j) _mm_prefetch(src + j * src_row + at + kPrefetchAhead, _MM_HINT_T0);
}

// dst[i * dst_row + j * N] = src[i * N + j * src_row] for i < n_i, j < n_j (N-byte elements);
// kStream: the blocks' stores are streaming stores (every one 16-byte aligned). A step covers
// the source rows of 64 bytes of each destination row (kLine), so that the row's line is
// written whole before the next row's: storing 16 bytes of eight rows in turn left them all
// partly written, and streamed, 2-byte elements moved at 4 GB/s.
template <size_t N, bool kStream>
void transposeStrip(char* dst, int64_t dst_row, const char* src, int64_t src_row, int64_t n_i, int64_t n_j) {
  constexpr auto e = static_cast<int64_t>(N);
  constexpr int64_t kBlock = N == 1 ? 1 : 16 / e;  // elements of a 16-byte block's side
  constexpr int64_t kLine = 64 / e;  // a multiple of kBlock
  const auto element = [&](int64_t i, int64_t j) { std::memcpy(dst + i * dst_row + j * e, src + i * e + j * src_row, N); };
  const int64_t full_j = n_j / kBlock * kBlock, line_j = n_j / kLine * kLine;
  int64_t i = 0;
  for (; i + kBlock <= n_i; i += kBlock) {
    prefetchRows(src, src_row, n_j, i * e);
    if constexpr (N == 1) {
      for (int64_t j = 0; j < full_j; ++j) element(i, j);
    } else {
      const char* s = src + i * e;
      char* d = dst + i * dst_row;
      int64_t j = 0;
      for (; j < line_j; j += kLine) {
        transposeBlocks<N, kStream, kLine / kBlock>(d + j * e, dst_row, s + j * src_row, src_row);
      }
      for (; j < full_j; j += kBlock) transposeBlocks<N, kStream, 1>(d + j * e, dst_row, s + j * src_row, src_row);
    }
    for (int64_t k = i; k < i + kBlock; ++k) {
      for (int64_t j = full_j; j < n_j; ++j) element(k, j);
    }
  }
  for (; i < n_i; ++i) {
    for (int64_t j = 0; j < n_j; ++j) element(i, j);
  }
}

// The 8x8 transpose of r's floats (row k becomes column k).
__attribute__((target("avx2"))) OPCORE_ALWAYS_INLINE void transpose8x8(__m256 (&r)[8]) {
  __m256 t[8], u[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    u[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
    u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xee);
    u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
    u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xee);
  }
  for (int k = 0; k < 4; ++k) {
    r[k] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x20);
    r[k + 4] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x31);
  }
}

// The 4x4 transpose of r's doubles.
__attribute__((target("avx2"))) OPCORE_ALWAYS_INLINE void transpose4x4(__m256d (&r)[4]) {
  const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

// A 32-byte store of v at p; kStream: a streaming one (p 32-byte aligned).
template <bool kStream>
__attribute__((target("avx2"))) OPCORE_ALWAYS_INLINE void storeBlock(char* p, __m256 v) {
  if constexpr (kStream) _mm256_stream_ps(reinterpret_cast<float*>(p), v);
  else _mm256_storeu_ps(reinterpret_cast<float*>(p), v);
}
template <bool kStream>
__attribute__((target("avx2"))) OPCORE_ALWAYS_INLINE void storeBlock(char* p, __m256d v) {
  if constexpr (kStream) _mm256_stream_pd(reinterpret_cast<double*>(p), v);
  else _mm256_storeu_pd(reinterpret_cast<double*>(p), v);
}

// A strip's first columns, up to the first source column aligned to `align` bytes, one block
// at a time (transposeStrip), with dst, src and n_i moved past them: the vector steps load from
// aligned columns, as loads across two cache lines took a quarter off the speed (a numpy array
// starts 16 bytes into a line).
template <size_t N, bool kStream>
OPCORE_ALWAYS_INLINE void alignStrip(char*& dst, int64_t dst_row, const char*& src, int64_t src_row, int64_t& n_i,
                                     int64_t n_j, uintptr_t align) {
  constexpr auto e = static_cast<int64_t>(N);
  const auto misaligned = reinterpret_cast<uintptr_t>(src) % align;
  const auto head = std::min<int64_t>(n_i, static_cast<int64_t>((align - misaligned) % align) / e);
  transposeStrip<N, kStream>(dst, dst_row, src, src_row, head, n_j);
  dst += head * dst_row;
  src += head * e;
  n_i -= head;
}

// What a strip's vector steps left: the columns right of the steps (full_j on), then the rows
// below them (full_i on).
template <size_t N, bool kStream>
OPCORE_ALWAYS_INLINE void finishStrip(char* dst, int64_t dst_row, const char* src, int64_t src_row, int64_t n_i,
                                      int64_t n_j, int64_t full_i, int64_t full_j) {
  constexpr auto e = static_cast<int64_t>(N);
  transposeStrip<N, kStream>(dst + full_j * e, dst_row, src + full_j * src_row, src_row, full_i, n_j - full_j);
  transposeStrip<N, kStream>(dst + full_i * dst_row, dst_row, src + full_i * e, src_row, n_i - full_i, n_j);
}

// transposeStrip's job with AVX2 steps for 4- and 8-byte elements (Note [Transposed copies]):
// each step covers kRows source rows (64 bytes of each destination row) by kCols elements along
// them; what no whole step covers goes to transposeStrip. kStream: streaming stores (every one
// 32-byte aligned).
template <size_t N, bool kStream>
__attribute__((target("avx2"))) void transposeStripAvx2(char* dst, int64_t dst_row, const char* src,
                                                        int64_t src_row, int64_t n_i, int64_t n_j) {
  static_assert(N == 4 || N == 8);
  constexpr auto e = static_cast<int64_t>(N);
  constexpr int64_t kRows = 64 / e, kCols = 32 / e;
  alignStrip<N, kStream>(dst, dst_row, src, src_row, n_i, n_j, 32);
  const int64_t full_i = n_i / kCols * kCols, full_j = n_j / kRows * kRows;
  for (int64_t i = 0; i < full_i; i += kCols) {
    prefetchRows(src, src_row, n_j, i * e);
    for (int64_t j = 0; j < full_j; j += kRows) {
      const char* s = src + i * e + j * src_row;
      char* d = dst + i * dst_row + j * e;
      if constexpr (N == 4) {
        __m256 a[8], b[8];
        for (int k = 0; k < 8; ++k) {
          a[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(s + k * src_row));
          b[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(s + (k + 8) * src_row));
        }
        transpose8x8(a);
        transpose8x8(b);
        for (int k = 0; k < 8; ++k) {
          storeBlock<kStream>(d + k * dst_row, a[k]);
          storeBlock<kStream>(d + k * dst_row + 32, b[k]);
        }
      } else {
        __m256d a[4], b[4];
        for (int k = 0; k < 4; ++k) {
          a[k] = _mm256_loadu_pd(reinterpret_cast<const double*>(s + k * src_row));
          b[k] = _mm256_loadu_pd(reinterpret_cast<const double*>(s + (k + 4) * src_row));
        }
        transpose4x4(a);
        transpose4x4(b);
        for (int k = 0; k < 4; ++k) {
          storeBlock<kStream>(d + k * dst_row, a[k]);
          storeBlock<kStream>(d + k * dst_row + 32, b[k]);
        }
      }
    }
  }
  finishStrip<N, kStream>(dst, dst_row, src, src_row, n_i, n_j, full_i, full_j);
}

// GCC 12's AVX-512 shuffle intrinsics pass a deliberately undefined vector, which it then
// warns of.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define OPCORE_AVX512 __attribute__((target("avx512f,avx512bw")))

// The 16x16 transpose of r's 4-byte elements (row k becomes column k): pairs of rows
// interleaved by elements, then by pairs of them, then 16-byte lanes exchanged twice.
OPCORE_AVX512 OPCORE_ALWAYS_INLINE void transpose16x16(__m512i (&r)[16]) {
  __m512i t[16], u[16];
  for (int k = 0; k < 16; k += 2) {
    t[k] = _mm512_unpacklo_epi32(r[k], r[k + 1]);
    t[k + 1] = _mm512_unpackhi_epi32(r[k], r[k + 1]);
  }
  for (int k = 0; k < 16; k += 4) {  // u[k + c]: in each lane L, column 4L + c of rows k to k + 3
    for (int c = 0; c < 4; c += 2) {
      u[k + c] = _mm512_unpacklo_epi64(t[k + c / 2], t[k + c / 2 + 2]);
      u[k + c + 1] = _mm512_unpackhi_epi64(t[k + c / 2], t[k + c / 2 + 2]);
    }
  }
  for (int c = 0; c < 4; ++c) {
    const __m512i even01 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x88);
    const __m512i odd01 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xdd);
    const __m512i even23 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x88);
    const __m512i odd23 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xdd);
    r[c] = _mm512_shuffle_i32x4(even01, even23, 0x88);
    r[4 + c] = _mm512_shuffle_i32x4(odd01, odd23, 0x88);
    r[8 + c] = _mm512_shuffle_i32x4(even01, even23, 0xdd);
    r[12 + c] = _mm512_shuffle_i32x4(odd01, odd23, 0xdd);
  }
}

// Half of the transpose of 32 rows of 32 2-byte elements (row k becomes column k), from s down
// (rows src_row bytes apart): columns 2m (kOdd: 2m + 1) into h[m]. Each pair of rows first
// exchanges elements, so that 4-byte unit m of h[k] holds elements 2m (2m + 1) of rows 2k and
// 2k + 1, then h is a 16x16 transpose of 4-byte units. Blends and shifts, which need not the
// shuffle port, do the first step: a fifth fewer shuffles than unpacking 2-byte elements
// through every stage. The odd half loads the rows again, from the L1 cache: both halves at
// once held 64 vectors, which GCC spilled to the stack with every row.
template <bool kOdd>
OPCORE_AVX512 OPCORE_ALWAYS_INLINE void transposeHalf32x32(const char* s, int64_t src_row, __m512i (&h)[16]) {
  constexpr __mmask32 kHigh = 0xAAAAAAAA;  // the upper 2-byte half of every 4-byte unit
  for (int k = 0; k < 16; ++k) {
    const __m512i a = _mm512_loadu_si512(s + 2 * k * src_row), b = _mm512_loadu_si512(s + (2 * k + 1) * src_row);
    h[k] = kOdd ? _mm512_mask_blend_epi16(kHigh, _mm512_srli_epi32(a, 16), b)
                : _mm512_mask_blend_epi16(kHigh, a, _mm512_slli_epi32(b, 16));
  }
  transpose16x16(h);
}

// transposeStrip's job with AVX-512 steps for 2- and 4-byte elements: each covers 64 / N
// source rows by 64 / N elements along them (a line of each) and stores each of its 64 / N
// destination lines with one instruction; what no whole step covers goes to transposeStrip.
// kStream: streaming stores (every one 64-byte aligned).
template <size_t N, bool kStream>
OPCORE_AVX512 void transposeStripAvx512(char* dst, int64_t dst_row, const char* src, int64_t src_row, int64_t n_i,
                                        int64_t n_j) {
  static_assert(N == 2 || N == 4);
  constexpr auto e = static_cast<int64_t>(N);
  constexpr int64_t kRows = 64 / e, kCols = 64 / e;  // a line of each of kRows source rows
  alignStrip<N, kStream>(dst, dst_row, src, src_row, n_i, n_j, kCols * e);  // the loads' width
  const int64_t full_i = n_i / kCols * kCols, full_j = n_j / kRows * kRows;
  const auto store = [&](char* p, __m512i v) OPCORE_AVX512 {
    if constexpr (kStream) _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
    else _mm512_storeu_si512(p, v);
  };
  for (int64_t i = 0; i < full_i; i += kCols) {
    for (int64_t j = 0; j < full_j; j += kRows) {
      const char* s = src + i * e + j * src_row;
      char* d = dst + i * dst_row + j * e;
      __m512i r[16];
      if constexpr (N == 4) {
        for (int k = 0; k < kRows; ++k) r[k] = _mm512_loadu_si512(s + k * src_row);
        transpose16x16(r);
        for (int k = 0; k < kCols; ++k) store(d + k * dst_row, r[k]);
      } else {
        transposeHalf32x32<false>(s, src_row, r);
        for (int m = 0; m < 16; ++m) store(d + 2 * m * dst_row, r[m]);
        transposeHalf32x32<true>(s, src_row, r);
        for (int m = 0; m < 16; ++m) store(d + (2 * m + 1) * dst_row, r[m]);
      }
    }
  }
  finishStrip<N, kStream>(dst, dst_row, src, src_row, n_i, n_j, full_i, full_j);
}
#undef OPCORE_AVX512
#pragma GCC diagnostic pop

// The byte offsets in dst and in src of the batch's matrices, from matrix m on: next() moves
// to the following one (the batch's dimensions outermost first), so that a thread walking
// consecutive matrices divides only once (forEachUnit).
class BatchCursor {
 public:
  BatchCursor(const std::vector<CopyDim>& batch, int64_t m) : batch_(batch), index_(batch.size()) {
    for (size_t d = batch.size(); d-- > 0;) {
      index_[d] = m % batch[d].size;
      m /= batch[d].size;
      dst_ += index_[d] * batch[d].dst;
      src_ += index_[d] * batch[d].src;
    }
  }
  int64_t dst() const { return dst_; }
  int64_t src() const { return src_; }
  void next() {
    for (size_t d = batch_.size(); d-- > 0;) {
      dst_ += batch_[d].dst;
      src_ += batch_[d].src;
      if (++index_[d] < batch_[d].size) return;
      dst_ -= index_[d] * batch_[d].dst;
      src_ -= index_[d] * batch_[d].src;
      index_[d] = 0;
    }
  }

 private:
  const std::vector<CopyDim>& batch_;
  DimVector index_;
  int64_t dst_ = 0, src_ = 0;
};

// f(dst offset, src offset, u) for the units [begin, end) of a batch whose matrices have
// `units` units each (consecutive units: first those of matrix 0, then those of matrix 1...).
template <typename F>
void forEachUnit(const std::vector<CopyDim>& batch, int64_t units, int64_t begin, int64_t end, const F& f) {
  BatchCursor at(batch, begin / units);
  for (int64_t u = begin; u < end; ++u) {
    if (u != begin && u % units == 0) at.next();
    f(at.dst(), at.src(), u);
  }
}

// Note [Zipped copies]
// A transposed copy with 2 to 4 columns and dense destination rows (pixel_shuffle's, a
// channels-last copy of 2 to 4 channels) interleaves that many source rows into one dense run:
// dst[i * K + j] = src_j[i]; one with 2 to 4 rows and dense source columns (pixel_unshuffle's)
// is the inverse, dst_i[j] = src[j * K + i]. The strips' blocks need 4 of each, so they moved
// such copies one element at a time; with K a constant, GCC vectorizes both loops (shuffles of
// whole vectors). Units are pieces of kZipPiece elements along the long side of one matrix,
// taken in the memory order of the dense side, so that it is read or written in sequence
// (walked in the destination's order, pixel_unshuffle read every other source row, then came
// back for the rest). A zip larger than half the last-level cache zips each piece into a
// buffer and streams it out (Note [Streaming stores]); an unzip's K shorter runs are stored
// plainly, which measured faster than streaming them (bench/README.md).
constexpr int64_t kZipPiece = 1024;

// dst[i * K + j] = src[j * src_row + i] for i < n, j < K (src_row in elements).
template <typename T, int K>
OPCORE_CPU_CLONES void zipRows(T* __restrict dst, const T* __restrict src, int64_t src_row, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    for (int j = 0; j < K; ++j) dst[i * K + j] = src[j * src_row + i];
  }
}

// dst[i * dst_row + j] = src[j * K + i] for j < n, i < K (dst_row in elements).
template <typename T, int K>
OPCORE_CPU_CLONES void unzipRows(T* __restrict dst, int64_t dst_row, const T* __restrict src, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    for (int i = 0; i < K; ++i) dst[i * dst_row + j] = src[j * K + i];
  }
}

// The copy of Note [Zipped copies] for `rows` and `cols` as transposeBatch's (T: an unsigned
// integer of the element's size); false when the layout is not one.
template <typename T>
bool zippedBatch(char* dst, const char* src, std::vector<CopyDim> batch, const CopyDim& rows, const CopyDim& cols) {
  constexpr auto e = static_cast<int64_t>(sizeof(T));
  const bool zip = cols.size <= 4 && rows.dst == cols.size * e;
  if (!zip && !(rows.size <= 4 && cols.src == rows.size * e)) return false;
  const int64_t k = zip ? cols.size : rows.size, n = zip ? rows.size : cols.size;
  const int64_t pieces = (n + kZipPiece - 1) / kZipPiece;
  int64_t matrices = 1;
  for (const CopyDim& b : batch) matrices *= b.size;
  if (!zip) {  // walked in the source's order (the batch comes in the destination's)
    std::stable_sort(batch.begin(), batch.end(), [](const CopyDim& a, const CopyDim& b) { return a.src > b.src; });
  }
  const bool stream = zip && loops_detail::streamStores(matrices * k * n * e);
  // Piece `piece` of the matrix at these offsets (`buffer`: kZipPiece * 4 elements).
  const auto run = [&](int64_t d_off, int64_t s_off, int64_t piece, T* buffer) {
    const int64_t first = piece * kZipPiece, len = std::min(kZipPiece, n - first);
    if (zip) {
      T* d = reinterpret_cast<T*>(dst + d_off + first * rows.dst);
      const T* s = reinterpret_cast<const T*>(src + s_off + first * e);
      T* to = stream ? buffer : d;
      const int64_t src_row = cols.src / e;
      switch (k) {
        case 2: zipRows<T, 2>(to, s, src_row, len); break;
        case 3: zipRows<T, 3>(to, s, src_row, len); break;
        default: zipRows<T, 4>(to, s, src_row, len); break;
      }
      if (stream) loops_detail::streamCopy(d, buffer, len * k * e);
      return;
    }
    T* d = reinterpret_cast<T*>(dst + d_off + first * e);
    const T* s = reinterpret_cast<const T*>(src + s_off + first * cols.src);
    const int64_t dst_row = rows.dst / e;
    switch (k) {
      case 2: return unzipRows<T, 2>(d, dst_row, s, len);
      case 3: return unzipRows<T, 3>(d, dst_row, s, len);
      default: return unzipRows<T, 4>(d, dst_row, s, len);
    }
  };
  parallel_for(0, matrices * pieces, grainFor(kZipPiece * k), [&](int64_t begin, int64_t end) {
    alignas(64) T buffer[4 * kZipPiece];
    forEachUnit(batch, pieces, begin, end,
                [&](int64_t d_off, int64_t s_off, int64_t u) { run(d_off, s_off, u % pieces, buffer); });
    if (stream) loops_detail::streamFence();
  });
  return true;
}

// `rows`: the destination's rows (i, dense in the source); `cols`: its columns (j, dense in dst).
template <size_t N>
void transposeBatch(char* dst, const char* src, const std::vector<CopyDim>& batch, const CopyDim& rows,
                    const CopyDim& cols) {
  constexpr auto e = static_cast<int64_t>(N);
  int64_t matrices = 1;
  auto start_bits = reinterpret_cast<uintptr_t>(dst) | static_cast<uintptr_t>(rows.dst);  // a strip starts there
  for (const CopyDim& b : batch) {
    matrices *= b.size;
    start_bits |= static_cast<uintptr_t>(b.dst);
  }
  constexpr bool kBlocks = N != 1;  // stored as vectors: streaming stores possible
  constexpr bool kAvx2Blocks = N == 4 || N == 8;
  const bool avx512 = (N == 2 || N == 4) && cpuCapability() == CpuCapability::Avx512;
  const int64_t strip_rows = stripRows<N>(rows.dst, avx512);
  const int64_t strips = (cols.size + strip_rows - 1) / strip_rows;
  const int64_t pieces = (rows.size + kStripCols<N> - 1) / kStripCols<N>;
  const bool avx2 = kAvx2Blocks && cpuCapability() != CpuCapability::Default;
  const bool stream = kBlocks && start_bits % (avx512 ? 64 : avx2 ? 32 : 16) == 0 &&
                      loops_detail::streamStores(matrices * rows.size * cols.size * e);
  // A unit is one strip's piece of one matrix; the pieces of a strip are consecutive units, so
  // that a thread goes on along the same source rows.
  const auto run = [&](int64_t d_off, int64_t s_off, int64_t u) {
    const int64_t j0 = u / pieces % strips * strip_rows, i0 = u % pieces * kStripCols<N>;
    const int64_t n_i = std::min(kStripCols<N>, rows.size - i0), n_j = std::min(strip_rows, cols.size - j0);
    char* d = dst + d_off + i0 * rows.dst + j0 * e;
    const char* s = src + s_off + i0 * e + j0 * cols.src;
    if constexpr (N == 2 || N == 4) {
      if (avx512) {
        if (stream) transposeStripAvx512<N, true>(d, rows.dst, s, cols.src, n_i, n_j);
        else transposeStripAvx512<N, false>(d, rows.dst, s, cols.src, n_i, n_j);
        return;
      }
    }
    if constexpr (kAvx2Blocks) {
      if (avx2) {
        if (stream) transposeStripAvx2<N, true>(d, rows.dst, s, cols.src, n_i, n_j);
        else transposeStripAvx2<N, false>(d, rows.dst, s, cols.src, n_i, n_j);
        return;
      }
    }
    if (stream) transposeStrip<N, true>(d, rows.dst, s, cols.src, n_i, n_j);
    else transposeStrip<N, false>(d, rows.dst, s, cols.src, n_i, n_j);
  };
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (std::min(strip_rows, cols.size) * std::min(kStripCols<N>, rows.size)));
  const int64_t units = strips * pieces;  // of each matrix
  parallel_for(0, matrices * units, grain, [&](int64_t begin, int64_t end) {
    forEachUnit(batch, units, begin, end, run);
    if (stream) loops_detail::streamFence();
  });
}

// The dimensions of a same-dtype, same-shape copy, outermost first, with size-1 dimensions
// dropped and neighbours that step together merged (byte strides); nothing when the dtypes or
// shapes differ, the element size is not 1, 2, 4 or 8, or the destination is expanded (several
// writes to one element).
std::optional<std::vector<CopyDim>> copyDims(const TensorBase& dst, const TensorBase& src) {
  const auto e = static_cast<int64_t>(dst.element_size());
  if (dst.scalar_type() != src.scalar_type() || dst.sizes() != src.sizes() || (e != 1 && e != 2 && e != 4 && e != 8)) {
    return std::nullopt;
  }
  std::vector<CopyDim> dims;
  for (int64_t k = 0; k < dst.dim(); ++k) {
    const CopyDim d{dst.size(k), dst.stride(k) * e, src.stride(k) * e};
    if (d.size == 1) continue;
    if (d.dst == 0) return std::nullopt;
    if (!dims.empty() && dims.back().dst == d.dst * d.size && dims.back().src == d.src * d.size) {
      dims.back() = {dims.back().size * d.size, d.dst, d.src};
    } else {
      dims.push_back(d);
    }
  }
  return dims;
}

// The copy of Note [Transposed copies] when dst and src have that layout; false otherwise.
bool transposedCopy(const TensorBase& dst, const TensorBase& src, const std::vector<CopyDim>& dims) {
  const auto e = static_cast<int64_t>(dst.element_size());
  if (dims.size() < 2 || dims.back().dst != e || dims.back().src == e) return false;
  const auto rows = std::find_if(dims.begin(), dims.end() - 1, [&](const CopyDim& d) { return d.src == e; });
  if (rows == dims.end() - 1) return false;
  const CopyDim r = *rows, c = dims.back();
  std::vector<CopyDim> batch;
  for (auto it = dims.begin(); it != dims.end() - 1; ++it) {
    if (it != rows) batch.push_back(*it);
  }
  char* d = static_cast<char*>(dst.data_ptr());
  const char* s = static_cast<const char*>(src.data_ptr());
  switch (e) {
    case 1:
      if (!zippedBatch<uint8_t>(d, s, batch, r, c)) transposeBatch<1>(d, s, batch, r, c);
      break;
    case 2:
      if (!zippedBatch<uint16_t>(d, s, batch, r, c)) transposeBatch<2>(d, s, batch, r, c);
      break;
    case 4:
      if (!zippedBatch<uint32_t>(d, s, batch, r, c)) transposeBatch<4>(d, s, batch, r, c);
      break;
    default:
      if (!zippedBatch<uint64_t>(d, s, batch, r, c)) transposeBatch<8>(d, s, batch, r, c);
      break;
  }
  return true;
}

// Note [Short-row copies]
// A same-dtype copy whose rows are dense on both sides but short after coalescing (a
// convolution's columns of a small image, the interior a padding writes, a slice of a few
// elements per row) has as many rows as elements over four or so. The elementwise loop calls
// its row loop once per row (a call through the ifunc and a vector loop's set-up, for a few
// elements); here each row is moved with two loads and two stores, in a plain loop along
// the innermost row dimension, with an odometer over the others.
constexpr int64_t kShortRowBytes = 64;

// Copies `bytes` (N to 2N) from s to d: two moves of N bytes, overlapping in the middle, so
// that each row costs two loads and two stores whatever its length.
template <size_t N>
inline void moveTwo(char* d, const char* s, int64_t bytes) {
  char head[N], tail[N];
  std::memcpy(head, s, N);
  std::memcpy(tail, s + bytes - N, N);
  std::memcpy(d, head, N);
  std::memcpy(d + bytes - N, tail, N);
}

// Rows [begin, end) of a short-row copy (Note [Short-row copies]): `dims` are the rows'
// dimensions, outermost first, and each row is `bytes` long (N <= bytes < 2N).
template <size_t N>
void copyShortRows(char* d_base, const char* s_base, int64_t bytes, const std::vector<CopyDim>& row_dims,
                   int64_t begin, int64_t end) {
  // In a local array: the rows' stores could alias the vector's elements, which the odometer
  // would then reload after every row.
  CopyDim dims[TensorImpl::kMaxDims];
  std::copy(row_dims.begin(), row_dims.end(), dims);
  const auto last = static_cast<int64_t>(row_dims.size()) - 1;
  const CopyDim inner = dims[last];
  // Row `begin`'s index along each dimension, then an odometer (divisions once per range).
  int64_t index[TensorImpl::kMaxDims], d_off = 0, s_off = 0;
  for (int64_t k = last, rest = begin; k >= 0; --k) {
    index[k] = rest % dims[k].size;
    rest /= dims[k].size;
    d_off += index[k] * dims[k].dst;
    s_off += index[k] * dims[k].src;
  }
  for (int64_t r = begin; r < end;) {
    const int64_t n = std::min(inner.size - index[last], end - r);
    for (int64_t k = 0; k < n; ++k) moveTwo<N>(d_base + d_off + k * inner.dst, s_base + s_off + k * inner.src, bytes);
    r += n;
    d_off += n * inner.dst;
    s_off += n * inner.src;
    index[last] += n;
    for (int64_t k = last; k > 0 && index[k] == dims[k].size; --k) {  // carry
      d_off += dims[k - 1].dst - index[k] * dims[k].dst;
      s_off += dims[k - 1].src - index[k] * dims[k].src;
      index[k] = 0;
      ++index[k - 1];
    }
  }
}

// The copy of Note [Short-row copies] when dst and src have that layout; false otherwise.
bool shortRowCopy(const TensorBase& dst, const TensorBase& src, std::vector<CopyDim> dims) {
  const auto e = static_cast<int64_t>(dst.element_size());
  if (dims.size() < 2 || dims.back().dst != e || dims.back().src != e) return false;
  const int64_t row_bytes = dims.back().size * e;
  if (row_bytes >= kShortRowBytes) return false;
  dims.pop_back();  // the rows' dimensions, outermost first
  int64_t rows = 1;
  for (const CopyDim& d : dims) rows *= d.size;
  char* const d_base = static_cast<char*>(dst.data_ptr());
  const char* const s_base = static_cast<const char*>(src.data_ptr());
  parallel_for(0, rows, grainFor(row_bytes / e), [&](int64_t begin, int64_t end) {
    if (row_bytes >= 32) copyShortRows<32>(d_base, s_base, row_bytes, dims, begin, end);
    else if (row_bytes >= 16) copyShortRows<16>(d_base, s_base, row_bytes, dims, begin, end);
    else if (row_bytes >= 8) copyShortRows<8>(d_base, s_base, row_bytes, dims, begin, end);
    else if (row_bytes >= 4) copyShortRows<4>(d_base, s_base, row_bytes, dims, begin, end);
    else if (row_bytes >= 2) copyShortRows<2>(d_base, s_base, row_bytes, dims, begin, end);
    else copyShortRows<1>(d_base, s_base, row_bytes, dims, begin, end);
  });
  return true;
}

}  // namespace

void loops_detail::toFloat(const Half* in, float* out, int64_t n) { halvesToFloats(in, out, n); }
void loops_detail::toFloat(const BFloat16* in, float* out, int64_t n) { bfloat16sToFloats(in, out, n); }
void loops_detail::fromFloat(const float* in, Half* out, int64_t n) { floatsToHalves(in, out, n); }
void loops_detail::fromFloat(const float* in, BFloat16* out, int64_t n) { floatsToBFloat16s(in, out, n); }

bool loops_detail::streamStores(int64_t bytes) {
  // Half the L3 cache this CPU shares, as Linux describes it (glibc's
  // sysconf(_SC_LEVEL3_CACHE_SIZE) gave the whole package's, twelve times this machine's
  // 32 MiB, on an EPYC under KVM); 32 MiB when there is none to read. Counted as at most 64
  // MiB: a virtual machine on a many-core Xeon sees the package's whole L3 (480 MiB) as its
  // own, of which its two cores hold a small share, and copies and elementwise rows of 64 MiB
  // were faster streamed there (bench/README.md). Read once: it does not change while the
  // process runs.
  static const int64_t kThreshold = [] {
    int64_t kib = 0;
    if (FILE* f = std::fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r")) {
      if (std::fscanf(f, "%" SCNd64 "K", &kib) != 1) kib = 0;
      std::fclose(f);
    }
    return std::min(kib > 0 ? kib << 10 : int64_t{32} << 20, int64_t{64} << 20) / 2;
  }();
  return bytes >= kThreshold;
}

void loops_detail::streamCopy(void* dst, const void* src, int64_t bytes) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const int64_t head = std::min<int64_t>(bytes, (16 - reinterpret_cast<uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, static_cast<size_t>(head));
  int64_t i = head;
  for (; i + 16 <= bytes; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
  }
  std::memcpy(d + i, s + i, static_cast<size_t>(bytes - i));
}

void loops_detail::streamFence() { _mm_sfence(); }

void copyPiece(char* dst, const char* src, int64_t bytes, bool stream) {
  if (stream) loops_detail::streamCopy(dst, src, bytes);
  else std::memcpy(dst, src, static_cast<size_t>(bytes));
}

namespace {

// The copy of Note [Dense copies] in Loops.h.
void denseCopy(char* dst, const char* src, int64_t bytes) {
  const bool stream = loops_detail::streamStores(bytes);
  parallel_for(0, (bytes + kCopyPiece - 1) / kCopyPiece, 1, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * kCopyPiece;
    copyPiece(dst + first, src + first, std::min(end * kCopyPiece, bytes) - first, stream);
    if (stream) loops_detail::streamFence();
  });
}

}  // namespace

void copyInto(const TensorBase& dst, const TensorBase& src) {
  if (dst.numel() == 0) return;
  if (dst.scalar_type() == src.scalar_type() && dst.is_contiguous() && src.is_contiguous() &&
      dst.sizes() == src.sizes()) {
    denseCopy(static_cast<char*>(dst.data_ptr()), static_cast<const char*>(src.data_ptr()),
              dst.numel() * static_cast<int64_t>(dst.element_size()));
    return;
  }
  if (dst.is_contiguous() && src.is_contiguous() && dst.sizes() == src.sizes() &&
      convertDense(dst.scalar_type(), dst.data_ptr(), src.scalar_type(), src.data_ptr(), dst.numel())) {
    return;
  }
  if (const auto dims = copyDims(dst, src); dims && (transposedCopy(dst, src, *dims) || shortRowCopy(dst, src, *dims))) {
    return;
  }
  const LoopPlan plan(dst.sizes(), {&dst, &src});
  OPCORE_DISPATCH_EVERY_TYPE(dst.scalar_type(), "copy_", [&] { copyFrom<scalar_t>(plan, src.scalar_type()); });
}

TensorBase convertTo(const TensorBase& t, ScalarType dtype) {
  if (t.scalar_type() == dtype) return t;
  TensorBase result = detail::emptyCpu(t.sizes(), dtype);
  copyInto(result, t);
  return result;
}

TensorBase contiguousCopy(const TensorBase& t) { return t.is_contiguous() ? t : ownedCopy(t); }

TensorBase ownedCopy(const TensorBase& t) {
  TensorBase result = detail::emptyCpu(t.sizes(), t.scalar_type());
  copyInto(result, t);
  return result;
}

bool sharesStorage(const TensorBase& a, const TensorBase& b) {
  const auto* sa = a.unsafeGetTensorImpl()->storage().get();
  return sa != nullptr && sa == b.unsafeGetTensorImpl()->storage().get() && a.numel() > 0 &&
         b.numel() > 0;
}

bool sameLayout(const TensorBase& a, const TensorBase& b) {
  return a.data_ptr() == b.data_ptr() && a.scalar_type() == b.scalar_type() &&
         a.sizes() == b.sizes() && a.strides() == b.strides();
}

void checkNoInternalOverlap(const TensorBase& t) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    OPCORE_CHECK(t.sizes()[d] <= 1 || t.strides()[d] != 0,
                 "cannot write into a tensor whose elements overlap in memory (dimension ", d,
                 " has stride 0, as after expand()); write into a clone() instead");
  }
}

void checkCpu(const char* name, std::initializer_list<const TensorBase*> tensors) {
  for (const TensorBase* t : tensors) {
    OPCORE_CHECK(t->is_cpu(), name, ": expected all tensors to be on the CPU, but found one on ",
                 t->device());
  }
}

}  // namespace opcore::native::cpu
