// CPU kernels of the copying shape operators of issue #33: cat (structured impl), flip, roll,
// tril and triu (structured impls). They move elements without computing on them, so most
// work on bytes: one kernel per element size, not per dtype. See Note [Copying shape kernels].
#include <opcore/ops/cat_native.h>
#include <opcore/ops/flip_native.h>
#include <opcore/ops/roll_native.h>
#include <opcore/ops/tril_native.h>
#include <opcore/ops/triu_native.h>

#include "common/Shape.h"
#include "common/ShapeChecks.h"
#include "common/pointwise/Shape.h"
#include "cpu/Loops.h"

#include <immintrin.h>

#include <cstring>
#include <vector>

namespace opcore::native {

namespace {

// Note [Copying shape kernels]
// cat copies each input into its slice of the output: with memcpy when every operand is
// contiguous in one dtype (parallel over pieces of about cpu::kCopyPiece bytes, so that two
// threads share even a cat of two tensors, streamed when large: Note [Dense copies] in
// Loops.h), else through cpu::copyInto (strided, converting, itself parallel). flip gathers
// through strides that may be negative, which tensors cannot hold, so it has its own row loop.
// roll is two copies per rolled dimension.

// The 16 bytes of v as 16 / N elements of N bytes in reverse order (SSE2 shuffles; N <= 8).
template <size_t N>
OPCORE_ALWAYS_INLINE __m128i reversed(__m128i v) {
  if constexpr (N == 8) return _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2));
  if constexpr (N == 4) return _mm_shuffle_epi32(v, _MM_SHUFFLE(0, 1, 2, 3));
  if constexpr (N == 1) v = _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));  // bytes of each pair
  v = _mm_shufflelo_epi16(v, _MM_SHUFFLE(0, 1, 2, 3));
  v = _mm_shufflehi_epi16(v, _MM_SHUFFLE(0, 1, 2, 3));
  return _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2));
}

// n elements of N bytes from src (step `src_step` bytes, maybe negative) to dense dst. A
// reversed dense row (flip of the last dimension) is read upwards 16 bytes at a time, reversed
// by a shuffle and stored downwards: the compiler's loop of element copies, reading downwards,
// ran at 0.37x a memcpy of the same bytes (4096^2 float32, one thread; reading downwards with
// the shuffle: 0.6x; upwards: 0.66x-0.75x).
template <size_t N>
void gatherRowOf(char* dst, const char* src, int64_t src_step, int64_t n) {
  constexpr auto e = static_cast<int64_t>(N);
  if (src_step == -e) {
    const char* low = src - (n - 1) * e;  // the row's lowest address, read upwards
    int64_t k = 0;
    if constexpr (N <= 8) {
      constexpr int64_t kPer = 16 / e;
      for (; k + kPer <= n; k += kPer) {
        const __m128i v = reversed<N>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(low + k * e)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (n - k - kPer) * e), v);
      }
    }
    for (; k < n; ++k) std::memcpy(dst + (n - 1 - k) * e, low + k * e, N);
    return;
  }
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * e, src + i * src_step, N);
}

void gatherRow(char* dst, const char* src, int64_t src_step, int64_t n, size_t esize) {
  if (src_step == static_cast<int64_t>(esize)) {
    std::memcpy(dst, src, static_cast<size_t>(n) * esize);
    return;
  }
  switch (esize) {
    case 1: return gatherRowOf<1>(dst, src, src_step, n);
    case 2: return gatherRowOf<2>(dst, src, src_step, n);
    case 4: return gatherRowOf<4>(dst, src, src_step, n);
    case 8: return gatherRowOf<8>(dst, src, src_step, n);
    default: return gatherRowOf<16>(dst, src, src_step, n);
  }
}

// Copies the elements at src + sum(i_k * strides[k]) (byte strides, any sign) into the dense
// `dst`, in row-major order of `sizes`.
void gatherSigned(char* dst, const char* src, DimVector sizes, DimVector strides, size_t esize) {
  // Drop size-1 dimensions and merge neighbours that are laid out as one.
  DimVector s, st;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] == 1) continue;
    if (!s.empty() && st.back() == strides[k] * sizes[k]) {
      s.back() *= sizes[k];
      st.back() = strides[k];
      continue;
    }
    s.push_back(sizes[k]);
    st.push_back(strides[k]);
  }
  if (s.empty()) {
    std::memcpy(dst, src, esize);
    return;
  }
  const int64_t inner = s.back(), step = st.back();
  int64_t rows = 1;
  for (size_t k = 0; k + 1 < s.size(); ++k) rows *= s[k];
  const int64_t outer_dims = static_cast<int64_t>(s.size()) - 1;
  parallel_for(0, rows, grainFor(inner), [&](int64_t begin, int64_t end) {
    DimVector index(static_cast<size_t>(outer_dims), 0);
    int64_t r = begin, offset = 0;
    for (int64_t k = outer_dims - 1; k >= 0; --k) {
      index[k] = r % s[k];
      r /= s[k];
      offset += index[k] * st[k];
    }
    for (int64_t row = begin; row < end; ++row) {
      gatherRow(dst + row * inner * static_cast<int64_t>(esize), src + offset, step, inner, esize);
      for (int64_t k = outer_dims - 1; k >= 0; --k) {  // next row: increment the index
        offset += st[k];
        if (++index[k] < s[k]) break;
        offset -= index[k] * st[k];
        index[k] = 0;
      }
    }
  });
}

