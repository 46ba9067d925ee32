"""The atlas's peers: each tool run on a case the way its users call it.

A peer turns a case (``atlas_cases.Case``, written to TREC files) into its own
input, runs, and returns the mean of each measure it offers, or the error it
raised (a refusal is a result too). Nothing here computes a measure: every
value comes from the tool.

Inputs, per kind of tool:

* TREC tools (trec_eval 10 and 9) read the two files;
* ir_measures and ranx read the files with their own readers;
* pytrec_eval takes dicts (``{query: {doc: grade}}``, ``{query: {doc: score}}``),
  built row by row, so a doc listed twice keeps its last score;
* scikit-learn, torchmetrics, LightGBM and XGBoost take, per query, the run's
  docs with their scores and grades (an unjudged doc grade 0); a judged doc the
  run misses, or a query it misses, cannot be given to them;
* Spark MLlib takes, per judged query, the docs in score order and the set of
  relevant docs (grade >= 1).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.metadata
import math
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any, Callable

from atlas_cases import Case

__all__ = ["Outcome", "Peer", "PEERS", "ROOT", "spark_session", "start_spark_in_background", "stop_spark"]

ROOT = Path(__file__).resolve().parents[2]


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A peer's mean for one measure, or what it said when it refused the data."""

    value: float | None = None
    refused: str | None = None
    digits: int | None = None  # decimals the tool prints (trec_eval: 4); None: full precision

    def shown(self) -> str:
        if self.refused is not None:
            return "refuses"
        assert self.value is not None
        if math.isnan(self.value):
            return "nan"
        return f"{self.value:.{self.digits or 4}f}"


def _refusal(error: BaseException) -> Outcome:
    text = " ".join(str(error).split()) or type(error).__name__
    return Outcome(refused=f"{type(error).__name__}: {text[:160]}")


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


@dataclasses.dataclass(frozen=True)
class Peer:
    key: str
    label: str
    preset: str  # rankproof's preset for this tool: the first protocol tried
    measures: tuple[str, ...]  # the measure keys it offers (atlas_cases.MEASURES)
    module: str | None  # the import that must work; None: a binary
    call: str  # how the atlas calls it, for the page
    runner: Callable[[Case, Path, Path], dict[str, Outcome]]
    binary: str | None = None  # a program under ROOT

    def missing(self) -> str | None:
        """Why this peer cannot run here, and the command that adds it (:data:`ADDS`); None when it runs."""
        if self.binary is not None:
            path = ROOT / self.binary
            if not os.access(path, os.X_OK):
                return f"not built; {self.adds()}"
            return None
        assert self.module is not None
        try:
            importlib.import_module(self.module)
        except ImportError:
            return f"not installed; {self.adds()}"
        except Exception as error:  # a broken install
            return f"import {self.module} fails ({type(error).__name__}); {self.adds()}"
        if self.key == "spark" and not _java():
            return "no Java runtime: install a Java 17 runtime (apt-get install openjdk-17-jre-headless)"
        return None

    def adds(self) -> str:
        """The command that adds this peer (:data:`ADDS`; a peer outside the table: its module by pip)."""
        return ADDS.get(self.key) or f".venv/bin/pip install {self.module}"

    def version(self) -> str:
        if self.binary is not None:
            return "10.0" if self.key == "trec_eval" else "9.0.8"
        distributions = {"sklearn": ["scikit-learn"], "pytrec_eval": ["pytrec-eval-terrier"],
                         "ir_measures": ["ir-measures"], "spark": ["pyspark"],
                         "xgboost": ["xgboost", "xgboost-cpu"]}.get(self.key, [self.key])
        for distribution in distributions:
            try:
                return importlib.metadata.version(distribution)
            except importlib.metadata.PackageNotFoundError:
                continue
        return str(getattr(sys.modules.get(self.module or ""), "__version__", "?"))

    def run(self, case: Case, qrels: Path, run: Path) -> dict[str, Outcome]:
        try:
            with warnings.catch_warnings():  # the tools' own warnings (no positive class, ...) are not the page's
                warnings.simplefilter("ignore")
                return self.runner(case, qrels, run)
        except Exception as error:  # the tool refused the whole case
            return {key: _refusal(error) for key in self.measures}


