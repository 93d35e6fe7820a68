"""Every operator's CUDA kernel against its CPU kernel (issue 35), from the operator table of
tests/python/opinfo.py: a row runs on the GPU when each overload it covers has a CUDA kernel
(or a composite one); every sample of every dtype is run on the CPU and, moved to the GPU with
the same sizes, strides and storage offset, on the GPU, in the functional and in-place forms,
and the results must agree (integers and bool exactly; floating dtypes within the row's
tolerances, as the GPU's math library differs from the CPU's in the last bits). Only complex
dtypes may be refused there (NotImplementedError), outside COMPLEX_ON_GPU. These run where
a GPU is lent (scripts/gpu_check.sh) and skip elsewhere; the coverage check runs in every build
with CUDA kernels."""
from __future__ import annotations

import importlib.util
import inspect
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
import yaml

import opcore
from opcore import _C

from opinfo import KNOWN_FAILURES, ROWS
from opinfo_samples import COMPLEX, INTEGRAL, name
from test_opinfo import mismatch, samples_of, to_numpy

YAML = pathlib.Path(__file__).resolve().parents[2] / "yaml" / "native_functions.yaml"

gpu = opcore.cuda.is_available()
needs_gpu = pytest.mark.skipif(not gpu, reason="needs a GPU: opcore.cuda.is_available() is False here")
cuda_built = _C._dispatch_has_kernel_for_dispatch_key("aten::add.out", "CUDA")

# The overloads whose CPU kernel has no CUDA kernel, each with the reason why. Every operator
# opcore ships has both now; one added with a CPU kernel only (docs/adding-an-operator.md)
# names itself here until it gets its CUDA kernel.
CPU_ONLY: dict[str, str] = {
}

# The products run on cuBLAS, which has no integer GEMM: as PyTorch's CUDA kernels ("addmm_cuda"
# not implemented for 'Int'), they refuse the integral dtypes the CPU takes.
INTEGRAL_REFUSED_ON_GPU = {"mm", "bmm", "addmm", "addmv", "baddbmm"}

# The rows whose CUDA kernels take complex dtypes: complex<T>'s arithmetic and functions run on
# the GPU (libcu++'s cuda::std::complex there, std::complex on the host), for the pointwise
# operators and reductions below; other rows may refuse complex dtypes there with
# NotImplementedError.
COMPLEX_ON_GPU = {
    "add", "sub", "mul", "div", "neg", "eq", "ne", "isnan", "isinf", "logical_not", "logical_and", "logical_or",
    "logical_xor", "where", "sum", "prod", "any", "all", "angle", "conj_physical", "abs", "sgn",
    "exp", "log", "log2", "log10", "sqrt", "rsqrt", "reciprocal", "sigmoid", "tanh", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "sigmoid_backward", "tanh_backward", "pow", "lerp",
    "addcmul", "addcdiv", "silu", "silu_backward", "mean", "var", "std", "var_mean", "var_mean (mean)", "std_mean",
    "norm", "linalg_vector_norm",
}


def _has(overload: str, key: str) -> bool:
    return _C._dispatch_has_kernel_for_dispatch_key("aten::" + overload, key)


def _runs_on_gpu(row) -> bool:
    kernels = [[k for k in ("CUDA", "CompositeExplicitAutograd", "CompositeImplicitAutograd") if _has(o, k)]
               for o in row.covers]
    return all(kernels) and any("CUDA" in k for k in kernels)


def _cpu_overloads():
    """The overloads of native_functions.yaml that have a CPU kernel."""
    overloads = []
    for entry in yaml.safe_load(YAML.read_text()):
        keys = {k.strip() for key in entry.get("dispatch", {}) for k in key.split(",")}
        if "CPU" in keys:
            overloads.append(entry["func"].split("(")[0])
    return overloads


