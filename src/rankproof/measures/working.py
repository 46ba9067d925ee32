"""The arithmetic behind one query's value of a rank-based measure, as lines of text.

:func:`rankproof.explain.explain` shows gains and discounts for the DCG
family; for the binary measures (ap, rr, hit, p, r, rprec) the working is
what a reader checks by hand: R, the relevant docs found, the precision at
each relevant rank, the first relevant rank.

Ties follow the protocol's groups: under ``ties=expected`` a group of tied
docs spanning ranks ``b + 1 .. b + s`` with ``m`` relevant docs is taken in
expectation over its orders. For a relevant doc of such a group, with
``R_b`` relevant docs ranked before the group, the expected precision at its
rank (within the cutoff ``k``) is

    1/s * sum over p = 1 .. s with b + p <= k of (R_b + 1 + (p - 1)(m - 1)/(s - 1)) / (b + p)

(given the doc at place ``p``, each of the other ``m - 1`` relevant docs is
before it with probability ``(p - 1)/(s - 1)``); the first relevant doc of
the group is at place ``j`` with probability ``C(s - j, m - 1) / C(s, m)``.
Under every other tie policy each group is one doc and these reduce to the
plain ``found / rank`` and ``1 / rank``.
"""

from __future__ import annotations

from math import comb


from ..protocol import ApDenominator, PrecisionDenominator, RecallDenominator

__all__ = ["working", "ap_working", "rr_working", "hit_working", "p_working", "r_working",
           "rprec_working",
           "num_rel_working", "num_rel_ret_working"]


def _n(x: float) -> str:
    """A count or value for reading: whole numbers plain, others to 4 places."""
    return str(int(round(x))) if abs(x - round(x)) < 1e-12 else f"{x:.4f}"


class _Groups:
    """The ranking as groups (one doc each unless ties are averaged), with relevance."""

    def __init__(self, a, rel: "int | float") -> None:
        self.rel = rel
        self.docs = [str(a.docs[d]) for d in a.doc]
        self.relevant = (a.judged & (a.grade >= rel)).astype(bool)
        self.offsets = a.group_offsets
        self.n = len(self.relevant)

    def __iter__(self):
        before = 0
        for lo, hi in zip(self.offsets[:-1].tolist(), self.offsets[1:].tolist()):
            m = int(self.relevant[lo:hi].sum())
            yield lo, hi - lo, m, before
            before += m

    def ranks(self, lo: int, s: int) -> str:
        return f"rank {lo + 1}" if s == 1 else f"ranks {lo + 1}-{lo + s} (tied)"

    def relevant_docs(self, lo: int, s: int) -> list[str]:
        return [self.docs[i] for i in range(lo, lo + s) if self.relevant[i]]

    def r_line(self, num_rel: int) -> str:
        return f"R = {num_rel} relevant docs judged (grade >= {self.rel})"


def _found_within(groups: _Groups, k: int) -> tuple[float, list[str]]:
    """Expected relevant docs in the top k, and the names of those that can be there."""
    found, names = 0.0, []
    for lo, s, m, _ in groups:
        inside = min(max(k - lo, 0), s)
        if m and inside:
            found += m * inside / s
            names += groups.relevant_docs(lo, s)
    return found, names


def _first_relevant(s: int, m: int, lo: int, k: int) -> list[tuple[int, float]]:
    """(rank, probability) of the group's first relevant doc, for ranks within k."""
    total = comb(s, m)
    return [(lo + j, comb(s - j, m - 1) / total) for j in range(1, s - m + 2) if lo + j <= k]


def _names(names: list[str], limit: int = 8) -> str:
    return ", ".join(names[:limit]) + (" ..." if len(names) > limit else "")


def working(a, measure, protocol, rel: "int | float", k: int, num_rel: int) -> tuple[str, ...]:
    """Lines of arithmetic that give `measure`'s value on the one-query alignment `a`.

    Empty for measures whose working is the DCG table (or is not written out): the spec's
    ``working`` (one of this module's functions) writes them.
    """
    write = measure.spec.working
    if write is None:
        return ()
    return write(_Groups(a, rel), measure, protocol, k, num_rel)


def num_rel_working(groups: _Groups, measure, protocol, k: int,
                    num_rel: int) -> tuple[str, ...]:
    """R."""
    return (groups.r_line(num_rel),)


def rprec_working(groups: _Groups, measure, protocol, k: int,
                  num_rel: int) -> tuple[str, ...]:
    """Relevant docs in the top R (or min(R, k)) over R."""
    depth, top = (num_rel, "R") if measure.cutoff is None else (min(num_rel, k), "min(R, k)")
    found, names = _found_within(groups, depth)
    value = found / num_rel if num_rel else 0.0
    return (groups.r_line(num_rel),
            f"relevant in the top {top} = {depth}: {_n(found)}"
            + (f" ({_names(names)})" if names else ""),
            f"{measure} = relevant in the top {top} / R = {_n(found)} / {num_rel} = {value:.4f}"
            if num_rel
            else f"{measure}: R is 0")


def _top(groups: _Groups, k: int) -> tuple[float, str]:
    found, names = _found_within(groups, k)
    return found, f"relevant in the top {k}: {_n(found)}" + (f" ({_names(names)})" if names else "")


def num_rel_ret_working(groups: _Groups, measure, protocol, k: int,
                        num_rel: int) -> tuple[str, ...]:
    """Relevant docs in the top k."""
    return (_top(groups, k)[1],)


