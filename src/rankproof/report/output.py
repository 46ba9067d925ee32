"""Writing outputs safely: atomically, never over an input, never over a device.

Rules, each because of a way a plain ``open(path, "w")`` or a plain
rename destroys something:

- a regular file is replaced atomically (a temporary file beside it, then a
  rename), so a failed or interrupted run leaves the old file as it was;
- a target that is not a regular file (``/dev/null``, a character device, a
  FIFO) is written in place: renaming over it would turn the device into a
  regular file;
- a symlink is written through: its target is replaced, the link is kept;
- the new file keeps the old file's mode, or gets the umask's default mode
  (``0o666 & ~umask``) when there was none;
- a read-only file is refused rather than replaced;
- an output that is the same file as one of the inputs is refused before
  anything is read (``-o run.txt`` would otherwise destroy the run);
- SIGTERM and SIGHUP, like SIGINT, remove the temporary file (the CLI turns
  them into exceptions, see :func:`rankproof.cli.app`).
"""

from __future__ import annotations

import io
import os
import stat
import sys
import tempfile
from pathlib import Path

from ..errors import InputError, literal

__all__ = ["check_output_path", "write_output"]


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def check_output_path(path: "str | os.PathLike[str] | None", inputs=()) -> None:
    """Refuse an output path that cannot or must not be written, before any work is done.

    Parameters
    ----------
    path : str, path-like or None
        The ``-o`` argument; None or ``"-"`` means stdout and is always fine.
    inputs : iterable of str or path-like
        Every file the command will read. An output that is the same file
        (same device and inode, so through links and symlinks too) is refused.

    Examples
    --------
    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> run = os.path.join(folder, "x.run")
    >>> _ = open(run, "w").write("1 Q0 d 1 1 t\\n")
    >>> try:
    ...     check_output_path(run, inputs=[run])
    ... except InputError as error:
    ...     print("same file as the input" in str(error))
    True
    """
    if path is None or str(path) == "-":
        return
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        if not folder.is_dir():
            raise InputError(what=literal(f"the folder {folder} does not exist"),
                             source=f"-o {path}", value=str(folder),
                             fix="create it first or choose another path")
        existing = os.stat(target)
    except FileNotFoundError:
        return
    except OSError as error:
        raise _unwritable(path, error) from None
    if stat.S_ISDIR(existing.st_mode):
        raise InputError(what="is a directory", source=f"-o {path}", fix="give a file name")
    for given in inputs:
        if given is None or str(given) == "-":
            continue
        try:
            if _same_file(existing, os.stat(given)):
                raise InputError(what=literal(f"is the same file as the input {given}"),
                                 source=f"-o {path}",
                                 value=str(given),
                                 fix="writing it would destroy the input, so choose another output path")
        except OSError:
            continue  # a missing input is reported by its reader
    if stat.S_ISREG(existing.st_mode) and not existing.st_mode & 0o222:
        raise InputError(what="the file is read-only", source=f"-o {path}",
                         fix="make it writable (chmod u+w) or choose another path")


def _unwritable(path, error: OSError) -> InputError:
    """The error of an output path the system refuses to write."""
    return InputError(what=literal(f"cannot be written ({error.strerror or error})"),
                      source=f"-o {path}",
                      value=error.errno, fix="choose another path")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_stdout(data: bytes) -> None:
    stream = sys.stdout
    if stream is None:
        raise InputError(what="cannot write the output: standard output is closed",
                         fix="redirect it or use -o FILE")
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        descriptor = None  # a stream without a descriptor (e.g. captured by a test)
    try:
        if descriptor is None:
            stream.write(data.decode("utf-8"))
            stream.flush()
            return
        # Straight to the descriptor, nothing left in Python's buffer: a failed
        # write (a full disk) is reported here once, not again at exit.
        stream.flush()
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view):]
    except BrokenPipeError:
        raise  # the CLI treats output piped into `head` as success
    except OSError as error:
        raise InputError(what=literal(f"cannot write the output to standard output ({error.strerror or error})"),
                         fix="free some space or use -o FILE") from None


def _write_in_place(data: bytes, target: Path, shown) -> None:
    """Write to a device or FIFO as it is: no temporary file, no rename."""
    try:
        with open(target, "wb") as stream:
            stream.write(data)
    except OSError as error:
        raise _unwritable(shown, error) from None


def write_output(text: "str | bytes", path: "str | os.PathLike[str] | None") -> None:
    """Write ``text`` (UTF-8) or bytes (a Parquet file) to ``path`` safely (see the module docstring), or to stdout.

    Examples
    --------
    >>> import tempfile, os, stat
    >>> folder = tempfile.mkdtemp()
    >>> out = os.path.join(folder, "out.txt")
    >>> _ = open(out, "w").write("old")
    >>> os.chmod(out, 0o640)
    >>> write_output("new\\n", out)
    >>> open(out).read(), oct(stat.S_IMODE(os.stat(out).st_mode))
    ('new\\n', '0o640')
    """
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    if path is None or str(path) == "-":
        _write_stdout(data)
        return
    check_output_path(path)
    try:
        existing = os.stat(path)
    except FileNotFoundError:
        existing = None
    except OSError as error:
        raise _unwritable(path, error) from None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        _write_in_place(data, Path(path), path)
        return
    # Through a symlink (or a chain of them) to the file it names.
    target = Path(os.path.realpath(path))
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                             dir=target.parent)
        with os.fdopen(handle, "wb") as stream:
            os.fchmod(stream.fileno(), mode)
            stream.write(data)
        os.replace(temporary, target)
        temporary = None
    except OSError as error:
        raise _unwritable(path, error) from None
    finally:
        # Failed or interrupted (SIGINT, SIGTERM, SIGHUP): remove the temporary
        # file, leave any old output as it was.
        if temporary is not None:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass
