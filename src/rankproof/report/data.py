"""Machine-readable renderers: JSON, CSV and trec_eval-style lines.

Numbers keep full precision here (JSON floats round-trip through ``repr``);
only the trec renderer rounds, because trec_eval's format does.
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any, Sequence

from ..io.json_text import json_text
from ..results import Results

__all__ = ["to_json", "to_csv", "to_trec", "results_document"]


def _number(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _per_query(r: Results) -> dict[str, dict[str, float | None]]:
    names = [str(m) for m in r.measures]
    # One list per measure, then one dict per query: no per-value array access.
    columns = [[None if v != v else v for v in r.values(m).tolist()] for m in r.measures]
    return {query: dict(zip(names, row)) for query, row in zip(r.queries, zip(*columns))}


def results_document(results: Sequence[Results], per_query: bool = True) -> dict[str, Any]:
    """The JSON document: protocol, fingerprint, qrels, counts and runs.

    ``counts`` maps each run name to the counts of its evaluation (they
    differ between runs: unjudged docs, ties, missing queries). Without
    `per_query`, the runs hold no ``per_query`` key (the Parquet layout keeps
    those values in columns, :mod:`rankproof.report.columnar`).
    """
    first = results[0]
    return {
        "protocol": first.protocol.to_dict(),
        "protocol_text": str(first.protocol),
        "fingerprint": first.protocol.fingerprint,
        **_protocol_files(first.protocol),
        "qrels": {"source": first.qrels_source, "digest": first.qrels_digest},
        "counts": {r.run_name: r.counts for r in results},
        "runs": {
            r.run_name: {
                "mean": {str(m): _number(r.mean(m)) for m in r.measures},
                **({"bounds": _bounds(r)} if r.has_bounds else {}),
                **({"tie_range": _tie_range(r)} if r.has_tie_range else {}),
                **({"per_query": _per_query(r)} if per_query else {}),
                # Side-data measures (coverage@10, novelty@10, ...): their own key, so that readers
                # of "mean" see accuracy measures only, as before.
                **({"side": {v.measure: v.to_dict() for v in r.side}} if r.side else {}),
            }
            for r in results
        },
    }


def _protocol_files(protocol) -> dict[str, Any]:
    """What a policy read from a file needs to be read back without it: the discount
    vector itself (a chunk map is compared by its digest alone), so a saved result
    can be compared from any folder."""
    from ..protocol.values import DiscountFile

    if not isinstance(protocol.discount, DiscountFile):
        return {}
    discount = protocol.discount
    return {"protocol_files": {"discount": {"path": discount.path, "digest": discount.digest,
                                            "values": list(discount.values)}}}


def _bounds(r: Results) -> dict[str, dict[str, Any]]:
    """Per measure: the mean's lower and upper bound under the unjudged docs, and each query's."""
    return _ranges(r, r.bounds, "lower", "upper")


def _tie_range(r: Results) -> dict[str, dict[str, Any]]:
    """Per measure: the mean's min and max over the orders of tied docs, and each query's."""
    return _ranges(r, r.tie_range, "min", "max")


def _ranges(r: Results, method, low: str, high: str) -> dict[str, dict[str, Any]]:
    """Per measure: the range ``method`` gives the mean (named ``low`` and ``high``), and each query's."""
    found = {}
    for m in r.measures:
        b = method(m)
        found[str(m)] = {
            low: _number(b.lower), high: _number(b.upper),
            "per_query": {q: [_number(lo), _number(hi)]
                          for q, lo, hi in zip(b.queries, b.query_lower.tolist(),
                                               b.query_upper.tolist())},
        }
    return found


def to_json(results: Sequence[Results], per_query: bool = True) -> str:
    document = results_document(results, per_query)
    # Pretty-printed for a person when small; compact (json's C encoder) when
    # large, where indentation would cost more than the evaluation.
    size = sum(len(run.get("per_query", ())) for run in document["runs"].values())
    return json_text(document, indent=2 if size <= 1000 else None, ensure_ascii=False) + "\n"


def _check_trec_ids(results: Sequence[Results], per_query: bool) -> None:
    """Refuse ids the trec layout cannot hold: a blank splits the line's fields, a line break
    starts a line of its own ("q1\\nndcg@10 all 0.9999" would forge a mean that a trec_eval
    parser reads). JSON and CSV quote them."""
    from ..errors import InputError, literal

    for r in results:
        named = ([("run name", r.run_name)]
                 + ([("query id", q) for q in r.queries] if per_query else []))
        # One pass over all ids joined, in C (isprintable, split); ids are looked at one by one only
        # when something is there to name: a million queries would otherwise cost a Python loop per
        # char.
        joined = "".join(str(text) for _, text in named)
        if _trec_safe(joined):
            continue
        for what, text in named:
            text = str(text)
            if not _trec_safe(text):
                raise InputError(what=f"{what} {literal(repr(text)[:60])} holds a blank or a control character, "
                                      "which --format trec cannot hold (it would split or forge a line)",
                                 source=f"run {r.run_name}" if what != "run name" else None,
                                 value=text,
                                 fix="name the run with --label NAME=FILE (a name without blanks)"
                                 if what == "run name"
                                 else "use --format csv or json, which quote ids, or clean "
                                 "the ids")


