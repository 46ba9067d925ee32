"""``rankproof fit-pbm``: fit a position-based click model to a click log; write its examination vector."""

from __future__ import annotations

import argparse
import sys

from ...io.json_text import json_text
from ..flags import add_output_option
from ..inputs import INPUT_FORMATS, STDIN, add_column_options, columns
from ..usage import count_option, number_option, usage

__all__ = ["NAME", "HELP", "EXAMPLES", "CLICK_ROLES", "add_arguments", "run"]

NAME = "fit-pbm"
HELP = "fit a position-based click model to a click log; write its examination vector as a discount " \
       "(discount=file:FILE)"
EXAMPLES = """examples:
  rankproof fit-pbm clicks.txt -o discount.json
  rankproof evaluate qrels.txt bm25.run -m ndcg@10 --policy discount=file:discount.json
The examination vector is normalised to rank 1 = 1 (the model sees only products examination x attractiveness)."""

CLICK_ROLES = ("query", "doc", "rank", "clicked")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("clicks",
                        help="click log: lines 'query doc rank clicked' (whitespace), or CSV/TSV/JSONL/"
                                       "Parquet with those columns; - for stdin")
    add_output_option(parser, "write the JSON to FILE (atomically) instead of stdout")
    parser.add_argument("--clicks-format", choices=INPUT_FORMATS,
                        help="default: from the extension (else whitespace)")
    parser.add_argument("--max-rank", type=count_option("--max-rank"), metavar="R",
                        help="leave out impressions below rank R")
    parser.add_argument("--max-iterations", type=count_option("--max-iterations"), default=1000,
                        help="EM iterations at most (default 1000)")
    parser.add_argument("--tolerance", type=number_option("--tolerance", 0, open_low=True,
                                                          example="1e-7"), default=1e-7,
                        help="stop when no examination probability moves by more (default 1e-7)")
    add_column_options(parser, CLICK_ROLES, "query=user,doc=item,rank=position,clicked=click")
    parser.add_argument("--quiet", action="store_true", help="no summary on stderr")


def run(args) -> int:
    from ...recsys.clicks import fit_pbm, read_clicks
    from ...report.output import write_output

    if args.max_iterations < 1:
        raise usage(NAME, f"--max-iterations {args.max_iterations} is less than 1",
                    "give 1 or more")
    if not args.tolerance > 0:
        raise usage(NAME, f"--tolerance {args.tolerance} is not positive",
                    "give a positive number such as 1e-7")
    if args.max_rank is not None and args.max_rank < 1:
        raise usage(NAME, f"--max-rank {args.max_rank} is less than 1", "give a rank of 1 or more")
    log = read_clicks(STDIN.path(args.clicks, args.clicks_format), args.clicks_format,
                      **columns(args, CLICK_ROLES))
    fit = fit_pbm(log, max_iterations=args.max_iterations, tolerance=args.tolerance,
                  max_rank=args.max_rank)
    if args.output is None or args.output == "-":
        write_output(json_text(fit.to_dict(), indent=2) + "\n", None)
    else:
        fit.write(args.output)
    if not args.quiet:
        how = (f"converged in {fit.iterations} iterations" if fit.converged
               else f"NOT converged after {fit.iterations} iterations (raise --max-iterations)")
        shown = ", ".join(f"{v:.3f}" for v in fit.examination[:10].tolist())
        more = ", ..." if len(fit.examination) > 10 else ""
        print(STDIN.relabel(f"rankproof: {log.source}: {fit.impressions} impressions, {fit.clicks} clicks, "
                            f"{len(fit.attractiveness)} query-doc pairs; EM {how}; examination by rank "
                            f"(rank 1 = 1): {shown}{more}"), file=sys.stderr)
    return 0
