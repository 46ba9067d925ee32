"""Type stub of the compiled module ``ranked.pyx`` (the signatures the Python layer uses).

Arrays: the dtype is the one in the annotation, exactly (no conversion), and
every array is C-contiguous (a ``[::1]`` or ``[:, ::1]`` memoryview: another
layout raises ValueError). Read-only arrays are accepted.
"""

from enum import IntEnum

import numpy as np
from numpy.typing import NDArray

class Kind(IntEnum):
    """The kernel's measure kinds (a plan's first column); lower-cased, the measure's name."""

    DCG = 0
    IDEAL_DCG = 1
    NDCG = 2
    AP = 3
    RR = 4
    HIT = 5
    P = 6
    R = 7
    RPREC = 8
    BPREF = 9
    JUDGED = 10
    NUM_RET = 11
    NUM_REL = 12
    NUM_REL_RET = 13
    SET_P = 14
    SET_R = 15
    SET_RELATIVE_P = 16
    SET_AP = 17
    SET_F = 18
    UTILITY = 19
    RELATIVE_P = 20
    RPREC_MULT = 21
    NUM_NONREL_JUDGED_RET = 22
    UNJUDGED = 23
    ERR = 24

def plan_layout() -> dict[str, dict[str, int]]:
    """The plan enums of ranked.pxd (Column, Param, Denominator, Pool) and common.pxd's GainKind, by name."""
    ...

def evaluate_ranked(
    offsets: NDArray[np.int64],        # (queries + 1,), C-contiguous
    group_offsets: NDArray[np.int64],  # (groups + 1,), C-contiguous
    grade: NDArray[np.int64],          # (positions,), C-contiguous
    judged: NDArray[np.uint8],         # (positions,), C-contiguous, 0 or 1
    pool_offsets: NDArray[np.int64],   # (queries + 1,), C-contiguous
    pool_grade: NDArray[np.int64],     # (judgments,), C-contiguous
    gains: NDArray[np.float64],        # (gain tables, grade span), C-contiguous
    level_of: NDArray[np.int32],       # (gain tables, grade span), C-contiguous
    level_gain: NDArray[np.float64],   # (gain tables, levels), C-contiguous
    num_levels: NDArray[np.int64],     # (gain tables,), C-contiguous
    gain_formula: NDArray[np.int64],   # (gain tables,), C-contiguous: 0 linear, 1 exp2, 2 table
    grade_min: int,
    discount: NDArray[np.float64],     # (discount tables, length), C-contiguous
    cumulative: NDArray[np.float64],   # (discount tables, length + 1), C-contiguous
    plan: NDArray[np.int64],           # (measures, 7), C-contiguous
    params: NDArray[np.float64],       # (measures, 5), C-contiguous
    rels: NDArray[np.int64],           # (rels,), C-contiguous
    sources: NDArray[np.int64],        # (ideal sources, 2), C-contiguous
    num_threads: int = 1,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.uint8],
           NDArray[np.int64]]:
    """(value, numerator, denominator, undefined, crossings), each (measures, queries), C-contiguous."""
