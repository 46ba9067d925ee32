"""Per-session means: a measure averaged within sessions, then users, then over users.

:func:`session_mean` takes per-query values (``results.per_query("ndcg@10")`` or a
:class:`~rankproof.recsys.beyond.ListValues`) and each query's (user, session),
so that neither long sessions nor busy users weigh more than others. It was
in :mod:`rankproof.recsys.beyond`, which still re-exports it.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Mapping

from ..errors import InputError, literal
from .list_values import ListValues

__all__ = ["SessionMean", "session_mean"]


@dataclasses.dataclass(frozen=True)
class SessionMean:
    """A measure averaged within sessions, then within users, then over users.

    Attributes
    ----------
    mean : float
        Mean over users of each user's mean over their sessions.
    users : dict user -> float
    sessions : dict (user, session) -> float
    left_out : int
        Queries without a value (excluded or undefined), not averaged.
    """

    mean: float
    users: dict
    sessions: dict
    left_out: int


def session_mean(per_query, sessions, *, query: str = "query", user: str = "user",
                 session: str = "session") -> SessionMean:
    """Average per-query values within each session first, then within each
    user, then over users, so that neither long sessions nor busy users
    weigh more than others.

    .. math::

        \\bar{v} = \\frac{1}{|U|} \\sum_{u} \\frac{1}{|S_u|} \\sum_{s \\in S_u}
        \\frac{1}{|Q_s|} \\sum_{q \\in Q_s} v_q

    Parameters
    ----------
    per_query : mapping query -> value, or ListValues
        E.g. ``results.per_query("ndcg@10")`` (queries excluded by a policy are
        absent from it); ``None`` or ``nan`` values are left out and counted.
    sessions : mapping query -> (user, session), or a table with columns
        `query`, `user`, `session`
        Every query with a value needs one.

    Examples
    --------
    User x: session s1 has ndcg 1.0 and 0.5, session s2 has 0.0; user y has
    one session with 0.9. Sessions: 0.75, 0.0, 0.9; users: x (0.75 + 0) / 2 =
    0.375, y 0.9; mean (0.375 + 0.9) / 2 = 0.6375 (the plain mean of the four
    queries would be 0.6).

    >>> values = {"r1": 1.0, "r2": 0.5, "r3": 0.0, "r4": 0.9}
    >>> where = {"r1": ("x", "s1"), "r2": ("x", "s1"), "r3": ("x", "s2"), "r4": ("y", "s1")}
    >>> result = session_mean(values, where)
    >>> result.mean, result.users
    (0.6375, {'x': 0.375, 'y': 0.9})
    """
    if isinstance(per_query, ListValues):
        per_query = per_query.per_query()
    if not isinstance(per_query, Mapping):
        raise InputError(what="per_query must map each {query} to its value, e.g. results.per_query('ndcg@10')")
    if not isinstance(sessions, Mapping):
        try:
            columns = {name: sessions[name] for name in (query, user, session)}
        except (KeyError, TypeError, IndexError):
            raise InputError(what=literal(f"sessions must map each query to (user, session), or be a table with "
                                          f"columns {query!r}, {user!r}, {session!r}")) from None
        sessions = {str(q): (str(u), str(s))
                    for q, u, s in zip(*(list(c) for c in columns.values()))}
    else:
        sessions = {str(q): tuple(str(x) for x in v) for q, v in sessions.items()}
    keys, values, left_out = [], [], 0
    for q, v in per_query.items():
        if v is None or (isinstance(v, float) and math.isnan(v)):
            left_out += 1
            continue
        where = sessions.get(str(q))
        if where is None:
            raise InputError(what="has no (user, session) in sessions", query=q,
                             fix="give every evaluated {query} one")
        if len(where) != 2:
            raise InputError(what=f"sessions must give (user, session) pairs; got {literal(repr(where))}", query=q,
                             value=where)
        keys.append(where)
        values.append(float(v))
    if not keys:
        return SessionMean(math.nan, {}, {}, left_out)
    by_session: dict[tuple, list[float]] = {}
    for key, v in zip(keys, values):
        by_session.setdefault(key, []).append(v)
    session_means = {key: sum(vs) / len(vs) for key, vs in by_session.items()}
    by_user: dict[str, list[float]] = {}
    for (u, _), v in session_means.items():
        by_user.setdefault(u, []).append(v)
    user_means = {u: sum(vs) / len(vs) for u, vs in by_user.items()}
    return SessionMean(sum(user_means.values()) / len(user_means), user_means, session_means,
                       left_out)
