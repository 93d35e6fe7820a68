"""Writes a large synthetic input for the generator benchmark (bench/gen_bench.py): a yaml dir
with native_functions.yaml (2,500 entries by default), tags.yaml and derivatives.yaml.

    /usr/bin/python3 bench/make_synthetic_yaml.py OUT_DIR [--entries N]

The output is deterministic (no randomness, no timestamps) and uses only what the generator
accepts today. The mix imitates PyTorch's native_functions.yaml: families of overloads
(functional / in-place / out= triples, Tensor and Scalar overloads, reductions with dim,
keepdim and dtype defaults, views, factories, multi-output ops), method variants, several
dispatch keys (backend keys, one kernel shared by several keys, composite keys), tags and
docs. To cover a new generator feature, add a family function and list it in FAMILIES.
"""
from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import Callable, Iterator

DEFAULT_ENTRIES = 2500

TAGS = {
    "core": "The operator belongs to the core set every backend is expected to implement.",
    "pointwise": "The operator is elementwise.",
    "reduction": "The operator reduces one or more dimensions of its input.",
    "view_copy": "The operator returns a view of its input.",
    "nondeterministic_seeded": "The operator draws random numbers from a generator.",
}

# An entry is its lines without the leading "- "; a family returns the entries of one group.
Entry = list[str]


def _entry(func: str, dispatch: dict[str, str], variants: str = "", tags: tuple[str, ...] = (),
           doc: str = "") -> Entry:
    lines = [f"func: {func}"]
    if variants:
        lines.append(f"variants: {variants}")
    lines.append("dispatch:")
    lines += [f"  {keys}: {kernel}" for keys, kernel in dispatch.items()]
    if len(tags) == 1:
        lines.append(f"tags: {tags[0]}")
    elif tags:
        lines.append(f"tags: [{', '.join(tags)}]")
    if doc:
        lines.append("doc: |")
        lines += [f"  {line}" for line in doc.splitlines()]
    return lines


def _backends(kernel: str, i: int) -> dict[str, str]:
    """An out= kernel's dispatch table: CPU always, CUDA and Meta on some ops."""
    table = {"CPU": kernel}
    if i % 3 != 2:
        table["CUDA"] = f"{kernel}_cuda"
    if i % 2 == 0:
        table["Meta"] = f"{kernel}_meta"
    return table


def unary(i: int) -> list[Entry]:
    """A unary pointwise op: functional, in-place, out= (the out= kernel does the work)."""
    n = f"unary{i}"
    doc = f"Applies `{n}` to every element of `self`.\nIntegral inputs compute in the default float dtype." if i % 4 == 0 else ""
    return [
        _entry(f"{n}(Tensor self) -> Tensor", {"CompositeExplicitAutograd": n}, "function, method",
               ("core", "pointwise"), doc),
        _entry(f"{n}_(Tensor(a!) self) -> Tensor(a!)", {"CompositeExplicitAutograd": f"{n}_"},
               "function, method", ("pointwise",)),
        _entry(f"{n}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", _backends(f"{n}_out", i),
               tags=("pointwise",)),
    ]


def binary(i: int) -> list[Entry]:
    """A binary pointwise op: Tensor and Scalar overloads, in-place forms, one out=."""
    n = f"binary{i}"
    ce = "CompositeExplicitAutograd"
    return [
        _entry(f"{n}.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", {ce: n},
               "function, method", ("core", "pointwise"),
               f"`self {i % 7} alpha * other`, elementwise, with broadcasting." if i % 3 == 0 else ""),
        _entry(f"{n}_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
               {ce: f"{n}_"}, "method", ("pointwise",)),
        _entry(f"{n}.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
               _backends(f"{n}_out", i), tags=("pointwise",)),
        _entry(f"{n}.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", {ce: n},
               "function, method", ("core", "pointwise")),
        _entry(f"{n}_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
               {ce: f"{n}_"}, "method", ("pointwise",)),
    ]


