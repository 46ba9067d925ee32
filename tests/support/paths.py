"""Where the tests find the repository's files, wherever a test module sits under tests/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PACKAGE = SRC / "rankproof"
CRANFIELD = PACKAGE / "_data" / "cranfield"
README = ROOT / "README.md"
# Built once, ignored by git: the trec_eval binaries, Numba's cache of the peers' kernels.
BUILD = ROOT / "build"
# The read-only data next to the repository: trec_eval's source and NIST's test files.
SHARED = ROOT.parent / "shared"
