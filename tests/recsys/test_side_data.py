"""Side data as first-class inputs: the registry of side-data measures, the readers, and
``rankproof evaluate`` with --items/--train/--features/--groups.

Expected values are worked by hand on a two-user log (see ``SMALL``), or are
properties of the MovieLens-shaped log (tests/support/movielens.py).
"""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankproof import Qrels, Run, evaluate
from rankproof.cli.app import main
from rankproof.errors import MeasureError, ParseError
from rankproof.recsys.registry import SIDE_REGISTRY, compute_side, missing_side_data, parse_side_measure
from rankproof.recsys.side import SideData
from rankproof.recsys.side_eval import evaluate_with_side
from rankproof.recsys.side_io import read_features, read_groups, read_items, read_train

from movielens import movielens_like, write_log

# u gets a, b, c; v gets a, d, z (scores descending). Truth: u likes a, v likes d.
# Training: x: a, b; y: a, c; z: d -> a 2, b 1, c 1, d 1 (N = 5). Categories: a {X, Y}, b {X}, c {Y}, d {Z}, z {Z}.
SMALL = {
    "truth.csv": "user,item,grade\nu,a,1\nv,d,1\n",
    "recs.csv": "user,item,score\nu,a,3\nu,b,2\nu,c,1\nv,a,3\nv,d,2\nv,z,1\n",
    "train.csv": "user,item\nx,a\nx,b\ny,a\ny,c\nz,d\n",
    "features.csv": "item,category\na,X|Y\nb,X\nc,Y\nd,Z\nz,Z\n",
    "items.csv": "item\na\nb\nc\nd\ne\nf\n",
    "groups.csv": "user,group\nu,g1\nv,g2\n",
}
COLUMNS = ["--columns", "query=user,doc=item"]


@pytest.fixture
def small(tmp_path):
    for name, text in SMALL.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.fixture(scope="module")
def movielens(tmp_path_factory):
    """The MovieLens-shaped log as CSV files (300 users, 400 items)."""
    return write_log(tmp_path_factory.mktemp("movielens"))


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _side(folder) -> SideData:
    return SideData(items=read_items(folder / "items.csv"), train=read_train(folder / "train.csv"),
                    features=read_features(folder / "features.csv"), groups=read_groups(folder / "groups.csv"))


# -- registry -------------------------------------------------------------------------


def test_registry_names_kinds_and_needs():
    assert {"coverage", "ild", "novelty", "long_tail_share"} <= set(SIDE_REGISTRY)
    assert SIDE_REGISTRY["coverage"].kind == "catalogue"
    assert SIDE_REGISTRY["novelty"].kind == "list"
    assert SIDE_REGISTRY["ild"].needs == (("features",),)
    m = parse_side_measure("long_tail_share(head=0.4)@5")
    assert (m.name, m.cutoff, m.params, str(m)) == ("long_tail_share", 5, (("head", 0.4),), "long_tail_share(head=0.4)@5")
    assert missing_side_data(parse_side_measure("coverage@3"), SideData()) == "--items or --train"


def test_registry_says_which_side_data_each_measure_reads():
    assert SIDE_REGISTRY["coverage"].reads_side("items") and SIDE_REGISTRY["coverage"].reads_side("train")
    assert not SIDE_REGISTRY["coverage"].reads_side("groups")
    assert SIDE_REGISTRY["gini"].needs == () and SIDE_REGISTRY["gini"].reads_side("items")
    assert not any(spec.reads_side("groups") for spec in SIDE_REGISTRY.values())


def test_side_names_are_not_accuracy_names():
    from rankproof.measures import REGISTRY
    from rankproof.measures.aliases import resolve

    for name in SIDE_REGISTRY:
        assert name not in REGISTRY and resolve(name) in (None, name), name


def test_cli_flags_are_the_side_kinds():
    from rankproof.cli.side import SIDE_HELP
    from rankproof.recsys.side import SIDE_FLAGS

    assert {kind: f"--{kind}" for kind in SIDE_HELP} == SIDE_FLAGS


