"""The one input path of the command line: the options that describe inputs, and the function that reads them.

Every command that reads qrels or runs (evaluate, compare, report, why,
explain) takes the same input options from :func:`add_input_options` (formats,
``--columns`` and ``--query-col`` ..., ``--grade-map``, ``--label``,
``--intents``) and the protocol options from :func:`add_protocol_options`
(``--preset``, ``--policy``, which holds ``chunk_map``), and reads its inputs
through :func:`read_inputs`. ``-`` reads one input from stdin, in any format.
fit-pbm reads a click log with the same ``--columns`` syntax over its own roles
(:func:`add_column_options`, :func:`columns`).
"""

from __future__ import annotations

import argparse
import os
import re
from typing import Any, Iterator, Sequence

from ..errors import InputError, ProtocolError
from ..errors.messages import swap_hint
from ..io.arrow import MissingColumnsError
from .grade_map import grade_map
from .large import release_freed_memory
from .labels import apply_labels
from .stdin import STDIN, Stdin  # noqa: F401  (where the commands import them from)
from .usage import literal, usage

__all__ = [
    "INPUT_FORMATS", "RUN_FORMATS", "QRELS_ROLES", "RUN_ROLES", "COLUMN_HELP",
    "add_protocol_options", "add_input_options", "add_run_options", "add_column_options",
    "protocol_of", "columns", "read_qrels", "read_run", "read_inputs", "run_names", "STDIN",
    "every_input",
]

INPUT_FORMATS = ("trec", "csv", "tsv", "jsonl", "parquet")
RUN_FORMATS = INPUT_FORMATS + ("run3",)   # run3: 'query doc score' lines
QRELS_ROLES = ("query", "doc", "grade")
RUN_ROLES = ("query", "doc", "score")
#: The help of each role's --ROLE-col, for every command that reads a table (a column's default
#: name is its role's).
COLUMN_HELP = {"query": "query id column (default query)", "doc": "doc id column (default doc)",
               "grade": "grade column of the qrels (default grade)",
               "score": "score column of runs (default score; none: rows are in rank order)",
               "rank": "rank column (default rank)",
               "clicked": "click column, 0/1 (default clicked)"}


# -- the options --------------------------------------------------------------------
def add_protocol_options(parser: argparse.ArgumentParser) -> None:
    """--preset and --policy (chunk_map, grades and every other policy)."""
    from ..protocol import PRESETS

    names = ", ".join(PRESETS)
    parser.add_argument("--preset", default="rankproof", metavar="NAME",
                        help=f"protocol preset: {names} (default rankproof; see `rankproof protocol --preset NAME`)")
    parser.add_argument("--policy", action="append", metavar="KEY=VALUE",
                        help="override one policy, e.g. ties=docid or chunk_map=sep:# (repeatable, each policy "
                             "once; see `rankproof protocol`)")


def add_chunk_options(parser: argparse.ArgumentParser) -> None:
    """--chunk-map and --chunks: the chunk -> doc policies, shown by name (evaluate and rag)."""
    parser.add_argument("--chunk-map", metavar="SPEC",
                        help="ranked ids are chunks of judged docs: sep:# (184#c3 -> 184), regex:PATTERN (its "
                             "first group is the doc) or file:PATH (chunk,doc table); the policy chunk_map")
    parser.add_argument("--chunks", choices=("first", "max"),
                        help="with --chunk-map: the chunk that stands for its doc, the first ranked (default) or "
                             "the best scored (MaxP); the policy chunks")


def add_column_options(parser: argparse.ArgumentParser, roles: Sequence[str], example: str) -> None:
    """--columns ROLE=NAME,... and one --ROLE-col option per role (its help from COLUMN_HELP)."""
    group = parser.add_argument_group("columns of CSV, TSV, JSON Lines and Parquet inputs")
    group.add_argument("--columns", metavar="SPEC", help=f"role=column pairs, e.g. {example}")
    for role in roles:
        group.add_argument(f"--{role}-col", metavar="NAME", help=COLUMN_HELP[role])
    parser.set_defaults(column_roles=tuple(roles))


