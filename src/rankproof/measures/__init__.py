"""Measures: immutable values, their registry and the parser.

Each registered measure is also a module attribute, ready to call and cut:
``ndcg(gain="exp2") @ 10``. Families of measures register themselves when
imported below.
"""

from .base import REGISTRY, Measure, MeasureSpec
from .parse import parse_measure, parse_measures
from . import core  # noqa: F401,E402  (registers the core measures)
from . import trec_sets  # noqa: F401,E402
from . import trec_gains  # noqa: F401,E402
from . import diversity  # noqa: F401,E402
from . import user_models  # noqa: F401,E402
from . import nuggets  # noqa: F401,E402  (read from assignment files, not computed)
from . import pairs  # noqa: F401,E402  (accuracy: ir_measures' Accuracy)

globals().update({_name: Measure(_name) for _name in REGISTRY})

__all__ = ["REGISTRY", "Measure", "MeasureSpec", "parse_measure", "parse_measures", *REGISTRY]
