// The CUDA kernels written as tensor operations (mode, unique, the paddings, upsampling, batch
// and group norm, the embedding bags' gradients, randperm) call nothing but other operators,
// so they run on any device: called here on CPU tensors, they must give the CPU kernels'
// results. This checks their arithmetic in every build with CUDA, GPU or not; on a GPU,
// tests/python/test_cuda_ops.py runs them there.
#include <opcore/core/Generator.h>
#include <opcore/ops/_embedding_bag.h>
#include <opcore/ops/_embedding_bag_dense_backward.h>
#include <opcore/ops/_embedding_bag_dense_backward_native.h>
#include <opcore/ops/_embedding_bag_per_sample_weights_backward.h>
#include <opcore/ops/_embedding_bag_per_sample_weights_backward_native.h>
#include <opcore/ops/_unique2.h>
#include <opcore/ops/_unique2_native.h>
#include <opcore/ops/empty.h>
#include <opcore/ops/mode.h>
#include <opcore/ops/mode_native.h>
#include <opcore/ops/native_batch_norm.h>
#include <opcore/ops/native_batch_norm_backward.h>
#include <opcore/ops/native_batch_norm_backward_native.h>
#include <opcore/ops/native_batch_norm_native.h>
#include <opcore/ops/native_group_norm.h>
#include <opcore/ops/native_group_norm_backward.h>
#include <opcore/ops/native_group_norm_backward_native.h>
#include <opcore/ops/native_group_norm_native.h>
#include <opcore/ops/randperm.h>
#include <opcore/ops/randperm_native.h>
#include <opcore/ops/reflection_pad1d.h>
#include <opcore/ops/reflection_pad1d_backward.h>
#include <opcore/ops/reflection_pad1d_backward_native.h>
#include <opcore/ops/reflection_pad1d_native.h>
#include <opcore/ops/reflection_pad2d.h>
#include <opcore/ops/reflection_pad2d_native.h>
#include <opcore/ops/replication_pad3d.h>
#include <opcore/ops/replication_pad3d_backward.h>
#include <opcore/ops/replication_pad3d_backward_native.h>
#include <opcore/ops/replication_pad3d_native.h>
#include <opcore/ops/unique_dim.h>
#include <opcore/ops/unique_dim_native.h>
#include <opcore/ops/upsample_bilinear2d.h>
#include <opcore/ops/upsample_bilinear2d_backward.h>
#include <opcore/ops/upsample_bilinear2d_backward_native.h>
#include <opcore/ops/upsample_bilinear2d_native.h>
#include <opcore/ops/upsample_nearest2d.h>
#include <opcore/ops/upsample_nearest2d_backward.h>
#include <opcore/ops/upsample_nearest2d_backward_native.h>
#include <opcore/ops/upsample_nearest2d_native.h>

#include "TestUtil.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace opcore {
namespace {

using namespace ::opcore::testing::prelude;  // NOLINT(build/namespaces)

#ifdef OPCORE_WITH_CUDA

// actual and expected: one shape and dtype, the same values (NaN matching NaN) within
// tol * max(1, |expected|).
void expectClose(const Tensor& actual, const Tensor& expected, double tol, const std::string& what) {
  ASSERT_EQ(actual.sizes().vec(), expected.sizes().vec()) << what;
  ASSERT_EQ(actual.scalar_type(), expected.scalar_type()) << what;
  const std::vector<double> a = toVector<double>(actual.to(kDouble)), e = toVector<double>(expected.to(kDouble));
  for (size_t i = 0; i < e.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(e[i])) continue;
    ASSERT_NEAR(a[i], e[i], tol * std::max(1.0, std::abs(e[i]))) << what << ", element " << i;
  }
}

// n values drawn from `choices` (a small set, so that values repeat).
template <typename T>
std::vector<T> drawn(size_t n, const std::vector<T>& choices, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = choices[rng() % choices.size()];
  return v;
}

Tensor uniformTensor(std::vector<int64_t> sizes, uint32_t seed) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2, 2);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return fromVector<float>(v, sizes);
}

