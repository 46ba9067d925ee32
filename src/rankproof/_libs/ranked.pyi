"""Type stub of the compiled module ``_ranked.pyx`` (the signatures the Python layer uses)."""

import numpy as np

def evaluate_ranked(
    offsets: np.ndarray, group_offsets: np.ndarray,
    grade: np.ndarray, judged: np.ndarray,
    pool_offsets: np.ndarray, pool_grade: np.ndarray,
    gains: np.ndarray, level_of: np.ndarray, level_gain: np.ndarray,
    num_levels: np.ndarray, gain_formula: np.ndarray, grade_min: int,
    discount: np.ndarray, cumulative: np.ndarray,
    plan: np.ndarray, params: np.ndarray, rels: np.ndarray,
    sources: np.ndarray,
    num_threads: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]: ...