@pytest.mark.parametrize("text, message", [
    ("coverage", "needs a cutoff"), ("coverage@0", "integer >= 1"), ("ild(metric=x)@3", "does not take"),
    ("ild(distance=manhattan)@3", "expected one of cosine, jaccard"), ("long_tail_share(head=1.5)@3", "between 0 and 1")])
def test_registry_refuses_in_one_line(text, message):
    with pytest.raises(MeasureError) as caught:
        parse_side_measure(text)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_values_worked_by_hand(small):
    run = Run.read(small / "recs.csv", query="user", doc="item")
    side = _side(small)

    def value(text):
        return compute_side(parse_side_measure(text), run, side)

    # top 2: u {a, b}, v {a, d}: 3 of the 6 catalogue items.
    assert value("coverage@2").value == 0.5
    # Without --items the catalogue is the training log's items a, b, c, d: 3 of 4.
    assert compute_side(parse_side_measure("coverage@2"), run, SideData(train=side.train)).value == 0.75
    # Jaccard: u: d(a, b) = 1 - 1/2; v: d(a, d) = 1.
    assert value("ild@2").per_query() == {"u": 0.5, "v": 1.0}
    # p(a) = 2/5, p(b) = p(d) = 1/5: u and v both (log2(5/2) + log2(5)) / 2.
    expected = (math.log2(5 / 2) + math.log2(5)) / 2
    assert value("novelty@2").per_query() == pytest.approx({"u": expected, "v": expected})
    # Head: ceil(0.2 x 4) = 1 item, a (count 2). u: b is tail; v: d is tail -> 1/2 each.
    assert value("long_tail_share@2").per_query() == {"u": 0.5, "v": 0.5}


def test_rec_measures_rows_worked_by_hand(small):
    """gini, entropy, arp and calibration through the registry (their functions are rec-measures')."""
    run = Run.read(small / "recs.csv", query="user", doc="item")
    side = _side(small)

    def value(text, data=side):
        return compute_side(parse_side_measure(text), run, data)

    # Slots of the top 2: a 2, b 1, d 1 (4). Over the catalogue a..f, shares ascending 0, 0, 0, 1/4, 1/4, 1/2:
    # G = (1/6) sum (2j - 7) p_(j) = (1 x 1/4 + 3 x 1/4 + 5 x 1/2) / 6.
    assert value("gini@2").value == pytest.approx(3.5 / 6)
    # Over the recommended items (1/4, 1/4, 1/2): (-2 x 1/4 + 0 + 2 x 1/2) / 3.
    assert value("gini(universe=recommended)@2", SideData()).value == pytest.approx(0.5 / 3)
    assert value("entropy@2").value == pytest.approx(1.5)   # -(1/2 log2 1/2 + 2 x 1/4 log2 1/4)
    assert value("arp@2").per_query() == {"u": 1.5, "v": 1.5}   # (2 + 1) / 2 for both
    # u's history is b (X): p = (X 1). Its top 2, a {X, Y} and b {X}: q = (X 3/4, Y 1/4);
    # q~(X) = 0.99 x 3/4 + 0.01 x 1, so KL = ln(1 / q~(X)). v has no history: undefined.
    history = SideData(train=read_train(pa.table({"user": ["u"], "item": ["b"]})), features=side.features)
    got = value("calibration@2", history)
    assert got.per_query() == pytest.approx({"u": math.log(1 / (0.99 * 0.75 + 0.01))})
    assert got.undefined == 1
    with pytest.raises(MeasureError, match="--items or --train"):
        value("gini@2", SideData())


def test_evaluate_with_side_keeps_accuracy_unchanged(small):
    qrels = Qrels.read(small / "truth.csv", query="user", doc="item", grade="grade")
    run = Run.read(small / "recs.csv", query="user", doc="item")
    both = evaluate_with_side(qrels, run, ["ndcg@2", "coverage@2", "ild@2"], _side(small))
    alone = evaluate(qrels, run, ["ndcg@2"])
    assert both.per_query("ndcg@2") == alone.per_query("ndcg@2")
    assert [v.measure for v in both.side] == ["coverage@2", "ild@2"]
    assert alone.side == ()
    with pytest.raises(MeasureError, match="give it with --groups|give it with --features"):
        evaluate_with_side(qrels, run, ["ndcg@2", "ild@2"], SideData())


