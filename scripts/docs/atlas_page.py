"""The atlas as a Markdown page (``render(build())``); every number on it comes from the structured atlas."""

from __future__ import annotations

import html

from atlas import WHY_PEERS, Atlas, Cell, Explanation
from atlas_cases import MEASURES, Case

__all__ = ["render", "label", "missing_lines"]

LABELS = {"ndcg": "NDCG@{k}", "p": "P@{k}", "ap": "AP"}


def label(measure: str, k: int) -> str:
    return LABELS[measure].format(k=k)


def _value(outcome) -> str:
    if outcome.refused is not None:
        return f'<span title="{html.escape(outcome.refused, quote=True)}">refuses</span>'
    return outcome.shown()


def _cell(cell: Cell | None) -> str:
    if cell is None:
        return "&mdash;"
    text = _value(cell.peer)
    if not cell.differs:
        return text
    if cell.explanation is None:
        return f"{text}<br>**unexplained**"
    options = cell.explanation.options() or "the default protocol"
    return f"{text}<br>`{options}`"


def _files(case: Case) -> list[str]:
    lines = ["```shell", f"cat > {case.key}.qrels <<'EOF'", *case.qrels_text().splitlines(), "EOF"]
    if case.run:
        lines += [f"cat > {case.key}.run <<'EOF'", *case.run_text().splitlines(), "EOF"]
    else:
        lines.append(f": > {case.key}.run   # an empty file")
    return lines + ["```", ""]


def _table(atlas: Atlas, case: Case) -> list[str]:
    header = [label(m, case.k) for m in MEASURES]
    lines = ["| tool | " + " | ".join(header) + " |", "|---|" + "---|" * len(header)]
    default = atlas.defaults[case.key]
    lines.append("| **rankproof** (default) | " + " | ".join(_value(default[m]) for m in MEASURES) + " |")
    for tool in atlas.ran():
        cells = [_cell(atlas.cell(tool.key, case.key, m)) for m in MEASURES]
        lines.append(f"| {tool.label} | " + " | ".join(cells) + " |")
    return lines + [""]


def _refusals(atlas: Atlas, case: Case) -> list[str]:
    said: dict[str, list[str]] = {}
    for m in MEASURES:
        if atlas.defaults[case.key][m].refused is not None:
            said.setdefault(f"rankproof: {atlas.defaults[case.key][m].refused}", [])
    for cell in atlas.cells:
        if cell.case == case.key and cell.peer.refused is not None:
            tool = next(t.label for t in atlas.tools if t.key == cell.tool)
            said.setdefault(f"{tool}: {cell.peer.refused}", [])
    if not said:
        return []
    return ["What the refusals said:", ""] + [f"- {html.escape(text)}" for text in said] + [""]


def _commands(atlas: Atlas, case: Case) -> list[str]:
    """One `rankproof evaluate` per protocol that reproduces a differing cell; `rankproof why` per preset."""
    by_options: dict[Explanation, list[str]] = {}
    for cell in atlas.cells:
        if cell.case == case.key and cell.differs and cell.explanation is not None:
            names = by_options.setdefault(cell.explanation, [])
            if case.measures[cell.measure] not in names:
                names.append(case.measures[cell.measure])
    if not by_options:
        return []
    lines = ["Reproduce the differing cells: with these options rankproof gave the values above in this build "
             "(on the same files, through its Python API):", "",
             "```shell"]
    for explanation, names in by_options.items():
        measures = " ".join(f"-m {name}" for name in names)
        options = explanation.options()
        lines.append(f"rankproof evaluate {case.key}.qrels {case.key}.run {measures}" + (f" {options}" if options
                                                                                          else ""))
    lines += ["```", ""]
    for (key, explanation), (command, output) in atlas.why.items():
        if key != case.key:
            continue
        if explanation.policies:
            said = (f"What `{explanation.options()}` changes from the `{explanation.preset}` preset here "
                    "(ours is the protocol that reproduces the tool):")
        else:
            said = f"What separates rankproof's default from the `{explanation.preset}` preset here:"
        lines += [said, "", "```console", f"$ {command}", *output.rstrip("\n").splitlines(), "```", ""]
    return lines


def _tools(atlas: Atlas) -> list[str]:
    """The tools that ran, a short table (the calls below it, not in a column that would push the last one
    off a 1400 px page); then one line per missing tool with the command that adds it."""
    ran = atlas.ran()
    lines = ["| tool | version | rankproof preset | time |", "|---|---|---|---|"]
    for tool in ran:
        lines.append(f"| {tool.label} | {tool.version} | `{tool.preset}` | {tool.seconds:.1f} s |")
    lines += ["", "How the atlas calls each tool:", ""]
    lines += [f"- {tool.label}: {html.escape(tool.call)}" for tool in ran]
    missing = missing_lines(atlas)
    if missing:
        lines += ["", "Not run in this build (one line each, with the command that adds the tool):", ""]
        lines += [f"- {line}" for line in missing]
    return lines + [""]


