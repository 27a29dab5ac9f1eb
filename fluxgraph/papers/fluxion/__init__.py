"""The Fluxion paper's own studies (Patki et al., SC-W 2023): match time per job on the four
level-of-detail machines (§6.1, :mod:`~fluxgraph.papers.fluxion.lod`) and planner query times
against pre-populated spans (§6.2, :mod:`~fluxgraph.papers.fluxion.planner`)."""
