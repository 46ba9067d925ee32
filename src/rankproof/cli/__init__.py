"""The command line: ``rankproof COMMAND ...`` (entry point :func:`main`)."""

from .app import main

__all__ = ["main"]
