"""The papers' schedulers and studies: one leaf folder a paper.

Each folder holds what is that paper's alone (machine builder, workload, scheduling pass or
allocator, runtime model, metrics, study: cell kind, criteria, figures and YAML grid) and a
README naming the paper, its specification and the entry points. Nothing in the shared core
imports a paper, and no paper imports another (``tests/package/test_layering.py``); studies are
found by name through :data:`fluxgraph.experiments.studies.STUDIES`.

========== =================================================================================
fluxion    Fluxion (Patki et al., SC-W 2023): LOD match times (§6.1) and the planner (§6.2)
variation  variation-aware placement on quartz (Fluxion's case study)
rabbit     rabbit near-node flash storage on El Capitan machines
bbsched    BBSched: multi-resource burst-buffer scheduling (Fan et al.)
ioaware    I/O-aware and workload-adaptive scheduling of file-system bandwidth
fm         FM: rack-pool disaggregated memory (paper 000)
disagg     node-to-node memory lending, A-base/A-dis (Zacarias et al., paper 003)
========== =================================================================================
"""
