"""Wrap the Python lines over a length limit, one line added per break (a dev tool, not shipped).

For every physical line longer than the limit (100 characters), the wrapper breaks it at the
last place inside brackets that lets the first part fit: after a comma, or before a binary
operator (``and``, ``or``, ``+``, ``==``, a comprehension's ``for``/``if``, ...). The rest goes
on ONE new line, aligned under the opening bracket (or one level deeper than the line that holds
a hanging bracket); if that line is still too long it is broken again the same way. It never
breaks inside a string, an f-string or a comment, and never outside brackets (no backslashes);
a long one-line statement with no bracket gets a pair around its expression (the syntax tree is
the same) when that lets it break. What it cannot reach is left as it is and listed by
``--check``. A comment over the limit goes above its code, or is broken in two.

A file is written only if its syntax tree is unchanged (``ast.dump`` before == after) and the
wrapper is idempotent (a second run changes nothing): both are checked before writing. Cython files
(``.pyx``, ``.pxd``), which ``ast`` cannot read, are wrapped without adding brackets and checked by
their tokens instead: the same tokens in the same order, comments and line breaks aside (a break
inside brackets is not a token the compiler reads).

Usage::

    python tools/wrap_lines.py src/rankproof            # rewrite the files in place
    python tools/wrap_lines.py --check src/rankproof    # write nothing; count and list what is left
    python tools/wrap_lines.py --limit 100 FILE ...
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

LIMIT = 100
OPENING = {"(": ")", "[": "]", "{": "}"}
CLOSING = {")", "]", "}"}
# Binary operators a line may be broken before (PEP 8: the operator starts the new line).
BINARY = {"+", "-", "*", "/", "//", "%", "@", "|", "&", "^", "<<", ">>",
          "==", "!=", "<", ">", "<=", ">=", "**"}
KEYWORDS = {"and", "or", "if", "else", "for"}
COMPOUND = ("def ", "async def ", "if ", "elif ", "while ", "for ", "with ", "class ")


@dataclass(frozen=True)
class _Bracket:
    row: int  # 1-based line of the opening bracket
    col: int  # its column
    hanging: bool  # nothing follows it on its line


@dataclass(frozen=True)
class _Break:
    col: int  # the new line starts with the text from this column
    indent: int  # and is indented this far
    operator: bool  # a break before an operator (else after a comma)
    depth: int  # how many brackets are open there


def _operand_ends(token: tokenize.TokenInfo | None) -> bool:
    """Whether a token can end an operand (so that a following ``-`` or ``*`` is binary)."""
    if token is None:
        return False
    if token.type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING):
        return token.string not in {"and", "or", "not", "if", "else", "for", "in", "is",
                                    "lambda", "return", "yield", "await", "import"}
    return token.string in CLOSING or token.type == getattr(tokenize, "FSTRING_END", -1)


def _breaks(source: str) -> dict[int, list[_Break]]:
    """The places each line may be broken, by 1-based line number."""
    lines = source.splitlines()
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    stack: list[_Bracket] = []
    fstrings = 0
    previous: tokenize.TokenInfo | None = None
    out: dict[int, list[_Break]] = {}
    # Per bracket depth, the word that ends a list of names no comma there may break:
    # a comprehension's ``for a, b in`` target and a ``lambda a, b:``'s parameters.
    binding: dict[int, str] = {}
    ignorable = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)

    def indent_for(row: int) -> int | None:
        if not stack:
            return None
        bracket = stack[-1]
        if not bracket.hanging:
            return bracket.col + 1
        if bracket.row == row:  # a hanging bracket on the line being broken: one level deeper
            line = lines[row - 1]
            extra = 8 if line.lstrip().startswith(COMPOUND) else 4
            return len(line) - len(line.lstrip()) + extra
        following = lines[bracket.row]  # the first line after the bracket's own line
        return len(following) - len(following.lstrip())

    for index, token in enumerate(tokens):
        if fstring_start is not None and token.type == fstring_start:
            fstrings += 1
        elif fstring_end is not None and token.type == fstring_end:
            fstrings -= 1
        elif fstrings == 0 and token.type == tokenize.OP:
            row, col = token.start
            if token.string in BINARY and _operand_ends(previous) and stack:
                out.setdefault(row, []).append(_Break(col, indent_for(row) or 0, True, len(stack)))
            if token.string == ":" and binding.get(len(stack)) == ":":
                del binding[len(stack)]
            if token.string == "," and stack and len(stack) not in binding:
                following = tokens[index + 1] if index + 1 < len(tokens) else None
                if following is not None and following.start[0] == row and \
                        following.type not in ignorable and following.string not in CLOSING:
                    spot = _Break(following.start[1], indent_for(row) or 0, False, len(stack))
                    out.setdefault(row, []).append(spot)
            if token.string in OPENING:
                after = tokens[index + 1] if index + 1 < len(tokens) else None
                hanging = after is None or after.start[0] != row or after.type in ignorable
                stack.append(_Bracket(row, col, hanging))
            elif token.string in CLOSING and stack:
                binding.pop(len(stack), None)
                stack.pop()
        elif (fstrings == 0 and token.type == tokenize.NAME
              and token.string in ("for", "lambda", "in")):
            ending = {"for": "in", "lambda": ":"}.get(token.string)
            if ending is not None:
                binding[len(stack)] = ending
            elif binding.get(len(stack)) == "in":
                del binding[len(stack)]
            if token.string == "for" and stack and _operand_ends(previous):
                row, col = token.start
                out.setdefault(row, []).append(_Break(col, indent_for(row) or 0, True, len(stack)))
        elif fstrings == 0 and token.type == tokenize.NAME and token.string in KEYWORDS and stack:
            if _operand_ends(previous):
                row, col = token.start
                out.setdefault(row, []).append(_Break(col, indent_for(row) or 0, True, len(stack)))
        if token.type not in ignorable:
            previous = token
    return out


def _choose(line: str, candidates: list[_Break], limit: int) -> tuple[str, str] | None:
    """The two lines one break makes of ``line``, or None where no break helps."""
    best: tuple[tuple[bool, int, bool, int], str, str] | None = None
    for spot in candidates:
        head = line[:spot.col].rstrip()
        tail = " " * spot.indent + line[spot.col:].lstrip()
        if not head.strip() or not line[spot.col:].strip():
            continue
        fits = len(tail) <= limit
        if (len(head) > limit or len(tail) >= len(line) or not fits and spot.indent > limit * 6
            // 10):
            continue  # (a rest that does not fit, pushed far right, is seldom breakable again)
        # a break whose rest fits wins; then one in the outermost brackets (where the rest does
        # not fit, only if the first line is well filled), a comma before an operator, and the
        # latest break (the first line fullest)
        outer = -spot.depth if fits or len(head) >= limit * 6 // 10 else -99
        key = (fits, outer, not spot.operator, spot.col)
        if best is None or key > best[0]:
            best = (key, head, tail)
    return None if best is None else (best[1], best[2])


def _logical_lines(tokens: list[tokenize.TokenInfo]) -> list[list[tokenize.TokenInfo]]:
    """The code tokens of each logical line (comments, indents and line ends left out)."""
    out: list[list[tokenize.TokenInfo]] = [[]]
    for token in tokens:
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            out.append([])
        elif token.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            out[-1].append(token)
    return [line for line in out if line]


def _span(line: list[tokenize.TokenInfo]) -> tuple[int, int] | None:
    """Which tokens of a one-line statement hold the expression brackets may be put around.

    The names a ``from ... import`` brings in, an ``if``/``elif``/``while`` condition, what a
    ``return`` gives back, or the value of an assignment; None for any other statement.
    """
    first, depth, equals = line[0].string, 0, None
    for index, token in enumerate(line):
        if token.string in OPENING:
            depth += 1
        elif token.string in CLOSING:
            depth -= 1
        elif depth == 0 and token.type == tokenize.OP and token.string.endswith("=") and \
                token.string not in ("==", "!=", "<=", ">="):
            equals = index
    if first == "from":
        imports = [i for i, token in enumerate(line) if token.string == "import"]
        return (imports[0] + 1, len(line)) if imports and imports[0] + 1 < len(line) else None
    if first in ("if", "elif", "while") and line[-1].string == ":":
        return 1, len(line) - 1
    if first == "return":
        return 1, len(line)
    if equals is not None and first not in ("def", "class", "for", "with", "lambda", "assert", "@"):
        return equals + 1, len(line)
    return None


def _parenthesize(source: str, limit: int, alone: set[int]) -> str:
    """Put brackets around the expression of each long one-line statement that has none.

    Only where the expression can then be broken at its own top level (an ``and``, an ``or``, a
    binary operator, a comma) within the limit; brackets around an expression leave the syntax
    tree as it is.
    """
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, int]] = []  # row, where "(" goes, where ")" goes
    for line in _logical_lines(list(tokenize.generate_tokens(io.StringIO(source).readline))):
        row = line[0].start[0]
        if line[-1].end[0] != row or line[-1].end[1] <= limit or row in alone:
            continue
        span = _span(line)
        if span is None or span[0] >= span[1] or line[span[0]].string in ("(", "*", "**"):
            continue
        inner, depth, spots = line[span[0]:span[1]], 0, []
        for index, token in enumerate(inner):
            if token.string in OPENING:
                depth += 1
            elif token.string in CLOSING:
                depth -= 1
            elif depth == 0 and index and (token.string == "," or (
                    token.string in BINARY | KEYWORDS and _operand_ends(inner[index - 1]))):
                spots.append(token.start[1] + 1)
        if any(col + 1 <= limit for col in spots):
            edits.append((row, inner[0].start[1], inner[-1].end[1]))
    for row, start, end in edits:
        text = lines[row - 1]
        lines[row - 1] = text[:start] + "(" + text[start:end] + ")" + text[end:]
    return "".join(lines)



def _left_alone(source: str, limit: int) -> set[int]:
    """The lines no code break touches: those whose code fits (only a trailing comment makes them
    long; the comment pass moves it) and those with a comment a tool reads on that line."""
    lines = source.splitlines()
    return {token.start[0] for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.COMMENT and len(lines[token.start[0] - 1]) > limit
            and (len(lines[token.start[0] - 1][:token.start[1]].rstrip()) <= limit
                 or any(mark in token.string for mark in PINNED))}


# Comments that must stay where they are (tools read them on their line).
PINNED = ("noqa", "type:", "pragma", "fmt:", "pylint", "mypy:", "#!", "-*-")


def _comments(source: str, limit: int) -> str:
    """Long comments: one moved above its code line (where the code fits), or one broken in two.

    A trailing comment whose code fits goes on its own line above, at the code's indentation; a
    comment line over the limit is broken at its last space that fits, the rest on one new
    comment line. Comments never change the syntax tree.
    """
    lines = source.splitlines(keepends=True)
    inside: set[int] = set()  # rows that start inside a string of several lines
    comments: dict[int, tokenize.TokenInfo] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.end[0] > token.start[0]:
            inside.update(range(token.start[0] + 1, token.end[0] + 1))
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token
    for row in sorted(comments, reverse=True):
        token, text = comments[row], lines[row - 1]
        body = text.rstrip("\r\n")
        ending = text[len(body):] or "\n"
        if len(body) <= limit or any(mark in token.string for mark in PINNED):
            continue
        code = body[:token.start[1]].rstrip()
        indent = " " * (len(body) - len(body.lstrip()))
        if code.strip():
            if len(code) <= limit and row not in inside:
                lines[row - 1] = indent + token.string + ending + code + ending
            continue
        cut = body.rfind(" ", 0, limit + 1)
        words = body[cut + 1:].lstrip()
        if cut > len(indent) + 2 and body[:cut].strip() != "#" and words:
            lines[row - 1] = body[:cut].rstrip() + ending + indent + "# " + words + ending
    return "".join(lines)


def _one_pass(source: str, limit: int) -> str:
    return _breaking_pass(source, limit, brackets=True)


def _one_pass_cython(source: str, limit: int) -> str:
    # Added brackets are checked by the syntax tree, which Cython files lack: breaks only.
    return _breaking_pass(source, limit, brackets=False)


def _breaking_pass(source: str, limit: int, brackets: bool) -> str:
    alone = _left_alone(source, limit)
    if brackets:
        source = _parenthesize(source, limit, alone)
    lines = source.splitlines(keepends=True)
    breaks = _breaks(source)
    for row in sorted(breaks, reverse=True):
        text = lines[row - 1]
        ending = text[len(text.rstrip("\r\n")):]
        body = text.rstrip("\r\n")
        if len(body) <= limit or body.rstrip().endswith("\\") or row in alone:
            continue
        chosen = _choose(body, breaks[row], limit)
        if chosen is not None:
            lines[row - 1] = chosen[0] + ending + chosen[1] + (ending or "\n")
    return "".join(lines)


def wrap(source: str, limit: int = LIMIT, *, cython: bool = False) -> str:
    """``source`` with its long lines broken where brackets allow (see the module docstring).

    Raises ValueError if the result would not have the same syntax tree (Python) or the same
    tokens (``cython=True``), which is a bug.
    """
    result = source
    for step in ((_one_pass_cython if cython else _one_pass), _comments):
        for _ in range(1000):  # every break shortens one long line, so this ends long before
            following = step(result, limit)
            if following == result:
                break
            result = following
    if cython:
        if _code_tokens(result) != _code_tokens(source):
            raise ValueError("wrapping would change the tokens; nothing written")
    elif ast.dump(ast.parse(result)) != ast.dump(ast.parse(source)):
        raise ValueError("wrapping would change the syntax tree; nothing written")
    return result


def _code_tokens(source: str) -> list[tuple[int, str]]:
    """The tokens a compiler reads: no comments, no line breaks inside brackets, no indentation
    of continuation lines (Cython has no syntax tree here to compare)."""
    skipped = {tokenize.COMMENT, tokenize.NL}
    return [(token.type, token.string)
            for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type not in skipped]


def long_lines(source: str, limit: int = LIMIT) -> list[tuple[int, bool]]:
    """The lines over ``limit``: (line number, whether a string or comment touches it)."""
    touched: set[int] = set()
    kinds = {tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", -1)}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in kinds:
            touched.update(range(token.start[0], token.end[0] + 1))
    return [(number, number in touched) for number, line in enumerate(source.splitlines(), 1)
            if len(line) > limit]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--limit", type=int, default=LIMIT)
    parser.add_argument("--check", action="store_true", help="write nothing; list what is left")
    args = parser.parse_args(argv)
    patterns = ("*.py", "*.pyi", "*.pyx", "*.pxd")
    files = sorted({f for p in args.paths
                    for f in ([p] if p.is_file() else (g for s in patterns for g in p.rglob(s)))})
    changed = left = left_code = 0
    for path in files:
        before = path.read_text(encoding="utf-8")
        cython = path.suffix in (".pyx", ".pxd")
        try:
            after = wrap(before, args.limit, cython=cython)
        except ValueError as error:
            print(f"{path}: {error}", file=sys.stderr)
            return 1
        if wrap(after, args.limit, cython=cython) != after:
            print(f"{path}: a second run would change it again; nothing written", file=sys.stderr)
            return 1
        if after != before:
            changed += 1
            if not args.check:
                path.write_text(after, encoding="utf-8")
        for number, in_text in long_lines(after, args.limit):
            left += 1
            left_code += not in_text
            if args.check:
                where = "string/comment" if in_text else "code"
                print(f"{path}:{number}: {where}: {after.splitlines()[number - 1].strip()[:70]}")
    verb = "would change" if args.check else "changed"
    print(f"{verb} {changed} of {len(files)} files; {left} lines over {args.limit} left "
          f"({left_code} touch no string or comment)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
