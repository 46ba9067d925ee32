"""The atlas's edge cases: small qrels and runs on which ranking tools disagree.

Each case is data: TREC qrels rows ``(query, doc, grade)`` and run rows
``(query, doc, score)`` in file order, a cutoff ``k`` and what it exposes. The
atlas (``atlas.py``) writes each case as two TREC files and gives them to
every tool the way that tool takes its input.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

__all__ = ["Case", "CASES", "MEASURES", "measure_names"]

# The atlas's measures, by key; the name rankproof parses is built with the case's k.
MEASURES = ("ndcg", "p", "ap")


def measure_names(k: int) -> dict[str, str]:
    """key -> rankproof's name of the measure at cutoff k (AP is not cut)."""
    return {"ndcg": f"ndcg@{k}", "p": f"p@{k}", "ap": "ap"}


@dataclasses.dataclass(frozen=True)
class Case:
    key: str
    title: str
    what: str  # what the case exposes, one or two sentences
    k: int
    qrels: tuple[tuple[str, str, int], ...]
    run: tuple[tuple[str, str, float], ...]
    # policies that make rankproof's default accept the case (its refusal names them), for `rankproof why`
    ours: tuple[tuple[str, str], ...] = ()
    # what the tools whose cells no rankproof protocol reproduces do here (checked by hand against the
    # values the atlas shows; the table, not this text, is what the build measures)
    beyond: str = ""

    @property
    def measures(self) -> dict[str, str]:
        return measure_names(self.k)

    def qrels_text(self) -> str:
        return "".join(f"{q} 0 {d} {g}\n" for q, d, g in self.qrels)

    def run_text(self) -> str:
        rank: dict[str, int] = {}
        lines = []
        for q, d, s in self.run:
            rank[q] = rank.get(q, 0) + 1
            lines.append(f"{q} Q0 {d} {rank[q]} {s:g} atlas\n")
        return "".join(lines)

    def write(self, folder: Path) -> tuple[Path, Path]:
        """The case as ``KEY.qrels`` and ``KEY.run`` in folder."""
        qrels, run = folder / f"{self.key}.qrels", folder / f"{self.key}.run"
        qrels.write_text(self.qrels_text(), encoding="utf-8")
        run.write_text(self.run_text(), encoding="utf-8")
        return qrels, run

    def judged(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for q, d, g in self.qrels:
            out.setdefault(q, {})[d] = g
        return out

    def ranked(self) -> dict[str, list[tuple[str, float]]]:
        """query -> [(doc, score)] in file order (duplicates kept)."""
        out: dict[str, list[tuple[str, float]]] = {}
        for q, d, s in self.run:
            out.setdefault(q, []).append((d, s))
        return out

    def by_score(self) -> dict[str, list[tuple[str, float]]]:
        """query -> [(doc, score)] by score descending, tied docs in file order (a stable sort)."""
        return {q: sorted(docs, key=lambda pair: -pair[1]) for q, docs in self.ranked().items()}


def _q(query: str, grades: str) -> tuple[tuple[str, str, int], ...]:
    """'a=1 b=0' -> qrels rows of one query."""
    return tuple((query, d, int(g)) for d, g in (item.split("=") for item in grades.split()))


def _r(query: str, scores: str) -> tuple[tuple[str, str, float], ...]:
    """'a=.9 b=.8' -> run rows of one query, in that order."""
    return tuple((query, d, float(s)) for d, s in (item.split("=") for item in scores.split()))


CASES: tuple[Case, ...] = (
    Case("ties", "Ties across the cutoff",
         "c and d share the score 0.5 at ranks 3 and 4, and only d is relevant: which of them is inside "
         "the top 3 is the tie policy (file order, doc id, or the average over both orders).",
         3, _q("q1", "a=1 b=0 c=0 d=1"), _r("q1", "a=.9 b=.8 c=.5 d=.5")),
    Case("unjudged", "Unjudged docs in the top k",
         "a and x are retrieved but not judged: counted as non-relevant (gain 0) or dropped from the ranking.",
         3, _q("q1", "b=1 c=0 d=1 e=0"), _r("q1", "a=.9 b=.8 x=.7 d=.6")),
    Case("no_relevant", "A query with no relevant doc",
         "q2 judges its docs non-relevant: its ideal DCG is 0, so NDCG is 0/0 there, and the mean "
         "depends on whether q2 counts 0, 1 or not at all.",
         3, _q("q1", "a=1 b=0") + _q("q2", "x=0 y=0"), _r("q1", "a=.9 b=.8 c=.7") + _r("q2", "x=.9 y=.8")),
    Case("k_beyond", "k beyond the list",
         "The run lists 3 docs and the measures cut at 10: precision divides by 10 or by the 3 listed.",
         10, _q("q1", "a=1 b=1 c=0"), _r("q1", "a=.9 c=.8 b=.7")),
    Case("graded", "Graded vs binary relevance",
         "Grades 0-3: the gain of a grade is the grade (linear), 2^grade - 1 (exp2), or 1 for any relevant "
         "doc (binary).",
         3, _q("q1", "a=1 b=3 c=2 d=0"), _r("q1", "a=.9 b=.8 d=.7 c=.6")),
    Case("duplicates", "A doc listed twice",
         "The run lists a twice: an error, the first listing kept, the last one kept (a dict), or both counted.",
         3, _q("q1", "a=1 b=0 c=1"), _r("q1", "a=.9 b=.8 a=.7 c=.6"),
         ours=(("duplicates", "first"),),
         beyond="Tools that take dicts (pytrec_eval; ir_measures and ranx reading the file) keep the last "
                "listing of a, at its lower score (NDCG@3 (1/log2 3 + 1/2) / (1 + 1/log2 3) = 0.6934); "
                "tools that take score arrays (scikit-learn, torchmetrics, LightGBM) count both listings, in "
                "the ranking and in the ideal (0.7039), and Spark counts a twice as a hit, so its AP "
                "exceeds 1. rankproof offers duplicates=error (its default, as trec_eval) or first."),
    Case("negative", "Negative grades",
         "b is judged -1 (spam, say): refused, read as non-relevant, or kept in the pool but unjudged.",
         3, _q("q1", "a=1 b=-1 c=1 d=0"), _r("q1", "b=.9 a=.8 d=.7 c=.6"),
         ours=(("negative_grades", "zero"),),
         beyond="torchmetrics takes the grade -1 as a gain of -1, so NDCG falls below 0; rankproof reads a "
                "negative grade as an error (its default), as non-relevant (zero) or as unjudged."),
    Case("not_retrieved", "A relevant doc the run misses",
         "e (grade 2) is judged but not retrieved: the ideal ranking takes it from the judgments, or only "
         "from the retrieved docs.",
         3, _q("q1", "a=1 b=2 c=0 e=2"), _r("q1", "a=.9 c=.8 b=.7")),
    Case("missing_query", "A judged query the run leaves empty",
         "q2 is judged but the run has no line for it: an error, a 0 in the mean, or left out of the mean.",
         3, _q("q1", "a=1 b=0") + _q("q2", "x=1 y=0"), _r("q1", "a=.9 b=.8")),
    Case("empty_run", "An empty run",
         "The run file has no line at all.",
         3, _q("q1", "a=1 b=0"), (),
         beyond="ir_measures scores the judged query 0 when the run file is empty (and XGBoost an empty data "
                "set 0, with a warning); rankproof refuses an "
                "empty run file whatever the protocol (an empty file is more often a failed retrieval than "
                "a system that found nothing)."),
)