def _trec_safe(text: str) -> bool:
    """No control character and no blank (Unicode's, as str.split() knows them) in `text`."""
    return text.isprintable() and (text == "" or text.split() == [text])


def _check_no_query_named_all(results: Sequence[Results], fmt: str) -> None:
    """Refuse per-query output in which a query named ``all`` would look like the mean row.

    trec_eval's layout (and so rankproof's CSV and trec formats) writes the
    mean with the query ``all``; a query of that name would be read as the
    mean by every script that reads these files. JSON keeps them apart.
    """
    from ..errors import InputError

    for r in results:
        if "all" in r.queries:
            raise InputError(what=f"a {{query}} is named 'all', which in --format {fmt} per-query output is the "
                                  "name of the mean row", source=f"run {r.run_name}", value="all",
                             fix="rename the {query}, or use --format json (which keeps per-query values and means "
                                 "apart)")


def to_csv(results: Sequence[Results], per_query: bool = False, delimiter: str = ",", *,
           spreadsheet_safe: bool = False) -> str:
    """Long format: run, query ("all" for the mean), measure, value (and min, max: the range over the
    orders of tied docs, when evaluated with ``ties_range=True``).

    With per-query rows, a query named ``all`` is refused (it would read as the mean).
    Ids are written as they are, so they read back exactly; a spreadsheet
    takes a cell starting with ``=``, ``+``, ``-`` or ``@`` for a formula, and
    ``spreadsheet_safe=True`` (``--spreadsheet-safe``) writes such ids with a
    leading ``'`` (which spreadsheets hide), at the price of the round trip.

    >>> from rankproof import Qrels, Run, evaluate
    >>> r = evaluate(Qrels.from_dict({"=1+1": {"d": 1}}), Run.from_dict({"=1+1": ["d"]}, name="@run"), "rr")
    >>> print(to_csv([r], per_query=True, spreadsheet_safe=True), end="")
    run,query,measure,value
    '@run,'=1+1,rr,1.0
    '@run,all,rr,1.0
    """
    if per_query:
        _check_no_query_named_all(results, "csv")
    shown = _spreadsheet_text if spreadsheet_safe else str
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    ranged = any(r.has_tie_range for r in results)
    writer.writerow(["run", "query", "measure", "value"] + (["min", "max"] if ranged else []))

    def cell(value: float) -> str:
        return "" if math.isnan(value) else repr(value)

    for r in results:
        ends = {m: r.tie_range(m) for m in r.measures} if r.has_tie_range else {}

        def range_cells(m, i: int | None = None) -> list[str]:
            if not ranged:
                return []
            if m not in ends:
                return ["", ""]
            t = ends[m]
            return [cell(t.lower), cell(t.upper)] if i is None else \
                [cell(float(t.query_lower[i])), cell(float(t.query_upper[i]))]

        if per_query:
            for m in r.measures:
                for i, (query, value) in enumerate(zip(r.queries, r.values(m).tolist())):
                    writer.writerow([shown(r.run_name), shown(query), str(m), cell(value),
                                     *range_cells(m, i)])
        for m in r.measures:
            writer.writerow([shown(r.run_name), "all", str(m), cell(r.mean(m)), *range_cells(m)])
        _side_rows(writer, r, per_query, shown, cell, ["", ""] if ranged else [])
    return buffer.getvalue()


def _side_rows(writer, r: Results, per_query: bool, shown, cell, blank: list[str]) -> None:
    """The side-data measures' rows: per list (a user's value) with per-query rows, then "all"."""
    for v in r.side if per_query else ():
        for query, value in v.per_query().items():
            writer.writerow([shown(r.run_name), shown(query), v.measure, cell(value), *blank])
    for v in r.side:
        writer.writerow([shown(r.run_name), "all", v.measure, cell(v.value), *blank])


def _spreadsheet_text(text) -> str:
    """Text a spreadsheet would take for a formula (OWASP's CSV injection list), behind a ``'``."""
    text = str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def to_trec(results: Sequence[Results], per_query: bool = False, *, digits: int = 4,
            trec_names: bool = False) -> str:
    """trec_eval's layout: ``%-22s\\t%s\\t%6.4f`` (measure, query or all, value; ``digits`` decimals).

    With per-query lines, a query named ``all`` is refused (it would read as the mean).
    ``trec_names=True`` prints trec_eval's names (``map``, ``P_10``,
    ``ndcg_cut_10``, ``recip_rank``); a measure trec_eval does not compute
    keeps its rankproof name.
    """
    from ..measures.trec_names import trec_eval_name

    def printed(m) -> str:
        return (trec_eval_name(m) if trec_names else None) or str(m)

    _check_trec_ids(results, per_query)
    if per_query:
        _check_no_query_named_all(results, "trec")
    lines = []
    for r in results:
        if per_query:
            # Each measure's values once (r.values copies the whole column): linear in queries x
            # measures.
            columns = [(printed(m), r.values(m).tolist()) for m in r.measures]
            for i, query in enumerate(r.queries):
                for name, values in columns:
                    value = values[i]
                    if not math.isnan(value):
                        lines.append(f"{name:<22}\t{query}\t{value:6.{digits}f}")
        lines.append(f"{'runid':<22}\tall\t{r.run_name}")
        for m in r.measures:
            lines.append(f"{printed(m):<22}\tall\t{r.mean(m):6.{digits}f}")
    return "\n".join(lines) + "\n"
