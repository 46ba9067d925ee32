"""``rankproof measures``: the measures, one line each with its definition."""

from __future__ import annotations

import argparse
import textwrap

from ...errors import MeasureError
from ..render import print_text
from ..usage import literal

__all__ = ["NAME", "HELP", "EXAMPLES", "add_arguments", "run", "MeasuresFrom"]

# The longest line the listing prints (a wide terminal's).
LINE_WIDTH = 160


class MeasuresFrom(argparse.Action):
    """``--measures-from FILE.py`` (every command): run the file, whose
    ``rankproof.measures.define`` calls register measures, before the command
    reads its measure names."""

    def __call__(self, parser, namespace, values, option_string=None):
        from ...measures.user import load_measures

        load_measures(str(values))
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), str(values)])

NAME = "measures"
HELP = "list the measures, one line each with its definition"
EXAMPLES = """examples:
  rankproof measures          every measure, one line each
  rankproof measures ndcg     the measures whose name (or another tool's name for it) holds 'ndcg'"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("filter", nargs="?", metavar="FILTER",
                        help="only measures whose name holds FILTER, e.g. ndcg")


def run(args) -> int:
    from ...measures.aliases import suggest
    from ...measures.base import REGISTRY
    from ...recsys.registry import SIDE_REGISTRY

    also = _other_names()
    wanted = (args.filter or "").lower()

    def shown(name: str) -> bool:
        return not wanted or wanted in name or any(wanted in a.lower() for a in also.get(name, []))

    specs = [spec for spec in REGISTRY.values() if shown(spec.name)]
    side = [spec for spec in SIDE_REGISTRY.values() if wanted in spec.name]
    if not specs and not side and wanted:   # no name holds it: the definitions that do
        specs = [spec for spec in REGISTRY.values() if wanted in spec.description.lower()]
        side = [spec for spec in SIDE_REGISTRY.values() if wanted in spec.description.lower()]
    if not specs and not side:
        near = suggest(args.filter)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise MeasureError(what=literal(f"no measure matches {args.filter!r}{hint}"),
                           fix="rankproof measures lists them all")
    lines = [_line(spec, also, full=bool(wanted)) for spec in specs]
    if not wanted:
        lines.extend(_engines_and_side_data(specs))
    elif side:
        lines += [""] * bool(lines) + ["measures that need side data (-m of evaluate and report):"]
        lines.extend(_side_registry(side))
    print_text("\n".join(lines) + "\n")
    return 0


def _other_names() -> dict[str, list[str]]:
    """Other tools' names of each measure (trec_eval's, ir_measures', ranx')."""
    from ...measures.aliases import aliases

    also: dict[str, list[str]] = {}
    for alias in aliases():
        base = alias.canonical.split("(")[0]
        if alias.name not in also.setdefault(base, []):
            also[base].append(alias.name)
    return also


def _line(spec, also: dict[str, list[str]], full: bool) -> str:
    usage = spec.name + ("@k" if spec.cutoff else "")
    extras = []
    if spec.params:
        extras.append("params " + ", ".join(spec.params))
    if spec.ties == "ordered":
        extras.append("tied scores need ties=docid or ties=input")
    if also.get(spec.name):
        extras.append("also " + ", ".join(also[spec.name][:6]))
    formula = _formula(spec.description)
    if not full and len(formula) > 110:  # the full definition: rankproof measures NAME
        formula = formula[:107].rstrip() + "..."
    line = f"{usage:<15} {formula}"
    if not extras:
        return line
    bracket = f"[{'; '.join(extras)}]"
    # In the whole list, a long parameter list goes on a line of its own under the definition (a
    # terminal's width); a filtered listing keeps one line per measure, its definition in full.
    fits = full or len(line) + 2 + len(bracket) <= LINE_WIDTH
    return f"{line}  {bracket}" if fits else f"{line}\n{'':16}{bracket}"


def _formula(description: str) -> str:
    """The definition part of a measure's description: its first sentence."""
    cut = description.find(". ")
    return description if cut < 0 else description[: cut + 1]


