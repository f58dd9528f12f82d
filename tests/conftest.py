"""Shared test settings.

Hypothesis profiles: "ci" (the default) keeps the property tests quick enough for
``make test`` on a busy 2-core machine; "long" runs many more examples for a
thorough search: ``HYPOTHESIS_PROFILE=long pytest tests/engine`` (``make test-long``).
No profile has a deadline: tests never judge wall-clock time, and other jobs share
the machine.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=25,
    deadline=None,
    derandomize=True,  # the same examples on every run: a red CI run can be repeated
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "long",
    max_examples=1000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
