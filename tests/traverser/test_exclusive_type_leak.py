"""Quirk 10: exclusive resource types from a request with a bad duration leak to later requests.

The reference primes the request (adding each ``exclusive: true`` resource's type to the
exclusive types) before it validates the duration, and the error path does not restore the
set: from then on every vertex of that type is allocated whole with its subtree.
"""

from __future__ import annotations

from errno import EINVAL
from pathlib import Path

from fluxgraph import jobspec
from fluxgraph.matcher import Matcher
from fluxgraph.readers import load
from fluxgraph.writers.sink import SelectionCollector

TINY = Path(__file__).resolve().parents[2] / "grug_recipes" / "tiny.graphml"


def _spec(resources: list, duration: float):
    return jobspec.load(
        {
            "version": 9999,
            "resources": resources,
            "attributes": {"system": {"duration": duration}},
            "tasks": [{"command": ["app"], "slot": "task", "count": {"per_slot": 1}}],
        }
    )


SLOT = {"type": "slot", "count": 1, "label": "task", "with": [{"type": "core", "count": 1}]}
EXCLUSIVE_NODE = [{"type": "node", "count": 1, "exclusive": True, "with": [SLOT]}]


def _allocated(m: Matcher, job_id: int) -> list[str]:
    out = SelectionCollector()
    assert m.run(_spec([SLOT], 60), "allocate", job_id, out).rc == 0
    return [v.type for v in out.vertices]


def test_bad_duration_leaks_the_exclusive_node_type():
    m = Matcher(load(TINY), "CA", "high")
    assert _allocated(m, 1).count("core") == 1
    for duration in (-5, float("nan"), 3153600001):
        out = m.run(_spec(EXCLUSIVE_NODE, duration), "allocate", 2, SelectionCollector())
        assert (out.rc, out.errno) == (-1, EINVAL)
    # node is now an exclusive type: a one-core slot takes its whole node
    g = m.graph
    per_node = len(g.by_type["core"]) // len(g.by_type["node"])
    assert _allocated(m, 3).count("core") == per_node > 1


def test_valid_requests_restore_the_exclusive_types():
    m = Matcher(load(TINY), "CA", "high")
    assert m.run(_spec(EXCLUSIVE_NODE, 60), "allocate", 1, SelectionCollector()).rc == 0
    assert _allocated(m, 2).count("core") == 1
