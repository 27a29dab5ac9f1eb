"""``leaf_score``: the score a policy's visit hooks give a leaf, answered in one call.

The traverser's fast leaf visit uses ``policy.leaf_score(graph, u)`` in place of
``dom_discover_vtx`` + ``dom_finish_vtx`` on an empty scoring object; the two must agree on
every leaf, whatever the running node factor left by open ancestors.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fluxgraph.graph import ResourceGraph
from fluxgraph.policies import POLICIES
from fluxgraph.policies.scoring import ScoringObject

ID_POLICIES = sorted(name for name, make in POLICIES.items() if hasattr(make(), "leaf_score"))


def _hooks_score(policy, g: ResourceGraph, u: int, requests) -> int | None:
    """The score of the full visit's hooks, or None where they reject the leaf."""
    if policy.dom_discover_vtx(g, u) != 0:
        return None
    dfu = ScoringObject()
    if policy.dom_finish_vtx(g, "containment", u, requests, dfu) != 0:
        return None
    return dfu.overall_score


def test_every_id_policy_offers_a_leaf_score():
    assert {"low", "high", "first", "lonode", "hinode", "variation", "classpack"} <= set(
        ID_POLICIES
    )


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(ID_POLICIES),
    leaves=st.lists(
        st.tuples(
            st.sampled_from(["core", "gpu", "node", "memory"]),
            st.integers(0, 500),
            st.sampled_from(["", "1", "4", " +2x", "-0", "random", "99999"]),
        ),
        min_size=1,
        max_size=6,
    ),
    open_nodes=st.lists(st.integers(0, 50), max_size=3),
)
def test_leaf_score_equals_the_visit_hooks(name, leaves, open_nodes):
    g = ResourceGraph()
    ancestors = [g.add_vertex("node", "node", i) for i in open_nodes]
    vertices = [
        g.add_vertex(t, t, i, properties={"perf_class": c} if c else None) for t, i, c in leaves
    ]
    policy = POLICIES[name]()
    for a in ancestors:  # nodes whose visit is open: their factor is in the running sum
        assert policy.dom_discover_vtx(g, a) == 0
    for u in vertices:
        fast = policy.leaf_score(g, u)
        if fast is None:  # the policy declines (a node of a node-centric policy)
            assert g.types[u] == "node" and policy.node_centric
            continue
        assert fast == _hooks_score(policy, g, u, [])
