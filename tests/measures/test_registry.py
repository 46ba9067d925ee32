"""Every measure of the registry, held to the same properties (as
scikit-learn's metrics/tests/test_common.py holds its metrics).

For random small qrels and runs (seeded numpy: graded judgments, unjudged
docs, tied scores, queries with nothing relevant):

- every registered engine that supports the measure on an alignment (a run
  against qrels, or a dense score matrix) gives the numpy reference's
  values to 1e-12, numerators, denominators and undefined flags too;
- every value lies in the range the spec declares (``value_range``);
- renaming the docs (a bijection on doc ids that changes their sorted
  order) changes no value under ties=expected or ties=input;
- the ideal ranking (the relevant docs, best grade first) scores the top of
  the range where the spec says it does (``ideal_is_best``: every
  normalised measure but the intent-aware ones, whose ideal is over intents);
- the front doors agree: ``evaluate`` on Qrels and a Run, ``evaluate_frame``
  on the same rows as tables, ``evaluate_scores`` on the same judgments as
  score matrices (every candidate judged).

A measure registered later is picked up by these tests from ``REGISTRY``
with nothing to add here. Measures that need judgments per intent
(``needs_intents``) get an :class:`~rankproof.IntentQrels`.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankproof import IntentQrels, Protocol, Qrels, Run, evaluate, evaluate_frame, evaluate_scores
from rankproof.engines import ENGINES, get_engine
from rankproof.engines.base import refuse_ties
from rankproof.errors import TieError
from rankproof.measures.base import REGISTRY, Measure, MeasureSpec, TieSupport
from rankproof.pipeline.alignment import align
from rankproof.pipeline.intents import attach_intents
from rankproof.frontdoors.scores import DenseAlignment
from rankproof.frontdoors.scores._input import read_scores

SEEDS = range(12)
# Measures computed from a ranking (nugget scores are read from assignment files: tests/results/test_nuggets_results.py).
NAMES = [name for name, spec in REGISTRY.items() if spec.ranking]


def measures_of(spec: MeasureSpec) -> list[Measure]:
    """The measure as registered (unless it needs a cutoff), and cut at 3 where it takes a cutoff."""
    return [*([] if spec.needs_cutoff else [Measure(spec.name)]), *([Measure(spec.name, 3)] if spec.cutoff else [])]


def protocols(spec: MeasureSpec) -> list[Protocol]:
    """ties=input for every measure; ties=expected too where a closed form exists."""
    chosen = [Protocol(ties="input")]
    if spec.ties is TieSupport.EXACT:
        chosen.append(Protocol())
    return chosen


def judgments(seed: int) -> tuple[dict, dict]:
    """({query: {doc: grade}}, {query: {intent: {doc: 0 or 1}}}) on docs d0..d9 and a few more."""
    rng = np.random.default_rng(seed)
    graded, per_intent = {}, {}
    for q in range(int(rng.integers(2, 7))):
        query = f"q{q}"
        nothing_relevant = rng.random() < 0.2
        docs = {f"d{i}": 0 if nothing_relevant else int(rng.choice([0, 0, 1, 2, 3]))
                for i in range(int(rng.integers(1, 10)))}
        graded[query] = docs
        intents = {str(i): {doc: int(grade > 0 and rng.random() < 0.6) for doc, grade in docs.items()}
                   for i in range(1, int(rng.integers(2, 4)))}
        per_intent[query] = intents
    return graded, per_intent


def ranking(seed: int, graded: dict) -> dict:
    """{query: {doc: score}}: some judged docs, some unjudged ones, scores from a few levels (ties)."""
    rng = np.random.default_rng(10_000 + seed)
    rankings = {}
    for query, docs in graded.items():
        pool = list(docs) + [f"u{i}" for i in range(int(rng.integers(0, 4)))]
        chosen = rng.permutation(pool)[: int(rng.integers(1, len(pool) + 1))]
        levels = int(rng.integers(1, 5))
        rankings[query] = {str(doc): float(rng.integers(0, levels)) for doc in chosen}
    return rankings


def inputs(spec: MeasureSpec, graded: dict, per_intent: dict, rankings: dict, rename=None):
    """(qrels, run) as the measure needs them; `rename` maps every doc id to another."""
    rename = rename or (lambda doc: doc)
    run = Run.from_dict({q: {rename(d): s for d, s in docs.items()} for q, docs in rankings.items()})
    if spec.needs_intents:
        qrels = IntentQrels.from_dict({q: {i: {rename(d): g for d, g in docs.items()} for i, docs in intents.items()}
                                       for q, intents in per_intent.items()})
    else:
        qrels = Qrels.from_dict({q: {rename(d): g for d, g in docs.items()} for q, docs in graded.items()})
    return qrels, run


def alignment_of(qrels, run, protocol):
    if isinstance(qrels, IntentQrels):
        return attach_intents(align(qrels.doc_qrels, run, protocol), qrels)
    return align(qrels, run, protocol)


def dense_alignment(seed: int, protocol: Protocol) -> DenseAlignment:
    """A score matrix's alignment (some rows without a relevant column), as evaluate_scores builds it."""
    rng = np.random.default_rng(20_000 + seed)
    y_true = rng.integers(0, 4, (9, 6))
    y_true[rng.random(9) < 0.2] = 0
    y_score = rng.integers(0, 3, (9, 6)) / 2
    return DenseAlignment(read_scores(y_true, y_score, None, None, protocol), protocol)


