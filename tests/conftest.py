"""Hypothesis settings: 60 examples per property; QMODEL_EXAMPLES=1000 for a deeper run."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "qmodel",
    deadline=None,
    max_examples=int(os.environ.get("QMODEL_EXAMPLES", "60")),
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
settings.load_profile("qmodel")
