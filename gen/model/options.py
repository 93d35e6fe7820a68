"""How the YAML is read: opcore's rules (the defaults), or torchgen's for YAML written for it
(--pytorch-yaml, PYTORCH_OPTIONS; see tests/gen/test_pytorch_yaml.py)."""
from __future__ import annotations

from dataclasses import dataclass

from gen.model.dispatch import PYTORCH_ONLY_DISPATCH_KEYS


@dataclass(frozen=True)
class ParseOptions:
    """Departures from opcore's rules, for reading YAML written for torchgen (PyTorch's own
    native_functions.yaml and derivatives.yaml). The generator uses the defaults, which are
    opcore's rules, unless run with --pytorch-yaml (PYTORCH_OPTIONS).

    ignored_dispatch_keys: `dispatch:` keys dropped instead of rejected; each entry records the
        ones it named (NativeFunction.dropped_dispatch_keys). See Note [Dispatch keys in YAML].
    ignored_entry_keys: entry keys accepted and not read (torchgen's ufunc_inner_loop, ...).
    dispatch_required: False accepts an entry without `dispatch:` and leaves its dispatch
        empty (torchgen gives it a CompositeImplicitAutograd kernel named after the operator):
        enough to read such YAML and generate its API, not to link it (no kernel is registered).
        It also accepts `dispatch: {}`, an operator with no kernel at all (torchgen's reading:
        not even the CompositeImplicitAutograd one), which opcore's rules call a mistake.
    out_overload_reserved: the overload names `out` and `*_out` are only for out= overloads
        (schema_checks.check_out_overload_name); torchgen has no such rule
        (`fbgemm_linear_fp16_weight.out` takes a positional output).
    shared_autogen: an operator's functional and in-place overloads may list the same overload
        in `autogen:` (PyTorch's `_foreach_lerp.List_out`), which is generated once; opcore's
        rule is that one entry lists it.
    runtime_methods_dropped: an entry with a method the runtime defines by hand (RUNTIME_METHODS:
        PyTorch's `detach`, `detach_`) keeps only its function; opcore's rule is an error.
    torchgen_derivatives: derivatives.yaml is read with torchgen's rules (Note [torchgen's
        derivatives format] in gen/model/derivatives.py) instead of opcore's stricter ones.
    formula_helpers: names formulas may call besides opcore's operators and the helpers of
        opcore/autograd/Formulas.h (--formula-helpers FILE): functions the user's build
        declares, such as PyTorch's FunctionsManual.h.
    """

    ignored_dispatch_keys: frozenset[str] = frozenset()
    ignored_entry_keys: frozenset[str] = frozenset()
    dispatch_required: bool = True
    out_overload_reserved: bool = True
    shared_autogen: bool = False
    runtime_methods_dropped: bool = False
    torchgen_derivatives: bool = False
    formula_helpers: frozenset[str] = frozenset()


# How PyTorch's own YAML is read: its backend keys are dropped, the keys torchgen has and
# opcore does not are skipped, an entry may omit `dispatch:`, and derivatives.yaml follows
# torchgen's rules.
PYTORCH_OPTIONS = ParseOptions(
    ignored_dispatch_keys=PYTORCH_ONLY_DISPATCH_KEYS,
    ignored_entry_keys=frozenset({"use_const_ref_for_mutable_tensors", "category_override", "ufunc_inner_loop"}),
    dispatch_required=False,
    out_overload_reserved=False,
    shared_autogen=True,
    runtime_methods_dropped=True,
    torchgen_derivatives=True,
)