@pytest.mark.skipif(not cuda_built, reason="this build has no CUDA kernels (the sanitizer builds)")
def test_every_operator_with_a_cpu_kernel_has_a_cuda_kernel_or_a_reason():
    overloads = _cpu_overloads()
    assert len(overloads) > 250, "the YAML has lost its operators"
    missing = [o for o in overloads if o not in CPU_ONLY and not _has(o, "CUDA")]
    assert not missing, f"operators without a CUDA kernel (add one, or a CPU_ONLY entry): {missing}"
    stale = [o for o in CPU_ONLY if _has(o, "CUDA")]
    assert not stale, f"CPU_ONLY entries that have a CUDA kernel now: {stale}"


def _gpu_rows():
    return [row for row in ROWS if _runs_on_gpu(row)] if cuda_built else []


@pytest.mark.skipif(not cuda_built, reason="this build has no CUDA kernels (the sanitizer builds)")
def test_the_gpu_rows_include_every_family_of_pointwise_operator_and_reduction():
    names = {row.name for row in _gpu_rows()}
    assert {"add", "sin", "exp", "eq", "where", "clamp", "gelu", "pow", "lerp", "addcmul", "sum", "amax", "argmax",
            "var", "any"} <= names, sorted(names)


# --- moving samples to the GPU ------------------------------------------------------------------------


def to_gpu(value):
    """value with every tensor copied to the GPU as the same view: the elements its strides reach
    (from its storage offset on) are copied densely and viewed with its sizes and strides."""
    if isinstance(value, (list, tuple)):
        return type(value)(to_gpu(v) for v in value)
    if not isinstance(value, opcore.Tensor):
        return value
    if value.numel() == 0:
        return value.to("cuda")
    extent = 1 + sum((size - 1) * stride for size, stride in zip(value.shape, value.stride()))
    dense = value.as_strided((extent,), (1,), value.storage_offset()).to("cuda")
    return dense.as_strided(tuple(value.shape), value.stride(), 0)


def _results(result):
    return result if isinstance(result, tuple) else (result,)


def _compare(row, sample, cpu_result, gpu_result):
    problems = []
    for c, g in zip(_results(cpu_result), _results(gpu_result)):  # noqa: B905 (one tuple or one tensor each)
        if not isinstance(c, opcore.Tensor):
            continue
        if g.device.type != "cuda":
            problems.append(f"the result is on {g.device}")
            continue
        problems.append(mismatch(g.cpu(), to_numpy(c), c.dtype, *row.tolerance(c.dtype)))
    return [p for p in problems if p]


# Samples that assign several elements to one place: which one the GPU keeps is its choice
# (PyTorch documents these operators as nondeterministic on CUDA), so they are not compared; the
# accumulating forms are (floating sums within the row's tolerance).
ASSIGNS_TO_ONE_PLACE = {"scatter": r"repeated places|^large", "index_put": r"\(repeats\)"}


def _order_dependent(row, sample) -> bool:
    pattern = ASSIGNS_TO_ONE_PLACE.get(row.name)
    return bool(pattern and re.search(pattern, sample.desc) and not sample.kwargs.get("accumulate"))


def _clone_args(sample):
    """The sample's arguments, fresh (an operator that writes into args[0] gets its own copy)."""
    return [a.clone() if isinstance(a, opcore.Tensor) and i == 0 else a for i, a in enumerate(sample.args)]


@needs_gpu
@pytest.mark.parametrize("row", _gpu_rows(), ids=lambda row: row.name)
def test_cuda_kernels_match_the_cpu_kernels(row):
    failures = []
    for dtype in row.dtypes:
        for sample in samples_of(row, dtype):
            if sample.error or (row.name, name(dtype), sample.desc) in KNOWN_FAILURES or _order_dependent(row, sample):
                continue
            cpu_args = _clone_args(sample)
            opcore.manual_seed(0)  # the random operators: both devices' default generators alike
            expected = row.op(*cpu_args, **sample.kwargs)
            gpu_args, gpu_kwargs = to_gpu(_clone_args(sample)), to_gpu(sample.kwargs)
            opcore.manual_seed(0)
            try:
                actual = row.op(*gpu_args, **gpu_kwargs)
            except NotImplementedError as e:
                # The documented gaps: complex dtypes outside COMPLEX_ON_GPU may be refused, and
                # integral ones by the products.
                refusable = ((dtype in COMPLEX and row.name not in COMPLEX_ON_GPU)
                             or (dtype in INTEGRAL and row.name in INTEGRAL_REFUSED_ON_GPU))
                if refusable and "not implemented for" in str(e):
                    break
                raise
            failures += [f"{name(dtype)} {sample.desc}: {p}" for p in _compare(row, sample, expected, actual)]
            if row.inplace:
                failures += _inplace_failures(row, dtype, sample, expected)
    assert not failures, f"{row.name} on the GPU against the CPU:\n" + "\n".join(failures)


