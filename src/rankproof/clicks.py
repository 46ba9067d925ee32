"""Moved to :mod:`rankproof.recsys.clicks`; this name keeps earlier imports working."""

from .recsys.clicks import *  # noqa: F401,F403
from .recsys.clicks import __all__  # noqa: F401
