"""The ``python3 -m fluxgraph`` planner demo."""

from __future__ import annotations

from fluxgraph.__main__ import main


def test_main_prints_worked_example(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "scheduled points (time:free): t0:0 t1:5 t4:8 t6:1 t7:8" in out
    assert "5 units for 2 ticks at t1? yes" in out
    assert "5 units for 2 ticks at t6? no" in out
    assert "earliest start of 6 units for 1 tick(s): t5" in out
    assert "earliest start of 6 units for 2 tick(s): t7" in out
