"""tools/wrap_lines.py: long lines broken inside brackets, one line a break, the syntax tree kept."""

import ast
import importlib.util
import sys

import pytest
from paths import ROOT

_SPEC = importlib.util.spec_from_file_location("wrap_lines", ROOT / "tools" / "wrap_lines.py")
wrap_lines = sys.modules.setdefault("wrap_lines", importlib.util.module_from_spec(_SPEC))
_SPEC.loader.exec_module(wrap_lines)
wrap = wrap_lines.wrap


def _same_tree(before: str, after: str) -> bool:
    return ast.dump(ast.parse(before)) == ast.dump(ast.parse(after))


def test_a_call_breaks_at_its_last_comma_that_fits_under_the_bracket():
    source = "value = function(" + ", ".join(f"argument_{i}" for i in range(10)) + ")\n"
    assert len(source) == 17 + 10 * 10 + 9 * 2 + 2
    lines = wrap(source).splitlines()
    # 'value = function(' is 17 characters: arguments 0-6 fill 17 + 7 * 10 + 6 * 2 = 99 + ','
    assert lines == ["value = function(argument_0, argument_1, argument_2, argument_3, argument_4, "
                     "argument_5, argument_6,",
                     " " * 17 + "argument_7, argument_8, argument_9)"]
    assert _same_tree(source, "\n".join(lines))


def test_the_outer_brackets_win_where_the_rest_fits():
    source = "x = [alpha_beta_gamma(first_argument, second_argument), delta_epsilon(third_argument, " \
             "fourth_argument)]\n"
    assert wrap(source).splitlines() == ["x = [alpha_beta_gamma(first_argument, second_argument),",
                                         "     delta_epsilon(third_argument, fourth_argument)]"]


def test_a_comma_inside_a_string_is_never_a_break():
    source = "x = f('" + "a, " * 40 + "')\n"
    assert wrap(source) == source


def test_a_condition_is_bracketed_and_broken_before_its_operator():
    source = ("if first_condition_name_long and second_condition_name_long and "
              "third_condition_name_long and fourth_condition:\n    pass\n")
    lines = wrap(source).splitlines()
    assert lines[:2] == ["if (first_condition_name_long and second_condition_name_long and "
                         "third_condition_name_long",
                         "    and fourth_condition):"]
    assert _same_tree(source, wrap(source))


def test_comments_move_above_or_break_but_pinned_ones_stay():
    trailing = "x = 1  # " + "word " * 20 + "\n"
    assert wrap(trailing).splitlines()[-1] == "x = 1"
    pinned = "x = 1  # noqa: E501 " + "word " * 20 + "\n"
    assert wrap(pinned) == pinned
    full = "    # " + "word " * 25 + "end\n"
    lines = wrap("if x:\n" + full + "    pass\n").splitlines()
    assert [len(line) <= 100 for line in lines] == [True] * 4
    # the first comment line keeps 19 words (6 + 19 * 5 - 1 = 100 characters), the rest goes below
    assert lines[2] == "    # " + "word " * 6 + "end"


def test_a_second_run_changes_nothing_and_short_lines_are_untouched():
    source = ("def f(a, b):\n    return compute(a, b, " + ", ".join(f"k{i}=v{i}" for i in range(20))
              + ")\n\nshort = call(1, 2)\n")
    once = wrap(source)
    assert once != source and wrap(once) == once
    assert once.endswith("short = call(1, 2)\n")


def test_it_refuses_a_change_of_the_syntax_tree(monkeypatch):
    monkeypatch.setattr(wrap_lines, "_one_pass", lambda source, limit: "x = 2\n")
    with pytest.raises(ValueError, match="syntax tree"):
        wrap("x = 1\n")


def test_a_cython_signature_is_broken_inside_its_brackets_and_checked_by_tokens(monkeypatch):
    source = ("cdef inline double _gain(double grade, int64_t kind, const double* table, "
              "int64_t table_size) noexcept nogil:\n    return 0\n")
    assert wrap(source, cython=True).splitlines()[:2] == [
        "cdef inline double _gain(double grade, int64_t kind, const double* table,",
        "                         int64_t table_size) noexcept nogil:"]
    monkeypatch.setattr(wrap_lines, "_one_pass_cython", lambda source, limit: "cdef int x = 2\n")
    with pytest.raises(ValueError, match="tokens"):
        wrap("cdef int x = 1\n", cython=True)


def test_a_comprehension_target_and_lambda_parameters_are_never_split():
    source = ("per_collection = {c: dict(zip(names, matrix.mean(axis=0).tolist())) for c, (names, matrix) "
              "in paired.items()}\n")
    lines = wrap(source).splitlines()
    assert lines == ["per_collection = {c: dict(zip(names, matrix.mean(axis=0).tolist()))",
                     "                  for c, (names, matrix) in paired.items()}"]


def test_a_line_with_a_comment_tools_read_is_left_to_a_person():
    arguments = ", ".join(f"argument_{i}" for i in range(8))
    source = "value = function(" + arguments + ")  # type: ignore[arg-type]\n"
    assert len(source.split("  #")[0]) > 100
    assert wrap(source) == source
