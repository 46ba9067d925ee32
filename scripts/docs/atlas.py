"""The "why numbers differ" atlas: every installed peer run on every edge case, each cell explained by a
rankproof protocol that reproduces it, checked by running rankproof with that protocol.

``build()`` returns the structured atlas (:class:`Atlas`); ``atlas_page.render`` writes it as the page.
The docs build calls both (``scripts/docs/atlas_hooks.py``); ``python scripts/docs/atlas.py`` prints the page.

For a cell (peer, case, measure) the explanation is searched in this order, and the first protocol whose
rankproof value equals the peer's is named: the peer's preset; the preset with one policy changed; the
preset with two changed. Equal means: the same refusal status (both refuse, or neither), and values equal
to the digits the tool prints (trec_eval: 4) or within 1e-6 (torchmetrics computes in float32). A cell no
protocol reproduces is reported as such.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rankproof.cli.commands import why as why_command  # noqa: E402

from atlas_cases import CASES, MEASURES, Case  # noqa: E402
from atlas_peers import PEERS, ROOT, Outcome, Peer, start_spark_in_background, stop_spark  # noqa: E402

__all__ = ["Atlas", "Cell", "Explanation", "Tool", "build", "matches", "OVERRIDES", "WHY_PEERS"]

# One policy changed on top of a preset: the candidates, in the order they are tried.
BINARY_GAIN = "map:1=1/2=1/3=1"
OVERRIDES: tuple[tuple[str, str], ...] = (
    ("ties", "docid"), ("ties", "input"), ("ties", "expected"),
    ("gain", "linear"), ("gain", "exp2"), ("gain", BINARY_GAIN),
    ("missing_query", "zero"), ("missing_query", "exclude"),
    ("zero_ideal", "zero"), ("zero_ideal", "one"), ("zero_ideal", "exclude"),
    ("ideal", "retrieved"), ("unjudged", "condense"),
    ("duplicates", "first"),
    ("negative_grades", "zero"), ("negative_grades", "unjudged"), ("negative_grades", "error"),
    ("precision_denominator", "k"), ("precision_denominator", "retrieved"),
    ("ap_denominator", "relevant"), ("ap_denominator", "hits"),
)
# The presets `rankproof why --peer` takes.
WHY_PEERS: tuple[str, ...] = tuple(why_command.PEERS)
TOLERANCE = 1e-6


@dataclasses.dataclass(frozen=True)
class Explanation:
    """A rankproof protocol: a preset and the policies changed on top of it."""

    preset: str
    policies: tuple[tuple[str, str], ...] = ()

    def options(self) -> str:
        """The command-line options that select it."""
        parts = [] if self.preset == "rankproof" else [f"--preset {self.preset}"]
        parts += [f"--policy {key}={value}" for key, value in self.policies]
        return " ".join(parts)

    def __str__(self) -> str:
        text = f"preset {self.preset}"
        return text + "".join(f", {key}={value}" for key, value in self.policies)


@dataclasses.dataclass(frozen=True)
class Cell:
    tool: str
    case: str
    measure: str  # the key (atlas_cases.MEASURES)
    peer: Outcome  # what the tool gave
    default: Outcome  # what rankproof gives under its default protocol
    explanation: Explanation | None  # the protocol that reproduces the tool's value; None: none found
    reproduced: Outcome | None  # rankproof's value under that protocol (checked equal to the tool's)

    @property
    def differs(self) -> bool:
        return not matches(self.peer, self.default)


@dataclasses.dataclass(frozen=True)
class Tool:
    key: str
    label: str
    version: str
    call: str
    preset: str
    missing: str | None  # why it did not run here; None: it ran
    seconds: float


@dataclasses.dataclass
class Atlas:
    tools: list[Tool]
    cases: tuple[Case, ...]
    cells: list[Cell]
    defaults: dict[str, dict[str, Outcome]]  # case -> measure key -> rankproof's default
    why: dict[tuple[str, Explanation], tuple[str, str]]  # (case, protocol) -> (`rankproof why` command, output)
    seconds: float
    date: str

    def cell(self, tool: str, case: str, measure: str) -> Cell | None:
        for item in self.cells:
            if (item.tool, item.case, item.measure) == (tool, case, measure):
                return item
        return None

    def ran(self) -> list[Tool]:
        return [tool for tool in self.tools if tool.missing is None]


def matches(peer: Outcome, ours: Outcome) -> bool:
    """The same outcome: both refuse, or equal values at the peer's printed precision."""
    if (peer.refused is None) != (ours.refused is None):
        return False
    if peer.refused is not None:
        return True
    assert peer.value is not None and ours.value is not None
    if math.isnan(peer.value) or math.isnan(ours.value):
        return math.isnan(peer.value) and math.isnan(ours.value)
    if peer.digits is not None:
        return f"{ours.value:.{peer.digits}f}" == f"{peer.value:.{peer.digits}f}"
    return abs(peer.value - ours.value) <= TOLERANCE * max(1.0, abs(peer.value))


