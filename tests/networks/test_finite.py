"""Stations with buffers: Akyildiz's published MVABLO values, the M/M/c/K queue, and both approximations
measured against the exact Markov chain; buffers that cannot fill change nothing."""

import numpy as np
import pytest

from qmodel.catalogue.evaluate import calc
from qmodel.errors import InputError
from qmodel.networks import network, solve

CYCLE = [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
CENTRAL = [[0, 0.5, 0.5], [1, 0, 0], [1, 0, 0]]


@pytest.mark.parametrize(
    ("buffers", "service", "routing", "population", "printed"),
    [
        ([12, 10, 14], [1, 1 / 2, 1 / 3], CYCLE, 27, [11.80, 1.66, 14.4]),  # section v), p. 422
        ([4, 5, 5], [1.5, 2, 1], CYCLE, 10, [6.925, 8.061, 4.185]),  # example 2 i), p. 424
        ([4, 5, 5], [1.5, 2, 1], CYCLE, 12, [7.967, 9.019, 8.011]),  # example 2 ii)
        ([8, 7, 6], [0.2, 1.2, 1.4], CENTRAL, 10, [1.674, 5.007, 7.639]),  # example 3 i)
        ([8, 7, 6], [0.2, 1.2, 1.4], CENTRAL, 12, [2.166, 5.372, 6.567]),  # example 3 ii)
    ],
)
def test_akyildiz_mvablo_examples(buffers, service, routing, population, printed) -> None:
    # Akyildiz, "Mean value analysis for blocking queueing networks", IEEE TSE 14(2), 1988 (as transcribed
    # in Octave's qncsmvablo.m tests): response time per visit, printed to 2-3 decimals
    result = solve(network(service, routing=routing, buffer=buffers, population=population))
    assert result.method == "mvablo"
    decimals = 0.006 if population == 27 else 0.0015
    assert result.per_visit_time[0] == pytest.approx(printed, abs=decimals * max(printed))


@pytest.mark.parametrize(
    ("buffers", "service", "routing", "population", "error"),
    [
        ([12, 10, 14], [1, 1 / 2, 1 / 3], CYCLE, 27, -0.031),
        ([4, 5, 5], [1.5, 2, 1], CYCLE, 10, 0.083),
        ([4, 5, 5], [1.5, 2, 1], CYCLE, 12, 0.013),
        ([8, 7, 6], [0.2, 1.2, 1.4], CENTRAL, 10, -0.083),
        ([8, 7, 6], [0.2, 1.2, 1.4], CENTRAL, 12, 0.069),
    ],
)
def test_mvablo_against_the_chain_with_blocking_after_service(
    buffers, service, routing, population, error
) -> None:
    """The throughput error of MVABLO on Akyildiz's examples against the exact chain (BAS), as measured
    and quoted in docs/background/accuracy.md."""
    net = network(service, routing=routing, buffer=buffers, population=population)
    approximate, exact = solve(net), solve(net, "ctmc")
    assert approximate.throughput[0] / exact.throughput[0] - 1 == pytest.approx(error, abs=5e-4)


def test_buffers_that_cannot_fill_leave_todays_answer() -> None:
    # Octave's "network which never blocks" (central server, buffers 50, 40 jobs) and any buffer ≥ N
    plain = network([1, 1 / 0.8, 1 / 0.4], routing=[[0, 0.7, 0.3], [1, 0, 0], [1, 0, 0]], population=40)
    roomy = network(
        [1, 1 / 0.8, 1 / 0.4],
        routing=[[0, 0.7, 0.3], [1, 0, 0], [1, 0, 0]],
        population=40,
        buffer=[50, 50, 40],
    )
    same, today = solve(roomy), solve(plain)
    assert same.method == "exact"
    assert same.queue_length == pytest.approx(today.queue_length, rel=1e-12)


@pytest.mark.parametrize(("servers", "buffer", "rate"), [(1, 4, 1.5), (3, 5, 2.0), (2, 2, 0.4)])
def test_one_open_station_with_a_buffer_is_the_mmck_queue(servers, buffer, rate) -> None:
    net = network([1.0], servers=[servers], buffer=[buffer], arrival_rate=rate)
    for method in ("exact", "ctmc"):
        result = solve(net, method)
        blocking = calc("mmck_blocking", servers=servers, capacity=buffer, offered_load=rate)
        assert result.lost[0, 0] == pytest.approx(rate * float(blocking.blocking_probability), rel=1e-10)
        mean = calc("mmck_mean_number", servers=servers, capacity=buffer, offered_load=rate)
        assert result.queue_length.sum() == pytest.approx(float(mean.number_in_system), rel=1e-10)


def _open_networks(seed: int, count: int):
    """Open networks of 2–3 single-server stations with buffers of 2–4, a random routing (leaving with
    probability 0.2–0.6 after each service) and one or two classes arriving at the first station."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        stations = int(rng.integers(2, 4))
        classes = int(rng.integers(1, 3))
        routing = rng.uniform(size=(classes, stations, stations))
        routing *= (1 - rng.uniform(0.2, 0.6, (classes, stations, 1))) / routing.sum(axis=2, keepdims=True)
        yield network(
            np.round(rng.uniform(0.2, 1.0, (classes, stations)), 2),
            routing=routing,
            arrival_rate=np.round(rng.uniform(0.2, 0.8, classes), 2).tolist(),
            buffer=rng.integers(2, 5, stations).tolist(),
        )


# (median, largest) relative error on 30 generated open networks, as measured when the decomposition was
# written and quoted in docs/background/accuracy.md: a class's throughput at any station, and the jobs
# a class completes (those not lost) per second
MEASURED_LOSS = {"station": (0.056, 0.394), "completed": (0.059, 0.206)}


def test_measured_error_of_the_loss_decomposition() -> None:
    """30 generated open networks (seed 35) against the chain."""
    station, completed = [], []
    for net in _open_networks(35, 30):
        approximate, exact = solve(net), solve(net, "ctmc")
        station.append(float(np.max(np.abs(approximate.station_throughput / exact.station_throughput - 1))))
        through = [net.arrival_rates - result.lost.sum(axis=1) for result in (approximate, exact)]
        completed.append(float(np.max(np.abs(through[0] / through[1] - 1))))
    summary = {
        name: (round(float(np.median(values)), 3), round(max(values), 3))
        for name, values in (("station", station), ("completed", completed))
    }
    assert summary == MEASURED_LOSS


def test_what_the_approximations_do_not_take_is_sent_to_the_chain() -> None:
    two_classes = network([[1, 1], [1, 2]], population=[3, 2], buffer=[2, None])
    with pytest.raises(InputError, match="ctmc"):
        solve(two_classes)
    without_routing = network([1, 1], population=3, buffer=[2, None])
    with pytest.raises(InputError, match="routing matrix"):
        solve(without_routing)


def test_the_tandem_quoted_in_the_accuracy_page() -> None:
    """docs/background/accuracy.md: the decomposition loses more downstream than the chain does."""
    net = network(
        [0.5, 0.8, 0.4], routing=[[0, 1, 0], [0, 0, 1], [0, 0, 0]], buffer=[3, 2, 4], arrival_rate=1
    )
    decomposed, exact = solve(net).lost[0], solve(net, "ctmc").lost[0]
    assert round(decomposed[1], 3) == 0.226 and round(decomposed[2], 4) == 0.0033
    assert round(exact[1], 3) == 0.214 and round(exact[2], 4) == 0.0006
