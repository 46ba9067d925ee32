"""What a test does when an oracle is missing: skip on a contributor's machine, fail in CI.

An oracle is what a test holds rankproof to that a clone may lack: ../shared
(trec_eval's source, NIST's test files), a built trec_eval binary, java for
Spark. Without the switch a missing oracle skips its tests and says what is
missing; with ``RANKPROOF_REQUIRE_ORACLES=1`` (``.ci/run`` sets it) it fails
them with that one line, so that CI cannot stay green by skipping.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

from paths import SHARED

SWITCH = "RANKPROOF_REQUIRE_ORACLES"


def required() -> bool:
    """Whether a missing oracle fails (the switch is set to anything but empty or 0)."""
    return os.environ.get(SWITCH, "") not in ("", "0")


def missing(what: str) -> NoReturn:
    """Skip the test, or fail it under the switch, naming what is missing."""
    if required():
        pytest.fail(f"missing oracle: {what} ({SWITCH} is set)", pytrace=False)
    pytest.skip(f"missing oracle: {what}")


def shared(*parts: str) -> Path:
    """A path under ../shared, or missing() when it is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        missing(f"{path} does not exist (../shared: the read-only data next to the repository)")
    return path
