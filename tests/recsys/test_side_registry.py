"""A side-data measure of one's own: registered in one line, read by the one parser, computed by the API
and the command line (the how-to "a side-data measure" of docs/architecture.md).

The toy measure ``in_catalogue@k`` is the share of each user's top k that the
catalogue (``--items``) holds. By hand, with the catalogue {a, b, c} and k = 2:
user u ranks a, x (b third): 1 of 2 inside, 0.5; user v ranks c, a: 1.0; the mean
is 0.75.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankproof import Qrels, Run
from rankproof.cli.app import main
from rankproof.errors import MeasureError
from rankproof.measures.parse import parse_any, parse_measures
from rankproof.recsys.beyond import ListValues
from rankproof.recsys.registry import LIST, SIDE_REGISTRY, SideMeasure, SideSpec, register_side
from rankproof.recsys.side import SideData
from rankproof.recsys.side_eval import evaluate_with_side
from rankproof.recsys.topk import ranked_rows

CATALOGUE = np.array(["a", "b", "c"])
LISTS = {"u": {"a": 3.0, "x": 2.0, "b": 1.0}, "v": {"c": 2.0, "a": 1.0}}


def _in_catalogue(run, k, side, params, protocol) -> ListValues:
    rows, lists, _ = ranked_rows(run, k, protocol)
    inside = np.isin(run.docs[run.doc_codes[rows]].astype(str), side.needed("items").astype(str))
    sizes = np.bincount(lists, minlength=run.num_queries)
    with np.errstate(invalid="ignore"):
        values = np.bincount(lists, weights=inside, minlength=run.num_queries) / sizes
    return ListValues(f"in_catalogue@{k}", run.queries.astype(str), values, sizes)


@pytest.fixture
def toy():
    register_side(SideSpec("in_catalogue", "In catalogue", "share of the top k that the catalogue holds", LIST,
                           (("items",),), _in_catalogue))
    yield SIDE_REGISTRY["in_catalogue"]
    del SIDE_REGISTRY["in_catalogue"]


def test_the_one_parser_reads_it_and_suggests_it(toy):
    measure = parse_any("in_catalogue@2")
    assert isinstance(measure, SideMeasure) and measure.spec is toy and measure.cutoff == 2
    with pytest.raises(MeasureError, match=r"did you mean in_catalogue@2"):
        parse_measures(["in_catalog@2"])
    with pytest.raises(MeasureError, match="needs a cutoff"):
        parse_any("in_catalogue")
    assert toy.needs == (("items",),) and toy.executors == ("memory", "spark")


def test_the_api_computes_it(toy):
    qrels = Qrels.from_dict({"u": {"a": 1}, "v": {"c": 1}})
    results = evaluate_with_side(qrels, Run.from_dict(LISTS), ["p@2", "in_catalogue@2"], SideData(items=CATALOGUE))
    (value,) = results.side
    assert value.measure == "in_catalogue@2" and value.value == pytest.approx(0.75)


def test_the_command_line_computes_it_and_names_the_flag_it_needs(toy, tmp_path, capsys):
    qrels = tmp_path / "qrels.csv"
    qrels.write_text("query,doc,grade\nu,a,1\nv,c,1\n")
    run = tmp_path / "run.csv"
    run.write_text("query,doc,score\n" + "".join(f"{q},{d},{s}\n" for q, docs in LISTS.items()
                                                 for d, s in docs.items()))
    items = tmp_path / "items.csv"
    items.write_text("item\n" + "\n".join(CATALOGUE) + "\n")
    code = main(["evaluate", str(qrels), str(run), "-m", "p@2", "-m", "in_catalogue@2", "--items", str(items),
                 "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0 and '"in_catalogue@2"' in out and "0.75" in out
    code = main(["evaluate", str(qrels), str(run), "-m", "in_catalogue@2"])
    err = capsys.readouterr().err
    assert code == 2 and "in_catalogue@2 needs side data" in err and "--items" in err


def test_rankproof_measures_lists_it(toy, capsys):
    assert main(["measures"]) == 0
    assert "in_catalogue" in capsys.readouterr().out


def test_the_how_to_names_what_exists():
    import re
    from pathlib import Path

    import rankproof.recsys.registry as registry
    import rankproof.recsys.topk as topk

    root = Path(__file__).parents[2]
    text = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    how_to = text[text.index("### a side-data measure"):text.index("### an engine")]
    for name in ("register_side", "FAMILIES", "CatalogueValue", "LIST", "CATALOGUE", "SideParam"):
        assert f"recsys.registry.{name}" in how_to or f"`{name}`" in how_to, name
        assert hasattr(registry, name), name
    assert all(hasattr(topk, name) for name in ("ranked_rows", "top_rows"))
    for path in re.findall(r"`(tests/[\w/]+\.py)`", how_to):
        assert (root / path).is_file(), path
