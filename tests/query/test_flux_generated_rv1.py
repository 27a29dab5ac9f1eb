"""The t3027 (RV1) cases whose R documents and jobspecs the suite makes with flux-core commands.

Inputs are written by hand as ``flux R encode``/``flux R append``/``flux ion-R encode`` and
``flux submit --dry-run`` print them (see ``_flux_generated``); the checks are the script's own:
``print_ranks_nodes`` of the emitted R against that of the input R (or the script's literal list),
and ``test_must_fail`` for the malformed inputs.
"""

from __future__ import annotations

import json
import time

import pytest
from _flux_generated import (
    SHARED,
    dry_run_jobspec,
    ion_r_encode,
    print_ranks_nodes,
    r_doc,
    run_query,
)

#: t3027:04/07 input: three ``flux R encode`` calls joined by ``flux R append``.
HETERO = r_doc(
    [("79-83", {"core": "0-3"}), ("91-92", {"core": "0-2"}), ("97,99", {"core": "3"})],
    "fluke[82-86,94-95,100,102]",
)
HETERO_HOSTS = [f"fluke{i}" for i in (82, 83, 84, 85, 86, 94, 95, 100, 102)]
HIGH_IDS = [*range(1, 11), 4432, 4832, 5318, 5761, 6204, 6647]
EXTREME_IDS = [*range(1, 11), 4432, 4832, 5318, 5761, 6204000000, 6647000000]
DURATION3600 = SHARED / "conformance/data/data/resource/jobspecs/RV/duration3600.yaml"


def _write(path, doc) -> str:
    path.write_text(json.dumps(doc))
    return str(path)


def _match(tmp_path, graph, fmt, policy, jobspec) -> dict:
    """``resource-query -L graph -f fmt -F rv1_nosched -P policy`` matching one jobspec."""
    spec = _write(tmp_path / "job.json", jobspec)
    rc, _, err, text = run_query(
        tmp_path,
        ["-L", graph, "-f", fmt, "-F", "rv1_nosched", "-P", policy],
        f"match allocate {spec}\nquit\n",
        output="R.out",
    )
    assert rc == 0, err
    lines = [line for line in text.splitlines() if "INFO" not in line]
    assert len(lines) == 1, text
    return json.loads(lines[0])


def _hetero_graph(tmp_path, fmt) -> str:
    if fmt == "jgf":
        return _write(tmp_path / "jgf4.json", ion_r_encode(HETERO, HETERO_HOSTS)["scheduling"])
    return _write(tmp_path / "c7.json", HETERO)


def _high_node_r(ids, *, jgf: bool, tmp_path) -> tuple[str, dict]:
    hostlist = "fluke[" + ",".join(["1-10", *(str(i) for i in ids[10:])]) + "]"
    doc = r_doc([("0-15", {"core": "0-93"})], hostlist)
    if jgf:
        graph = ion_r_encode(doc, [f"fluke{i}" for i in ids])["scheduling"]
        return _write(tmp_path / "c.json", graph), doc
    return _write(tmp_path / "out.json", doc), doc


@pytest.mark.parametrize("fmt", ["jgf", "rv1exec"])  # t3027:05 (jgf), t3027:08 (rv1exec)
def test_rv1_heterogeneous_lonode_takes_the_lowest_ranks_first(tmp_path, fmt):
    out = _match(tmp_path, _hetero_graph(tmp_path, fmt), fmt, "lonode", dry_run_jobspec(14))
    assert print_ranks_nodes(out) == ["79-81", "82", "fluke[82-85]"]


def test_rv1_nosched_heterogeneous_whole_config_reproduces_the_input(tmp_path):  # t3027:07
    out = _match(
        tmp_path, _hetero_graph(tmp_path, "rv1exec"), "rv1exec", "lonode", dry_run_jobspec(28)
    )
    assert print_ranks_nodes(out) == print_ranks_nodes(HETERO)


def test_rv1_nosched_nonconforming_hostnames(tmp_path):  # t3027:10
    doc = r_doc([("0-1", {"core": "0-3"})], "foo,bar")
    out = _match(
        tmp_path, _write(tmp_path / "c10.json", doc), "rv1exec", "lonode", dry_run_jobspec(8)
    )
    assert print_ranks_nodes(out) == print_ranks_nodes(doc) == ["0-1", "foo,bar"]


