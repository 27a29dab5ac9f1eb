"""Disaggregated-memory scheduling (Zacarias et al.; spec ``disaggregated-memory-allocation``).

Jobs whose memory may be lent by other nodes through ``memnet``: the A-base/A-dis allocator
(:mod:`.alloc`), its bookings behind the simulator's ``Allocator`` protocol (:mod:`.booking`),
the contention runtime model (:mod:`.contention`), the simulation wrapper (:mod:`.sim`) and the
study's metrics (:mod:`.metrics`).
"""
