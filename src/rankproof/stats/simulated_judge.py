"""A noisy synthetic judge made from true qrels, with a stated error model, so that the right answer is known.

Used to plan and to test judgment pipelines: the judge's errors are drawn
from a model you choose, and the true qrels stay at hand to check any
estimate against. Error model, for every (query, doc) the judge labels:

- a doc of the true qrels: with probability `lenient` the judge gives one
  grade more than the truth (capped at `top`; LLM judges are known to be
  lenient), else with probability `noise` a grade drawn uniformly from
  0..`top`, else the true grade;
- an `extra` doc (retrieved, never judged, so truly grade 0): grade 1 with
  probability `false_positive`, else 0.

Draws come from ``numpy.random.default_rng(seed)`` in the order of the
queries and docs given, so a seed gives the same judge every time.

Examples
--------
>>> truth = {"q1": {"a": 2, "b": 0}, "q2": {"c": 1}}
>>> judge = simulated_judge(truth, lenient=1.0, noise=0.0, seed=0)
>>> judge
{'q1': {'a': 3, 'b': 1}, 'q2': {'c': 2}}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankproof.errors import InputError

__all__ = ["simulated_judge", "topic_sample"]


def simulated_judge(qrels: Mapping[Any, Mapping[Any, int]], *,
                    extra: Mapping[Any, Sequence[Any]] | None = None,
                    lenient: float = 0.25, noise: float = 0.15, false_positive: float = 0.2,
                    top: int = 4,
                    seed: int = 0) -> dict[Any, dict[Any, int]]:
    """The judge's qrels ``{query: {doc: grade}}`` under the module's error model."""
    for name, p in (("lenient", lenient), ("noise", noise), ("false_positive", false_positive)):
        if not 0 <= p <= 1:
            raise InputError(what=f"{name} must be a probability in [0, 1]", value=p)
    rng = np.random.default_rng(seed)
    judged: dict[Any, dict[Any, int]] = {}
    for query, docs in qrels.items():
        draws = rng.random((len(docs), 2))
        uniform = rng.integers(0, top + 1, size=len(docs))
        out = judged.setdefault(query, {})
        for (doc, grade), (first, second), random_grade in zip(docs.items(), draws, uniform):
            if first < lenient:
                out[doc] = min(top, int(grade) + 1)
            elif second < noise:
                out[doc] = int(random_grade)
            else:
                out[doc] = int(grade)
    for query, retrieved in (extra or {}).items():
        fresh = [doc for doc in retrieved if doc not in qrels.get(query, {})]
        draws = rng.random(len(fresh))
        out = judged.setdefault(query, {})
        for doc, draw in zip(fresh, draws):
            out[doc] = int(draw < false_positive)
    return judged


def topic_sample(qrels: Mapping[Any, Mapping[Any, int]], size: int, *,
                 seed: int = 0) -> dict[Any, dict[Any, int]]:
    """The qrels of `size` topics drawn uniformly without replacement (the humans' random sample).

    >>> sorted(topic_sample({"q1": {"a": 1}, "q2": {"b": 0}, "q3": {"c": 2}}, 2, seed=1))
    ['q1', 'q2']
    """
    topics = list(qrels)
    if not 0 < size <= len(topics):
        raise InputError(what=f"the sample size must be between 1 and the {len(topics)} topics",
                         value=size)
    chosen = set(np.random.default_rng(seed).choice(len(topics), size=size, replace=False).tolist())
    return {topic: dict(qrels[topic]) for i, topic in enumerate(topics) if i in chosen}