# -- readers --------------------------------------------------------------------------


def test_readers_agree_across_formats(tmp_path):
    table = pa.table({"user": ["u", "u", "v"], "item": ["a", "b", "a"]})
    (tmp_path / "t.csv").write_text("user,item\nu,a\nu,b\nv,a\n")
    (tmp_path / "t.tsv").write_text("user\titem\nu\ta\nu\tb\nv\ta\n")
    (tmp_path / "t.jsonl").write_text('{"user": "u", "item": "a"}\n{"user": "u", "item": "b"}\n{"user": "v", "item": "a"}\n')
    pq.write_table(table, tmp_path / "t.parquet")
    for source in (table, table.to_pandas(), *(tmp_path / f"t.{ext}" for ext in ("csv", "tsv", "jsonl", "parquet"))):
        assert read_train(source).popularity_map() == {"a": 2, "b": 1}


def test_reader_counts_and_vectors():
    train = read_train(pa.table({"user": ["u", "v"], "item": ["a", "a"], "n": [3, 2]}), count="n")
    assert train.popularity_map() == {"a": 5}
    features = read_features(pa.table({"item": ["b", "a"], "x": [0.0, 1.0], "y": [1.0, 0.0]}), category=None,
                             columns=["x", "y"])
    ids, matrix = features.vectors
    assert ids.tolist() == ["a", "b"] and matrix.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    groups = read_groups(pa.table({"user": [2, 1], "group": ["b", "a"]}))
    assert groups.as_dict() == {"1": "a", "2": "b"}


@pytest.mark.parametrize("name, text, reader, message", [
    ("t.csv", "user,item\nu,a\nu,\n", read_train, "t.csv line 3: user u, item : the item id is empty; give every row an item id"),
    ("f.csv", "item,category\na,X\nb,\n", read_features, "f.csv line 3: item b: the category in column 'category' is empty"),
    ("g.csv", "user,group\nu,g\nu,h\n", read_groups, "g.csv line 3: user u: the user is in two groups; give one row per user"),
    ("i.csv", "id\na\n", read_items, "i.csv"),
])
def test_reader_errors_are_one_line_with_file_line_and_fix(tmp_path, name, text, reader, message):
    (tmp_path / name).write_text(text)
    with pytest.raises(ParseError) as caught:
        reader(tmp_path / name)
    shown = str(caught.value)
    assert str(tmp_path / name) in shown and "\n" not in shown
    assert message.split(": ", 1)[1] in shown if ": " in message else True
    assert message.split(" ", 1)[1] in shown if " line " in message else True


def test_reader_names_the_missing_column(tmp_path):
    (tmp_path / "i.csv").write_text("id\na\n")
    with pytest.raises(ParseError, match="item"):
        read_items(tmp_path / "i.csv")


@pytest.mark.parametrize("reader, table, kwargs, message", [
    (read_train, {"uid": ["u"], "item": ["a"]}, {}, "no column 'user' (named by user=)"),
    (read_train, {"user": ["u"], "item": ["a"]}, {"count": "n"}, "no column 'n' (named by count=)"),
    (read_items, {"id": ["a"]}, {}, "no column 'item' (named by item=)"),
    (read_features, {"item": ["a"], "genre": ["X"]}, {}, "no column 'category' (named by category=)"),
    (read_features, {"item": ["a"]}, {"category": None, "columns": ["f1"]}, "no column 'f1' (named by columns=)"),
    (read_groups, {"user": ["u"]}, {}, "no column 'group' (named by group=)"),
])
def test_reader_names_the_missing_column_by_its_own_argument(reader, table, kwargs, message):
    """Not by the log readers' query= and doc=, which the side readers do not take."""
    with pytest.raises(ParseError) as caught:
        reader(pa.table(table), **kwargs)
    assert message in str(caught.value) and "query=" not in str(caught.value) and "doc=" not in str(caught.value)


