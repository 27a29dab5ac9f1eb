"""Hand-written stand-ins for the flux-core commands that make the inputs of some suite cases.

* ``flux R encode`` writes an RFC 20 R version 1 document; :func:`r_doc` builds one from R_lite
  entries exactly as the command lays them out (``starttime``/``expiration`` ``0.0``, one
  hostlist string in ``nodelist``, ``properties`` only when ``-p`` was given).
* ``flux ion-R encode`` (flux-sched's test script) adds a ``scheduling`` key holding a JGF graph:
  cluster0, one ``node`` vertex per rank named after its host, one vertex per child id. The
  vertex ids are one counter in creation order; a node's ``id`` is its hostname's digit suffix or,
  when it has none, the counter. :func:`ion_r_encode` builds it.
* ``flux submit/run --dry-run`` prints a version 1 jobspec; :func:`dry_run_jobspec` builds one
  with the ``-N/-n/-c/-g`` shapes and ``--requires`` constraints (RFC 31) the cases use.

Hosts are passed expanded (``hosts``), so these helpers do not depend on fluxgraph's hostlist code.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fluxgraph.query.cli import main

__all__ = [
    "SHARED",
    "count_hosts",
    "dry_run_jobspec",
    "expand_ids",
    "ion_r_encode",
    "print_ranks_nodes",
    "r_doc",
    "run_query",
    "without_times",
]

#: The shared material (../shared beside the repository root).
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"


def expand_ids(idset: str) -> list[int]:
    """The ids of an RFC 22 idset string such as ``"0,2-3"`` (ascending)."""
    ids: list[int] = []
    for part in idset.split(","):
        lo, _, hi = part.partition("-")
        ids.extend(range(int(lo), int(hi or lo) + 1))
    return sorted(ids)


def count_hosts(hostlist: str) -> int:
    """How many hosts an RFC 29 hostlist names (``flux hostlist -c``): 2 for ``h[1018,202]``."""
    count = 0
    for term in re.findall(r"[^,\[]+(?:\[[^\]]*\][^,]*)?", hostlist):
        bracket = re.search(r"\[([^\]]*)\]", term)
        count += len(expand_ids(bracket.group(1))) if bracket else 1
    return count


def r_doc(
    r_lite: Sequence[tuple[str, dict[str, str]]],
    nodelist: str,
    properties: dict[str, str] | None = None,
) -> dict[str, Any]:
    """An R version 1 document as ``flux R encode`` (then ``flux R append``) prints it.

    Parameters
    ----------
    r_lite : (rank idset, children) pairs, e.g. ``("0-9", {"core": "0-7", "gpu": "0-1"})``.
    nodelist : the one hostlist string of ``execution.nodelist``.
    properties : property name -> rank idset (``-p name:ranks``), if any.
    """
    execution: dict[str, Any] = {
        "R_lite": [{"rank": rank, "children": dict(children)} for rank, children in r_lite],
        "starttime": 0.0,
        "expiration": 0.0,
        "nodelist": [nodelist],
    }
    if properties:
        execution["properties"] = dict(properties)
    return {"version": 1, "execution": execution}


def _host_id(host: str, counter: int) -> int:
    suffix = re.search(r"(\d+)$", host)
    return int(suffix.group(1)) if suffix else counter


def _vertex(uid: int, kind: str, name: str, vid: int, rank: int, path: str) -> dict[str, Any]:
    return {
        "id": str(uid),
        "metadata": {
            "type": kind,
            "basename": kind,
            "name": name,
            "id": vid,
            "uniq_id": uid,
            "rank": rank,
            "exclusive": True,
            "unit": "",
            "size": 1,
            "paths": {"containment": path},
        },
    }


def _edge(source: int, target: int) -> dict[str, Any]:
    return {
        "source": str(source),
        "target": str(target),
        "directed": True,
        "metadata": {"name": {"containment": "contains"}},
    }


def ion_r_encode(rv1: dict[str, Any], hosts: Sequence[str]) -> dict[str, Any]:
    """``rv1`` with the ``scheduling`` JGF that ``flux ion-R encode`` adds (hosts in rank order)."""
    nodes = [_vertex(0, "cluster", "cluster0", 0, -1, "/cluster0")]
    edges: list[dict[str, Any]] = []
    counter = 1
    host_iter = iter(hosts)
    for entry in rv1["execution"]["R_lite"]:
        for rank in expand_ids(entry["rank"]):
            host = next(host_iter)
            path = f"/cluster0/{host}"
            node_uid = counter
            nodes.append(_vertex(node_uid, "node", host, _host_id(host, counter), rank, path))
            edges.append(_edge(0, node_uid))
            counter += 1
            for kind, ids in entry["children"].items():
                for i in expand_ids(ids):
                    nodes.append(_vertex(counter, kind, f"{kind}{i}", i, rank, f"{path}/{kind}{i}"))
                    edges.append(_edge(node_uid, counter))
                    counter += 1
    out = dict(rv1)
    out["scheduling"] = {"graph": {"directed": True, "nodes": nodes, "edges": edges}}
    return out


def dry_run_jobspec(
    ntasks: int = 1,
    *,
    cores: int = 1,
    gpus: int = 0,
    nodes: int | None = None,
    constraints: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The jobspec ``flux submit [-N nodes] -n ntasks -c cores -g gpus --dry-run hostname`` prints.

    ``constraints`` is the RFC 31 object ``--requires`` turns into
    ``attributes.system.constraints``.
    """
    slot_with: list[dict[str, Any]] = [{"type": "core", "count": cores}]
    if gpus:
        slot_with.append({"type": "gpu", "count": gpus})
    slot_count = ntasks if nodes is None else ntasks // nodes
    resources: list[dict[str, Any]] = [
        {"type": "slot", "count": slot_count, "with": slot_with, "label": "task"}
    ]
    if nodes is not None:
        resources = [{"type": "node", "count": nodes, "with": resources}]
    system: dict[str, Any] = {
        "duration": 0,
        "cwd": "/tmp",
        "shell": {"options": {"rlimit": {"nofile": 1024, "stack": 8388608}}},
    }
    if constraints is not None:
        system["constraints"] = constraints
    return {
        "resources": resources,
        "tasks": [{"command": ["hostname"], "slot": "task", "count": {"per_slot": 1}}],
        "attributes": {"system": system},
        "version": 1,
    }