class Rankproof:
    """rankproof on the cases, one evaluation per (case, protocol), remembered."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.inputs: dict[str, Any] = {}
        self.memo: dict[tuple[str, Explanation], dict[str, Outcome]] = {}

    def _read(self, case: Case) -> Any:
        import rankproof

        if case.key not in self.inputs:
            qrels, run = case.write(self.folder)
            try:
                self.inputs[case.key] = (rankproof.Qrels.read(qrels), rankproof.Run.read(run))
            except rankproof.RankproofError as error:
                self.inputs[case.key] = error
        return self.inputs[case.key]

    def outcomes(self, case: Case, explanation: Explanation) -> dict[str, Outcome]:
        import rankproof

        key = (case.key, explanation)
        if key not in self.memo:
            names = case.measures
            inputs = self._read(case)
            try:
                if isinstance(inputs, Exception):
                    raise inputs
                protocol = rankproof.Protocol.preset(explanation.preset).replace(**dict(explanation.policies))
                results = rankproof.evaluate(*inputs, list(names.values()), protocol)
                self.memo[key] = {m: Outcome(value=float(results.mean(names[m]))) for m in MEASURES}
            except rankproof.RankproofError as error:
                said = f"{type(error).__name__}: {' '.join(str(error).split())[:200]}"
                said = said.replace(str(self.folder) + os.sep, "")
                self.memo[key] = {m: Outcome(refused=said) for m in MEASURES}
        return self.memo[key]

    def explain(self, case: Case, measure: str, peer: Outcome, preset: str) -> tuple[Explanation, Outcome] | None:
        """The first protocol (the preset, then one policy changed, then two) whose value equals the peer's."""
        base = Explanation(preset)
        for size in range(3):
            for changes in itertools.combinations(OVERRIDES, size):
                if len({key for key, _ in changes}) < size:
                    continue  # one policy twice
                if any(self._already(preset, key, value) for key, value in changes):
                    continue  # a change the preset already has
                candidate = dataclasses.replace(base, policies=changes)
                ours = self.outcomes(case, candidate)[measure]
                if matches(peer, ours):
                    return candidate, ours
        return None

    @staticmethod
    def _already(preset: str, key: str, value: str) -> bool:
        import rankproof

        return str(getattr(rankproof.Protocol.preset(preset), key)) == value


