"""BBSched (Fan et al., HPDC 2019): burst buffers as a resource, multi-objective window scheduling.

Modules (under ``fluxgraph.papers.bbsched``): ``machine`` (the graphs), ``workloads`` (BB/SSD
request synthesis), ``calibration`` (the pools W1/W2/W3), ``moo`` (objectives, dominance),
``oracle`` (exact fronts), ``ga`` (the genetic algorithm), ``decision`` (the decision rule),
``methods`` (BBSched and the comparison methods), ``window`` (the scheduling pass),
``metrics``, ``study`` (the ``fluxgraph reproduce bbsched`` study) with ``criteria``,
``claims`` and ``tables``.
See ``docs/bbsched.md``.
"""
