"""Qrels by ir_datasets name: a local dataset registered in tmp_path (no network)."""

from __future__ import annotations

import pytest

ir_datasets = pytest.importorskip("ir_datasets")

from ir_datasets.datasets.base import Dataset  # noqa: E402
from ir_datasets.formats import TrecQrels  # noqa: E402
from ir_datasets.util import LocalDownload  # noqa: E402

from rankproof import Qrels  # noqa: E402
from rankproof.data.datasets import dataset_qrels  # noqa: E402
from rankproof.errors import InputError  # noqa: E402


class _Docs:
    def __init__(self, measures):
        self.measures = measures

    def documentation(self):
        return {"official_measures": self.measures}


def _register(tmp_path, name, measures):
    path = tmp_path / f"{name.replace('/', '_')}.qrels"
    path.write_text("q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n")
    if name not in ir_datasets.registry:
        ir_datasets.registry.register(name, Dataset(TrecQrels(LocalDownload(path), {0: "not", 1: "partly", 2: "yes"}),
                                                    _Docs(measures)))


def test_local_dataset_qrels_and_declarations(tmp_path):
    _register(tmp_path, "rankproof-test/local", ["nDCG@10", "AP(rel=2)"])
    judgments, info = dataset_qrels("rankproof-test/local")
    assert judgments == {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}
    assert info.official_measures == ("nDCG@10", "AP(rel=2)")
    assert info.relevance_level == 2
    assert info.grade_meanings == {0: "not", 1: "partly", 2: "yes"}
    assert info.quirks == ()
    assert Qrels.from_ir_datasets("rankproof-test/local").to_dict() == {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}


def test_quirk_named_for_arguana_prefix(tmp_path):
    _register(tmp_path, "beir/arguana/rankproof-test", [])
    _, info = dataset_qrels("beir/arguana/rankproof-test")
    assert [policy for policy, _ in info.quirks] == ["ignore_identical_ids"]


def test_unknown_dataset_is_one_line():
    with pytest.raises(InputError, match="no dataset"):
        dataset_qrels("rankproof-test/absent")