def missing_lines(atlas: Atlas) -> list[str]:
    """One line per tool that did not run: its name and why, with the command that adds it."""
    return [f"{tool.label}: {html.escape(tool.missing)}" for tool in atlas.tools if tool.missing is not None]


def _summary(atlas: Atlas) -> list[str]:
    lines = ["| tool | cells | same as rankproof's default | reproduced by a preset or policy | unexplained |",
             "|---|---|---|---|---|"]
    for tool in atlas.ran():
        cells = [c for c in atlas.cells if c.tool == tool.key]
        same = sum(not c.differs for c in cells)
        explained = sum(c.differs and c.explanation is not None for c in cells)
        lines.append(f"| {tool.label} | {len(cells)} | {same} | {explained} | {len(cells) - same - explained} |")
    return lines + [""]


def _unexplained(atlas: Atlas) -> list[str]:
    cases = {case.key: case for case in atlas.cases}
    rows = [c for c in atlas.cells if c.differs and c.explanation is None]
    lines = ["## What no preset or policy explains", ""]
    if not rows:
        return lines + ["Every differing cell is reproduced by a preset or policy.", ""]
    lines += ["These cells differ from rankproof's default and no rankproof protocol tried (each tool's preset, "
              "with up to two policies changed) gives the same value on the same files. They are the tools' "
              "own conventions that rankproof does not offer (or offers only as an error):", "",
              "| tool | case | measure | tool's value | rankproof's default |", "|---|---|---|---|---|"]
    for c in rows:
        tool = next(t.label for t in atlas.tools if t.key == c.tool)
        case = cases[c.case]
        lines.append(f"| {tool} | [{case.title}](#{case.key}) | {label(c.measure, case.k)} | {_value(c.peer)} | "
                     f"{_value(c.default)} |")
    lines.append("")
    for case in atlas.cases:
        if case.beyond and any(c.case == case.key for c in rows):
            lines += [f"**{case.title}.** {case.beyond}", ""]
    return lines


def render(atlas: Atlas) -> str:
    ran = atlas.ran()
    lines = [
        "# Why numbers differ between tools", "",
        f"The same small qrels and runs, given to {len(ran)} ranking-evaluation tools, and the rankproof "
        "protocol that reproduces each tool's number. Nothing here is typed by hand: `scripts/docs/atlas.py` runs "
        f"every tool when the site is built ({atlas.date}; the whole atlas took {atlas.seconds:.0f} s), and "
        "runs rankproof with each protocol it names to check that the value is the same.", "",
        "How to read a table: each cell is the mean the tool reports (4 decimals; *refuses* when it raised an "
        "error, whose text shows on hover and below the table). A cell equal to rankproof's default shows the "
        "value alone. A cell that differs names the `rankproof` options that reproduce it; "
        "**unexplained** means no protocol tried does (the tool's preset, then up to two policies changed on "
        "top of it). A named protocol reproduces the value on this data: it is the smallest change found, "
        "which on a tiny case can also be a coincidence; the presets' sources are in "
        "`src/rankproof/protocol/presets.py`. `rankproof why --peer` takes the presets "
        + ", ".join(f"`{p}`" for p in WHY_PEERS) + ".", "",
        "## The tools", "", *_tools(atlas),
        "Each tool is given a case the way its users hold such data:", "",
        "- trec_eval 10 and 9 read the two TREC files; ir_measures and ranx read them with their own readers;",
        "- pytrec_eval takes dicts (`{query: {doc: grade}}`, `{query: {doc: score}}`) built line by line, so a "
        "doc listed twice keeps its last score;",
        "- scikit-learn, torchmetrics, LightGBM and XGBoost take, per query of the run, the listed docs' scores "
        "and grades (an unjudged doc has grade 0): a judged doc the run misses, or a query it misses, cannot be "
        "given to them;",
        "- Spark MLlib takes, per judged query, the docs in score order (ties in file order) and the set of "
        "relevant docs (grade 1 or more).", "",
        "A tool that is not installed is listed above with the command that adds it, and its row is absent "
        "from the tables (`make docs` installs the docs extra only; the test extra brings every Python tool: "
        "`.venv/bin/pip install -e '.[test,docs]'`, and Spark needs Java 17). `python scripts/docs/atlas.py` "
        "prints this page; `RANKPROOF_ATLAS_SKIP=spark,ranx` leaves tools out of a local build (they are then "
        "listed as not run).", "",
        "## Summary", "", *_summary(atlas),
        "## The cases", "",
    ]
    lines += [f"{i}. [{case.title}](#{case.key})" for i, case in enumerate(atlas.cases, 1)] + [""]
    for i, case in enumerate(atlas.cases, 1):
        lines += [f'<a id="{case.key}"></a>', "", f"### {i}. {case.title}", "", case.what, ""]
        lines += _files(case) + _table(atlas, case) + _refusals(atlas, case)
        if case.beyond and any(c.case == case.key and c.differs and c.explanation is None for c in atlas.cells):
            lines += [f"Unexplained here: {case.beyond}", ""]
        lines += _commands(atlas, case)
    lines += _unexplained(atlas)
    return "\n".join(lines)
