"""The streaming evaluator, importable as ``rankproof.streaming`` (the name training scripts
use); the code is :mod:`rankproof.frontdoors.streaming`."""

from .frontdoors.streaming import *  # noqa: F401,F403
from .frontdoors.streaming import __all__  # noqa: F401
