"""Disaggregated memory with rack pools and FM scheduling (Li et al.; FM spec, ``docs/fm.md``).

Machines (:mod:`.machine`), trace mapping (:mod:`.workload`), placement rules
(:mod:`.placement`), the planner-backed allocator (:mod:`.allocator`), the slowdown model
(:mod:`.slowdown`), priorities (:mod:`.priority`), the warm-up/EASY pass (:mod:`.passes`),
one run on the shared simulator (:mod:`.run`) and the metrics (:mod:`.metrics`).
"""
