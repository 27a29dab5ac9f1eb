"""Remote-memory contention: each running job's speed from who shares its memory nodes.

Zacarias et al. §IV-A (Eq. 1), §IV-B and Fig. 2; disaggregated-memory spec §5. A job ``j``
runs at speed ``(1 - r_j) S_L(j) + r_j S_R(j)`` (§5.4), where ``r_j`` is the remote share of its
memory, ``S_L`` the sensitivity of its local part to remote traffic from the jobs it shares nodes
with and ``S_R`` the speed of its remote part under their local traffic. Both are linear
sensitivity curves (least-squares lines, D7) for 100% and 50% reads, blended by the interferers'
smallest read share; ``S_L`` is interpolated between the ``k = 1`` and ``k = n`` curves of the
family by the number of interfering nodes close to the largest bandwidth (threshold 0.75, D4).
The interference set ``I(j)`` holds the running jobs whose memory set (compute nodes and lenders)
meets ``j``'s (§5.2); a job never interferes with itself (D3; ``self_interference=True``
reproduces the authors' code).

Progress follows Eq. 1: work left (contention-free seconds) drops by ``elapsed * speed``; speeds
are re-evaluated for the jobs whose interference set changes at a start or an end (§5.1). The
per-application parameters ship as ``fluxgraph/data/models/disagg_apps.csv`` (spec §5.5).

:class:`MemoryContention` is a :class:`~fluxgraph.sched.runtime.RuntimeModel`: it reads a job's
app from ``job.extra["app_id"]`` and its memory placement from ``RunningJob.held`` (memory
vertices of other nodes are remote).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType

from fluxgraph.errors import SimulationError
from fluxgraph.sched.runtime import RunningJob

__all__ = ["APPS", "INTERFERENCE", "AppProfile", "MemoryContention", "job_speed", "load_apps"]

#: Interferers count towards the curve family when their bandwidth is >= THETA * the maximum.
THETA = 0.75
#: The interference model: §5.2's sets (default) or none (every ``I(j)`` empty; ablation).
INTERFERENCE = ("model", "none")
#: Speeds never drop below this (a Decision of the spec, D6).
SPEED_FLOOR = 0.05


@dataclass(frozen=True, slots=True)
class AppProfile:
    """One application's row of spec §5.5 (lines are ``(intercept, slope per GB/s)``)."""

    id: int
    name: str
    n: int
    rho1: float
    rhon: float
    bw_rem: float
    bw_loc: float
    read: float
    l100: tuple[tuple[float, float], tuple[float, float]]  # k = 1, k = n
    l50: tuple[tuple[float, float], tuple[float, float]]
    r100: float
    r50: float

    def rho(self, nodes: int) -> float:
        """Speed with all memory remote and no interference (the R intercept)."""
        return self.rho1 if nodes == 1 else self.rhon


