"""Disaggregated-memory scheduling (Zacarias et al.; spec ``disaggregated-memory-allocation``).

Jobs whose memory may be lent by other nodes through ``memnet``: the A-base/A-dis allocator on
the graph matcher (:mod:`.alloc`) and the same placements over a span table (:mod:`.arrays`,
the default engine of :class:`~.sim.DisaggSimulator`; ``engine="graph"`` runs :mod:`.alloc`),
with the requests, placements, options and rules they share (:mod:`.placement`), their
bookings behind the simulator's ``Allocator`` protocol (:mod:`.booking`), the contention
runtime model (:mod:`.contention`), the simulation wrapper (:mod:`.sim`), the machines
(:mod:`.machines`), the job mixes (:mod:`.mix`), the study's metrics (:mod:`.metrics`) and the
study itself (:mod:`.study`).
"""
