"""Which test to run, from the number of topics and systems, with the study behind the advice.

A rule of thumb, stated with its source so a reader can weigh it:

- thousands of topics (users): every test rejects tiny differences, and the
  tests agree with each other; report effect sizes with intervals and judge
  the size of a difference, not its p-value (Ihemelandu and Ekstrand,
  "Inference at Scale: Significance Testing for Large Search and
  Recommendation Experiments", SIGIR 2023);
- two systems: the paired randomization test (Smucker, Allan and Carterette,
  "A comparison of statistical significance tests for information retrieval
  evaluation", CIKM 2007), as ``rankproof compare`` runs by default;
- three or more systems on up to about a hundred topics: the Wilcoxon
  signed-rank test with Benjamini-Hochberg's correction (Otero et al. 2025:
  the best balance of errors with a few dozen topics and many systems);
- three or more systems on more topics: the randomised Tukey HSD over all
  pairs, or MaxT against baselines (Carterette, "Multiple testing in
  statistical analysis of systems-based information retrieval experiments",
  ACM TOIS 30(1), 2012).
"""

from __future__ import annotations

import dataclasses

from ..errors import InputError

__all__ = ["Recommendation", "recommend_test", "RULES"]

LARGE_TOPICS = 1000
FEW_TOPICS = 100


@dataclasses.dataclass(frozen=True)
class Recommendation:
    """A test (and correction) to use, why, and the study it comes from."""

    test: str
    correction: str
    reason: str
    reference: str

    def __str__(self) -> str:
        return f"recommended: {self.test} with {self.correction} ({self.reason}; {self.reference})"


# (applies(topics, systems), recommendation): the first that applies wins; the reason names the
# counts.
RULES = (
    (lambda topics, systems: topics >= LARGE_TOPICS,
     Recommendation("effect sizes with confidence intervals (any paired test: they agree at this size)", "bh",
                    "{topics} topics make tiny differences significant",
                    "Ihemelandu and Ekstrand, Inference at Scale, SIGIR 2023")),
    (lambda topics, systems: systems == 2,
     Recommendation("the paired randomization test", "no correction (one pair)",
                    "two systems on {topics} topics",
                    "Smucker, Allan and Carterette, CIKM 2007")),
    (lambda topics, systems: topics < FEW_TOPICS,
     Recommendation("the Wilcoxon signed-rank test", "bh",
                    "{systems} systems on {topics} topics, fewer than %d" % FEW_TOPICS,
                    "Otero et al. 2025")),
    (lambda topics, systems: True,
     Recommendation("randomised Tukey HSD (all pairs) or MaxT (against baselines)",
                    "their own family-wise "
                    "adjustment", "{systems} systems on {topics} topics",
                    "Carterette, Multiple testing in systems-based IR experiments, ACM TOIS 30(1) 2012")),
)


def recommend_test(topics: int, systems: int) -> Recommendation:
    """The test to use for ``systems`` systems measured on ``topics`` topics.

    Examples
    --------
    >>> recommend_test(50, 8).test
    'the Wilcoxon signed-rank test'
    >>> print(recommend_test(50, 8))
    recommended: the Wilcoxon signed-rank test with bh (8 systems on 50 topics, fewer than 100; Otero et al. 2025)
    >>> recommend_test(5000, 3).reference
    'Ihemelandu and Ekstrand, Inference at Scale, SIGIR 2023'
    """
    if topics < 2 or systems < 2:
        raise InputError(what=f"a test needs at least 2 topics and 2 systems; got {topics} topics and {systems} "
                              "systems", value=(topics, systems))
    advice = next(advice for applies, advice in RULES if applies(topics, systems))
    return dataclasses.replace(advice, reason=advice.reason.format(topics=topics, systems=systems))
