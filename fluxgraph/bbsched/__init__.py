"""BBSched (Fan et al., HPDC 2019): burst buffers as a resource, multi-objective window scheduling.

Modules: :mod:`~fluxgraph.bbsched.machine` (the graphs), :mod:`~fluxgraph.bbsched.workloads`
(BB/SSD request synthesis and pool calibration), :mod:`~fluxgraph.bbsched.moo` (objectives,
dominance), :mod:`~fluxgraph.bbsched.oracle` (exact fronts), :mod:`~fluxgraph.bbsched.ga` (the
genetic algorithm), :mod:`~fluxgraph.bbsched.decision` (the decision rule),
:mod:`~fluxgraph.bbsched.methods` (BBSched and the comparison methods),
:mod:`~fluxgraph.bbsched.window` (the scheduling pass), :mod:`~fluxgraph.bbsched.metrics`.
See ``docs/bbsched.md``.
"""