@needs_gpu
@pytest.mark.parametrize("row", [r for r in _gpu_rows() if r.name in COMPLEX_ON_GPU], ids=lambda row: row.name)
def test_the_complex_rows_run_on_the_gpu(row):
    for dtype in set(row.dtypes) & set(COMPLEX):
        sample = next(s for s in samples_of(row, dtype) if not s.error)
        row.op(*to_gpu(_clone_args(sample)), **to_gpu(sample.kwargs))  # no NotImplementedError


def _inplace_failures(row, dtype, sample, expected):
    self = sample.args[0]
    expected = _results(expected)[0]
    if (tuple(expected.shape) != tuple(self.shape) or not opcore.can_cast(expected.dtype, self.dtype)
            or any(st == 0 and sz > 1 for sz, st in zip(self.shape, self.stride()))):
        return []
    gpu_self = to_gpu(self.clone())
    rest = to_gpu(list(sample.args[1:]))
    opcore.manual_seed(0)
    getattr(gpu_self, row.inplace)(*rest, **to_gpu(sample.kwargs))
    problem = mismatch(gpu_self.cpu(), to_numpy(expected.to(self.dtype)), self.dtype, *row.tolerance(self.dtype))
    return [f"{name(dtype)} {sample.desc} in place: {problem}"] if problem else []


@needs_gpu
def test_samples_reach_the_gpu_as_the_same_views():
    base = opcore.arange(24.0).reshape(2, 3, 4)
    for view in (base, base.transpose(0, 2), base[:, 1:, ::2], base[0:1].expand(5, 3, 4), base[1, 2]):
        moved = to_gpu(view)
        assert moved.is_cuda and tuple(moved.shape) == tuple(view.shape) and moved.stride() == view.stride()
        assert to_numpy(moved.cpu()).tolist() == to_numpy(view).tolist()


@needs_gpu
def test_a_gpu_operand_with_a_cpu_one_is_refused_naming_both_devices():
    a, b = opcore.ones(3, device="cuda"), opcore.ones(3)
    for call in (lambda: a + b, lambda: opcore.where(a > 0, a, b), lambda: opcore.sin(a, out=b)):
        with pytest.raises(RuntimeError, match="expected all tensors to be on the same device.*cuda:0.*cpu|"
                                               "expected all tensors to be on the same device.*cpu.*cuda:0"):
            call()
    assert (a + opcore.tensor(2.0)).cpu().tolist() == [3.0, 3.0, 3.0]  # a 0-dim CPU tensor is a number


# --- edge cases on both devices -----------------------------------------------------------------------
#
# Calls the operator table does not make (out= aliasing an input, overlapping memory, values a
# dtype cannot hold, errors raised before anything is written, empty inputs), where a reading of
# the CUDA kernels found them to differ from the CPU's. Each takes the device and returns what
# the call gives (a tensor, or a tuple of them, read after the call) or raises; both devices must
# agree, and the CPU's outcome is the one named (ok, or an exception class), checked in every build.


def _zeros(dev, *shape, dtype=opcore.float32):
    return opcore.zeros(*shape, dtype=dtype, device=dev)


def _out_resized(dev):
    a = _zeros(dev, 3)
    opcore.add(a, opcore.ones(2, 3, device=dev), out=a)
    return a


def _row_subtracted_in_place(dev):
    x = opcore.arange(200000.0, device=dev).reshape(-1, 8)
    return x.sub_(x[0])


