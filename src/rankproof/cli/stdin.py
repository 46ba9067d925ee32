"""'-' as an input: stdin streamed once into an unnamed temporary file that the readers open by path.

Every command that reads a file reads stdin the same way (``STDIN.path(given, fmt)``), and its
messages name "stdin" instead of the file's descriptor path (``STDIN.relabel``).
"""

from __future__ import annotations

import os
import sys

from ..errors import InputError

__all__ = ["Stdin", "STDIN"]


class Stdin:
    """'-' as an input: stdin, streamed once into an unnamed temporary file.

    The readers take paths, so stdin (any format; gzip found by its magic
    bytes) is copied in chunks into a temporary file that is unlinked as
    soon as it is made: a run killed with -9 leaves nothing behind. The
    readers open it by its descriptor's path (``/proc/self/fd/N``), and
    messages say "stdin" instead (:meth:`relabel`). The first megabyte is
    checked before the rest is read, so ``< /dev/zero`` is refused at once,
    and a stream longer than the stream-size limit is refused while it is
    copied, not after it filled the disk or the memory.
    """

    def __init__(self) -> None:
        self.made: dict[str, str] = {}
        self._descriptors: list[int] = []

    def path(self, given: str, fmt: "str | None") -> str:
        if given != "-":
            return given
        if "-" in self.made:
            return self.made["-"]
        import tempfile

        descriptor, name = tempfile.mkstemp(prefix="rankproof-stdin-")
        os.unlink(name)
        self._descriptors.append(descriptor)
        stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else None
        _copy_stream(stream, descriptor, binary_format=fmt == "parquet")
        self.made["-"] = f"/proc/self/fd/{descriptor}"
        return self.made["-"]

    def relabel(self, message: str) -> str:
        """`message` with the temporary file's name as "stdin"."""
        made = self.made.get("-")
        return message.replace(made, "stdin") if made else message

    def close(self) -> None:
        for descriptor in self._descriptors:
            try:
                os.close(descriptor)
            except OSError:
                pass
        self._descriptors.clear()
        self.made.clear()


def _copy_stream(stream, descriptor: int, *, binary_format: bool) -> None:
    """Copy stdin into the descriptor chunk by chunk (io.files.stream_chunks: the first
    checked, the total bounded), never holding it whole."""
    from ..io.files import stream_chunks

    def first(chunk: bytes) -> None:
        if not binary_format and b"\0" in chunk and not chunk.startswith(b"\x1f\x8b"):
            raise InputError(source="stdin", what="is binary: a NUL byte in its first megabyte",
                             fix="give text (TREC, CSV, TSV, JSON Lines; gzip is fine), or --format parquet for "
                                 "Parquet")

    if stream is None:  # a text stdin without a buffer (an embedding application's)
        stream = _TextAsBytes(sys.stdin)
    for chunk in stream_chunks(stream, "stdin", first):
        view = memoryview(chunk)
        while view:
            view = view[os.write(descriptor, view):]


class _TextAsBytes:
    """A text stream read as UTF-8 bytes."""

    def __init__(self, text) -> None:
        self.text = text

    def read(self, size: int) -> bytes:
        return self.text.read(size).encode("utf-8")


STDIN = Stdin()
