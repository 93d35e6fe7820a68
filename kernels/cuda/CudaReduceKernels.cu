// The CUDA reductions (Note [CUDA reductions] in CudaLaunch.h): sum, prod, amax / amin, max /
// min with indices, argmax / argmin, any / all, var (and std, with the mean) and the vector
// norms, over rows or columns, each result from a warp (rows) or a block column (columns),
// long ones cut into chunks combined by a second kernel.
#include "CudaLoops.cuh"

#include <common/Wrapping.h>
#include <common/pointwise/Reduce.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace opcore::cuda {
namespace {

namespace rd = opcore::native::reduce;

// ---- the operations ------------------------------------------------------------------------------
// Each has an accumulator acc_t, reads elements as input_t, and has identity(), reduce(acc, x,
// index), combine(a, b) (a holds the earlier elements) and store(problem, row, acc).

template <typename T>
struct SumOp {
  using M = opmath_t<T>;
  using input_t = M;
  using acc_t = M;
  __device__ acc_t identity() const { return M(0); }
  __device__ acc_t reduce(acc_t a, M x, int64_t) const { return combine(a, x); }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if constexpr (std::is_same_v<M, bool>) {
      return a || b;
    } else {
      return native::wrappingAdd(a, b);  // integer sums wrap, as the CPU's
    }
  }
  __device__ void store(const ReduceProblem& p, int64_t row, acc_t a) const {
    reinterpret_cast<T*>(p.out)[row] = static_cast<T>(a);
  }
};

template <typename T>
struct ProdOp {
  using M = opmath_t<T>;
  using input_t = M;
  using acc_t = M;
  __device__ acc_t identity() const { return M(1); }
  __device__ acc_t reduce(acc_t a, M x, int64_t) const { return combine(a, x); }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if constexpr (std::is_same_v<M, bool>) {
      return a && b;
    } else {
      return native::wrappingMul(a, b);
    }
  }
  __device__ void store(const ReduceProblem& p, int64_t row, acc_t a) const {
    reinterpret_cast<T*>(p.out)[row] = static_cast<T>(a);
  }
};

// The extreme and its first index (index -1: no element yet).
template <typename M>
struct ValueIndex {
  M value;
  int64_t index;
};

template <typename T, bool kMax>
struct ExtremeOp {
  using M = opmath_t<T>;
  using input_t = M;
  using acc_t = ValueIndex<M>;
  ReduceOp op;
  __device__ static bool beats(M x, M best) { return kMax ? rd::greaterOrNan(x, best) : rd::lessOrNan(x, best); }
  __device__ acc_t identity() const { return {M(0), -1}; }
  __device__ acc_t reduce(acc_t a, M x, int64_t index) const { return combine(a, acc_t{x, index}); }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    // b wins when better, or when neither is (equal, or both NaN) and it comes first.
    return beats(b.value, a.value) || (!beats(a.value, b.value) && b.index < a.index) ? b : a;
  }
  __device__ void store(const ReduceProblem& p, int64_t row, acc_t a) const {
    if (op == ReduceOp::Argmax || op == ReduceOp::Argmin) {
      reinterpret_cast<int64_t*>(p.out)[row] = a.index;
      return;
    }
    reinterpret_cast<T*>(p.out)[row] = static_cast<T>(a.value);
    if (p.indices != nullptr) p.indices[row] = a.index;
  }
};

template <typename T, bool kAny>
struct AnyAllOp {
  using input_t = T;
  using acc_t = bool;
  __device__ acc_t identity() const { return !kAny; }
  __device__ acc_t reduce(acc_t a, T x, int64_t) const { return combine(a, rd::isNonzero(x)); }
  __device__ acc_t combine(acc_t a, acc_t b) const { return kAny ? (a || b) : (a && b); }
  __device__ void store(const ReduceProblem& p, int64_t row, acc_t a) const { reinterpret_cast<bool*>(p.out)[row] = a; }
};

