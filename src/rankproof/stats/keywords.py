"""One name per concept: the string options of stats/ and report/ as ``Literal``
types, and earlier keyword names kept working as deprecated aliases.

Resampling is ``n_resamples`` and the bootstrap interval's kind is
``bootstrap_method`` in every signature of stats/ and report/ (as in
:func:`scipy.stats.bootstrap`); the earlier ``resamples`` and ``method``
still work, with a :class:`DeprecationWarning`.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     renamed_keyword(2000, 500, new="n_resamples", old="resamples", default=2000, where="report")
500
>>> str(caught[0].message)
'report: resamples= is deprecated; use n_resamples='
"""

from __future__ import annotations

import warnings
from typing import Any

from ..errors import InputError, literal
from ..typing import BootstrapMethod, CorrectionName, TestName, Unlabelled

__all__ = ["renamed_keyword", "TestName", "CorrectionName", "BootstrapMethod", "Unlabelled"]

# TestName, CorrectionName, BootstrapMethod and Unlabelled are defined in rankproof.typing; named
# here too, where stats/ and report/ have always imported them from.


def renamed_keyword(value: Any, old_value: Any, *, new: str, old: str, default: Any, where: str,
                    warn: bool = True) -> Any:
    """The value of keyword `new`, given as `value`, or under its earlier name `old` as `old_value`.

    `old_value` is None when the earlier name is not used; giving both names
    different values is refused. `warn=False` accepts the earlier name
    silently (for a caller inside the package that still passes it).
    """
    if old_value is None:
        return value
    if value != default and value != old_value:
        raise InputError(what=literal(f"{where}: {old}= and {new}= name the same setting; got {old_value!r} and {value!r}"),
                         value=old_value, fix=f"give {new}= only")
    if warn:
        warnings.warn(f"{where}: {old}= is deprecated; use {new}=", DeprecationWarning,
                      stacklevel=3)
    return old_value
