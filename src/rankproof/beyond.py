"""Moved to :mod:`rankproof.recsys.beyond`; this name keeps earlier imports working."""

from .recsys.beyond import *  # noqa: F401,F403
from .recsys.beyond import __all__  # noqa: F401
