"""``rankproof trec-eval [options] QRELS RUN``: a drop-in for trec_eval 10.

Options are read as trec_eval reads them (GNU getopt: ``-M100`` or ``-M 100``,
``-qc``, long names, options after the files). Output is trec_eval's, byte for
byte. Input trec_eval refuses (a doc twice in the run or the qrels, a
malformed line) and a judged query the run does not rank (without ``-c``)
give rankproof's one-line error and exit code 2.
"""

from __future__ import annotations

import getopt
import os
import re
import sys
import tempfile
import textwrap

from ..data.qrels import Qrels
from ..data.run import Run
from ..errors import InputError, ParseError, RankproofError
from ..errors import literal
from ..report.output import write_output
from .values import (TrecOptions, judged_grades, last_run_tag, read_zscores, render, trec_protocol,
                     trec_values)
from ..measures.trec_names import NICKNAMES, TREC_MEASURES, Settings, gain_order_warning, request

__all__ = ["trec_eval_command", "parse_arguments", "HELP"]

TREC_EVAL_VERSION = "10.0-rc3"
# What trec_eval 9.0.8's source prints for -v (its version string was not raised from 9.0.7).
TREC_EVAL9_VERSION = "9.0.7"
_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = ["v9", "quiet", "help", "version", "query_eval_wanted", "measure=",
         "complete_rel_info_wanted", "level_for_rel=",
         "nosummary", "Debug_level=", "Judged_docs_only", "Number_docs_in_coll=",
         "Max_retrieved_per_topic=",
         "Rel_info_format=", "Results_format=", "Output_old_results_format=", "Zscore="]
_LETTER = {"--help": "-h", "--version": "-v", "--query_eval_wanted": "-q", "--measure": "-m",
           "--complete_rel_info_wanted": "-c", "--level_for_rel": "-l", "--nosummary": "-n",
           "--Debug_level": "-D", "--Judged_docs_only": "-J", "--Number_docs_in_coll": "-N",
           "--Max_retrieved_per_topic": "-M", "--Rel_info_format": "-R", "--Results_format": "-T",
           "--Output_old_results_format": "-o", "--Zscore": "-Z"}

HELP = f"""usage: rankproof trec-eval [--v9] [--quiet] [-q] [-m measure[.params]]... [-c] [-n] [-l N] [-M N] [-N N] [-J] [-Z FILE] QRELS RUN

trec_eval version {TREC_EVAL_VERSION} as a drop-in: same options, same output, byte for byte.
RUN '-' reads the run from stdin. Every value is computed by an ordinary rankproof
measure under the protocol preset trec_eval (see `rankproof protocol --preset trec_eval`).

  --v9       trec_eval 9.0.x instead (9.0.8, the version inside pytrec_eval and behind most
             published tables), byte for byte: the preset trec_eval9 (scores held as float32,
             interpolated precision cut at (long)(x R + 0.9)); no dcg, ideal_dcg, rbp, rbp_resid
             or unj; a judged query the run does not rank is left out without -c, and with -c
             adds 0 to each mean, printing no per-query block; comment lines (and blank qrels
             lines) are refused, as trec_eval 9 refuses them
  --quiet    no progress display (on a terminal, after two seconds, on stderr)

  -q         also print each query's values
  -m M       measure M, M.params or a nickname (official, all_trec, set); repeatable;
             default official. The first M.params given for a measure sets its parameters:
             P.5,10  iprec_at_recall..1,.2  ndcg.1=3,2=9  utility.2,-1,0,0  relstring.20
  -c         average over every judged query; one the run does not rank is evaluated as
             trec_eval does, on a ranking of one never-judged doc (0 for nearly every measure);
             without -c such a query is an error, as in trec_eval 10
  -n         no summary lines
  -l N       lowest grade counted as relevant (default 1; N >= 0)
  -M N       keep only each query's top N docs (N >= 1)
  -N N       number of docs in the collection (utility)
  -J         drop unjudged docs (never pooled, or pooled with a negative grade) before measuring
  -Z FILE    print z-scores from 'query measure mean stddev' lines
  -R qrels, -T trec_results: the only formats read; -o is accepted and ignored (as in trec_eval)
  -h, -v     this help; the trec_eval version reproduced

{textwrap.fill("Not supported (an error says so): -D (debug output), -R prefs or qrels_jg, -T other "
                "formats, and the measures that need them: "
                + ", ".join(m.name for m in TREC_MEASURES if m.unsupported) + ".", 100)}

{textwrap.fill("Measures: " + ", ".join(m.name for m in TREC_MEASURES if not m.unsupported), 100)}
Nicknames: {', '.join(n for n in NICKNAMES if n in ('official', 'all_trec', 'set'))}
"""