def run_query(
    tmp_path: Path, options: Sequence[str], commands: str, *, output: str | None = None
) -> tuple[int, str, str, str]:
    """Run the resource-query CLI in-process from ``tmp_path``.

    Returns (exit status, stdout, stderr, text of the ``-t`` file ``output`` or ``""``).
    Relative paths in ``options``/``commands`` are made absolute against ``tmp_path``.
    """
    argv = [str(tmp_path / a) if (tmp_path / a).is_file() else a for a in options]
    if output is not None:
        argv += ["-t", str(tmp_path / output)]
    out, err = io.StringIO(), io.StringIO()
    rc = main(argv, prog="resource-query", stdin=io.StringIO(commands), stdout=out, stderr=err)
    written = ""
    if output is not None and (tmp_path / output).is_file():
        written = (tmp_path / output).read_text()
    return rc, out.getvalue(), err.getvalue(), written


def print_ranks_nodes(doc: dict[str, Any]) -> list[str]:
    """The suite's ``print_ranks_nodes``: every R_lite rank string and ``nodelist[0]``, sorted."""
    execution = doc["execution"]
    return sorted([e["rank"] for e in execution["R_lite"]] + [execution["nodelist"][0]])


def without_times(doc: dict[str, Any]) -> dict[str, Any]:
    """``jq 'del(.execution.starttime, .execution.expiration)'`` (a copy)."""
    out = json.loads(json.dumps(doc))
    out["execution"].pop("starttime", None)
    out["execution"].pop("expiration", None)
    return out
