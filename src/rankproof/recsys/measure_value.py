"""MeasureValue: what every value of a side-data measure carries, the text of its measure.

The per-list values (:class:`~rankproof.recsys.list_values.ListValues`), the catalogue values
(:class:`~rankproof.recsys.catalogue_value.CatalogueValue`) and the measure functions' own
results (:class:`~rankproof.recsys.auc.AUCValue`, :class:`~rankproof.recsys.exposure.GroupExposure`,
...) derive from it, so the field is declared and documented once.
"""

from __future__ import annotations

import dataclasses

__all__ = ["MeasureValue"]


@dataclasses.dataclass(frozen=True)
class MeasureValue:
    """The value of a side-data measure, named by the measure's text.

    Attributes
    ----------
    measure : str
        The measure's text with every choice it was computed under, e.g. ``coverage@10``,
        ``gini(universe=catalogue,normaliser=n)@10`` or ``gauc(weights=impressions)``.
    """

    measure: str