def reduction(i: int) -> list[Entry]:
    """A reduction: all elements, over dims (int[1]? dim, keepdim, dtype defaults), out=."""
    n = f"reduce{i}"
    ce = "CompositeExplicitAutograd"
    return [
        _entry(f"{n}(Tensor self, *, ScalarType? dtype=None) -> Tensor", {ce: n}, "function, method",
               ("core", "reduction")),
        _entry(f"{n}.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"
               " -> Tensor", {ce: n}, "function, method", ("core", "reduction"),
               f"Reduces `self` over `dim` with `{n}`; with `keepdim` the reduced dimensions stay."),
        _entry(f"{n}.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,"
               " Tensor(a!) out) -> Tensor(a!)", {"CPU": f"{n}_out", "CUDA": f"{n}_out_cuda"},
               tags=("reduction",)),
    ]


def indexed_reduction(i: int) -> list[Entry]:
    """A reduction returning values and indices (a tuple), with a two-output out=."""
    n = f"argreduce{i}"
    return [
        _entry(f"{n}.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
               {"CompositeExplicitAutograd": n}, "function, method", ("reduction",)),
        _entry(f"{n}.dim_out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values,"
               " Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
               {"CPU": f"{n}_out"}, tags=("reduction",)),
    ]


def view(i: int) -> list[Entry]:
    """A view op: one kernel shared by three backend keys."""
    n = f"view{i}"
    return [
        _entry(f"{n}.int(Tensor(a) self, int dim, int index) -> Tensor(a)",
               {"CPU, CUDA, Meta": n}, "function, method", ("view_copy",)),
        _entry(f"{n}_copy.int(Tensor self, int dim, int index) -> Tensor",
               {"CompositeExplicitAutograd": f"{n}_copy"}, tags=("view_copy",)),
    ]


def factory(i: int) -> list[Entry]:
    """A factory: sizes and keyword-only dtype/device, plus an out= with CPU and Meta."""
    n = f"factory{i}"
    return [
        _entry(f"{n}(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
               {"CompositeExplicitAutograd": n}, tags=("core",)),
        _entry(f"{n}.out(int[] size, *, Tensor(a!) out) -> Tensor(a!)",
               {"CPU": f"{n}_out", "Meta": f"{n}_out_meta"}),
    ]


def composite(i: int) -> list[Entry]:
    """A CompositeImplicitAutograd op with varied argument types and defaults."""
    n = f"composite{i}"
    return [
        _entry(f"{n}(Tensor input, Tensor? weight=None, float eps=1e-05, bool affine=True,"
               f" int[2] stride=1, str reduction=\"mean\") -> Tensor",
               {"CompositeImplicitAutograd": n}, "function",
               doc=f"A composite written in terms of other operators ({n})." if i % 2 else ""),
    ]


def listy(i: int) -> list[Entry]:
    """Tensor lists in and out, and a backend op returning a scalar-like value."""
    n = f"listy{i}"
    return [
        _entry(f"{n}(Tensor[] tensors, int dim=0) -> Tensor", {"CompositeExplicitAutograd": n}),
        _entry(f"{n}_split(Tensor self, int split_size, int dim=0) -> Tensor[]",
               {"CompositeExplicitAutograd": f"{n}_split"}, "function, method"),
        _entry(f"{n}_count(Tensor self, float threshold=0.5) -> int", {"CPU": f"{n}_count"}, "method"),
    ]


def seeded(i: int) -> list[Entry]:
    """A random op: functional and in-place, CPU and CUDA kernels."""
    n = f"random{i}"
    return [
        _entry(f"{n}(Tensor self, float p=0.5, bool train=False) -> Tensor",
               {"CPU": n, "CUDA": f"{n}_cuda"}, "function, method", ("nondeterministic_seeded",)),
        _entry(f"{n}_(Tensor(a!) self, float p=0.5) -> Tensor(a!)",
               {"CPU": f"{n}_", "CUDA": f"{n}_cuda_"}, "method", ("nondeterministic_seeded",)),
    ]


