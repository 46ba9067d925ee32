"""Scikit-learn scorers, importable as ``rankproof.sklearn`` (the name training scripts
use); the code is :mod:`rankproof.frontdoors.sklearn`."""

from .frontdoors.sklearn import *  # noqa: F401,F403
from .frontdoors.sklearn import __all__  # noqa: F401
