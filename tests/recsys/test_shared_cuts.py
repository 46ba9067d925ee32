"""The side-data measures' shared work (issue 35): the compiled Jaccard loop against its
vectorised reference, the top k cut once per run, side data read by codes.

Expected values come from the reference implementations written here (the vectorised
loops the compiled and shared paths replaced), which must agree to the last bit.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from rankproof import Run
from rankproof._libs.lists import jaccard_pair_sums
from rankproof.protocol import Protocol
from rankproof.recsys.side import SideData
from rankproof.recsys.side_eval import side_values, split_measures
from rankproof.recsys.side_io import read_features, read_train
from rankproof.recsys.topk import ranked_rows, shared_cuts, sorted_top_rows, top_rows


def reference_pair_sums(query: np.ndarray, num_queries: int, k: int, bits: np.ndarray) -> np.ndarray:
    """The vectorised reference: pairs (p, p + d) for d = 1 .. k - 1, summed per d, then per list."""
    total = np.zeros(num_queries)
    for d in range(1, min(k, len(query))):
        first = np.flatnonzero(query[d:] == query[:-d])
        if not first.size:
            break
        inter = np.bitwise_count(bits[first] & bits[first + d]).sum(axis=1)
        union = np.bitwise_count(bits[first] | bits[first + d]).sum(axis=1)
        total += np.bincount(query[first], weights=1.0 - inter / union, minlength=num_queries)
    return total


@pytest.mark.parametrize("words", [1, 3])
def test_compiled_jaccard_equals_the_vectorised_reference_bit_for_bit(words: int):
    rng = np.random.default_rng(words)
    sizes = rng.integers(0, 13, size=400)
    query = np.repeat(np.arange(len(sizes)), sizes)
    bits = rng.integers(1, 2**63, size=(len(query), words), dtype=np.int64).astype(np.uint64)
    bits[:, 0] |= np.uint64(1)   # never an empty set
    bits[::7] = bits[1::7][: len(bits[::7])] if len(bits) > 14 else bits[::7]   # some equal sets: distance 0
    got = jaccard_pair_sums(np.r_[0, np.cumsum(sizes)].astype(np.int64), bits)
    assert np.array_equal(got, reference_pair_sums(query, len(sizes), int(sizes.max()), bits))


def test_compiled_jaccard_by_hand():
    # {a}, {a, b}, {c}: d = 1 - 1/2, 1, 1 -> 2.5; a list of one item has no pair.
    bits = np.array([[0b001], [0b011], [0b100], [0b001]], dtype=np.uint64)
    assert jaccard_pair_sums(np.array([0, 3, 4], dtype=np.int64), bits).tolist() == [2.5, 0.0]


def random_run(seed: int) -> Run:
    rng = np.random.default_rng(seed)
    lists = {f"u{u}": {f"i{i}": float(s) for i, s in zip(rng.choice(30, 8, replace=False), rng.random(8))}
             for u in range(50)}
    return Run.from_dict(lists)


def test_the_cut_is_made_once_and_equals_a_fresh_one():
    run, protocol = random_run(1), Protocol()
    with shared_cuts():
        first = top_rows(run, 5, protocol)
        assert top_rows(run, 5, protocol) is first
        assert top_rows(run, 3, protocol) is not first   # another cutoff, another cut
        with pytest.raises(ValueError):
            first[0] = 0   # shared: read-only
        rows, query = sorted_top_rows(run, 5, protocol)
        ranked, of_list, rank = ranked_rows(run, 5, protocol)
    assert np.array_equal(first, top_rows(run, 5, protocol))   # outside the scope: cut afresh, the same
    assert np.array_equal(rows, np.sort(first)) and np.array_equal(ranked, first)
    assert np.array_equal(query, np.searchsorted(run.offsets, rows, side="right") - 1)
    assert rank.tolist() == [1, 2, 3, 4, 5] * 50 and np.array_equal(of_list, np.repeat(np.arange(50), 5))


def test_side_measures_inside_the_shared_scope_equal_each_alone():
    run = random_run(2)
    rng = np.random.default_rng(3)
    items = [f"i{i}" for i in range(30)]
    train = read_train(pa.table({"user": [f"u{u}" for u in rng.integers(0, 50, 230)],
                                 "item": items + [items[i] for i in rng.integers(0, 30, 200)]}))
    genres = pa.table({"item": items, "category": [f"g{i % 4}|g{i % 7}" for i in range(30)]})
    side = SideData(items=np.array(items), train=train, features=read_features(genres))
    _, wanted = split_measures(["coverage@5", "gini@5", "novelty@5", "entropy@5", "arp@5", "ild@5",
                                "long_tail_share@5", "calibration@5"])
    together = side_values(run, wanted, side)
    for measure, value in zip(wanted, together):
        alone = side_values(run, [measure], side)[0]
        assert not np.isnan(value.value) and value.value == alone.value, str(measure)
        assert value.detail == alone.detail, str(measure)
        if value.values is not None:
            assert np.array_equal(value.values, alone.values, equal_nan=True)


def test_training_popularity_read_by_codes_equals_counting_the_text():
    rng = np.random.default_rng(4)
    table = pa.table({"user": rng.integers(0, 50, 500), "item": rng.integers(0, 40, 500),
                      "n": rng.integers(0, 5, 500)})
    train = read_train(table, count="n")
    assert train.item_popularity is not None
    ids, inverse = np.unique(train.items, return_inverse=True)
    expected = np.bincount(inverse, weights=train.counts, minlength=len(ids)).astype(np.int64)
    got_ids, got = train.popularity()
    assert np.array_equal(got_ids, ids) and np.array_equal(got, expected) and got.dtype == np.int64
    assert train.items.tolist() == [str(i) for i in table["item"].to_pylist()]


def test_evaluate_profile_names_each_side_measure_and_a_bad_side_file_is_still_refused(tmp_path, capsys):
    import pyarrow.parquet as pq

    from rankproof.cli import main

    truth, recs, train = tmp_path / "truth.parquet", tmp_path / "recs.parquet", tmp_path / "train.parquet"
    pq.write_table(pa.table({"user": ["u", "v"], "item": ["a", "d"], "rating": [1, 2]}), truth)
    pq.write_table(pa.table({"user": ["u", "u", "v", "v"], "item": ["a", "b", "c", "d"],
                             "score": [0.9, 0.5, 0.7, 0.2]}), recs)
    pq.write_table(pa.table({"user": ["x", "y", "y", "z"], "item": ["a", "b", "c", "d"]}), train)
    common = [str(truth), str(recs), "--columns", "query=user,doc=item,grade=rating,score=score", "-m", "ndcg@2"]
    assert main(["evaluate", *common, "-m", "novelty@2", "-m", "coverage@2", "--train", str(train),
                 "--profile", "--quiet"]) == 0
    err = capsys.readouterr().err
    for stage in ("recs.parquet: accuracy measures", "recs.parquet: novelty@2", "recs.parquet: coverage@2",
                  "side data read"):
        assert f"rankproof: profile: {stage} " in err, err
    # The side files are read beside the runs: one that cannot be read is refused all the same, exit 2.
    assert main(["evaluate", *common, "-m", "novelty@2", "--train", str(tmp_path / "missing.parquet")]) == 2
    assert "missing.parquet" in capsys.readouterr().err


def test_integer_ids_read_as_the_same_text_as_arrows_cast():
    from rankproof.recsys.side_io import read_items

    ids = np.array([7, -3, 120000000000, 0, 7, 45], dtype=np.int64)
    got = read_train(pa.table({"user": ids, "item": ids[::-1].copy()}))
    expected = np.asarray(pa.compute.cast(pa.array(ids), pa.large_string()).to_numpy(zero_copy_only=False)).astype(str)
    assert np.array_equal(got.users, expected) and got.users.dtype == expected.dtype
    assert read_items(pa.table({"item": ids})).tolist() == sorted(set(expected.tolist()))


def test_list_sums_read_through_the_cut_equal_bincount_bit_for_bit():
    from rankproof._libs.lists import list_sums_read

    rng = np.random.default_rng(5)
    sizes = rng.integers(0, 12, size=300)
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    codes = rng.integers(0, 40, size=5000).astype(np.int64)   # the run's rows' item codes
    rows = rng.permutation(5000)[: offsets[-1]].astype(np.int64)
    values = rng.random(40) * 10.0 ** rng.integers(-3, 9, size=40)   # magnitudes that round differently
    values[[3, 17]] = np.nan   # items a measure drops
    got, counted = list_sums_read(offsets, rows, offsets, codes, values)
    lists, per_row = np.repeat(np.arange(len(sizes)), sizes), values[codes[rows]]
    kept = ~np.isnan(per_row)
    assert np.array_equal(got, np.bincount(lists[kept], weights=per_row[kept], minlength=len(sizes)))
    assert np.array_equal(counted, np.bincount(lists[kept], minlength=len(sizes)))
    from rankproof._libs.lists import code_counts_read

    assert np.array_equal(code_counts_read(offsets, rows, offsets, codes, 41),
                          np.bincount(codes[rows], minlength=41))


def test_jaccard_read_through_the_cut_equals_the_copied_bitsets_bit_for_bit():
    from rankproof._libs.lists import jaccard_pair_sums_read

    rng = np.random.default_rng(6)
    sizes = rng.integers(0, 11, size=200)
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    bits = rng.integers(1, 2**62, size=(25, 2), dtype=np.int64).astype(np.uint64)
    item_at = rng.permutation(25).astype(np.int64)   # item code -> its row of bits
    codes = rng.integers(0, 25, size=3000).astype(np.int64)
    rows = rng.permutation(3000)[: offsets[-1]].astype(np.int64)
    copied = np.ascontiguousarray(bits[item_at[codes[rows]]])
    assert np.array_equal(jaccard_pair_sums_read(offsets, rows, offsets, codes, item_at, bits),
                          jaccard_pair_sums(offsets, copied))


@pytest.mark.parametrize("words", [1, 2])
def test_the_loops_read_each_lists_first_rows_when_the_rows_are_not_listed(words: int):
    """rows empty: position p of list q is the run's row starts[q] + p - offsets[q] (a run in rank
    order, cut at k): the same sums, counts and distances, bit for bit, as the rows listed."""
    from rankproof._libs.lists import code_counts_read, jaccard_pair_sums_read, list_sums_read

    rng = np.random.default_rng(8 + words)
    lengths = rng.integers(0, 30, size=150)   # the run's lists; some shorter than k, some empty
    starts = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    k = 12
    kept = np.minimum(lengths, k)
    offsets = np.r_[0, np.cumsum(kept)].astype(np.int64)
    listed = np.concatenate([np.arange(a, a + n) for a, n in zip(starts[:-1], kept)]).astype(np.int64)
    codes = rng.integers(0, 30, size=int(starts[-1])).astype(np.int64)
    values = rng.random(30) * 10.0 ** rng.integers(-3, 9, size=30)
    values[4] = np.nan
    first = np.zeros(0, dtype=np.int64)
    for got, want in zip(list_sums_read(offsets, first, starts, codes, values),
                         list_sums_read(offsets, listed, starts, codes, values)):
        assert np.array_equal(got, want)
    assert np.array_equal(code_counts_read(offsets, first, starts, codes, 31),
                          np.bincount(codes[listed], minlength=31))
    bits = rng.integers(1, 2**62, size=(30, words), dtype=np.int64).astype(np.uint64)
    item_at = rng.permutation(30).astype(np.int64)
    assert np.array_equal(jaccard_pair_sums_read(offsets, first, starts, codes, item_at, bits),
                          jaccard_pair_sums(offsets, np.ascontiguousarray(bits[item_at[codes[listed]]])))


def test_first_repeat_finds_a_doc_listed_twice_within_a_list_only():
    from rankproof._libs.lists import first_repeat

    offsets = np.array([0, 3, 5, 5, 8], dtype=np.int64)
    assert first_repeat(offsets, np.array([0, 1, 2, 0, 1, 2, 1, 0], dtype=np.int64), 3) == -1   # across lists
    assert first_repeat(offsets, np.array([0, 1, 2, 0, 1, 2, 1, 2], dtype=np.int64), 3) == 7
    assert first_repeat(offsets, np.array([0, 1, 0, 0, 0, 2, 1, 2], dtype=np.int64), 3) == 2


def own_run(lists: dict) -> Run:
    """A run whose buffers only it holds, as a front door that reads a file has."""
    return Run.from_dict(lists)


def test_a_run_ranked_in_place_gives_the_same_measures_and_the_cut_sorts_nothing():
    from rankproof.recsys.side_eval import evaluate_with_side
    from rankproof.recsys.topk import rank_owned_run
    from rankproof import Qrels

    rng = np.random.default_rng(7)
    lists = {f"u{u}": {f"i{i}": float(s) for i, s in zip(rng.choice(30, 9, replace=False),
                                                          rng.integers(0, 4, 9) / 4)} for u in range(40)}
    qrels = Qrels.from_dict({f"u{u}": {f"i{i}": 1 for i in rng.choice(30, 4, replace=False)} for u in range(40)})
    items = [f"i{i}" for i in range(30)]
    train = read_train(pa.table({"user": ["x"] * 60, "item": items + items}))
    genres = read_features(pa.table({"item": items, "category": [f"g{i % 4}|g{i % 5}" for i in range(30)]}))
    side = SideData(items=np.array(items), train=train, features=genres)
    measures = ["ndcg@5", "ap@5", "coverage@5", "gini@5", "novelty@5", "arp@5", "ild@5", "long_tail_share@5"]
    for policy in ("input", "docid"):
        protocol = Protocol(ties=policy)
        given, ranked = own_run(lists), own_run(lists)
        assert rank_owned_run(ranked, protocol)
        assert ranked.to_dict() == given.to_dict() and not np.array_equal(ranked.doc_codes, given.doc_codes)
        # Ranked: each list's rows in the policy's order, so the cut takes the first k of each.
        assert np.array_equal(top_rows(ranked, 5, protocol), np.flatnonzero(
            np.arange(len(ranked)) - np.repeat(ranked.offsets[:-1], np.diff(ranked.offsets)) < 5))
        before = evaluate_with_side(qrels, given, measures, side, protocol)
        after = evaluate_with_side(qrels, ranked, measures, side, protocol)
        for name in ("ndcg@5", "ap@5"):
            assert after.per_query(name) == before.per_query(name)
        for one, other in zip(after.side, before.side):
            assert one.value == pytest.approx(other.value, rel=1e-14) and one.detail == other.detail
            if one.values is not None:
                assert np.allclose(one.values, other.values, rtol=1e-14, atol=0, equal_nan=True)


def test_a_run_is_not_ranked_in_place_when_its_order_decides_or_others_hold_it():
    from rankproof.recsys.topk import rank_owned_run

    twice = {"u": {"a": 0.1, "b": 0.5, "e": 0.2}, "v": {"c": 0.3, "d": 0.9}}
    run = own_run(twice)
    repeated = Run(query_codes=[0, 0, 0], queries=["u"], doc_codes=[0, 1, 0], docs=["a", "b"],
                   scores=[0.1, 0.5, 0.9])   # "a" listed twice: which copy is first is the input's
    codes = repeated.doc_codes.copy()
    assert not rank_owned_run(repeated, Protocol(duplicates="first"))
    assert np.array_equal(repeated.doc_codes, codes)
    assert rank_owned_run(repeated, Protocol(duplicates="count"))   # every copy counts: order is free
    held = run.doc_codes.base   # someone else holds the buffer: never written
    assert not rank_owned_run(run, Protocol()) and held is not None
    assert not rank_owned_run(own_run(twice), Protocol(unjudged="error"))
    assert not rank_owned_run(own_run(twice), Protocol(score_precision="float32"))


def test_narrow_integer_ids_read_as_the_same_text_and_counts_as_wide_ones():
    ids = np.array([7, 3, 12, 3, 0, 7, 7, 5], dtype=np.int64)   # a narrow range: coded by a table
    wide = ids * 10**12   # the same order of values, a wide range: coded by a hash table
    narrow_train = read_train(pa.table({"user": ids[::-1].copy(), "item": ids}))
    wide_train = read_train(pa.table({"user": wide[::-1].copy(), "item": wide}))
    as_text = [str(i) for i in ids.tolist()]
    assert narrow_train.items.tolist() == as_text and narrow_train.users.tolist() == as_text[::-1]
    assert wide_train.items.tolist() == [str(i) for i in wide.tolist()]
    assert narrow_train.counts.tolist() == [1] * 8 and wide_train.counts.tolist() == [1] * 8
    distinct, counts = narrow_train.popularity()
    assert distinct.tolist() == ["0", "12", "3", "5", "7"] and counts.tolist() == [1, 1, 2, 1, 3]
    assert wide_train.popularity()[1].tolist() == [1, 1, 2, 1, 3]   # "0", "12e12", "3e12", "5e12", "7e12"


def test_features_read_as_codes_equal_the_sets_built_row_by_row():
    from rankproof.recsys.beyond import ild

    items = ["b", "a", "b", "c", "d", "a", "e"]
    texts = ["rock| pop", "jazz", " rock |", "x||y", "solo", "live|jazz", "|"]
    expected: dict = {}
    for item, text in zip(items, texts):   # the reference: each row split, the rows of an item added up
        expected.setdefault(item, set()).update(part.strip() for part in text.split("|") if part.strip())
    expected = {item: frozenset(found) for item, found in expected.items()}
    read = read_features(pa.table({"item": items, "category": texts})).categories
    assert dict(read) == expected and list(read) == list(expected) and dict(read.items()) == expected
    listed = read_features(pa.table({"item": ["a", "b", "a"], "category": [["x", " y"], ["z"], ["x"]]})).categories
    assert dict(listed) == {"a": frozenset({"x", "y"}), "b": frozenset({"z"})}
    run = Run.from_dict({"u": ["a", "b", "c"], "v": ["d", "c"], "w": ["b", "a", "d"]})
    del expected["e"]   # no category: refused by ILD, read or given
    coded = read_features(pa.table({"item": items[:-1], "category": texts[:-1]})).categories
    assert np.array_equal(ild(run, 3, categories=coded).values, ild(run, 3, categories=expected).values)
    with pytest.raises(Exception, match="has no category"):
        ild(run, 3, categories=read)


def test_a_parquet_run_the_cli_reads_is_its_own_so_it_is_ranked_in_place(tmp_path):
    # If the reader ever kept a reference to the run's buffers, the side path would sort twice again
    # (benchmarks/million.py's evaluate+side row). A run read from text is not its own buffers' only
    # holder today, for the evaluation as for this: it is sorted twice, as before.
    import pyarrow.parquet as pq

    from rankproof.cli.inputs import read_run
    from rankproof.cli.parser import build_parser
    from rankproof.recsys.topk import rank_owned_run

    path = tmp_path / "run.parquet"
    pq.write_table(pa.table({"query": ["u", "u", "u", "v", "v"], "doc": ["a", "b", "c", "a", "d"],
                             "score": [0.1, 0.9, 0.5, 0.2, 0.8]}), path)
    run = read_run(build_parser().parse_args(["evaluate", str(path), str(path)]), str(path), "run")
    assert rank_owned_run(run, Protocol())
    assert run.docs[run.doc_codes].tolist() == ["b", "c", "a", "d", "a"]


def test_side_data_read_lazily_pickles_as_made(tmp_path):
    # Spark pickles the side data for its workers: the lazy training ids and the category codes too.
    import pickle

    train = read_train(pa.table({"user": [3, 1, 3], "item": [5, 5, 2]}))
    features = read_features(pa.table({"item": ["a", "b"], "category": ["x|y", "z"]}))
    again = pickle.loads(pickle.dumps(SideData(train=train, features=features)))
    assert again.train.users.tolist() == ["3", "1", "3"] and again.train.items.tolist() == ["5", "5", "2"]
    assert again.train.counts.tolist() == [1, 1, 1] and again.train.popularity()[1].tolist() == [1, 2]
    assert dict(again.features.categories) == {"a": frozenset({"x", "y"}), "b": frozenset({"z"})}
