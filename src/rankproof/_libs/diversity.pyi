"""Type stub of the compiled module ``_diversity.pyx`` (the signatures the Python layer uses)."""

import numpy as np

def novelty_gain(offsets: np.ndarray, query_groups: np.ndarray, group_offsets: np.ndarray, rel_offsets: np.ndarray,
                 rel_pair: np.ndarray, pair_offsets: np.ndarray, weight: np.ndarray, cutoff: np.ndarray,
                 discount: np.ndarray, alpha: float) -> np.ndarray: ...
def per_intent(offsets: np.ndarray, query_groups: np.ndarray, group_offsets: np.ndarray, rel_offsets: np.ndarray,
               rel_pair: np.ndarray, rel_value: np.ndarray, num_pairs: int, cutoff: np.ndarray,
               discount: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
def greedy_ideal(pool_offsets: np.ndarray, pool_doc_offsets: np.ndarray, pool_pair: np.ndarray, weight: np.ndarray,
                 cutoff: np.ndarray, discount: np.ndarray, alpha: float) -> np.ndarray: ...
