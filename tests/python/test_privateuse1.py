"""PrivateUse1 from Python: the example backend (examples/backend, host memory), which names the
device "npu" when it loads. Naming PrivateUse1 is once per process, so each test runs in
a fresh interpreter (isolated.run_python)."""
import os
import pathlib

from isolated import describe, run_python

BUILD = pathlib.Path(__file__).resolve().parents[2] / "build"
BACKEND = os.environ.get("OPCORE_TEST_BACKEND_PATH", str(BUILD / "libopcore_test_backend.so"))


def run(code):
    proc = run_python(f"BACKEND = {BACKEND!r}\n" + code)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), describe(proc)
    return proc


def test_a_device_name_is_refused_until_a_backend_renames_privateuse1():
    run("""
import pytest, opcore
with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, meta, privateuseone device type at start of device string: npu"):
    opcore.device("npu")
assert str(opcore.device("privateuseone:1")) == "privateuseone:1"
with pytest.raises(RuntimeError, match="'cuda' is the name of a built-in device type"):
    opcore.utils.rename_privateuse1_backend("cuda")
with pytest.raises(RuntimeError, match="lowercase letters"):
    opcore.utils.rename_privateuse1_backend("Npu")
with pytest.raises(RuntimeError, match="no backend has renamed PrivateUse1 yet"):
    opcore.utils.generate_methods_for_privateuse1_backend()
opcore.utils.rename_privateuse1_backend("npu")
opcore.utils.rename_privateuse1_backend("npu")  # the same name again
with pytest.raises(RuntimeError, match="PrivateUse1 is already named 'npu'"):
    opcore.utils.rename_privateuse1_backend("xpu")
d = opcore.device("npu:1")
assert (str(d), repr(d), d.type, d.index) == ("npu:1", "device(type='npu', index=1)", "npu", 1)
assert d == opcore.device("npu", 1) == opcore.device("privateuseone:1")
print("ok")
""")


def test_tensors_live_on_the_device_and_compute_as_on_the_cpu():
    run("""
import types, warnings, pytest, opcore
opcore.ops.load_library(BACKEND)  # renames PrivateUse1 to "npu"
opcore.utils.generate_methods_for_privateuse1_backend()
module = types.ModuleType("npu_runtime")
opcore._register_device_module("npu", module)
assert opcore.npu is module
with pytest.raises(RuntimeError, match="The runtime module of 'npu' has already been registered"):
    opcore._register_device_module("npu", module)

a = opcore.arange(6.0).reshape(2, 3)
d = a.to("npu")
assert d.device == opcore.device("npu:0") and d.is_npu and not a.is_npu and not d.is_cpu
assert a.npu().is_npu and a.npu(1).device == opcore.device("npu:1") and d.npu() is d
with pytest.raises(RuntimeError, match="Invalid device, must be npu device"):
    a.npu("cpu")
assert d.cpu().tolist() == a.tolist() and (d + d).cpu().tolist() == (a + a).tolist()
assert repr(d[0]) == "tensor([0., 1., 2.], device='npu:0')"
assert repr(opcore.ones(2, dtype=opcore.int32, device="npu:1")) == "tensor([1, 1], device='npu:1', dtype=opcore.int32)"
with pytest.raises(RuntimeError, match="expected all tensors to be on the same device, but found at least two devices, cpu and npu:0"):
    a + d
assert (d + opcore.tensor(2.0)).is_npu  # a 0-dim CPU tensor joins, as a number does
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    quotient = d / (d + 1)
    d / (d + 1)
assert quotient.is_npu and quotient.cpu().tolist() == (a / (a + 1)).tolist()
assert not any("aten::add" in str(w.message) for w in caught), "add is the backend's own"
messages = [str(w.message) for w in caught if "aten::div.Tensor" in str(w.message)]
assert len(messages) == 1 and "runs on the CPU instead" in messages[0], messages
with warnings.catch_warnings():
    warnings.simplefilter("error")
    with pytest.raises(UserWarning, match="aten::sub.Tensor"):
        d - d
print("ok")
""")


