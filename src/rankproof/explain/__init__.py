"""One number, explained: a query's ranking with each doc's gain, discount
and share (:func:`explain`), the queries behind a mean or a difference
(:func:`why`), and the arithmetic of a value written out (``working``)."""

from .explanation import Explanation, explain
from .why import Why, why

__all__ = ["Explanation", "explain", "Why", "why"]
