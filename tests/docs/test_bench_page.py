"""The benchmark page (scripts/docs/bench_page.py) from results files in the shared schema, written in tmp_path
by benchmarks/results.py's own writer."""

from __future__ import annotations

import importlib.util
import json
import sys
import xml.etree.ElementTree as ET

import pytest

from paths import ROOT

sys.path.insert(0, str(ROOT / "scripts" / "docs"))

import bench_page  # noqa: E402

# benchmarks/results.py by its path (a module named `results` could be tests/results/ on the path)
_spec = importlib.util.spec_from_file_location("benchmark_results", ROOT / "benchmarks" / "results.py")
assert _spec is not None and _spec.loader is not None
writer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(writer)
row, write_results = writer.row, writer.write_results

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def folder(tmp_path):
    rows = []
    for size, ours, peer in ((1000, 0.5, 2.0), (10000, 2.0, 10.0)):
        rows.append(row(f"{size} lines", "rankproof", ours, size=size, size_unit="lines", runs=[ours, ours * 1.2],
                        peak_mb=50.0 + size / 1000))
        rows.append(row(f"{size} lines", "ranx", peer, size=size, size_unit="lines", runs=[peer], peak_mb=None,
                        note="binary relevance only"))
    write_results(tmp_path / "speed.json", benchmark="speed", title="Speed on TREC files", rows=rows,
                  command="python benchmarks/speed.py --json benchmarks/results/speed.json")
    write_results(tmp_path / "cold.json", benchmark="cold", title="No sizes", rows=[row("one", "rankproof", 1.0)])
    (tmp_path / "broken.json").write_text('{"benchmark": "x", "rows": []}')
    (tmp_path / "notjson.json").write_text("{")
    return tmp_path


def test_every_file_and_row_is_on_the_page(folder):
    documents = bench_page.load(folder)
    page = bench_page.render(documents)
    speed = json.loads((folder / "speed.json").read_text())
    assert "## Speed on TREC files" in page and "## No sizes" in page
    assert speed["date"] in page and speed["machine"]["cpu"] in page
    assert "python benchmarks/speed.py --json benchmarks/results/speed.json" in page
    # 1000 lines in 0.5 s: 2,000 lines/s; ranx 4x rankproof's time at 1000 lines, 5x at 10000
    assert "| rankproof | 0.5 (0.5, 0.6) | 2,000 lines/s | 51 |  |  |" in page
    assert "| ranx | 2 | 500 lines/s |  | 4.00 | binary relevance only |" in page
    assert "| ranx | 10 | 1,000 lines/s |  | 5.00 | binary relevance only |" in page
    # the two files that do not follow the schema are named with the reason, not dropped
    assert "## Files not shown" in page
    assert "broken.json: no title, date, command, machine" in page
    assert "notjson.json:" in page


def test_plots_are_well_formed_svg_with_a_line_per_tool(folder):
    page = bench_page.render(bench_page.load(folder))
    plots = [line for line in page.splitlines() if line.startswith("<svg")]
    assert len(plots) == 2  # throughput and memory of the file with sizes; none for the file without
    throughput, memory = (ET.fromstring(svg) for svg in plots)
    assert "throughput" in throughput.find(f"{SVG}title").text
    assert len(throughput.findall(f"{SVG}polyline")) == 2  # rankproof and ranx, two sizes each
    assert len(throughput.findall(f"{SVG}circle")) == 4
    assert len(memory.findall(f"{SVG}polyline")) == 1  # ranx has no peak memory
    assert "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")  # nothing loaded from a network


def test_no_results_yet(tmp_path):
    assert "No results yet" in bench_page.render(bench_page.load(tmp_path))


def test_the_committed_results_render():
    documents = bench_page.load(ROOT / "benchmarks" / "results")
    assert documents and not [d for d in documents if isinstance(d, bench_page.Problem)]
    page = bench_page.render(documents)
    assert page.count("<svg") >= 1
