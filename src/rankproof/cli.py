"""The ``rankproof`` command: parse arguments, call the library, print, exit.

Exit codes: 0 ok; 2 bad input or usage (one line on stderr, no traceback);
1 internal error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["main"]

DEMO_MEASURES = ["ndcg@10", "ap", "rr", "p@10"]


def _cranfield() -> Path:
    return Path(__file__).resolve().parent / "_data" / "cranfield"


def _demo(args: argparse.Namespace) -> int:
    from . import Protocol, Qrels, Run, evaluate

    data = _cranfield()
    qrels = Qrels.read_trec(data / "qrels.txt")
    runs = {name: Run.read_trec(data / f"{name}.run", name=name) for name in ("bm25", "tfidf", "lmdirichlet")}
    protocol = Protocol()
    print(f"Cranfield: {qrels.num_queries} queries, {len(qrels)} judgments; three Lucene runs, 50 docs each\n")
    header = f"{'run':<12}" + "".join(f"{m:>10}" for m in DEMO_MEASURES)
    print(header)
    last = None
    for name, run in runs.items():
        results = evaluate(qrels, run, DEMO_MEASURES, protocol)
        print(f"{name:<12}" + "".join(f"{results.mean(m):>10.4f}" for m in DEMO_MEASURES))
        last = results
    print(f"\nprotocol    {protocol}")
    print(f"fingerprint {protocol.fingerprint}")
    counts = last.counts
    print(f"counts      (lmdirichlet) tied groups {counts['tied_groups']}, crossing the cutoff of ndcg@10 "
          f"{counts['tied_groups_crossing_cutoff']['ndcg@10']}, unjudged docs inside the top 10 "
          f"{counts['unjudged_in_cutoff']['ndcg@10']}")

    print("\nThe same bm25 run under other conventions (ndcg@10):")
    variants = [
        ("rankproof defaults", protocol),
        ("ideal from the retrieved docs", protocol.replace(ideal="retrieved")),
        ("gain 2^g - 1", protocol.replace(gain="exp2")),
        ("unjudged docs dropped (condensed)", protocol.replace(unjudged="condense")),
        ("trec_eval preset", Protocol.preset("trec_eval").replace(missing_query="zero")),
    ]
    base = None
    for label, variant in variants:
        value = evaluate(qrels, runs["bm25"], ["ndcg@10"], variant).mean("ndcg@10")
        base = value if base is None else base
        print(f"  {label:<36} {value:.4f}  ({value - base:+.4f})  fingerprint {variant.fingerprint}")
    print("\nUnjudged is not non-relevant: state the protocol with every number.")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    from . import Protocol, Qrels, Run, evaluate

    protocol = Protocol.preset(args.preset)
    changes = {}
    for item in args.policy or []:
        key, sep, value = item.partition("=")
        if not sep:
            from .errors import ProtocolError

            raise ProtocolError(f"--policy {item!r}: write key=value, e.g. --policy ties=docid")
        changes[key] = value
    if changes:
        protocol = protocol.replace(**changes)
    qrels = Qrels.read_trec(args.qrels)
    for path in args.runs:
        results = evaluate(qrels, Run.read_trec(path), args.measure or DEMO_MEASURES, protocol)
        print(results.summary())
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rankproof", description="Ranking evaluation that states its conventions.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="evaluate the bundled Cranfield runs")
    demo.set_defaults(handler=_demo)
    ev = commands.add_parser("evaluate", help="evaluate TREC runs against TREC qrels")
    ev.add_argument("qrels")
    ev.add_argument("runs", nargs="+")
    ev.add_argument("-m", "--measure", action="append", help="a measure such as ndcg@10 (repeatable)")
    ev.add_argument("--preset", default="rankproof", help="protocol preset: rankproof or trec_eval")
    ev.add_argument("--policy", action="append", help="a policy override key=value (repeatable)")
    ev.set_defaults(handler=_evaluate)
    return parser


def main(argv: list[str] | None = None) -> int:
    from .errors import RankproofError

    args = _parser().parse_args(argv)
    try:
        return args.handler(args)
    except RankproofError as error:
        print(f"rankproof: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