def p_working(groups: _Groups, measure, protocol, k: int,
              num_rel: int) -> tuple[str, ...]:
    """Relevant docs in the top k over k (or the docs retrieved)."""
    found, top = _top(groups, k)
    denominator = k
    how = "k" if measure.cutoff is not None else "docs retrieved"
    if measure.setting("precision_denominator", protocol) is PrecisionDenominator.RETRIEVED:
        denominator = min(k, groups.n)
        how = "min(k, docs retrieved)"
    value = found / denominator if denominator else 0.0
    return (top,
            f"{measure} = relevant in the top k / {how} = {_n(found)} / {denominator} = {value:.4f}")


def r_working(groups: _Groups, measure, protocol, k: int,
              num_rel: int) -> tuple[str, ...]:
    """Relevant docs in the top k over R (or min(R, k))."""
    found, top = _top(groups, k)
    denominator, how = num_rel, "R"
    if measure.setting("recall_denominator", protocol) is RecallDenominator.MIN_K:
        denominator, how = min(num_rel, k), "min(R, k)"
    value = found / denominator if denominator else 0.0
    return (groups.r_line(num_rel), top,
            f"{measure} = relevant in the top k / {how} = {_n(found)} / {denominator} = {value:.4f}"
            if denominator else f"{measure}: the denominator {how} is 0")


def rr_working(groups: _Groups, measure, protocol, k: int,
               num_rel: int) -> tuple[str, ...]:
    """1 / the first relevant rank (expected over a tied group's orders)."""
    return _rr_hit(groups, measure, k, reciprocal=True)


def hit_working(groups: _Groups, measure, protocol, k: int,
                num_rel: int) -> tuple[str, ...]:
    """Whether a relevant doc is in the top k (its chance over a tied group's orders)."""
    return _rr_hit(groups, measure, k, reciprocal=False)


def ap_working(groups: _Groups, measure, protocol, k: int,
               num_rel: int) -> tuple[str, ...]:
    """The precision at each relevant rank, summed, over R (or min(R, k), or the hits)."""
    return _ap(groups, measure, protocol, k, num_rel, groups.r_line(num_rel))


def _rr_hit(groups: _Groups, measure, k: int, reciprocal: bool) -> tuple[str, ...]:
    for lo, s, m, _ in groups:
        if lo >= k:
            break
        if not m:
            continue
        chances = _first_relevant(s, m, lo, k)
        docs = _names(groups.relevant_docs(lo, s))
        # one doc, or a tie of relevant docs only
        if s == 1 or (len(chances) == 1 and chances[0][1] == 1.0):
            rank = lo + 1
            line = (f"first relevant rank: {rank} ({docs}"
                    + (f", tied at ranks {lo + 1}-{lo + s})" if s > 1 else ")"))
            return (line, f"{measure} = 1 / {rank} = {1 / rank:.4f}" if reciprocal else
                    f"{measure} = [first relevant rank {rank} <= {k}] = 1")
        expected = sum(p / rank for rank, p in chances)
        inside = sum(p for _, p in chances)
        line = (f"first relevant doc in the tied group at ranks {lo + 1}-{lo + s} ({m} of {s} relevant: {docs}); "
                "over its orders the first relevant rank is " +
                ", ".join(f"{rank} with probability {p:.4f}" for rank, p in chances))
        if reciprocal:
            return (line, f"{measure} = " + " + ".join(f"{p:.4f}/{rank}" for rank, p in chances)
                    + f" = {expected:.4f}")
        return (line, f"{measure} = probability of a relevant doc in the top {k} = {inside:.4f}")
    return (f"no relevant doc in the top {k}", f"{measure} = 0")


def _ap(groups: _Groups, measure, protocol, k: int, num_rel: int, r_line: str) -> tuple[str, ...]:
    lines = [r_line, f"precision at each relevant rank within the top {k}:"]
    total, hits = 0.0, 0.0
    for lo, s, m, before in groups:
        if not m or lo >= k:
            continue
        places = [p for p in range(1, s + 1) if lo + p <= k]
        if s == 1:
            precision = (before + 1) / (lo + 1)
            lines.append(f"  rank {lo + 1}  {groups.docs[lo]}  {before + 1}/{lo + 1} = {precision:.4f}")
            total += precision
            hits += 1
            continue
        share = (m - 1) / (s - 1)
        precision = sum((before + 1 + (p - 1) * share) / (lo + p) for p in places) / s
        docs = groups.relevant_docs(lo, s)
        if m == 1:
            terms = ", ".join(f"{before + 1}/{lo + p}" for p in places)
            how = f"mean over its {s} places of {terms}" + (" and 0 beyond k" * (len(places) < s))
        else:
            how = f"expected over the orders of {m} relevant among {s}"
        lines.append(f"  {groups.ranks(lo, s)}  {_names(docs)}  {how} = {precision:.4f}"
                     + (" each" if m > 1 else ""))
        total += m * precision
        hits += m * len(places) / s
    missed = num_rel - hits
    if missed > 1e-12:
        lines.append(f"  {_n(missed)} relevant doc{'s' if abs(missed - 1) > 1e-12 else ''} not in the top {k}: "
                     "precision 0")
    policy = measure.setting("ap_denominator", protocol)
    denominator: float
    if policy is ApDenominator.MIN_K:
        denominator, how = min(num_rel, k), "min(R, k)"
    elif policy is ApDenominator.HITS:
        denominator, how = hits, "relevant in the top k"
    else:
        denominator, how = num_rel, "R"
    value = total / denominator if denominator else 0.0
    lines.append(f"{measure} = sum of precisions / {how} = {total:.4f} / {_n(denominator)} = {value:.4f}"
                 if denominator else f"{measure}: the denominator {how} is 0")
    return tuple(lines)
