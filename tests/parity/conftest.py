"""Prints the differential parity suite's case counts after the run (cases.COUNTS)."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter) -> None:
    from parity.cases import COUNTS

    if not COUNTS:
        return
    terminalreporter.section("differential parity: cases per framework")
    for framework, counted in sorted(COUNTS.items()):
        shown = ", ".join(f"{key} {value}" for key, value in sorted(counted.items()))
        terminalreporter.write_line(f"{framework}: {shown}")
