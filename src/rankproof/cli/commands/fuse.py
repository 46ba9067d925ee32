"""``rankproof fuse``: runs fused into one run (ranx's methods), cross-validated and compared with its components."""

from __future__ import annotations

import argparse

from ...errors import InputError, literal
from .compare import add_test_options, bare_names
from .evaluate import DEFAULT_MEASURES
from ..flags import add_evaluation_options, add_measures_option, add_output_option
from ..inputs import protocol_of, read_inputs, read_run, run_names
from ..render import digits
from ..usage import count_option, precision_option, share_option, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run", "trec_text"]

NAME = "fuse"
HELP = "fuse runs into one (rrf, comb_mnz, wsum, ... ranx's 25 methods), cross-validated and tested"
EXAMPLES = """examples:
  rankproof fuse bm25.run tfidf.run -o fused.run
  rankproof fuse bm25.run tfidf.run lmdirichlet.run --method wsum --qrels qrels.txt -o fused.run
  rankproof fuse a.run b.run --method rrf --param k=60 --ties docid -o fused.run"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ...fusion import METHODS, NORMALIZATIONS

    parser.add_argument("runs", nargs="+", metavar="RUN", help="two or more component runs")
    add_output_option(parser, "the fused run, written atomically in TREC format", required=True)
    parser.add_argument("--method", default="rrf", metavar="METHOD",
                        help=f"fusion method (default rrf): {', '.join(METHODS)}")
    parser.add_argument("--norm", default="min-max", choices=NORMALIZATIONS,
                        help="score normalization of each run first (default min-max, ranx's)")
    parser.add_argument("--param", action="append", metavar="NAME=VALUE",
                        help="a method parameter, e.g. k=60, phi=0.9, gamma=0.5 (repeatable)")
    parser.add_argument("--weights", metavar="W,W,...",
                        help="one weight per run, in order (weighted methods)")
    parser.add_argument("--ties", default="docid", choices=("docid", "input", "ranx"),
                        help="order of equal scores in the runs and the fused run (default docid: by doc id, "
                             "descending, as trec_eval reads them)")
    parser.add_argument("--k", type=count_option("--k", 1), default=10,
                        help="cutoff of the complementarity diagnostics (default 10)")
    _add_judged_options(parser)
    add_evaluation_options(parser, coverage=False)
    parser.add_argument("--precision", type=precision_option, metavar="DIGITS",
                        help="decimals of the comparison's means, differences and intervals (default 4; the fused "
                             "run keeps every digit of its scores)")
    parser.add_argument("--quiet", action="store_true",
                        help="print nothing: the fused run is written to -o, errors still go to stderr")


def _add_judged_options(parser: argparse.ArgumentParser) -> None:
    """--qrels and what the judgments allow, in a section of the help of their own:
    cross-validating the method's parameters, and comparing the fused run with each component
    (measures, paired tests and the components' coverage guard)."""
    judged = parser.add_argument_group("with --qrels: cross-validation and the comparison with "
                                       "each component")
    judged.add_argument("--qrels", metavar="QRELS",
                        help="judgments: cross-validate the method's parameters, and compare the "
                             "fused run with each component")
    judged.add_argument("--folds", type=count_option("--folds", 2), default=5,
                        help="cross-validation folds over queries (default 5)")
    judged.add_argument("--select-by", default="ndcg@10", metavar="MEASURE",
                        help="the measure cross-validation maximises (default ndcg@10)")
    add_measures_option(judged, DEFAULT_MEASURES, "measures of the comparison")
    judged.add_argument("--min-coverage", type=share_option, default=0.5, metavar="SHARE",
                        help="refuse a component ranking less than this share of the judged "
                             "queries (default 0.5; one ranking none is always refused)")
    judged.add_argument("--allow-partial", action="store_true",
                        help="fuse and compare components that rank too few judged queries anyway")
    add_test_options(judged)


def trec_text(run) -> str:
    """The run in TREC format, rows in its order, ranks from 1 per query, scores at full precision.

    Ids holding a blank or a control character are refused: a blank would split
    the line's columns and a line break would forge a line of its own.
    """
    import numpy as np

    _check_trec_ids(run.name, "query", run.queries)
    _check_trec_ids(run.name, "doc", run.docs[np.unique(run.doc_codes)])
    lines = []
    tag = run.name
    for q, query in enumerate(run.queries.tolist()):
        lo, hi = int(run.offsets[q]), int(run.offsets[q + 1])
        docs = run.docs[run.doc_codes[lo:hi]].tolist()
        for rank, (doc, score) in enumerate(zip(docs, np.asarray(run.scores[lo:hi]).tolist()),
                                            start=1):
            lines.append(f"{query} Q0 {doc} {rank} {score!r} {tag}")
    return "\n".join(lines) + ("\n" if lines else "")


def _check_trec_ids(name: str, what: str, ids) -> None:
    """Refuse an empty id or one with a blank or a control character (one pass in C when all are fine)."""
    texts = [str(text) for text in ids.tolist()]
    joined = "".join(texts)
    # isprintable is False for every blank but the ASCII space (str.split's others are Unicode
    # separators).
    if all(texts) and joined.isprintable() and " " not in joined:
        return
    for text in texts:
        if not text or not text.isprintable() or text.split() != [text]:
            raise InputError(source=f"run {name}",
                             what=literal(f"{what} id {text!r:.60} is empty or holds a blank or "
                                                                 "a control character, which a TREC run cannot hold "
                                                                 "(it would split or forge a line)"),
                             value=text, fix="clean the ids of the component runs first")


def _params(args) -> dict:
    params: dict = {}
    for item in args.param or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise usage(NAME, f"--param {item!r}: write NAME=VALUE", "e.g. --param k=60")
        try:
            number = float(value)
        except ValueError:
            raise usage(NAME, f"--param {item!r}: the value is not a number",
                        "e.g. --param k=60") from None
        params[key.strip()] = int(number) if number.is_integer() and key.strip() in ("k", "w", "n_segments") \
            else number
    if args.weights:
        try:
            params["weights"] = tuple(float(w) for w in args.weights.split(","))
        except ValueError:
            raise usage(NAME, f"--weights {args.weights!r}: give numbers separated by commas",
                        "e.g. --weights 0.5,0.3,0.2") from None
    from ...fusion.domains import check_domains

    check_domains(params)   # before any run is read
    return params


def _check_coverage(args, qrels, runs: dict) -> None:
    """--min-coverage and --allow-partial: a component ranking too few judged queries is refused,
    in fuse's own option words, or with --allow-partial said on stderr (the comparison then runs
    with every query it has)."""
    import numpy as np

    from ...errors import CoverageError
    from ...results.coverage import share_text
    from ..render import print_notes

    judged = len(qrels.queries)
    if judged == 0:
        return
    for name, component in runs.items():
        ranked = int(np.isin(qrels.queries, component.queries).sum())
        if ranked and ranked / judged >= args.min_coverage:
            continue
        what = (f"ranks {ranked} of the {judged} judged queries ({ranked / judged:.1%}), below the "
                f"{share_text(args.min_coverage)} asked for (--min-coverage)")
        if args.allow_partial:
            print_notes([f"run {name}: warning: {what}"], args.quiet)
            continue
        raise CoverageError(source=f"run {name}", what=literal(what), value=ranked / judged,
                            fix="check that the query ids match, or pass --allow-partial, or "
                                "lower --min-coverage")


def run(args) -> int:
    from ...fusion import compare_fused, complementarity, cross_validate, fuse
    from ...fusion.methods import parse_method
    from ...fusion.optimisation import describe_params
    from ...fusion.ties import parse_ties
    from ...measures.parse import parse_measures
    from ...report.fusion import text_table
    from ...report.output import check_output_path, write_output

    if len(args.runs) < 2:
        raise usage(NAME, "give two or more runs to fuse")
    if args.intents:
        raise usage(NAME, "--intents: judgments per intent are not available to fusion yet",
                    "give qrels with one grade per query and doc")
    method, ties = parse_method(args.method), parse_ties(args.ties)
    params = _params(args)
    places = digits(args)
    measures = parse_measures(args.measure or DEFAULT_MEASURES)
    protocol = protocol_of(args)
    check_output_path(args.output, [*args.runs, args.qrels])
    names = bare_names(run_names(args.runs, args.label))
    if args.qrels:      # read as every command reads its inputs: formats, stdin, errors, limits
        qrels, pairs = read_inputs(args, args.qrels, args.runs, names, intents=False)
        runs = dict(pairs)
        _check_coverage(args, qrels, runs)
    else:
        qrels, runs = (None,
                       {name: read_run(args, path, name) for name, path in zip(names, args.runs)})
    out = [f"fusion: {method.name} of {', '.join(names)}; normalization {args.norm}",
           f"ties: {ties.value} ({_TIES[ties.value]})"]
    if qrels is not None and method.tunable and not params:
        fit = cross_validate(qrels, runs, method.name, norm=args.norm, measure=args.select_by,
                             folds=args.folds,
                             seed=args.seed, protocol=protocol, ties=ties,
                             name=f"fused-{method.name}")
        fused = fit.run
        out.append(fit.summary())
        out.append("the fused run written is cross-fitted: each query fused with its fold's choice")
    else:
        fused = fuse(runs, method.name, norm=args.norm, params=params, ties=ties, qrels=qrels,
                     name=f"fused-{method.name}")
        out.append(f"parameters: {describe_params({**method.defaults, **params})}")
        if method.train is not None:
            out.append("learned from the judgments of every query, and scored on them: optimistic "
                       "(leave out --param to cross-validate)")
    write_output(trec_text(fused), args.output)
    out.append(f"wrote {args.output}: {fused.num_queries} queries, {len(fused)} ranked docs")
    out.append(complementarity(runs, k=args.k, qrels=qrels, ties=ties).summary())
    if qrels is not None:
        comparison = compare_fused(qrels, fused, runs, measures, protocol, test=args.test,
                                   correction=args.correction, alpha=args.alpha,
                                   n_resamples=args.resamples,
                                   seed=args.seed, allow_partial=True)
        out.append(text_table(comparison, fused.name, places))
    if not args.quiet:
        print("\n".join(out))
    return 0


_TIES = {"docid": "equal scores by doc id, descending, as trec_eval and ties=docid read them",
         "input": "equal scores keep their input order: a run's row order, the fused run's first appearance",
         "ranx": "equal scores in the order numba's quicksort leaves them, as ranx"}