def _shifted_copy(dev):
    x = opcore.arange(100000.0, device=dev)
    x[1:].copy_(x[:-1])
    return x


def _cumsum_into_a_view_of_its_input(dev):
    a = opcore.arange(8.0, device=dev)
    return opcore.cumsum(a, 0, out=a[4:])


def _scatter_out_is_src(dev):
    src = opcore.tensor([1.0, 2.0, 3.0], device=dev)
    opcore.scatter(_zeros(dev, 3), 0, opcore.tensor([2, 0, 1], device=dev), src, out=src)
    return src


def _mm_out_is_an_operand(dev):
    a, b = opcore.arange(6.0, device=dev).reshape(2, 3), opcore.arange(12.0, device=dev).reshape(3, 4)
    opcore.mm(a, b, out=a)
    return a


def _addmm_out_is_self(dev):
    s = opcore.arange(4.0, device=dev)
    opcore.addmm(s, opcore.ones(3, 2, device=dev), opcore.ones(2, 4, device=dev), out=s)
    return s


def _nll_loss_out_kept_on_a_bad_target(dev):
    out = opcore.full((2,), 7.0, device=dev)
    try:
        opcore.ops.aten.nll_loss_forward.output(_zeros(dev, 2, 3), opcore.tensor([0, 7], device=dev), None, 0, -100,
                                                output=out, total_weight=opcore.zeros((), device=dev))
    except IndexError:
        return out
    raise AssertionError("no IndexError")


def _scatter_reduce_bool_mean_kept(dev):
    x = opcore.tensor([True, False], device=dev)
    try:
        x.scatter_reduce_(0, opcore.tensor([0], device=dev), opcore.tensor([True], device=dev), "mean")
    except NotImplementedError:
        return x
    raise AssertionError("no NotImplementedError")


def _batch_norm_without_samples(dev):
    mean, var = _zeros(dev, 3), opcore.ones(3, device=dev)
    opcore.nn.functional.batch_norm(_zeros(dev, 0, 3, 2), mean, var, training=True)
    return mean, var


def _group_norm_of_empty_rows(dev):
    return opcore.native_group_norm(_zeros(dev, 2, 4, 0), None, None, 2, 4, 0, 2, 1e-5)[1]


def _var_of_opposite_extremes(dev):
    x = _zeros(dev, 64, dtype=opcore.float64)
    x[0], x[32] = 1.7976931348623157e308, -1.7976931348623157e308  # +-DBL_MAX, in one row
    return opcore.var(x)


def _dropout_backward_broadcast(dev):
    mask = opcore.tensor([[True, False, True], [False, True, True]], device=dev)
    return opcore.native_dropout_backward(opcore.ones(3, device=dev), mask, 2.0)