def add_no_header_option(parser: argparse.ArgumentParser) -> None:
    """--no-header: CSV and TSV inputs without a header line, columns taken by position."""
    parser.add_argument("--no-header", action="store_true",
                        help="CSV/TSV inputs have no header line: columns are taken by 1-based position, "
                             "query 1, doc 2, grade (qrels) or score (run) 3; name others by position "
                             "(--grade-col 4); column names are refused")


def add_run_options(parser: argparse.ArgumentParser, roles: Sequence[str] = RUN_ROLES,
                    example: str = "query=qid,doc=docno,score=sim") -> None:
    """How runs are read (--run-format, the columns of `roles`, --no-header) and named (--label)."""
    parser.add_argument("--run-format", choices=RUN_FORMATS,
                        help="default: from the extension (else trec, or run3 when the first line is "
                             "'query doc score')")
    add_column_options(parser, roles, example)
    add_no_header_option(parser)
    parser.add_argument("--label", action="append", metavar="NAME=FILE",
                        help="name the run FILE as NAME in every output (repeatable)")


def add_input_options(parser: argparse.ArgumentParser) -> None:
    """The input options every command that reads qrels and runs takes."""
    parser.add_argument("--grade-map", metavar="MAP",
                        help="map grades before anything else: 1:4,2:3,-1:0 or a JSON file {\"1\": 4}")
    parser.add_argument("--qrels-format", choices=INPUT_FORMATS,
                        help="default: from the extension (else trec)")
    add_run_options(parser, ("query", "doc", "grade", "score"),
                    "query=qid,doc=docno,grade=rel,score=sim")
    parser.add_argument("--layer", action="append", metavar="[NAME=]QRELS",
                        help="a further source of judgments (an LLM judge's), layered under the qrels: each "
                             "(query, doc) takes the grade of the first source that judged it (repeatable; the "
                             "protocol records judgments=layers:..., the counts the judged docs per source)")
    intents = parser.add_argument_group("judgments per intent (the diversity measures: alpha_ndcg, err_ia, "
                                        "ndcg_ia, p_ia, s_recall)")
    intents.add_argument("--intents", action="store_true",
                         help="the qrels hold an intent column: TREC diversity format 'query intent doc grade' "
                              "(NIST ndeval's), or a table's intent column (--intent-col)")
    intents.add_argument("--intent-col", metavar="NAME",
                         help="intent column of table qrels (default intent)")
    intents.add_argument("--intent-weights", metavar="FILE",
                         help="intent weights, one 'query intent weight' line each (default: uniform over the "
                              "intents with a relevant doc, as ndeval)")


# -- what the options say ---------------------------------------------------------------
# Parsed values that are never files (the command's machinery, and the output itself).
_NOT_INPUTS = frozenset({"output", "argv", "handler", "command", "column_roles"})


def every_input(args) -> list[str]:
    """Every path an option's value may name: the value itself, the part after ``=``
    (``--label NAME=FILE``, ``--policy chunk_map=file:PATH``) and after ``file:``
    (``--chunk-map file:PATH``), and the value of each ``key=value`` of a measure's
    parameters (``-m "tbg(costs=costs.txt)"``).

    Over-inclusive by design: the output guard compares files by device and
    inode, so a value that names no file costs nothing, and an option added
    later is guarded without being listed here.

    Examples
    --------
    >>> import argparse
    >>> every_input(argparse.Namespace(runs=["a.run"], chunk_map="file:map.csv", policy=None, output="x"))
    ['a.run', 'file:map.csv', 'map.csv']
    """
    found: list[str] = []
    for key, value in vars(args).items():
        if key in _NOT_INPUTS:
            continue
        for text in value if isinstance(value, (list, tuple)) else [value]:
            if not isinstance(text, str) or not text:
                continue
            # A measure's parameters name files too: -m "tbg(costs=costs.txt,elements=run.txt)@10".
            afters = [text.partition("=")[2], *(piece.partition("=")[2].strip()
                                                for piece in re.split(r"[(),]", text)
                                                if "=" in piece)]
            for after in afters:
                for candidate in (text, after, *(t[len("file:"):] for t in (text, after)
                                                 if t.startswith("file:"))):
                    if candidate and candidate not in found:
                        found.append(candidate)
    return found