def _usage(what: str, value: object = None) -> InputError:
    """A refused command line; `what` is an error's what (user text in it passed through :func:`literal`)."""
    return InputError(what=f"{what} (see rankproof trec-eval --help)", source="trec-eval",
                      value=value)


def _integer(option: str, text: str, least: int | None) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise _usage(f"{option} {literal(repr(text))}: give an integer", text) from None
    if least is not None and value < least:
        raise _usage(f"{option} {value}: give an integer >= {least}", value)
    return value


def parse_arguments(argv: list[str]):
    """(options, -m arguments, qrels path, run path, action) from trec_eval's command line.

    action is "help", "version" or "evaluate".
    """
    try:
        pairs, positional = getopt.gnu_getopt(list(argv), _SHORT, _LONG)
    except getopt.GetoptError as error:
        raise _usage(literal(error)) from None
    settings: dict = {}
    measures: list[str] = []
    action = "evaluate"
    zscore_path = None
    for option, value in pairs:
        letter = _LETTER.get(option, option)
        if letter == "--v9":
            settings["version9"] = True
        elif letter == "--quiet":
            # no progress display (rankproof.cli.app reads it); trec_eval prints no other message
            pass
        elif letter == "-h":
            action = "help"
        elif letter == "-v":
            action = "version" if action != "help" else action
        elif letter == "-q":
            settings["per_query"] = True
        elif letter == "-m":
            measures.append(value)
        elif letter == "-c":
            settings["complete"] = True
        elif letter == "-l":
            settings["relevance_level"] = _integer("-l", value, 0)
        elif letter == "-n":
            settings["summary"] = False
        elif letter == "-D":
            raise _usage("-D (trec_eval's debug output) is not supported")
        elif letter == "-J":
            settings["judged_only"] = True
        elif letter == "-N":
            settings["num_docs"] = _integer("-N", value, 0)
        elif letter == "-M":
            settings["max_docs"] = _integer("-M", value, 1)
        elif letter == "-R":
            if value != "qrels":
                raise _usage(f"-R {literal(value)}: only the qrels format is supported (prefs and qrels_jg are not)",
                             value)
        elif letter == "-T":
            if value != "trec_results":
                raise _usage(f"-T {literal(value)}: only the trec_results format is supported",
                             value)
        elif letter == "-o":
            pass  # obsolete in trec_eval too: accepted, no effect
        elif letter == "-Z":
            zscore_path = value
    if action != "evaluate":
        return None, measures, None, None, action
    if len(positional) != 2:
        raise _usage(f"give QRELS and RUN (two files); got {len(positional)} argument"
                     f"{'' if len(positional) == 1 else 's'}")
    if zscore_path is not None:
        settings["zscores"] = zscore_path
    return settings, measures or ["official"], positional[0], positional[1], action


_COMMENT_LINE = re.compile(rb"(?:^|\n)[ \t]*#")
_BLANK_LINE = re.compile(rb"(?:^|\n)[ \t\r]*\n")