EDGE_CASES = {
    # out= aliasing an input, and overlapping memory
    "add with out= an input it is resized from": (_out_resized, "ok"),
    "sub_ of a row of itself": (_row_subtracted_in_place, "ok"),
    "copy_ between overlapping views": (_shifted_copy, "ok"),
    "add_ into an expanded tensor": (lambda dev: _zeros(dev, 1).expand(4).add_(1), RuntimeError),
    "copy_ into an expanded tensor": (lambda dev: _zeros(dev, 1).expand(3).copy_(opcore.ones(3, device=dev)),
                                      RuntimeError),
    "cumsum into a view of its input": (_cumsum_into_a_view_of_its_input, "ok"),
    "scatter with out= its src": (_scatter_out_is_src, "ok"),
    "mm with out= its first operand": (_mm_out_is_an_operand, "ok"),
    "addmm with out= self": (_addmm_out_is_self, "ok"),
    "max.dim into expanded indices": (
        lambda dev: opcore.max(_zeros(dev, 4, 3), 1, out=(_zeros(dev, 4), _zeros(dev, 1, dtype=opcore.int64).expand(4))),
        RuntimeError),
    # conversions and values a dtype cannot hold
    "a negative float to uint8": (lambda dev: opcore.tensor([-2.5, 300.7], device=dev).to(opcore.uint8), "ok"),
    "int32 + Half rounds to Half": (
        lambda dev: opcore.tensor([2049], dtype=opcore.int32, device=dev) + opcore.ones(1, dtype=opcore.float16, device=dev),
        "ok"),
    "a Half sum into a float32 out": (
        lambda dev: opcore.add(opcore.ones(1, dtype=opcore.float16, device=dev),
                               opcore.full((1,), 2.0 ** -11, dtype=opcore.float16, device=dev),
                               out=_zeros(dev, 1)), "ok"),
    "fill_ of 300 into uint8": (lambda dev: _zeros(dev, 2, dtype=opcore.uint8).fill_(300), RuntimeError),
    "scatter_ of 1000 into int8": (
        lambda dev: _zeros(dev, 3, dtype=opcore.int8).scatter_(0, opcore.tensor([0], device=dev), 1000), RuntimeError),
    "index_add_ with alpha 300 into int8": (
        lambda dev: _zeros(dev, 3, dtype=opcore.int8).index_add_(0, opcore.tensor([0], device=dev),
                                                                  opcore.ones(1, dtype=opcore.int8, device=dev), alpha=300),
        RuntimeError),
    "pow of 300 and a uint8 exponent": (lambda dev: opcore.pow(300, opcore.tensor([1, 2], dtype=opcore.uint8, device=dev)),
                                        "ok"),
    "eq of complex and a number": (lambda dev: opcore.tensor([1 + 2j, 3j], device=dev).eq(1 + 2j), "ok"),
    "argmax of bool": (lambda dev: opcore.argmax(opcore.tensor([True, False], device=dev)), NotImplementedError),
    "var of +-DBL_MAX": (_var_of_opposite_extremes, "ok"),
    "var_mean of complex that cancels in float": (
        lambda dev: opcore.var_mean(opcore.tensor([1e8, 1, 1, -1e8], dtype=opcore.complex64, device=dev)), "ok"),
    # errors raised before anything is written, and indices checked with an empty result
    "nll_loss keeps out on a bad target": (_nll_loss_out_kept_on_a_bad_target, "ok"),
    "scatter_reduce_ keeps self when refusing a bool mean": (_scatter_reduce_bool_mean_kept, "ok"),
    "index_select of an empty tensor at a bad index": (
        lambda dev: opcore.index_select(_zeros(dev, 2, 0), 0, opcore.tensor([5], device=dev)), IndexError),
    "index_fill_ of an empty tensor at a bad index": (
        lambda dev: _zeros(dev, 2, 0).index_fill_(0, opcore.tensor([5], device=dev), 1.0), IndexError),
    # the nn kernels' edges
    "batch_norm without samples keeps the running statistics": (_batch_norm_without_samples, "ok"),
    "group_norm of empty rows": (_group_norm_of_empty_rows, "ok"),
    "mse_loss with a 0-dim CPU target": (
        lambda dev: opcore.nn.functional.mse_loss(opcore.tensor(1.0, device=dev), opcore.tensor(0.5)), "ok"),
    "native_dropout_backward broadcasts grad and mask": (_dropout_backward_broadcast, "ok"),
}


def _outcome(case, dev):
    """("ok", the results as nested lists) or the exception class the call raised."""
    try:
        result = case(dev)
    except Exception as e:  # noqa: BLE001 (the class is the outcome)
        return type(e)
    tensors = result if isinstance(result, tuple) else (result,)
    return "ok", [to_numpy(t.cpu()).tolist() for t in tensors]


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_edge_cases_have_the_expected_outcome_on_the_cpu(case):
    call, expected = EDGE_CASES[case]
    outcome = _outcome(call, "cpu")
    assert (outcome[0] if isinstance(outcome, tuple) else outcome) == expected, outcome


@needs_gpu
@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_edge_cases_give_the_cpus_outcome_on_the_gpu(case):
    call = EDGE_CASES[case][0]
    cpu, gpu = _outcome(call, "cpu"), _outcome(call, "cuda")
    if not isinstance(cpu, tuple):
        assert gpu == cpu
        return
    assert isinstance(gpu, tuple), gpu
    for g, c in zip(gpu[1], cpu[1], strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(c), rtol=1e-6)


