"""``rankproof balance``: are two A/B buckets' users alike? KS per numeric attribute, chi-square per categorical one.

One table out (:class:`rankproof.stats.balance.Balance`); the exit code is 0
whether or not an attribute is flagged (the table says which): the check
informs a person, it does not stop a pipeline.
"""

from __future__ import annotations

import argparse

from ..inputs import INPUT_FORMATS, STDIN
from ..flags import add_correction_option, add_level_option
from ..usage import usage

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "balance"
HELP = "A/B bucket balance: two-sample KS per numeric user attribute, chi-square per categorical one, corrected"
EXAMPLES = """examples:
  rankproof balance users.csv --bucket-col bucket
  rankproof balance users.parquet --bucket-col arm --buckets control,treatment --attributes age,country,visits
  rankproof balance users.csv --categorical region_id --correction bh"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("users",
                        help="one row per user: a bucket column and attribute columns (CSV, TSV, JSON "
                                      "Lines, Parquet); - for stdin")
    parser.add_argument("--format", dest="users_format",
                        choices=[f for f in INPUT_FORMATS if f != "trec"],
                        help="default: from the extension")
    parser.add_argument("--bucket-col", default="bucket", metavar="NAME",
                        help="the bucket column (default bucket)")
    parser.add_argument("--user-col", default="user", metavar="NAME",
                        help="the user id column, never tested (default user)")
    parser.add_argument("--attributes", metavar="A,B,...",
                        help="columns to test (default: every other column)")
    parser.add_argument("--categorical", metavar="A,B,...",
                        help="columns tested as categories though numeric")
    parser.add_argument("--buckets", metavar="A,B",
                        help="the two buckets to compare when the column holds more")
    add_correction_option(parser, "the attributes")
    add_level_option(parser, "alpha", "flag a corrected p below this")


def _names(text: str | None) -> list[str] | None:
    return None if text is None else [name.strip() for name in text.split(",") if name.strip()]


def run(args) -> int:
    from ...errors import InputError, literal
    from ...io.arrow import MissingColumnsError
    from ...stats.balance import balance

    if args.users == "-" and args.users_format is None:
        raise usage(NAME, "stdin has no extension to tell its format",
                    "add --format csv (or tsv, jsonl, parquet)")
    path = STDIN.path(args.users, args.users_format)
    try:
        result = balance(path, args.bucket_col, _names(args.attributes),
                         categorical=_names(args.categorical) or (),
                         buckets=_names(args.buckets), correction=args.correction, alpha=args.alpha,
                         user=args.user_col, format=args.users_format)
    except MissingColumnsError as error:
        if error.no_header:
            raise
        options = {"bucket": "--bucket-col", "attributes": "--attributes"}
        shown = " and ".join(f"no column {name!r} ({options[role]})"
                             for role, name in error.missing.items())
        listing = ", ".join(repr(name) for name in error.present) or "none"
        raise InputError(source=error.source, line=error.line, what=literal(shown),
                         fix=literal(f"its columns are {listing}")) from None
    print(STDIN.relabel(str(result)))
    return 0