def _refuse_what_trec_eval9_refuses(path: str, shown: str, what: str) -> None:
    """trec_eval 9 reads no comment lines (10 skips them) and no blank qrels lines: it stops
    with "Malformed line", so --v9 refuses them too, naming the line."""
    import gzip

    with open(path, "rb") as handle:
        data = handle.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    found = [(m.start() + (data[m.start():m.start() + 1] == b"\n"), "a comment line")
             for m in [_COMMENT_LINE.search(data)] if m]
    if what == "qrels":
        found += [(m.start() + (data[m.start():m.start() + 1] == b"\n"), "a blank line")
                  for m in [_BLANK_LINE.search(data)] if m]
    if found:
        position, kind = min(found)
        line = data.count(b"\n", 0, position) + 1
        raise ParseError(what=f"{kind}, which trec_eval 9 refuses (Malformed line)", source=shown,
                         line=line,
                         fix="remove it, or drop --v9 (trec_eval 10 skips it)")


def _read_run(path: str, version9: bool = False) -> tuple[Run, str]:
    """The run and its runid (the tag of its last line); '-' reads stdin.

    trec_eval ignores anything after a line's sixth column; rankproof's reader
    refuses such lines, so when it does, the run is read again without them.
    """
    made: list[str] = []
    label = {}
    try:
        if path == "-":
            if hasattr(sys.stdin, "buffer"):
                from ..io.files import read_stream

                data = read_stream(sys.stdin.buffer, "stdin", label="TREC",
                                   binary_hint=lambda _: "give the plain-text run file instead")
            else:
                data = sys.stdin.read().encode("utf-8")
            file = _temporary(data, made)
            label[file] = "stdin"
        elif _is_stream(path):
            # A pipe (<(...)) can be read once: keep its bytes for the retry below.
            from pathlib import Path

            from ..io.files import read_bytes

            file = _temporary(read_bytes(Path(path), path, "run"), made)
            label[file] = path
        else:
            file = path
        if version9:
            _refuse_what_trec_eval9_refuses(file, label.get(file, path), "run")
        try:
            return _with_source(Run.read_trec(file), label.get(file, path)), last_run_tag(file)
        except ParseError as error:
            trimmed = _without_extra_columns(file)
            if trimmed is None:
                raise _relabelled(error, label) from None
        retry = _temporary(trimmed, made)
        label[retry] = label.get(file, path)
        try:
            return _with_source(Run.read_trec(retry), label[retry]), last_run_tag(retry)
        except RankproofError as error:
            raise _relabelled(error, label) from None
    finally:
        for name in made:
            os.unlink(name)


def _is_stream(path: str) -> bool:
    """Tell whether a path names a pipe or device rather than a regular file."""
    import stat

    try:
        return not stat.S_ISREG(os.stat(path).st_mode) and not path.lower().endswith(".gz")
    except OSError:
        return False


def _with_source(run: Run, source: str) -> Run:
    """The run named after what the user gave (not a temporary copy), for later messages."""
    if run.source == source:
        return run
    import numpy as np

    query_codes = np.repeat(np.arange(run.num_queries), np.diff(run.offsets))
    return Run(query_codes=query_codes, queries=run.queries, doc_codes=run.doc_codes, docs=run.docs,
               scores=run.scores, lines=run.lines, source=source, name=os.path.basename(source))


def _temporary(data: bytes, made: list[str]) -> str:
    handle = tempfile.NamedTemporaryFile(prefix="rankproof-trec-", suffix=".run", delete=False)
    with handle:
        handle.write(data)
    made.append(handle.name)
    return handle.name


def _relabelled(error: RankproofError, label: dict[str, str]) -> RankproofError:
    """The error naming the files the user gave, not the temporary copies read in their place."""
    def shown(text):
        for name, label_of_name in label.items():
            text = text.replace(name, label_of_name) if isinstance(text, str) else text
        return text

    if error.has_fields:
        return error.replace(what=shown(error.what), source=shown(error.source),
                             fix=shown(error.fix))
    return type(error)(shown(str(error)))


