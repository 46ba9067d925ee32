"""The report's beyond-accuracy section: expected exposure and AWRF beside the accuracy measures, and each
measure's disparity across the user groups with its interval."""

from __future__ import annotations

import re

from rankproof.cli import main


def test_the_section_shows_the_fairness_measures_and_the_disparity(tmp_path):
    (tmp_path / "qrels").write_text("u 0 a 1\nv 0 b 1\nw 0 a 1\n")
    (tmp_path / "run").write_text("u Q0 a 1 2 r\nu Q0 b 2 1 r\nv Q0 a 1 2 r\nv Q0 b 2 1 r\nw Q0 a 1 1 r\n")
    (tmp_path / "groups.csv").write_text("user,group\nu,new\nv,new\nw,old\n")
    (tmp_path / "items.csv").write_text("item,category\na,x\nb,y\n")
    out = tmp_path / "report.html"
    code = main(["report", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "rr", "-m", "ee_l",
                 "-m", "awrf(target=uniform)", "--groups", str(tmp_path / "groups.csv"), "--features",
                 str(tmp_path / "items.csv"), "-o", str(out), "--quiet"])
    assert code == 0
    text = re.sub(r"<[^>]+>", " ", out.read_text())
    section = text[text.index("Beyond accuracy"):]
    assert "ee_l" in section and "awrf(target=uniform)" in section
    # rr: u 1, v 1/2 (new: 0.75), w 1 (old): max - min 0.25; one user in old, so the interval is the
    # bootstrap of new's two users: {1, 1/2} resampled -> means 1/2, 3/4, 1 -> spreads 0, 0.25, 0.5
    row = re.search(r"rr\s+max - min\s+(\S+) \[(\S+), (\S+)\]", section)
    assert row is not None and row.group(1) == "0.2500"
    assert (row.group(2), row.group(3)) == ("0.0000", "0.5000")
    assert "bootstrap" in section and re.search(r"ee_l\s+max - min", section)
