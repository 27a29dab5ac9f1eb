"""Figures of the BBSched study: Kiviat charts (paper Figs. 13-14).

>>> import tempfile
>>> kiviat_chart({"a": [1.0, 2.0, 3.0], "b": [3.0, 2.0, 1.0]}, "t",
...              Path(tempfile.mkdtemp()) / "kiviat.png").name
'kiviat.png'
"""

from __future__ import annotations

import math
from pathlib import Path

__all__ = ["kiviat_chart"]


def kiviat_chart(axes: dict[str, list[float]], title: str, path: Path) -> Path | None:
    """Draw the Kiviat (radar) chart of ``axes`` (method -> values, larger is better),
    normalised per axis over the methods as in
    :func:`~fluxgraph.papers.bbsched.metrics.kiviat_areas`;
    ``None`` without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    labels = ["node", "BB", "1/wait", "1/slowdown", "SSD", "1/SSD waste"][
        : len(next(iter(axes.values())))
    ]
    k = len(labels)
    angles = [2 * math.pi * i / k for i in range(k)] + [0.0]
    fig = plt.figure(figsize=(5, 5), dpi=100)
    ax = fig.add_subplot(111, polar=True)
    names = list(axes)
    for j in range(k):
        column = [axes[n][j] for n in names]
        lo, hi = min(column), max(column)
        for n in names:
            axes[n][j] = 1.0 if hi == lo else (axes[n][j] - lo) / (hi - lo)
    for n in names:
        ax.plot(angles, axes[n] + axes[n][:1], label=n, linewidth=1.2)
    ax.set_xticks(angles[:-1], labels)
    ax.set_yticklabels([])
    ax.set_title(title)
    ax.legend(fontsize="x-small", loc="lower left", bbox_to_anchor=(0.9, 0.0))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