def _engines_and_side_data(specs) -> list[str]:
    """The lines after the full list: which engine computes what, and the measures that need side data."""
    # Which engine computes what: the compiled engine has a kernel for a measure or
    # the planner hands it to the numpy one; the intent measures have loops of their own.
    from ...recsys.registry import SIDE_REGISTRY

    delegated = [spec.name for spec in specs if spec.kernel is None and not spec.needs_intents
                 and spec.ranking]
    own = [spec.name for spec in specs if spec.needs_intents]
    read = [spec.name for spec in specs if not spec.ranking]
    engines = "engine: compiled for every measure but " + ", ".join(delegated) + " (numpy)"
    lines = ["",
             *textwrap.wrap(engines, LINE_WIDTH, subsequent_indent="  ", break_on_hyphens=False)]
    if read:
        lines.append("the nugget scores (" + ", ".join(read)
                     + ") are read from nuggetizer's assignment files by "
                     "rankproof nuggets, not computed from a ranking")
    if own:
        lines.append("the diversity measures (" + ", ".join(own) + ") run their own compiled loops "
                     "under every engine, and need --intents")
    lines.extend(_executors(specs, SIDE_REGISTRY.values()))
    lines += ["",
              "measures that need side data (names for -m of evaluate and report, with the flag named):"]
    lines.extend(_side_registry(SIDE_REGISTRY.values()))
    lines += ["", "their Python functions:"]
    lines.extend(_side_data_measures())
    lines += ["", "Examples: ndcg@10  ndcg(gain=exp2)@10  p(rel=2)@5  ap  rr@10",
              "rankproof measures FILTER shows the full definition of the measures whose name holds FILTER."]
    return lines


def _executors(specs, side_specs) -> list[str]:
    """Where the measures run, from each spec's executors: those that do not run on every executor."""
    from ...measures.base import EXECUTORS

    narrower: dict[tuple[str, ...], list[str]] = {}
    for spec in specs:
        if spec.executors and spec.executors != EXECUTORS:
            narrower.setdefault(spec.executors, []).append(spec.name)
    side = sorted(set().union(*(spec.executors for spec in side_specs)))
    text = (f"executors ({', '.join(EXECUTORS)}): every measure on each but "
            + "; ".join(f"{', '.join(names)} ({', '.join(where)})"
                        for where, names in narrower.items())
            + f"; the side-data measures: {', '.join(side)}")
    return textwrap.wrap(text, LINE_WIDTH, subsequent_indent="  ", break_on_hyphens=False)


def _side_registry(specs) -> list[str]:
    """One line per side-data measure: name@k, kind, the flags it reads; then what it is."""
    import textwrap

    from ...recsys.side import SIDE_FLAGS

    lines = []
    for spec in specs:
        reads = "; ".join(" or ".join(SIDE_FLAGS[kind] for kind in needs) for needs in spec.needs)
        params = "(" + ",".join(f"{p.name}=..." for p in spec.params) + ")" if spec.params else ""
        cutoff = "@k" if spec.cutoff else ""
        lines.append(f"  {spec.name}{params}{cutoff}  [{spec.kind}; {spec.reads or reads or 'no side data'}]")
        lines.extend("      " + line for line in textwrap.wrap(spec.description, 100))
    return lines


def _side_data_measures() -> list[str]:
    """One line per beyond-accuracy measure: its function and the first sentence of its docstring."""
    from ... import recsys

    functions = [recsys.ild, recsys.novelty, recsys.long_tail_share, recsys.coverage,
                 recsys.session_mean]
    lines = []
    for function in functions:
        doc = " ".join((function.__doc__ or "").split("\n\n")[0].split())
        lines.append(f"  rankproof.recsys.{function.__name__}: {doc}")
    return lines
