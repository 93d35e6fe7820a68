"""The main job's network trained on npu:0 from Python: examples/example.py's train_mlp with
device="npu", after loading the example backend. It prints the losses the CPU run prints.

    PYTHONPATH=examples python3 examples/backend/npu_example.py /tmp/npu/libnpu.so
"""
import ctypes
import gc
import sys

import opcore
from example import train_mlp

library = sys.argv[1]
opcore.ops.load_library(library)  # names PrivateUse1 "npu", installs the device
opcore.utils.generate_methods_for_privateuse1_backend()
assert opcore.ones(1).npu().is_npu
train_mlp(device="npu")  # each operator the CPU fallback runs warns once (stderr)
gc.collect()
counters = ctypes.CDLL(library)
counters.npu_allocations.restype = counters.npu_live_bytes.restype = ctypes.c_int64
print(f"npu: {counters.npu_allocations()} allocations, {counters.npu_live_bytes()} bytes still allocated")
sys.exit(0 if counters.npu_live_bytes() == 0 else 1)
