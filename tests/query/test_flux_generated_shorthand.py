"""The t3039, t3040 and t3041 cases, whose graph the suite makes with flux-core commands.

Each script's first test runs ``flux R encode --hosts=compute[1-N] --cores=... --gpu=...`` and
``flux ion-R encode``; the inputs below are those documents written by hand (``_flux_generated``).
The checks are the scripts' own: ``jq -S 'del(.execution.starttime, .execution.expiration)'``
comparisons (equal parsed documents), greps, and ``jq -e`` tests. The expected JGF files of t3040
are not shared, so where a case compares with ``t3040_expected_match1.json`` the test compares with
the case that the script says produces that same file.
"""

from __future__ import annotations

import json

import pytest
from _flux_generated import SHARED, ion_r_encode, r_doc, run_query, without_times

JOBSPECS = SHARED / "conformance/data/data/resource/jobspecs"
T3039 = JOBSPECS / "load_format/t3039.yaml"
T3040 = JOBSPECS / "match_format/t3040.yaml"
T3041 = JOBSPECS / "load_format/t3041.yaml"
#: t3040_only_node.yaml (t3040:04's ``match_only_nodes_cmd``), not among the shared files.
ONLY_NODE = """version: 9999
resources:
  - type: node
    exclusive: true
    count: 1
attributes:
  system:
    duration: 3600
tasks:
  - command: [ \\"app\\" ]
    slot: default
    count:
      per_slot: 1
"""


@pytest.fixture(autouse=True)
def _shared():
    if not JOBSPECS.is_dir():
        pytest.skip(f"shared conformance data not found at {JOBSPECS}")


def _r(nodes: int, cores: int, gpus: int) -> dict:
    """``flux R encode --hosts=compute[1-nodes] --cores=0-(cores-1) --gpu=0-(gpus-1)``."""
    children = {"core": f"0-{cores - 1}", "gpu": f"0-{gpus - 1}"}
    return r_doc([(f"0-{nodes - 1}", children)], f"compute[1-{nodes}]")


def _r_jgf(r: dict, nodes: int) -> dict:
    return ion_r_encode(r, [f"compute{i}" for i in range(1, nodes + 1)])


def _write(path, doc) -> str:
    path.write_text(json.dumps(doc, sort_keys=True, indent=2))
    return str(path)


def _first_line(tmp_path, options, commands, output="out") -> dict:
    """``head -n1`` of the ``-t`` file, parsed."""
    rc, _, err, text = run_query(tmp_path, options, commands, output=output)
    assert rc == 0, err
    return json.loads(text.splitlines()[0])


def _pretty(doc) -> str:
    """``jq -S .`` (keys sorted, two-space indent)."""
    return json.dumps(doc, sort_keys=True, indent=2) + "\n"


def _allocate(jobspec) -> str:
    return f"match allocate {jobspec}\nquit\n"


# t3039 -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "fmt"),
    [
        pytest.param(None, "rv1exec", id="t3039:03"),
        pytest.param("scheduling", "jgf", id="t3039:04"),
    ],
)
def test_load_format_r_with_scheduling_key_matches_whole_r(tmp_path, key, fmt):
    r = _r(10, 8, 2)
    doc = _r_jgf(r, 10)
    graph = _write(tmp_path / "in.json", doc[key] if key else doc)
    opts = ["-L", graph, "-f", fmt, "-F", "rv1_nosched", "-P", "high"]
    match = _first_line(tmp_path, opts, _allocate(T3039))
    assert without_times(match) == without_times(r)


# t3040 -------------------------------------------------------------------------------------------


@pytest.fixture
def jgf(tmp_path) -> str:
    """t3040:02's ``JGF.json`` (``jq -S .scheduling R_JGF.json``)."""
    return _write(tmp_path / "JGF.json", _r_jgf(_r(10, 8, 2), 10)["scheduling"])


def _shorthand(tmp_path, graph, fmt, policy, jobspec=T3040) -> dict:
    opts = ["-L", graph, "-f", "jgf", "-F", fmt, "-P", policy]
    return _first_line(tmp_path, opts, _allocate(jobspec))


def _grep_checks(doc: dict, *, cores_and_gpus: bool) -> None:
    text = _pretty(doc)
    assert ("core" in text) is cores_and_gpus
    assert ("gpu" in text) is cores_and_gpus
    for word in ("node", "compute1", "cluster"):
        assert word in text
    third = [n for n in doc["graph"]["nodes"] if n["id"] == "23"]
    assert [n["metadata"]["name"] for n in third] == ["compute3"]


def _node_only_shorthand(doc: dict) -> None:
    """A shorthand of the whole machine: cluster0 and the ten nodes, each node exclusive."""
    names = sorted(n["metadata"].get("name", n["metadata"]["type"]) for n in doc["graph"]["nodes"])
    assert names == sorted(["cluster", *(f"compute{i}" for i in range(1, 11))])
    nodes = [n for n in doc["graph"]["nodes"] if n["metadata"]["type"] == "node"]
    assert all(n["metadata"]["exclusive"] for n in nodes)
    assert sorted((e["source"], e["target"]) for e in doc["graph"]["edges"]) == sorted(
        ("0", n["id"]) for n in nodes
    )
    assert doc["writer"] == "fluxion:jgf_shorthand"


def test_jgf_shorthand_jgf_load_matches_whole_r(tmp_path, jgf):  # t3040:02
    opts = ["-L", jgf, "-f", "jgf", "-F", "rv1_nosched", "-P", "high"]
    match = _first_line(tmp_path, opts, _allocate(T3040))
    assert without_times(match) == without_times(_r(10, 8, 2))


