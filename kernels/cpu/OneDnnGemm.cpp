// oneDNN's products (Note [Matrix-product libraries] in cpu/Gemm.h): dnnl_sgemm for float,
// the matmul primitive for BFloat16. Built only when CMake finds libdnnl-dev.
#include "cpu/Gemm.h"

#include <opcore/core/Error.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <cstring>
#include <optional>

namespace opcore::native::cpu::onednn {

namespace {

const dnnl::engine& cpuEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// The matmul of a [rows, k] . [k, cols] -> [rows, cols] BFloat16 block with these leading
// dimensions, or nothing when oneDNN has no fast kernel for it on this CPU.
std::optional<dnnl::matmul::primitive_desc> bf16Matmul(int64_t rows, int64_t cols, int64_t k, GemmOperand<uint16_t> a,
                                                       GemmOperand<uint16_t> b, int64_t ldc) {
  using dnnl::memory;
  const auto bf16 = memory::data_type::bf16;
  const memory::desc ad({rows, k}, bf16, a.trans ? memory::dims{1, a.ld} : memory::dims{a.ld, 1});
  const memory::desc bd({k, cols}, bf16, b.trans ? memory::dims{1, b.ld} : memory::dims{b.ld, 1});
  const memory::desc cd({rows, cols}, bf16, memory::dims{ldc, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // one per block: blocks run concurrently
  try {
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bd, cd), attr, cpuEngine());
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
    return bf16Matmul(16, 16, 16, {x, false, 16}, {x, false, 16}, 16).has_value();
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

bool bf16gemm(int64_t n, int64_t m, int64_t k, GemmOperand<uint16_t> a, GemmOperand<uint16_t> b, uint16_t* c,
              int64_t ldc) {
  if (!hasBf16Matmul()) return false;
  const GemmBlocks blocks(n, m, k);
  // The primitives of the (at most) two block shapes, the full one and the last, planned for
  // one thread.
  std::optional<dnnl::matmul::primitive_desc> pds[2];
  dnnl::matmul prims[2];
  {
    const OneLibraryThread one;
    for (int j = 0; j < 2; ++j) {
      const int64_t size = blocks.size(j == 0 ? 0 : blocks.count - 1);
      pds[j] = bf16Matmul(blocks.by_columns ? n : size, blocks.by_columns ? size : m, k, a, b, ldc);
      if (!pds[j]) return false;
      prims[j] = dnnl::matmul(*pds[j]);
    }
  }
  forEachGemmBlock(blocks, [&](int64_t i) {
    const int j = i + 1 == blocks.count ? 1 : 0;
    blocks.call(i, n, m, a, b, c, ldc, [&](int64_t, int64_t, GemmOperand<uint16_t> x, GemmOperand<uint16_t> y, uint16_t* z) {
      using dnnl::memory;
      const dnnl::matmul::primitive_desc& pd = *pds[j];
      const dnnl::engine& engine = cpuEngine();
      dnnl::stream stream(engine);
      const memory mx(pd.src_desc(), engine, const_cast<uint16_t*>(x.data));
      const memory my(pd.weights_desc(), engine, const_cast<uint16_t*>(y.data));
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
