"""tests/test_python_bindings.py: one case per gradcheck sample of derivatives.yaml (Note
[Gradcheck tests] in gen/api/gradcheck.py) whose operator Python can call, checking that the
generated binding (the function and the method) gives what the dispatcher's boxed path gives
for the same arguments (tests/python/bindings_check.py runs the cases)."""
from __future__ import annotations

from typing import Optional

from gen.api import python
from gen.api.gradcheck import derived_sample
from gen.emit.common import FileSpec
from gen.model.samples import CppValue, Literal, RandomTensor, SampleValue, TensorListValue, TensorValues
from gen.model.spec import Spec


def _value(v: Optional[SampleValue], base: str) -> Optional[tuple]:
    """A sample value as the plain data bindings_check.py builds arguments from; None when
    only C++ can say it ({cpp: ...})."""
    if v is None:
        return ("none",)
    if isinstance(v, RandomTensor):
        return ("rand", v.shape, v.low, v.high, v.dtype)
    if isinstance(v, TensorValues):
        return ("values", v.shape, v.values, v.dtype)
    if isinstance(v, Literal):
        return ("dtype", v.value) if base == "ScalarType" and v.value is not None else ("literal", v.value)
    if isinstance(v, TensorListValue):
        items = tuple(_value(item, base) for item in v.items)
        return None if any(item is None for item in items) else ("list", items)
    assert isinstance(v, CppValue)
    return None


def emit(spec: Spec) -> list[FileSpec]:
    cases, skipped = [], []
    for d in spec.derivatives:
        f = spec.by_name.get(d.name)
        if f is None or python.unbound_reason(f.func) is not None:
            continue
        function = None
        if f.cpp_names.functions:  # placed as python.function_groups places it: opcore.<name> or opcore._C._<module>.<name>
            function = (f"_C._{f.python_module}." if f.python_module else "") + python.python_name(f)
        method = python.python_name(f) if f.cpp_names.method is not None else None
        for index, sample in enumerate(d.samples or tuple(s for s in [derived_sample(d)] if s)):
            given = dict(sample.values)
            args, omitted = [], False
            for a in f.func.arguments:
                if a.name not in given:
                    omitted = True  # the positional arguments after a defaulted one that is left out go by keyword
                    continue
                value = _value(given[a.name], a.type.base)
                if value is None:
                    break
                args.append((a.name, value, a.kwarg_only or omitted))
            else:
                # Seeded operators are reseeded before each call; the values of empty* and
                # new_empty* results are uninitialized memory, so only their shapes and dtypes are
                # compared.
                flags = ("seeded",) * ("nondeterministic_seeded" in f.tags) + \
                    ("uninitialized",) * f.func.name.base.removeprefix("new_").startswith("empty")
                cases.append(repr((f"{d.name}[{index}]", f"aten::{f.func.name.base}", f.func.name.overload,
                                   function, method, tuple(args), flags)))
                continue
            skipped.append(f"{d.name}[{index}]")
    return [FileSpec("tests/test_python_bindings.py", "test_python_bindings.py.j2", {"cases": cases, "skipped": skipped})]