def protocol_of(args):
    """The protocol of --preset and --policy; a policy given twice is refused, as Protocol.from_text does."""
    from ..protocol import Protocol

    protocol = Protocol.preset(args.preset)
    changes: dict[str, str] = {}
    for item in args.policy or []:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise ProtocolError(source=f"--policy {item!r}", what="write key=value",
                                fix="e.g. --policy ties=docid")
        if key in changes:
            raise ProtocolError(source="--policy", what=literal(f"policy {key} is given twice "
                                                                f"({key}={changes[key]} and {key}={value})"),
                                fix="give each policy once")
        changes[key] = value
    for key in ("chunk_map", "chunks"):
        value = getattr(args, key, None)
        if value is None:
            continue
        if key in changes:
            raise ProtocolError(source="--policy", what=literal(f"policy {key} is given twice "
                                                                f"(--policy {key}={changes[key]} and "
                                                                f"--{key.replace('_', '-')} {value})"),
                                fix="give each policy once")
        changes[key] = value
    return protocol.replace(**changes) if changes else protocol


def columns(args, roles: Sequence[str], path: str | None = None,
            fmt: str | None = None) -> dict[str, Any]:
    """Column names from --columns and --ROLE-col, for the given roles (--score-col none: no score).

    With --no-header and a CSV or TSV `path` (in format `fmt`), the columns are positions."""
    known = getattr(args, "column_roles", ())
    spec: dict[str, str] = {}
    for item in (getattr(args, "columns", None) or "").split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in known or not value.strip():
            example = "query=qid,doc=docno,score=sim" if "score" in known else "query=user,doc=item"
            raise InputError(source=f"--columns {args.columns!r}", what="write role=column pairs",
                             fix=f"e.g. --columns {example} (roles: {', '.join(known)})")
        spec[key] = value.strip()
    for role in known:
        given = getattr(args, f"{role}_col", None)
        if given is not None:
            if role in spec and spec[role] != given:   # --columns query=qid --query-col query
                raise InputError(source=f"--columns {args.columns!r}",
                                 what=f"names column {spec[role]!r} for the {role} role and --{role}-col names "
                                      f"{given!r}", fix="name each role's column once")
            spec[role] = given
    if getattr(args, "no_header", False) and path is not None and _delimited(path, fmt):
        spec = _by_position(args, spec, roles)
    _refuse_contradictions(args, spec, roles)
    chosen: dict[str, Any] = {role: spec[role] for role in roles if role in spec}
    if "score" in roles and spec.get("score", "").lower() == "none":
        chosen["score"] = None  # rows already in rank order
    return chosen


def _delimited(path: str, fmt: str | None) -> bool:
    from ..io.formats import format_of

    return format_of(path, fmt) in ("csv", "tsv")


def _by_position(args, spec: dict[str, str], roles: Sequence[str]) -> dict[str, str]:
    """--no-header: every column named is a 1-based position; a role not named takes its own
    (io.formats.POSITIONS), so that two roles on one column are refused like two names."""
    from ..io.formats import POSITIONS

    chosen = dict(spec)
    for role in roles:
        name = spec.get(role)
        if name is None:
            if role in POSITIONS:
                chosen[role] = POSITIONS[role]
        elif (not (role == "score" and name.lower() == "none")
              and not (name.isdigit() and int(name) >= 1)):
            option = "--columns" if getattr(args, f"{role}_col", None) is None else f"--{role}-col"
            raise InputError(source=option,
                             what=f"names column {name!r} for the {role} role, but with --no-header "
                                                 "the columns have no names",
                             fix=f"give its 1-based position instead (--{role}-col {POSITIONS.get(role, '1')}), "
                                 "or leave out --no-header if the file has a header line")
    return chosen


def _refuse_contradictions(args, spec: dict[str, str], roles: Sequence[str]) -> None:
    """One column for two roles (--columns query=doc leaves doc= at its default 'doc')."""
    taken: dict[str, str] = {}
    for role in roles:
        name = spec.get(role, role)    # a role not named reads the column of its own name
        if role == "score" and name.lower() == "none":
            continue
        if name in taken:
            options = " ".join(f"--{r}-col" for r in (taken[name], role))
            raise InputError(source="--columns" if getattr(args, "columns", None)
                             else f"--{role}-col",
                             what=f"column {name!r} is named for two roles, {taken[name]} and {role}",
                             fix=f"give each role its own column ({options})")
        taken[name] = role