@pytest.mark.parametrize("name, text, reader, message", [
    ("i.jsonl", '{"item": "a"}\n{"item": 2.5}\n', read_items, "line 2: item 2.5 is a JSON number"),
    ("t.jsonl", '{"user": "u", "item": "a"}\n{"user": 1.5, "item": "b"}\n', read_train,
     "line 2: user 1.5 is a JSON number"),
    ("g.csv", "user,group\n,g\n", read_groups, "line 2: user : the user id is empty; give every row a user id"),
    ("i.csv", 'item\na\n""\n', read_items, "line 3: item : the item id is empty; give every row an item id"),
])
def test_reader_errors_say_user_or_item_as_the_file_holds(tmp_path, name, text, reader, message):
    (tmp_path / name).write_text(text)
    with pytest.raises(ParseError) as caught:
        reader(tmp_path / name)
    assert str(caught.value).startswith(f"{tmp_path / name} {message}")


def test_features_read_lists_of_categories(tmp_path):
    """A Parquet or JSON Lines list of genres per item is that item's categories, as 'X|Y' in text is."""
    pq.write_table(pa.table({"item": ["a", "b"], "category": [["X", "Y"], ["Z"]]}), tmp_path / "f.parquet")
    (tmp_path / "f.jsonl").write_text('{"item": "a", "category": ["X", "Y"]}\n{"item": "b", "category": ["Z"]}\n')
    expected = {"a": frozenset({"X", "Y"}), "b": frozenset({"Z"})}
    assert read_features(tmp_path / "f.parquet").categories == expected
    assert read_features(tmp_path / "f.jsonl").categories == expected
    pq.write_table(pa.table({"item": ["a", "b"], "category": [["X"], []]}), tmp_path / "empty.parquet")
    with pytest.raises(ParseError, match=r"empty.parquet row 2: item b: no category in the list"):
        read_features(tmp_path / "empty.parquet")


# -- the command line ------------------------------------------------------------------


def test_cli_table_json_csv(capsys, small):
    args = ["evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2", "-m", "coverage@2",
            "-m", "novelty@2", "--train", small / "train.csv", "--items", small / "items.csv", "--quiet"]
    code, out, _ = cli(capsys, *args)
    assert code == 0
    header, row = out.splitlines()[:2]
    assert header.split() == ["run", "ndcg@2", "coverage@2", "novelty@2", "queries"]
    assert row.split()[2] == "0.5000"
    assert "fingerprint" in out

    code, out, _ = cli(capsys, *args, "--format", "json")
    document = json.loads(out)
    side = document["runs"]["recs.csv"]["side"]
    assert side["coverage@2"]["value"] == 0.5 and side["coverage@2"]["kind"] == "catalogue"
    assert side["coverage@2"]["detail"] == {"covered": 3, "catalogue_size": 6, "outside_catalogue": 0}
    assert side["novelty@2"]["per_query"]["u"] == pytest.approx((math.log2(5 / 2) + math.log2(5)) / 2)
    assert list(document["runs"]["recs.csv"]["mean"]) == ["ndcg@2"]

    code, out, _ = cli(capsys, *args, "--format", "csv", "--per-query")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {(r["query"], r["measure"]) for r in rows} >= {("all", "coverage@2"), ("u", "novelty@2"), ("v", "novelty@2")}


