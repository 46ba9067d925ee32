"""Results are read-only once made (issue 37, item 6): a name is given as an argument, never
assigned afterwards; Results.replace gives a renamed copy and leaves the original as it was."""

from __future__ import annotations

import pytest

from rankproof import Qrels, Run, evaluate


@pytest.fixture
def results():
    return evaluate(Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}}),
                    Run.from_dict({"q1": ["a"], "q2": ["x", "b"]}), ["rr"])


@pytest.mark.parametrize("name", ["run_name", "side", "protocol", "complete_judgments", "new_attribute"])
def test_a_public_name_cannot_be_assigned(results, name):
    with pytest.raises(AttributeError, match=f"use results.replace\\({name}="):
        setattr(results, name, "x")


def test_replace_renames_a_copy_and_shares_the_values(results):
    renamed = results.replace(run_name="bm25")
    assert (renamed.run_name, results.run_name) == ("bm25", "run")
    assert renamed.mean("rr") == results.mean("rr") == 0.75   # (1 + 1/2) / 2 by hand
    assert renamed.result("rr") is results.result("rr")


def test_a_selected_view_is_read_only_too(results):
    with pytest.raises(AttributeError):
        results.select(["rr"]).run_name = "other"
