"""Operator families of bench/aten_bench.py, one module each (see its docstring)."""
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Case:
    row: str                       # e.g. "sin float32 16M"
    work: float                    # bytes (or flops) per call, as kernels_bench counts them
    stmt: str                      # the call for opcore and torch, whose APIs agree: "lib.sin(a)"
    numpy_stmt: Optional[str] = None  # numpy's call, None when numpy has no equivalent
    stream: Optional[str] = None   # "copy", "add" or "read": a memory-bound row, also against STREAM
    torch_stmt: Optional[str] = None  # torch's call where it differs from opcore's
    unit: str = "GB/s"
