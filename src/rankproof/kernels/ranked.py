"""Vectorised kernels over tie groups of all queries at once.

Every kernel works on *groups*: runs of positions whose internal order is
averaged over (``ties=expected``). Under the other tie policies each position
is its own group, and every formula below reduces to the ordinary one. For a
group G (McSherry & Najork 2008; see shared/notes/ties.md):

- n = |G|, s = docs ranked before G in its query (G holds ranks s+1 .. s+n),
- k = the query's cutoff, lo = min(s, k), hi = min(s + n, k), m = hi - lo.

Kernels never validate: alignment already applied every policy.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .segments import ranks_within

__all__ = ["Ranked", "straddling_draws"]


# In-group positions of the first relevant group computed in vectorised steps
# across queries before each longer group gets a pass of its own (first_relevant).
_VECTOR_TERMS = 64


class Ranked:
    """Group structure of aligned rankings, with segment sums over it.

    Parameters
    ----------
    offsets : int64 array, positions of each query (len = queries + 1)
    group_offsets : int64 array, positions of each group (len = groups + 1)
    """

    def __init__(self, offsets: np.ndarray, group_offsets: np.ndarray) -> None:
        self.offsets = offsets
        self.num_queries = len(offsets) - 1
        self.lengths = np.diff(offsets)
        self.group_offsets = group_offsets
        self.num_groups = len(group_offsets) - 1
        self.all_singletons = self.num_groups == offsets[-1]
        self._group_of_position: np.ndarray | None = None  # built on first use
        self._heads: dict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray] | None] = {}

    # Every array below spans all positions or groups (millions on a big
    # run) and most measures need only some of them: each is built on first use.
    @cached_property
    def size(self) -> np.ndarray:
        """Number of positions in each group."""
        return np.diff(self.group_offsets)

    @cached_property
    def position_query(self) -> np.ndarray:
        """Query of every position."""
        return np.repeat(np.arange(self.num_queries, dtype=np.int64), self.lengths)

    @cached_property
    def position_rank(self) -> np.ndarray:
        """0-based rank of every position within its query."""
        return ranks_within(self.lengths)

    @cached_property
    def query(self) -> np.ndarray:
        """Query of every group."""
        if self.all_singletons:
            return self.position_query
        if not self.num_groups:
            return np.zeros(0, np.int64)
        return self.position_query[self.group_offsets[:-1]]

    @cached_property
    def start(self) -> np.ndarray:
        """Docs ranked before each group in its query (the group's 0-based first rank)."""
        if self.all_singletons:
            return self.position_rank
        return self.group_offsets[:-1] - self.offsets[self.query]

    def query_of(self, groups: np.ndarray) -> np.ndarray:
        """Query of the given groups, without building `query` for every group."""
        if "query" in self.__dict__ or self.all_singletons:
            return self.query[groups]
        return np.searchsorted(self.offsets, self.group_offsets[groups], side="right") - 1

    def start_of(self, groups: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Docs ranked before the given groups (of the given queries) in their query."""
        return self.group_offsets[groups] - self.offsets[query]

    # Real ties are usually few: linear kernels treat single positions
    # directly and only the tied groups through group sums.
    @cached_property
    def in_tie(self) -> np.ndarray | None:
        """Per position: is it in a group of several docs (None when none is)."""
        if self.all_singletons:
            return None
        tied = self.size > 1
        return np.repeat(tied, self.size)

    @cached_property
    def _tied_groups(self) -> np.ndarray:
        return np.flatnonzero(self.size > 1) if not self.all_singletons else np.zeros(0, np.int64)

    @cached_property
    def tied_size(self) -> np.ndarray:
        return self.size[self._tied_groups] if not self.all_singletons else np.zeros(0, np.int64)

    @cached_property
    def tied_query(self) -> np.ndarray:
        return self.query_of(self._tied_groups)

    @cached_property
    def tied_start(self) -> np.ndarray:
        return self.start_of(self._tied_groups, self.tied_query)

    @cached_property
    def tied_positions(self) -> np.ndarray:
        """Positions of the tied groups, group after group."""
        size = self.tied_size
        return np.repeat(self.group_offsets[self._tied_groups], size) + ranks_within(size)

    @cached_property
    def tied_first(self) -> np.ndarray:
        """Where each tied group starts in `tied_positions`."""
        return np.cumsum(self.tied_size) - self.tied_size

    def head(self, k_query: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(position, query, rank) of every position ranked within its query's
        cutoff; None when that is every position. Top-k measures touch only
        these, so the per-position arrays of whole rankings are never built."""
        key = np.ascontiguousarray(k_query).tobytes()
        if key not in self._heads:
            counts = np.minimum(k_query, self.lengths)
            if (counts == self.lengths).all():
                self._heads[key] = None
            else:
                query = np.repeat(np.arange(self.num_queries, dtype=np.int64), counts)
                rank = ranks_within(counts)
                self._heads[key] = (self.offsets[:-1][query] + rank, query, rank)
        return self._heads[key]

    # -- segment sums ---------------------------------------------------------
    @property
    def group_of_position(self) -> np.ndarray | None:
        """Group index of every position (None when every position is its own group)."""
        if self._group_of_position is None and not self.all_singletons:
            self._group_of_position = np.repeat(np.arange(self.num_groups, dtype=np.int64),
                                                self.size)
        return self._group_of_position

    def group_sum(self, per_position: np.ndarray) -> np.ndarray:
        """Sum of a per-position value over each group (groups are never empty)."""
        if self.all_singletons:
            return per_position.astype(np.float64)
        return np.add.reduceat(per_position.astype(np.float64), self.group_offsets[:-1])

    def before_group(self, per_position: np.ndarray, groups: np.ndarray,
                     query: np.ndarray | None = None) -> np.ndarray:
        """For the given groups (of the given queries, when known), the sum of a
        per-position count over the earlier positions of the same query (one
        cumulative sum, gathered only where needed)."""
        if query is None:
            query = self.query_of(groups)
        cumulative = np.empty(len(per_position) + 1)
        cumulative[0] = 0.0
        # in place: no 10M-element copy
        np.cumsum(per_position, dtype=np.float64, out=cumulative[1:])
        return cumulative[self.group_offsets[groups]] - cumulative[self.offsets[query]]

    def query_sum(self, per_group: np.ndarray) -> np.ndarray:
        """Sum of a per-group value over each query (in rank order)."""
        return np.bincount(self.query, weights=per_group, minlength=self.num_queries)

    # -- cutoffs --------------------------------------------------------------
    def cutoff(self, k: "int | None | np.ndarray") -> np.ndarray:
        """Per-query cutoff as an int64 array; None means the whole ranking."""
        if k is None:
            return self.lengths.astype(np.int64)
        return np.broadcast_to(np.asarray(k, dtype=np.int64), (self.num_queries,))

    def slots(self, k_query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) of each group: its rank range clipped to the cutoff."""
        k = k_query[self.query]
        return np.minimum(self.start, k), np.minimum(self.start + self.size, k)

    # -- expectations ---------------------------------------------------------
    def _tied_sums(self, per_position: np.ndarray) -> np.ndarray:
        """Sum of a per-position value over each tied group."""
        if len(self.tied_positions) == 0:
            return np.zeros(0)
        return np.add.reduceat(per_position[self.tied_positions].astype(np.float64),
                               self.tied_first)

    def _tied_slots(self, k_query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = k_query[self.tied_query]
        return np.minimum(self.tied_start, k), np.minimum(self.tied_start + self.tied_size, k)

    def _sum_single(self, values_at, k_query: np.ndarray, needs_rank: bool = False) -> np.ndarray:
        """Per query, the sum of ``values_at(positions, ranks)`` over untied
        positions within the cutoff (``ranks`` is None unless `needs_rank`)."""
        head = self.head(k_query)
        if head is None:
            values = values_at(slice(None), self.position_rank if needs_rank else None)
            if self.in_tie is not None:  # None: every position is its own group
                values = np.where(self.in_tie, 0.0, values)
            sums = np.bincount(self.position_query, weights=values, minlength=self.num_queries)
        else:
            at, query, rank = head
            if self.in_tie is not None:
                untied = ~self.in_tie[at]
                at, query, rank = at[untied], query[untied], rank[untied]
            sums = np.bincount(query, weights=values_at(at, rank), minlength=self.num_queries)
        # float64 always: bincount of an empty selection would return int64.
        return sums.astype(np.float64, copy=False)

    def expected_count(self, flags: np.ndarray, k_query: np.ndarray) -> np.ndarray:
        """Expected number of flagged docs in the top k: sum_G f_G * m / n."""
        total = self._sum_single(lambda at, _: flags[at], k_query)
        if not self.all_singletons:
            lo, hi = self._tied_slots(k_query)
            total += np.bincount(self.tied_query,
                                 weights=self._tied_sums(flags) * (hi - lo) / self.tied_size,
                                 minlength=self.num_queries)
        return total

    def dcg(self, gain: np.ndarray, discount: np.ndarray, k_query: np.ndarray) -> np.ndarray:
        """Expected DCG@k: sum_G mean_gain(G) * sum_{i=lo+1}^{hi} d(i).

        ``discount[i]`` is the discount of rank ``i + 1``; it must be long
        enough for the longest ranking. Untied docs get their exact discount,
        summed in rank order as trec_eval does.
        """
        total = self._sum_single(lambda at, rank: gain[at] * discount[rank], k_query,
                                 needs_rank=True)
        if not self.all_singletons:
            lo, hi = self._tied_slots(k_query)
            cumulative = np.concatenate([[0.0], np.cumsum(discount)])
            mean_gain = self._tied_sums(gain) / self.tied_size
            total += np.bincount(self.tied_query,
                                 weights=mean_gain * (cumulative[hi] - cumulative[lo]),
                                 minlength=self.num_queries)
        return total

    def first_relevant(self, relevant: np.ndarray, k_query: np.ndarray) -> tuple[np.ndarray,
                                                                                 np.ndarray]:
        """Expected reciprocal rank and hit probability of the first relevant doc within k.

        Only the first group holding a relevant doc matters. Inside it (n docs,
        r relevant, after s docs), the first relevant doc is at in-group
        position q with probability P(q) = C(n-q, r-1) / C(n, r), so
        E[RR@k] = sum_{q: s+q <= k} P(q) / (s + q) and hit@k = sum_{q: s+q<=k} P(q).
        """
        rr = np.zeros(self.num_queries)
        hit = np.zeros(self.num_queries)
        r = self.group_sum(relevant)
        candidates = np.flatnonzero(r > 0)
        if len(candidates) == 0:
            return rr, hit
        candidate_query = self.query_of(candidates)
        is_first = np.r_[True, candidate_query[1:] != candidate_query[:-1]]
        first, query = candidates[is_first], candidate_query[is_first]
        n = self.size[first]
        rel = r[first].astype(np.int64)
        s = self.start_of(first, query)
        k = k_query[query]
        # Terms q = 1 .. min(n - r + 1, k - s); none when the group starts past k.
        terms = np.clip(np.minimum(n - rel + 1, k - s), 0, None)
        # P(1) = r/n and P(q) = P(q-1) * (n-q-r+2)/(n-q+1). Each query's terms
        # depend only on that query, so its value is the same as if alone.
        # The first _VECTOR_TERMS positions go in steps vectorised across the
        # queries still active (the set shrinks, so the work is the number of
        # terms, not queries x the largest tie group); a query whose first
        # relevant group is longer continues in one numpy pass of its own.
        hit_first = np.zeros(len(first))
        rr_first = np.zeros(len(first))
        active = np.flatnonzero(terms >= 1)
        p = rel[active] / n[active]
        q = 1
        while active.size and q <= _VECTOR_TERMS:
            if q > 1:
                p = p * (n[active] - q - rel[active] + 2) / np.maximum(n[active] - q + 1, 1)
            hit_first[active] += p
            rr_first[active] += p / (s[active] + q)
            q += 1
            keep = terms[active] >= q
            active, p = active[keep], p[keep]
        for row, p_row in zip(active.tolist(), p.tolist()):
            positions = np.arange(q, int(terms[row]) + 1, dtype=np.float64)
            n_row, r_row = float(n[row]), float(rel[row])
            chance = (p_row * np.cumprod((n_row - positions - r_row + 2)
                                         / np.maximum(n_row - positions + 1, 1)))
            hit_first[row] += chance.sum()
            rr_first[row] += (chance / (s[row] + positions)).sum()
        rr[query] = rr_first
        hit[query] = np.minimum(hit_first, 1.0)
        return rr, hit

    def precision_sum(self, relevant: np.ndarray, k_query: np.ndarray) -> np.ndarray:
        """Expected sum, over relevant docs ranked within k, of the precision at their rank.

        Divide by R for AP@k. A relevant doc of group G at in-group position q
        has c + 1 + (q-1)(r-1)/(n-1) relevant docs at or above it in
        expectation (c = relevant docs in earlier groups), so G adds
        (r/n) * sum_{q=1}^{m} (c + 1 + (q-1)(r-1)/(n-1)) / (s + q).
        """
        r = self.group_sum(relevant)
        active = np.flatnonzero(r > 0)
        query = self.query_of(active)
        s = self.start_of(active, query)
        k = k_query[query]
        inside = s < k
        active, query, s, k = active[inside], query[inside], s[inside], k[inside]
        if len(active) == 0:
            return np.zeros(self.num_queries)
        n, rel = self.size[active], r[active]
        c = self.before_group(relevant, active, query)
        terms = np.minimum(n, k - s)
        seg = np.repeat(np.arange(len(active)), terms)
        q = ranks_within(terms) + 1
        n_t, r_t = n[seg], rel[seg]
        others_above = np.where(n_t > 1, (q - 1) * (r_t - 1) / np.maximum(n_t - 1, 1), 0.0)
        term = (r_t / n_t) * (c[seg] + 1 + others_above) / (s[seg] + q)
        per_group = np.bincount(seg, weights=term, minlength=len(active))
        return np.bincount(query, weights=per_group, minlength=self.num_queries)

    def bpref_sum(self, relevant: np.ndarray, nonrelevant: np.ndarray, num_rel: np.ndarray,
                  num_nonrel: np.ndarray, k_query: np.ndarray) -> np.ndarray:
        """Expected sum over relevant docs within k of 1 - min(x, R) / min(N, R).

        x = judged non-relevant docs ranked above the doc (trec_eval's bpref;
        unjudged docs count neither way). Divide by R for bpref@k.

        For a group wholly inside the cutoff, the doc's rank among itself and
        the group's nr judged non-relevant docs is uniform, so x = c + X with X
        uniform on 0..nr (c = judged non-relevant docs in earlier groups). For
        the group straddling the cutoff, X given in-group position q is
        hypergeometric (q - 1 draws from the other n - 1 docs, nr of them
        non-relevant); that rare case is summed explicitly.
        """
        r = self.group_sum(relevant)
        lo_all, hi_all = self.slots(k_query)
        # Only groups holding a relevant doc inside the cutoff contribute.
        active = np.flatnonzero((r > 0) & (lo_all < hi_all))
        query = self.query[active]
        nr = self.group_sum(nonrelevant)[active].astype(np.int64)
        c = np.rint(self.before_group(nonrelevant, active)).astype(np.int64)
        r = r[active]
        m = hi_all[active] - lo_all[active]
        size = self.size[active]
        R = num_rel[query].astype(np.int64)
        denominator = np.maximum(np.minimum(num_nonrel, num_rel), 1)[query].astype(np.float64)
        # sum_{v=a}^{b} min(v, R) in closed form, with a = c and b = c + nr.
        a, b = c, c + nr
        t = np.minimum(b, R)
        total = np.where(R <= a, (b - a + 1) * R, (a + t) * (t - a + 1) // 2 + (b - t) * R)
        contribution = r * (1.0 - total / (nr + 1) / denominator)

        straddling = np.flatnonzero(m < size)  # at most one group per query
        if len(straddling):
            # (r/n) * sum_{q=1}^{m} E[1 - min(c + X_q, R) / denominator]
            group, x, chance = straddling_draws(size[straddling], nr[straddling], m[straddling])
            i = straddling[group]
            value = 1.0 - np.minimum(c[i] + x, R[i]) / denominator[i]
            total = np.bincount(group, weights=chance * value, minlength=len(straddling))
            contribution[straddling] = r[straddling] / size[straddling] * total
        return np.bincount(query, weights=contribution, minlength=self.num_queries)


def straddling_draws(n: np.ndarray, successes: np.ndarray,
                     m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hypergeometric law behind tie groups that straddle the cutoff.

    For group i (n[i] docs, the first m[i] of its ranks inside the cutoff)
    and a doc of it at in-group position q = 1..m[i], X_q = the docs of a kind
    ranked above it in the group is hypergeometric: q - 1 drawn from the
    n[i] - 1 other docs, successes[i] of them of that kind. Returns flat
    arrays (group, x, probability), one entry per (i, q, x) with
    x = 0..min(successes[i], q - 1), so that
    ``np.bincount(group, weights=probability * f(x))`` is sum_q E[f(X_q)]
    per group. (The compiled twin: ``Hypergeometric`` in _libs/common.pxd.)

    >>> group, x, p = straddling_draws(np.array([3]), np.array([1]), np.array([2]))
    >>> group.tolist(), x.tolist(), p.round(3).tolist()  # q = 1: X = 0; q = 2: X = 0 or 1, 1/2 each
    ([0, 0, 0], [0, 0, 1], [1.0, 0.5, 0.5])
    """
    from scipy.special import gammaln

    def log_choose(a, b):
        return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)

    n, successes, m = (np.asarray(v, dtype=np.int64) for v in (n, successes, m))
    slot_group = np.repeat(np.arange(len(n)), m)
    q = ranks_within(m) + 1
    counts = np.minimum(successes[slot_group], q - 1) + 1
    item = np.repeat(np.arange(len(slot_group)), counts)
    x = ranks_within(counts)
    group = slot_group[item]
    drawn = q[item] - 1
    others = n[group] - 1 - successes[group]  # the other docs not of the kind
    possible = drawn - x <= others
    log_pmf = (log_choose(successes[group], x) + log_choose(others, np.minimum(drawn - x, others))
               - log_choose(n[group] - 1, drawn))
    return group, x, np.where(possible, np.exp(log_pmf), 0.0)