TEST(CudaCompositionTest, ModeIsTheCpusOnEveryDimension) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<Tensor> inputs = {
      fromVector<int64_t>(drawn<int64_t>(60, {3, -1, 7, 3, 0}, 1), {3, 4, 5}),
      fromVector<float>(drawn<float>(60, {1.5f, nan, -0.0f, 0.0f, 2.f, nan}, 2), {4, 15}),
      fromVector<bool>(drawn<bool>(24, {true, false, false}, 3), {6, 4}),
      scalarTensor<double>(2.5),
  };
  for (const Tensor& x : inputs) {
    for (int64_t dim = -std::max<int64_t>(x.dim(), 1); dim < std::max<int64_t>(x.dim(), 1); ++dim) {
      for (bool keepdim : {false, true}) {
        const auto [values, indices] = opcore::mode(x, dim, keepdim);
        const auto [v, i] = native::mode_cuda(x, dim, keepdim);
        const std::string what = std::string(toString(x.scalar_type())) + " dim " + std::to_string(dim);
        expectClose(v, values, 0, what + " values");
        expectClose(i, indices, 0, what + " indices");
      }
    }
  }
}

TEST(CudaCompositionTest, UniqueIsTheCpus) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<Tensor> inputs = {
      fromVector<float>(drawn<float>(30, {1.5f, nan, -0.0f, 0.0f, -3.f}, 4), {5, 6}),
      fromVector<int32_t>(drawn<int32_t>(17, {9, -4, 0, 9, 2}, 5)),
      fromVector<bool>({true, false, true}),
      opcore::empty({0, 3}, kFloat),
  };
  for (const Tensor& x : inputs) {
    for (bool inverse : {false, true}) {
      for (bool counts : {false, true}) {
        const auto [values, inv, cnt] = opcore::_unique2(x, true, inverse, counts);
        const auto [v, i, c] = native::_unique2_cuda(x, true, inverse, counts);
        const std::string what =
            std::string(toString(x.scalar_type())) + (inverse ? " inverse" : "") + (counts ? " counts" : "");
        expectClose(v, values, 0, what + ": values");
        expectClose(i, inv, 0, what + ": inverse");
        expectClose(c, cnt, 0, what + ": counts");
      }
    }
  }
}

TEST(CudaCompositionTest, UniqueAlongADimensionIsTheCpus) {
  // slices that repeat along every dimension
  const Tensor ints = fromVector<int64_t>(drawn<int64_t>(48, {1, 2}, 6), {4, 3, 4});
  const Tensor floats = fromVector<double>({1, 2, 1, 2, 0, -0.0, 1, 2, 0, 0, 3, 1}, {6, 2});
  for (const Tensor& x : {ints, floats}) {
    for (int64_t dim = 0; dim < x.dim(); ++dim) {
      const auto [values, inv, cnt] = opcore::unique_dim(x, dim, true, true, true);
      const auto [v, i, c] = native::unique_dim_cuda(x, dim, true, true, true);
      const std::string what = std::string(toString(x.scalar_type())) + " dim " + std::to_string(dim);
      expectClose(v, values, 0, what + ": values");
      expectClose(i, inv, 0, what + ": inverse");
      expectClose(c, cnt, 0, what + ": counts");
    }
  }
  EXPECT_THAT(errorOf([] { native::unique_dim_cuda(opcore::empty({0, 0}, kFloat), 0, true, false, false); }),
              HasSubstr("Number of zero sized dimensions is more than one"));
}

TEST(CudaCompositionTest, PaddingsAndTheirGradientsAreTheCpus) {
  const Tensor x1 = uniformTensor({2, 3, 7}, 7), x3 = uniformTensor({1, 2, 3, 4, 5}, 8);
  const std::vector<int64_t> p1 = {3, 2}, p3 = {1, 2, 2, 0, 1, 3};
  Tensor out = opcore::empty({0}, kFloat);
  const Tensor r1 = opcore::reflection_pad1d(x1, p1);
  native::reflection_pad1d_out_cuda(x1, p1, out = opcore::empty(r1.sizes(), kFloat));
  expectClose(out, r1, 0, "reflection_pad1d");
  const Tensor g1 = uniformTensor(r1.sizes().vec(), 9);
  const Tensor b1 = opcore::reflection_pad1d_backward(g1, x1, p1);
  native::reflection_pad1d_backward_out_cuda(g1, x1, p1, out = opcore::empty(x1.sizes(), kFloat));
  expectClose(out, b1, 1e-6, "reflection_pad1d_backward");

  const Tensor x2 = uniformTensor({2, 5, 6}, 10);
  const std::vector<int64_t> p2 = {2, 3, 4, 1};
  const Tensor r2 = opcore::reflection_pad2d(x2, p2);
  native::reflection_pad2d_out_cuda(x2, p2, out = opcore::empty(r2.sizes(), kFloat));
  expectClose(out, r2, 0, "reflection_pad2d");

  const Tensor r3 = opcore::replication_pad3d(x3, p3);
  native::replication_pad3d_out_cuda(x3, p3, out = opcore::empty(r3.sizes(), kFloat));
  expectClose(out, r3, 0, "replication_pad3d");
  const Tensor g3 = uniformTensor(r3.sizes().vec(), 11);
  const Tensor b3 = opcore::replication_pad3d_backward(g3, x3, p3);
  native::replication_pad3d_backward_out_cuda(g3, x3, p3, out = opcore::empty(x3.sizes(), kFloat));
  expectClose(out, b3, 1e-6, "replication_pad3d_backward");
}

