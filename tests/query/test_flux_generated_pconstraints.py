"""The t3034 property-constraint cases whose inputs the suite makes with flux-core commands.

``hetero.json`` is what t3034:01 builds with ``flux R encode ... -p prop:ranks`` and
``flux R append``: foo2 (rank 0: cores 0-1, gpus 0-1, arm-v9@core), foo3 (rank 1: core 0,
arm-v8@core) and foo[1,4] (ranks 2-3: cores 0-1, gpus 0-1, arm-v9@core, amd-mi60@gpu). It is
given in three layouts: R_lite merged by identical children (as ``flux R append`` prints it), one
R_lite entry per encode call, and that again with one ``nodelist`` string per call; all must
behave the same. The jobspecs are t3034:02's ``flux submit [...] --requires=... --dry-run
hostname``. Checks are the script's greps and jq.
"""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest
from _flux_generated import dry_run_jobspec, r_doc, run_query

PROPERTIES = {"arm-v9@core": "0,2-3", "arm-v8@core": "1", "amd-mi60@gpu": "2-3"}
TWO_CORES_TWO_GPUS = {"core": "0-1", "gpu": "0-1"}


def _split_nodelist(doc: dict) -> dict:
    doc["execution"]["nodelist"] = ["foo2", "foo3", "foo[1,4]"]
    return doc


LAYOUTS = {
    "appended": r_doc(
        [("0,2-3", TWO_CORES_TWO_GPUS), ("1", {"core": "0"})], "foo[2-3,1,4]", PROPERTIES
    ),
    "per-encode": r_doc(
        [("0", TWO_CORES_TWO_GPUS), ("1", {"core": "0"}), ("2-3", TWO_CORES_TWO_GPUS)],
        "foo[2-3,1,4]",
        PROPERTIES,
    ),
    "split-nodelist": _split_nodelist(
        r_doc(
            [("0", TWO_CORES_TWO_GPUS), ("1", {"core": "0"}), ("2-3", TWO_CORES_TWO_GPUS)],
            "",
            PROPERTIES,
        )
    ),
}
JOBS = {
    "arm-v9": dry_run_jobspec(1, constraints={"properties": ["arm-v9@core"]}),
    "amd-mi50": dry_run_jobspec(1, constraints={"properties": ["amd-m50@gpu"]}),
    "arm-v9+gpu": dry_run_jobspec(2, cores=1, gpus=2, constraints={"properties": ["arm-v9@core"]}),
    "not-arm-v9": dry_run_jobspec(1, constraints={"properties": ["^arm-v9@core"]}),
    "gpu": dry_run_jobspec(1, cores=1, gpus=1),
}
HINODEX = ["-S", "CA", "-P", "hinodex"]


@pytest.fixture(params=sorted(LAYOUTS))
def hetero(request, tmp_path) -> str:
    path = tmp_path / "hetero.json"
    path.write_text(json.dumps(LAYOUTS[request.param]))
    return str(path)


def _allocate(tmp_path, graph, fmt, job, match_format="rv1_nosched") -> str:
    spec = tmp_path / f"job.{job}.json"
    spec.write_text(json.dumps(JOBS[job]))
    rc, _, err, text = run_query(
        tmp_path,
        ["-L", graph, "-f", fmt, *HINODEX, "-F", match_format],
        f"match allocate {spec}\nquit\n",
        output="R.out",
    )
    assert rc == 0, err
    return text


def _r(text: str) -> dict:
    lines = [line for line in text.splitlines() if "INFO" not in line]
    assert len(lines) == 1, text
    return json.loads(lines[0])


def _host(text: str) -> str:
    """``jq -r '.execution.nodelist[]'`` of the match output."""
    return "\n".join(_r(text)["execution"]["nodelist"])


def test_pconstraints_nonexistent_property_finds_nothing(tmp_path, hetero):  # t3034:05
    assert "No matching resources found" in _allocate(tmp_path, hetero, "rv1exec", "amd-mi50")


@pytest.mark.parametrize(
    ("job", "host"),
    [
        pytest.param("arm-v9+gpu", "foo[2,4]", id="t3034:06"),
        pytest.param("gpu", "foo4", id="t3034:07"),
        pytest.param("not-arm-v9", "foo3", id="t3034:08"),
    ],
)
def test_pconstraints_hinodex_picks_the_highest_eligible_nodes(tmp_path, hetero, job, host):
    assert _host(_allocate(tmp_path, hetero, "rv1exec", job)) == host


def test_pconstraints_graphml_output_carries_properties(tmp_path, hetero):  # t3034:10
    options = ["-L", hetero, "-f", "rv1exec", *HINODEX, "-F", "rv1_nosched"]
    options += ["-o", str(tmp_path / "008"), "-g", "graphml"]
    rc, _, err, _ = run_query(tmp_path, options, "quit\n", output="008.R.out")
    assert rc == 0, err
    # The script only requires success; the written graph must also parse and keep the properties.
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    root = ElementTree.parse(tmp_path / "008.graphml").getroot()
    keys = {k.get("attr.name"): k.get("id") for k in root.findall("g:key", ns)}
    props = {}
    for node in root.iterfind(".//g:node", ns):
        data = {d.get("key"): d.text for d in node.findall("g:data", ns)}
        props[data[keys["name"]]] = data[keys["props"]]
    expected = {
        "foo2": {"arm-v9@core"},
        "foo3": {"arm-v8@core"},
        "foo1": {"arm-v9@core", "amd-mi60@gpu"},
        "foo4": {"arm-v9@core", "amd-mi60@gpu"},
        "core0": set(),
    }
    for name, keys in expected.items():
        assert {p for p in PROPERTIES if p in props[name]} == keys, (name, props[name])


def test_pconstraints_rv1_scheduling_node_keeps_its_properties(tmp_path, hetero):  # t3034:11
    doc = _r(_allocate(tmp_path, hetero, "rv1exec", "arm-v9", "rv1"))
    nodes = [
        n["metadata"]
        for n in doc["scheduling"]["graph"]["nodes"]
        if n["metadata"]["type"] == "node"
    ]
    assert len(nodes) == 1
    assert sorted(nodes[0]["properties"]) == ["amd-mi60@gpu", "arm-v9@core"]
    assert doc["execution"]["nodelist"] == [f"{nodes[0]['basename']}{nodes[0]['id']}"]


def test_pconstraints_rv1_scheduling_reloads_as_jgf(tmp_path, hetero):  # t3034:12
    doc = _r(_allocate(tmp_path, hetero, "rv1exec", "arm-v9", "rv1"))
    jgf = tmp_path / "jgf.json"
    jgf.write_text(json.dumps(doc["scheduling"], indent=2))
    assert _host(_allocate(tmp_path, str(jgf), "jgf", "arm-v9")) == "foo4"
