"""opcore.cdist: torch.cdist's Python function (torch/functional.py), which takes compute_mode
as a string and calls the cdist operator with its int (issue #34)."""
from opcore import _C

_COMPUTE_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                  "donot_use_mm_for_euclid_dist": 2}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distances between the rows of x1 [*B1, P, M] and x2 [*B2, R, M] (batch
    dimensions broadcast): [*B, P, R], as torch.cdist. compute_mode
    'use_mm_for_euclid_dist_if_necessary' computes p = 2 as a matrix product when P or R
    exceeds 25, 'use_mm_for_euclid_dist' always, 'donot_use_mm_for_euclid_dist' never."""
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _C.cdist(x1, x2, p, _COMPUTE_MODES[compute_mode])
