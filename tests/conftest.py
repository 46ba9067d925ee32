import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
# reference.py (the slow, obviously-correct oracle) is imported as a plain module.
sys.path.insert(0, str(TESTS))

CRANFIELD = TESTS.parent / "src" / "rankproof" / "_data" / "cranfield"


@pytest.fixture
def cranfield() -> Path:
    return CRANFIELD
