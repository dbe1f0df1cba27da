"""The exact Markov chain (method ctmc): equal to exact MVA wherever the network is product form, different
where it is not, and refusing what it cannot hold."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from network_strategies import multi_class_networks

from qmodel.errors import InputError
from qmodel.networks import network, solve
from qmodel.networks.markov import solve_markov


@given(multi_class_networks(max_classes=2, max_population=3, load_dependent=True))
@settings(max_examples=40, deadline=None)
def test_the_chain_equals_exact_mva_on_product_form_networks(net) -> None:
    """Queues, delays, multi-server and ld stations, think times: the BCMP product form (exact MVA) and
    the balance equations (the chain) agree to rounding."""
    mva, chain = solve(net), solve(net, "ctmc")
    assert chain.queue_length == pytest.approx(mva.queue_length, rel=1e-9, abs=1e-12)
    assert chain.throughput == pytest.approx(mva.throughput, rel=1e-9)
    assert chain.utilization == pytest.approx(mva.utilization, rel=1e-9, abs=1e-12)


def test_the_chain_of_switching_classes_equals_their_chain_network() -> None:
    # Schwetman (1982), figure 9 (tests/networks/test_routing.py): classes split by demand is exact
    routing = np.zeros((2, 3, 2, 3))
    routing[0, 0, 0, 1], routing[0, 0, 0, 2], routing[0, 0, 1, 0] = 0.7, 0.2, 0.1
    routing[1, 0, 1, 1], routing[1, 0, 1, 2], routing[1, 0, 0, 0] = 0.3, 0.5, 0.2
    routing[0, 1, 0, 0] = routing[0, 2, 0, 0] = routing[1, 1, 1, 0] = routing[1, 2, 1, 0] = 1.0
    net = network(
        [[0.01, 0.07, 0.10], [0.05, 0.7, 0.10]], routing=routing, population=[3, 0], servers=[1, "delay", 2]
    )
    mva, chain = solve(net), solve(net, "ctmc")
    assert chain.queue_length == pytest.approx(mva.queue_length, rel=1e-9)
    assert chain.station_throughput == pytest.approx(mva.station_throughput, rel=1e-9)


def test_lcfs_preemptive_resume_is_product_form() -> None:
    """LCFS-PR with class-dependent service times: the chain (a stack per station) gives processor
    sharing's means (BCMP type 4), which exact MVA computes."""
    shared = network([[1, 2, 3], [2, 1, 0.5]], servers=[1, 3, 1], population=[3, 2])
    stacked = replace(
        shared,
        stations=tuple(replace(s, scheduling="lcfs-pr") if s.kind == "queue" else s for s in shared.stations),
    )
    chain = solve(stacked, "ctmc")
    assert chain.queue_length == pytest.approx(solve(shared).queue_length, rel=1e-9)
    assert solve(stacked).queue_length == pytest.approx(solve(shared).queue_length, rel=1e-15)


def test_fcfs_with_service_times_by_class_is_not_product_form() -> None:
    """The same network FCFS: the chain's answer moves away from processor sharing's."""
    shared = network([[1, 2, 3], [2, 1, 0.5]], servers=[1, 3, 1], population=[3, 2])
    first_come = network(
        [[1, 2, 3], [2, 1, 0.5]], servers=[1, 3, 1], population=[3, 2], scheduling=["fcfs"] * 3
    )
    gap = np.abs(solve(first_come, "ctmc").throughput / solve(shared).throughput - 1)
    assert gap.max() > 0.01


def test_an_open_class_needs_a_buffer_at_every_station_it_visits() -> None:
    with pytest.raises(InputError, match="buffer"):
        solve(network([1.0], arrival_rate=0.5), "ctmc")


def test_an_open_queue_with_a_buffer_is_the_mmck_queue() -> None:
    """M/M/1/K: p(n) = (1 − ρ) ρ^n / (1 − ρ^(K+1)); loss = p(K); the chain's mean and throughput."""
    rate, buffer = 0.8, 5
    result = solve(network([1.0], arrival_rate=rate, buffer=[buffer]), "ctmc")
    p = rate ** np.arange(buffer + 1)
    p /= p.sum()
    assert result.queue_length.sum() == pytest.approx((np.arange(buffer + 1) * p).sum(), rel=1e-12)
    assert result.station_throughput[0, 0] == pytest.approx(rate * (1 - p[-1]), rel=1e-12)


def test_a_chain_too_large_is_refused_before_it_fills_memory() -> None:
    big = network([[1] * 6] * 3, population=[30, 30, 30], scheduling=["fcfs"] * 6)
    with pytest.raises(InputError, match=r"more than 100,000 states in its Markov chain \(at least"):
        solve_markov(big, big.populations)
