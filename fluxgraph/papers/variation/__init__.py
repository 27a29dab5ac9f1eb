"""Variation-aware scheduling on quartz (Fluxion's case study): the quartz machine
(:mod:`~fluxgraph.papers.variation.quartz`), its workload
(:mod:`~fluxgraph.papers.variation.workload`), the static-queue driver
(:mod:`~fluxgraph.papers.variation.static_queue`) and the study
(:mod:`~fluxgraph.papers.variation.study`). The match policies it compares (``variation``,
``classpack``) are the matcher's, in :mod:`fluxgraph.policies`."""
