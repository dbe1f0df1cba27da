"""Approximate MVA, open networks and bounds: published values and invariants."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from network_strategies import DEMANDS, multi_class_networks, single_class_networks

from qmodel.catalogue.evaluate import calc
from qmodel.errors import InputError
from qmodel.networks.bounds import closed_bounds
from qmodel.networks.model import network
from qmodel.networks.solver import approximation_error, solve


def schweitzer(model):
    return solve(model, "schweitzer")


def linearizer(model):
    return solve(model, "linearizer")


def solve_open(model):
    return solve(model)


def solve_mixed(model):
    """(closed classes, open classes) of a mixed network's one result."""
    result = solve(model)
    return result, result


LAZOWSKA = network([[1 / 10, 1 / 3], [2 / 5, 1]], visits=[[10, 9], [5, 4]], population=[1, 1])


def test_schweitzer_on_the_lazowska_example_is_within_three_percent() -> None:
    errors = approximation_error(schweitzer(LAZOWSKA))
    assert 0 < errors["throughput"] < 0.03


def test_linearizer_is_closer_to_exact_than_schweitzer() -> None:
    model = network(
        [[0.1, 0.2, 0.3, 0.05], [0.3, 0.1, 0.1, 0.2], [0.2, 0.2, 0.2, 0.2]],
        population=[10, 5, 8],
        think_time=[1, 2, 0],
    )
    assert (
        approximation_error(linearizer(model))["throughput"]
        < approximation_error(schweitzer(model))["throughput"] / 5
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.integers(1, 3), st.integers(2, 10), DEMANDS)
def test_schweitzer_within_a_few_percent_on_balanced_models(stations, classes, population, demand) -> None:
    # balanced: every class has the same demand at every station
    model = network([[demand] * stations] * classes, population=[population] * classes)
    assert approximation_error(schweitzer(model))["throughput"] < 0.05


@settings(max_examples=30, deadline=None)
@given(multi_class_networks(max_population=4))
def test_approximate_mva_keeps_the_population(model) -> None:
    for method in (schweitzer, linearizer):
        result = method(model)
        jobs = result.queue_length.sum(axis=1) + result.throughput * model.think_times
        assert jobs == pytest.approx(model.populations, rel=1e-6, abs=1e-9)


def test_open_single_server_station_is_mm1() -> None:
    result = solve_open(network([0.004], arrival_rate=200))
    # M/M/1, S = 4 ms, λ = 200/s: R = 4 / (1 − 0.8) = 20 ms
    assert float(result.response_time[0]) == pytest.approx(0.020)


def test_open_multi_server_station_agrees_with_the_mmc_entry() -> None:
    result = solve_open(network([0.05], servers=[3], arrival_rate=40))
    mmc = calc("mmc", arrival_rate=40, service_time=50, servers=3)
    assert float(result.response_time[0]) * 1000 == pytest.approx(float(mmc.response_time), rel=1e-12)


def test_open_network_names_the_saturated_station_and_its_utilization() -> None:
    with pytest.raises(InputError, match=r"utilization of station 'disk' = 1\.2"):
        solve_open(network([0.01, 0.03], names=["cpu", "disk"], arrival_rate=40))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.01, 0.95), min_size=1, max_size=4), st.floats(0.1, 100))
def test_open_network_littles_law_per_station(utilizations, rate) -> None:
    demands = [u / rate for u in utilizations]
    result = solve_open(network(demands, arrival_rate=rate))
    assert result.queue_length[0] == pytest.approx(rate * result.residence_time[0], rel=1e-12)
    assert result.utilization[0] == pytest.approx(utilizations, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(single_class_networks())
def test_exact_mva_lies_within_the_bounds(model) -> None:
    result = solve(model).curve
    bounds = closed_bounds(model, result.population)
    x = result.throughput
    assert np.all(x <= bounds.throughput_upper * (1 + 1e-9))
    assert np.all(x >= bounds.throughput_lower * (1 - 1e-9))
    r = result.response_time
    assert np.all(r >= bounds.response_lower * (1 - 1e-9))
    assert np.all(r <= bounds.response_upper * (1 + 1e-9))


def test_bounds_name_the_bottleneck_past_the_knee() -> None:
    model = network([0.125 * 16, 0.3 * 10, 0.2 * 5], names=["cpu", "disk_a", "disk_b"], think_time=4)
    bounds = closed_bounds(model, [1, 20])
    assert bounds.bottleneck == "disk_a"
    assert bounds.knee == pytest.approx((2 + 3 + 1 + 4) / 3)
    assert bounds.binding[1].startswith("bottleneck") and bounds.bottleneck == "disk_a"


MIXED_DEMANDS = [[0.1, 0.2, 0.5], [0.05, 0.3, 1.0]]


def test_mixed_network_with_a_vanishing_open_class_is_the_closed_network() -> None:
    mixed = network(MIXED_DEMANDS, servers=[1, 1, "delay"], population=[5, 0], arrival_rate=[0, 1e-12])
    closed = network(MIXED_DEMANDS[:1], servers=[1, 1, "delay"], population=5)
    batch, _ = solve_mixed(mixed)
    assert batch.throughput[0] == pytest.approx(solve(closed).throughput[0], rel=1e-9)


def test_mixed_network_open_class_sees_the_closed_jobs() -> None:
    model = network(MIXED_DEMANDS, servers=[1, 1, "delay"], population=[5, 0], arrival_rate=[0, 1.5])
    batch, web = solve_mixed(model)
    open_utilization = 1.5 * np.array([0.05, 0.3])
    expected = np.array([0.05, 0.3]) * (1 + batch.queue_length[0, :2]) / (1 - open_utilization)
    assert web.residence_time[1, :2] == pytest.approx(expected, rel=1e-12)
    assert batch.utilization[0, :2] == pytest.approx(batch.throughput[0] * np.array([0.1, 0.2]))
    jobs = batch.queue_length[0].sum()
    assert jobs == pytest.approx(5.0, rel=1e-12)