// Welford's running mean and sum of squared deviations, in double (as the CPU's moments),
// merged by Chan's formula. The difference of two means overflows when finite values near
// +-DBL_MAX of both signs meet: the mean is then taken as a weighted sum, which does not, and
// the variance is inf, as the CPU's two passes give (inf and NaN inputs still give NaN).
struct Moments {
  double mean;
  double m2;
  double n;
};

__device__ bool finite(double x) { return x - x == 0.0; }  // false for inf and NaN

template <typename T>
struct VarOp {
  using input_t = opmath_t<T>;
  using acc_t = Moments;
  double correction;
  bool take_sqrt;
  __device__ acc_t identity() const { return {0.0, 0.0, 0.0}; }
  __device__ acc_t reduce(acc_t a, input_t x, int64_t) const {
    const double v = static_cast<double>(x);
    const double n = a.n + 1.0;
    const double delta = v - a.mean;
    const double mean = finite(delta) ? a.mean + delta / n : a.mean * (a.n / n) + v / n;
    return {mean, a.m2 + delta * (v - mean), n};
  }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const double n = a.n + b.n;
    const double delta = b.mean - a.mean;
    const double mean = finite(delta) ? a.mean + delta * (b.n / n) : a.mean * (a.n / n) + b.mean * (b.n / n);
    return {mean, a.m2 + b.m2 + delta * delta * (a.n * b.n / n), n};
  }
  __device__ void store(const ReduceProblem& p, int64_t row, acc_t a) const {
    const double nan = NAN;
    const double dof = a.n - correction > 0.0 ? a.n - correction : 0.0;
    double var = a.m2 / dof;
    if (take_sqrt) var = std::sqrt(var);
    if (a.n == 0) var = nan;
    using M = opmath_t<T>;
    reinterpret_cast<T*>(p.out)[row] = static_cast<T>(static_cast<M>(var));
    if (p.means != nullptr) reinterpret_cast<T*>(p.means)[row] = static_cast<T>(static_cast<M>(a.n == 0 ? nan : a.mean));
  }
};

// The vector norms of |x| in double, as the CPU's (Note [Vector norms] in
// kernels/cpu/ReduceOps.cpp): a sum (p = 0: of x != 0; 1: of |x|; 2: of |x|^2, then the square
// root; p: of |x|^p, then the 1/p-th power) or an extreme (+-inf: max, min), NaN propagating.
template <typename T>
struct NormOp {
  using input_t = opmath_t<T>;
  using acc_t = double;
  double p;
  __device__ acc_t identity() const { return p == -INFINITY ? INFINITY : 0.0; }
  __device__ acc_t reduce(acc_t a, input_t x, int64_t) const {
    const double m = std::fabs(static_cast<double>(x));
    if (p == 0) return a + (m != 0 ? 1.0 : 0.0);
    if (p == 1) return a + m;
    if (p == 2) return a + m * m;
    if (p == INFINITY || p == -INFINITY) return combine(a, m);
    return a + std::pow(m, p);
  }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    if (a != a || b != b) return a != a ? a : b;
    if (p == INFINITY) return a < b ? b : a;
    if (p == -INFINITY) return b < a ? b : a;
    return a + b;
  }
  __device__ void store(const ReduceProblem& prob, int64_t row, acc_t a) const {
    if (p == 2) {
      a = std::sqrt(a);
    } else if (p != 0 && p != 1 && p != INFINITY && p != -INFINITY) {
      a = std::pow(a, 1.0 / p);
    }
    reinterpret_cast<T*>(prob.out)[row] = static_cast<T>(static_cast<opmath_t<T>>(a));
  }
};

// ---- the kernels ------------------------------------------------------------------------------------

