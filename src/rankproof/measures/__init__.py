"""Measures: immutable values, their registry and the parser.

Each registered measure is also a module attribute, ready to call and cut:
``ndcg(gain="exp2") @ 10``. Families of measures register themselves when
imported below.
"""

from .base import REGISTRY, Measure, MeasureSpec
from .parse import parse_any, parse_measure, parse_measures
from . import core  # noqa: F401,E402  (registers the core measures)
from . import trec_sets  # noqa: F401,E402
from . import trec_gains  # noqa: F401,E402
from . import diversity  # noqa: F401,E402
from . import user_models  # noqa: F401,E402
from . import cwl  # noqa: F401,E402  (the C/W/L user models of cwl_eval)
from . import compat  # noqa: F401,E402  (ir_measures' Compat)
from . import nuggets  # noqa: F401,E402  (read from assignment files, not computed)
from . import pairs  # noqa: F401,E402  (accuracy: ir_measures' Accuracy)

globals().update({_name: Measure(_name) for _name in REGISTRY})

# Measures of your own (imported after the registry's names are bound).
from .user import Query, Table, define, load_measures, undefine  # noqa: E402

__all__ = ["REGISTRY", "Measure", "MeasureSpec", "parse_measure", "parse_measures", "parse_any",
           "define",
           "undefine", "load_measures", "Query", "Table", *REGISTRY]
