"""PrivateUse1, the device type of an out-of-tree backend, from Python (docs/backends.md).

    opcore.ops.load_library("libnpu.so")              # kernels, allocator, device guard
    opcore.utils.rename_privateuse1_backend("npu")    # "npu:0" parses and prints
    opcore.utils.generate_methods_for_privateuse1_backend()   # Tensor.npu(), Tensor.is_npu
    opcore._register_device_module("npu", npu_module)         # opcore.npu
    x = opcore.ones(3).to("npu")
"""
from opcore import _C

__all__ = ["rename_privateuse1_backend", "generate_methods_for_privateuse1_backend"]


def rename_privateuse1_backend(backend_name):
    """Names PrivateUse1's devices: afterwards 'backend_name:0' is a device everywhere 'cuda:0'
    is. Once per process: another name, or a built-in device type's name, raises RuntimeError
    (the same name again is accepted, as a backend library loaded twice does)."""
    if not isinstance(backend_name, str):
        raise TypeError(f"rename_privateuse1_backend(): expected a str, but got {type(backend_name).__name__}")
    _C._rename_privateuse1_backend(backend_name)


def _backend_name():
    name = _C._get_privateuse1_backend_name()
    if name == "privateuseone":
        raise RuntimeError("generate_methods_for_privateuse1_backend(): no backend has renamed PrivateUse1 yet; "
                           "call opcore.utils.rename_privateuse1_backend(name) first")
    return name


def generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_storage=False,
                                             unsupported_dtype=None):
    """Adds `Tensor.is_<name>` and `Tensor.<name>(device=None, non_blocking=False)` (a copy on
    the backend's device, or the tensor itself when it is there already), as PyTorch generates
    them. opcore has no nn.Module or typed storages, so `for_module` has nothing to extend and
    `for_storage` / `unsupported_dtype` are refused. Calling it again adds nothing."""
    name = _backend_name()
    if for_storage or unsupported_dtype is not None:
        raise NotImplementedError("generate_methods_for_privateuse1_backend(): opcore has no typed storages, "
                                  "so for_storage and unsupported_dtype are not supported")
    if not for_tensor or hasattr(_C.Tensor, name):
        return

    def is_backend(self):
        return self.device.type == name

    def to_backend(self, device=None, non_blocking=False, **kwargs):
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if device is None:
            device = name
        elif isinstance(device, int):
            device = f"{name}:{device}"
        target = _C.device(device)
        if target.type != name:
            raise RuntimeError(f"Invalid device, must be {name} device, but got {target}")
        return self.to(target, non_blocking=non_blocking)

    to_backend.__name__ = name
    to_backend.__doc__ = f"{name}(device=None, non_blocking=False): this tensor on a {name} device (a copy unless it is there)"
    _C._add_tensor_method(f"is_{name}", property(is_backend, doc=f"whether the tensor is on a {name} device"))
    _C._add_tensor_method(name, to_backend)