TEST(CudaCompositionTest, UpsamplingAndItsGradientIsTheCpus) {
  const Tensor x = uniformTensor({2, 3, 5, 4}, 12);
  const std::vector<int64_t> size = {7, 9}, in = x.sizes().vec();
  Tensor out;
  const Tensor nearest = opcore::upsample_nearest2d(x, size, std::nullopt, std::nullopt);
  native::upsample_nearest2d_out_cuda(x, size, std::nullopt, std::nullopt,
                                      out = opcore::empty(nearest.sizes(), kFloat));
  expectClose(out, nearest, 0, "upsample_nearest2d");
  const Tensor g = uniformTensor(nearest.sizes().vec(), 13);
  const Tensor nearest_back = opcore::upsample_nearest2d_backward(g, size, in, std::nullopt, std::nullopt);
  native::upsample_nearest2d_backward_out_cuda(g, size, in, std::nullopt, std::nullopt,
                                               out = opcore::empty(x.sizes(), kFloat));
  expectClose(out, nearest_back, 1e-6, "upsample_nearest2d_backward");
  for (bool align_corners : {false, true}) {
    const std::string what = align_corners ? "upsample_bilinear2d (align_corners)" : "upsample_bilinear2d";
    const Tensor bilinear = opcore::upsample_bilinear2d(x, size, align_corners, std::nullopt, std::nullopt);
    native::upsample_bilinear2d_out_cuda(x, size, align_corners, std::nullopt, std::nullopt,
                                         out = opcore::empty(bilinear.sizes(), kFloat));
    expectClose(out, bilinear, 1e-5, what);
    const Tensor back = opcore::upsample_bilinear2d_backward(g, size, in, align_corners, std::nullopt, std::nullopt);
    native::upsample_bilinear2d_backward_out_cuda(g, size, in, align_corners, std::nullopt, std::nullopt,
                                                  out = opcore::empty(x.sizes(), kFloat));
    expectClose(out, back, 1e-5, what + " backward");
  }
}

