"""The HTML report: structure, numbers, self-containment, and a real browser.

Expected numbers come from the JSON outputs of ``rankproof evaluate`` and
``rankproof compare`` (other commands, other renderers) and from
``rankproof.explain`` for the drill-down; the browser tests load the page in
Debian's headless Chromium with the network cut off (``--dump-dom`` after the
page's script ran, with the console on stderr; and the DevTools protocol over
``--remote-debugging-pipe``, standard library only, to choose a query in the
select), and skip (saying why) where no Chromium is installed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

import rankproof
from rankproof import Qrels, Run, compare, evaluate
from rankproof.cli.app import main
from rankproof.explain.explanation import explain
from rankproof.report.html import SECTIONS

from browser import CHROMIUM, DevTools, needs_chromium
from paths import CRANFIELD

QRELS = CRANFIELD / "qrels.txt"
RUN_FILES = [CRANFIELD / f"{name}.run" for name in ("bm25", "tfidf", "lmdirichlet")]
RESAMPLES = "1000"  # the same in the report and in compare, so their numbers must agree


class _Page(HTMLParser):
    """Every element's tag and attributes, and the text of the scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.scripts: dict[str, str] = {}
        self._script: str | None = None
        self._text: list[str] = []
        self._cell: dict | None = None
        self.cells: list[tuple[dict, str]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.elements.append((tag, attributes))
        if tag == "script":
            self._script = attributes.get("id", f"script{len(self.scripts)}")
            self._text = []
        if tag == "td" and "data-key" in attributes:
            self._cell, self._text = attributes, []

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts[self._script] = "".join(self._text)
            self._script = None
        if tag == "td" and self._cell is not None:
            self.cells.append((self._cell, "".join(self._text).strip()))
            self._cell = None

    def handle_data(self, data):
        if self._script is not None or self._cell is not None:
            self._text.append(data)

    def ids(self) -> set[str]:
        return {a["id"] for _, a in self.elements if "id" in a}


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


def _cli_json(capsys, *args) -> dict:
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def segments_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("segments") / "segments.txt"
    path.write_text("# query segment\n" + "".join(f"{q} {'short' if q % 3 else 'long'}\n" for q in range(1, 226)))
    return path


@pytest.fixture(scope="module")
def cranfield_report(tmp_path_factory, segments_file) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    code = main(["report", str(QRELS), *map(str, RUN_FILES), "--baseline", "bm25.run", "--resamples", RESAMPLES,
                 "--segments", str(segments_file), "-o", str(out)])
    assert code == 0
    return out


# -- structure --------------------------------------------------------------------------
def test_page_parses_and_has_every_section(cranfield_report):
    page = _parse(cranfield_report.read_text(encoding="utf-8"))
    assert set(SECTIONS) <= page.ids()
    figures = [a["data-figure"] for tag, a in page.elements if tag == "svg" and "data-figure" in a]
    for prefix in ("cutoff-", "hist-", "diff-", "judged", "pr", "gain", "discount", "cumulative", "segments-"):
        assert any(f.startswith(prefix) for f in figures), prefix


def test_no_external_url(cranfield_report):
    text = cranfield_report.read_text(encoding="utf-8")
    page = _parse(text)
    for tag, attributes in page.elements:
        for name in ("src", "href", "xlink:href", "action", "data", "poster"):
            value = attributes.get(name)
            if value is not None:
                assert value.startswith("#") or value.startswith("data:"), (tag, name, value)
    # No URL anywhere but the SVG namespace the script names when it draws.
    assert set(re.findall(r"(?:https?:)?//[\w.-]+\.\w+", text)) <= {"http://www.w3.org"}
    assert "@import" not in text and "url(" not in text
    csp = [a["content"] for tag, a in page.elements
           if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]


def test_header_states_protocol_files_and_command(cranfield_report):
    text = cranfield_report.read_text(encoding="utf-8")
    import hashlib

    assert rankproof.Protocol().fingerprint in text and str(rankproof.Protocol()) in text
    assert f"rankproof {rankproof.__version__}" in text
    for path in [QRELS, *RUN_FILES]:
        content = path.read_bytes()
        assert hashlib.sha256(content).hexdigest()[:16] in text
        lines = content.count(b"\n")
        assert f"<td>{lines:,}</td>" in text
    assert "rankproof report " in text and "--baseline bm25.run" in text


def test_summary_numbers_equal_the_json_outputs(cranfield_report, capsys):
    runs = list(map(str, RUN_FILES))
    evaluated = _cli_json(capsys, "evaluate", str(QRELS), *runs, "--format", "json")
    compared = _cli_json(capsys, "compare", str(QRELS), *runs, "--baseline", "bm25.run", "--resamples", RESAMPLES,
                         "--format", "json")
    page = _parse(cranfield_report.read_text(encoding="utf-8"))
    cells = {(a["data-key"], a["data-run"], a["data-measure"]): (a, text) for a, text in page.cells}
    means = {(run, m): v for run, doc in evaluated["runs"].items() for m, v in doc["mean"].items()}
    assert len(means) == 12
    for (run, measure), value in means.items():
        attributes, text = cells[("mean", run, measure)]
        assert float(attributes["data-value"]) == value
        assert text == f"{value:.4f}"
    rows = compared["rows"]
    assert len(rows) == 8
    for row in rows:
        # compare labels runs without the extension; the report, like evaluate, by file name.
        assert row["run_a"] == "bm25"
        key = lambda name: cells[(name, row["run_b"] + ".run", row["measure"])]  # noqa: E731
        mark = "*" if row["significant"] else ""
        assert float(key("difference")[0]["data-value"]) == row["difference"]
        assert key("difference")[1] == f"{row['difference']:+.4f}{mark}"
        assert float(key("p_corrected")[0]["data-value"]) == row["p_corrected"]
        assert float(key("effect_size")[0]["data-value"]) == row["effect_size"]
        assert key("queries_needed")[0]["data-value"] == repr(row["queries_needed"])
        assert key("wtl")[1] == f"{row['wins']}/{row['ties']}/{row['losses']}"
        assert float(key("ci")[0]["data-low"]) == row["ci_low"]
        assert float(key("ci")[0]["data-high"]) == row["ci_high"]
    # The three significant lmdirichlet rows of the README's table are marked.
    assert sum(1 for row in rows if row["significant"]) == 4


def test_drill_down_data_equals_explain(cranfield_report):
    page = _parse(cranfield_report.read_text(encoding="utf-8"))
    drill = json.loads(page.scripts["drill-data"])
    assert drill["measure"] == "ndcg@10" and drill["depth"] == 20
    assert len(drill["queries"]) == 225 and drill["queries"][:3] == ["1", "2", "3"]
    qrels = Qrels.read_trec(QRELS)
    for name, path in (("bm25.run", RUN_FILES[0]), ("lmdirichlet.run", RUN_FILES[2])):
        run = Run.read_trec(path)
        for query in ("1", "57", "225"):
            e = explain(qrels, run, query, "ndcg@10")
            rows = drill["rankings"][name][drill["queries"].index(query)]
            assert [r[0] for r in rows] == [row.doc for row in e.ranking[:20]]
            assert [r[1] for r in rows] == [row.grade for row in e.ranking[:20]]
            assert [r[3] for r in rows] == pytest.approx([row.contribution for row in e.ranking[:20]], abs=5e-5)
            assert [r[4] for r in rows] == pytest.approx([row.cumulative for row in e.ranking[:20]], abs=5e-5)
            assert drill["values"][name][drill["queries"].index(query)] == pytest.approx(e.value, abs=5e-5)
        ideal = drill["ideal"][drill["queries"].index("1")]
        if name == "lmdirichlet.run":  # every query: the discount shown is explain's (tied groups share theirs)
            tied = 0
            for at, query in enumerate(drill["queries"]):
                shown = [r[5] if len(r) > 5 else (drill["discount"][j] if j < drill["k"] else 0)
                         for j, r in enumerate(drill["rankings"][name][at])]
                tied += sum(len(r) > 5 for r in drill["rankings"][name][at])
                want = [row.discount for row in explain(qrels, run, query, "ndcg@10").ranking[:20]]
                assert shown == pytest.approx(want, abs=5e-5), query
            assert tied > 0  # lmdirichlet has tied scores inside the top 20
        assert [r[0] for r in ideal] == [row.doc for row in explain(qrels, run, "1", "ndcg@10").ideal]


def test_output_gets_the_mode_of_a_new_file(cranfield_report):
    # Written through a private temporary file, the page must still be readable as any new file is.
    mask = os.umask(0)
    os.umask(mask)
    assert cranfield_report.stat().st_mode & 0o777 == 0o666 & ~mask


def test_page_weight_stays_light(cranfield_report):
    # The drill-down keeps the top 20 of each ranking: about 0.7 MB for 225 queries x 3 runs.
    assert cranfield_report.stat().st_size < 1_500_000


@pytest.mark.slow
def test_many_queries_keep_the_page_light(tmp_path):
    import numpy as np

    rng = np.random.default_rng(7)
    queries = [f"q{i}" for i in range(6000)]
    qrels = Qrels.from_dict({q: {f"d{j}": int(rng.integers(0, 3)) for j in range(8)} for q in queries})
    runs = {name: Run.from_dict({q: [f"d{j}" for j in rng.permutation(30)] for q in queries})
            for name in ("a", "b", "c")}
    page = rankproof.report(qrels, runs, ["ndcg@10", "ap"], n_resamples=200)
    # 6000 queries x 3 runs: a full drill-down and a bar per query would weigh ~20 MB.
    assert len(page.encode()) < 2_500_000
    parsed = _parse(page)
    drill = json.loads(parsed.scripts["drill-data"])
    # 50,000 rows at depth 5 for 3 runs: 3,333 queries.
    assert drill["depth"] == 5 and len(drill["queries"]) == 3333 and "keeps the 3,333 of 6,000" in drill["note"]
    bars = sum(1 for tag, a in parsed.elements if tag == "rect" and a.get("data-query"))
    assert 0 < bars <= 2 * 2 * 600


def test_ids_and_names_with_markup_are_escaped():
    nasty = '</script><script>alert("q")</script>&amp;'
    qrels = Qrels.from_dict({nasty: {"<b>d</b>": 1, "e": 0}, "q2": {"e": 1}})
    runs = {'<i>run</i> "A"': Run.from_dict({nasty: ["<b>d</b>", "e"], "q2": ["e"]}),
            "B&B": Run.from_dict({nasty: ["e", "<b>d</b>"], "q2": ["x", "e"]})}
    page = rankproof.report(qrels, runs, ["ndcg@10"], n_resamples=100)
    parsed = _parse(page)
    assert [tag for tag, _ in parsed.elements].count("script") == 3  # drill data, colours, the page's script
    drill = json.loads(parsed.scripts["drill-data"])
    assert nasty in drill["queries"] and drill["runs"] == ['<i>run</i> "A"', "B&B"]
    assert drill["rankings"]['<i>run</i> "A"'][drill["queries"].index(nasty)][0][0] == "<b>d</b>"
    assert "<i>run</i>" not in page and "<b>d</b>" not in page  # escaped in the HTML, "\\u003c" in the JSON


def test_a_comment_opener_in_an_id_keeps_the_embedded_json_valid():
    # issue 28: "<!--" was written as "<\\!--", which is no JSON escape: the drill-down never rendered.
    odd = "q<!--1"
    qrels = Qrels.from_dict({odd: {"d<!--": 1, "e": 0}, "q2": {"e": 1}})
    run = Run.from_dict({odd: ["e", "d<!--"], "q2": ["e"]})
    page = rankproof.report(qrels, {"A<!--": run, "B": run}, ["ndcg@10"], n_resamples=50)
    parsed = _parse(page)
    embedded = {name: text for name, text in parsed.scripts.items() if not name.startswith("script")}
    assert len(embedded) == 2
    for text in embedded.values():
        json.loads(text)   # every embedded JSON parses
    drill = json.loads(parsed.scripts["drill-data"])
    assert sorted(drill["queries"]) == sorted([odd, "q2"]) and drill["runs"] == ["A<!--", "B"]
    assert drill["rankings"]["A<!--"][drill["queries"].index(odd)][1][0] == "d<!--"
    assert "<!--1" not in page


def test_many_queries_switch_the_intervals_to_the_normal_one_and_say_so(monkeypatch):
    import rankproof.stats.segments

    # As if 225 queries were many (stats' switch for a mean's interval): the page says what it used.
    monkeypatch.setattr(rankproof.stats.segments, "MIN_QUERIES", 100)
    results = evaluate(Qrels.read_trec(QRELS), Run.read_trec(RUN_FILES[0]), ["ndcg@10"])
    page = results.to_html()
    (cell,) = [a for a, _ in _parse(page).cells if a["data-key"] == "mean_ci"]
    values = results.values("ndcg@10")
    if "interval of each mean, intervals: normal" in page:
        half = 1.959963984540054 * values.std(ddof=1) / len(values) ** 0.5
        assert float(cell["data-low"]) == pytest.approx(values.mean() - half, rel=1e-3)
        assert float(cell["data-high"]) == pytest.approx(values.mean() + half, rel=1e-3)
    else:   # the skewness check kept the bootstrap: the page says so
        assert "interval of each mean: percentile bootstrap over queries" in page


def test_python_entry_points(tmp_path):
    qrels = Qrels.read_trec(QRELS)
    runs = {"bm25": Run.read_trec(RUN_FILES[0]), "tfidf": Run.read_trec(RUN_FILES[1])}
    out = tmp_path / "r.html"
    page = rankproof.report(qrels, runs, ["ndcg@10", "rr"], n_resamples=200, output=out)
    assert out.read_text(encoding="utf-8") == page
    assert {"header", "summary", "drill", "how"} <= _parse(page).ids()
    results = evaluate(qrels, runs["bm25"], ["ndcg@10", "ap"])
    single = _parse(results.to_html())
    assert {"header", "counts", "summary", "distribution"} <= single.ids()
    cells = {(a["data-key"], a["data-measure"]): float(a["data-value"]) for a, _ in single.cells if "data-value" in a}
    assert cells[("mean", "ndcg@10")] == results.mean("ndcg@10")
    comparison = compare(qrels, runs, ["ndcg@10"], n_resamples=200)
    both = _parse(comparison.to_html())
    assert "summary" in both.ids()
    row = comparison.rows[0]
    diff = next(float(a["data-value"]) for a, _ in both.cells if a["data-key"] == "difference")
    assert diff == row.difference
    for shown in (results._repr_html_(), comparison._repr_html_()):
        assert shown.startswith("<iframe") and "srcdoc=" in shown
    # The package stays a package: its renderer modules are reachable by attribute.
    assert rankproof.report.table.to_table and rankproof.report.html.render


def test_labels_name_the_runs(tmp_path):
    out = tmp_path / "labelled.html"
    assert main(["report", str(QRELS), str(RUN_FILES[0]), str(RUN_FILES[1]), "--label", f"BM25={RUN_FILES[0]}",
                 "--label", "TF-IDF=tfidf.run", "--baseline", "TF-IDF", "-m", "ndcg@10", "--resamples", "200",
                 "-o", str(out)]) == 0
    page = _parse(out.read_text(encoding="utf-8"))
    runs = {a["data-run"] for a, _ in page.cells}
    assert runs == {"BM25", "TF-IDF"}
    assert any(a["data-key"] == "difference" and a["data-run"] == "BM25" for a, _ in page.cells)


@pytest.mark.parametrize("args, message", [
    (["--label", "nope"], "--label 'nope': write NAME=RUN"),
    (["--label", "x=missing.run"], "missing.run is not one of the runs given"),
    (["--baseline", "nope"], "baseline 'nope' is not one of the runs"),
    (["-m", "ndgc@10"], "ndgc"),
])
def test_bad_options_exit_2_with_one_line(tmp_path, capsys, args, message):
    out = tmp_path / "r.html"
    code = main(["report", str(QRELS), str(RUN_FILES[0]), str(RUN_FILES[1]), *args, "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1
    assert not out.exists()


def test_micro_aggregation_leaves_out_what_it_cannot_give_and_says_so(tmp_path):
    out = tmp_path / "micro.html"
    assert main(["report", str(QRELS), str(RUN_FILES[0]), str(RUN_FILES[1]), "-m", "ndcg@10",
                 "--policy", "aggregation=micro", "--resamples", "200", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "Not in this page: significance against the baseline" in text
    assert "no precision-recall curves under aggregation=micro" in text
    qrels, run = Qrels.read_trec(QRELS), Run.read_trec(RUN_FILES[0])
    micro = evaluate(qrels, run, ["ndcg@10"], rankproof.Protocol(aggregation="micro")).mean("ndcg@10")
    cell = next(a for a, _ in _parse(text).cells if a["data-key"] == "mean" and a["data-run"] == "bm25.run")
    assert float(cell["data-value"]) == micro


def test_bad_segments_file_names_file_and_line(tmp_path, capsys):
    segments = tmp_path / "seg.txt"
    segments.write_text("1 short\n2\n")
    code = main(["report", str(QRELS), str(RUN_FILES[0]), "--segments", str(segments), "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 2 and f"{segments}:2" in err and err.count("\n") == 1


def test_segments_from_json_and_their_errors(tmp_path):
    from rankproof.errors import InputError
    from rankproof.report.figures import read_segments

    good = tmp_path / "seg.json"
    good.write_text('{"1": "short", "2": 7}')
    assert read_segments(good) == {"1": "short", "2": "7"}
    for text, message in (('["1"]', "expected a JSON object"), ("{", "not valid JSON")):
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        with pytest.raises(InputError, match=message):
            read_segments(bad)
    twice = tmp_path / "twice.txt"
    twice.write_text("1 a\n1 b\n")
    with pytest.raises(InputError, match=r"twice.txt:2: query 1 is given two segments"):
        read_segments(twice)


def test_output_folder_must_exist_and_nothing_is_left_behind(tmp_path, capsys):
    code = main(["report", str(QRELS), str(RUN_FILES[0]), "-o", str(tmp_path / "no" / "r.html")])
    assert code == 2 and "does not exist" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# -- a real browser ---------------------------------------------------------------------


def _load(url: str, profile: Path) -> tuple[str, str]:
    """Load `url` in headless Chromium with the network cut off; return (DOM after the scripts ran, log)."""
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}",
               # No network: every host resolves to nothing and every request would go to a dead proxy.
               "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
               "--enable-logging=stderr", "--v=0", "--dump-dom", url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr


def _console_errors(log: str) -> list[str]:
    return [line for line in log.splitlines()
            if "Uncaught" in line or ("CONSOLE" in line and ":ERROR:" in line) or "Refused to" in line]


@needs_chromium
def test_the_console_check_catches_a_script_error(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><p>x</p><script>notDefinedAnywhere();</script></body></html>")
    _, log = _load(page.as_uri(), tmp_path / "profile")
    assert _console_errors(log), log[-2000:]


@needs_chromium
def test_browser_renders_every_figure_without_errors(cranfield_report, tmp_path):
    dom, log = _load(cranfield_report.as_uri() + "#query=57", tmp_path / "profile")
    assert _console_errors(log) == []
    page = _parse(dom)
    drawn: dict[str, int] = {}
    current = None
    for tag, attributes in page.elements:
        if tag == "svg" and "data-figure" in attributes:
            current = attributes["data-figure"]
            drawn[current] = 0
        elif current is not None and "mark" in attributes.get("class", "").split():
            drawn[current] += 1
    assert drawn and all(count > 0 for count in drawn.values()), {f: c for f, c in drawn.items() if not c}
    # Three runs over 50 cutoffs: a line and 50 points each.
    assert drawn["cutoff-ndcg"] == 3 * 51
    # The cumulative DCG (drawn by the script): a line and a point per rank, for each run and the ideal.
    drill = json.loads(page.scripts["drill-data"])
    at = drill["queries"].index("57")
    lengths = [len(drill["rankings"][run][at]) for run in drill["runs"]] + [len(drill["ideal"][at])]
    # Every curve stops at the cutoff k, as the measure does (issue 28: runs no longer go on flat past it).
    k = drill["k"]
    lengths = [min(n, k) if k is not None else n for n in lengths]
    assert drawn["cumulative"] == sum(n + 1 for n in lengths) and min(lengths) > 0


@needs_chromium
def test_drill_down_control_changes_the_shown_query(cranfield_report, tmp_path):
    drill = json.loads(_parse(cranfield_report.read_text(encoding="utf-8")).scripts["drill-data"])
    shown = {}
    for query in ("12", "200"):
        dom, log = _load(cranfield_report.as_uri() + f"#query={query}", tmp_path / f"profile{query}")
        assert _console_errors(log) == []
        page = _parse(dom)
        section = next(a for tag, a in page.elements if a.get("id") == "drill")
        rankings = [a for tag, a in page.elements if tag == "div" and "ranking" in a.get("class", "").split()
                    and "data-run" in a]
        assert section["data-query"] == query
        assert [a["data-query"] for a in rankings] == [query] * 3
        # The first rows shown are the query's ranking in the embedded data.
        expected = [row[0] for row in drill["rankings"]["bm25.run"][drill["queries"].index(query)][:3]]
        assert all(f"<td class=\"text\">{doc}</td>" in dom for doc in expected)
        shown[query] = dom[dom.index('id="drill-rankings"'):]
    assert shown["12"] != shown["200"]


@needs_chromium
def test_choosing_a_query_in_the_select_shows_its_rankings(cranfield_report, tmp_path):
    drill = json.loads(_parse(cranfield_report.read_text(encoding="utf-8")).scripts["drill-data"])
    browser = DevTools(tmp_path / "profile")
    try:
        session = browser.open(cranfield_report.as_uri())
        browser.evaluate(session, "new Promise(r => { const t = () => document.getElementById('drill').dataset.query "
                                  "? r(1) : setTimeout(t, 50); t(); })")   # the drill-down's script has run
        assert browser.evaluate(session, "document.getElementById('drill').dataset.query") == drill["queries"][0]
        # The user picks query 100 in the drill-down's select.
        shown = browser.evaluate(session, """(() => {
            const select = document.querySelectorAll('#drill select.query')[0];
            select.value = '100';
            select.dispatchEvent(new Event('change'));
            const first = document.querySelector('#drill-rankings .ranking[data-run="bm25.run"] tr:nth-child(2)');
            return {query: document.getElementById('drill').dataset.query,
                    other: document.querySelector('#how select.query').value,
                    chart: document.getElementById('cumulative').dataset.query,
                    firstDoc: first.children[1].textContent};
        })()""")
        at = drill["queries"].index("100")
        assert shown == {"query": "100", "other": "100", "chart": "100",
                         "firstDoc": drill["rankings"]["bm25.run"][at][0][0]}
        errors = [e for e in browser.events
                  if e.get("method") == "Runtime.exceptionThrown"
                  or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")]
        assert errors == []
    finally:
        browser.close()


def test_segments_split_at_ascii_blanks_and_newlines_only(tmp_path):
    # issue 28: a non-breaking space inside an id split it from its segment, and a NEL
    # (U+0085) was taken for a line end, shifting every later line number.
    from rankproof.report.figures import read_segments

    path = tmp_path / "seg.txt"
    path.write_text("a\u00a0b short\nq\u0085x long one\n3\tmid\n", encoding="utf-8")
    assert read_segments(path) == {"a\u00a0b": "short", "q\u0085x": "long one", "3": "mid"}
    path.write_text("1 short\n2\u0085 x\n3\n", encoding="utf-8")
    from rankproof.errors import InputError
    with pytest.raises(InputError) as caught:
        read_segments(path)
    assert f"{path}:3" in str(caught.value)