def same_values(got, want, label: str) -> None:
    np.testing.assert_allclose(got.value, want.value, rtol=1e-12, atol=1e-12, err_msg=label)
    for field in ("numerator", "denominator", "undefined"):
        a, b = getattr(got, field), getattr(want, field)
        assert (a is None) == (b is None), f"{label} {field}"
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=f"{label} {field}")


def test_the_registry_declares_what_these_tests_read():
    for spec in REGISTRY.values():
        low, high = spec.value_range
        assert low < high, spec.name
        assert isinstance(spec.ties, TieSupport), spec.name
        # "Ideal is best" names the top of a bounded range.
        assert not spec.ideal_is_best or np.isfinite(high), spec.name


@pytest.mark.parametrize("name", NAMES)
def test_every_engine_that_supports_the_measure_agrees_with_numpy(name):
    spec = REGISTRY[name]
    reference = get_engine("numpy")
    compared = 0
    for seed in SEEDS:
        graded, per_intent = judgments(seed)
        qrels, run = inputs(spec, graded, per_intent, ranking(seed, graded))
        for protocol in protocols(spec):
            cases = [alignment_of(qrels, run, protocol)]
            if not spec.needs_intents and protocol.ties.value == "expected":
                cases.append(dense_alignment(seed, protocol))
            for alignment in cases:
                measures = measures_of(spec)
                try:
                    refuse_ties(alignment, measures, protocol)
                except TieError:
                    continue  # the planner refuses it whatever the engine
                want = reference.evaluate(alignment, measures, protocol)
                for engine_name in ENGINES:
                    engine = get_engine(engine_name)
                    mine = [m for m in measures if engine.supports(m, alignment, protocol)]
                    if engine_name == "numpy" or not mine:
                        continue
                    got = engine.evaluate(alignment, mine, protocol)
                    for m in mine:
                        same_values(got[m], want[m], f"{engine_name} {m} seed {seed} {protocol}")
                        compared += 1
    # Measures with a kernel must have met the compiled engine at least.
    if spec.kernel is not None:
        assert compared


@pytest.mark.parametrize("name", NAMES)
def test_values_lie_in_the_declared_range(name):
    spec = REGISTRY[name]
    low, high = spec.value_range
    for seed in SEEDS:
        graded, per_intent = judgments(seed)
        qrels, run = inputs(spec, graded, per_intent, ranking(seed, graded))
        for protocol in protocols(spec):
            results = evaluate(qrels, run, measures_of(spec), protocol)
            for m in results.measures:
                values = results.values(m)
                values = values[~np.isnan(values)]
                assert (values >= low - 1e-12).all() and (values <= high + 1e-12).all(), \
                    f"{m} seed {seed}: {values.min()}..{values.max()} outside {spec.value_range}"


@pytest.mark.parametrize("name", NAMES)
def test_renaming_the_docs_changes_no_value(name):
    spec = REGISTRY[name]
    for seed in SEEDS:
        graded, per_intent = judgments(seed)
        rankings = ranking(seed, graded)
        docs = sorted({d for docs in graded.values() for d in docs} | {d for r in rankings.values() for d in r})
        # A bijection that reverses the sorted order of the ids (and changes their text).
        renamed = {doc: f"z{len(docs) - i:04d}" for i, doc in enumerate(docs)}
        qrels, run = inputs(spec, graded, per_intent, rankings)
        qrels2, run2 = inputs(spec, graded, per_intent, rankings, rename=renamed.__getitem__)
        for protocol in protocols(spec):
            a = evaluate(qrels, run, measures_of(spec), protocol)
            b = evaluate(qrels2, run2, measures_of(spec), protocol)
            for m in a.measures:
                np.testing.assert_allclose(b.values(m), a.values(m), rtol=1e-12, atol=1e-12,
                                           err_msg=f"{m} seed {seed} {protocol}")


