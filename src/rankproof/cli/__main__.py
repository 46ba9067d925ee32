"""``python -m rankproof.cli``: the same as the ``rankproof`` command."""

import sys

from .app import main

sys.exit(main())
