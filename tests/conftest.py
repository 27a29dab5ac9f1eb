"""Settings for the whole test run.

Hypothesis draws the same examples on every run (``derandomize``, no example database), so
the README's test command gives the same verdict on every machine and in every order; a run
that should search afresh names the ``explore`` profile::

    FLUXGRAPH_HYPOTHESIS=explore python3 -m pytest tests/disagg

No deadline and no "too slow" health check: a loaded machine must not fail a correct test
(a hang is caught by the per-test timeout instead).
"""

import os

from hypothesis import HealthCheck, settings

_CALM = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("repeatable", derandomize=True, database=None, **_CALM)
settings.register_profile("explore", **_CALM)
settings.load_profile(os.environ.get("FLUXGRAPH_HYPOTHESIS", "repeatable"))
