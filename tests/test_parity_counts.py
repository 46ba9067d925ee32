"""The parity case counts reach the terminal under xdist (``make parity`` runs ``-n 2``):
each worker sends its counts in ``workeroutput`` at session end; the controller sums them."""

from __future__ import annotations

import types

import conftest


def test_the_controller_sums_the_workers_counts(monkeypatch):
    monkeypatch.setattr(conftest, "WORKER_COUNTS", {})
    for sent in ({"ranx": {"compared": 3, "left out: x": 1}}, {"ranx": {"compared": 4}, "mteb": {"compared": 2}}):
        conftest.pytest_testnodedown(types.SimpleNamespace(workeroutput={"parity_counts": sent}), None)
    conftest.pytest_testnodedown(types.SimpleNamespace(), None)   # a worker that crashed sends nothing
    assert conftest.WORKER_COUNTS == {"ranx": {"compared": 7, "left out: x": 1}, "mteb": {"compared": 2}}


def test_a_worker_puts_its_counts_in_workeroutput(monkeypatch):
    import sys
    from collections import Counter

    monkeypatch.setitem(sys.modules, "differential_cases", types.SimpleNamespace(COUNTS={"haystack": Counter(compared=5)}))
    session = types.SimpleNamespace(config=types.SimpleNamespace(workeroutput={}))
    conftest.pytest_sessionfinish(session)
    assert session.config.workeroutput["parity_counts"] == {"haystack": {"compared": 5}}
