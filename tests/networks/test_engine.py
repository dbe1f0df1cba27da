"""The engine on the networks real models need: multi-class multi-server and ld stations, exact and
approximate, open and mixed, bounds; published examples, a rational oracle and invariants."""

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from network_strategies import convolution_multi_class, multi_class_networks, single_class_networks

from qmodel.networks import approximation_error, bounds, network, solve
from qmodel.networks.bounds import class_bounds, closed_bounds, geometric_bounds
from qmodel.networks.solver import closed_part

# "Computed" references below are not printed in a publication: they were cross-checked in the
# project's engine research notes by two independent methods (brute-force product-form enumeration,
# a float64 positive-term convolution, LINE's pfqn_mvaldmx), and are quoted as computed there.


def test_bolch_two_class_example_with_a_two_server_station() -> None:
    # Bolch, Greiner, de Meer & Trivedi (2006), 2nd ed., p. 337 (as transcribed in Octave's qncmmva.m
    # test block): station 1 two servers S = 0.2, station 2 S = (0.4, 0.6), station 3 delay S = (1, 2),
    # V = [[1, 0.6, 0.4], [1, 0.3, 0.7]], N = (2, 1); printed Q to 3 decimals, X at station 1
    net = network(
        [[0.2, 0.4, 1], [0.2, 0.6, 2]],
        visits=[[1, 0.6, 0.4], [1, 0.3, 0.7]],
        servers=[2, 1, "delay"],
        population=[2, 1],
    )
    result = solve(net)
    printed = np.array([[0.428, 0.726, 0.845], [0.108, 0.158, 0.734]])
    assert result.queue_length == pytest.approx(printed, abs=0.0005)
    assert result.station_throughput[:, 0] == pytest.approx([2.113, 0.524], abs=0.0005)


def test_schwetman_two_class_example_table_5() -> None:
    # Schwetman, "Implementing the MVA for the solution of queueing network models", Purdue CSD-TR-355
    # (1982), Table 5 p. 23 (as transcribed in Octave's qncmmva.m): N = (15, 5)
    net = network([[1, 0, 0.025], [0, 15, 0.5]], servers=["delay", "delay", 1], population=[15, 5])
    result = solve(net)
    assert result.utilization[:, 2] == pytest.approx([0.358, 0.157], abs=0.0005)
    assert result.queue_length[:, 2] == pytest.approx([0.677, 0.293], abs=0.0005)
    assert result.throughput == pytest.approx([14.323, 0.314], abs=0.0005)


def test_multi_class_ld_and_three_server_station_computed_reference() -> None:
    # computed: brute-force product-form enumeration (10 digits)
    net = network(
        [[0.3, 0.5, 0.2, 2.0], [0.6, 0.1, 0.4, 1.0]],
        servers=[1, 1, 3, "delay"],
        rates=[[1, 1.8, 2.4, 2.8, 3.0], None, None, None],
        think_time=[1.5, 0.5],
        population=[3, 2],
    )
    result = solve(net)
    assert result.throughput == pytest.approx([0.6381530810, 0.7470599892], rel=1e-9)
    assert 1 - result.utilization[:, 0].sum() == pytest.approx(0.48232443996, rel=1e-9)


@pytest.mark.parametrize(
    ("population", "throughput"),
    [
        (10, [0.6229978722, 0.6814188375]),
        (50, [0.5702089134, 0.8595808026]),
        (80, [0.5591953620, 0.8816092752]),
    ],
)
def test_saturated_eight_server_station_two_classes_stays_exact(population, throughput) -> None:
    # computed: float64 positive-term convolution; Octave's qncmmva gives X < 0 at (50, 50)
    net = network([[8, 0.5, 2], [4, 0.8, 5]], servers=[8, 1, "delay"], population=[population] * 2)
    assert solve(net).throughput == pytest.approx(throughput, rel=1e-9)


def test_mixed_network_with_a_two_server_station() -> None:
    # computed: brute force (open jobs summed to 400) = LINE pfqn_mvaldmx to 9 digits
    net = network(
        [[1.0, 0.4], [1.2, 0.5]], servers=[2, 1], think_time=[3, 0], population=[4, 0], arrival_rate=[0, 0.5]
    )
    result = solve(net)
    assert result.throughput[0] == pytest.approx(0.7712062842, rel=1e-9)
    assert result.queue_length[0] == pytest.approx([1.1091545752, 0.5772265721], rel=1e-9)
    assert result.queue_length[1] == pytest.approx([0.9779293946, 0.5257421907], rel=1e-9)


