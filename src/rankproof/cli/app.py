"""The ``rankproof`` command: parse arguments, call the command, exit.

Exit codes: 0 ok; 2 bad input or usage (one line on stderr naming what,
where and the fix; never a traceback); 1 internal error (a bug: set
RANKPROOF_DEBUG=1 to see the traceback); 128 + N on signal N (SIGTERM,
SIGHUP), after removing temporary files; 3 ``rankproof monitor``'s alert (a
measure dropped beyond --max-drop, significantly).

Heavy libraries (pyarrow, rich, scipy) are imported inside the commands that
need them, so ``rankproof --help`` and small evaluations start fast.
"""

from __future__ import annotations

import os
import sys

from .inputs import STDIN
from .usage import UsageError

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    import signal

    replaced = _catch_termination()
    try:
        return _main(argv)
    except Signalled as signalled:
        print(f"rankproof: terminated by signal {signalled.number}", file=sys.stderr)
        return 128 + signalled.number
    finally:
        for number, handler in replaced.items():
            signal.signal(number, handler)


def _main(argv: list[str] | None) -> int:
    import warnings

    from ..errors import RankproofError, RankproofWarning
    from ..errors.messages import CLI

    # Doubts about the input (ids that half match) are printed as the results' own warning lines.
    warnings.simplefilter("ignore", RankproofWarning)
    if not os.environ.get("RANKPROOF_DEBUG"):
        # The output shows undefined values as such (n/a, nan, inf); numpy's
        # floating-point warnings would only add lines to the one-line contract.
        warnings.simplefilter("ignore", RuntimeWarning)
    try:
        return _dispatch(sys.argv[1:] if argv is None else list(argv))
    except RankproofError as error:
        # Python names the option a fix names as a parameter; here it is a flag
        # (rankproof.errors.messages).
        message = STDIN.relabel(" ".join(error.spelled(CLI).split("\n")))
        print(message if isinstance(error, UsageError) else f"rankproof: {message}",
              file=sys.stderr)
        return 2
    except BrokenPipeError:
        # Output piped into head: not an error.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("rankproof: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        # Input too large for this machine, or hostile beyond the limits that
        # catch it earlier: bad input, not a bug.
        print("rankproof: out of memory while reading or evaluating the input; it is too large for this "
              "machine's memory (or address-space limit): evaluate fewer queries or runs at a time, lower "
              "RANKPROOF_MAX_ID_LENGTH, or use a machine with more memory", file=sys.stderr)
        return 2
    except Exception as error:  # a bug in rankproof, not in the input
        if os.environ.get("RANKPROOF_DEBUG"):
            raise
        print(f"rankproof: internal error: {type(error).__name__}: {error} "
              "(a bug; rerun with RANKPROOF_DEBUG=1 for the traceback and please report it)",
              file=sys.stderr)
        return 1
    finally:
        STDIN.close()


def _dispatch(arguments: list[str]) -> int:
    from .commands import trec_eval
    from .parser import build_parser
    from .progress import command_progress

    if arguments[:1] == [trec_eval.NAME]:
        # trec_eval's own option syntax (-M100, -qc, options after the files).
        with command_progress(trec_eval.NAME, "--quiet" in arguments[1:]):
            return trec_eval.run(arguments[1:])
    # The command's own parser when it is named first; every command's otherwise (--help, a typo).
    args = build_parser(arguments[0] if arguments else None).parse_args(arguments)
    args.argv = arguments  # the report states the command that made it
    _guard_inputs(args)
    # Every command shows its progress on a terminal after two seconds (cli/progress.py).
    with command_progress(args.command, bool(getattr(args, "quiet", False))):
        return args.handler(args)


def _guard_inputs(args) -> None:
    """Refuse ``-o`` naming any file the command reads, side inputs included (a chunk map,
    a grade map, intent weights, ...), before anything is read: one guard for every command,
    from :func:`.inputs.every_input`, so a new option cannot forget it."""
    output = getattr(args, "output", None)
    if output is None or str(output) == "-":
        return
    from ..report.output import check_output_path
    from .inputs import every_input

    check_output_path(output, every_input(args))


class Signalled(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (removing temporary files) and exit 128 + signal."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def _raise_signalled(number, frame):
    raise Signalled(number)


def _catch_termination() -> dict:
    """Turn SIGTERM and SIGHUP into an exception, as Python does SIGINT, so cleanup runs.

    Returns the handlers replaced, for :func:`main` to put back.
    """
    import signal
    import threading

    replaced: dict = {}
    if threading.current_thread() is not threading.main_thread():
        return replaced
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            replaced[number] = signal.signal(number, _raise_signalled)
    return replaced


if __name__ == "__main__":
    sys.exit(main())
