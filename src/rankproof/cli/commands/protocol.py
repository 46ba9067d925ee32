"""``rankproof protocol``: a preset's policies, its canonical text and fingerprint."""

from __future__ import annotations

import argparse

from ..inputs import add_protocol_options, protocol_of
from ..render import print_text

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run"]

NAME = "protocol"
HELP = "print a preset's policies"
EXAMPLES = """examples:
  rankproof protocol --preset trec_eval
  rankproof protocol --policy ties=docid --policy gain=exp2"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_protocol_options(parser)


def run(args) -> int:
    from ...protocol import PRESETS, Protocol

    protocol = protocol_of(args)
    lines = [f"preset {args.preset} (presets: {', '.join(PRESETS)})"]
    policies = protocol.to_dict()
    defaults = Protocol().to_dict()
    width = max(len(name) for name in policies)
    for name, value in policies.items():
        mark = "" if value == defaults[name] else f"   (rankproof default: {defaults[name]})"
        lines.append(f"  {name:<{width}}  {value}{mark}")
    lines.append(f"{'text':<{width + 2}}  {protocol}")
    lines.append(f"{'fingerprint':<{width + 2}}  {protocol.fingerprint}")
    print_text("\n".join(lines) + "\n")
    return 0
