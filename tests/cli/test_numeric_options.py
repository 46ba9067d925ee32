"""Every numeric option of every command is checked against its domain when parsed (issue 36).

The options are enumerated from the parser itself, so a new option with a bare
``type=int`` / ``type=float`` (or a numeric default and no type) fails
:func:`test_every_numeric_option_has_a_domain`. Each domain is then probed just
outside its bounds, with non-numbers and non-finite values: one line, exit 2, the flag named.
"""

from __future__ import annotations

import argparse

import pytest

from rankproof.cli.app import main
from rankproof.cli.parser import COMMAND_MODULES, build_parser

# Options holding a number that is not a plain int/float (a size, a drop) and whose type says so.
WORDED = {"--memory-budget": ("0", "-1GB", "2 parsecs", "nan"), "--max-drop": ("-1%", "-0.5", "nan", "inf", "5 %%")}


def _options():
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if action.option_strings and action.nargs != 0 and not isinstance(action, argparse._HelpAction):
                yield name, action


def _numeric(action) -> bool:
    default = action.default
    return (action.type in (int, float) or hasattr(action.type, "domain")
            or (isinstance(default, (int, float)) and not isinstance(default, bool)))


NUMERIC = [(name, action) for name, action in _options() if _numeric(action)]


def test_the_enumeration_sees_every_command_and_the_known_options():
    seen = {(name, action.option_strings[-1]) for name, action in NUMERIC}
    assert {name for name, _ in seen} >= {"compare", "systems", "monitor", "fit-pbm", "agree", "evaluate"}
    assert {("systems", "--risk-alpha"), ("fit-pbm", "--tolerance"), ("monitor", "--max-drop"),
            ("evaluate", "--memory-budget"), ("evaluate", "--precision"), ("why", "--top")} <= seen
    assert set(COMMAND_MODULES) - {"trec-eval"} >= {name for name, _ in seen}


@pytest.mark.parametrize("name, action", NUMERIC, ids=[f"{n} {a.option_strings[-1]}" for n, a in NUMERIC])
def test_every_numeric_option_has_a_domain(name, action):
    assert hasattr(action.type, "domain"), (
        f"rankproof {name} {action.option_strings[-1]} takes a number without a domain: give it a "
        "type from rankproof.cli.usage (number_option, count_option, fraction_option, ...)")
    if action.default is not None and not isinstance(action.default, str):
        # The default itself lies in the domain (a default outside it would be refused if typed).
        assert action.type(str(action.default)) == action.default


def _outside(action) -> list[str]:
    """Values just outside the option's domain, worked from its bounds (not from the code's check)."""
    flag = action.option_strings[-1]
    if flag in WORDED:
        return list(WORDED[flag])
    low, high, open_low, open_high, integer = action.type.bounds
    values = ["ten", "nan", "inf", "-inf", ""]
    if low is not None:
        values.append(str(low) if open_low else str(low - (1 if integer else 0.001)))
    if high is not None:
        values.append(str(high) if open_high else str(high + (1 if integer else 0.001)))
    if integer:
        values += ["1.5", "9" * 5000]
    return values


CASES = [(name, action.option_strings[-1], value) for name, action in NUMERIC if hasattr(action.type, "domain")
         for value in _outside(action)]


@pytest.mark.parametrize("command, flag, value", CASES, ids=[f"{c} {f} {v[:12]!r}" for c, f, v in CASES])
def test_a_value_outside_the_domain_is_refused_when_parsed(command, flag, value, tmp_path, capsys):
    # Missing files: a refusal at parse time comes before any file is opened.
    code = main([command, f"{flag}={value}", str(tmp_path / "missing1"), str(tmp_path / "missing2")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert f"argument {flag}" in err or "argument -k" in err, err
    assert "is needed" in err and "missing1" not in err, err


@pytest.mark.parametrize("text, bounds, good, bad", [
    ("a number between 0 and 1 (both excluded)", (0, 1, True, True, False), ["0.5", "1e-9"], ["0", "1"]),
    ("an integer >= 1", (1, None, False, False, True), ["1", "10000"], ["0", "-1", "2.0"]),
    ("a number >= 0", (0, None, False, False, False), ["0", "1e300"], ["-1e-300", "1e400"]),
    ("an integer between 0 and 17 (both included)", (0, 17, False, False, True), ["0", "17"], ["18", "-1"]),
])
def test_number_option_reads_its_domain(text, bounds, good, bad):
    from rankproof.cli.usage import number_option

    low, high, open_low, open_high, integer = bounds
    read = number_option("--x", low, high, open_low=open_low, open_high=open_high, integer=integer)
    assert read.domain == text
    for value in good:
        read(value)
    for value in bad:
        with pytest.raises(argparse.ArgumentTypeError, match="is needed"):
            read(value)