# The command that adds each peer to the docs' environment (`make docs` installs only the docs extra;
# the test extra brings every Python peer: `.venv/bin/pip install -e '.[test,docs]'`).
_TREC_EVAL_REPO = "https://github.com/usnistgov/trec_eval"
ADDS: dict[str, str] = {
    "trec_eval": f"git clone {_TREC_EVAL_REPO} ../shared/reference/trec_eval-10 && make build/trec_eval/trec_eval",
    "trec_eval9": (f"git clone --branch v9.0.8 {_TREC_EVAL_REPO} ../shared/reference/trec_eval-9.0.8 && "
                   "make build/trec_eval9/trec_eval"),
    "pytrec_eval": ".venv/bin/pip install pytrec-eval-terrier",
    "ir_measures": ".venv/bin/pip install ir-measures",
    "ranx": ".venv/bin/pip install ranx",
    "sklearn": ".venv/bin/pip install scikit-learn",
    "torchmetrics": ".venv/bin/pip install torchmetrics (it brings torch)",
    "lightgbm": ".venv/bin/pip install lightgbm",
    "xgboost": ".venv/bin/pip install xgboost-cpu",
    "spark": ".venv/bin/pip install 'rankproof[spark]' (and a Java 17 runtime)",
}


def _java() -> bool:
    try:
        return subprocess.run(["java", "-version"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# --- trec_eval 10 and 9 -------------------------------------------------------------------------

def _trec_eval(binary: str) -> Callable[[Case, Path, Path], dict[str, Outcome]]:
    def run(case: Case, qrels: Path, run: Path) -> dict[str, Outcome]:
        names = {"ndcg": f"ndcg_cut_{case.k}", "p": f"P_{case.k}", "ap": "map"}
        done = subprocess.run([str(ROOT / binary), "-m", f"ndcg_cut.{case.k}", "-m", f"P.{case.k}", "-m", "map",
                               str(qrels), str(run)], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            said = " ".join(done.stderr.split()) or f"exit status {done.returncode}"
            return {key: Outcome(refused=f"exit {done.returncode}: {said[:160]}") for key in names}
        printed = {}
        for line in done.stdout.splitlines():
            fields = line.split()
            if len(fields) == 3 and fields[1] == "all":
                printed[fields[0]] = float(fields[2])
        return {key: Outcome(value=printed[name], digits=4) if name in printed
                else Outcome(refused="prints no value (no query evaluated)") for key, name in names.items()}
    return run


# --- pytrec_eval, ir_measures, ranx ----------------------------------------------------------------

def _as_dicts(case: Case) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    run: dict[str, dict[str, float]] = {}
    for q, d, s in case.run:
        run.setdefault(q, {})[d] = s
    return case.judged(), run


def _pytrec_eval(case: Case, qrels: Path, run: Path) -> dict[str, Outcome]:
    import pytrec_eval

    judged, scored = _as_dicts(case)
    names = {"ndcg": f"ndcg_cut_{case.k}", "p": f"P_{case.k}", "ap": "map"}
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {f"ndcg_cut.{case.k}", f"P.{case.k}", "map"})
    per_query = evaluator.evaluate(scored)
    if not per_query:
        return {key: Outcome(refused="returns no query: {} (nothing to average)") for key in names}
    return {key: Outcome(value=_mean([values[name] for values in per_query.values()]))
            for key, name in names.items()}


def _ir_measures(case: Case, qrels: Path, run: Path) -> dict[str, Outcome]:
    import ir_measures
    from ir_measures import AP, P, nDCG

    measures = {"ndcg": nDCG @ case.k, "p": P @ case.k, "ap": AP}
    means = ir_measures.calc_aggregate(list(measures.values()), ir_measures.read_trec_qrels(str(qrels)),
                                       ir_measures.read_trec_run(str(run)))
    return {key: Outcome(value=float(means[measure])) for key, measure in measures.items()}


def _ranx(case: Case, qrels: Path, run: Path) -> dict[str, Outcome]:
    from ranx import Qrels, Run, evaluate

    names = {"ndcg": f"ndcg@{case.k}", "p": f"precision@{case.k}", "ap": "map"}
    means = evaluate(Qrels.from_file(str(qrels), kind="trec"), Run.from_file(str(run), kind="trec"),
                     list(names.values()), make_comparable=True)
    return {key: Outcome(value=float(means[name])) for key, name in names.items()}


# --- the score-array tools ---------------------------------------------------------------------------

def _groups(case: Case) -> list[tuple[list[int], list[float]]]:
    """Per query of the run, in file order: the docs' grades (unjudged 0) and scores."""
    judged = case.judged()
    return [([judged.get(q, {}).get(d, 0) for d, _ in docs], [s for _, s in docs])
            for q, docs in case.ranked().items()]


def _per_query(case: Case, measures: dict[str, Callable[[list[int], list[float]], float]]) -> dict[str, Outcome]:
    """A plain mean over the run's queries of a function the tool offers per query; each measure on its own."""
    groups = _groups(case)
    out = {}
    for key, function in measures.items():
        try:
            out[key] = Outcome(value=_mean([function(grades, scores) for grades, scores in groups])
                               ) if groups else Outcome(refused="no query to evaluate (nothing to call it with)")
        except Exception as error:
            out[key] = _refusal(error)
    return out


def _sklearn(case: Case, qrels: Path, run: Path) -> dict[str, Outcome]:
    from sklearn.metrics import average_precision_score, ndcg_score

    return _per_query(case, {
        "ndcg": lambda grades, scores: float(ndcg_score([grades], [scores], k=case.k)),
        "ap": lambda grades, scores: float(average_precision_score([int(g >= 1) for g in grades], scores)),
    })


def _torchmetrics(case: Case, qrels: Path, run: Path) -> dict[str, Outcome]:
    import torch
    from torchmetrics.retrieval import RetrievalMAP, RetrievalNormalizedDCG, RetrievalPrecision

    groups = _groups(case)
    if not groups:
        return {key: Outcome(refused="no query to evaluate (nothing to call it with)") for key in ("ndcg", "p", "ap")}
    indexes = torch.tensor([i for i, (grades, _) in enumerate(groups) for _ in grades])
    scores = torch.tensor([s for _, group in groups for s in group], dtype=torch.float64)
    grades = torch.tensor([g for group, _ in groups for g in group])
    metrics: dict[str, tuple[Any, Any]] = {
        "ndcg": (RetrievalNormalizedDCG(top_k=case.k), grades),
        "p": (RetrievalPrecision(top_k=case.k), grades >= 1),
        "ap": (RetrievalMAP(), grades >= 1),
    }
    out = {}
    for key, (metric, target) in metrics.items():
        try:
            out[key] = Outcome(value=float(metric(scores, target, indexes=indexes)))
        except Exception as error:
            out[key] = _refusal(error)
    return out


@contextlib.contextmanager
def _native_stderr_captured():
    """Compiled peers (LightGBM's "[Fatal] Label should be non-negative") write to the process's
    stderr before they raise; the exception is the cell's refusal, so the line is kept out of the
    build's log, which must stay empty of anything but mkdocs' INFO lines."""
    import tempfile

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _lightgbm(case: Case, qrels: Path, run: Path) -> dict[str, Outcome]:
    """LightGBM's ndcg@k eval metric on the case's scores: a valid set whose init_score is the scores, and one
    boosting round on constant features (the tree adds one constant to every score: order and ties unchanged)."""
    import lightgbm as lgb
    import numpy as np

    groups = _groups(case)
    labels = np.array([g for grades, _ in groups for g in grades])
    scores = np.array([s for _, group in groups for s in group], dtype=np.float64)
    sizes = [len(grades) for grades, _ in groups]
    features = np.zeros((len(labels), 1))
    params = dict(objective="lambdarank", metric="ndcg", eval_at=[case.k], verbose=-1, num_threads=1,
                  deterministic=True, seed=1)
    train = lgb.Dataset(features, labels, group=sizes, params={"verbose": -1})
    valid = lgb.Dataset(features, labels, group=sizes, init_score=scores, reference=train, params={"verbose": -1})
    recorded: dict[str, Any] = {}
    with _native_stderr_captured():
        lgb.train(params, train, num_boost_round=1, valid_sets=[valid], valid_names=["valid"],
                  callbacks=[lgb.record_evaluation(recorded)])
    return {"ndcg": Outcome(value=float(recorded["valid"][f"ndcg@{case.k}"][0]))}


def _xgboost(case: Case, qrels: Path, run: Path) -> dict[str, Outcome]:
    """XGBoost's ndcg@k eval metric on the case's scores, given as the base margin of a model with no tree."""
    import numpy as np
    import xgboost as xgb

    groups = _groups(case)
    labels = np.array([g for grades, _ in groups for g in grades], dtype=np.float64)
    scores = np.array([s for _, group in groups for s in group], dtype=np.float64)
    qid = np.array([i for i, (grades, _) in enumerate(groups) for _ in grades])
    data = xgb.DMatrix(np.zeros((len(labels), 1)), label=labels, qid=qid, base_margin=scores)
    booster = xgb.train({"objective": "rank:ndcg", "eval_metric": f"ndcg@{case.k}", "nthread": 1}, data,
                        num_boost_round=0)
    said = booster.eval(data, name="valid")  # "[0]\tvalid-ndcg@3:0.91972..."
    return {"ndcg": Outcome(value=float(said.rsplit(":", 1)[1]))}


_SPARK: list[Any] = []
_SPARK_LOCK = threading.Lock()


def spark_session() -> Any:
    """One local Spark session for the whole atlas (its start is most of Spark's time); thread-safe, so that
    the atlas can start it in the background while the other tools run."""
    with _SPARK_LOCK:
        if not _SPARK:
            # rankproof's own quiet start: what the JVM writes while it starts (log4j's profile, the
            # native-hadoop WARN) goes to a file, not into the docs build's output.
            from rankproof.spark.session import get_session

            session = get_session("local[1]")
            session.conf.set("spark.sql.shuffle.partitions", "1")
            _SPARK.append(session)
        return _SPARK[0]


def start_spark_in_background() -> threading.Thread:
    def start() -> None:
        try:
            spark_session()
        except Exception:  # the Spark peer then refuses each case with the error, when it runs
            pass
    thread = threading.Thread(target=start, name="atlas-spark-start", daemon=True)
    thread.start()
    return thread


def stop_spark() -> None:
    with _SPARK_LOCK:
        if _SPARK:
            _SPARK.pop().stop()


def _spark(case: Case, qrels: Path, run: Path) -> dict[str, Outcome]:
    from pyspark.mllib.evaluation import RankingMetrics

    codes: dict[str, float] = {}

    def code(doc: str) -> float:
        return codes.setdefault(doc, float(len(codes)))

    ordered = case.by_score()
    pairs = [([code(d) for d, _ in ordered.get(q, [])], [code(d) for d, g in docs.items() if g >= 1])
             for q, docs in case.judged().items()]
    refused = None
    with _unraisable_ignored():   # a RankingMetrics whose __init__ raised fails again in __del__ ('_sc')
        try:
            return _spark_metrics(case, pairs, RankingMetrics)
        except Exception as error:   # the whole case refused; its traceback (and the object) go here
            refused = _refusal(error)
    return {key: refused for key in ("ndcg", "p", "ap")}


@contextlib.contextmanager
def _unraisable_ignored():
    """pyspark's JavaModelWrapper.__del__ on an object whose __init__ raised prints "Exception ignored ...
    'RankingMetrics' object has no attribute '_sc'" and a traceback at garbage collection, which reads as
    a failed build: such objects are collected here, with pyspark's own errors in __del__ dropped."""
    import gc

    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        where = getattr(unraisable, "object", None)   # the __del__ function that raised
        if str(getattr(where, "__module__", None) or type(where).__module__).startswith("pyspark"):
            return
        previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        gc.collect()
        sys.unraisablehook = previous


def _spark_metrics(case: Case, pairs: list, RankingMetrics: Any) -> dict[str, Outcome]:
    metrics = RankingMetrics(spark_session().sparkContext.parallelize(pairs, 1))
    calls = {"ndcg": lambda: metrics.ndcgAt(case.k), "p": lambda: metrics.precisionAt(case.k),
             "ap": lambda: metrics.meanAveragePrecision}
    out = {}
    for key, call in calls.items():
        try:
            out[key] = Outcome(value=float(call()))
        except Exception as error:
            out[key] = _refusal(error)
    return out


PEERS: tuple[Peer, ...] = (
    Peer("trec_eval", "trec_eval 10", "trec_eval", ("ndcg", "p", "ap"), None,
         "trec_eval -m ndcg_cut.K -m P.K -m map QRELS RUN", _trec_eval("build/trec_eval/trec_eval"),
         binary="build/trec_eval/trec_eval"),
    Peer("trec_eval9", "trec_eval 9", "trec_eval9", ("ndcg", "p", "ap"), None,
         "trec_eval -m ndcg_cut.K -m P.K -m map QRELS RUN (9.0.8)", _trec_eval("build/trec_eval9/trec_eval"),
         binary="build/trec_eval9/trec_eval"),
    Peer("pytrec_eval", "pytrec_eval", "trec_eval9", ("ndcg", "p", "ap"), "pytrec_eval",
         "RelevanceEvaluator(qrels, {ndcg_cut.K, P.K, map}).evaluate(run): the mean of its per-query values",
         _pytrec_eval),
    Peer("ir_measures", "ir_measures", "trec_eval9", ("ndcg", "p", "ap"), "ir_measures",
         "ir_measures.calc_aggregate([nDCG@K, P@K, AP], read_trec_qrels(QRELS), read_trec_run(RUN))", _ir_measures),
    Peer("ranx", "ranx", "ranx", ("ndcg", "p", "ap"), "ranx",
         "evaluate(Qrels.from_file(QRELS), Run.from_file(RUN), [ndcg@K, precision@K, map], make_comparable=True)",
         _ranx),
    Peer("sklearn", "scikit-learn", "sklearn", ("ndcg", "ap"), "sklearn",
         "ndcg_score([grades], [scores], k=K) and average_precision_score(grades >= 1, scores) per query, "
         "then their mean", _sklearn),
    Peer("torchmetrics", "torchmetrics", "rankproof", ("ndcg", "p", "ap"), "torchmetrics",
         "RetrievalNormalizedDCG(top_k=K), RetrievalPrecision(top_k=K), RetrievalMAP() with indexes "
         "(targets grade >= 1 for P and AP)", _torchmetrics),
    Peer("lightgbm", "LightGBM", "lightgbm", ("ndcg",), "lightgbm",
         "the ndcg@K eval metric of lgb.train on a valid set whose init_score is the run's scores", _lightgbm),
    Peer("xgboost", "XGBoost", "lightgbm", ("ndcg",), "xgboost",
         "the ndcg@K eval metric of a booster with no tree, the run's scores as base_margin", _xgboost),
    Peer("spark", "Spark MLlib", "spark", ("ndcg", "p", "ap"), "pyspark",
         "RankingMetrics over (docs in score order, relevant docs): ndcgAt(K), precisionAt(K), "
         "meanAveragePrecision", _spark),
)
assert set(ADDS) == {peer.key for peer in PEERS}, "every peer names the command that adds it"
