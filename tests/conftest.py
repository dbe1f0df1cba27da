from hypothesis import HealthCheck, settings

settings.register_profile(
    "qmodel", deadline=None, max_examples=60,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
settings.load_profile("qmodel")