def _why_example(case: Case, explanation: Explanation, measures: list[str], folder: Path) -> tuple[str, str]:
    """`rankproof why` on the case's files against the explanation's preset: the command and what it prints.

    A preset alone: ours is rankproof's default (with the case's `ours` policies where the default refuses the
    case), so the output names every policy between the default and the tool. A preset with policies: ours
    is that protocol (the tool's value), so the output shows what those policies change from the preset.
    """
    from rankproof.cli.app import main

    args = ["why", f"{case.key}.qrels", f"{case.key}.run", "--peer", explanation.preset]
    if explanation.policies:
        args += ["--preset", explanation.preset]
    for key, value in explanation.policies or case.ours:
        args += ["--policy", f"{key}={value}"]
    for measure in measures:
        args += ["-m", case.measures[measure]]
    here = os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    try:
        os.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
    finally:
        os.chdir(here)
    said = out.getvalue() + err.getvalue()
    if code != 0:
        said += f"(exit status {code})\n"
    return "rankproof " + " ".join(args), said


def _why_examples(cases: tuple[Case, ...], cells: list[Cell], folder: Path) -> dict[tuple[str, Explanation],
                                                                                      tuple[str, str]]:
    """One `rankproof why` per (case, protocol that reproduces a differing cell) whose preset `why` takes."""
    out = {}
    for case in cases:
        chosen = [c for c in cells if c.case == case.key and c.differs and c.explanation is not None
                  and c.explanation.preset in WHY_PEERS]
        for explanation in dict.fromkeys(c.explanation for c in chosen if c.explanation is not None):
            measures = [m for m in MEASURES if any(c.measure == m and c.explanation == explanation for c in chosen)]
            out[(case.key, explanation)] = _why_example(case, explanation, measures, folder)
    return out


def _clean(outcomes: dict[str, Outcome], folder: Path) -> dict[str, Outcome]:
    """Refusals without the build's temporary folder (the page shows file names as the commands give them)."""
    prefix = str(folder) + os.sep
    return {key: dataclasses.replace(o, refused=o.refused.replace(prefix, "")) if o.refused else o
            for key, o in outcomes.items()}


def _skipped() -> set[str]:
    return {name.strip() for name in os.environ.get("RANKPROOF_ATLAS_SKIP", "").split(",") if name.strip()}


def _run_peer(peer: Peer, cases: tuple[Case, ...], folder: Path, ours: Rankproof,
              cells: list[Cell]) -> Tool:
    start = time.perf_counter()
    missing = "skipped in this build (RANKPROOF_ATLAS_SKIP)" if peer.key in _skipped() else peer.missing()
    if missing is None:
        for case in cases:
            got = _clean(peer.run(case, folder / f"{case.key}.qrels", folder / f"{case.key}.run"), folder)
            default = ours.outcomes(case, Explanation("rankproof"))
            for measure in peer.measures:
                found = ours.explain(case, measure, got[measure], peer.preset)
                cells.append(Cell(peer.key, case.key, measure, got[measure], default[measure],
                                  found[0] if found else None, found[1] if found else None))
    return Tool(peer.key, peer.label, peer.version(), peer.call, peer.preset, missing,
                time.perf_counter() - start)


def build(peers: tuple[Peer, ...] = PEERS, cases: tuple[Case, ...] = CASES) -> Atlas:
    """Run every peer on every case and explain every cell."""
    start = time.perf_counter()
    os.environ.setdefault("NUMBA_CACHE_DIR", str(ROOT / "build" / "numba-cache"))  # ranx compiles once
    spark = [p for p in peers if p.key == "spark" and p.key not in _skipped()]
    if spark and spark[0].missing() is None:
        start_spark_in_background()  # the JVM starts while the other tools run (2 cores)
    with tempfile.TemporaryDirectory(prefix="rankproof-atlas-") as name:
        folder = Path(name)
        for case in cases:
            case.write(folder)
        ours = Rankproof(folder)
        cells: list[Cell] = []
        try:
            tools = [_run_peer(peer, cases, folder, ours, cells) for peer in peers]
        finally:
            stop_spark()
        why = _why_examples(cases, cells, folder)
        defaults = {case.key: ours.outcomes(case, Explanation("rankproof")) for case in cases}
    return Atlas(tools, cases, cells, defaults, why, time.perf_counter() - start,
                 time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


if __name__ == "__main__":
    from atlas_page import render

    print(render(build()))