// v from lane + offset of the warp, any trivially copyable type, in 32-bit words.
template <typename T>
__device__ T shuffleDown(const T& v, int offset) {
  constexpr int kWords = static_cast<int>((sizeof(T) + 3) / 4);
  unsigned words[kWords] = {};
  memcpy(words, &v, sizeof(T));
  for (int w = 0; w < kWords; ++w) words[w] = __shfl_down_sync(0xffffffffu, words[w], offset);
  T out;
  memcpy(&out, words, sizeof(T));
  return out;
}

// Lane 0 gets the warp's combination, lower lanes' values first.
template <typename Op>
__device__ typename Op::acc_t warpCombine(const Op& op, typename Op::acc_t a) {
  for (int offset = 16; offset > 0; offset /= 2) a = op.combine(a, shuffleDown(a, offset));
  return a;
}

// Rows [rows, cols]: a warp per (row, chunk), its lanes striding the chunk.
template <typename In, typename Op>
__global__ void reduceRowsKernel(ReduceProblem p, Op op) {
  using acc_t = typename Op::acc_t;
  using input_t = typename Op::input_t;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / 32;
  const int64_t chunk_len = ceilDiv(p.cols, p.chunks);
  const In* in = reinterpret_cast<const In*>(p.in);
  for (int64_t w = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; w < p.rows * p.chunks;
       w += warps) {
    const int64_t row = w / p.chunks, chunk = w % p.chunks;
    const int64_t begin = chunk * chunk_len, end = begin + chunk_len < p.cols ? begin + chunk_len : p.cols;
    const In* r = in + row * p.cols;
    acc_t a = op.identity();
    for (int64_t j = begin + lane; j < end; j += 32) a = op.reduce(a, static_cast<input_t>(r[j]), j);
    a = warpCombine(op, a);
    if (lane != 0) continue;
    if (p.chunks == 1) {
      op.store(p, row, a);
    } else {
      static_cast<acc_t*>(p.scratch)[row * p.chunks + chunk] = a;
    }
  }
}

// Columns [cols, rows]: a block of 32 x 8 threads per (32 results, chunk); x picks the result
// (consecutive threads read consecutive elements), y strides the chunk, and the 8 partial
// results of each column are combined in order through shared memory.
constexpr int kColumnThreadsY = 8;

template <typename In, typename Op>
__global__ void reduceColumnsKernel(ReduceProblem p, Op op) {
  using acc_t = typename Op::acc_t;
  using input_t = typename Op::input_t;
  __shared__ alignas(16) unsigned char raw[kColumnThreadsY * 32 * sizeof(acc_t)];
  acc_t* partial = reinterpret_cast<acc_t*>(raw);
  const int64_t row = static_cast<int64_t>(blockIdx.x) * 32 + threadIdx.x;
  const int64_t chunk = blockIdx.y;
  const int64_t chunk_len = ceilDiv(p.cols, p.chunks);
  const int64_t begin = chunk * chunk_len, end = begin + chunk_len < p.cols ? begin + chunk_len : p.cols;
  const In* in = reinterpret_cast<const In*>(p.in);
  acc_t a = op.identity();
  if (row < p.rows) {
    for (int64_t j = begin + threadIdx.y; j < end; j += kColumnThreadsY) {
      a = op.reduce(a, static_cast<input_t>(in[j * p.rows + row]), j);
    }
  }
  partial[threadIdx.y * 32 + threadIdx.x] = a;
  __syncthreads();
  if (threadIdx.y != 0 || row >= p.rows) return;
  for (int y = 1; y < kColumnThreadsY; ++y) a = op.combine(a, partial[y * 32 + threadIdx.x]);
  if (p.chunks == 1) {
    op.store(p, row, a);
  } else {
    static_cast<acc_t*>(p.scratch)[row * p.chunks + chunk] = a;
  }
}

