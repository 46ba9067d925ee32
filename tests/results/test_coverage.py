"""The coverage warning keeps the caller's min_coverage (rankproof.results.coverage).

A stated limit is a promise: with ``min_coverage=0.75, allow_partial=True`` a run
that ranks 60% of the judged queries is below what the caller asked for, so it is
said, once, naming 75%, by the guard's warning and by every later reading of the
results (the summary, the command line, the report). Before, the warning read the
fixed default (0.5) and said nothing at 60%.

Worked by hand: five judged queries q1..q5, each with one relevant doc d; the run
ranks d first for q1, q2, q3 and nothing for q4, q5. Coverage 3/5 = 60%; rr per
query 1, 1, 1, 0, 0 (missing_query=zero), mean 0.6.
"""

from __future__ import annotations

import warnings

import pytest

from rankproof import Qrels, Results, Run, evaluate
from rankproof.errors import CoverageError, RankproofWarning
from rankproof.results.coverage import coverage_warning, share_text

QRELS = Qrels.from_dict({f"q{i}": {"d": 1} for i in range(1, 6)})
RUN = Run.from_dict({f"q{i}": ["d"] for i in range(1, 4)})
SIXTY = ("the run ranks 3 of the 5 judged queries (60.0%), below the 75% asked for; "
         "the other 2 are scored 0 (missing_query=zero)")


def _evaluated(**options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = evaluate(QRELS, RUN, "rr", **options)
    return results, [str(w.message) for w in caught if issubclass(w.category, RankproofWarning)]


def test_below_the_callers_share_is_said_naming_it():
    results, said = _evaluated(min_coverage=0.75, allow_partial=True)
    assert results.query_coverage == 0.6 and results.mean("rr") == pytest.approx(0.6)
    assert said == [SIXTY]
    assert results.min_coverage == 0.75
    # the results keep the share: the summary says the same line, once
    assert results.summary().count("warning: the run ranks") == 1
    assert f"warning: {SIXTY}" in results.summary()


def test_at_or_above_the_callers_share_nothing_is_said():
    for share in (0.6, 0.5, 0.2):   # 60% covered: not below 60%, 50% or 20%
        results, said = _evaluated(min_coverage=share, allow_partial=True)
        assert said == [] and coverage_warning(results) is None
        assert "the run ranks" not in results.summary()


def test_the_warning_is_said_exactly_where_the_refusal_would_be():
    for share in (0.61, 0.75, 1.0):
        with pytest.raises(CoverageError, match=f"below the {share_text(share)} asked for"):
            evaluate(QRELS, RUN, "rr", min_coverage=share)
        assert _evaluated(min_coverage=share, allow_partial=True)[1] != []
    evaluate(QRELS, RUN, "rr", min_coverage=0.6)   # accepted, and (above) silent with allow_partial


def test_none_ranked_is_said_whatever_the_share():
    # 0% covered is refused even at min_coverage=0; allowed, it is said (without a "below").
    with pytest.raises(CoverageError, match="ranks none of the 5"):
        evaluate(QRELS, Run.from_dict({"x": ["d"]}), "rr", min_coverage=0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = evaluate(QRELS, Run.from_dict({"x": ["d"]}), "rr", min_coverage=0.0,
                           allow_partial=True)
    none = ("the run ranks 0 of the 5 judged queries (0.0%); the other 5 are scored 0 "
            "(missing_query=zero), so the mean is mostly made of queries it does not rank")
    assert coverage_warning(results) == none
    assert none in [str(w.message) for w in caught]


def test_under_half_is_said_even_when_a_lower_share_was_asked_for():
    # 2 of 5 (40%) with min_coverage=0.3: accepted without allow_partial, and said: under the
    # default 50%, the mean (2 ones, 3 zeros) is mostly made of queries the run does not rank.
    two = Run.from_dict({"q1": ["d"], "q2": ["d"]})
    results = evaluate(QRELS, two, "rr", min_coverage=0.3)
    assert results.mean("rr") == pytest.approx(0.4)
    assert coverage_warning(results) == (
        "the run ranks 2 of the 5 judged queries (40.0%), below the default 50% (30% asked for); "
        "the other 3 are scored 0 (missing_query=zero), so the mean is mostly made of queries it "
        "does not rank")
    # missing_query=exclude: the mean is of the ranked queries only, so no "mostly"
    with pytest.warns(RankproofWarning, match="below the 75% asked for"):
        excluded = evaluate(QRELS, RUN, "rr", "missing_query=exclude", min_coverage=0.75,
                            allow_partial=True)
    assert coverage_warning(excluded) == (
        "the run ranks 3 of the 5 judged queries (60.0%), below the 75% asked for; the other 2 "
        "are left out of the mean (missing_query=exclude)")


def test_an_explicit_share_overrides_the_kept_one_and_shares_print_exactly():
    results, _ = _evaluated(min_coverage=0.5, allow_partial=True)
    assert coverage_warning(results) is None
    assert coverage_warning(results, 0.625).endswith("below the 62.5% asked for; the other 2 are "
                                                    "scored 0 (missing_query=zero)")
    shown = [share_text(s) for s in (0.5, 0.75, 0.125, 1, 0)]
    assert shown == ["50%", "75%", "12.5%", "100%", "0%"]


def test_joined_results_keep_the_share():
    results, _ = _evaluated(min_coverage=0.75, allow_partial=True)
    joined = Results.concat([results])
    assert joined.min_coverage == 0.75 and coverage_warning(joined) == SIXTY
    everything = Run.from_dict({f"q{i}": ["d"] for i in range(1, 6)})
    assert evaluate(QRELS, everything, "rr").min_coverage == 0.5   # the default when not asked


def test_out_of_core_results_keep_the_share(tmp_path, monkeypatch):
    # The parts are evaluated with allow_partial (the guard reads the whole): the joined results
    # must still carry the caller's share. Users 1..5 judged (item 7 each), 1..3 predicted: 60%.
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    from rankproof import evaluate_frame

    monkeypatch.setenv("RANKPROOF_MIN_PART_ROWS", "1")   # a part per user or two
    truth, predictions = tmp_path / "truth.parquet", tmp_path / "predictions.parquet"
    pq.write_table(pa.table({"user": [1, 2, 3, 4, 5], "item": [7] * 5}), truth, row_group_size=2)
    pq.write_table(pa.table({"user": [1, 2, 3], "item": [7] * 3, "score": [1.0] * 3}), predictions,
                   row_group_size=2)
    for budget in ("2KB", None):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results = evaluate_frame(str(truth), str(predictions), "rr", rating=None,
                                     memory_budget=budget, min_coverage=0.75, allow_partial=True)
        said = [str(w.message) for w in caught if issubclass(w.category, RankproofWarning)]
        assert said == [SIXTY], (budget, said)
        assert results.min_coverage == 0.75 and results.mean("rr") == pytest.approx(0.6)
        assert results.summary().count("below the 75% asked for") == 1