def in_option_words(error, args) -> InputError:
    """A missing-columns error of a reader, worded with the command line's options, with a
    --columns guess from the columns the file has (qid -> query, docno -> doc, ...)."""
    if error.no_header:   # no option names columns of a file without a header line
        return error
    shown = " and ".join(f"no {error.noun} {name!r} (--{role}-col)"
                         for role, name in error.missing.items())
    listing = ", ".join(repr(name) for name in error.present) if error.present else "none"
    guess = _guess_columns(error.present, list(error.missing))
    example = (f"--columns {guess}" if guess else "--columns "
               + ",".join(f"{r}=NAME" for r in error.missing))
    # Judgments and rankings swapped: naming the column would read scores as grades, so the hint
    # comes first.
    swapped = swap_hint(error.present, list(error.missing))
    return InputError(source=error.source, line=error.line,
                      what=shown.replace("{", "{{").replace("}", "}}"),
                      fix=swapped
                      or f"its {error.noun}s are {listing}; name them with {example}".replace("{",
                                                                                              "{{")
                      .replace("}", "}}"))


# Column names tools write for each role, lower case.
_USUAL = {"query": ("qid", "query_id", "topic", "user", "user_id", "q"),
          "doc": ("docno", "docid", "doc_id", "item", "item_id", "pid", "passage_id", "d"),
          "score": ("sim", "similarity", "prediction", "pred", "rating", "score"),
          "grade": ("rel", "relevance", "label", "judgment", "rating")}


def _guess_columns(present: list, roles: list[str]) -> str:
    lowered = {str(name).lower(): name for name in present}
    pairs = []
    for role in roles:
        found = next((lowered[n] for n in _USUAL.get(role, ()) if n in lowered), None)
        if found is None:
            return ""
        pairs.append(f"{role}={found}")
    return ",".join(pairs)


# -- reading --------------------------------------------------------------------------------
def read_qrels(args, given: str):
    """The qrels (judgments per intent with --intents), under the protocol's grades policy and --grade-map."""
    from ..data.grades import map_grades
    from ..data.qrels import Qrels

    path = STDIN.path(given, args.qrels_format)
    if args.intents:
        return _read_intent_qrels(args, path)
    if args.intent_weights or args.intent_col:
        raise usage(None, "--intent-weights and --intent-col describe judgments per intent",
                    "add --intents (the qrels are 'query intent doc grade')")
    # The grades policy says how grades are read (grades=real keeps 1.5).
    try:
        qrels = Qrels.read(path, args.qrels_format,
                           **columns(args, QRELS_ROLES, path, args.qrels_format),
                           grades=str(protocol_of(args).grades),
                           header=not getattr(args, "no_header", False))
    except MissingColumnsError as error:
        raise in_option_words(error, args) from None
    mapping = grade_map(args.grade_map)
    return map_grades(qrels, mapping) if mapping is not None else qrels


def _read_intent_qrels(args, path: str):
    """--intents: judgments per intent (TREC diversity format, or a table with an intent column)."""
    from ..data.intents import IntentQrels

    if args.grade_map is not None:
        raise usage(None, "--grade-map does not apply to judgments per intent (--intents) yet",
                    "map the grades in the file")
    if getattr(args, "no_header", False):
        raise usage(None, "--no-header does not apply to judgments per intent (--intents) yet",
                    "add a header line naming the columns")
    try:
        return IntentQrels.read(path, args.qrels_format, intent=args.intent_col or "intent",
                                weights=args.intent_weights, **columns(args, QRELS_ROLES))
    except MissingColumnsError as error:
        raise in_option_words(error, args) from None


def read_run(args, given: str, name: str):
    """One run, with the run format and columns of the options."""
    from ..data.run import Run

    try:
        path = STDIN.path(given, args.run_format)
        return Run.read(path, args.run_format, name=name,
                        **columns(args, RUN_ROLES, path, args.run_format),
                        header=not getattr(args, "no_header", False))
    except MissingColumnsError as error:
        raise in_option_words(error, args) from None


def _layer_name(path: str) -> str:
    stem = os.path.basename(path).split(".")[0] or "qrels"
    return "".join(c if c.isalnum() or c in "_-." else "_" for c in stem)


