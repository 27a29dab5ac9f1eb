"""How the selection walk goes through a vertex's children (matching-semantics §6.10).

:class:`Explorer` is the part of :class:`~fluxgraph.traverser.dfu.Selector` that visits the
children of one vertex in one subsystem and gathers their candidate groups: the plain
out-edge order of ``explore``, the learned order of the ``first`` policies (children by
descending exploration weight, stopping once every requested type is saturated) and the
auxiliary-subsystem up-walk. It reads the selector's graph, marks and visit methods.
"""

from __future__ import annotations

from bisect import bisect_left
from errno import EBUSY
from typing import TYPE_CHECKING

from fluxgraph.policies.scoring import EGroup, ScoringObject

if TYPE_CHECKING:
    from fluxgraph.traverser.state import JobMeta

__all__ = ["Explorer"]


class Explorer:
    """Child exploration of the selection walk (a base of ``Selector``)."""

    #: times an exploration weight changed (a learned order moved; see ``FlatNodes.unmoved``)
    weight_moves = 0

    def sorted_out_edges(self, u: int) -> list[int]:
        """``u``'s out-edges by descending (weight, target uniq_id): dynamic exploration order.

        Kept with a parallel ascending list of ``(-weight, -uniq_id)`` keys so that re-keying
        one edge (:meth:`rekey_edge`) is a bisection, not a re-sort.
        """
        lst = self._sorted_out[u]
        if lst is None:
            grow = len(self._sorted_out) - len(self._sorted_keys)
            if grow > 0:  # the graph grew (attach): extend the key cache alongside
                self._sorted_keys.extend([None] * grow)
            g = self.graph
            w, uq, dst = self.e_weight, g.uniq_ids, g.edge_dst  # (_edge_key, inlined)
            out = g.out_edges[u]
            targets = list(map(uq.__getitem__, map(dst.__getitem__, out)))  # (no Python loop)
            if len(set(map(w.__getitem__, out))) <= 1 and all(
                map(int.__lt__, targets, targets[1:])
            ):
                # the usual first use: equal weights, targets in creation order (edge ids
                # ascend along the list); the keys are built when an edge is first re-keyed
                lst = self._sorted_out[u] = out[::-1]
                return lst
            keys = sorted([((-w[e], -uq[dst[e]]), e) for e in out])
            self._sorted_keys[u] = [k for k, _ in keys]
            lst = self._sorted_out[u] = [e for _, e in keys]
        return lst

    def _sorted_keys_of(self, u: int) -> list[tuple[int, int]]:
        """The ascending keys of ``u``'s sorted out-edges (built on first use)."""
        keys = self._sorted_keys[u]
        if keys is None:
            keys = self._sorted_keys[u] = [self._edge_key(e) for e in self._sorted_out[u]]
        return keys

    def _edge_key(self, e: int) -> tuple[int, int]:
        return (-self.e_weight[e], -self.graph.uniq_ids[self.graph.edge_dst[e]])

    def rekey_edge(self, u: int, e: int, weight: int) -> None:
        """Give out-edge ``e`` of ``u`` a new exploration weight, keeping the order sorted."""
        if self.e_weight[e] != weight:
            self.weight_moves += 1
        lst = self._sorted_out[u]
        if lst is None:
            self.e_weight[e] = weight
            return
        keys = self._sorted_keys_of(u)
        old = self._edge_key(e)
        i = bisect_left(keys, old)
        while lst[i] != e:  # equal keys cannot happen (uniq ids differ), but be safe
            i += 1
        del keys[i], lst[i]
        self.e_weight[e] = weight
        new = self._edge_key(e)
        j = bisect_left(keys, new)
        keys.insert(j, new)
        lst.insert(j, e)

    def dom_exp(
        self, meta: JobMeta, u: int, nxt, pristine: bool, x: bool, dfu: ScoringObject
    ) -> int:
        rc = -1
        dom = self.dom
        for s in self.subsystems:
            rc = self.explore(meta, u, s, nxt, pristine, x, s == dom, dfu, 1)
        return rc

    def aux_upv(
        self,
        meta: JobMeta,
        u: int,
        aux: str,
        requests,
        pristine: bool,
        x: bool,
        to_parent: ScoringObject,
    ) -> int:
        """Visit ``u`` on auxiliary subsystem ``aux`` (nothing is allocated there)."""
        if self._aux_root is False:  # looked up once, then reused (the reference's quirk 11)
            self._aux_root = self.graph.roots.get(aux)
        root_aux = self._aux_root
        if root_aux is None:
            return -1
        if self.prune(meta, x, aux, u, self.graph.types[u], requests) < 0:
            return -1
        upv = ScoringObject()
        if u != root_aux:
            self.explore(meta, u, aux, requests, pristine, x, False, upv, 1)
        if self.own_avail(u, meta) <= 0:
            return -1
        if self.resolve(upv, to_parent) != 0:
            return -1
        return 1 if x else 0

    def explore(
        self,
        meta: JobMeta,
        u: int,
        s: str,
        requests,
        pristine: bool,
        x: bool,
        dominant: bool,
        dfu: ScoringObject,
        multiplier: int,
    ) -> int:
        """Visit ``u``'s children in subsystem ``s`` and gather their groups into ``dfu``."""
        g = self.graph
        types, dst = g.types, g.edge_dst
        colors = self.colors
        marks = colors.marks.get(s)
        base = colors.base
        visit = self.dom_dfv if dominant else None
        region_filter = self.region_filter
        if region_filter is not None:
            members, allowed = region_filter
        if self.policy.stop_on_k > 0:
            if not g.out_edges[u]:
                return -1
            return self._explore_dynamic(
                meta, u, s, requests, pristine, x, visit, dfu, multiplier, marks, base
            )
        found = -1
        plans = g.schedule.plans
        at, d = meta.at, meta.duration
        fast_fail = self.plain_visits
        for e in g.child_edges(s)[u]:
            tgt = dst[e]
            if marks is not None and marks[tgt] > base:
                continue
            if region_filter is not None and tgt in members and tgt not in allowed:
                continue
            if visit is None:
                xc = self.aux_upv(meta, tgt, s, requests, pristine, x, dfu)
            else:
                p = plans[tgt]
                if fast_fail and p is not None and p.avail_resources_during(at, d) == 0:
                    self.preorder += 1  # (see _explore_dynamic)
                    self.errno = EBUSY
                    continue
                xc = visit(meta, tgt, requests, pristine, x, dfu)
            if xc < 0:
                continue
            c = dfu.avail
            xcb = xc == 1
            dfu.add(s, types[tgt], EGroup(dfu.overall_score, c, xcb, False, [(c, c, xcb, e)]))
            found = 0
        return found

    def _explore_dynamic(
        self, meta, u, s, requests, pristine, x, visit, dfu, multiplier, marks, base
    ) -> int:
        """``explore`` for the ``first`` policies: children in learned order until every
        requested type is saturated (§6.10.2)."""
        g = self.graph
        types, dst, esub = g.types, g.edge_dst, g.edge_subsystem
        region_filter = self.region_filter
        if region_filter is not None:
            members, allowed = region_filter
        # per requested type: [per_share, accumulated, shares, previous total]
        tally = {r.type: [r.eff_max, 0, 0, 0] for r in requests}
        watched = [((s, t), tl) for t, tl in tally.items()]
        per_request = [(r.type, tally[r.type]) for r in requests]
        saturated: set[str] = set()
        evals = dfu.evals
        plans = g.schedule.plans
        at, d = meta.at, meta.duration
        fast_fail = self.plain_visits
        # a child of a type nothing here asks for fails its visit at once (no request matches
        # it, and no slot or pristine walk could take it): count the visit, skip the call
        skip_unasked = fast_fail and visit is not None and not pristine and "slot" not in tally
        found = -1
        for e in self.sorted_out_edges(u):
            if esub[e] != s:
                continue
            tgt = dst[e]
            if marks is not None and marks[tgt] > base:
                continue
            if region_filter is not None and tgt in members and tgt not in allowed:
                continue
            ttype = types[tgt]
            if ttype in saturated:
                continue
            if visit is None:
                xc = self.aux_upv(meta, tgt, s, requests, pristine, x, dfu)
            else:
                p = plans[tgt]
                if (skip_unasked and ttype not in tally) or (
                    fast_fail and p is not None and p.avail_resources_during(at, d) == 0
                ):
                    # a vertex with nothing free fails its visit whatever else holds (every
                    # check before the availability one fails with EBUSY too, and nothing
                    # after it runs): count the visit, skip the call
                    self.preorder += 1
                    self.errno = EBUSY
                    continue
                xc = visit(meta, tgt, requests, pristine, x, dfu)
            if xc < 0:
                continue
            c = dfu.avail
            xcb = xc == 1
            dfu.add(s, ttype, EGroup(dfu.overall_score, c, xcb, False, [(c, c, xcb, e)]))
            # saturation changes only with a completed share (or, for types asked for none,
            # with the first group found)
            shares_changed = found < 0
            found = 0
            for key, tl in watched:  # the whole increase of a type counts as one bundle
                ev = evals.get(key)
                if ev is not None and ev.total_count > tl[3]:
                    tot = ev.total_count
                    tl[1] += tot - tl[3]
                    if tl[0] > 0 and tl[1] >= tl[0]:
                        tl[2] += 1
                        tl[1] = 0
                        shares_changed = True
                    tl[3] = tot
            if shares_changed:
                done = True
                for rtype, tl in per_request:
                    if tl[0] == 0 or tl[2] >= multiplier:
                        saturated.add(rtype)
                    else:
                        done = False
                if done:
                    break
        return found
