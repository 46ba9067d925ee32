"""The commands of ``rankproof``, one module each (``NAME``, ``HELP``, ``EXAMPLES``,
``add_arguments``, ``run``), built by name through :data:`rankproof.cli.parser.COMMAND_MODULES`.

What several commands share (their options, reading their inputs, rendering, progress, the
evaluation step) is in the helpers one level up, in ``rankproof.cli``.
"""
