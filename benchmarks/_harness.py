"""Small shared helpers for the benchmark scripts: timing, percentiles, machine info, JSON."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["machine_info", "percentile", "summarize", "time_each", "write_json"]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values``, by linear interpolation."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    pos = (len(ordered) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def summarize(values: Sequence[float]) -> dict[str, float]:
    """``min``, ``median``, ``p90`` and ``max`` of ``values``."""
    return {
        "min": min(values),
        "median": statistics.median(values),
        "p90": percentile(values, 90),
        "max": max(values),
    }


def time_each(fn: Callable[..., Any], calls: Iterable[tuple]) -> list[float]:
    """Seconds taken by each ``fn(*args)`` for ``args`` in ``calls`` (timed one by one)."""
    clock = time.perf_counter
    out = []
    append = out.append
    for args in calls:
        t0 = clock()
        fn(*args)
        append(clock() - t0)
    return out


def machine_info(repo: Path) -> dict[str, Any]:
    """Platform, Python, CPU count, load average and git commit, for result files."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "commit": commit or "unknown",
        "date": time.strftime("%Y-%m-%d"),
    }


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as indented JSON to ``path`` (parent folders are created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