def test_cli_per_query_table_lists_each_user(capsys, small):
    code, out, _ = cli(capsys, "evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                       "-m", "ild@2", "-m", "coverage@2", "--features", small / "features.csv", "--items",
                       small / "items.csv", "--per-query", "--quiet")
    assert code == 0
    block = out.split("per user, side data: recs.csv\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split() for line in block] == [["user", "ild@2"], ["u", "0.5000"], ["v", "1.0000"]]


def test_cli_refuses_missing_side_data_naming_the_flag(capsys, small):
    code, out, err = cli(capsys, "evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                         "-m", "ild@2", "--train", small / "train.csv")
    assert code == 2 and out == ""
    assert err.strip() == "rankproof evaluate: ild@2 needs side data that was not given; give it with --features"


@pytest.mark.parametrize("extra, accuracy, message", [
    (["--memory-budget", "1G"], ["-m", "ndcg@2"], "evaluates on this machine, in memory"),
    # Refused before Spark starts (and before the CSV files are found not to be Parquet).
    (["--engine", "spark"], [], "-m novelty@2 alone evaluates on this machine; with --engine spark"),
])
def test_cli_refuses_what_side_data_measures_cannot_do(capsys, small, extra, accuracy, message):
    code, _, err = cli(capsys, "evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, *accuracy,
                       "-m", "novelty@2", "--train", small / "train.csv", *extra)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_cli_side_file_error_is_one_line(capsys, small):
    (small / "bad.csv").write_text("user,item\nx,a\n,b\n")
    code, _, err = cli(capsys, "evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                       "-m", "novelty@2", "--train", small / "bad.csv")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "bad.csv line 3" in err and "user id" in err


def test_cli_side_columns_rename_the_side_data_columns(capsys, small):
    (small / "train2.csv").write_text(SMALL["train.csv"].replace("user,item", "uid,movie", 1))
    (small / "features2.csv").write_text(SMALL["features.csv"].replace("item,category", "movie,genres", 1))
    base = ["evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2", "-m", "novelty@2",
            "-m", "ild@2", "--quiet"]
    code, expected, _ = cli(capsys, *base, "--train", small / "train.csv", "--features", small / "features.csv")
    assert code == 0
    code, out, _ = cli(capsys, *base, "--train", small / "train2.csv", "--features", small / "features2.csv",
                       "--side-columns", "user=uid,item=movie,category=genres")
    assert code == 0 and out == expected


def test_cli_missing_side_column_names_the_flag_and_side_columns(capsys, small):
    (small / "train2.csv").write_text(SMALL["train.csv"].replace("user,item", "uid,item", 1))
    code, out, err = cli(capsys, "evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                         "-m", "novelty@2", "--train", small / "train2.csv")
    assert code == 2 and out == ""
    assert err.strip() == (f"rankproof: {small / 'train2.csv'} line 1: no column 'user' (the user column of --train); "
                           "its columns are 'uid', 'item'; name them with --side-columns user=NAME "
                           "(user=none: the file is a popularity table)")


def test_cli_train_as_a_popularity_table(capsys, small):
    """train.csv's interactions counted per item (a 2, b 1, c 1, d 1) give the same popularity measures;
    calibration, which needs each user's history, is refused in one line."""
    (small / "popularity.csv").write_text("item,n\na,2\nb,1\nc,1\nd,1\n")
    base = ["evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2", "-m", "novelty@2",
            "-m", "arp@2", "-m", "long_tail_share@2", "-m", "coverage@2", "--quiet"]
    code, expected, _ = cli(capsys, *base, "--train", small / "train.csv")
    assert code == 0
    code, out, _ = cli(capsys, *base, "--train", small / "popularity.csv", "--side-columns", "user=none,count=n")
    assert code == 0 and out == expected
    assert read_train(small / "popularity.csv", user=None, count="n").users is None
    code, _, err = cli(capsys, "evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                       "-m", "calibration@2", "--train", small / "popularity.csv", "--features",
                       small / "features.csv", "--side-columns", "user=none,count=n")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "give --train with a user column" in err


def test_cli_refuses_a_bad_side_columns_spec(capsys, small):
    code, _, err = cli(capsys, "evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                       "-m", "novelty@2", "--train", small / "train.csv", "--side-columns", "genre=g")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--side-columns 'genre=g'" in err


def test_cli_warns_of_side_data_no_measure_reads_and_leaves_it_unread(capsys, small):
    """--groups beside accuracy measures only: a warning (evaluate shows no values per group), the file unread
    (a bad one is not refused); --items and --train are read by gini, which needs neither."""
    (small / "bad_groups.csv").write_text("user,group\nu,g1\nu,g2\n")
    code, out, err = cli(capsys, "evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                         "--groups", small / "bad_groups.csv")
    assert code == 0 and out.split()[:3] == ["run", "ndcg@2", "queries"]
    assert ("rankproof: warning: --groups is read by no measure of -m, so evaluate leaves it unread; "
            "rankproof report shows the per-list measures per user group") in err.splitlines()
    code, _, err = cli(capsys, "evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                       "-m", "gini@2", "--items", small / "items.csv", "--train", small / "train.csv")
    assert code == 0 and "read by no measure" not in err
    code, _, err = cli(capsys, "evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                       "--groups", small / "bad_groups.csv", "--quiet")
    assert code == 0 and err == ""


def test_cli_output_may_not_overwrite_side_data(capsys, small):
    code, _, err = cli(capsys, "evaluate", small / "truth.csv", small / "recs.csv", *COLUMNS, "-m", "ndcg@2",
                       "-m", "novelty@2", "--train", small / "train.csv", "-o", small / "train.csv")
    assert code == 2 and "would destroy the input" in err
    assert (small / "train.csv").read_text() == SMALL["train.csv"]


def test_cli_movielens_shaped_log(capsys, movielens):
    """Accuracy, coverage, ILD, novelty, long-tail share, Gini, ARP and calibration together; the popularity
    recommender covers less of the catalogue and recommends less of the long tail than the taste one."""
    code, out, _ = cli(capsys, "evaluate", movielens["truth"], movielens["pop"], movielens["taste"], *COLUMNS,
                       "-m", "ndcg@10", "-m", "coverage@10", "-m", "ild@10", "-m", "novelty(unseen=laplace)@10",
                       "-m", "long_tail_share@10", "-m", "gini@10", "-m", "arp@10", "-m", "calibration@10",
                       "--train", movielens["train"], "--features", movielens["features"], "--format", "json", "--quiet")
    assert code == 0
    runs = json.loads(out)["runs"]
    pop, taste = (runs[f"{name}.csv"]["side"] for name in ("pop", "taste"))
    assert pop["coverage@10"]["value"] < taste["coverage@10"]["value"]
    assert pop["long_tail_share@10"]["value"] < taste["long_tail_share@10"]["value"]
    assert pop["novelty(unseen=laplace)@10"]["value"] < taste["novelty(unseen=laplace)@10"]["value"]
    assert pop["ild@10"]["lists"] == 300
    # More concentrated on fewer items, more popular, and further from each user's genre mix.
    assert pop["gini@10"]["value"] > taste["gini@10"]["value"]
    assert pop["arp@10"]["value"] > taste["arp@10"]["value"]
    assert pop["calibration@10"]["value"] > taste["calibration@10"]["value"]


def test_movielens_generator_shape():
    tables = movielens_like()
    assert set(tables["groups"]["group"]) == {"light", "heavy"}
    counts = np.sort(np.unique(tables["train"]["item"], return_counts=True)[1])[::-1]
    assert counts[: len(counts) // 10].sum() > 0.3 * counts.sum()  # popularity skew: a tenth of the items, a third of the log
    assert len(tables["pop"]["user"]) == 300 * 20


@pytest.mark.parametrize("text", ["pop_rsp@2", "pop_reo@2", "exposure(groups=popularity)@2"])
def test_training_history_without_users_is_refused_naming_the_measure(text):
    # A popularity table (item, count) has no users: the measures that split the catalogue by each user's
    # training items refuse it in one line, with the same error class, naming themselves.
    from rankproof.errors import InputError
    from rankproof.recsys.side import Interactions

    table = Interactions(None, np.array(["a", "b"]), np.array([3, 1], dtype=np.int64))
    side = SideData(train=table).with_judgments(Qrels.from_dict({"u": {"a": 1}}))
    run = Run.from_dict({"u": {"a": 2.0, "b": 1.0}})
    with pytest.raises(InputError, match=r"needs each user's training items") as raised:
        compute_side(parse_side_measure(text), run, side)
    assert text in str(raised.value) and "--train with a user column" in str(raised.value)


def test_training_history_keeps_each_users_items_in_order():
    from rankproof.recsys.side import Interactions

    train = Interactions(np.array(["v", "u", "v", "u"]), np.array(["x", "a", "y", "a"]), np.ones(4, np.int64))
    assert SideData(train=train).training_history("m") == {"v": ["x", "y"], "u": ["a", "a"]}
