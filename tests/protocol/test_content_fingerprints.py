"""Policies read from files are fingerprinted by content, not by path (issue 28).

``discount=file:d.json`` and ``discount=file:./d.json`` name the same bytes: once
they gave two fingerprints, so ``compare --results`` refused results that had
used one vector, and a saved result naming a relative path could not be read
from another folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil

import pytest

from rankproof import Protocol
from rankproof.cli.app import main
from rankproof.stats.saved import load_results

from paths import CRANFIELD


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "d.json").write_text("[1, 0.6, 0.5, 0.4, 0.3]")
    (tmp_path / "chunks.tsv").write_text("c1 d1\nc2 d1\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_spellings_and_copies_of_one_file_are_one_policy(folder):
    (folder / "copy").mkdir()
    shutil.copy(folder / "d.json", folder / "copy" / "d.json")
    spellings = ["file:d.json", "file:./d.json", f"file:{folder}/d.json", "file:copy/d.json"]
    protocols = [Protocol(discount=text) for text in spellings]
    assert len({p.fingerprint for p in protocols}) == 1
    assert all(p == protocols[0] for p in protocols) and len(set(protocols)) == 1
    # The printed text still says where the file was read; the digest is sha256 of the bytes.
    digest = "sha256:" + hashlib.sha256((folder / "d.json").read_bytes()).hexdigest()[:16]
    assert str(protocols[1].discount) == f"file:./d.json@{digest}"
    maps = [Protocol(chunk_map=text) for text in ("file:chunks.tsv", "file:./chunks.tsv")]
    assert maps[0] == maps[1] and maps[0].fingerprint == maps[1].fingerprint


def test_other_bytes_are_another_policy(folder):
    (folder / "e.json").write_text("[1, 0.6, 0.5, 0.4, 0.25]")
    a, b = Protocol(discount="file:d.json"), Protocol(discount="file:e.json")
    assert a != b and a.fingerprint != b.fingerprint


def test_protocols_without_files_keep_their_fingerprint():
    # The fingerprint of the defaults, as every saved result since the first one holds it.
    assert Protocol().fingerprint == Protocol().path_fingerprint == "1c0253228810"


def test_saved_results_compare_across_spellings_and_folders(folder, capsys):
    qrels, bm25, tfidf = (str(CRANFIELD / name) for name in ("qrels.txt", "bm25.run", "tfidf.run"))
    elsewhere = folder / "elsewhere"
    elsewhere.mkdir()
    for run, spelling, name in ((bm25, "file:d.json", "a.json"), (tfidf, "file:./d.json", "b.json")):
        assert main(["evaluate", qrels, run, "--policy", f"discount={spelling}", "-m", "ndcg@5",
                     "--format", "json", "-o", str(elsewhere / name)]) == 0
    os.chdir(elsewhere)      # no d.json here: the saved results hold the vector
    capsys.readouterr()
    assert main(["compare", "--results", "a.json", "b.json", "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert "ndcg@5" in out and "discount=file:d.json@sha256:" in out
    loaded = load_results("b.json")[0]
    assert loaded.protocol.discount.values == (1.0, 0.6, 0.5, 0.4, 0.3)
    document = json.loads((elsewhere / "b.json").read_text())
    del document["protocol_files"]          # as written before the vector was saved with it
    (elsewhere / "old.json").write_text(json.dumps(document))
    assert main(["compare", "--results", "a.json", "old.json"]) == 2
    assert "d.json is not here" in capsys.readouterr().err
