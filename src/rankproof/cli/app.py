"""The ``rankproof`` command: parse arguments, call the library, render, exit.

Exit codes: 0 ok; 2 bad input or usage (one line on stderr naming what,
where and the fix; never a traceback); 1 internal error (a bug: set
RANKPROOF_DEBUG=1 to see the traceback).

Heavy libraries (pyarrow, rich, scipy) are imported inside the commands that
need them, so ``rankproof --help`` and small evaluations start fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence, TypeVar

__all__ = ["main"]

DEFAULT_MEASURES = ["ndcg@10", "ap", "rr", "p@10"]
FORMATS = ("table", "json", "csv", "markdown", "trec")
INPUT_FORMATS = ("trec", "csv", "tsv", "jsonl", "parquet")
# What --engine chooses: the local engines of rankproof.engines.ENGINES (kept
# here, not imported, so that --help loads no engine; tests/test_spark.py holds
# the two lists together) and spark (rankproof.spark: Parquet on a Spark session).
ENGINES = ("compiled", "numpy", "spark")
# Inputs above this size (about a million TREC lines) get a progress display.
LARGE_INPUT_BYTES = 40 * 1024 * 1024


class UsageError(Exception):
    """Bad command-line usage, reported in one line with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, no usage dump
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


# -- shared steps ---------------------------------------------------------------
def _protocol(args):
    from ..errors import ProtocolError
    from ..protocol import Protocol

    protocol = Protocol.preset(args.preset)
    changes: dict[str, str] = {}
    for item in args.policy or []:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise ProtocolError(f"--policy {item!r}: write key=value, e.g. --policy ties=docid")
        changes[key.strip()] = value.strip()
    return protocol.replace(**changes) if changes else protocol


def _grade_map(text: str | None) -> dict[int, int] | None:
    from ..errors import InputError, ParseError
    from ..io.files import check_json_nesting, load_text

    if text is None:
        return None
    example = "give a JSON file such as {\"1\": 4, \"2\": 3}"
    if text.endswith(".json") or Path(text).exists():
        source = f"--grade-map {text}"
        try:
            data = load_text(text, source, what="grade map", label="JSON", binary_hint=lambda _: example,
                             encoding_fix=lambda _: example)
        except ParseError as error:
            message = str(error).replace(": does not exist;", ": the file does not exist;")
            raise InputError(message) from None
        check_json_nesting(data, source)
        try:
            raw = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
            raise InputError(f"--grade-map {text}: not valid JSON ({error}); write {{\"1\": 4, \"2\": 3}}") from None
        if not isinstance(raw, dict):
            raise InputError(f"--grade-map {text}: expected a JSON object such as {{\"1\": 4, \"2\": 3}}")
        items: Iterable[Sequence[Any]] = raw.items()
    else:
        items = [part.split(":", 1) if ":" in part else (part, None) for part in text.split(",") if part.strip()]
    mapping: dict[int, int] = {}
    for old, new in items:
        try:
            grade = int(str(old).strip())
            value = int(str(new).strip())
        except (TypeError, ValueError):
            raise InputError(
                f"--grade-map: cannot read {_short(old)}:{_short(new)}; write integer pairs such as 1:4,2:3,-1:0 "
                "(use --grade-map=-1:0,... when the first grade is negative)"
            ) from None
        if grade in mapping:
            raise InputError(f"--grade-map: grade {grade} is mapped twice; map each grade once")
        for number in (grade, value):
            if not -(2**63) <= number < 2**63:
                raise InputError(f"--grade-map: {_short(number)} does not fit in a 64-bit integer; "
                                 "use small integer grades such as 0, 1, 2")
        mapping[grade] = value
    return mapping


def _columns(args, kind: str) -> dict:
    """Column names for table inputs (CSV, TSV, JSON Lines, Parquet) from --columns and --*-col."""
    from ..errors import InputError

    spec: dict[str, str] = {}
    for item in (getattr(args, "columns", None) or "").split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in ("query", "doc", "grade", "score") or not value.strip():
            raise InputError(f"--columns {args.columns!r}: write role=column pairs, e.g. "
                             "--columns query=qid,doc=docno,score=sim (roles: query, doc, grade, score)")
        spec[key] = value.strip()
    for role in ("query", "doc", "grade", "score"):
        given = getattr(args, f"{role}_col", None)
        if given is not None:
            spec[role] = given
    wanted = ("query", "doc", "grade") if kind == "qrels" else ("query", "doc", "score")
    chosen: dict[str, str | None] = {role: spec[role] for role in wanted if role in spec}
    if kind == "run" and spec.get("score", "").lower() == "none":
        chosen["score"] = None  # rows already in rank order
    return chosen


_E = TypeVar("_E", bound=Exception)


class _Inputs:
    """Paths as given on the command line; '-' is stdin, copied once into a temporary file.

    The readers take paths, so stdin (any format; gzip found by its magic
    bytes) is written to a temporary file named with the format's extension,
    and error messages say "stdin" instead of that file's name.
    """

    def __init__(self) -> None:
        self._made: dict[str, str] = {}

    def path(self, given: str, fmt: "str | None") -> str:
        if given != "-":
            return given
        if "-" in self._made:
            return self._made["-"]
        import tempfile

        data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode("utf-8")
        suffix = {"csv": ".csv", "tsv": ".tsv", "jsonl": ".jsonl", "parquet": ".parquet"}.get(fmt or "trec", ".txt")
        with tempfile.NamedTemporaryFile(prefix="rankproof-stdin-", suffix=suffix, delete=False) as handle:
            handle.write(data)
        self._made["-"] = handle.name
        return handle.name

    def relabel(self, error: _E) -> _E:
        message = str(error)
        if "-" not in self._made or self._made["-"] not in message:
            return error
        return type(error)(message.replace(self._made["-"], "stdin"))

    def close(self) -> None:
        for name in self._made.values():
            try:
                os.unlink(name)
            except OSError:
                pass
        self._made.clear()


