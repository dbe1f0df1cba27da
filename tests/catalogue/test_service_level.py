"""The M/M/c waiting-time distribution (mmc_service_level): its mean is the mean wait, its parts the
M/M/c entry's, and the sizing question it answers."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad

from qmodel.catalogue.evaluate import calc


@given(st.integers(1, 40), st.floats(0.05, 0.97), st.floats(0.1, 500.0))
@settings(max_examples=40, deadline=None)
def test_the_distribution_integrates_to_the_mean_wait(servers, utilization, service_time) -> None:
    """E[W] = ∫ P(W > t) dt: the distribution and mmc_waiting_time are two routes to the mean wait."""
    load = servers * utilization

    def beyond(t: float) -> float:
        return float(
            calc(
                "mmc_service_level",
                servers=servers,
                offered_load=load,
                service_time=service_time,
                time_limit=t,
            ).waiting_beyond
        )

    scale = service_time / (servers - load)  # the tail's mean: integrate over 60 of them
    area, _ = quad(beyond, 0, 60 * scale, limit=200, epsabs=0, epsrel=1e-11)
    mean = float(
        calc("mmc_waiting_time", servers=servers, offered_load=load, service_time=service_time).waiting_time
    )
    assert area == pytest.approx(mean, rel=1e-9)


def test_at_zero_it_is_the_share_served_at_once() -> None:
    level = calc("mmc_service_level", servers=14, offered_load=10, service_time=180_000, time_limit=0)
    wait = calc("erlang_c", servers=14, offered_load=10).wait_probability
    assert float(level.service_level) == pytest.approx(1 - float(wait), rel=1e-15)


def test_one_server_is_the_mm1_waiting_time() -> None:
    # M/M/1: P(W > t) = ρ e^(−(1 − ρ) t / S)
    rho, service, t = 0.7, 4.0, np.array([0.0, 1.0, 10.0, 50.0])
    beyond = calc("mmc_service_level", servers=1, offered_load=rho, service_time=service, time_limit=t)
    assert beyond.waiting_beyond == pytest.approx(rho * np.exp(-(1 - rho) * t / service), rel=1e-14)


def test_the_fewest_servers_for_a_service_level() -> None:
    """80% within 20 s at 10 erlangs of 180 s calls: the smallest c whose service level reaches 80%."""
    levels = calc(
        "mmc_service_level",
        servers=np.arange(11, 20),
        offered_load=10,
        service_time=180_000,
        time_limit=20_000,
    ).service_level
    fewest = 11 + int(np.argmax(levels >= 0.8))
    assert levels[fewest - 11] >= 0.8 > levels[fewest - 12]
    assert np.all(np.diff(levels) > 0)
