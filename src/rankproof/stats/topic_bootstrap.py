"""Bootstrap over topics as counts: how often each topic is drawn in each resample, in bounded chunks.

Drawing n topics with replacement is one multinomial draw of n over the
topics; a statistic that is a function of per-topic sums is then
``counts @ sums``. The counts are drawn chunk by chunk (at most about
:data:`rankproof.stats.resampling.CHUNK_VALUES` counts at once), rows in
order from one generator, which gives the same rows as one call for all
the resamples: memory stays bounded whatever the number of topics.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from rankproof.stats.resampling import CHUNK_VALUES

__all__ = ["topic_counts"]


def topic_counts(topics: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Chunks of the (resamples, topics) matrix of draw counts, seeded; each row sums to `topics`.

    >>> chunks = list(topic_counts(4, 3, seed=0))
    >>> np.vstack(chunks).sum(axis=1).tolist()
    [4, 4, 4]
    """
    rng = np.random.default_rng(seed)
    chunk = max(1, CHUNK_VALUES // max(topics, 1))
    probabilities = np.full(topics, 1.0 / topics)
    for start in range(0, resamples, chunk):
        yield rng.multinomial(topics, probabilities, size=min(chunk, resamples - start))