_INPUTS = _Inputs()


def _short(value, width: int = 40) -> str:
    """A value cut for a one-line message."""
    text = str(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _read_qrels(args):
    from ..data.grades import map_grades
    from ..data.qrels import Qrels

    path = _INPUTS.path(args.qrels, args.qrels_format)
    if getattr(args, "intents", False):
        return _read_intent_qrels(args, path)
    if getattr(args, "intent_weights", None) or getattr(args, "intent_col", None):
        raise UsageError("rankproof: --intent-weights and --intent-col describe judgments per intent; "
                         "add --intents (the qrels are 'query intent doc grade')")
    # The grades policy says how grades are read (grades=real keeps 1.5).
    grades = str(_protocol(args).grades) if hasattr(args, "preset") else "integer"
    qrels = Qrels.read(path, args.qrels_format, **_columns(args, "qrels"), grades=grades)
    mapping = _grade_map(args.grade_map)
    return map_grades(qrels, mapping) if mapping is not None else qrels


def _read_intent_qrels(args, path: str):
    """--intents: the qrels are judgments per intent (TREC diversity format, or a table with an intent column)."""
    from ..data.intents import IntentQrels

    if args.grade_map is not None:
        raise UsageError("rankproof: --grade-map does not apply to judgments per intent (--intents) yet; "
                         "map the grades in the file")
    return IntentQrels.read(path, args.qrels_format, intent=args.intent_col or "intent",
                            weights=args.intent_weights, **_columns(args, "qrels"))


def _read_run(path: str, fmt: str | None, name: str, args=None):
    from ..data.run import Run

    columns = _columns(args, "run") if args is not None else {}
    return Run.read(_INPUTS.path(path, fmt), fmt, name=name, **columns)


def _read_qrels_beside(args, run_path: str, run_name: str):
    """Read the qrels in a second thread while the first run is read.

    Both readers spend most of their time in numpy and arrow, which release
    the GIL, so on two cores the qrels come almost for free. A bad qrels
    file is still reported before a bad run, as when read one after the other.
    """
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending_qrels = pool.submit(_read_qrels, args)
        try:
            run = _read_run(run_path, args.run_format, run_name, args)
        except BaseException:
            pending_qrels.result()
            raise
        return pending_qrels.result(), run


def _run_names(paths: list[str], labels: "list[str] | None" = None) -> list[str]:
    """File names as run names (full paths where two files share a name); --label NAME=FILE renames."""
    from ..errors import InputError

    if sum(p == "-" for p in paths) > 1:
        raise InputError("stdin ('-') is given for two inputs; read at most one input from stdin")
    resolved = [p if p == "-" else os.path.realpath(p) for p in paths]
    seen: dict[str, str] = {}
    for given, real in zip(paths, resolved):
        if real in seen:
            raise InputError(f"{given}: the same run is given twice ({seen[real]} and {given}); give each run once")
        seen[real] = given
    names = ["stdin" if p == "-" else os.path.basename(p) for p in paths]
    names = [p if names.count(n) > 1 else n for p, n in zip(paths, names)]
    for label in labels or []:
        name, sep, file = label.partition("=")
        if not sep or not name or not file:
            raise InputError(f"--label {label!r}: write NAME=FILE, e.g. --label bm25=runs/bm25.run")
        real = file if file == "-" else os.path.realpath(file)
        if real not in resolved:
            raise InputError(f"--label {label!r}: {file} is not one of the runs given; label a run given on the line")
        names[resolved.index(real)] = name
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InputError(f"run name {repeated[0]!r} is given to two runs; give each --label a distinct name")
    return names


_RUN_EXTENSIONS = (".run", ".runs", ".trec", ".txt", ".res", ".csv", ".tsv", ".jsonl", ".json", ".parquet")


def _labels(names: list[str]) -> list[str]:
    """Run names for comparison tables: without the file extension (``bm25.run.gz`` -> ``bm25``),
    unless that would make two labels equal or empty."""
    def bare(name: str) -> str:
        stem = name[:-3] if name.endswith(".gz") else name
        root, extension = os.path.splitext(stem)
        return root if extension.lower() in _RUN_EXTENSIONS and root and not root.endswith(os.sep) else stem

    labels = [bare(name) for name in names]
    return labels if len(set(labels)) == len(labels) else names


def _Stages(total: int, enabled: bool, label: str = "evaluating"):
    """The progress display (rankproof.report.progress), for large inputs on a terminal only."""
    from ..report.progress import Stages

    return Stages(total, enabled, label)


def _keep_freed_memory() -> None:
    """Have glibc keep freed memory for the next arrays instead of unmapping it.

    By default every freed block above glibc's mmap threshold goes back to the
    kernel, so each of the many arrays of millions of rows an evaluation makes
    is page-faulted and zeroed afresh: on the 2-core VM this project is timed
    on, that was a third of the wall time of a 10M-line run (benchmarks/README.md).
    This is the command line's own process, so it may choose its allocator
    settings; the library never does. Elsewhere than glibc nothing happens.
    """
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mmap_threshold, trim_threshold, top_pad = -3, -1, -2  # glibc's M_* parameter numbers
    largest = 2**31 - 1
    mallopt(mmap_threshold, ctypes.c_int(largest))
    mallopt(trim_threshold, ctypes.c_int(largest))
    mallopt(top_pad, ctypes.c_int(1 << 28))


def _prepare_for(paths: list[str]) -> bool:
    """Set the process up for the given inputs; tell whether they are large."""
    large = _is_large(paths)
    if large:
        _keep_freed_memory()
        # The big files need pyarrow; importing it first lets the qrels use its reader too.
        import pyarrow  # noqa: F401
    return large


def _is_large(paths: list[str]) -> bool:
    from ..report.progress import is_large

    return is_large(paths, LARGE_INPUT_BYTES)


def _render(results, fmt: str, per_query: bool, digits: int = 4) -> str:
    if fmt == "json":
        from ..report.data import to_json

        return to_json(results, per_query=True)
    if fmt == "csv":
        from ..report.data import to_csv

        return to_csv(results, per_query=per_query)
    if fmt == "trec":
        from ..report.data import to_trec

        return to_trec(results, per_query=per_query, digits=digits)
    from ..report.table import to_markdown, to_table

    if fmt == "markdown":
        return to_markdown(results, per_query=per_query, digits=digits)
    return to_table(results, per_query=per_query, digits=digits, notes=False)


def _notes(results, quiet: bool) -> None:
    """Counts and warnings on stderr, whatever the format: stdout holds only the output asked for."""
    if quiet:
        return
    from ..report.table import notes_lines

    for line in notes_lines(results):
        print(f"rankproof: {line}", file=sys.stderr)


def _digits(args) -> int:
    digits = getattr(args, "precision", None)
    if digits is None:
        return 4
    if not 0 <= digits <= 17:
        raise UsageError(f"rankproof: --precision {digits}: give a number of decimals between 0 and 17")
    return digits


def _print(text: str) -> None:
    """Text to stdout, with a full disk or a closed stdout reported as bad usage."""
    from ..report.output import write_output

    write_output(text, None)


class _Signalled(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (removing temporary files) and exit 128 + signal."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def _raise_signalled(number, frame):
    raise _Signalled(number)


def _catch_termination() -> dict:
    """Turn SIGTERM and SIGHUP into an exception, as Python does SIGINT, so cleanup runs.

    Returns the handlers replaced, for :func:`main` to put back.
    """
    import signal
    import threading

    replaced: dict = {}
    if threading.current_thread() is not threading.main_thread():
        return replaced
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            replaced[number] = signal.signal(number, _raise_signalled)
    return replaced


# -- commands ---------------------------------------------------------------------
def _evaluate(args) -> int:
    from ..evaluation import evaluate
    from ..measures.parse import parse_measures
    from ..report.output import check_output_path, write_output

    # Everything that can be checked without reading data is checked first.
    measures = parse_measures(args.measure or DEFAULT_MEASURES)
    protocol = _protocol(args)
    digits = _digits(args)
    check_output_path(args.output, [args.qrels, *args.runs, args.grade_map])
    names = _run_names(args.runs, args.label)
    if args.qrels == "-" and "-" in args.runs:
        raise UsageError("rankproof evaluate: stdin ('-') is given for the qrels and a run; read one of them from stdin")
    if args.engine == "spark":
        results = _evaluate_on_spark(args, measures, protocol, names)
        write_output(_render(results, args.format, args.per_query, digits), args.output)
        _notes(results, args.quiet)
        return 0
    if args.spark_master is not None:
        raise UsageError("rankproof evaluate: --spark-master is for --engine spark")
    large = _prepare_for([args.qrels, *args.runs])
    stages = _Stages(1 + 2 * len(args.runs), large)
    try:
        qrels, run = _read_qrels_beside(args, args.runs[0], names[0])
        stages.step("read qrels")
        results = []
        for index, (path, name) in enumerate(zip(args.runs, names)):
            if index:  # the first run was read beside the qrels
                run = _read_run(path, args.run_format, name, args)
            stages.step(f"read {name}")
            results.append(evaluate(qrels, run, measures, protocol, min_coverage=args.min_coverage,
                                    allow_partial=args.allow_partial, bounds=args.bounds, engine=args.engine))
            del run  # do not keep a run alive while the next one is read
            stages.step(f"evaluated {name}")
    finally:
        stages.close()
    write_output(_render(results, args.format, args.per_query, digits), args.output)
    _notes(results, args.quiet)
    return 0


def _evaluate_on_spark(args, measures, protocol, names: list[str]) -> list:
    """``--engine spark``: each run evaluated by rankproof.spark, its per-query values
    collected into the Results every renderer takes (the same output as the local engine)."""
    for given, fmt in [(args.qrels, args.qrels_format), *[(run, args.run_format) for run in args.runs]]:
        if given == "-" or (fmt not in (None, "parquet")) or not (
                os.path.isdir(given) or given.lower().endswith((".parquet", ".pq")) or "://" in given):
            raise UsageError(f"rankproof evaluate: --engine spark reads Parquet files or directories; {given} is "
                             "not one (convert it to Parquet, or drop --engine spark)")
    if args.grade_map is not None:
        raise UsageError("rankproof evaluate: --grade-map is not available with --engine spark; "
                         "map the grades in the Parquet data")
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        raise UsageError("rankproof evaluate: --engine spark needs pyspark and a Java runtime; "
                         "pip install 'rankproof[spark]'")
    from ..spark import evaluate as spark_evaluate, get_session

    qrels_columns, run_columns = _columns(args, "qrels"), _columns(args, "run")
    try:
        session = get_session(args.spark_master)
    except Exception as error:  # no java, a bad master URL: pyspark's own exception types
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
        raise UsageError(f"rankproof evaluate: could not start Spark ({reason}); --engine spark needs a Java 17 "
                         "runtime (java on PATH or JAVA_HOME) and a reachable --spark-master") from None
    results = []
    for path, name in zip(args.runs, names):
        on_spark = spark_evaluate(args.qrels, path, measures, protocol, name=name, spark=session,
                                  min_coverage=args.min_coverage, allow_partial=args.allow_partial,
                                  **{**qrels_columns, **run_columns})
        results.append(on_spark.to_results())
        on_spark.unpersist()
    return results


def _explain(args) -> int:
    from ..explain.explanation import explain
    from ..report.output import write_output
    from ..report.table import explanation_table

    from ..measures.parse import parse_measures

    measures = parse_measures(args.measure or ["ndcg@10"])  # every bad name refused before reading
    protocol = _protocol(args)
    qrels = _read_qrels(args)
    run = _read_run(args.run, args.run_format, "stdin" if args.run == "-" else os.path.basename(args.run), args)
    tables = [explanation_table(explain(qrels, run, args.query, measure, protocol)) for measure in measures]
    write_output("\n".join(tables), None)
    return 0


def _formula(description: str) -> str:
    """The definition part of a measure's description: its first sentence."""
    cut = description.find(". ")
    return description if cut < 0 else description[: cut + 1]


def _side_data_measures() -> list[str]:
    """One line per beyond-accuracy measure: its function and the first sentence of its docstring."""
    from .. import recsys

    functions = [recsys.ild, recsys.novelty, recsys.long_tail_share, recsys.coverage, recsys.session_mean]
    lines = []
    for function in functions:
        doc = " ".join((function.__doc__ or "").split("\n\n")[0].split())
        lines.append(f"  rankproof.recsys.{function.__name__}: {doc}")
    return lines


def _measures(args) -> int:
    from ..errors import InputError
    from ..measures.aliases import aliases, suggest
    from ..engines.compiled import KINDS
    from ..measures.base import REGISTRY

    also: dict[str, list[str]] = {}
    for alias in aliases():
        base = alias.canonical.split("(")[0]
        if alias.name not in also.setdefault(base, []):
            also[base].append(alias.name)
    wanted = (args.filter or "").lower()

    def shown(name: str) -> bool:
        return not wanted or wanted in name or any(wanted in a.lower() for a in also.get(name, []))

    specs = [spec for spec in REGISTRY.values() if shown(spec.name)]
    if not specs and wanted:
        specs = [spec for spec in REGISTRY.values() if wanted in spec.description.lower()]
    if not specs:
        near = suggest(args.filter)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise InputError(f"no measure matches {args.filter!r}{hint} (rankproof measures lists them all)")
    lines = []
    for spec in specs:
        usage = spec.name + ("@k" if spec.cutoff else "")
        extras = []
        if spec.params:
            extras.append("params " + ", ".join(spec.params))
        if spec.ties == "ordered":
            extras.append("tied scores need ties=docid or ties=input")
        if also.get(spec.name):
            extras.append("also " + ", ".join(also[spec.name][:6]))
        formula = _formula(spec.description)
        if not wanted and len(formula) > 110:  # the full definition: rankproof measures NAME
            formula = formula[:107].rstrip() + "..."
        lines.append(f"{usage:<15} {formula}" + (f"  [{'; '.join(extras)}]" if extras else ""))
    if not wanted:
        # Which engine computes what (the compiled engine hands these to the numpy one).
        delegated = [spec.name for spec in specs if spec.name not in KINDS and spec.family != "diversity"]
        own = [spec.name for spec in specs if spec.family == "diversity"]
        lines.append("")
        lines.append("engine: compiled for every measure but " + ", ".join(delegated) + " (numpy)")
        if own:
            lines.append("the diversity measures (" + ", ".join(own) + ") run their own compiled loops "
                         "under every engine, and need --intents")
        lines.append("")
        lines.append("measures that need side data about the items (Python functions, not names for -m):")
        lines.extend(_side_data_measures())
        lines.append("")
        lines.append("Examples: ndcg@10  ndcg(gain=exp2)@10  p(rel=2)@5  ap  rr@10")
        lines.append("rankproof measures FILTER shows the full definition of the measures whose name holds FILTER.")
    _print("\n".join(lines) + "\n")
    return 0


def _why(args) -> int:
    from ..report.output import write_output
    from ..explain.why import why

    measures = args.measure or ["ndcg@10"]
    protocol = _protocol(args)
    qrels = _read_qrels(args)
    run = _read_run(args.run, args.run_format, os.path.basename(args.run))
    write_output(why(qrels, run, measures, args.peer, protocol, top=args.top).summary() + "\n", None)
    return 0


def _protocol_command(args) -> int:
    from ..protocol import PRESETS, Protocol

    protocol = _protocol(args)
    lines = [f"preset {args.preset} (presets: {', '.join(PRESETS)})"]
    policies = protocol.to_dict()
    width = max(len(name) for name in policies)
    for name, value in policies.items():
        default = Protocol().to_dict()[name]
        mark = "" if value == default else f"   (rankproof default: {default})"
        lines.append(f"  {name:<{width}}  {value}{mark}")
    lines.append(f"{'text':<{width + 2}}  {protocol}")
    lines.append(f"{'fingerprint':<{width + 2}}  {protocol.fingerprint}")
    _print("\n".join(lines) + "\n")
    return 0


COMPARE_FORMATS = ("table", "json", "csv", "markdown", "latex")


def _saved_runs(paths: list[str]) -> dict:
    """Every run of every saved results file; names made unique with the file name where they clash."""
    from ..stats import load_results

    loaded = [(path, saved) for path in paths for saved in load_results(path)]
    names = _labels([saved.run_name for _, saved in loaded])
    return {(f"{os.path.basename(path)}:{name}" if names.count(name) > 1 else name): saved
            for (path, saved), name in zip(loaded, names)}


def _render_comparison(comparison, fmt: str) -> str:
    from ..report import compare as render

    return {"table": render.to_table, "json": render.to_json, "csv": render.to_csv,
            "markdown": render.to_markdown, "latex": render.to_latex}[fmt](comparison)


def _compare(args) -> int:
    from ..report.output import check_output_path, write_output
    from ..stats import compare

    check_output_path(args.output, [*(args.results or []), *(args.inputs or []), args.grade_map])
    if args.results:
        if args.inputs:
            raise UsageError("rankproof compare: give either QRELS RUN RUN ... or --results FILE ..., not both")
        if args.label:
            raise UsageError("rankproof compare: --label names run files; saved results keep their run names")
        if args.bounds:
            raise UsageError("rankproof compare: --bounds evaluates the runs; saved results hold no bounds, so give "
                             "QRELS RUN RUN ...")
        if args.preset != "rankproof" or args.policy or args.grade_map:
            raise UsageError("rankproof compare: --preset, --policy and --grade-map apply when evaluating runs; "
                             "saved results keep the protocol they were evaluated under")
        runs = _saved_runs(args.results)
        qrels, protocol, measures = None, None, args.measure
    else:
        if len(args.inputs) < 3:
            raise UsageError("rankproof compare: give QRELS and at least two runs (or --results FILE ...)")
        from ..measures.parse import parse_measures

        measures = parse_measures(args.measure or DEFAULT_MEASURES)
        protocol = _protocol(args)
        paths = args.inputs[1:]
        # Runs are named by file without its extension (bm25.run -> bm25), or by --label.
        file_names = _run_names(paths)
        labelled = _run_names(paths, args.label)
        names = [given if given != file else bare for given, file, bare in zip(labelled, file_names, _labels(file_names))]
        large = _prepare_for(args.inputs)
        args.qrels = args.inputs[0]
        with _Stages(2 + len(paths), large, "comparing") as stages:
            qrels = _read_qrels(args)
            stages.step("read qrels")
            runs = {}
            for path, name in zip(paths, names):
                runs[name] = _read_run(path, args.run_format, name, args)
                stages.step(f"read {name}")
            # --baseline may name the run (with or without its extension) or give its path.
            args.baseline = {**dict(zip(paths, names)), **dict(zip(file_names, names))}.get(args.baseline,
                                                                                             args.baseline)
            stages.step("evaluating and testing")
            comparison = compare(qrels, runs, measures, protocol, test=args.test, correction=args.correction,
                                 alpha=args.alpha, baseline=args.baseline, confidence=args.confidence,
                                 bootstrap_method=args.bootstrap, power=args.power, n_resamples=args.resamples,
                                 seed=args.seed, allow_mismatch=args.allow_mismatch,
                                 allow_partial=args.allow_partial, bounds=args.bounds)
        write_output(_render_comparison(comparison, args.format), args.output)
        return 0
    comparison = compare(qrels, runs, measures, protocol, test=args.test, correction=args.correction,
                         alpha=args.alpha, baseline=args.baseline, confidence=args.confidence,
                         bootstrap_method=args.bootstrap, power=args.power, n_resamples=args.resamples,
                         seed=args.seed, allow_mismatch=args.allow_mismatch)
    write_output(_render_comparison(comparison, args.format), args.output)
    return 0


def _report(args) -> int:
    import shlex

    from ..report.figures import input_file, read_segments
    from .labels import apply_labels
    from ..measures.parse import parse_measures
    from ..report import make_report
    from ..report.output import check_output_path

    # Everything that can be checked without reading data is checked first.
    measures = parse_measures(args.measure or DEFAULT_MEASURES)
    protocol = _protocol(args)
    check_output_path(args.output, [args.qrels, *args.runs, args.grade_map, args.segments])
    names = apply_labels(args.label, args.runs, _run_names(args.runs))
    segments = read_segments(args.segments) if args.segments else None
    _prepare_for([args.qrels, *args.runs])
    qrels, first = _read_qrels_beside(args, args.runs[0], names[0])
    runs = {names[0]: first}
    for path, name in zip(args.runs[1:], names[1:]):
        runs[name] = _read_run(path, args.run_format, name)
    # --baseline may name the run (label or file name) or give its path.
    baseline = dict(zip(args.runs, names)).get(args.baseline, args.baseline) if args.baseline else None
    inputs = [input_file("qrels", args.qrels)] + [input_file(f"run {n}", p) for n, p in zip(names, args.runs)]
    if segments is not None:
        inputs.append(input_file("segments", args.segments))
    make_report(qrels, runs, measures, protocol, baseline=baseline, segments=segments, output=args.output,
                test=args.test, correction=args.correction, alpha=args.alpha, resamples=args.resamples,
                seed=args.seed, inputs=[f for f in inputs if f is not None],
                command=shlex.join(["rankproof", *getattr(args, "argv", [])]))
    return 0


def _fit_pbm(args) -> int:
    from ..recsys.clicks import fit_pbm, read_clicks
    from ..report.output import write_output

    if args.max_iterations < 1:
        raise UsageError(f"rankproof fit-pbm: --max-iterations must be at least 1; got {args.max_iterations}")
    if not args.tolerance > 0:
        raise UsageError(f"rankproof fit-pbm: --tolerance must be positive; got {args.tolerance}")
    if args.max_rank is not None and args.max_rank < 1:
        raise UsageError(f"rankproof fit-pbm: --max-rank must be at least 1; got {args.max_rank}")
    log = read_clicks(args.clicks, args.clicks_format, query=args.query_col, doc=args.doc_col,
                      rank=args.rank_col, clicked=args.clicked_col)
    fit = fit_pbm(log, max_iterations=args.max_iterations, tolerance=args.tolerance, max_rank=args.max_rank)
    if args.output is None or args.output == "-":
        write_output(json.dumps(fit.to_dict(), indent=2) + "\n", None)
    else:
        fit.write(args.output)
    if not args.quiet:
        how = (f"converged in {fit.iterations} iterations" if fit.converged
               else f"NOT converged after {fit.iterations} iterations (raise --max-iterations)")
        shown = ", ".join(f"{v:.3f}" for v in fit.examination[:10].tolist())
        more = ", ..." if len(fit.examination) > 10 else ""
        print(f"rankproof: {log.source}: {fit.impressions} impressions, {fit.clicks} clicks, "
              f"{len(fit.attractiveness)} query-doc pairs; EM {how}; examination by rank (rank 1 = 1): "
              f"{shown}{more}", file=sys.stderr)
    return 0


def _demo(args) -> int:
    from .demo import run_demo

    _print(run_demo())
    return 0


# -- parser -------------------------------------------------------------------------
def _add_protocol_options(parser: argparse.ArgumentParser) -> None:
    from ..protocol import PRESETS

    names = ", ".join(PRESETS)
    parser.add_argument("--preset", default="rankproof", metavar="NAME",
                        help=f"protocol preset: {names} (default rankproof; see `rankproof protocol --preset NAME`)")
    parser.add_argument("--policy", action="append", metavar="KEY=VALUE",
                        help="override one policy, e.g. ties=docid (repeatable; see `rankproof protocol`)")


def _add_input_options(parser: argparse.ArgumentParser, runs: bool = True) -> None:
    parser.add_argument("--grade-map", metavar="MAP",
                        help="map grades before anything else: 1:4,2:3,-1:0 or a JSON file {\"1\": 4}")
    parser.add_argument("--qrels-format", choices=INPUT_FORMATS, help="default: from the extension (else trec)")
    parser.add_argument("--run-format", choices=INPUT_FORMATS, help="default: from the extension (else trec)")
    columns = parser.add_argument_group("columns of CSV, TSV, JSON Lines and Parquet inputs")
    columns.add_argument("--columns", metavar="SPEC",
                         help="role=column pairs, e.g. query=qid,doc=docno,grade=rel,score=sim")
    columns.add_argument("--query-col", metavar="NAME", help="query id column (default query)")
    columns.add_argument("--doc-col", metavar="NAME", help="doc id column (default doc)")
    columns.add_argument("--grade-col", metavar="NAME", help="grade column of the qrels (default grade)")
    columns.add_argument("--score-col", metavar="NAME",
                         help="score column of runs (default score; none: rows are in rank order)")
    if runs:
        parser.add_argument("--label", action="append", metavar="NAME=FILE",
                            help="name the run FILE as NAME in every output (repeatable)")


def _add_intent_options(parser: argparse.ArgumentParser) -> None:
    """Judgments per intent (read by _read_qrels when --intents is given)."""
    intents = parser.add_argument_group("judgments per intent (the diversity measures: alpha_ndcg, err_ia, "
                                        "ndcg_ia, p_ia, s_recall)")
    intents.add_argument("--intents", action="store_true",
                         help="the qrels hold an intent column: TREC diversity format 'query intent doc grade' "
                              "(NIST ndeval's), or a table's intent column (--intent-col)")
    intents.add_argument("--intent-col", metavar="NAME", help="intent column of table qrels (default intent)")
    intents.add_argument("--intent-weights", metavar="FILE",
                         help="intent weights, one 'query intent weight' line each (default: uniform over the "
                              "intents with a relevant doc, as ndeval)")


def _add_test_options(parser: argparse.ArgumentParser) -> None:
    """The significance options compare and report share."""
    parser.add_argument("--test", choices=("randomization", "t", "wilcoxon"), default="randomization",
                        help="paired test (default randomization: sign flips)")
    parser.add_argument("--correction", choices=("holm", "bonferroni", "bh", "none"), default="holm",
                        help="multiple-comparison correction over pairs x measures (default holm)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument("--resamples", type=int, default=10_000,
                        help="randomization and bootstrap draws (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def _add_coverage_options(parser: argparse.ArgumentParser) -> None:
    from ..results import MIN_COVERAGE

    parser.add_argument("--min-coverage", type=float, default=MIN_COVERAGE, metavar="SHARE",
                        help=f"refuse a run ranking less than this share of the judged queries "
                             f"(default {MIN_COVERAGE}; a run ranking none is always refused)")
    parser.add_argument("--allow-partial", action="store_true",
                        help="evaluate runs that rank too few judged queries anyway (a warning says how many)")


_EXAMPLES = {
    "evaluate": """examples:
  rankproof evaluate qrels.txt bm25.run -m ndcg@10 -m map -m P@10 -m recall@100 -m mrr
  rankproof evaluate qrels.txt a.run b.run --preset trec_eval --format json -o results.json
  rankproof evaluate qrels.csv run.csv --columns query=qid,doc=docno,grade=rel,score=sim
  zcat bm25.run.gz | rankproof evaluate qrels.txt - --label bm25=- --quiet --format csv
  rankproof evaluate --intents diversity.qrels run.txt -m alpha_ndcg@20 -m err_ia@20 -m s_recall@20
Measure names of trec_eval (P_10, ndcg_cut.10), ir_measures (nDCG@10) and ranx (mrr) are read too.
Counts and warnings go to stderr (--quiet drops them); exit 2 on bad input, one line on stderr.""",
    "explain": """examples:
  rankproof explain qrels.txt bm25.run --query 1 -m ndcg@10
  rankproof explain qrels.txt bm25.run -q 1 -m ap --preset trec_eval""",
    "measures": """examples:
  rankproof measures          every measure, one line each
  rankproof measures ndcg     the measures whose name (or another tool's name for it) holds 'ndcg'""",
    "protocol": """examples:
  rankproof protocol --preset trec_eval
  rankproof protocol --policy ties=docid --policy gain=exp2""",
    "compare": """examples:
  rankproof compare qrels.txt bm25.run tfidf.run lmdirichlet.run -m ndcg@10 -m ap
  rankproof compare qrels.txt a.run b.run --baseline a.run --test t --format latex -o table.tex
  rankproof compare --results a.json b.json""",
    "fit-pbm": """examples:
  rankproof fit-pbm clicks.txt -o discount.json
  rankproof evaluate qrels.txt bm25.run -m ndcg@10 --policy discount=file:discount.json
The examination vector is normalised to rank 1 = 1 (the model sees only products examination x attractiveness).""",
    "demo": """example:
  rankproof demo""",
}


def _version() -> str:
    from importlib.metadata import version

    return f"rankproof {version('rankproof')}"


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rankproof", description="Ranking evaluation that states its conventions.",
                     epilog="rankproof COMMAND --help shows each command's options and examples.")
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=help, description=help, epilog=_EXAMPLES.get(name),
                                   formatter_class=argparse.RawDescriptionHelpFormatter)

    ev = command("evaluate", "evaluate runs against qrels")
    ev.add_argument("qrels", help="judgments: TREC (query 0 doc grade), CSV/TSV, JSONL or Parquet; - for stdin")
    ev.add_argument("runs", nargs="+", metavar="run",
                    help="rankings: TREC (query Q0 doc rank score tag), CSV/TSV, JSONL or Parquet; - for stdin")
    ev.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                    help=f"e.g. ndcg@10 (repeatable; default {' '.join(DEFAULT_MEASURES)})")
    _add_protocol_options(ev)
    _add_input_options(ev)
    _add_coverage_options(ev)
    _add_intent_options(ev)
    ev.add_argument("--engine", choices=ENGINES, default="compiled",
                    help="what computes the measures: compiled (default) or numpy on this machine, or spark "
                         "(Parquet files or directories, evaluated on a Spark session; same numbers)")
    ev.add_argument("--spark-master", metavar="URL",
                    help="with --engine spark: the master (default: the active session, else local[2])")
    ev.add_argument("--per-query", action="store_true", help="also show each query's values")
    ev.add_argument("--bounds", action="store_true",
                    help="show each value with its bounds under the unjudged docs: 0.341 [0.341, 0.612] "
                         "(unjudged docs at gain 0, and at the highest grade)")
    ev.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")
    ev.add_argument("--precision", type=int, metavar="DIGITS",
                    help="decimals printed by table, markdown and trec (default 4; json and csv keep every digit)")
    ev.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    ev.add_argument("--quiet", action="store_true", help="no counts or warnings on stderr (errors still are)")
    ev.set_defaults(handler=_evaluate)

    ex = command("explain", "every number behind one query's score")
    ex.add_argument("qrels", help="judgments (any input format; - for stdin)")
    ex.add_argument("run", help="rankings (any input format; - for stdin)")
    ex.add_argument("--query", "-q", required=True)
    ex.add_argument("-m", "--measure", action="append", metavar="MEASURE", help="a measure; repeat for several (default ndcg@10)")
    _add_protocol_options(ex)
    _add_input_options(ex, runs=False)
    ex.set_defaults(handler=_explain)

    wh = commands.add_parser(
        "why", help="why a number differs from a peer's: the policies that differ, by how much, on which queries",
        epilog="example: rankproof why qrels.txt lmdirichlet.run --peer ranx -m ndcg@10")
    wh.add_argument("qrels")
    wh.add_argument("run")
    wh.add_argument("--peer", required=True, choices=("trec_eval", "trec_eval9", "sklearn", "lightgbm", "ranx"),
                    help="the peer whose preset to compare with")
    wh.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                    help="a measure; repeat for several (default ndcg@10)")
    wh.add_argument("--top", type=int, default=5, help="how many of the most different queries to list (default 5)")
    _add_protocol_options(wh)
    _add_input_options(wh)
    wh.set_defaults(handler=_why)

    ms = command("measures", "list the measures, one line each with its definition")
    ms.add_argument("filter", nargs="?", metavar="FILTER", help="only measures whose name holds FILTER, e.g. ndcg")
    ms.set_defaults(handler=_measures)

    pr = command("protocol", "print a preset's policies")
    _add_protocol_options(pr)
    pr.set_defaults(handler=_protocol_command)

    # Listed for --help only: main() hands `trec-eval` its own arguments.
    commands.add_parser("trec-eval", help="trec_eval drop-in (10; --v9 for 9.0.x): rankproof trec-eval [options] QRELS RUN")

    co = command("compare", "paired significance tests between runs (or saved results)")
    co.add_argument("inputs", nargs="*", metavar="QRELS RUN", help="the qrels, then two or more runs")
    co.add_argument("--results", nargs="+", metavar="FILE",
                    help="compare saved results (rankproof evaluate --format json -o FILE) instead of runs")
    co.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                    help=f"e.g. ndcg@10 (repeatable; default {' '.join(DEFAULT_MEASURES)}, or every measure saved)")
    co.add_argument("--baseline", metavar="RUN", help="compare every run with this one (default: all pairs)")
    _add_test_options(co)
    co.add_argument("--confidence", type=float, default=0.95, help="bootstrap interval level (default 0.95)")
    co.add_argument("--bootstrap", choices=("percentile", "BCa", "basic"), default="percentile",
                    help="bootstrap interval method (default percentile)")
    co.add_argument("--power", type=float, default=0.8, help="power for 'queries needed' (default 0.8)")
    co.add_argument("--allow-mismatch", action="store_true",
                    help="compare runs evaluated under different protocols, qrels or query sets (on shared queries)")
    _add_protocol_options(co)
    _add_input_options(co)
    _add_intent_options(co)
    co.add_argument("--allow-partial", action="store_true",
                    help="compare runs that rank fewer than half of the judged queries anyway")
    co.add_argument("--bounds", action="store_true",
                    help="say which differences the unjudged docs could reverse (the runs' bounds overlap)")
    co.add_argument("--format", choices=COMPARE_FORMATS, default="table", help="output format (default table)")
    co.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    co.set_defaults(handler=_compare)

    rp = commands.add_parser("report", help="one self-contained HTML page: summary, plots and a drill-down")
    rp.add_argument("qrels", help="judgments: TREC (query 0 doc grade), CSV/TSV, JSONL or Parquet")
    rp.add_argument("runs", nargs="+", metavar="run", help="rankings: TREC (query Q0 doc rank score tag), ...")
    rp.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                    help=f"e.g. ndcg@10 (repeatable; default {' '.join(DEFAULT_MEASURES)})")
    rp.add_argument("--baseline", metavar="RUN", help="compare every run with this one (default: the first)")
    rp.add_argument("--segments", metavar="FILE",
                    help="query -> segment: lines 'query segment', or a JSON object {\"query\": \"segment\"}")
    _add_test_options(rp)
    _add_protocol_options(rp)
    _add_input_options(rp)
    rp.add_argument("-o", "--output", metavar="FILE", required=True, help="the HTML file to write (atomically)")
    rp.set_defaults(handler=_report)

    fp = command("fit-pbm", "fit a position-based click model to a click log; write its examination "
                            "vector as a discount (discount=file:FILE)")
    fp.add_argument("clicks", help="click log: lines 'query doc rank clicked' (whitespace), or CSV/TSV/JSONL/"
                                   "Parquet with those columns")
    fp.add_argument("-o", "--output", metavar="FILE", help="write the JSON to FILE (atomically) instead of stdout")
    fp.add_argument("--clicks-format", choices=INPUT_FORMATS, help="default: from the extension (else whitespace)")
    fp.add_argument("--max-rank", type=int, metavar="R", help="leave out impressions below rank R")
    fp.add_argument("--max-iterations", type=int, default=1000, help="EM iterations at most (default 1000)")
    fp.add_argument("--tolerance", type=float, default=1e-7,
                    help="stop when no examination probability moves by more (default 1e-7)")
    fp.add_argument("--query-col", default="query", metavar="NAME", help="query column of a table (default query)")
    fp.add_argument("--doc-col", default="doc", metavar="NAME", help="doc column of a table (default doc)")
    fp.add_argument("--rank-col", default="rank", metavar="NAME", help="rank column of a table (default rank)")
    fp.add_argument("--clicked-col", default="clicked", metavar="NAME",
                    help="click column of a table, 0/1 (default clicked)")
    fp.add_argument("--quiet", action="store_true", help="no summary on stderr")
    fp.set_defaults(handler=_fit_pbm)

    demo = command("demo", "evaluate the bundled Cranfield runs")
    demo.set_defaults(handler=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    import signal

    replaced = _catch_termination()
    try:
        return _main(argv)
    except _Signalled as signalled:
        print(f"rankproof: terminated by signal {signalled.number}", file=sys.stderr)
        return 128 + signalled.number
    finally:
        for number, handler in replaced.items():
            signal.signal(number, handler)


def _main(argv: list[str] | None) -> int:
    from ..errors import RankproofError

    if not os.environ.get("RANKPROOF_DEBUG"):
        import warnings

        # The output shows undefined values as such (n/a, nan, inf); numpy's
        # floating-point warnings would only add lines to the one-line contract.
        warnings.simplefilter("ignore", RuntimeWarning)
    try:
        arguments = sys.argv[1:] if argv is None else list(argv)
        if arguments[:1] == ["trec-eval"]:
            # trec_eval's own option syntax (-M100, -qc, options after the files).
            from ..trec.command import trec_eval_command

            return trec_eval_command(arguments[1:])
        args = _parser().parse_args(argv)
        args.argv = arguments  # the report states the command that made it
        return args.handler(args)
    except (RankproofError, UsageError) as error:
        error = _INPUTS.relabel(error)
        message = " ".join(str(error).split("\n"))
        print(message if isinstance(error, UsageError) else f"rankproof: {message}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Output piped into head: not an error.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("rankproof: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        # Input too large for this machine, or hostile beyond the limits that
        # catch it earlier: bad input, not a bug.
        print("rankproof: out of memory while reading or evaluating the input; it is too large for this "
              "machine's memory (or address-space limit): evaluate fewer queries or runs at a time, lower "
              "RANKPROOF_MAX_ID_LENGTH, or use a machine with more memory", file=sys.stderr)
        return 2
    except Exception as error:  # a bug in rankproof, not in the input
        if os.environ.get("RANKPROOF_DEBUG"):
            raise
        print(f"rankproof: internal error: {type(error).__name__}: {error} "
              "(a bug; rerun with RANKPROOF_DEBUG=1 for the traceback and please report it)", file=sys.stderr)
        return 1
    finally:
        _INPUTS.close()


if __name__ == "__main__":
    sys.exit(main())
