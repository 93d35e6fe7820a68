"""opcore.nn.functional: the operators declared with `python_module: nn` in
yaml/native_functions.yaml (bound in opcore._C._nn), and Python functions where PyTorch's
torch.nn.functional has them (they call those operators)."""
import math
import warnings

import opcore
from opcore import _C, _ops

if hasattr(_C, "_nn"):
    from opcore._C._nn import *  # noqa: F401,F403


# ---- issue #34, activations: PyTorch's Python functions of torch/nn/functional.py (1.13), with its
# signatures and in-place behaviour; gelu is the generated operator itself (opcore._C._nn.gelu),
# as torch's is.


def relu(input, inplace=False):
    """relu(input, inplace=False) -> Tensor: max(input, 0) elementwise; in place on `input`
    when inplace=True."""
    return opcore.relu_(input) if inplace else opcore.relu(input)


def sigmoid(input):
    """sigmoid(input) -> Tensor: 1 / (1 + exp(-input)) elementwise."""
    return input.sigmoid()


def tanh(input):
    """tanh(input) -> Tensor: the hyperbolic tangent elementwise."""
    return input.tanh()


def silu(input, inplace=False):
    """silu(input, inplace=False) -> Tensor: input * sigmoid(input) elementwise (swish); in
    place on `input` when inplace=True."""
    return _C._nn.silu_(input) if inplace else _C._nn.silu(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """leaky_relu(input, negative_slope=0.01, inplace=False) -> Tensor: input where positive, else
    negative_slope * input."""
    if inplace:
        return _C._nn.leaky_relu_(input, negative_slope)
    return _C._nn.leaky_relu(input, negative_slope)


def hardtanh(input, min_val=-1., max_val=1., inplace=False):
    """hardtanh(input, min_val=-1., max_val=1., inplace=False) -> Tensor: input clamped to
    [min_val, max_val]."""
    if inplace:
        return _C._nn.hardtanh_(input, min_val, max_val)
    return _C._nn.hardtanh(input, min_val, max_val)


def elu(input, alpha=1.0, inplace=False):
    """elu(input, alpha=1.0, inplace=False) -> Tensor: input where positive, else
    alpha * (exp(input) - 1)."""
    if inplace:
        return _C._nn.elu_(input, alpha)
    return _C._nn.elu(input, alpha)


# torch.nn.functional's names for operators of the top-level namespace (torch.conv2d is
# F.conv2d), looked up when used, so that a selective build without them still imports.
_FROM_OPCORE = frozenset({"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                          "pixel_shuffle", "pixel_unshuffle"})


def __getattr__(name):
    if name in _FROM_OPCORE:
        return getattr(opcore, name)
    # As opcore's own (PEP 562): an operator a selective build left out says so.
    raise _ops.missing_attribute(__name__, name)


# Losses (issue #34): Python functions as PyTorch's, which take `reduction` as a string and
# check the batch before calling the generated operator (opcore._C._nn).

def _reduction_enum(reduction, size_average=None, reduce=None):
    """PyTorch's reduction strings as the operators' int (0 none, 1 mean, 2 sum); the legacy
    size_average / reduce pair, when given, decides as in PyTorch, with its warning."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                      "instead.", stacklevel=3)
    enums = {"none": 0, "mean": 1, "sum": 2}
    if reduction not in enums:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return enums[reduction]


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """The negative log likelihood loss of log-probabilities `input` ([N, C], [C] or
    [N, C, d1, ...]) for class indices `target`, as torch.nn.functional.nll_loss."""
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() != 1 and target.dim() != 0 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    return _C._nn.nll_loss(input, target, weight, _reduction_enum(reduction, size_average, reduce), ignore_index)

def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """The cross entropy of logits `input` and class indices or class probabilities `target`,
    as torch.nn.functional.cross_entropy (nll_loss of log_softmax for indices)."""
    return _C._nn.cross_entropy_loss(input, target, weight, _reduction_enum(reduction, size_average, reduce),
                                     ignore_index, label_smoothing)


# Pointwise losses (issue #34): torch.nn.functional's Python functions (1.13), which take the
# reduction as a string and warn when target's size differs from input's (the operators
# broadcast them).

def _warn_size_mismatch(input, target):
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({_size_str(target)}) that is different to the input size "
                      f"({_size_str(input)}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


def _size_str(t):
    # torch's message prints torch.Size([2, 3]); here the same list of sizes
    return str(list(t.size()))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The squared error of `input` and `target` (broadcast), averaged, summed or elementwise
    (reduction 'mean', 'sum', 'none'), as torch.nn.functional.mse_loss."""
    _warn_size_mismatch(input, target)
    return _C._nn.mse_loss(input, target, _reduction_enum(reduction, size_average, reduce))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The absolute error of `input` and `target`, reduced as mse_loss; as
    torch.nn.functional.l1_loss."""
    _warn_size_mismatch(input, target)
    return _C._nn.l1_loss(input, target, _reduction_enum(reduction, size_average, reduce))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """The smooth L1 loss (quadratic below `beta`, linear above; l1_loss for beta=0), as
    torch.nn.functional.smooth_l1_loss."""
    _warn_size_mismatch(input, target)
    enum = _reduction_enum(reduction, size_average, reduce)
    if beta == 0.0:
        return _C._nn.l1_loss(input, target, enum)
    return _C._nn.smooth_l1_loss(input, target, enum, beta)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """The Huber loss (quadratic below `delta`, delta-scaled linear above), as
    torch.nn.functional.huber_loss."""
    _warn_size_mismatch(input, target)
    return _C._nn.huber_loss(input, target, _reduction_enum(reduction), delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The binary cross entropy of probabilities `input` and `target` (each log clamped at -100),
    times `weight`, as torch.nn.functional.binary_cross_entropy: target must have input's size."""
    enum = _reduction_enum(reduction, size_average, reduce)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({_size_str(target)}) that is different to the input size "
                         f"({_size_str(input)}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(opcore.broadcast_shapes(tuple(target.size()), tuple(weight.size())))
    return _C._nn.binary_cross_entropy(input, target, weight, enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """The binary cross entropy of logits `input` (sigmoid's, computed stably) and `target`, with
    `weight` and `pos_weight` (the positive examples' weight), as
    torch.nn.functional.binary_cross_entropy_with_logits."""
    enum = _reduction_enum(reduction, size_average, reduce)
    if target.size() != input.size():
        raise ValueError(f"Target size ({_size_str(target)}) must be the same as input size ({_size_str(input)})")
    return opcore.binary_cross_entropy_with_logits(input, target, weight, pos_weight, enum)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """The Kullback-Leibler divergence of log-probabilities `input` from `target`, as
    torch.nn.functional.kl_div: 'batchmean' divides the sum by the batch size; 'mean' (the mean
    over every element) warns, as torch's."""
    if size_average is not None or reduce is not None:
        enum = _reduction_enum(reduction, size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        enum = _reduction_enum("sum" if reduction == "batchmean" else reduction)
    reduced = opcore.kl_div(input, target, enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


# one_hot, pad (the generated operators, as torch's) and normalize (issue #34).

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """`input` divided by its p-norm along `dim` (at least `eps`), as torch.nn.functional.normalize
    composes it (norm, clamp_min, expand_as, div)."""
    norm = input.norm(p, dim, keepdim=True)
    if out is None:
        return input / norm.clamp_min(eps).expand_as(input)
    return opcore.div(input, norm.clamp_min_(eps).expand_as(input), out=out)


# Softmax family (issue 34): torch.nn.functional's Python functions.

def _get_softmax_dim(name, ndim, stacklevel):
    """PyTorch's implicit dimension for dim=None (deprecated there too, with this warning): 0
    for 0-, 1- and 3-dimensional inputs, else 1."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                   "Change the call to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along `dim` (opcore.softmax); `dtype` converts the input first. As
    torch.nn.functional.softmax, dim=None picks a dimension with a DeprecationWarning-style
    UserWarning."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input) along `dim`, as torch.nn.functional.softmin."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim) if dtype is None else (-input).softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along `dim`, computed stably (opcore.log_softmax); as
    torch.nn.functional.log_softmax."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)



# Embedding, dropout and attention (issue 34): torch.nn.functional's Python functions over the
# generated operators (opcore.embedding, opcore.dropout, opcore._C._nn.scaled_dot_product_attention).

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """The rows of `weight` ([num_embeddings, embedding_dim]) at the indices `input`, as
    torch.nn.functional.embedding: `padding_idx` (negative counts from the end) takes no
    gradient, `max_norm` first rescales, in place and without recording it, each row `input`
    names whose `norm_type`-norm exceeds it."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        with opcore.no_grad():
            rows = opcore.unique(input.reshape(-1))
            norms = weight.index_select(0, rows).norm(norm_type, 1, True)
            scale = opcore.where(norms > max_norm, max_norm / (norms + 1e-7), opcore.ones_like(norms))
            weight[rows] = weight.index_select(0, rows) * scale
    return opcore.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability `p` and scales the rest by 1 / (1 - p) when
    `training` (opcore.dropout, native_dropout's mask), as torch.nn.functional.dropout; the
    draws come from the default generator (reproducible under opcore.manual_seed)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return opcore.dropout_(input, p, training) if inplace else opcore.dropout(input, p, training)


# Convolution and pooling (issue 34): conv1d ... conv_transpose3d are the generated operators
# themselves (opcore.conv2d), as torch's are; __getattr__ above finds them.


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window of a [N, C, H, W] or [C, H, W] input, as
    torch.nn.functional.max_pool2d (`stride` defaults to `kernel_size`); with return_indices,
    also each maximum's index in its H * W plane."""
    stride = [] if stride is None else stride
    if return_indices:
        return _C._nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return opcore.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


# ---- average pooling (issue #34): torch.nn.functional's (1.13) names, signatures and defaults;
# `stride=None` is the kernel, as in torch.


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window of a [N, C, H, W] or [C, H, W] input, as
    torch.nn.functional.avg_pool2d: windows `stride` apart (the kernel when None), on the input
    padded by `padding` zeros, each sum divided by `divisor_override` or the window's size
    (counting the padding when count_include_pad)."""
    stride = [] if stride is None else stride
    return _C._nn.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """The mean of each window of a [N, C, L] or [C, L] input (opcore.avg_pool1d: avg_pool2d
    of a [N, C, 1, L] view), as torch.nn.functional.avg_pool1d."""
    stride = [] if stride is None else stride
    return opcore.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def _list_with_default(out_size, defaults):
    # an output size of an adaptive pooling: None entries are the input's sizes there
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError("Input dimension should be at least {}".format(len(out_size) + 1))
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def adaptive_avg_pool2d(input, output_size):
    """The mean of output_size windows covering each H x W plane of a [N, C, H, W] or
    [C, H, W] input, as torch.nn.functional.adaptive_avg_pool2d; output_size is an int or a
    pair, None keeping the input's size."""
    return _C._nn.adaptive_avg_pool2d(input, _list_with_default(output_size, list(input.shape)))


def adaptive_avg_pool1d(input, output_size):
    """The mean of output_size windows covering each row of a [N, C, L] or [C, L] input
    (opcore.adaptive_avg_pool1d), as torch.nn.functional.adaptive_avg_pool1d."""
    return opcore.adaptive_avg_pool1d(input, output_size)


# ---- 3-d pooling (issue #34): torch.nn.functional's (1.13) names, signatures and defaults.


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window of a [N, C, D, H, W] or [C, D, H, W] input, as
    torch.nn.functional.avg_pool3d (avg_pool2d's arguments with a depth)."""
    stride = [] if stride is None else stride
    return _C._nn.avg_pool3d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool3d(input, output_size):
    """The mean of output_size windows covering each D x H x W volume of a [N, C, D, H, W] or
    [C, D, H, W] input, as torch.nn.functional.adaptive_avg_pool3d; output_size is an int or a
    triple, None keeping the input's size."""
    return _C._nn.adaptive_avg_pool3d(input, _list_with_default(output_size, list(input.shape)))


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window of a [N, C, D, H, W] or [C, D, H, W] input, as
    torch.nn.functional.max_pool3d (`stride` defaults to `kernel_size`); with return_indices,
    also each maximum's index in its D * H * W volume."""
    stride = [] if stride is None else stride
    if return_indices:
        return _C._nn.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return opcore.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


# ---- normalization (issue #34): torch.nn.functional's Python functions (1.13).

def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Layer normalization over the last len(normalized_shape) dimensions (opcore.layer_norm),
    as torch.nn.functional.layer_norm: each slice minus its mean, over sqrt(its biased variance
    + eps), times `weight` plus `bias`."""
    return opcore.layer_norm(input, normalized_shape, weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Batch normalization per channel (dimension 1) of `input`, as
    torch.nn.functional.batch_norm: in training with the batch's statistics, updating
    `running_mean` and `running_var` (if given) in place by `momentum` (the unbiased variance);
    in evaluation with the running statistics."""
    if training:
        size = input.size()
        values = size[0]
        for d in size[2:]:
            values *= d
        if values == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    return opcore.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalization (opcore.group_norm), as torch.nn.functional.group_norm: the channels
    of each sample in `num_groups` groups, each normalized by its own mean and variance, then
    times `weight` plus `bias` (per channel)."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    values = input.size(0) * input.size(1) // num_groups
    for d in input.size()[2:]:
        values *= d
    if values == 1:
        size = [input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:])
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    return opcore.group_norm(input, num_groups, weight, bias, eps, True)


# ---- sliding blocks (issue #34): unfold and fold, as torch.nn.functional's (PyTorch 2's, which
# also take unbatched inputs), on the generated im2col and col2im.

def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of a [N, C, H, W] (or [C, H, W]) input as columns, [N, C * kh * kw, L]
    (opcore._C._nn.im2col), as torch.nn.functional.unfold."""
    if input.dim() not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.dim()}D)")
    return _C._nn.im2col(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """unfold's adjoint: columns [N, C * kh * kw, L] (or [C * kh * kw, L]) added into the blocks
    of a [N, C, *output_size] image they name (opcore._C._nn.col2im), as
    torch.nn.functional.fold."""
    if input.dim() not in (2, 3):
        raise NotImplementedError("Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
                                  f"(got {input.dim()}D)")
    return _C._nn.col2im(input, output_size, kernel_size, dilation, padding, stride)


# ---- upsampling (issue #34): torch.nn.functional.interpolate (1.13) for the modes opcore has
# operators for ("nearest" and "bilinear" of a [N, C, H, W] input); the output size and the
# scales passed to the kernel are computed as PyTorch's `.vec` overloads compute them.

_INTERPOLATE_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """Resizes a [N, C, H, W] input to `size` or by `scale_factor` (one of them), as
    torch.nn.functional.interpolate: mode "nearest" (upsample_nearest2d) or "bilinear"
    (upsample_bilinear2d, `align_corners` default False); `recompute_scale_factor` makes the
    kernel use the sizes' ratio instead of the given scale. Other modes and ranks raise
    NotImplementedError naming what is missing."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {spatial} and output size of {size}. Please provide "
                                 "input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                                 "format.")
            output_size = list(size)
        else:
            output_size = [size] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {spatial} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = [float(s) for s in scale_factor]
        else:
            scale_factors = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or (mode == "area" and output_size is None):
        output_size = [math.floor(float(input.size(i + 2)) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError("Anti-alias option is only supported for bilinear and bicubic modes")
    if mode not in _INTERPOLATE_MODES:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
                                  f"(got {mode})")
    if input.dim() == 4 and mode in ("nearest", "bilinear") and not antialias:
        # the .vec overloads (scale_factors= picks them): the size from the scales, truncated
        if mode == "nearest":
            return _C._nn.upsample_nearest2d(input, output_size, scale_factors=scale_factors)
        return _C._nn.upsample_bilinear2d(input, output_size, align_corners, scale_factors=scale_factors)
    needs = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
    if mode in needs and input.dim() in (3, 4, 5) and input.dim() != needs[mode]:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {needs[mode]}D input")
    if input.dim() not in (3, 4, 5):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact "
                                  f"(got {mode})")
    what = f"mode \"{mode}\"" + (" with antialias" if antialias else "") + f" of a {input.dim()}D input"
    raise NotImplementedError(f"interpolate: {what} is not implemented in opcore yet (only \"nearest\" and "
                              "\"bilinear\" of 4D inputs: upsample_nearest2d, upsample_bilinear2d)")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate, as torch's (with its warning)."""
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode="nearest"), as torch's (with its warning)."""
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode="bilinear", align_corners=True), as torch's (with its
    warning)."""
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- grid sampling (issue #34): torch.nn.functional.grid_sample (1.13) on grid_sampler -------------

_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """`input` [N, C, H, W] read at the points of `grid` [N, H_out, W_out, 2] (x, y in [-1, 1]),
    as torch.nn.functional.grid_sample: `mode` "bilinear", "nearest" or "bicubic",
    `padding_mode` "zeros", "border" or "reflection" for points outside; `align_corners` (default
    False, with torch's warning when not given) puts -1 and 1 at the corner pixels' centres
    instead of their outer edges. 5-d inputs (grid_sampler_3d) are not in opcore yet."""
    if mode not in _GRID_MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in _GRID_PADDING_MODES:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.")
        align_corners = False
    return opcore.grid_sampler(input, grid, _GRID_MODES[mode], _GRID_PADDING_MODES[padding_mode], align_corners)


# Distances (issue #34): torch.nn.functional.pdist is torch.pdist, the operator.


def pdist(input, p=2.0):
    """The p-norm distances between each pair of rows i < j of the 2-D input, [N (N - 1) / 2], as
    torch.nn.functional.pdist."""
    return _C.pdist(input, p)


# ---- embedding bags (issue #34): torch.nn.functional.embedding_bag (1.13) on opcore.embedding_bag.

_EMBEDDING_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The sums, means or maxima ("sum", "mean", "max") of bags of rows of `weight`, as
    torch.nn.functional.embedding_bag: a 1-D `input` of indices split into bags at `offsets`
    (with `include_last_offset`, the last offset closes the last bag), or a 2-D `input` whose
    rows are the bags (no `offsets`); `per_sample_weights` (sum mode only) scales each row;
    rows at `padding_idx` (negative counts from the end) are left out; `max_norm` first
    rescales, in place and without recording it, the rows `input` names."""
    if weight.dtype == opcore.long and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.")
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must "
                         f"have the same shape as the input ({input.shape})")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = opcore.arange(0, input.numel(), input.size(1), dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _EMBEDDING_BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        with opcore.no_grad():
            rows = opcore.unique(input)
            norms = weight.index_select(0, rows).norm(norm_type, 1, True)
            scale = opcore.where(norms > max_norm, max_norm / (norms + 1e-7), opcore.ones_like(norms))
            weight[rows] = weight.index_select(0, rows) * scale
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    ret, _, _, _ = opcore.embedding_bag(weight, input, offsets, scale_grad_by_freq, _EMBEDDING_BAG_MODES[mode], sparse,
                                        per_sample_weights, include_last_offset, padding_idx)
    return ret
