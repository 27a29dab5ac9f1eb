"""The scheduler simulator: a job trace replayed on a machine graph through the matcher.

from fluxgraph.machines import build_machine
from fluxgraph.sched import simulate, summarize
from fluxgraph.workload import load_workload

result = simulate(build_machine("nodes=100"), load_workload("trace.swf"), queue="easy")
print(summarize(result)["mean_wait"])
"""

from __future__ import annotations

from fluxgraph.sched.allocator import Allocation, Allocator, MatcherAllocator
from fluxgraph.sched.metrics import summarize
from fluxgraph.sched.passes import BackfillPass, Periodic, SchedulingPass, SchedulingView
from fluxgraph.sched.priority import PRIORITIES, get_priority
from fluxgraph.sched.queueing import QUEUE_POLICIES, QueuePolicy, make_queue_policy
from fluxgraph.sched.records import JobRecord, SimulationResult
from fluxgraph.sched.runtime import RunningJob, RuntimeModel, TraceRuntime
from fluxgraph.sched.shapes import SHAPES, JobShape
from fluxgraph.sched.simulator import Simulator, simulate

__all__ = [
    "PRIORITIES",
    "QUEUE_POLICIES",
    "SHAPES",
    "Allocation",
    "Allocator",
    "BackfillPass",
    "JobRecord",
    "JobShape",
    "MatcherAllocator",
    "Periodic",
    "QueuePolicy",
    "RunningJob",
    "RuntimeModel",
    "SchedulingPass",
    "SchedulingView",
    "SimulationResult",
    "Simulator",
    "TraceRuntime",
    "get_priority",
    "make_queue_policy",
    "simulate",
    "summarize",
]
