"""Shared helpers of the experiment tests: small KTH-prefix experiments and store readers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import yaml


def kth_doc(name: str = "kth", limit: int = 30, **extra) -> dict:
    """A small simulate experiment: KTH prefixes x queue x priority."""
    doc = {
        "name": name,
        "fixed": {"machine": "nodes=100", "trace": "kth-sample.swf", "limit": limit},
        "axes": {"queue": ["fcfs", "easy", "conservative"], "priority": ["fcfs", "sjf"]},
        "metrics": ["mean_wait", "mean_bsld", "node_utilisation", "makespan"],
    }
    doc.update(extra)
    return doc


def write_yaml(path: Path, doc: dict) -> Path:
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def result_rows(out: Path) -> list[tuple]:
    """Every (cell_id, metric, value) of the store in ``out``, sorted."""
    db = sqlite3.connect(out / "results.sqlite")
    try:
        return db.execute("SELECT cell_id, metric, value FROM results ORDER BY 1, 2").fetchall()
    finally:
        db.close()


def statuses(out: Path) -> dict[str, str]:
    db = sqlite3.connect(out / "results.sqlite")
    try:
        return dict(db.execute("SELECT cell_id, status FROM cells"))
    finally:
        db.close()