// The view of `t` narrowed to [start, start + length) along `dim`.
TensorBase narrowed(const TensorBase& t, int64_t dim, int64_t start, int64_t length) {
  DimVector sizes = t.sizes().vec();
  sizes[static_cast<size_t>(dim)] = length;
  return detail::makeView(t, sizes, t.strides(), t.storage_offset() + start * t.stride(dim));
}

struct CopyJob {
  char* dst;
  const char* src;
  int64_t bytes;
};

// Runs the jobs among the threads; `stream`: with streaming stores (Note [Dense copies] in Loops.h).
void runCopyJobs(const std::vector<CopyJob>& jobs, bool stream) {
  parallel_for(0, static_cast<int64_t>(jobs.size()), 1, [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) cpu::copyPiece(jobs[j].dst, jobs[j].src, jobs[j].bytes, stream);
    if (stream) cpu::loops_detail::streamFence();
  });
}

// cat of contiguous inputs of out's dtype into a contiguous out (Note [Copying shape kernels]).
void catDense(TensorList tensors, int64_t dim, const Tensor& out) {
  const auto esize = static_cast<int64_t>(out.element_size());
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < dim; ++k) outer *= out.size(k);
  for (int64_t k = dim + 1; k < out.dim(); ++k) inner *= out.size(k);
  const int64_t row = out.size(dim) * inner * esize;  // bytes of one outer index of out
  char* base = static_cast<char*>(out.data_ptr());
  struct Piece {
    const char* src;
    int64_t offset, bytes;
  };
  std::vector<Piece> pieces;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (isSkippedByCat(t) || t.numel() == 0) continue;
    const int64_t bytes = t.size(dim) * inner * esize;
    pieces.push_back({static_cast<const char*>(t.data_ptr()), offset, bytes});
    offset += bytes;
  }
  if (outer * static_cast<int64_t>(pieces.size()) <= 4096) {
    std::vector<CopyJob> jobs;
    for (int64_t o = 0; o < outer; ++o) {
      for (const Piece& p : pieces) {
        for (int64_t b = 0; b < p.bytes; b += cpu::kCopyPiece) {
          const int64_t bytes = std::min(cpu::kCopyPiece, p.bytes - b);
          jobs.push_back({base + o * row + p.offset + b, p.src + o * p.bytes + b, bytes});
        }
      }
    }
    runCopyJobs(jobs, cpu::loops_detail::streamStores(outer * row));
    return;
  }
  const int64_t grain = std::max<int64_t>(1, cpu::kCopyPiece / std::max<int64_t>(row, 1));
  parallel_for(0, outer, grain, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      for (const Piece& p : pieces) std::memcpy(base + o * row + p.offset, p.src + o * p.bytes, static_cast<size_t>(p.bytes));
    }
  });
}

// Rolls `src` by `shift` along `dim` into a new tensor.
TensorBase rollOne(const TensorBase& src, int64_t shift, int64_t dim) {
  TensorBase out = detail::emptyCpu(src.sizes(), src.scalar_type());
  const int64_t n = src.size(dim);
  const int64_t s = pointwise::wrapShift(shift, n);
  if (s == 0) {
    cpu::copyInto(out, src);
    return out;
  }
  cpu::copyInto(narrowed(out, dim, s, n - s), narrowed(src, dim, 0, n - s));
  cpu::copyInto(narrowed(out, dim, 0, s), narrowed(src, dim, n - s, s));
  return out;
}

