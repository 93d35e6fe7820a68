// The boundary between the CUDA kernels (CudaKernels.cu, compiled by nvcc) and the opcore
// kernels that call them (CudaOps.cpp, compiled by the C++ compiler). Only plain types, the
// element types (ScalarType.h and Scalar.h, written for both compilers: Half, BFloat16 and
// complex<T> are OPCORE_HOST_DEVICE) and the offsets of strided operands
// (common/OffsetCalculator.h) cross it; nvcc parses no other opcore header.
#pragma once

#include <opcore/core/Scalar.h>
#include <opcore/core/ScalarType.h>

#include <common/DynamicCast.h>
#include <common/OffsetCalculator.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace opcore::native {
struct GridShape;  // common/pointwise/GridSampler.h
}  // namespace opcore::native

namespace opcore::cuda {

// The operands of an elementwise kernel: operand 0 is the result, and element i of the
// result's row-major order is at data[k] + offset k of OffsetCalculator (broadcast inputs
// stride 0), of dtype dtypes[k]. CudaOps.cpp builds them from tensors.
template <int N>
struct StridedOperands {
  char* data[N] = {};
  ScalarType dtypes[N] = {};
  int64_t element_sizes[N] = {};
  native::OffsetCalculator<N> offsets;
  int64_t numel = 0;
  bool contiguous = false;  // every operand dense, in index order: data[k] + i * element_sizes[k]
};

// Note [CUDA pointwise operations]
// The pointwise operators cross to the .cu files as an operation code, the dtype to compute in
// (the one the CPU kernel computes in: the promoted dtype, or its floating type), the
// operands and the scalar arguments. Each enum below names the operations of one arity; a
// CUDA kernel in kernels/cuda/CudaPointwise.cpp calls the launcher of its arity with its code,
// and the launcher (CudaUnaryKernels.cu, CudaBinaryKernels.cu, CudaTernaryKernels.cu)
// instantiates the element function of kernels/common/pointwise/*.h for every dtype the CPU
// kernel takes, complex ones included.
enum class UnaryOp {
  // floating functions: integral and bool inputs give the default float dtype
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Exp, Exp2, Expm1, Log, Log2, Log10, Log1p,
  Sqrt, Rsqrt, Reciprocal, Sigmoid, Tanh, Erf, Erfinv, Gelu, Silu, Elu,
  // the input's dtype
  Neg, Abs, Sign, Sgn, Ceil, Floor, Trunc, Round, RoundDecimals, Frac, BitwiseNot, Relu, NanToNum, LeakyRelu,
  Hardtanh, Clamp, PowScalar, ConjPhysical,
  // the real dtype (of a complex input)
  Angle,
  // a bool result
  LogicalNot, Isnan, Isinf, EqScalar, NeScalar, LtScalar, LeScalar, GtScalar, GeScalar,
};
enum class BinaryOp {
  Add, Sub, Mul, Div, DivTrunc, DivFloor, Maximum, Minimum, Atan2, Hypot, Copysign, BitwiseAnd, BitwiseOr,
  BitwiseXor, ShiftLeft, ShiftRight, Fmod, Remainder, Pow, Lerp,
  SigmoidBackward, TanhBackward, GeluBackward, SiluBackward, LeakyReluBackward, EluBackward, HardtanhBackward,
  DropoutBackward,
  // the pointwise losses, elementwise (kernels/common/pointwise/Loss.h)
  MseLoss, SmoothL1Loss, HuberLoss, BinaryCrossEntropy,
  // a bool result
  Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor,
};
enum class TernaryOp {
  Where, ClampTensor, LerpTensor, Addcmul, Addcdiv,
  // the losses' gradients of (grad_output, self, target), and the loss of (self, target, pos_weight)
  MseLossBackward, SmoothL1LossBackward, HuberLossBackward, BinaryCrossEntropyBackward, BinaryCrossEntropyWithLogits,
};

// What an operation takes besides its tensors, by operation: add and sub: scalars[0] alpha;
// clamp: scalars[0] min if flags[0], scalars[1] max if flags[1]; clamp_min / clamp_max and
// the comparisons with a number: scalars[0]; pow: scalars[0] the exponent; lerp: scalars[0]
// the weight; addcmul / addcdiv: scalars[0] value; leaky_relu (and backward): scalars[0] the
// slope; elu: scalars[0..2] alpha, scale, input_scale, and for its backward flags[0] whether
// the second tensor is the result; hardtanh (and backward): scalars[0..1] min, max;
// nan_to_num: scalars[0..2] nan, posinf, neginf, flags[0..1] whether posinf, neginf are given;
// native_dropout_backward: scalars[0] the scale; round: integer the decimals; gelu (and
// backward): flags[0] the tanh approximation; smooth_l1_loss: scalars[0] beta; huber_loss:
// scalars[0] delta; the losses' gradients: scalars[0] the scale (1, or 1 / n for the mean),
// scalars[1] beta or delta; binary_cross_entropy_with_logits: flags[0] whether pos_weight is
// given (else operand 3 is not read).
struct PointwiseArgs {
  Scalar scalars[3];
  int64_t integer = 0;
  bool flags[2] = {false, false};
};

// Launch `op` over `ops` (operand 0 the result; inputs of any dtype, read as `dtype`), computed
// in `dtype` (opmath_t of it). `name` is the operator's, for errors: a dtype the operation
// does not take raises PyTorch's NotImplementedError naming it.
void launchUnary(UnaryOp op, const char* name, ScalarType dtype, const StridedOperands<2>& ops,
                 const PointwiseArgs& args = {});
void launchBinary(BinaryOp op, const char* name, ScalarType dtype, const StridedOperands<3>& ops,
                  const PointwiseArgs& args = {});
void launchTernary(TernaryOp op, const char* name, ScalarType dtype, const StridedOperands<4>& ops,
                   const PointwiseArgs& args = {});

// Note [CUDA reductions]
// A reduction reaches the GPU as rows: each result reduces `cols` elements. The input is
// contiguous, either [rows, cols] (the reduced dimensions innermost: CudaReduce.cpp permutes
// and copies the input when they are not) or [cols, rows] (`columns`: the reduced dimensions
// outermost in a contiguous input, sum(dim=0) of a matrix, read as it is). A row or a column
// that is long for the number of results is cut into `chunks` reduced separately into
// `scratch`, then combined: reduceChunks decides, so that the host can allocate the scratch.
// Every element carries its index in the row, so the argument reductions return the first
// index of the extreme (Note [NaN in reductions and sorts] in common/pointwise/Reduce.h) however
// the work was cut.
enum class ReduceOp { Sum, Prod, Amax, Amin, MaxWithIndex, MinWithIndex, Argmax, Argmin, Any, All, Var, Norm };

struct ReduceProblem {
  const char* in = nullptr;     // contiguous elements of the input dtype
  int64_t rows = 1;             // results
  int64_t cols = 1;             // elements reduced into each
  bool columns = false;         // in is [cols, rows], else [rows, cols]
  char* out = nullptr;          // rows results, contiguous (reduceResultType's dtype)
  int64_t* indices = nullptr;   // MaxWithIndex, MinWithIndex: rows indices, contiguous
  char* means = nullptr;        // Var: rows means in the input's dtype, or null
  int64_t chunks = 1;           // reduceChunks(rows, cols, columns)
  void* scratch = nullptr;      // chunks > 1: rows * chunks * kReduceAccBytes bytes
};

constexpr int64_t kReduceAccBytes = 32;  // the largest accumulator of any ReduceOp

OPCORE_HOST_DEVICE inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// How many pieces each row (or column) is cut into: enough for a few thousand warps (rows)
// or blocks (columns) over the whole GPU, no piece shorter than a few hundred elements.
inline int64_t reduceChunks(int64_t rows, int64_t cols, bool columns) {
  if (rows == 0 || cols == 0) return 1;
  const int64_t chunks = columns ? std::min(ceilDiv(cols, 64), ceilDiv(2048, ceilDiv(rows, 32)))
                                 : std::min(ceilDiv(cols, 2048), ceilDiv(16384, rows));
  return std::max<int64_t>(1, std::min<int64_t>(chunks, 65535));
}

// The dtype of a reduction's results over input elements of dtype `in`: Long for the argument
// reductions, Bool for any / all, the real value type for var and the norms, `in` otherwise.
inline ScalarType reduceResultType(ReduceOp op, ScalarType in) {
  switch (op) {
    case ReduceOp::Argmax:
    case ReduceOp::Argmin: return ScalarType::Long;
    case ReduceOp::Any:
    case ReduceOp::All: return ScalarType::Bool;
    case ReduceOp::Var:
    case ReduceOp::Norm: return toRealValueType(in);
    default: return in;
  }
}

// Reduces over elements of dtype `dtype` (sum and prod: already the result's dtype). args:
// Var: scalars[0] the correction, flags[0] std (the square root); Norm: scalars[0] the order p.
void launchReduce(ReduceOp op, const char* name, ScalarType dtype, const ReduceProblem& problem,
                  const PointwiseArgs& args = {});

// softmax (log: log_softmax) of `rows` contiguous rows of `len` elements of `dtype` into rows of
// `out_dtype` (dtype, or float for half_to_float), and its gradient from the gradient of the
// result and the result (dtype) into rows of out_dtype; computed in opmath_t<dtype>.
void launchSoftmax(bool log, const char* name, ScalarType dtype, ScalarType out_dtype, const char* x, char* y,
                   int64_t rows, int64_t len);
void launchSoftmaxBackward(bool log, const char* name, ScalarType dtype, ScalarType out_dtype, const char* grad,
                           const char* y, char* grad_input, int64_t rows, int64_t len);

// nll_loss over `batch` rows of `classes` log-probabilities x (dtype) with Long targets and an
// optional weight per class (dtype, contiguous): reduction None (per_element) writes batch
// losses into out and 0 into total_weight, the others the sum (or mean) and the sum of the
// weights, accumulated in double. The backward writes -weight[c] * grad (divided by
// total_weight for the mean) at each target of the zeroed grad_input. The targets are checked
// before (CudaLoss.cpp); ignore_index, and any other outside the classes, is skipped.
struct NllLossProblem {
  const char* x = nullptr;
  const int64_t* target = nullptr;
  const char* weight = nullptr;
  int64_t batch = 0, classes = 0, ignore_index = -100, reduction = 1;
  bool per_element = false;
};
void launchNllLoss(ScalarType dtype, const NllLossProblem& p, char* out, char* total_weight);
void launchNllLossBackward(ScalarType dtype, const NllLossProblem& p, const char* grad, const char* total_weight,
                           char* grad_input);

// layer_norm over M contiguous rows of N elements x (dtype): y = (x - mean) * rstd * w + b
// (weight, bias: N values of opmath_t<dtype>, or null), mean and rstd per row (dtype). The
// backward: dx (or null) from dy, x, the saved mean and rstd (opmath_t<dtype>) and the
// weight; dw, db (or null) summed over the rows.
struct LayerNormProblem {
  int64_t M = 0, N = 0;
  const char* x = nullptr;
  const void* weight = nullptr;
  const void* bias = nullptr;
};
void launchLayerNorm(ScalarType dtype, const LayerNormProblem& p, double eps, char* y, char* mean, char* rstd);
void launchLayerNormBackward(ScalarType dtype, const LayerNormProblem& p, const char* dy, const void* mean,
                             const void* rstd, char* dx, char* dw, char* db);

// arange: n values start + i * step into out (elements `stride` apart): in int64 arithmetic
// when every argument is integral, else in double, each from the start (as the CPU's).
void launchArange(ScalarType dtype, char* out, int64_t stride, int64_t n, bool integral, int64_t start_i,
                  int64_t step_i, double start_d, double step_d);

// cumsum (sum) or cumprod of `in`, contiguous [outer, len, inner] elements of `dtype`, along
// its middle dimension into out (contiguous, the same shape and dtype), accumulating in
// ScanAcc<dtype> as the CPU kernels (common/pointwise/Scan.h).
struct ScanProblem {
  const char* in = nullptr;
  char* out = nullptr;
  int64_t outer = 1, len = 1, inner = 1;
};
void launchScan(bool sum, const char* name, ScalarType dtype, const ScanProblem& p);

// tril (lower) or triu of the matrices in the last two dimensions (rows x cols) of operand 1
// into operand 0 (both `dtype`): each element kept or zeroed by common/pointwise/Shape.h's
// trilKeeps / triuKeeps.
void launchTriangle(ScalarType dtype, bool lower, int64_t diagonal, int64_t rows, int64_t cols,
                    const StridedOperands<2>& ops);
// linspace: `steps` (> 1) values from start to end into out (elements `stride` apart), each
// the CPU's (common/pointwise/Shape.h's linspaceValue).
void launchLinspace(ScalarType dtype, char* out, int64_t stride, int64_t steps, const Scalar& start,
                    const Scalar& end);

// A pooling window (common/Pooling.h's Pool2d as plain values; a 2-d pooling is a 3-d one of
// depth 1) over `planes` contiguous planes of depth x height x width elements.
struct PoolWindow {
  int64_t kd = 1, kh = 1, kw = 1, sd = 1, sh = 1, sw = 1, pd = 0, ph = 0, pw = 0, dd = 1, dh = 1, dw = 1;
  int64_t planes = 0, depth = 1, height = 1, width = 1, out_depth = 1, out_height = 1, out_width = 1;
};
// max_pool2d / max_pool3d_with_indices: each output the maximum of its window of `in` (dtype,
// contiguous planes) into out (dtype) and its index within the plane into indices, as the CPU
// kernel: a larger value or a NaN replaces the maximum, and a window of -inf gives its first
// element's index.
void launchMaxPool(ScalarType dtype, const char* name, const PoolWindow& w, const char* in, char* out,
                   int64_t* indices);

// sort: `rows` contiguous rows of `len` elements of `dtype`, each sorted (stable; descending:
// larger first, NaN first) into values (dtype) and indices (Long, positions in the row), both
// [rows, len] contiguous; the keys are the CPU's (common/pointwise/Sort.h). `scratch` holds
// rows * sortSpan(len) (key, index) pairs of kSortPairBytes each.
constexpr int64_t kSortPairBytes = 16;
inline int64_t sortSpan(int64_t len) {
  int64_t span = 1;
  while (span < len) span <<= 1;
  return span;
}
// `name`: the operator named when the dtype is refused (complex: none has an order).
void launchSort(const char* name, ScalarType dtype, const char* in, int64_t rows, int64_t len, bool descending,
                void* scratch, char* values, int64_t* indices);

// Average pooling over w's planes: avg_pool2d / avg_pool3d (the window of w,
// count_include_pad, divisor_override: 0 for none) or, `adaptive`, _adaptive_avg_pool2d / 3d
// (w's output sizes, the adaptive windows); common/pointwise/Pooling.h's windows. The forward
// writes out (dtype); the backward adds each output's share of grad_output (dtype) over its
// window into `sums` (zeroed, of opmath_t<dtype>), in the GPU's order.
struct AvgPoolProblem {
  PoolWindow w;
  bool adaptive = false;
  bool count_include_pad = true;
  int64_t divisor_override = 0;
};
void launchAvgPool(ScalarType dtype, const char* name, const AvgPoolProblem& p, const char* in, char* out);
void launchAvgPoolBackward(ScalarType dtype, const char* name, const AvgPoolProblem& p, const char* grad_output,
                           void* sums);

// index_select of contiguous data viewed as [outer, size, inner] elements of element_size
// bytes: dst[a, i, b] = src[a, index[i], b] for the n indices (Long, contiguous, checked
// before by launchCheckIndices; one outside [0, size) writes zeros).
struct IndexSelectProblem {
  const char* src = nullptr;
  char* dst = nullptr;
  const int64_t* index = nullptr;
  int64_t outer = 1, size = 0, n = 0, inner = 1, element_size = 1;
};
void launchIndexSelect(const IndexSelectProblem& p);

// Note [CUDA gather and scatter]
// gather, the scatters, index_add, index_fill_, take, put_, index.Tensor and index_put_ reach
// the GPU as one problem: walk the positions p of a shape, where operand 0 is the written
// tensor, operand 1 the read one (stride 0 everywhere for one value) and operand 2 the Long
// indices, each at its OffsetCalculator offset for p (0 where it does not move). The indexed
// side, the read one for Gather and the written one for the others, moves by index[p] *
// index_stride bytes more, an index wrapped first (a negative one counts from `bound`, when
// `wrap`). The indices are checked before (launchCheckIndices), so that a bad one raises
// before anything is written; the kernel still skips one outside [0, bound). Assign stores
// (of elements that meet, one wins: which is the GPU's choice); the reductions combine
// atomically with the element already there (common/pointwise/Indexing.h's functors;
// AddScaled: + alpha * src, index_add's), in an order that is the GPU's.
enum class IndexedOp { Gather, Assign, Add, Multiply, Max, Min, AddScaled };

struct IndexedProblem {
  StridedOperands<3> ops;
  int64_t index_stride = 0;
  int64_t bound = 0;
  bool wrap = false;
};
// `dtype` is that of operands 0 and 1; `alpha` AddScaled's factor. A dtype the operation does
// not take raises PyTorch's NotImplementedError naming `name`: Max and Min take no complex
// dtype, and Multiply no complex<double> (no atomic operation is wide enough).
void launchIndexed(IndexedOp op, const char* name, ScalarType dtype, const IndexedProblem& p,
                   const Scalar& alpha = Scalar(1));
// The positions of the true elements among n contiguous flags, in order: out[positions[i] - 1]
// = i for every i whose flag is set, positions being the flags' inclusive prefix sums (cumsum).
void launchCompact(const bool* flags, const int64_t* positions, int64_t n, int64_t* out);
// Sets *bad to 1 when one of the n contiguous indices lies outside [0, bound) (wrapped first,
// when `wrap`, as launchIndexed's).
void launchCheckIndices(const int64_t* index, int64_t n, int64_t bound, bool wrap, int* bad);

// embedding_dense_backward: sums[idx[i], :] += grad[i, :] * scale for the n rows of `dim`
// elements of grad (dtype, contiguous), skipping padding_idx; scale is 1, or, with
// scale_by_freq, 1 / the number of times the row is named (counted into `counts`, num_weights
// int64 zeros). sums (opmath_t<dtype>, zeroed) is [num_weights, dim]. The indices are
// checked before by launchCheckIndices (one outside [0, num_weights) is skipped).
struct EmbeddingBackwardProblem {
  const char* grad = nullptr;
  const int64_t* index = nullptr;
  int64_t n = 0, dim = 0, num_weights = 0, padding_idx = -1;
  bool scale_by_freq = false;
  int64_t* counts = nullptr;
  void* sums = nullptr;
};
void launchEmbeddingBackward(ScalarType dtype, const EmbeddingBackwardProblem& p);

// _embedding_bag's output [num_bags, dim] (dtype, contiguous) from the weight's rows (dtype,
// strides in elements) named by idx (checked before), bag b holding idx[ends[b]] ..
// idx[ends[b + 1] - 1]: mode 0 the sum (each row times its per-sample weight, when given), 1
// the mean, 2 the maximum and its row per column into maxima [num_bags, dim]; padding_idx
// skipped, an empty bag 0 (and row 0).
struct EmbeddingBagProblem {
  const char* weight = nullptr;
  int64_t row_stride = 0, col_stride = 1;
  const int64_t* idx = nullptr;
  const int64_t* ends = nullptr;
  const char* per_sample_weights = nullptr;
  int64_t num_bags = 0, dim = 0, padding_idx = -1, mode = 0;
  char* out = nullptr;
  int64_t* maxima = nullptr;
};
void launchEmbeddingBag(ScalarType dtype, const EmbeddingBagProblem& p);

// The p-norm distances over contiguous float or double operands (common/Distance.h's loops):
// cdist [batch, r1, r2] of x1 [batch, r1, m] and x2 [batch, r2, m] and its gradient [batch,
// r1, m] from grad and the distances; pdist [r1 (r1 - 1) / 2] of the pairs of rows of
// x [r1, m] and its gradient [r1, m]. m > 0.
struct DistanceProblem {
  int64_t batch = 1, r1 = 0, r2 = 0, m = 0;
  double p = 2;
};
void launchCdist(ScalarType dtype, const DistanceProblem& d, const char* x1, const char* x2, char* out);
void launchCdistBackward(ScalarType dtype, const DistanceProblem& d, const char* grad, const char* x1,
                         const char* x2, const char* cdist, char* out);
void launchPdist(ScalarType dtype, const DistanceProblem& d, const char* x, char* out);
void launchPdistBackward(ScalarType dtype, const DistanceProblem& d, const char* grad, const char* x,
                         const char* pdist, char* out);

// grid_sampler_2d of contiguous input [batch, channels, height, width] at the contiguous grid's
// points [batch, out_height, out_width, 2] into out [batch, channels, out_height, out_width]
// (all `dtype`), and its backward: the input's gradient added into input_sums (zeroed,
// opmath_t<dtype>, input's shape; null when not wanted) and the grid's written into grad_grid.
void launchGridSampler(ScalarType dtype, const native::GridShape& s, const char* input, const char* grid, char* out);
void launchGridSamplerBackward(ScalarType dtype, const native::GridShape& s, const char* grad_output,
                               const char* input, const char* grid, void* input_sums, char* grad_grid);

// The random kernels (CudaRandomKernels.cu): a Philox stream (Note [Philox generator]) whose
// blocks from `offset` on the CPU's kernels would use for the same call, and the n contiguous
// elements of out they fill: uniform in [from, to), normal, random_, bernoulli, and
// native_dropout's output and mask (kept with probability `keep`, scaled by 1 / keep).
struct RandomStream {
  uint64_t seed = 0;
  uint64_t offset = 0;
};
void launchUniform(ScalarType dtype, const RandomStream& s, char* out, int64_t n, double from, double to);
void launchNormal(ScalarType dtype, const RandomStream& s, char* out, int64_t n, double mean, double stddev);
// bernoulli: with `probabilities` (n contiguous doubles), element i's is probabilities[i], else p.
void launchBernoulli(ScalarType dtype, const RandomStream& s, char* out, int64_t n, double p,
                     const double* probabilities = nullptr);
// random_: from + (element i's 64 bits scaled into [0, span)), span 0 meaning 2^64.
void launchRandom(ScalarType dtype, const RandomStream& s, char* out, int64_t n, int64_t from, uint64_t span);
void launchDropout(ScalarType dtype, const RandomStream& s, const char* in, char* out, bool* mask, int64_t n,
                   double keep);
// multinomial with replacement: sample k of row r (out [rows, samples]) is the first category
// of positive weight (weights, running: [rows, categories] doubles, the weights and their
// running sums) whose running sum exceeds u * the row's sum, u the uniform of element
// r * samples + k, and at most the row's last_positive category.
void launchMultinomial(const RandomStream& s, const double* weights, const double* running,
                       const int64_t* last_positive, int64_t rows, int64_t categories, int64_t samples, int64_t* out);

// out = value.
void launchFill(ScalarType t, const StridedOperands<1>& ops, const Scalar& value);
// out = a, converted to out's dtype t, any strides (a device-to-device copy_ that no memcpy does).
void launchCopy(ScalarType t, const StridedOperands<2>& ops);

// From CudaRuntime.cpp: the cudaStream_t of the calling thread's current stream on its current
// GPU, which every kernel launches on (nullptr: the GPU's default stream), and the check after
// a launch, which throws opcore::Error naming `op` (cudaGetLastError).
void* currentStreamHandle();
void checkLaunch(const char* op);

}  // namespace opcore::cuda