// The chunks of each row combined in order: a warp per row.
template <typename Op>
__global__ void combineChunksKernel(ReduceProblem p, Op op) {
  using acc_t = typename Op::acc_t;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / 32;
  const acc_t* scratch = static_cast<const acc_t*>(p.scratch);
  for (int64_t row = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; row < p.rows; row += warps) {
    // Each lane combines chunks lane, lane + 32, ...: in order within the lane, and the warp
    // combines lanes in order, so the chunks' order is kept where it matters (ties of indices
    // are settled by the index, not the order).
    acc_t a = op.identity();
    for (int64_t c = lane; c < p.chunks; c += 32) a = op.combine(a, scratch[row * p.chunks + c]);
    a = warpCombine(op, a);
    if (lane == 0) op.store(p, row, a);
  }
}

template <typename In, typename Op>
void run(const ReduceProblem& p, const Op& op, const char* name) {
  static_assert(sizeof(typename Op::acc_t) <= kReduceAccBytes, "kReduceAccBytes is too small");
  if (p.rows == 0) return;
  const cudaStream_t stream = currentStream();
  if (p.columns) {
    const dim3 grid(static_cast<unsigned>(ceilDiv(p.rows, 32)), static_cast<unsigned>(p.chunks));
    reduceColumnsKernel<In><<<grid, dim3(32, kColumnThreadsY), 0, stream>>>(p, op);
  } else {
    reduceRowsKernel<In><<<blocksFor(p.rows * p.chunks * 32), kThreads, 0, stream>>>(p, op);
  }
  checkLaunch(name);
  if (p.chunks > 1) {
    combineChunksKernel<<<blocksFor(p.rows * 32), kThreads, 0, stream>>>(p, op);
    checkLaunch(name);
  }
}

}  // namespace

void launchReduce(ReduceOp op, const char* name, ScalarType dtype, const ReduceProblem& problem,
                  const PointwiseArgs& args) {
  switch (op) {
    case ReduceOp::Sum:
      return OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kHalf, kBFloat16, kBool, dtype, name,
                                                        [&] { run<scalar_t>(problem, SumOp<scalar_t>{}, name); });
    case ReduceOp::Prod:
      return OPCORE_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(kHalf, kBFloat16, kBool, dtype, name,
                                                        [&] { run<scalar_t>(problem, ProdOp<scalar_t>{}, name); });
    case ReduceOp::Amax:
    case ReduceOp::MaxWithIndex:
      return OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, dtype, name,
                                            [&] { run<scalar_t>(problem, ExtremeOp<scalar_t, true>{op}, name); });
    case ReduceOp::Argmax:  // no Bool, as on the CPU and in PyTorch
      return OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, name,
                                            [&] { run<scalar_t>(problem, ExtremeOp<scalar_t, true>{op}, name); });
    case ReduceOp::Amin:
    case ReduceOp::MinWithIndex:
      return OPCORE_DISPATCH_ALL_TYPES_AND3(kHalf, kBFloat16, kBool, dtype, name,
                                            [&] { run<scalar_t>(problem, ExtremeOp<scalar_t, false>{op}, name); });
    case ReduceOp::Argmin:
      return OPCORE_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, dtype, name,
                                            [&] { run<scalar_t>(problem, ExtremeOp<scalar_t, false>{op}, name); });
    case ReduceOp::Any:
      return OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { run<scalar_t>(problem, AnyAllOp<scalar_t, true>{}, name); });
    case ReduceOp::All:
      return OPCORE_DISPATCH_EVERY_TYPE(dtype, name, [&] { run<scalar_t>(problem, AnyAllOp<scalar_t, false>{}, name); });
    case ReduceOp::Var:
      return OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] {
        run<scalar_t>(problem, VarOp<scalar_t>{args.scalars[0].toDouble(), args.flags[0]}, name);
      });
    case ReduceOp::Norm:
      return OPCORE_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, dtype, name, [&] {
        run<scalar_t>(problem, NormOp<scalar_t>{args.scalars[0].toDouble()}, name);
      });
  }
}

}  // namespace opcore::cuda