def _without_extra_columns(path: str) -> bytes | None:
    """The run with every data line cut to its first six columns; None when no line has more."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    changed = False
    out = []
    for raw in data.split(b"\n"):
        fields = raw.split()
        if len(fields) > 6 and not fields[0].startswith(b"#"):
            raw = b" ".join(fields[:6])
            changed = True
        out.append(raw)
    return b"\n".join(out) if changed else None


# A qrels data line: three columns, then the grade, then nothing but blanks.
_QRELS_LINE = re.compile(rb"([ \t\r]*[^\s#]\S*[ \t\r]+\S+[ \t\r]+\S+[ \t\r]+)(\S+)([ \t\r]*)")
_LEADING_INTEGER = re.compile(rb"[+-]?[0-9]*")


def _atol(field: bytes) -> bytes:
    """What C's atol reads from a number: its leading integer part (1.5 -> 1,
    -0.5 -> 0, .5 -> 0, 1e2 -> 1)."""
    # The pattern matches the empty string, so there is always a match.
    digits = _LEADING_INTEGER.match(field).group(0)  # type: ignore[union-attr]
    return str(int(digits)).encode() if digits.strip(b"+-") else b"0"


def _atol_grades(path: str) -> bytes | None:
    """The qrels with every fractional grade written as trec_eval 10 reads it
    (get_qrels.c reads the grade with atol: 1.5 counts as 1, 2.9 as 2, 0.7
    and -0.5 as 0); None when no grade is fractional. Only grades in number
    syntax are rewritten: other bad grades stay, for the reader to refuse."""
    import gzip

    from ..io.values import FLOAT, INTEGER

    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    changed = False
    out = []
    for raw in data.split(b"\n"):
        match = _QRELS_LINE.fullmatch(raw)
        if match is not None:
            grade = match.group(2)
            text = grade.decode("ascii", "replace")
            if (not INTEGER.fullmatch(text) and FLOAT.fullmatch(text)
                    and text.strip("+-").lower() not in ("nan", "inf", "infinity")):
                raw = match.group(1) + _atol(grade) + match.group(3)
                changed = True
        out.append(raw)
    return b"\n".join(out) if changed else None


def _read_qrels(path: str) -> Qrels:
    """The qrels as trec_eval reads them: a fractional grade is cut to its
    integer part (C's atol), silently in trec_eval, so here too."""
    try:
        return Qrels.read_trec(path)
    except ParseError as error:
        # Only a grade the reader refused can be one atol reads; anything else (a binary file,
        # /dev/zero) is refused as it is, not read again whole.
        if not (error.what or "").startswith("grade "):
            raise
        rewritten = _atol_grades(path)
        if rewritten is None:
            raise
        first_error = error
    made: list[str] = []
    try:
        retry = _temporary(rewritten, made)
        try:
            qrels = Qrels.read_trec(retry)
        except RankproofError as error:
            raise _relabelled(error, {retry: path}) from None
    finally:
        for name in made:
            os.unlink(name)
    del first_error
    import numpy as np

    query_codes = np.repeat(np.arange(qrels.num_queries), np.diff(qrels.offsets))
    return Qrels(query_codes=query_codes, queries=qrels.queries, doc_codes=qrels.doc_codes,
                 docs=qrels.docs,
                 grades=qrels.grades, lines=qrels.lines, source=path)


def _check_complete(qrels: Qrels, run: Run) -> None:
    import numpy as np

    missing = qrels.queries[~np.isin(qrels.queries, run.queries)]
    if len(missing):
        shown = (", ".join(missing[:3].tolist())
                 + (f" and {len(missing) - 3} more" if len(missing) > 3 else ""))
        raise InputError(what=f"the run has no ranking for {len(missing)} judged "
                         f"{{{'query' if len(missing) == 1 else 'queries'}}} ({literal(shown)}); trec_eval 10 stops "
                         "there too. Add -c to score them 0, or remove them from the qrels",
                         source="trec-eval")


def trec_eval_command(argv: list[str]) -> int:
    """Run ``rankproof trec-eval`` with the arguments after the subcommand; return the exit code.

    Errors are raised as :class:`~rankproof.errors.RankproofError` for the
    caller (``rankproof.cli.app``) to print in one line with exit code 2.
    """
    settings, measures, qrels_path, run_path, action = parse_arguments(argv)
    version9 = bool(settings.get("version9")) if settings else "--v9" in argv
    if action == "help":
        write_output(HELP, None)
        return 0
    if action == "version":
        shown = TREC_EVAL9_VERSION if version9 else TREC_EVAL_VERSION
        write_output(f"trec_eval version {shown} (rankproof trec-eval)\n", None)
        return 0
    # unknown measures and bad parameters fail before any file is read
    request(measures, version9=version9)
    zscore_path = settings.pop("zscores", None)
    from ..report.progress import is_large, within

    # Inside the command line's display (rankproof.cli.progress); alone, shown for large inputs
    # only.
    stages = within(3, "trec-eval", quiet=not is_large([qrels_path, run_path]))
    try:
        qrels = _read_qrels(qrels_path)
        if version9:
            _refuse_what_trec_eval9_refuses(qrels_path, qrels_path, "qrels")
        stages.step("read qrels")
        run, runid = _read_run(run_path, version9)
        stages.step("read run")
        text, warning = _evaluate(qrels, run, runid, settings, measures, zscore_path, version9)
    except RankproofError as error:
        raise _without_policy_hint(error) from None
    finally:
        stages.close()
    write_output(text, None)
    if warning:
        print(f"rankproof: warning: trec-eval: {warning}", file=sys.stderr)
    return 0


def _without_policy_hint(error: RankproofError) -> RankproofError:
    """trec-eval has no --policy option: a hint to set one points to rankproof evaluate instead.

    >>> error = InputError(what="the {doc} is listed twice", source="r", line=2, doc="a",
    ...                    fix="set the policy duplicates=first")
    >>> str(_without_policy_hint(error))
    'r line 2: doc a: the doc is listed twice; fix the input (trec_eval 10 refuses it too), or evaluate with rankproof evaluate --policy duplicates=first'
    >>> str(_without_policy_hint(InputError("r line 2: doc a is listed twice; set the policy duplicates=first")))
    'r line 2: doc a is listed twice; fix the input (trec_eval 10 refuses it too), or evaluate with rankproof evaluate --policy duplicates=first'
    """
    if error.has_fields:
        fix = _policy_pointed_to_evaluate(error.fix or "")
        return error if fix is None else error.replace(fix=fix)
    message = _policy_pointed_to_evaluate(str(error))
    return error if message is None else type(error)(message)


def _policy_pointed_to_evaluate(text: str) -> str | None:
    """`text` with its hint "set the policy P" pointing to rankproof evaluate; None when it has none."""
    marker = "set the policy "
    at = text.find(marker)
    if at < 0:
        return None
    policy = text[at + len(marker):].split()[0] if text[at + len(marker):].split() else ""
    return (text[:at] + "fix the input (trec_eval 10 refuses it too), or evaluate with "
            f"rankproof evaluate --policy {policy}").rstrip()


def _evaluate(qrels, run, runid, settings, measures, zscore_path, version9) -> tuple[str,
                                                                                     str | None]:
    """trec_eval's output for the inputs, and a warning (or None)."""
    if zscore_path is not None:
        settings["zscores"] = read_zscores(zscore_path)
    options = TrecOptions(**settings)
    lines = request(measures, Settings(grades=judged_grades(qrels), num_docs=options.num_docs),
                    version9=version9)
    if version9:
        import numpy as np

        if not np.isin(run.queries, qrels.queries).any():
            raise InputError(what="no {query} has both a ranking and judgments; trec_eval 9 stops there too "
                             "(\"No queries with both results and relevance info\")",
                             source="trec-eval",
                             fix="check the {query} ids")
        # trec_eval 9: scores as float32, the legacy iprec cut-off, and without -c the
        # queries of both run and qrels (a judged query the run skips is left out).
        protocol = trec_protocol(options, "trec_eval9")
    else:
        if not options.complete:
            _check_complete(qrels, run)
        protocol = trec_protocol(options)
    table = trec_values(qrels, run, lines, options, protocol, runid=runid)
    return render(table, options), gain_order_warning(lines)
