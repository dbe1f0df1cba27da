"""Exact MVA against published examples, a rational convolution, and its invariants."""

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from network_strategies import (
    convolution_throughput,
    ld_equivalent,
    multi_class_networks,
    single_class_networks,
)

from qmodel import kernels
from qmodel.errors import InputError
from qmodel.networks import exact
from qmodel.networks.exact import complement_plan
from qmodel.networks.exact import lattice as lattice_solution_at
from qmodel.networks.model import network
from qmodel.networks.solver import solve


def lattice_solution(model):
    """Exact MVA by the multi-class lattice even for one class."""
    return lattice_solution_at(model, model.populations)


def every_population(model):
    """The exact sweep 1..N with every station kept: arrays over (population, class, station) as one."""
    n = int(model.populations[0])
    result = solve(model, at=range(1, n + 1))
    stack = lambda field: np.stack([getattr(p, field) for p in result.points])  # noqa: E731
    return result, stack


def test_jain_example_34_2_central_server() -> None:
    # Jain (1991), Example 34.2, p. 577: S = [0.125, 0.3, 0.2] s, V = [16, 10, 5], N = 20, Z = 4 s
    model = network([0.125, 0.3, 0.2], visits=[16, 10, 5], think_time=4, population=20)
    last = solve(model)
    per_visit = last.per_visit_time[0]
    assert per_visit == pytest.approx([0.373, 4.854, 0.300], abs=0.0005)
    assert last.queue_length[0] == pytest.approx([1.991, 16.177, 0.500], abs=0.0005)


def test_lazowska_two_class_example_page_142() -> None:
    # QSP p. 142: S = [[1/10, 1/3], [2/5, 1]], V = [[10, 9], [5, 4]], N = (1, 1)
    model = network([[1 / 10, 1 / 3], [2 / 5, 1]], visits=[[10, 9], [5, 4]], population=[1, 1])
    result = solve(model)
    assert result.throughput == pytest.approx([3 / 19, 2 / 19], rel=1e-12)
    assert result.queue_length == pytest.approx(np.array([[4, 15], [5, 14]]) / 19, rel=1e-12)


def test_bolch_example_8_3() -> None:
    # Bolch et al. (2006), Example 8.3, p. 331: S = [0.02, 0.2, 0.4, 0.6], V = [1, 0.4, 0.2, 0.1], N = 6
    model = network([0.02, 0.2, 0.4, 0.6], visits=[1, 0.4, 0.2, 0.1], population=6)
    last = solve(model)
    assert last.utilization[0] == pytest.approx([0.198, 0.794, 0.794, 0.595], abs=0.0005)
    assert last.queue_length[0] == pytest.approx([0.244, 2.261, 2.261, 1.234], abs=0.0005)


def test_bolch_examples_8_4_and_8_7_multiserver_and_delay() -> None:
    # Bolch et al., Examples 8.4 / 8.7: servers = [2, 1, 1, delay], N = 3
    model = network([0.5, 0.6, 0.8, 1], visits=[1, 0.5, 0.5, 1], servers=[2, 1, 1, "delay"], population=3)
    last = solve(model)
    assert last.queue_length[0] == pytest.approx([0.624, 0.473, 0.686, 1.217], abs=0.0005)
    station_throughput = last.station_throughput[0]
    assert station_throughput[1:3] == pytest.approx([0.609, 0.609], abs=0.0005)
    # the book prints X = 1.218 but also Q = X·D = 1.217 at the delay station (D = 1):
    # exact X = 1.21746, so 1.218 carries a rounding of the book's own (off by 0.00054)
    assert station_throughput[[0, 3]] == pytest.approx([1.218, 1.218], abs=0.0006)


def test_menasce_performance_by_design_section_12_2() -> None:
    # Menascé et al., Performance by Design, §12.2: S = [10, 15, 30] s, V = [1, 0.5, 0.5], N = 2
    model = network([10, 15, 30], visits=[1, 0.5, 0.5], population=2)
    last = solve(model)
    assert last.queue_length[0] == pytest.approx([0.5913, 0.4174, 0.9913], abs=0.00005)


def test_eight_server_station_stays_exact_past_saturation() -> None:
    # where 1 − Σ p(j) goes negative (Octave's qncsmva at N = 80): compare with exact rationals
    model = network([8.0, 0.5, 2.0], servers=[8, 1, "delay"], population=200)
    result, stack = every_population(model)
    assert result.curve.throughput == pytest.approx(convolution_throughput(model, 200), rel=1e-12)
    assert np.all(stack("utilization") >= 0)


def test_negative_demand_is_refused_by_name() -> None:
    with pytest.raises(InputError, match="demand of class 'class1' at station 'disk'"):
        network([0.1, -0.2], names=["cpu", "disk"], population=3)


@pytest.mark.parametrize("population", [2.5, -1, "many"])
def test_population_must_be_a_whole_number(population) -> None:
    with pytest.raises(InputError, match="population"):
        solve(network([0.1, 0.2], population=1), population=population)