def layered(args, path: str, judged):
    """The qrels layered over by every --layer [NAME=]QRELS (the qrels first), or as they are."""
    given = getattr(args, "layer", None) or []
    if not given:
        return judged
    if args.intents:
        raise usage(args.command, "--layer with --intents is not available yet",
                    "layer judgments per doc")
    from ..data.qrels import Qrels

    names, sources = [_layer_name(path)], [judged]
    for item in given:
        name, sep, file = item.partition("=")
        if not sep:
            name, file = _layer_name(item), item
        names.append(name)
        sources.append(read_qrels(args, file))
    return Qrels.layer(*sources, names=names)


def read_inputs(args, qrels: str, runs: Sequence[str], names: Sequence[str], stages=None, *,
                intents: bool = True):
    """The qrels and the runs, read the one way every command reads them.

    Returns the qrels and an iterator over (name, run). The first run is read
    beside the qrels, in a second thread (both readers spend most of their
    time in numpy and arrow, which release the GIL, so on two cores the
    qrels come almost for free; a bad qrels file is still reported first).
    Each further run is read when the iterator reaches it, so a command that
    evaluates run by run holds one run at a time. `stages` (a progress
    display) is told of each file read. A command that cannot use judgments
    per intent yet passes ``intents=False``, and --intents is refused in one line.
    Small files (under :data:`THREAD_BYTES` together) are read one after the
    other in this thread: a thread would cost more than it saves.
    """
    if args.intents and not intents:
        raise usage(args.command, "--intents: judgments per intent are not available here yet",
                    "evaluate them with rankproof evaluate --intents or rankproof compare --intents")
    if qrels == "-" and "-" in runs:
        raise usage(args.command, "stdin ('-') is given for the qrels and a run",
                    "read one of them from stdin")
    if _small(qrels, runs[0]):
        judged = read_qrels(args, qrels)
        first = read_run(args, runs[0], names[0])
        if stages is not None:
            stages.step("read qrels")
        return layered(args, qrels, judged), _runs(args, runs, names, [first], stages)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending_qrels = pool.submit(read_qrels, args, qrels)
        try:
            first = read_run(args, runs[0], names[0])
        except BaseException:
            pending_qrels.result()
            raise
        judged = pending_qrels.result()
    release_freed_memory()  # the reading thread's freed blocks, which this thread never reuses
    if stages is not None:
        stages.step("read qrels")
    return layered(args, qrels, judged), _runs(args, runs, names, [first], stages)


# Below this many bytes of qrels and first run together, both are read in the calling thread.
THREAD_BYTES = 8 << 20


def _small(*paths: str) -> bool:
    """Whether the files together are under THREAD_BYTES (stdin, a directory or a missing file: no)."""
    total = 0
    for path in paths:
        try:
            if path == "-" or not os.path.isfile(path):
                return False
            total += os.path.getsize(path)
        except OSError:
            return False
    return total < THREAD_BYTES


def _runs(args, paths: Sequence[str], names: Sequence[str], pending: list,
          stages) -> Iterator[tuple[str, object]]:
    # The run is held by a list emptied as it is yielded, not by a local of this generator: the
    # caller may then hold its only reference (and hand it to evaluate_read, which ranks it in
    # place).
    for path, name in zip(paths, names):
        run = [pending.pop() if pending else read_run(args, path, name)]
        if stages is not None:
            stages.step(f"read {name}")
        yield name, run.pop()


def run_names(paths: Sequence[str], labels: Sequence[str] | None = None) -> list[str]:
    """File names as run names (full paths where two files share a name; stdin for '-'); --label NAME=RUN renames."""
    if sum(p == "-" for p in paths) > 1:
        raise InputError(what="stdin ('-') is given for two inputs",
                         fix="read at most one input from stdin")
    seen: dict[str, str] = {}
    for given in paths:
        real = given if given == "-" else os.path.realpath(given)
        if real in seen:
            raise InputError(source=given,
                             what=literal(f"the same run is given twice ({seen[real]} and {given})"),
                             fix="give each run once")
        seen[real] = given
    # a directory: its name
    names = ["stdin" if p == "-" else os.path.basename(p.rstrip("/") or p) for p in paths]
    names = [p if names.count(n) > 1 else n for p, n in zip(paths, names)]
    return apply_labels(labels, paths, names)
