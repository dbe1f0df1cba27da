"""The M/M/m queue with servers of different speeds: exact against a second chain, the M/M/c queue where
the speeds are equal, and the product-form station where jobs move to faster servers."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.algorithms.heterogeneous import fastest_free
from qmodel.catalogue.evaluate import calc
from qmodel.errors import InputError
from qmodel.networks import network, solve


def _truncated_chain(arrival: float, rates: list[float], queue_limit: int = 400) -> float:
    """Mean jobs of the same queue by brute force: (busy set, jobs waiting) with the wait cut at
    ``queue_limit`` (the tail left out is below 1e-30 at these loads), solved by a dense linear solve."""
    servers = len(rates)
    order = sorted(range(servers), key=lambda i: -rates[i])
    sets = [frozenset(c) for size in range(servers + 1) for c in combinations(range(servers), size)]
    states = [(s, 0) for s in sets] + [(frozenset(range(servers)), q) for q in range(1, queue_limit + 1)]
    index = {state: n for n, state in enumerate(states)}
    generator = np.zeros((len(states), len(states)))
    for (busy, waiting), n in index.items():
        if len(busy) < servers:
            free = next(i for i in order if i not in busy)
            generator[n, index[(busy | {free}, 0)]] += arrival
        elif waiting < queue_limit:
            generator[n, index[(busy, waiting + 1)]] += arrival
        for i in busy:
            target = (busy, waiting - 1) if waiting > 0 else (busy - {i}, 0)
            generator[n, index[target]] += rates[i]
    generator -= np.diag(generator.sum(axis=1))
    system = generator.T.copy()
    system[-1] = 1.0
    right = np.zeros(len(states))
    right[-1] = 1.0
    probability = np.linalg.solve(system, right)
    return float(sum(p * (len(b) + q) for (b, q), p in zip(states, probability, strict=True)))


@pytest.mark.parametrize(
    ("arrival", "rates"),
    [(1.5, [2.0, 1.0]), (2.0, [3.0, 0.5, 1.0]), (0.3, [1.0, 0.2, 0.1]), (3.5, [1.0, 1.5, 2.0, 0.5])],
)
def test_the_aggregated_tail_agrees_with_the_truncated_chain(arrival, rates) -> None:
    assert fastest_free(arrival, rates).number_in_system == pytest.approx(
        _truncated_chain(arrival, rates), rel=1e-9
    )


@given(st.integers(1, 6), st.floats(0.05, 0.95))
@settings(max_examples=40, deadline=None)
def test_equal_speeds_are_the_mmc_queue(servers, utilization) -> None:
    rate = servers * utilization
    queue = fastest_free(rate, [1.0] * servers)
    mmc = calc("mmc", arrival_rate=rate, service_time=1000, servers=servers)
    assert queue.response_time == pytest.approx(float(mmc.response_time) / 1000, rel=1e-10)
    assert queue.wait_probability == pytest.approx(float(mmc.wait_probability), rel=1e-10, abs=1e-15)
    assert queue.utilization.sum() == pytest.approx(rate, rel=1e-9)  # ties go to the first: not even
    assert np.all(np.diff(queue.utilization) <= 1e-12)


@pytest.mark.parametrize(("arrival", "speeds"), [(1.5, [2, 1]), (2.0, [3, 0.5, 1]), (0.5, [4, 1, 1])])
def test_moving_to_a_faster_server_never_takes_longer(arrival, speeds) -> None:
    """The hetero station (the n fastest busy: product form) against jobs that stay where they start."""
    staying = fastest_free(arrival, speeds).response_time
    moving = float(solve(network([1.0], speeds=[speeds], arrival_rate=arrival)).response_time[0])
    assert moving <= staying


def test_the_hetero_station_is_an_ld_station_of_cumulative_speeds() -> None:
    hetero = network(
        [[0.4, 1.0], [0.8, 0.5]], speeds=[[2, 1, 0.5], None], population=[3, 2], think_time=[1, 2]
    )
    table = network([[0.4, 1.0], [0.8, 0.5]], rates=[[2, 3, 3.5], None], population=[3, 2], think_time=[1, 2])
    assert solve(hetero).queue_length == pytest.approx(solve(table).queue_length, rel=1e-12)
    assert solve(hetero, "ctmc").queue_length == pytest.approx(solve(hetero).queue_length, rel=1e-9)


def test_bad_speeds_and_overload_are_refused() -> None:
    with pytest.raises(InputError, match="service_rates"):
        fastest_free(1.0, [1.0, -2.0])
    with pytest.raises(InputError, match="utilization"):
        fastest_free(3.0, [1.0, 2.0])