@settings(max_examples=60, deadline=None)
@given(single_class_networks())
def test_single_class_mva_agrees_with_rational_convolution(model) -> None:
    n = int(model.populations[0])
    result = solve(model)
    assert result.curve.throughput == pytest.approx(convolution_throughput(model, n), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(single_class_networks())
def test_littles_law_holds_at_every_station_and_for_the_system(model) -> None:
    result, stack = every_population(model)
    x = result.curve.throughput
    queue = stack("queue_length")[:, 0, :]
    assert queue == pytest.approx(x[:, None] * stack("residence_time")[:, 0, :], rel=1e-9, abs=1e-12)
    n = result.curve.population
    assert queue.sum(axis=1) + x * model.think_times[0] == pytest.approx(n, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(single_class_networks())
def test_utilization_never_exceeds_one_per_server(model) -> None:
    _, stack = every_population(model)
    utilization = stack("utilization")
    queueing = np.array([s.kind != "delay" for s in model.stations])
    assert np.all(utilization[:, 0, queueing] <= 1 + 1e-12)
    assert np.all(utilization >= 0)


@settings(max_examples=60, deadline=None)
@given(single_class_networks())
def test_throughput_is_non_decreasing_in_population(model) -> None:
    x = solve(model).curve.throughput
    assert np.all(np.diff(x) >= -1e-12 * x[1:])


@settings(max_examples=60, deadline=None)
@given(single_class_networks())
def test_response_time_is_at_least_the_total_demand(model) -> None:
    result = solve(model)
    assert np.all(result.curve.response_time >= model.demands[0].sum() * (1 - 1e-12))


@settings(max_examples=40, deadline=None)
@given(single_class_networks(load_dependent=True))
def test_ld_station_with_c_server_rates_agrees_with_multi_server(model) -> None:
    multi, multi_stack = every_population(model)
    rates, rates_stack = every_population(ld_equivalent(model))
    assert rates.curve.throughput == pytest.approx(multi.curve.throughput, rel=1e-9)
    assert rates_stack("queue_length") == pytest.approx(multi_stack("queue_length"), rel=1e-9, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(single_class_networks(load_dependent=False, max_population=10))
def test_multi_class_mva_with_one_class_agrees_with_single_class(model) -> None:
    lattice = lattice_solution(model)
    sweep = solve(model)
    assert lattice.throughput == pytest.approx(sweep.throughput, rel=1e-12)
    assert lattice.residence_time * lattice.throughput[:, None] == pytest.approx(
        sweep.queue_length, rel=1e-12, abs=1e-15
    )


@settings(max_examples=40, deadline=None)
@given(multi_class_networks())
def test_multi_class_littles_law_and_population(model) -> None:
    result = solve(model)
    populations = model.populations
    jobs = result.queue_length.sum(axis=1) + result.throughput * model.think_times
    assert jobs == pytest.approx(populations, rel=1e-9, abs=1e-12)


def test_many_two_server_stations_stay_exact_past_saturation() -> None:
    # nine two-server stations (one the bottleneck, saturated from N ≈ 12) and three queues: the
    # complements of nine load-dependent stations, against Buzen's convolution in rationals
    demands = [1.9, *np.linspace(0.2, 1.5, 8), 0.3, 0.5, 0.9]
    model = network(demands, servers=[2] * 9 + [1] * 3, think_time=5.0, population=70)
    result, stack = every_population(model)
    assert result.curve.throughput == pytest.approx(convolution_throughput(model, 70), rel=1e-12)
    assert np.all(stack("utilization") >= 0) and np.all(stack("utilization") <= 1 + 1e-12)


@pytest.mark.parametrize("stations", [1, 2, 3, 5, 14, 17])
def test_each_complement_holds_every_other_load_dependent_station_once(stations) -> None:
    parent, added, leaf = complement_plan(stations)
    for m in range(stations):
        held, node = [], leaf[m]
        while node >= 0:
            held.append(int(added[node]))
            node = parent[node]
        assert sorted(held) == [s for s in range(stations) if s != m]
    assert added.size <= stations * np.ceil(np.log2(max(stations, 2)))  # not 2^M
    assert np.all(parent < np.arange(added.size))  # parents first


@settings(max_examples=30, deadline=None)
@given(multi_class_networks(max_population=5, load_dependent=True))
def test_interpreted_and_compiled_kernels_agree(model) -> None:
    with patch.object(exact.LATTICE_KERNEL, "_compiled", None):
        interpreted = lattice_solution(model)  # small work: run as Python
    with patch.object(kernels, "COMPILE_FROM", 0.0):
        compiled = lattice_solution(model)
    assert exact.LATTICE_KERNEL._compiled is not None
    assert compiled.throughput == pytest.approx(interpreted.throughput, rel=1e-13)
    assert compiled.residence_time == pytest.approx(interpreted.residence_time, rel=1e-13, abs=1e-300)
