"""Writing outputs atomically: a failed run leaves no half-written file."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from ..errors import InputError

__all__ = ["check_output_path", "write_output"]


def check_output_path(path: "str | os.PathLike[str] | None") -> None:
    """Refuse an output path whose folder does not exist, before any work is done."""
    if path is None or str(path) == "-":
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"-o {path}: the folder {folder} does not exist; create it first or choose another path")
    if target.is_dir():
        raise InputError(f"-o {path}: is a directory; give a file name")


def _mode_for(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def write_output(text: str, path: "str | os.PathLike[str] | None") -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename, or to stdout."""
    if path is None or str(path) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    check_output_path(path)
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        # mkstemp makes the file private (0600); the output gets the mode any
        # new file would (0666 less the umask), or keeps the mode of the file it replaces.
        os.chmod(temporary, _mode_for(target))
        os.replace(temporary, target)
    except BaseException:
        # Interrupted or failed: remove the temporary file, leave any old output as it was.
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
