"""I/O-aware and workload-adaptive scheduling of a shared parallel file system (Goponenko et
al., PBMS/SC-W 2024), in simulation: the file-system model, the estimator, the schedulers S0,
S1, S2, S2n as scheduling passes, the workloads W1/W2 and the run wiring (``docs/ioaware.md``).

>>> from fluxgraph.papers.ioaware.run import run_io
>>> from fluxgraph.papers.ioaware.workload import w1
>>> run_io(w1(waves=1), "S2", r_limit=20.0).log.target[0] > 0
True
"""