def load_apps(text: str | None = None) -> Mapping[int, AppProfile]:
    """The app table by id (the shipped CSV, or ``text`` in its layout).

    >>> load_apps()[19].name, load_apps()[19].rhon
    ('hpccg', 0.482)
    """
    if text is None:
        table = resources.files("fluxgraph").joinpath("data/models/disagg_apps.csv")
        text = table.read_text("utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    apps: dict[int, AppProfile] = {}
    for line, row in enumerate(rows, start=2):
        try:
            f = {k: float(v) for k, v in row.items() if k != "app"}
            apps[int(f["id"])] = AppProfile(
                int(f["id"]), row["app"], int(f["n"]), f["rho1"], f["rhon"], f["bw_rem"],
                f["bw_loc"], f["rd"],
                ((f["l100_a1"], f["l100_b1"]), (f["l100_an"], f["l100_bn"])),
                ((f["l50_a1"], f["l50_b1"]), (f["l50_an"], f["l50_bn"])),
                f["r100_b"], f["r50_b"],
            )  # fmt: skip
        except (KeyError, TypeError, ValueError) as err:
            raise SimulationError(f"disagg_apps.csv data row {line}: {err!r}") from None
    return MappingProxyType(apps)


#: The shipped table (spec §5.5).
APPS: Mapping[int, AppProfile] = load_apps()


def _blend(y50: float, y100: float, read: float) -> float:
    w = (read - 50.0) / 50.0  # §IV-B: linear interpolation between the 50% and 100% curves
    return (1.0 - w) * y50 + w * y100


def _local(app: AppProfile, nodes: int, others: list[tuple[AppProfile, int]]) -> float:
    """``S_L``: the local part under the others' remote traffic (§5.3, curve L)."""
    if not others:
        return 1.0
    bws = [(o.bw_rem, k) for o, k in others]
    bw_max = max(b for b, _ in bws)
    read = min(o.read for o, _ in others)
    kint = min(nodes, sum(k for b, k in bws if b >= THETA * bw_max))
    n = app.n
    tau = 0.0 if n == 1 else (min(max(kint, 1), n) - 1) / (n - 1)
    ys = []
    for (a1, b1), (an, bn) in (app.l100, app.l50):
        ys.append(a1 + tau * (an - a1) + (b1 + tau * (bn - b1)) * bw_max)
    return min(1.0, max(SPEED_FLOOR, _blend(ys[1], ys[0], read)))


def _remote(app: AppProfile, nodes: int, others: list[tuple[AppProfile, int]]) -> float:
    """``S_R``: the remote part under the others' local traffic (§5.3, curve R)."""
    rho = app.rho(nodes)
    if not others:
        return rho
    bw_max = max(o.bw_loc for o, _ in others)
    read = min(o.read for o, _ in others)
    y = _blend(rho + app.r50 * bw_max, rho + app.r100 * bw_max, read)
    return min(1.0, max(SPEED_FLOOR, y))


def job_speed(
    app: AppProfile,
    nodes: int,
    remote: float,
    others: list[tuple[AppProfile, int]],
    self_interference: bool = False,
) -> float:
    """The speed of a job (§5.4) given its interferers ``(profile, nodes)``.

    >>> round(job_speed(APPS[19], 1, 0.25, []), 4)   # spec §5.6 (2): 0.75 + 0.25 * 0.671
    0.9178
    """
    if self_interference and remote > 0 and nodes > 1:
        # the authors' code counts the job as its own interferer (D3)
        mine = [*others, (app, nodes)]
        s_l, s_r = _local(app, nodes, mine), _remote(app, nodes, mine)
        return s_l * app.rho(nodes) * (1 - remote) + s_r * remote
    return (1.0 - remote) * _local(app, nodes, others) + remote * _remote(app, nodes, others)


@dataclass(slots=True)
class _Progress:
    run: RunningJob
    app: AppProfile
    remote: float
    members: frozenset[int]  # the memory set MS(j): compute nodes and lenders (ranks)
    work_left: float
    speed: float
    t_last: float
    end: int
    planned: int = 0


class MemoryContention:
    """The contention model as a runtime model (see the module docstring).

    Parameters
    ----------
    memory_owner : node rank of each memory vertex (``vertex -> rank``).
    apps : the app table (default: the shipped one).
    self_interference : the authors' self-interference rule (D3).
    interference : ``model`` (default, §5.2) or ``none``: every ``I(j)`` is empty, so a job
        runs at ``(1 - r) + rho r`` (spec amendment A.2; ablation).

    Examples
    --------
    >>> from fluxgraph.workload import Job
    >>> model = MemoryContention({10: 0, 11: 1, 12: 2})
    >>> job = Job(1, 0, runtime=100, walltime=100, extra={"app_id": 19})   # hpccg
    >>> held = ((10, "memory", 3), (11, "memory", 1))       # 1 MiB of 4 lent by node 1
    >>> model.start(RunningJob(0, job, 0, (0,), 32, held=held), 0)   # 100 s at speed 0.9178
    109
    """

    def __init__(
        self,
        memory_owner: Mapping[int, int],
        apps: Mapping[int, AppProfile] = APPS,
        self_interference: bool = False,
        interference: str = "model",
    ) -> None:
        if interference not in INTERFERENCE:
            raise SimulationError(
                f"interference {interference!r} is not one of {', '.join(INTERFERENCE)}"
            )
        self.memory_owner = memory_owner
        self.apps = apps
        self.self_interference = self_interference
        self.interference = interference
        self._jobs: dict[int, _Progress] = {}
        self._on_node: dict[int, set[int]] = {}
        self._moved: dict[int, int] = {}

    # -- the RuntimeModel protocol --------------------------------------------------------

    def start(self, run: RunningJob, now: int) -> int:
        job = run.job
        app_id = (job.extra or {}).get("app_id")
        app = self.apps.get(app_id) if app_id is not None else None
        if app is None:
            raise SimulationError(f"job {job.id}: unknown app_id {app_id!r} (see disagg_apps.csv)")
        owner = self.memory_owner
        own = set(run.nodes)
        total = remote = 0
        lenders = set()
        for v, vtype, units in run.held:
            if vtype == "memory" and v in owner:
                total += units
                if owner[v] not in own:
                    remote += units
                    lenders.add(owner[v])
        members = frozenset(own | lenders)
        p = _Progress(run, app, remote / total if total else 0.0, members, float(job.runtime),
                      1.0, float(now), 0)  # fmt: skip
        self._jobs[run.key] = p
        for r in members:
            self._on_node.setdefault(r, set()).add(run.key)
        touched = self.interferers(run.key)
        self._update(p, now)
        for k in touched:
            self._update(self._jobs[k], now)
        return p.end

    def finish(self, run: RunningJob, now: int) -> None:
        p = self._jobs.pop(run.key)
        for r in p.members:
            self._on_node[r].discard(run.key)
        self._moved.pop(run.key, None)
        touched = set()
        for r in p.members if self.interference == "model" else ():
            touched |= self._on_node[r]
        for k in sorted(touched):
            self._update(self._jobs[k], now)

    def retime(self, now: int) -> Iterable[tuple[int, int]]:
        """Jobs whose end or planned end moved since the last call, with their end."""
        moved = sorted(self._moved.items())
        self._moved.clear()
        return moved

    # -- queries ---------------------------------------------------------------------------

    def interferers(self, key: int) -> list[int]:
        """``I(j)``: running jobs sharing a memory node with job ``key`` (sorted keys; none
        under ``interference="none"``)."""
        if self.interference == "none":
            return []
        out: set[int] = set()
        on_node = self._on_node
        for r in self._jobs[key].members:
            out |= on_node[r]
        out.discard(key)
        return sorted(out)

    def speed(self, key: int) -> float:
        """The current speed of running job ``key``."""
        return self._jobs[key].speed

    def remote_fraction(self, key: int) -> float:
        """``r_j`` of running job ``key``."""
        return self._jobs[key].remote

    def planned_end(self, key: int) -> int:
        """The requested time stretched by the current speed (spec §4.2 step 4): what the
        scheduler plans with (the actual end uses the runtime instead)."""
        return self._jobs[key].planned

    def _update(self, p: _Progress, now: int) -> None:
        """Eq. 1 up to ``now``, then the new speed and end (§5.1)."""
        p.work_left = max(0.0, p.work_left - (now - p.t_last) * p.speed)
        p.t_last = float(now)
        jobs = self._jobs
        others = [(jobs[k].app, len(jobs[k].run.nodes)) for k in self.interferers(p.run.key)]
        p.speed = job_speed(p.app, len(p.run.nodes), p.remote, others, self.self_interference)
        end = now + math.ceil(p.work_left / p.speed - 1e-9)
        done = p.run.job.runtime - p.work_left
        planned = now + math.ceil(max(p.run.job.walltime - done, 0.0) / p.speed - 1e-9)
        if (end != p.end or planned != p.planned) and p.end:
            self._moved[p.run.key] = end
        p.end, p.planned = end, planned
