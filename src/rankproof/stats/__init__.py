"""Comparing systems: paired significance tests, intervals, corrections, comparability.

``compare`` (also ``rankproof.compare``) runs a comparison; ``load_results``
reads results saved by ``rankproof evaluate --format json``. The modules:
``significance`` (paired tests), ``corrections`` (Holm, Bonferroni, BH),
``power`` (queries needed), ``saved`` (saved results), ``comparison``.

Many systems at once (``compare_systems``, ``rankproof systems``): ``tukey``
(randomised Tukey HSD), ``maxt`` (step-down MaxT), ``permutation`` (labels
permuted within topics, in chunks), ``anova`` (two-way ANOVA, mixed model),
``recommend`` (the test for the numbers of topics and systems), ``risk``
(URisk, TRisk, GeoRisk), ``design`` (topic set size), ``discriminative``
(discriminative power, ASL curves), ``matrix`` (the topics x systems matrix),
``systems`` (all of them per measure).

Groups of users: ``group_disparity`` (the spread of the groups' means of a measure, with an interval).

A/B buckets: ``balance`` (KS and chi-square per user attribute, corrected;
``rankproof balance``).

scipy is imported when a comparison runs, not when this package is imported.
"""

from .comparison import Comparison, ComparisonRow, compare
from .saved import SavedResults, load_results
from .systems import SystemsAnalysis, analyse_matrices, compare_systems
from .tukey import tukey_hsd
from .maxt import max_t
from .anova import mixed_model, two_way_anova
from .recommend import recommend_test
from .risk import georisk, risk_table, trisk, urisk
from .design import topics_for_anova, topics_for_ci_width, topics_for_t_test, variance_estimate
from .discriminative import discriminative_power
from .group_disparity import GroupDisparity, group_disparity

__all__ = ["compare", "Comparison", "ComparisonRow", "load_results", "SavedResults",
           "compare_systems", "analyse_matrices", "SystemsAnalysis", "tukey_hsd", "max_t",
           "two_way_anova",
           "mixed_model", "recommend_test", "urisk", "trisk", "georisk", "risk_table",
           "topics_for_t_test",
           "topics_for_anova", "topics_for_ci_width", "variance_estimate", "discriminative_power",
           "GroupDisparity", "group_disparity"]