@pytest.mark.parametrize("name", [name for name, spec in REGISTRY.items() if spec.ideal_is_best])
def test_the_ideal_ranking_scores_the_top_of_the_range(name):
    spec = REGISTRY[name]
    best = spec.value_range[1]
    for seed in SEEDS:
        graded, per_intent = judgments(seed)
        # The relevant docs, best grade first (no ties), for the queries with something relevant.
        ideal = {q: {d: float(len(docs) - i) for i, d in enumerate(sorted((d for d in docs if docs[d] > 0),
                                                                          key=lambda d: -docs[d]))}
                 for q, docs in graded.items() if any(docs.values())}
        if not ideal:
            continue
        graded = {q: graded[q] for q in ideal}
        per_intent = {q: per_intent[q] for q in ideal}
        qrels, run = inputs(spec, graded, per_intent, ideal)
        measure = Measure(spec.name, 100 if spec.needs_cutoff else None)
        values = evaluate(qrels, run, measure, Protocol()).values(measure)
        if spec.needs_intents:
            # Queries where some intent has a relevant doc.
            values = values[[any(any(g for g in docs.values()) for docs in per_intent[q].values())
                             for q in sorted(ideal)]]
        # infAP smooths its estimate with e = 1e-5 (trec_eval's), so its ideal is 1 - O(e).
        tolerance = 1e-4 if name == "infap" else 1e-12
        np.testing.assert_allclose(values, best, rtol=0, atol=tolerance, err_msg=f"{name} seed {seed}")


def test_normalised_measures_say_whether_the_ideal_is_best():
    """The normalised measures whose ideal is not the doc ranking by grade are the intent-aware
    ones (their ideal is over intents: alpha_ndcg's greedy one, each intent's own for ndcg_ia...)."""
    not_best = {spec.name for spec in REGISTRY.values() if spec.normalised and not spec.ideal_is_best}
    assert all(REGISTRY[name].needs_intents for name in not_best), not_best


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name, spec in REGISTRY.items() if not spec.needs_intents and spec.ranking])
def test_the_front_doors_agree(name):
    """evaluate_frame on the rows of the qrels and the run; evaluate_scores on matrices whose
    every candidate is judged (the qrels then list every ranked doc, grade 0 included).
    Intent-aware measures read judgments per intent, which neither table front door takes."""
    pd = pytest.importorskip("pandas")
    spec = REGISTRY[name]
    for seed in SEEDS:
        graded, _ = judgments(seed)
        rankings = ranking(seed, graded)
        qrels, run = Qrels.from_dict(graded), Run.from_dict(rankings)
        truth = pd.DataFrame([(q, d, g) for q, docs in graded.items() for d, g in docs.items()],
                             columns=["user", "item", "rating"])
        predictions = pd.DataFrame([(q, d, s) for q, docs in rankings.items() for d, s in docs.items()],
                                   columns=["user", "item", "score"])
        # Matrices: row q holds the judged docs of q, every one a candidate.
        queries = sorted(graded)
        width = max(len(docs) for docs in graded.values())
        y_true = np.full((len(queries), width), np.nan)
        y_score = np.full((len(queries), width), np.nan)
        for row, q in enumerate(queries):
            for column, (doc, grade) in enumerate(sorted(graded[q].items())):
                y_true[row, column] = grade
                y_score[row, column] = np.random.default_rng(seed + row).integers(0, 3)
        matrix_qrels = Qrels.from_dict({q: graded[q] for q in queries})
        matrix_run = Run.from_dict({q: {doc: float(y_score[row, column])
                                        for column, doc in enumerate(sorted(graded[q]))}
                                    for row, q in enumerate(queries)})
        for protocol in protocols(spec):
            measures = measures_of(spec)
            want = evaluate(qrels, run, measures, protocol)
            frame = evaluate_frame(truth, predictions, measures, protocol)
            assert frame.queries == want.queries
            for m in measures:
                np.testing.assert_allclose(frame.values(m), want.values(m), rtol=1e-12, atol=1e-12,
                                           err_msg=f"frame {m} seed {seed}")
            if protocol.ties.value != "expected":
                continue  # a matrix's tied columns are ordered by column index, not by the run's ids
            scored = evaluate_scores(y_true, y_score, measures, protocol)
            reference = evaluate(matrix_qrels, matrix_run, measures, protocol)
            for m in measures:
                np.testing.assert_allclose(scored.values(m), reference.values(m), rtol=1e-12, atol=1e-12,
                                           err_msg=f"scores {m} seed {seed}")
