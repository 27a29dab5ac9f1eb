"""grug2dot: recipe graphs as DOT, options, exit codes and messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from fluxgraph.grug2dot import USAGE, main

RECIPES = Path(__file__).resolve().parents[2] / "grug_recipes"
SHARED_GRUGS = (
    Path(__file__).resolve().parents[2] / ".." / "shared" / "conformance" / "data" / "data"
    / "resource" / "grugs"
)  # fmt: skip


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(args)
    out, err = capsys.readouterr()
    return rc, out, err


def test_grug2dot_writes_stem_dot_in_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run([str(RECIPES / "tiny.graphml")], capsys) == (0, "", "")
    assert (tmp_path / "tiny.dot").read_text() == (
        "digraph G {\n"
        '0[label="tiny"];\n'
        '1[label="node"];\n'
        '2[label="socket"];\n'
        '3[label="core"];\n'
        '4[label="gpu"];\n'
        '5[label="memory"];\n'
        '0->1 [label="contains"];\n'
        '1->2 [label="contains"];\n'
        '2->3 [label="contains"];\n'
        '2->4 [label="contains"];\n'
        '2->5 [label="contains"];\n'
        "}\n"
    )


def test_grug2dot_more_adds_subsystem_size_method_and_scale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(["--more", str(RECIPES / "multi-subsystem.graphml")], capsys)[0] == 0
    lines = (tmp_path / "multi-subsystem.dot").read_text().splitlines()
    assert '10[label="power:power:20"];' in lines
    assert '8->9 [label="supplies_to:ASSOCIATE_IN:1"];' in lines
    assert '0->1 [label="contains:MULTIPLY:2"];' in lines


def test_grug2dot_matches_reference_examples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The lines the spec quotes for the reference's tiny.graphml and power.graphml."""
    if not SHARED_GRUGS.is_dir():
        pytest.skip("../shared is absent")
    monkeypatch.chdir(tmp_path)
    assert run([str(SHARED_GRUGS / "tiny.graphml")], capsys)[0] == 0
    tiny = (tmp_path / "tiny.dot").read_text().splitlines()
    assert tiny[1] == '0[label="tiny"];' and tiny[7] == '6[label="gpu"];'
    assert [line.split(" ")[0] for line in tiny[8:-1]] == [
        "0->1", "1->2", "2->3", "3->4", "3->6", "3->5",
    ]  # fmt: skip
    assert run(["-m", str(SHARED_GRUGS / "power.graphml")], capsys)[0] == 0
    power = (tmp_path / "power.dot").read_text().splitlines()
    assert '0[label="containment:power:1"];' in power
    assert '8->10 [label="supplies_to:ASSOCIATE_IN:1"];' in power
    assert '10->12 [label="supplies_to:ASSOCIATE_BY_PATH_IN:1"];' in power


def test_grug2dot_help_prints_usage_and_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["-h"], capsys) == (0, "", USAGE)
    assert run(["--help", "x.graphml"], capsys) == (0, "", USAGE)


@pytest.mark.parametrize("args", [[], ["a.graphml", "b.graphml"], ["-m"]])
def test_grug2dot_needs_exactly_one_recipe(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(args, capsys) == (1, "", USAGE)


def test_grug2dot_unknown_option_prints_usage(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(["-x", "a.graphml"], capsys)
    assert rc == 1 and err.endswith(USAGE)


def test_grug2dot_unreadable_or_malformed_recipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad.graphml"
    bad.write_text("<graphml><key id='k' for='vertex' attr.name='type' attr.type='string'/>")
    assert run([str(bad)], capsys) == (255, "", f"Error in reading {bad}\n")
    assert run(["missing.graphml"], capsys) == (255, "", "Error in reading missing.graphml\n")
    assert not list(tmp_path.glob("*.dot"))


def test_grug2dot_write_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.dot").mkdir()
    assert run([str(RECIPES / "tiny.graphml")], capsys) == (255, "", "Error in writing tiny.dot\n")