def test_rv1_same_hostnames_through_ion_r_jgf(tmp_path):  # t3027:11
    doc = r_doc([("0-1", {"core": "0-3"})], "fluke,fluke")
    graph = _write(tmp_path / "c11.json", ion_r_encode(doc, ["fluke", "fluke"])["scheduling"])
    out = _match(tmp_path, graph, "jgf", "lonode", dry_run_jobspec(8))
    assert print_ranks_nodes(out) == print_ranks_nodes(doc)


@pytest.mark.parametrize(
    ("ids", "jgf", "policy"),
    [
        pytest.param(HIGH_IDS, False, "lonode", id="t3027:12"),
        pytest.param(HIGH_IDS, True, "lonode", id="t3027:14"),
        pytest.param(EXTREME_IDS, True, "lonode", id="t3027:15"),
        pytest.param(HIGH_IDS, False, "first", id="t3027:16"),
        pytest.param(EXTREME_IDS, False, "first", id="t3027:17"),
    ],
)
def test_rv1_high_node_numbers_schedule_every_node(tmp_path, ids, jgf, policy):
    graph, doc = _high_node_r(ids, jgf=jgf, tmp_path=tmp_path)
    fmt = "jgf" if jgf else "rv1exec"
    out = _match(tmp_path, graph, fmt, policy, dry_run_jobspec(16, cores=94))
    assert print_ranks_nodes(out) == print_ranks_nodes(doc)


def _load_fails(tmp_path, doc) -> str:
    graph = _write(tmp_path / "bad.json", doc)
    rc, out, err, _ = run_query(
        tmp_path, ["-L", graph, "-f", "rv1exec", "-F", "rv1_nosched", "-P", "first"], "quit\n"
    )
    assert rc not in (0, 127), (rc, out, err)  # test_must_fail
    assert "error generating resources" in err
    return err


def test_rv1exec_node_number_beyond_int64_fails_to_load(tmp_path):  # t3027:18
    doc = r_doc([("0", {"core": "0-93"})], "fluke1")
    doc["execution"]["nodelist"] = ["fluke9223372036854775808"]
    assert "fluke9223372036854775808" in _load_fails(tmp_path, doc)


def test_rv1exec_node_number_at_int64_max_loads(tmp_path):  # the boundary next to t3027:18
    doc = r_doc([("0", {"core": "0-1"})], "fluke9223372036854775807")
    out = _match(
        tmp_path, _write(tmp_path / "max.json", doc), "rv1exec", "first", dry_run_jobspec(2)
    )
    assert out["execution"]["nodelist"] == ["fluke9223372036854775807"]


def test_rv1exec_integer_rank_fails_to_load(tmp_path):  # t3027:19
    doc = r_doc([("0", {"core": "0-1"})], "fluke1")
    doc["execution"]["R_lite"][0]["rank"] = 0
    _load_fails(tmp_path, doc)


def test_rv1exec_malformed_rank_idset_fails_to_load(tmp_path):  # t3027:20
    doc = r_doc([("0-1", {"core": "0-1"})], "fluke[0-1]")
    doc["execution"]["R_lite"][0]["rank"] = "0^2"
    _load_fails(tmp_path, doc)


def test_rv1exec_starttime_and_expiration_do_not_change_a_match(tmp_path):  # t3027:21
    if not DURATION3600.is_file():
        pytest.skip(f"shared conformance data not found at {DURATION3600}")
    now = int(time.time())
    outputs = []
    for start, end in ((now, now + 20), (0.0, 0.0)):
        doc = r_doc([("0-1", {"core": "0-1"})], "fluke[0-1]")
        doc["execution"].update(starttime=start, expiration=end)
        graph = _write(tmp_path / "out21.json", doc)
        rc, _, err, text = run_query(
            tmp_path,
            ["-L", graph, "-f", "rv1exec", "-F", "rv1_nosched", "-P", "first"],
            f"match allocate {DURATION3600}\nquit\n",
            output="R21.out",
        )
        assert rc == 0, err
        outputs.append(text)
    # resource-query ignores the R's time window (io-and-cli-semantics §4.1): the result is the
    # same as with a zero window, and this graph (no rack, no socket) cannot hold the jobspec.
    assert outputs[0] == outputs[1]
    assert "No matching resources found" in outputs[0]