@pytest.mark.parametrize(
    ("think", "lower", "upper"),
    [
        (0, [4.3040, 6.6859, 8.1521, 9.0947, 9.8233], [4.3174, 6.7524, 8.2690, 9.2431, 9.8765]),
        (1, [1.4319, 3.3432, 5.7569, 8.0856, 9.7147], [1.5195, 3.5582, 6.1410, 8.6467, 9.8594]),
    ],
)
def test_geometric_bounds_reproduce_casale_muntz_serazzi_tables_4_and_5(think, lower, upper) -> None:
    # Casale, Muntz & Serazzi (2008), IEEE Trans. Computers 57(6), Tables IV and V (values as transcribed
    # in Octave's qncsgb.m test blocks): loadings [0.1, 0.1, 0.09, 0.08], N = 2, 5, 10, 20, 80
    x_lower, x_upper = geometric_bounds(np.array([0.1, 0.1, 0.09, 0.08]), think, np.array([2, 5, 10, 20, 80]))
    assert x_lower == pytest.approx(lower, abs=0.00005)
    assert x_upper == pytest.approx(upper, abs=0.00005)


@settings(max_examples=40, deadline=None)
@given(multi_class_networks(max_classes=2, max_population=4, load_dependent=True))
def test_exact_multi_class_mva_agrees_with_rational_convolution(net) -> None:
    assert solve(net).throughput == pytest.approx(convolution_multi_class(net), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(multi_class_networks(load_dependent=True))
def test_littles_law_per_class_and_station_and_the_population(net) -> None:
    result = solve(net)
    assert result.queue_length == pytest.approx(result.throughput[:, None] * result.residence_time)
    jobs = result.queue_length.sum(axis=1) + result.throughput * net.think_times
    assert jobs == pytest.approx(net.populations, rel=1e-9, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(multi_class_networks(load_dependent=True))
def test_utilization_per_server_never_exceeds_one(net) -> None:
    result = solve(net)
    finite = ~net.infinite
    assert np.all(result.utilization[:, finite].sum(axis=0) <= 1 + 1e-9)
    assert np.all(result.utilization >= 0)


@settings(max_examples=40, deadline=None)
@given(multi_class_networks(load_dependent=True))
def test_exact_lies_within_the_per_class_bounds(net) -> None:
    result = solve(net)
    bounds = class_bounds(net, net.populations)
    assert np.all(result.throughput <= bounds.throughput_upper * (1 + 1e-9))
    assert np.all(result.throughput >= bounds.throughput_lower * (1 - 1e-9))


@settings(max_examples=40, deadline=None)
@given(single_class_networks(load_dependent=False))
def test_geometric_bounds_contain_exact_and_are_tighter_than_asymptotic_past_the_knee(net) -> None:
    # at small N the square-root upper bound can exceed N / (D + Z) (N = 1: 1 / max(D, Z)); closed_bounds
    # keeps the tightest of every family, so the bounds shown are never looser than the asymptotic ones
    curve = solve(net).curve
    bounds = closed_bounds(net, curve.population)
    queues = net.demands[0][~net.infinite]
    think = float(net.think_times[0] + net.demands[0][net.infinite].sum())
    lower, upper = geometric_bounds(queues, think, curve.population)
    assert np.all(curve.throughput <= upper * (1 + 1e-9))
    assert np.all(curve.throughput >= lower * (1 - 1e-9))
    asymptotic = np.minimum(curve.population / (queues.sum() + think), 1 / queues.max())
    past_knee = curve.population * queues.max() >= queues.sum() + think
    assert np.all(upper[past_knee] <= asymptotic[past_knee] * (1 + 1e-12))
    assert np.all(lower >= curve.population / (curve.population * queues.sum() + think) * (1 - 1e-12))
    assert np.all(bounds.throughput_upper <= upper * (1 + 1e-12))


@settings(max_examples=30, deadline=None)
@given(multi_class_networks(max_population=4, load_dependent=False), st.integers(2, 6))
def test_ld_with_c_server_rates_equals_the_multi_server_station(net, servers) -> None:
    others = len(net.stations) - 1
    multi = network(
        net.demands, servers=[servers] + [1] * others, population=net.populations, think_time=net.think_times
    )
    rates = network(
        net.demands,
        rates=[list(range(1, servers + 1))] + [None] * others,
        population=net.populations,
        think_time=net.think_times,
    )
    assert solve(rates).throughput == pytest.approx(solve(multi).throughput, rel=1e-9)


@settings(max_examples=30, deadline=None)
@given(multi_class_networks(max_population=5, load_dependent=True))
def test_approximations_keep_each_class_population(net) -> None:
    for method in ("schweitzer", "linearizer"):
        result = solve(net, method)
        jobs = result.queue_length.sum(axis=1) + result.throughput * net.think_times
        assert jobs == pytest.approx(net.populations, rel=1e-6, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.floats(0.05, 0.95))
def test_open_ld_station_with_c_server_rates_is_the_mmc_queue(servers, load) -> None:
    demand = 0.01
    rate = load * servers / demand
    multi = solve(network([demand], servers=[servers], arrival_rate=rate))
    rates = solve(
        network(
            [demand], rates=[list(range(1, servers + 1))] if servers > 1 else [[1.0, 1.0]], arrival_rate=rate
        )
    )
    assert rates.response_time == pytest.approx(multi.response_time, rel=1e-9)


def test_open_ld_station_agrees_with_its_birth_death_sum() -> None:
    # p(j) ∝ ρ^j / Π α(i), α = (1, 1.8, 2.4) then 2.4; summed directly to 2,000 jobs
    alphas = np.concatenate([[1, 1.8], np.full(2000, 2.4)])
    load = 2.0
    weights = np.concatenate([[1.0], np.cumprod(load / alphas)])
    jobs = (np.arange(weights.size) * weights).sum() / weights.sum()
    result = solve(network([0.5], rates=[[1, 1.8, 2.4]], arrival_rate=4.0))
    assert result.queue_length[0, 0] == pytest.approx(jobs, rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(multi_class_networks(max_classes=2, max_population=4, load_dependent=True))
def test_mixed_network_with_a_vanishing_open_class_is_the_closed_network(net) -> None:
    demands = np.vstack([net.demands, net.demands[:1]])
    mixed = network(
        demands,
        servers=[s.label.split()[0] if s.infinite else 1 for s in net.stations],
        rates=[None if s.infinite else list(s.rate_table) for s in net.stations],
        population=[*net.populations, 0],
        think_time=[*net.think_times, 0],
        arrival_rate=[0] * len(net.classes) + [1e-12],
    )
    assert solve(mixed).throughput[:-1] == pytest.approx(solve(net).throughput, rel=1e-8)


@pytest.mark.parametrize("method", ["schweitzer", "linearizer", "seidmann"])
def test_approximations_on_the_two_class_eight_server_model_are_within_five_percent(method) -> None:
    # model cpu8 at (10, 10) of the research notes, where Seidmann with the whole station's queue is 36% off
    net = network([[8, 0.5, 2], [4, 0.8, 5]], servers=[8, 1, "delay"], population=[10, 10])
    error = approximation_error(solve(net, method))["throughput"]
    assert error < (0.1 if method == "seidmann" else 0.05)


def test_sweep_keeps_stations_only_at_the_populations_asked_for() -> None:
    result = solve(network([0.1, 0.2], servers=[4, 1], population=1), population=100_000, at=[10, 1000])
    assert result.curve.throughput.shape == (100_000,)
    assert [int(p.populations[0]) for p in result.points] == [10, 1000]
    assert result.curve.throughput[-1] == pytest.approx(1 / 0.2, rel=1e-12)


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.8])
def test_mixed_network_closed_classes_lie_within_their_bounds(rate) -> None:
    # the mixed two-server network above, open rate varied: bounds on the stations the open load leaves
    net = network(
        [[1.0, 0.4], [1.2, 0.5]], servers=[2, 1], think_time=[3, 0], population=[4, 0], arrival_rate=[0, rate]
    )
    x = solve(net).throughput[0]
    bounds = class_bounds(closed_part(net)[0], np.array([4]))
    assert bounds.throughput_lower[0] <= x <= bounds.throughput_upper[0]


def test_a_falling_rate_table_converges_and_linearizer_stays_close() -> None:
    # thrashing: two jobs served at twice the rate, three or more at half; exact X = 12/13
    net = network([1.0], rates=[[1, 2, 0.5]], think_time=1, population=3)
    assert solve(net).throughput[0] == pytest.approx(12 / 13, rel=1e-12)
    assert approximation_error(solve(net, "linearizer"))["throughput"] < 0.01


def _geometric_reference(loadings, think, populations):
    """The module docstring's formulas written out with numpy, population by population (no shortcuts)."""
    total, top = loadings.sum(), loadings.max()
    sigma = (loadings**2).sum() / total
    light = loadings[loadings < top]
    lower, upper = [], []
    for n in populations.astype(float):
        previous = n - 1

        def q(y, previous=previous):
            return (y - y ** (previous + 1)) / (1 - y)

        aba = min(1 / top, (previous - 1) / (total + think)) if previous > 1 else 0.0
        estimate = previous / (think + total + sigma * (previous - 1 - think * aba)) if previous > 0 else 0.0
        base = think + total + top * previous
        b_lower = base - ((top - light) * q(light * previous / (base))).sum()
        b_upper = base - ((top - light) * q(light * min(1 / top, estimate))).sum()
        lower.append(2 * n / (b_lower + np.sqrt(max(b_lower**2 - 4 * think * top * previous, 0))))
        upper.append(2 * n / (b_upper + np.sqrt(max(b_upper**2 - 4 * think * top * n, 0))))
    return np.array(lower), np.array(upper)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=1, max_size=9), st.floats(0.0, 20.0), st.booleans())