def backward(i: int) -> list[Entry]:
    """An internal backward op (function only): several outputs, an output mask, optional
    tensors, fixed-size int lists; backend kernels only, and its out= form."""
    n = f"_op{i}_backward"
    args = ("Tensor grad_output, Tensor self, Tensor weight, Tensor? bias, int[2] stride, int[2] padding,"
            " bool[3] output_mask")
    return [
        _entry(f"{n}({args}) -> (Tensor, Tensor, Tensor)", {"CPU": n, "CUDA": f"{n}_cuda"}),
        _entry(f"{n}.out({args}, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)"
               " -> (Tensor(a!), Tensor(b!), Tensor(c!))", {"CompositeExplicitAutograd": f"{n}_out"}),
    ]


def internal(i: int) -> list[Entry]:
    """An internal helper op (function only, leading underscore) with CPU and CUDA kernels."""
    n = f"_internal{i}"
    return [_entry(f"{n}(Tensor self, int dim, ScalarType dtype, bool half_to_float=False) -> Tensor",
                   {"CPU": n, "CUDA": f"{n}_cuda"})]


# (family, weight): each round of the cycle emits `weight` groups of that family. Of 2,500
# entries, 24% are out= overloads (PyTorch 1.13's file: 27%), 19% in-place (12%), 30% name
# several dispatch keys (26%), 53% have a method variant (31%: more generated code than
# PyTorch's mix, so the figure errs on the slow side), 71% carry tags.
FAMILIES: tuple[tuple[Callable[[int], list[Entry]], int], ...] = (
    (unary, 4), (binary, 3), (reduction, 2), (indexed_reduction, 1), (view, 2),
    (factory, 1), (composite, 3), (listy, 1), (seeded, 1), (backward, 3), (internal, 4),
)


def _groups() -> Iterator[list[Entry]]:
    counters = {family: 0 for family, _ in FAMILIES}
    for family, weight in itertools.cycle(FAMILIES):
        for _ in range(weight):
            counters[family] += 1
            yield family(counters[family])


def entries(count: int) -> list[Entry]:
    """The first `count` entries; the last group is cut where the count is reached."""
    result: list[Entry] = []
    for group in _groups():
        result += group[:count - len(result)]
        if len(result) == count:
            return result
    raise AssertionError("unreachable: the cycle is infinite")


def native_functions_text(count: int) -> str:
    lines = [f"# Synthetic input for bench/gen_bench.py: {count} entries, written by "
             "bench/make_synthetic_yaml.py. Do not edit.", ""]
    for entry in entries(count):
        lines.append(f"- {entry[0]}")
        lines += [f"  {line}" for line in entry[1:]]
        lines.append("")
    return "\n".join(lines)


def tags_text() -> str:
    return "".join(f"- tag: {name}\n  desc: {desc}\n" for name, desc in TAGS.items())


def write(out_dir: Path, count: int = DEFAULT_ENTRIES) -> Path:
    """Writes the three YAML files into out_dir (created if needed); returns out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "native_functions.yaml").write_text(native_functions_text(count), encoding="utf-8")
    (out_dir / "tags.yaml").write_text(tags_text(), encoding="utf-8")
    (out_dir / "derivatives.yaml").write_text("[]\n", encoding="utf-8")
    return out_dir


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir", type=Path, help="directory to write the three YAML files into")
    p.add_argument("--entries", type=int, default=DEFAULT_ENTRIES,
                   help="number of native_functions.yaml entries (default: %(default)s)")
    args = p.parse_args(argv)
    if args.entries < 1:
        p.error("--entries must be at least 1")
    write(args.out_dir, args.entries)
    print(f"make_synthetic_yaml: {args.entries} entries in {args.out_dir}/native_functions.yaml")
    return 0


if __name__ == "__main__":
    sys.exit(main())
