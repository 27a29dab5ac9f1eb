"""The Batsim JSON reader: ids, delay profiles, resources, errors with JSON paths."""

from __future__ import annotations

import json
import warnings

import pytest

from fluxgraph.errors import WorkloadError
from fluxgraph.workload import WorkloadWarning, bundled_trace, read_batsim

PROFILES = {"p60": {"type": "delay", "delay": 60}, "p90": {"type": "delay", "delay": 90.4}}


def write(tmp_path, doc, name: str = "w.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def read(path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read_batsim(path, **kwargs)


def job(i, subtime=0, res=1, profile="p60", **more):
    return {"id": i, "subtime": subtime, "res": res, "profile": profile, **more}


def doc(*jobs, nb_res=8, profiles=PROFILES):
    return {"nb_res": nb_res, "jobs": list(jobs), "profiles": profiles}


def test_the_bundled_sample_reads():
    w = read(bundled_trace("sample-batsim.json"))
    assert (len(w), w.metadata["nb_res"], w.max_nodes, w.name) == (20, "16", 16, "sample-batsim")
    assert sorted(j.id for j in w) == list(range(1, 21))
    first = w[0]
    assert first.extra["orig_id"] == "w0!1" and first.extra["profile"] == "delay_120"
    assert all(j.nodes == j.procs <= 16 and j.runtime <= j.walltime for j in w)


def test_delay_gives_the_runtime_and_walltime_defaults_to_it(tmp_path):
    w = read(
        write(
            tmp_path,
            doc(
                job(1, walltime=100),
                job(2, 5, profile="p90"),
                job(3, 6, walltime=-1),
                job(4, 7, walltime=30),
            ),
        )
    )
    assert [(j.id, j.submit, j.runtime, j.walltime) for j in w] == [
        (1, 0, 60, 100),
        (2, 5, 90, 90),
        (3, 6, 60, 60),
        (4, 7, 30, 30),  # ran past its walltime: killed at it
    ]
    assert w.metadata["killed_at_walltime"] == "1"


def test_ids_keep_their_number_and_the_original_text(tmp_path):
    w = read(write(tmp_path, doc(job("w0!3"), job(7, 1), job("w1!3", 2), job("x", 3))))
    assert [j.id for j in w] == [3, 7, 8, 9]
    assert [j.extra.get("orig_id") for j in w] == ["w0!3", None, "w1!3", "x"]


def test_res_is_nodes_or_cores_and_other_keys_go_to_extra(tmp_path):
    path = write(tmp_path, doc(job(1, res=4, user="amy")))
    node = read(path)[0]
    assert (node.nodes, node.procs, node.extra["user"]) == (4, 4, "amy")
    core = read(path, res_unit="core")
    assert (core[0].nodes, core[0].procs, core.max_procs, core.max_nodes) == (0, 4, 8, None)
    with pytest.raises(WorkloadError, match="res_unit must be 'node' or 'core'"):
        read(path, res_unit="gpu")


def test_bad_jobs_are_dropped_and_counted(tmp_path):
    profiles = {**PROFILES, "neg": {"type": "delay", "delay": -5}}
    path = write(
        tmp_path,
        doc(job(1, res=0), job(2, profile="neg"), job(3, subtime=-1), job(4), profiles=profiles),
    )
    with pytest.warns(WorkloadWarning, match="dropped 3 jobs"):
        w = read_batsim(path)
    assert [j.id for j in w] == [4]
    assert dict(w.dropped) == {"procs <= 0": 1, "negative runtime": 1, "negative submit time": 1}


def test_a_profile_that_is_not_a_delay_is_an_error_or_skipped(tmp_path):
    profiles = {**PROFILES, "par": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}}
    path = write(tmp_path, doc(job(1), job(2, profile="par"), job(3), profiles=profiles))
    with pytest.raises(WorkloadError) as info:
        read(path)
    assert str(info.value) == (
        f"{path}: field jobs[1].profile: profile 'par' has type 'parallel_homogeneous'; "
        "only 'delay' profiles are read"
    )
    with pytest.warns(WorkloadWarning, match="skipped 1 malformed lines"):
        w = read_batsim(path, lenient=True)
    assert [j.id for j in w] == [1, 3]
    assert w.skipped_lines[0][0] == 0 and "jobs[1].profile" in w.skipped_lines[0][1]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (doc(job(1), job(2, res="x")), "field jobs[1].res: 'x' is not a number"),
        (doc(job(1, res=1.5)), "field jobs[0].res: 1.5 is not an integer"),
        (doc(job(1, profile="nope")), "field jobs[0].profile: unknown profile 'nope'"),
        (doc({"id": 1, "res": 1, "profile": "p60"}), "field jobs[0].subtime: missing 'subtime'"),
        (doc(job(True)), "field jobs[0].id: True is not a string or an integer"),
        (doc(job(1, walltime="1h")), "field jobs[0].walltime: '1h' is not a number"),
        (doc(7), "field jobs[0]: a job must be an object"),
        ({"jobs": []}, "field nb_res: missing 'nb_res'"),
        (doc(nb_res=0), "field nb_res: 0 is not a positive integer"),
        ({"nb_res": 1, "jobs": {}}, "field jobs: 'jobs' must be an array"),
        (doc(profiles={"d": {"type": "delay"}}), "field profiles.d: missing 'delay'"),
        ([1, 2], "the top level must be an object"),
        ('{"nb_res": 4,\n "jobs": [}', "invalid JSON: Expecting value"),
    ],
)
def test_errors_name_the_file_and_the_json_path(tmp_path, document, message):
    path = write(tmp_path, document)
    with pytest.raises(WorkloadError) as info:
        read(path)
    assert str(info.value).removeprefix(f"{path}").lstrip(":0123456789 ") == message


def test_invalid_json_names_its_line(tmp_path):
    with pytest.raises(WorkloadError) as info:
        read(write(tmp_path, '{"nb_res": 4,\n "jobs": [}'))
    assert info.value.line == 2


def test_limit(tmp_path):
    w = read(write(tmp_path, doc(*(job(i, i) for i in range(1, 30)))), limit=5)
    assert [j.id for j in w] == [1, 2, 3, 4, 5]