template <typename T, bool kLower>
void triangle(const TensorBase& self, int64_t diagonal, const TensorBase& dst) {
  const int64_t ndim = self.dim();
  const int64_t rows = self.size(-2), cols = self.size(-1);
  const int64_t batch = self.numel() / (rows * cols);
  const int64_t s_row = self.stride(-2), s_col = self.stride(-1);
  const int64_t d_row = dst.stride(-2), d_col = dst.stride(-1);
  const T* in = self.data_ptr<T>();
  T* out = dst.data_ptr<T>();
  T zero;
  std::memset(static_cast<void*>(&zero), 0, sizeof(T));
  parallel_for(0, batch * rows, grainFor(cols), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t b = r / rows, i = r % rows;
      int64_t s_off = i * s_row, d_off = i * d_row;
      for (int64_t k = ndim - 3; k >= 0; --k) {  // the matrix's position in the batch
        s_off += (b % self.size(k)) * self.stride(k);
        d_off += (b % dst.size(k)) * dst.stride(k);
        b /= self.size(k);
      }
      const T* src = in + s_off;
      T* d = out + d_off;
      const int64_t c = pointwise::diagonalColumn(i, diagonal, cols, kLower);
      const int64_t keep_begin = kLower ? 0 : c, keep_end = kLower ? c : cols;
      for (int64_t j = 0; j < keep_begin; ++j) d[j * d_col] = zero;
      if (src != d || s_col != d_col) {
        for (int64_t j = keep_begin; j < keep_end; ++j) d[j * d_col] = src[j * s_col];
      }
      for (int64_t j = keep_end; j < cols; ++j) d[j * d_col] = zero;
    }
  });
}

template <bool kLower>
void triangleOut(const char* name, const Tensor& self, int64_t diagonal, const Tensor& out) {
  cpu::checkCpu(name, {&self, &out});
  if (out.numel() == 0) return;
  cpu::checkNoInternalOverlap(out);
  const bool direct = out.scalar_type() == self.scalar_type() &&
                      (!cpu::sharesStorage(out, self) || cpu::sameLayout(out, self));
  const TensorBase dst = direct ? TensorBase(out) : detail::emptyCpu(self.sizes(), self.scalar_type());
  OPCORE_DISPATCH_EVERY_TYPE(self.scalar_type(), name, [&] { triangle<scalar_t, kLower>(self, diagonal, dst); });
  if (!direct) cpu::copyInto(out, dst);
}

}  // namespace

void cat_out_cpu(TensorList tensors, int64_t dim, const Tensor& out) {
  cpu::checkCpu("cat", {&out});
  bool dense = out.is_contiguous();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    cpu::checkCpu("cat", {&t});
    OPCORE_CHECK(t.numel() == 0 || out.numel() == 0 || !cpu::sharesStorage(out, t),
                 "unsupported operation: the input tensors cannot refer to any of the output memory locations. "
                 "Found overlap in input tensor ", i);
    dense = dense && (isSkippedByCat(t) || (t.is_contiguous() && t.scalar_type() == out.scalar_type()));
  }
  if (out.numel() == 0) return;
  if (dense) {
    catDense(tensors, dim, out);
    return;
  }
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (isSkippedByCat(t)) continue;
    cpu::copyInto(narrowed(out, dim, offset, t.size(dim)), t);
    offset += t.size(dim);
  }
}

Tensor flip(const Tensor& self, IntArrayRef dims) {
  cpu::checkCpu("flip", {&self});
  const std::vector<bool> mask = flipDims(self, dims);
  Tensor out = detail::emptyCpu(self.sizes(), self.scalar_type());
  if (self.numel() == 0) return out;
  const auto esize = static_cast<int64_t>(self.element_size());
  const char* src = static_cast<const char*>(self.data_ptr());
  DimVector sizes = self.sizes().vec(), strides(sizes.size());
  for (size_t k = 0; k < sizes.size(); ++k) {
    strides[k] = self.strides()[k] * esize;
    if (mask[k]) {
      src += (sizes[k] - 1) * strides[k];
      strides[k] = -strides[k];
    }
  }
  gatherSigned(static_cast<char*>(out.data_ptr()), src, sizes, strides, self.element_size());
  return out;
}

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  cpu::checkCpu("roll", {&self});
  checkRollArguments(self, shifts, dims);
  if (self.numel() == 0 || self.dim() == 0) return cpu::ownedCopy(self);
  if (dims.empty()) {  // the flattened tensor rolled, in self's shape
    const TensorBase flat = cpu::ownedCopy(self);
    const TensorBase flat1d = detail::makeView(flat, {self.numel()}, {1}, 0);
    const TensorBase rolled = rollOne(flat1d, shifts[0], 0);
    return detail::makeView(rolled, self.sizes(), flat.strides(), 0);
  }
  TensorBase result = self;
  for (size_t i = 0; i < dims.size(); ++i) result = rollOne(result, shifts[i], self.wrapDim(dims[i]));
  return result;
}

void tril_out(const Tensor& self, int64_t diagonal, const Tensor& out) {
  triangleOut<true>("tril", self, diagonal, out);
}

void triu_out(const Tensor& self, int64_t diagonal, const Tensor& out) {
  triangleOut<false>("triu", self, diagonal, out);
}

}  // namespace opcore::native