def test_geometric_bounds_in_any_order_agree_with_the_formulas_written_out(loadings, think, tie) -> None:
    # the compiled kernel sorts the loadings, skips the power where it is negligible and sums two terms
    # over one division: none of that may change the bounds (odd and even counts, a tie at the top)
    queues = np.array(loadings + [max(loadings)] * tie)
    populations = np.array([1, 2, 3, 10, 100, 5000])
    expected = _geometric_reference(queues, think, populations)
    for order in (queues, queues[::-1], np.sort(queues)):
        lower, upper = geometric_bounds(order, think, populations)
        assert lower == pytest.approx(expected[0], rel=1e-12)
        assert upper == pytest.approx(expected[1], rel=1e-12)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=9), st.sampled_from([0.0, 0.5, 3.0, 20.0]))
def test_geometric_bounds_past_the_grid_hold_only_loosen_and_agree_however_asked(loadings, think) -> None:
    # past GRID_EXACT the queue sums come from the grid's populations, each bound taking the end that
    # loosens it; at the grid's own populations the bounds are the formulas' exactly, and a population's
    # bounds are the same asked alone or in a sweep (the grid does not depend on what is asked)
    queues = np.array(loadings)
    populations = np.arange(1, 3001)
    with patch.object(bounds, "GRID_EXACT", 40), patch.object(bounds, "GRID_STEP", 1.05):
        lower, upper = geometric_bounds(queues, think, populations)
        grid = bounds._grid(populations.astype(float)).astype(int)
        alone = geometric_bounds(queues, think, np.array([1234, 2999, 41]))
    exact_lower, exact_upper = _geometric_reference(queues, think, populations)
    assert np.all(lower <= exact_lower * (1 + 1e-12)) and np.all(upper >= exact_upper * (1 - 1e-12))
    on = grid[grid <= 3000] - 1  # (the last may lie past N)
    assert lower[on] == pytest.approx(exact_lower[on], rel=1e-12)
    assert upper[on] == pytest.approx(exact_upper[on], rel=1e-12)
    assert 40 < grid.size < 40 + np.log(3000 / 40) / np.log(1.05) + 2
    chosen = [1233, 2998, 40]
    assert np.array_equal(alone[0], lower[chosen]) and np.array_equal(alone[1], upper[chosen])
    x = solve(network(queues, think_time=think, population=3000)).curve.throughput
    assert np.all(x >= lower * (1 - 1e-9)) and np.all(x <= upper * (1 + 1e-9))
