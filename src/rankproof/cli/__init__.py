"""The command line: ``rankproof COMMAND ...`` (entry point :func:`main`).

One module per command (``evaluate``, ``compare``, ``report``, ``why``,
``explain``, ``measures``, ``protocol``, ``trec_eval``, ``fit_pbm``,
``demo``), each with ``add_arguments(parser)`` and ``run(args)``, and the
helpers they share: ``parser`` (the parser assembled from the commands),
``inputs`` (the one definition of the input options and the one function
that reads qrels and runs), ``grade_map``, ``labels``, ``large`` (large
inputs), ``render`` (what goes to stdout and stderr), ``usage`` (usage
errors with fields) and ``app`` (:func:`main`: exit codes and signals).
"""

from .app import main

__all__ = ["main"]
