"""The ``rabbit`` match policy on its own: pack and spread against ``low`` (spec §4.4)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fluxgraph.errors import MatchError
from fluxgraph.machines import load_machine
from fluxgraph.matcher import Matcher
from fluxgraph.policies.rabbit import RabbitStorage

ROOT = Path(__file__).resolve().parents[2]
JOBSPEC = ROOT / "jobspecs" / "rabbit-node-local.yaml"  # 6 nodes x (50 GiB, 1 namespace)


def nodes_per_chassis(policy) -> dict[str, int]:
    m = Matcher(load_machine(ROOT / "grug_recipes" / "elcap-tiny.graphml"), policy=policy)
    r = m.match(JOBSPEC)
    g = m.graph
    return dict(
        Counter(
            g.paths[v.vid]["containment"].split("/")[2] for v in r.resources if v.type == "node"
        )
    )


@pytest.mark.parametrize(
    ("policy", "layout"),
    [
        ("low", {"chassis0": 3, "chassis1": 2, "chassis2": 1}),  # neither packed nor spread
        (RabbitStorage("pack"), {"chassis0": 3, "chassis1": 3}),  # namespace-bound: 3 a chassis
        (RabbitStorage("spread"), {"chassis0": 2, "chassis1": 2, "chassis2": 2}),
    ],
)
def test_slot_groups_by_chassis(policy, layout):
    assert nodes_per_chassis(policy) == layout


def test_unknown_mode_is_an_error():
    with pytest.raises(MatchError, match="compute must be one of"):
        RabbitStorage("round-robin")