# --- training ---------------------------------------------------------------------------------------

# The operators the networks of examples/ need on the GPU beyond the tagged families above.
NETWORK_OPERATORS = ("mm.out", "bmm.out", "addmm.out", "addmv.out", "baddbmm.out", "_softmax.out", "_log_softmax.out",
                     "_softmax_backward_data.out", "_log_softmax_backward_data.out", "nll_loss_forward.output",
                     "nll_loss_backward.grad_input", "native_layer_norm", "native_layer_norm_backward",
                     "_local_scalar_dense", "cat.out", "arange.start_out", "eye.out", "eye.m_out", "index_select",
                     "index_select.out", "embedding_dense_backward")


@pytest.mark.skipif(not cuda_built, reason="this build has no CUDA kernels (the sanitizer builds)")
def test_the_operators_of_the_networks_have_cuda_kernels():
    missing = [o for o in NETWORK_OPERATORS if not _has(o, "CUDA")]
    assert not missing, missing


def _losses(output: str) -> list[float]:
    return [float(line.split("loss = ")[1]) for line in output.splitlines() if "loss = " in line]


EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _example(name: str):
    """examples/<name>.py as a module (its main() not run)."""
    spec = importlib.util.spec_from_file_location(f"opcore_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# A training step of each showcase model, run on the CPU with the dispatch trace on: every
# operator that reaches a backend kernel there must have a CUDA kernel (or a composite one) for
# the step to run on the GPU. randperm draws digits' batch order on the CPU in either run.
_STEPS = {
    "digits": """
digits = _example("digits")
images, labels = digits.load(digits.DIGITS)
opcore.manual_seed(digits.SEED)
model = digits.ConvNet()
order = opcore.randperm(digits.TRAIN)[:digits.BATCH]
loss = F.cross_entropy(model(images[order]), labels[order])
loss.backward()
print((model(images[:8]).argmax(1) == labels[:8]).to(opcore.float32).mean().item())
""",
    "charlm": """
charlm = _example("charlm")
opcore.manual_seed(charlm.SEED)
data = opcore.arange(5000) % 60
model = charlm.CharTransformer(60)
optimizer = charlm.AdamW(model.parameters())
inputs, targets = charlm.random_batch(data)
loss = F.cross_entropy(model(inputs, training=True).view(-1, 60), targets.view(-1))
loss.backward()
optimizer.step()
print(charlm.sample(model, [chr(65 + i) for i in range(60)], "ABC", 2))
""",
}
_HOST_SIDE = {"digits": {"randperm", "randperm.out"}, "charlm": set()}


@pytest.mark.skipif(not cuda_built, reason="this build has no CUDA kernels (the sanitizer builds)")
@pytest.mark.parametrize("example", sorted(_STEPS))
def test_the_operators_of_a_training_step_of_the_showcase_models_have_cuda_kernels(example):
    script = ("import importlib.util, pathlib\nimport opcore\nimport opcore.nn.functional as F\n"
              f"EXAMPLES = pathlib.Path({str(EXAMPLES)!r})\n" + inspect.getsource(_example) + _STEPS[example])
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "OPCORE_SHOW_DISPATCH_TRACE": "1"})
    assert run.returncode == 0, run.stderr[-3000:]
    reached = set(re.findall(r"op=\[aten::([^\]]+)\], key=\[CPU\]", run.stdout + run.stderr))
    assert len(reached) > 20, sorted(reached)
    missing = sorted(o for o in reached - _HOST_SIDE[example]
                     if not any(_has(o, k) for k in ("CUDA", "CompositeExplicitAutograd", "CompositeImplicitAutograd")))
    assert not missing, f"{example}: operators without a CUDA kernel: {missing}"


