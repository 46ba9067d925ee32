"""Score matrices as an alignment: moved to :mod:`rankproof.pipeline.scores` (names kept here)."""

from ...pipeline.scores import (
    POOL_NOTE, base_counts, check_num_relevant, num_relevant_note, score_alignment,
)

__all__ = ["POOL_NOTE", "score_alignment", "base_counts", "num_relevant_note", "check_num_relevant"]