def test_jgf_shorthand_lonodex_omits_cores_and_gpus(tmp_path, jgf):  # t3040:03
    match1 = _shorthand(tmp_path, jgf, "jgf_shorthand", "lonodex")
    _grep_checks(match1, cores_and_gpus=False)
    _node_only_shorthand(match1)


def test_jgf_shorthand_low_emits_cores_and_gpus(tmp_path, jgf):  # t3040:05
    match2 = _shorthand(tmp_path, jgf, "jgf_shorthand", "low")
    _grep_checks(match2, cores_and_gpus=True)
    assert match2.get("writer") is None
    types = [n["metadata"]["type"] for n in match2["graph"]["nodes"]]
    assert (types.count("node"), types.count("core"), types.count("gpu")) == (10, 80, 20)


def _exclusive_jobspec(tmp_path) -> str:
    """``sed "4i\\    exclusive: true" t3040.yaml``."""
    lines = T3040.read_text().splitlines(keepends=True)
    lines.insert(3, "    exclusive: true\n")
    path = tmp_path / "jobspec_exclusive.yaml"
    path.write_text("".join(lines))
    return str(path)


def test_jgf_shorthand_exclusive_nodes_equal_the_lonodex_shorthand(tmp_path, jgf):  # t3040:07
    match3 = _shorthand(tmp_path, jgf, "jgf_shorthand", "high", _exclusive_jobspec(tmp_path))
    _grep_checks(match3, cores_and_gpus=False)
    assert _pretty(match3) == _pretty(_shorthand(tmp_path, jgf, "jgf_shorthand", "lonodex"))


def test_jgf_shorthand_output_reloads_without_cores(tmp_path, jgf):  # t3040:08
    match3 = _shorthand(tmp_path, jgf, "jgf_shorthand", "high", _exclusive_jobspec(tmp_path))
    graph = _write(tmp_path / "match3.json", match3)
    opts = ["-L", graph, "-f", "jgf", "-F", "jgf", "-P", "low"]
    rc, _, err, text = run_query(tmp_path, opts, _allocate(T3040), output="shorthand3.out")
    assert rc == 0, err
    assert "No matching resources found" in text
    only_node = tmp_path / "only_node.yaml"
    only_node.write_text(ONLY_NODE)
    rc, _, err, text = run_query(tmp_path, opts, _allocate(only_node), output="shorthand3-2.out")
    assert rc == 0, err
    assert "No matching resources found" not in text
    assert "cluster" in text and "node" in text


def test_rv1_shorthand_hinodex_scheduling_equals_the_lonodex_shorthand(tmp_path, jgf):  # t3040:10
    match5 = _shorthand(tmp_path, jgf, "rv1_shorthand", "hinodex")
    text = _pretty(match5)
    assert "core" in text and "gpu" in text
    match5_jgf = match5["scheduling"]
    _grep_checks(match5_jgf, cores_and_gpus=False)
    assert _pretty(match5_jgf) == _pretty(_shorthand(tmp_path, jgf, "jgf_shorthand", "lonodex"))


# t3041 -------------------------------------------------------------------------------------------


@pytest.fixture
def jgf41(tmp_path) -> str:
    """t3041's ``JGF.json``: compute[1-20], cores 0-15, gpus 0-3."""
    return _write(tmp_path / "JGF41.json", _r_jgf(_r(20, 16, 4), 20)["scheduling"])


def _shorthand41(tmp_path, jgf41) -> dict:
    opts = ["-L", jgf41, "-f", "jgf_shorthand", "-F", "jgf_shorthand", "-P", "lonodex"]
    return _first_line(tmp_path, opts, _allocate(T3041), output="jgf1.out")


def test_jgf_shorthand_reader_matches_whole_r(tmp_path, jgf41):  # t3041:02
    opts = ["-L", jgf41, "-f", "jgf_shorthand", "-F", "rv1_nosched", "-P", "high"]
    match = _first_line(tmp_path, opts, _allocate(T3041))
    assert without_times(match) == without_times(_r(20, 16, 4))


def test_jgf_shorthand_reader_emits_node_only_shorthand(tmp_path, jgf41):  # t3041:03
    text = _pretty(_shorthand41(tmp_path, jgf41))
    assert "core" not in text and "gpu" not in text
    assert "node" in text and "compute1" in text


def test_jgf_shorthand_update_allocates_whole_nodes(tmp_path, jgf41):  # t3041:04
    shorthand = _write(tmp_path / "shorthand.json", _shorthand41(tmp_path, jgf41))
    opts = ["-L", jgf41, "-f", "jgf_shorthand", "-F", "jgf", "-P", "high"]
    commands = f"update allocate jgf_shorthand {shorthand} 0 0 5\nf sched-now=allocated\nquit\n"
    rc, _, err, text = run_query(tmp_path, opts, commands, output="jgf2.out")
    assert rc == 0, err
    allocated = text.splitlines(keepends=True)[-4]  # tail -n4 | head -n1: the find result
    doc = json.loads(allocated)
    for word in ("core", "gpu", "node", "compute1"):
        assert word in allocated
    # (t3041:05's follow-up check) every core and gpu of the 20 nodes is allocated
    types = [n["metadata"]["type"] for n in doc["graph"]["nodes"]]
    assert (types.count("core"), types.count("gpu")) == (320, 80)