@needs_gpu
def test_the_main_jobs_network_trains_on_the_gpu_with_the_cpus_losses(capsys):
    example = _example("example")
    example.train_mlp(steps=400, device="cpu")
    cpu = _losses(capsys.readouterr().out)
    example.train_mlp(steps=400, device="cuda")
    gpu = _losses(capsys.readouterr().out)
    assert len(cpu) == len(gpu) == 3 and cpu[-1] < cpu[0] / 10, (cpu, gpu)
    for c, g in zip(cpu, gpu):  # float64: the products' summation order differs (cuBLAS vs the CPU's)
        assert abs(c - g) <= 1e-9 * abs(c), (cpu, gpu)


def _close(cpu, gpu, rtol):
    for c, g in zip(cpu, gpu):  # float32: the GPU's sums and math library differ in the last bits
        assert abs(c - g) <= rtol * abs(c) + 1e-5, (cpu, gpu)


@needs_gpu
def test_a_classifier_trains_on_the_gpu_with_the_cpus_losses():
    """linear, layer_norm, gelu, linear, cross_entropy, SGD: the same losses on both devices."""
    functional = opcore.nn.functional

    def run(device):
        gen = opcore.Generator().manual_seed(0)
        x = opcore.randn(256, 32, generator=gen)
        target = (x[:, :4].sum(1) > 0).to(opcore.int64) + 2 * (x[:, 4:8].sum(1) > 0).to(opcore.int64)
        shapes = [(64, 32), (64,), (64,), (64,), (4, 64), (4,)]
        params = [(opcore.randn(*shape, generator=gen) * 0.1).to(device).requires_grad_() for shape in shapes]
        w1, b1, gamma, beta, w2, b2 = params
        x, target = x.to(device), target.to(device)
        losses = []
        for _ in range(50):
            hidden = functional.gelu(functional.layer_norm(functional.linear(x, w1, b1), (64,), gamma, beta))
            loss = functional.cross_entropy(functional.linear(hidden, w2, b2), target)
            loss.backward()
            with opcore.no_grad():
                for p in params:
                    p.sub_(p.grad, alpha=0.5)
                    p.grad = None
            losses.append(loss.item())
        return losses

    cpu, gpu = run("cpu"), run("cuda")
    assert gpu[-1] < gpu[0] / 5, gpu
    _close(cpu, gpu, 1e-4)


@needs_gpu
def test_the_digits_network_trains_on_the_gpu_with_the_cpus_losses():
    """examples/digits.py's convolutional network, its first batches, on both devices."""
    digits, functional = _example("digits"), opcore.nn.functional
    images, labels = digits.load(digits.DIGITS)

    def run(device):
        opcore.manual_seed(digits.SEED)
        model = digits.ConvNet().to(device)
        x, y = images[:400].to(device), labels[:400].to(device)
        losses = []
        for first in range(0, 400, digits.BATCH):
            loss = functional.cross_entropy(model(x[first:first + digits.BATCH]), y[first:first + digits.BATCH])
            loss.backward()
            with opcore.no_grad():
                for p in model.parameters():
                    p.sub_(p.grad, alpha=digits.LR)
                    p.grad = None
            losses.append(loss.item())
        return losses

    cpu, gpu = run("cpu"), run("cuda")
    assert gpu[-1] < gpu[0], gpu
    _close(cpu, gpu, 1e-3)


