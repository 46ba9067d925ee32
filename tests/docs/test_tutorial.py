"""The tutorial (docs/tutorial.md): its quiz answers and its figures.

Each quiz answer the page states is computed twice here, with rankproof and
by hand arithmetic written out in the test, and both must round to the
stated value. The figures are made at build time by the mkdocs hook
scripts/docs/tutorial_figures.py: they must be well-formed SVG files that drew
their marks, every figure the page shows must be one the hook makes, and the
hook's example must be the page's.
"""

from __future__ import annotations

import importlib.util
import math
import re
import xml.etree.ElementTree as ET

import pytest

from rankproof import Protocol, Qrels, Run, evaluate

from paths import ROOT

PAGE = ROOT / "docs" / "tutorial.md"
HOOK = ROOT / "scripts" / "docs" / "tutorial_figures.py"
GRADES = {"A": 2, "B": 0, "C": 3, "D": 0, "E": 1, "F": 0, "G": 3}
RANKING = ["B", "A", "C", "D", "E", "F"]


def d(rank: int) -> float:
    """The log2 discount, by hand."""
    return 1 / math.log2(rank + 1)


def stated() -> dict[str, float]:
    """'Answer N: value' as the page writes them."""
    text = PAGE.read_text(encoding="utf-8")
    return {key: float(value) for key, value in re.findall(r"Answer (\w+): ([0-9.]+)", text)}


def _rankproof(measure: str, ranking=RANKING, protocol=None) -> float:
    run = Run.from_dict({"q": ranking})   # a list (rank order) or a mapping doc -> score
    return evaluate(Qrels.from_dict({"q": GRADES}), run, measure, protocol).mean(measure)


def answers() -> dict[str, tuple[float, float]]:
    """Answer key -> (rankproof's value, the hand computation)."""
    swapped = ["A", "B", "C", "D", "E", "F"]
    tied = {"B": 1.0, "A": 1.0, "C": 0.5, "D": 0.4, "E": 0.3, "F": 0.2}
    dcg5 = 2 * d(2) + 3 * d(3) + 1 * d(5)
    return {
        # 1: exp2 gains of B, A, C: 0, 3, 7
        "1": (_rankproof("dcg(gain=exp2)@3"), 0 * d(1) + 3 * d(2) + 7 * d(3)),
        # 2: A, C, E at ranks 1, 3, 5; R = 4 (G not returned)
        "2": (_rankproof("ap", swapped), (1 / 1 + 2 / 3 + 3 / 5) / 4),
        # 3: ideal of the returned docs: C, A, E, then grade 0
        "3": (_rankproof("ndcg@5", protocol=Protocol(ideal="retrieved")), dcg5 / (3 * d(1) + 2 * d(2) + 1 * d(3))),
        "4": (_rankproof("p@5"), 3 / 5),
        "4b": (_rankproof("r@5"), 3 / 4),
        # 5: the tie of B (0) and A (2) at the top: A first (RR 1) or B first (RR 1/2)
        "5": (_rankproof("rr", tied), (1 + 1 / 2) / 2),
    }


def test_the_page_states_every_answer():
    assert sorted(stated()) == sorted(answers())


@pytest.mark.parametrize("key", sorted(answers()))
def test_quiz_answer(key):
    computed, by_hand = answers()[key]
    value = stated()[key]
    decimals = len(str(value).split(".")[1]) if "." in str(value) else 0
    assert computed == pytest.approx(by_hand, abs=1e-12)
    assert round(by_hand, max(decimals, 1)) == pytest.approx(value, abs=1e-12), (key, by_hand, value)


def test_the_worked_numbers_in_the_text():
    """The steps' own numbers: DCG@5, ideal DCG@5, NDCG@5, AP, RR."""
    text = PAGE.read_text(encoding="utf-8")
    dcg5 = 2 * d(2) + 3 * d(3) + 1 * d(5)
    ideal5 = 3 * d(1) + 3 * d(2) + 2 * d(3) + 1 * d(4)
    for measure, by_hand in (("dcg@5", dcg5), ("ideal_dcg@5", ideal5), ("ndcg@5", dcg5 / ideal5),
                             ("ap", (1 / 2 + 2 / 3 + 3 / 5) / 4), ("rr", 1 / 2)):
        assert _rankproof(measure) == pytest.approx(by_hand, abs=1e-12)
        assert f"**{round(by_hand, 4):g}**" in text, measure


def _hook():
    spec = importlib.util.spec_from_file_location("tutorial_figures", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_hook_draws_the_pages_example():
    hook = _hook()
    assert hook.QRELS == {"q": GRADES} and hook.RANKING == RANKING
    text = PAGE.read_text(encoding="utf-8")
    assert 'Qrels.from_dict({"q": {"A": 2, "B": 0, "C": 3, "D": 0, "E": 1, "F": 0, "G": 3}})' in text
    assert 'Run.from_dict({"q": ["B", "A", "C", "D", "E", "F"]})' in text


def test_every_figure_is_drawn_and_shown():
    hook = _hook()
    made = hook.figures()
    shown = re.findall(rf"\]\({hook.FOLDER}/([\w-]+)\.svg\)", PAGE.read_text(encoding="utf-8"))
    assert sorted(shown) == sorted(made)
    for name, text in made.items():
        root = ET.fromstring(text)   # well-formed, standalone
        assert root.tag == "{http://www.w3.org/2000/svg}svg", name
        assert text.count('class="mark') >= 6, name
        assert "nan" not in re.findall(r'points="([^"]*)"', text), name