TEST(CudaCompositionTest, BatchAndGroupNormAndTheirGradientsAreTheCpus) {
  const Tensor x = uniformTensor({4, 6, 3, 2}, 14), w = uniformTensor({6}, 15), b = uniformTensor({6}, 16);
  const Tensor grad = uniformTensor({4, 6, 3, 2}, 17);
  for (bool training : {true, false}) {
    const Tensor mean_cpu = uniformTensor({6}, 18), var_cpu = uniformTensor({6}, 19).abs().add(0.5);
    const Tensor mean_gpu = mean_cpu.clone(), var_gpu = var_cpu.clone();
    const auto [y, save_mean, save_invstd] = opcore::native_batch_norm(x, w, b, mean_cpu, var_cpu, training, 0.1, 1e-5);
    const auto [y2, save_mean2, save_invstd2] =
        native::native_batch_norm_cuda(x, w, b, mean_gpu, var_gpu, training, 0.1, 1e-5);
    const std::string what = training ? "batch norm (training)" : "batch norm";
    expectClose(y2, y, 1e-5, what);
    expectClose(save_mean2, save_mean, 1e-5, what + ": saved mean");
    expectClose(save_invstd2, save_invstd, 1e-5, what + ": saved invstd");
    expectClose(mean_gpu, mean_cpu, 1e-5, what + ": running mean");
    expectClose(var_gpu, var_cpu, 1e-5, what + ": running var");
    const auto [dx, dw, db] = opcore::native_batch_norm_backward(grad, x, w, mean_cpu, var_cpu, save_mean, save_invstd,
                                                                 training, 1e-5, {true, true, true});
    const auto [dx2, dw2, db2] = native::native_batch_norm_backward_cuda(grad, x, w, mean_cpu, var_cpu, save_mean,
                                                                         save_invstd, training, 1e-5, {true, true, true});
    expectClose(dx2, dx, 1e-4, what + ": grad_input");
    expectClose(dw2, dw, 1e-4, what + ": grad_weight");
    expectClose(db2, db, 1e-4, what + ": grad_bias");
  }
  const auto [y, mean, rstd] = opcore::native_group_norm(x, w, b, 4, 6, 6, 3, 1e-5);
  const auto [y2, mean2, rstd2] = native::native_group_norm_cuda(x, w, b, 4, 6, 6, 3, 1e-5);
  expectClose(y2, y, 1e-5, "group norm");
  expectClose(mean2, mean, 1e-5, "group norm: mean");
  expectClose(rstd2, rstd, 1e-5, "group norm: rstd");
  const auto [dx, dw, db] = opcore::native_group_norm_backward(grad, x, mean, rstd, w, 4, 6, 6, 3, {true, true, true});
  const auto [dx2, dw2, db2] =
      native::native_group_norm_backward_cuda(grad, x, mean, rstd, w, 4, 6, 6, 3, {true, true, true});
  expectClose(dx2, dx, 1e-4, "group norm: grad_input");
  expectClose(dw2, dw, 1e-4, "group norm: grad_weight");
  expectClose(db2, db, 1e-4, "group norm: grad_bias");
}

TEST(CudaCompositionTest, EmbeddingBagGradientsAreTheCpus) {
  const Tensor weight = uniformTensor({10, 5}, 20);
  const Tensor indices = fromVector<int64_t>({1, 2, 4, 2, 9, 0, 2, 7, 7, 3, 2, 5});
  const Tensor offsets = fromVector<int64_t>({0, 3, 3, 7});  // bag 1 is empty
  const Tensor psw = uniformTensor({12}, 21);
  for (int64_t mode : {0, 1, 2}) {
    for (bool by_freq : {false, true}) {
      // padding_idx 2: off PyTorch's sum fast path, so offset2bag is filled
      const std::optional<Tensor> weights = mode == 0 ? std::optional<Tensor>(psw) : std::nullopt;
      const auto [out, offset2bag, bag_size, max_indices] =
          opcore::_embedding_bag(weight, indices, offsets, by_freq, mode, false, weights, false, 2);
      const Tensor grad = uniformTensor(out.sizes().vec(), 22);
      const std::string what = "mode " + std::to_string(mode) + (by_freq ? " by frequency" : "");
      expectClose(native::_embedding_bag_dense_backward_cuda(grad, indices, offset2bag, bag_size, max_indices, 10,
                                                             by_freq, mode, weights, 2),
                  opcore::_embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, max_indices, 10, by_freq,
                                                        mode, weights, 2),
                  1e-5, what + ": dense gradient");
      if (mode == 0) {
        expectClose(native::_embedding_bag_per_sample_weights_backward_cuda(grad, weight, indices, offsets,
                                                                            offset2bag, mode, 2),
                    opcore::_embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag,
                                                                       mode, 2),
                    1e-5, what + ": per-sample weights' gradient");
      }
    }
  }
}

TEST(CudaCompositionTest, RandpermIsTheCpusPermutation) {
  for (int64_t n : {0, 1, 2, 1000}) {
    opcore::manual_seed(5);
    const Tensor expected = opcore::randperm(n);
    opcore::manual_seed(5);  // the CUDA default generator too
    Tensor out = opcore::empty({0}, kLong);
    native::randperm_out_cuda(n, std::nullopt, out);
    expectClose(out, expected, 0, "randperm(" + std::to_string(n) + ")");
  }
}

#else

TEST(CudaCompositionTest, NeedsTheCudaKernels) {
  GTEST_SKIP() << "opcore was built without CUDA (no nvcc found at configure time): no CUDA kernels to call";
}

#endif

}  // namespace
}  // namespace opcore