def test_a_network_trains_on_the_device_with_the_losses_it_has_on_the_cpu():
    run("""
import ctypes, gc, warnings, opcore
warnings.simplefilter("ignore")
opcore.ops.load_library(BACKEND)
counters = ctypes.CDLL(BACKEND)
counters.npu_allocations.restype = counters.npu_live_bytes.restype = ctypes.c_int64

# float64 (OpenBLAS's products): in float32 (oneDNN's), w2's gradient, a product of operands the
# fallback copied afresh, differed from the CPU run's in its last bit.
def train(device):
    opcore.manual_seed(0)
    x = opcore.randn(64, 4, dtype=opcore.float64).to(device)
    y = (x.cpu().sum(1, keepdim=True) * 0.5).to(device)
    w1 = (opcore.randn(4, 8, dtype=opcore.float64) * 0.5).to(device).requires_grad_()
    w2 = (opcore.randn(8, 1, dtype=opcore.float64) * 0.5).to(device).requires_grad_()
    losses = []
    for _ in range(20):
        loss = ((x.mm(w1).relu().mm(w2) - y) ** 2).mean()
        loss.backward()
        with opcore.no_grad():
            for w in (w1, w2):
                assert w.grad.device == w.device
                w.sub_(w.grad * 0.1)
                w.grad = None
        losses.append(loss.cpu().item())
    return losses

cpu, npu = train("cpu"), train("npu")
assert npu == cpu, (cpu, npu)
assert npu[-1] < npu[0] / 2, npu
assert counters.npu_allocations() > 0
gc.collect()
assert counters.npu_live_bytes() == 0, counters.npu_live_bytes()
print("ok")
""")


def test_pinned_memory_comes_from_the_backend_and_non_blocking_copies_land_in_it():
    run("""
import pytest, opcore
a = opcore.arange(6.0).reshape(2, 3)
if not opcore.cuda.is_available():  # no accelerator yet: nothing pins
    with pytest.raises(RuntimeError, match="cannot pin memory: pinned memory is for copies to an accelerator, and this machine has none"):
        a.pin_memory()
    with pytest.raises(RuntimeError, match="this machine has none"):
        opcore.empty(2, pin_memory=True)
opcore.ops.load_library(BACKEND)  # installs npu's host allocator
opcore.utils.generate_methods_for_privateuse1_backend()
assert not a.is_pinned()
p = a.pin_memory("npu")
assert p.is_pinned("npu") and p.is_cpu and p.tolist() == a.tolist()
assert not p.is_pinned("cuda")
assert p.pin_memory("npu").data_ptr() == p.data_ptr()  # pinned already: itself
assert a.t().pin_memory("npu").stride() == a.t().stride()
with pytest.raises(RuntimeError, match="is_pinned: expected an accelerator device, got cpu"):
    p.is_pinned("cpu")
d = p.npu(non_blocking=True)
assert d.is_npu and not d.is_pinned() and d.cpu().tolist() == a.tolist()
with pytest.raises(RuntimeError, match="cannot pin a tensor on npu:0: only dense CPU tensors can be pinned"):
    d.pin_memory()
back = d.to("cpu", non_blocking=True)
assert back.is_pinned("npu") and back.tolist() == a.tolist()
assert not d.to("cpu").is_pinned()
if not opcore.cuda.is_available():  # npu is this machine's accelerator: factories pin for it
    assert opcore.empty(2, 3, pin_memory=True).is_pinned()
    assert opcore.empty_like(a, pin_memory=True).is_pinned("npu")
    assert opcore.empty_strided((2, 3), (1, 2), pin_memory=True).is_pinned()
    z = opcore.zeros_like(a.t(), pin_memory=True)  # the *_like and new_* factories too
    assert z.is_pinned() and z.stride() == a.t().stride() and z.tolist() == [[0.0] * 2] * 3
    assert a.new_ones(4, pin_memory=True).is_pinned()
    grown = a.new_full((2,), 1.5, pin_memory=True)
    grown.resize_(100)  # a pinned storage that grows stays pinned
    assert grown.is_pinned() and grown[:2].tolist() == [1.5, 1.5]
with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned, not a tensor on npu"):
    opcore.empty(2, device="npu", pin_memory=True)
x = opcore.arange(3.0).requires_grad_()
(x.pin_memory("npu") * x).sum().backward()
assert x.grad.tolist() == [0.0, 2.0, 4.0]
y = opcore.arange(3.0).requires_grad_()
(y.to("npu") * 2).sum().backward()
assert y.grad.device == opcore.device("cpu") and y.grad.tolist() == [2.0, 2.0, 2.0]
print("ok")
""")
