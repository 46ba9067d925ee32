"""Named measure sets: one name that stands for several measures wherever measures are read.

=============  ================================================================================
name           measures
=============  ================================================================================
``cwl_eval``   cwl_eval's default metrics (run without a metrics file): P@1-5, P@10, RBP at
               0.2, 0.4 and 0.8, SDCG@5 and @10, RR, AP, INST at T = 1, 2 and 3
=============  ================================================================================

``-m cwl_eval`` on the command line, or ``evaluate(qrels, run, ["cwl_eval"])``,
evaluates each of them (the quantity each reports is cwl_eval's expected
utility; ``cwl_p(quantity=ec)@1`` and so on for the others).

>>> expand_sets(["ndcg@10", "cwl_eval"])[:4]
['ndcg@10', 'cwl_p@1', 'cwl_p@2', 'cwl_p@3']
>>> len(MEASURE_SETS["cwl_eval"])
16
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = ["MEASURE_SETS", "expand_sets"]

MEASURE_SETS: dict[str, tuple[str, ...]] = {
    # cwl/ruler/cwl_ruler.py's list when no metrics file is given (cwl-eval 1.0.12)
    "cwl_eval": (*(f"cwl_p@{k}" for k in (1, 2, 3, 4, 5, 10)),
                 *(f"cwl_rbp(p={p})" for p in (0.2, 0.4, 0.8)),
                 "sdcg@5", "sdcg@10", "cwl_rr", "cwl_ap",
                 *(f"inst(T={t})" for t in (1, 2, 3))),
}


def expand_sets(texts: Iterable[Any]) -> list[Any]:
    """`texts` with each set's name replaced by its measures (anything else kept as given, in order)."""
    found: list[Any] = []
    for text in texts:
        members = MEASURE_SETS.get(text.strip()) if isinstance(text, str) else None
        found.extend(members if members is not None else [text])
    return found
