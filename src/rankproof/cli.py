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

__all__ = ["main"]

DEFAULT_MEASURES = ["ndcg@10", "ap", "rr", "p@10"]
FORMATS = ("table", "json", "csv", "markdown", "trec")
INPUT_FORMATS = ("trec", "csv", "tsv", "jsonl", "parquet")
# Inputs above this size (about a million TREC lines) get a progress display.
LARGE_INPUT_BYTES = 40 * 1024 * 1024


class UsageError(Exception):
    """Bad command-line usage, reported in one line with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, no usage dump
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def _cranfield() -> Path:
    return Path(__file__).resolve().parent / "_data" / "cranfield"


# -- shared steps ---------------------------------------------------------------
def _protocol(args):
    from .errors import ProtocolError
    from .protocol import Protocol

    protocol = Protocol.preset(args.preset)
    changes: dict[str, str] = {}
    for item in args.policy or []:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise ProtocolError(f"--policy {item!r}: write key=value, e.g. --policy ties=docid")
        changes[key.strip()] = value.strip()
    return protocol.replace(**changes) if changes else protocol


def _grade_map(text: str | None) -> dict[int, int] | None:
    from .errors import InputError, ParseError
    from .io.files import check_json_nesting, load_text

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
        items = raw.items()
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


def _short(value, width: int = 40) -> str:
    """A value cut for a one-line message."""
    text = str(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _read_qrels(args):
    from .data.grades import map_grades
    from .data.qrels import Qrels

    qrels = Qrels.read(args.qrels, args.qrels_format)
    mapping = _grade_map(args.grade_map)
    return map_grades(qrels, mapping) if mapping is not None else qrels


def _read_run(path: str, fmt: str | None, name: str):
    from .data.run import Run

    return Run.read(path, fmt, name=name)


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
            run = _read_run(run_path, args.run_format, run_name)
        except BaseException:
            pending_qrels.result()
            raise
        return pending_qrels.result(), run


def _run_names(paths: list[str]) -> list[str]:
    """File names as run names; full paths where two files share a name."""
    from .errors import InputError

    resolved = [os.path.realpath(p) for p in paths]
    seen: dict[str, str] = {}
    for given, real in zip(paths, resolved):
        if real in seen:
            raise InputError(f"{given}: the same run is given twice ({seen[real]} and {given}); give each run once")
        seen[real] = given
    names = [os.path.basename(p) for p in paths]
    return [p if names.count(n) > 1 else n for p, n in zip(paths, names)]


class _Stages:
    """A progress display on stderr for large inputs, only when stderr is a terminal."""

    def __init__(self, total: int, enabled: bool) -> None:
        self._progress = None
        if enabled and total > 1:
            from rich.console import Console
            from rich.progress import Progress

            self._progress = Progress(console=Console(stderr=True), transient=True)
            self._task = self._progress.add_task("evaluating", total=total)
            self._progress.start()

    def step(self, label: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, advance=1, description=label)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


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
    try:
        return sum(os.path.getsize(p) for p in paths) > LARGE_INPUT_BYTES
    except OSError:
        return False


def _render(results, fmt: str, per_query: bool) -> str:
    if fmt == "json":
        from .report.data import to_json

        return to_json(results, per_query=True)
    if fmt == "csv":
        from .report.data import to_csv

        return to_csv(results, per_query=per_query)
    if fmt == "trec":
        from .report.data import to_trec

        return to_trec(results, per_query=per_query)
    from .report.table import to_markdown, to_table

    return (to_markdown if fmt == "markdown" else to_table)(results, per_query=per_query)


def _print(text: str) -> None:
    """Text to stdout, with a full disk or a closed stdout reported as bad usage."""
    from .report.output import write_output

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
    from .evaluate import evaluate
    from .measures.base import parse_measures
    from .report.output import check_output_path, write_output

    # Everything that can be checked without reading data is checked first.
    measures = parse_measures(args.measure or DEFAULT_MEASURES)
    protocol = _protocol(args)
    check_output_path(args.output, [args.qrels, *args.runs, args.grade_map])
    names = _run_names(args.runs)
    large = _prepare_for([args.qrels, *args.runs])
    stages = _Stages(1 + 2 * len(args.runs), sys.stderr.isatty() and large)
    try:
        qrels, run = _read_qrels_beside(args, args.runs[0], names[0])
        stages.step("read qrels")
        results = []
        for index, (path, name) in enumerate(zip(args.runs, names)):
            if index:  # the first run was read beside the qrels
                run = _read_run(path, args.run_format, name)
            stages.step(f"read {name}")
            results.append(evaluate(qrels, run, measures, protocol))
            del run  # do not keep a run alive while the next one is read
            stages.step(f"evaluated {name}")
    finally:
        stages.close()
    write_output(_render(results, args.format, args.per_query), args.output)
    return 0


def _explain(args) -> int:
    from .explain import explain
    from .report.output import write_output
    from .report.table import explanation_table

    if args.measure and len(args.measure) > 1:
        raise UsageError("rankproof explain: give one measure (-m) at a time")
    measure = args.measure[0] if args.measure else "ndcg@10"
    protocol = _protocol(args)
    qrels = _read_qrels(args)
    run = _read_run(args.run, args.run_format, os.path.basename(args.run))
    write_output(explanation_table(explain(qrels, run, args.query, measure, protocol)), None)
    return 0


def _measures(args) -> int:
    from .measures.base import PARAMS, REGISTRY

    lines = []
    for spec in REGISTRY.values():
        usage = spec.name + ("@k" if spec.cutoff else "")
        # Policy overrides default to the protocol; a measure's own parameters to its spec.
        defaults = dict(spec.defaults)
        params = ", ".join(
            f"{p} ({PARAMS[p].description}; default {'the protocol' if PARAMS[p].policy else defaults[p]})"
            for p in spec.params) or "none"
        lines.append(f"{usage:<15} {spec.description}")
        lines.append(f"{'':<15} parameters: {params}")
    lines.append("")
    lines.append("Examples: ndcg@10  ndcg(gain=exp2)@10  p(rel=2)@5  ap  rr@10")
    _print("\n".join(lines) + "\n")
    return 0


def _protocol_command(args) -> int:
    from .protocol import PRESETS, Protocol

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
    from .stats import load_results

    loaded = [(path, saved) for path in paths for saved in load_results(path)]
    names = [saved.run_name for _, saved in loaded]
    return {(f"{os.path.basename(path)}:{saved.run_name}" if names.count(saved.run_name) > 1 else saved.run_name): saved
            for path, saved in loaded}


def _render_comparison(comparison, fmt: str) -> str:
    from .report import compare as render

    return {"table": render.to_table, "json": render.to_json, "csv": render.to_csv,
            "markdown": render.to_markdown, "latex": render.to_latex}[fmt](comparison)


def _compare(args) -> int:
    from .report.output import check_output_path, write_output
    from .stats import compare

    check_output_path(args.output, [*(args.results or []), *(args.inputs or []), args.grade_map])
    if args.results:
        if args.inputs:
            raise UsageError("rankproof compare: give either QRELS RUN RUN ... or --results FILE ..., not both")
        if args.preset != "rankproof" or args.policy or args.grade_map:
            raise UsageError("rankproof compare: --preset, --policy and --grade-map apply when evaluating runs; "
                             "saved results keep the protocol they were evaluated under")
        runs = _saved_runs(args.results)
        qrels, protocol, measures = None, None, args.measure
    else:
        if len(args.inputs) < 3:
            raise UsageError("rankproof compare: give QRELS and at least two runs (or --results FILE ...)")
        from .measures.base import parse_measures

        measures = parse_measures(args.measure or DEFAULT_MEASURES)
        protocol = _protocol(args)
        paths = args.inputs[1:]
        names = _run_names(paths)
        _prepare_for(args.inputs)
        args.qrels = args.inputs[0]
        qrels = _read_qrels(args)
        runs = {name: _read_run(path, args.run_format, name) for path, name in zip(paths, names)}
        # --baseline may name the run or give its path.
        args.baseline = dict(zip(paths, names)).get(args.baseline, args.baseline)
    comparison = compare(qrels, runs, measures, protocol, test=args.test, correction=args.correction,
                         alpha=args.alpha, baseline=args.baseline, confidence=args.confidence,
                         bootstrap_method=args.bootstrap, power=args.power, n_resamples=args.resamples,
                         seed=args.seed, allow_mismatch=args.allow_mismatch)
    write_output(_render_comparison(comparison, args.format), args.output)
    return 0


def _demo(args) -> int:
    from .demo import run_demo

    _print(run_demo())
    return 0


# -- parser -------------------------------------------------------------------------
def _add_protocol_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default="rankproof", help="protocol preset: rankproof (default), trec_eval or trec_eval9")
    parser.add_argument("--policy", action="append", metavar="KEY=VALUE",
                        help="override one policy, e.g. ties=docid (repeatable; see `rankproof protocol`)")


def _add_input_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--grade-map", metavar="MAP",
                        help="map grades before anything else: 1:4,2:3,-1:0 or a JSON file {\"1\": 4}")
    parser.add_argument("--qrels-format", choices=INPUT_FORMATS, help="default: from the extension (else trec)")
    parser.add_argument("--run-format", choices=INPUT_FORMATS, help="default: from the extension (else trec)")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rankproof", description="Ranking evaluation that states its conventions.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    ev = commands.add_parser("evaluate", help="evaluate runs against qrels")
    ev.add_argument("qrels", help="judgments: TREC (query 0 doc grade), CSV/TSV, JSONL or Parquet")
    ev.add_argument("runs", nargs="+", metavar="run", help="rankings: TREC (query Q0 doc rank score tag), ...")
    ev.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                    help=f"e.g. ndcg@10 (repeatable; default {' '.join(DEFAULT_MEASURES)})")
    _add_protocol_options(ev)
    _add_input_options(ev)
    ev.add_argument("--per-query", action="store_true", help="also show each query's values")
    ev.add_argument("--format", choices=FORMATS, default="table", help="output format (default table)")
    ev.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    ev.set_defaults(handler=_evaluate)

    ex = commands.add_parser("explain", help="every number behind one query's score")
    ex.add_argument("qrels")
    ex.add_argument("run")
    ex.add_argument("--query", "-q", required=True)
    ex.add_argument("-m", "--measure", action="append", metavar="MEASURE", help="one measure (default ndcg@10)")
    _add_protocol_options(ex)
    _add_input_options(ex)
    ex.set_defaults(handler=_explain)

    ms = commands.add_parser("measures", help="list every measure with its parameters")
    ms.set_defaults(handler=_measures)

    pr = commands.add_parser("protocol", help="print a preset's policies")
    _add_protocol_options(pr)
    pr.set_defaults(handler=_protocol_command)

    # Listed for --help only: main() hands `trec-eval` its own arguments.
    commands.add_parser("trec-eval", help="trec_eval 10 drop-in: rankproof trec-eval [options] QRELS RUN")

    co = commands.add_parser("compare", help="paired significance tests between runs (or saved results)")
    co.add_argument("inputs", nargs="*", metavar="QRELS RUN", help="the qrels, then two or more runs")
    co.add_argument("--results", nargs="+", metavar="FILE",
                    help="compare saved results (rankproof evaluate --format json -o FILE) instead of runs")
    co.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                    help=f"e.g. ndcg@10 (repeatable; default {' '.join(DEFAULT_MEASURES)}, or every measure saved)")
    co.add_argument("--baseline", metavar="RUN", help="compare every run with this one (default: all pairs)")
    co.add_argument("--test", choices=("randomization", "t", "wilcoxon"), default="randomization",
                    help="paired test (default randomization: sign flips)")
    co.add_argument("--correction", choices=("holm", "bonferroni", "bh", "none"), default="holm",
                    help="multiple-comparison correction over pairs x measures (default holm)")
    co.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    co.add_argument("--confidence", type=float, default=0.95, help="bootstrap interval level (default 0.95)")
    co.add_argument("--bootstrap", choices=("percentile", "BCa", "basic"), default="percentile",
                    help="bootstrap interval method (default percentile)")
    co.add_argument("--power", type=float, default=0.8, help="power for 'queries needed' (default 0.8)")
    co.add_argument("--resamples", type=int, default=10_000, help="randomization and bootstrap draws (default 10000)")
    co.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    co.add_argument("--allow-mismatch", action="store_true",
                    help="compare runs evaluated under different protocols, qrels or query sets (on shared queries)")
    _add_protocol_options(co)
    _add_input_options(co)
    co.add_argument("--format", choices=COMPARE_FORMATS, default="table", help="output format (default table)")
    co.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    co.set_defaults(handler=_compare)

    demo = commands.add_parser("demo", help="evaluate the bundled Cranfield runs")
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
    from .errors import RankproofError

    if not os.environ.get("RANKPROOF_DEBUG"):
        import warnings

        # The output shows undefined values as such (n/a, nan, inf); numpy's
        # floating-point warnings would only add lines to the one-line contract.
        warnings.simplefilter("ignore", RuntimeWarning)
    try:
        arguments = sys.argv[1:] if argv is None else list(argv)
        if arguments[:1] == ["trec-eval"]:
            # trec_eval's own option syntax (-M100, -qc, options after the files).
            from .trec.command import trec_eval_command

            return trec_eval_command(arguments[1:])
        args = _parser().parse_args(argv)
        return args.handler(args)
    except (RankproofError, UsageError) as error:
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


if __name__ == "__main__":
    sys.exit(main())
