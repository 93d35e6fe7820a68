// oneDNN's products (Note [Matrix-product libraries] in cpu/Gemm.h): dnnl_sgemm for float,
// the matmul primitive for BFloat16. Built only when CMake finds libdnnl-dev.
#include "cpu/Gemm.h"

#include <opcore/core/Error.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <cstring>
#include <memory>
#include <optional>

namespace opcore::native::cpu::onednn {

namespace {

const dnnl::engine& cpuEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

using dnnl::memory;

// A row-major BFloat16 operand of [rows, cols] as oneDNN describes it.
memory::desc bf16Desc(int64_t rows, int64_t cols, GemmOperand<uint16_t> x) {
  return memory::desc({rows, cols}, memory::data_type::bf16, x.trans ? memory::dims{1, x.ld} : memory::dims{x.ld, 1});
}

// The matmul of a [rows, k] . [k, cols] -> [rows, cols] BFloat16 block with these layouts (b's
// may be blocked), or nothing when oneDNN has no fast kernel
// for it on this CPU.
std::optional<dnnl::matmul::primitive_desc> bf16Matmul(int64_t rows, int64_t cols, int64_t k, GemmOperand<uint16_t> a,
                                                       const memory::desc& b, int64_t ldc) {
  const memory::desc cd({rows, cols}, memory::data_type::bf16, memory::dims{ldc, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // one per block: blocks run concurrently
  try {
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(bf16Desc(rows, k, a), b, cd), attr, cpuEngine());
    if (std::strncmp(pd.impl_info_str(), "ref", 3) == 0) return std::nullopt;  // reference loops: slow
    return pd;
  } catch (const dnnl::error&) {
    return std::nullopt;  // no implementation for this CPU (bfloat16 needs AVX-512)
  }
}

// Whether this CPU has a fast BFloat16 matmul at all, asked once.
bool hasBf16Matmul() {
  static const bool has = [] {
    const uint16_t x[16 * 16] = {};
    const OneLibraryThread one;
    return bf16Matmul(16, 16, 16, {x, false, 16}, bf16Desc(16, 16, {x, false, 16}), 16).has_value();
  }();
  return has;
}

}  // namespace

void sgemm(int64_t n, int64_t m, int64_t k, GemmOperand<float> a, GemmOperand<float> b, float* c, int64_t ldc) {
  const GemmBlocks blocks(n, m, k);
  forEachGemmBlock(blocks, [&](int64_t i) {
    blocks.call(i, n, m, a, b, c, ldc, [&](int64_t rows, int64_t cols, GemmOperand<float> x, GemmOperand<float> y, float* z) {
      const dnnl_status_t status = dnnl_sgemm(x.trans ? 'T' : 'N', y.trans ? 'T' : 'N', rows, cols, k, 1.0f, x.data,
                                              x.ld, y.data, y.ld, 0.0f, z, ldc);
      OPCORE_INTERNAL_ASSERT(status == dnnl_success, "mm: oneDNN's sgemm failed with status ", int(status));
    });
  });
}

// Note [Packed bfloat16 operands]
// oneDNN's fast bfloat16 kernel (brgemm) reads b in a blocked layout, BA16a64b2a (below),
// copying it there in every call, and writes only a result whose rows are contiguous. So the
// blocks here are blocks of rows, which share one copy of b packed before them by packB; cut
// into columns, each block would get oneDNN's older kernel, and each row block packing b for
// itself would copy b once per block. oneDNN's own reorder into that layout took as long as
// 6% of a 1024^2 product; with packB's loop instead the product beat torch's (bench/README.md;
// packB itself was not timed apart). Only a product with too few
// rows for every block (and wider than tall) is cut into columns, each reading its slice of b
// in place.
//
// BA16a64b2a holds b's [k, m] in tiles of 32 rows by 64 columns, a column of tiles after
// another; in a tile, each pair of rows interleaved (a column's two elements side by side, as
// the bfloat16 dot-product instruction reads them); zeros pad b to whole tiles.
constexpr int64_t kTileRows = 32, kTileCols = 64;

// b packed into BA16a64b2a: out[((tile column * row tiles) + row pair) * kTileCols + column in
// the tile] holds a row pair's two elements, the first in the low half.
void packB(int64_t k, int64_t m, GemmOperand<uint16_t> b, uint32_t* out) {
  const int64_t pairs = (k + kTileRows - 1) / kTileRows * (kTileRows / 2);
  const int64_t tiles = (m + kTileCols - 1) / kTileCols;
  const auto at = [&](int64_t p, int64_t j) -> uint32_t {
    if (p >= k || j >= m) return 0;
    return b.trans ? b.data[j * b.ld + p] : b.data[p * b.ld + j];
  };
  parallel_for(0, tiles, 1, [&](int64_t first, int64_t last) {
    for (int64_t t = first; t < last; ++t) {
      const int64_t j0 = t * kTileCols;
      for (int64_t p = 0; p < pairs; ++p) {
        uint32_t* o = out + (t * pairs + p) * kTileCols;
        if (!b.trans && 2 * p + 1 < k && j0 + kTileCols <= m) {
          const uint16_t* x = b.data + 2 * p * b.ld + j0;
          const uint16_t* y = x + b.ld;
          for (int64_t j = 0; j < kTileCols; ++j) o[j] = uint32_t{x[j]} | uint32_t{y[j]} << 16;
        } else {
          for (int64_t j = 0; j < kTileCols; ++j) o[j] = at(2 * p, j0 + j) | at(2 * p + 1, j0 + j) << 16;
        }
      }
    }
  });
}

bool bf16gemm(int64_t n, int64_t m, int64_t k, GemmOperand<uint16_t> a, GemmOperand<uint16_t> b, uint16_t* c,
              int64_t ldc) {
  if (!hasBf16Matmul()) return false;
  const GemmBlocks blocks(n, m, k, /*by_columns=*/m > n && n < kMaxGemmBlocks * kMinGemmBlock);
  const memory::desc packed_desc({k, m}, memory::data_type::bf16, memory::format_tag::BA16a64b2a);
  // The primitives of the (at most) two block shapes, the full one and the last, planned for
  // one thread.
  std::optional<dnnl::matmul::primitive_desc> pds[2];
  dnnl::matmul prims[2];
  {
    const OneLibraryThread one;
    for (int j = 0; j < 2; ++j) {
      const int64_t size = blocks.size(j == 0 ? 0 : blocks.count - 1);
      pds[j] = blocks.by_columns ? bf16Matmul(n, size, k, a, bf16Desc(k, size, b), ldc)
                                 : bf16Matmul(size, m, k, a, packed_desc, ldc);
      if (!pds[j]) return false;
      prims[j] = dnnl::matmul(*pds[j]);
    }
  }
  std::unique_ptr<uint32_t[]> packed;
  if (!blocks.by_columns) {
    const size_t words = packed_desc.get_size() / sizeof(uint32_t);
    OPCORE_INTERNAL_ASSERT(words == size_t((k + kTileRows - 1) / kTileRows * kTileRows / 2) *
                                        size_t((m + kTileCols - 1) / kTileCols * kTileCols),
                           "mm: oneDNN's BA16a64b2a is not the layout packB writes");
    packed.reset(new uint32_t[words]);
    packB(k, m, b, packed.get());
  }
  const dnnl::engine& engine = cpuEngine();
  forEachGemmBlock(blocks, [&](int64_t i) {
    const int j = i + 1 == blocks.count ? 1 : 0;
    blocks.call(i, n, m, a, b, c, ldc, [&](int64_t, int64_t, GemmOperand<uint16_t> x, GemmOperand<uint16_t> y, uint16_t* z) {
      const dnnl::matmul::primitive_desc& pd = *pds[j];
      void* weights = packed ? static_cast<void*>(packed.get()) : const_cast<uint16_t*>(y.data);
      dnnl::stream stream(engine);
      const memory mx(pd.src_desc(), engine, const_cast<uint16_t*>(x.data));
      const memory my(pd.weights_desc(), engine, weights);
      const memory mz(pd.dst_desc(), engine, z);
      const memory scratch(pd.scratchpad_desc(), engine);
      prims[j].execute(stream, {{DNNL_ARG_SRC, mx}, {DNNL_ARG_WEIGHTS, my}, {DNNL_ARG_DST, mz},
                                {DNNL_ARG_SCRATCHPAD, scratch}});
      stream.wait();
    });
  });
  return true;
}

}  // namespace opcore::native::cpu::onednn