@needs_gpu
def test_the_character_transformer_trains_on_the_gpu_with_the_cpus_losses(monkeypatch):
    """examples/charlm.py without dropout (the CPU's and the GPU's generators are two), a few
    AdamW steps on both devices, then a sample drawn on the GPU."""
    charlm, functional = _example("charlm"), opcore.nn.functional
    monkeypatch.setattr(charlm, "DROPOUT", 0.0)
    vocab = [chr(32 + i) for i in range(64)]
    text = "".join(vocab[(i * 7 + i // 13) % 64] for i in range(20000))

    def run(device):
        data = opcore.tensor([vocab.index(c) for c in text]).to(device)
        opcore.manual_seed(charlm.SEED)
        model = charlm.CharTransformer(len(vocab)).to(device)
        optimizer = charlm.AdamW(model.parameters())
        losses = []
        for _ in range(8):
            inputs, targets = charlm.random_batch(data)
            loss = functional.cross_entropy(model(inputs, training=True).view(-1, len(vocab)), targets.view(-1))
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses, charlm.sample(model, vocab, "ABC", 20)

    (cpu, _), (gpu, sample) = run("cpu"), run("cuda")
    assert gpu[-1] < gpu[0] and len(sample) == 23, (gpu, sample)
    _close(cpu, gpu, 1e-3)


# --- random numbers -----------------------------------------------------------------------------------


def test_the_cuda_generator_is_seeded_apart_and_by_manual_seed():
    opcore.cuda.manual_seed_all(1234)
    assert opcore.cuda.initial_seed() == 1234
    opcore.manual_seed(99)  # every device type's default generator
    assert opcore.cuda.initial_seed() == 99 and opcore.initial_seed() == 99


@needs_gpu
def test_random_operators_draw_the_cpus_numbers_on_the_gpu():
    for dtype in (opcore.float32, opcore.float64, opcore.float16, opcore.bfloat16):
        for draw, same_bits in ((lambda t: t.uniform_(-2.0, 3.0), True), (lambda t: t.bernoulli_(0.3), True),
                                (lambda t: t.normal_(1.0, 2.0), False)):
            opcore.manual_seed(7)
            cpu = draw(opcore.empty(1001, dtype=dtype))
            gpu = draw(opcore.empty(1001, dtype=dtype, device="cuda")).cpu()
            # uniform and bernoulli: the same bits (from + (to - from) * u is not fused on either
            # device); normal: the GPU's log, sqrt, sin and cos in double may differ from
            # SLEEF's by an ulp before the rounding to dtype.
            if same_bits:
                assert gpu.equal(cpu), (dtype, cpu, gpu)
            else:
                assert np.allclose(to_numpy(cpu.double()), to_numpy(gpu.double()), rtol=1e-6, atol=0), (dtype, cpu, gpu)
    opcore.manual_seed(3)
    x = opcore.randn(64, 33)
    y_cpu, mask_cpu = opcore.native_dropout(x, 0.25, True)
    opcore.manual_seed(3)
    y_gpu, mask_gpu = opcore.native_dropout(x.cuda(), 0.25, True)
    assert mask_gpu.cpu().equal(mask_cpu) and y_gpu.cpu().equal(y_cpu)
    z = opcore.view_as_complex(opcore.randn(64, 33, 2))  # complex dropout, as the CPU's (and its backward)
    opcore.manual_seed(3)
    z_cpu, zmask_cpu = opcore.native_dropout(z, 0.25, True)
    opcore.manual_seed(3)
    z_gpu, zmask_gpu = opcore.native_dropout(z.cuda(), 0.25, True)
    assert zmask_gpu.cpu().equal(zmask_cpu) and z_gpu.cpu().equal(z_cpu)
    assert opcore.native_dropout_backward(z_gpu, zmask_gpu, 4 / 3).cpu().equal(
        opcore.native_dropout_backward(z_cpu, zmask_cpu, 4 / 3))
    # A zero weight is never drawn: with replacement, though the GPU's running sums are
    # associated otherwise than the CPU's; without, beside a subnormal weight whose key
    # overflows to -inf.
    weights = opcore.rand(4, 4096, dtype=opcore.float64) * (opcore.arange(4096) % 3 == 0)
    drawn = opcore.multinomial(weights.cuda(), 100000, True).cpu()
    assert bool(opcore.gather(weights, 1, drawn).gt(0).all())
    tiny = opcore.tensor([[0.0, 1e-310, 0.0, 1e-310]], dtype=opcore.float64)
    for device in ("cpu", "cuda"):
        assert opcore.multinomial(tiny.to(device), 2).cpu().tolist() == [[1, 3]]
    # multinomial of no rows: an empty result, as the CPU's
    assert opcore.multinomial(opcore.zeros(0, 0, device="cuda"), 2, True).shape == (0, 2)
    assert opcore.multinomial(opcore.zeros(0, 3, device="cuda"), 2).shape == (0, 2)
