"""Estimate before you allocate: each refusal for time names a way out, and following it runs.

The limit (qmodel.limits.TIME_LIMIT, 10 s of CPU) is lowered here so that small requests stand for
large ones; the estimates themselves are calibrated against measured runs near the real limit
(bench/mva_sweep.py and the rates' comments give the figures).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from qmodel import limits
from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.networks import network, solve


@pytest.fixture
def short_limit(monkeypatch):
    """A limit of 20 ms of CPU (the estimates unchanged)."""
    monkeypatch.setattr(limits, "TIME_LIMIT", 0.02)
    return 0.02


def test_the_limit_is_ten_seconds_of_cpu_and_two_gigabytes() -> None:
    assert (limits.TIME_LIMIT, limits.MEMORY_LIMIT) == (10.0, 2e9)


def test_a_refusal_gives_the_estimate_the_limit_and_the_way_out() -> None:
    with pytest.raises(InputError) as refused:
        limits.refuse_long_loop(1e6, 1, "capacity", "a smaller capacity")
    message = str(refused.value)
    assert "about 64 bytes and 15.1 s" in message and "at most 2 GB and 10 s" in message
    assert message.endswith("a smaller capacity")


def test_a_multi_class_lattice_past_the_limit_is_refused_and_an_approximation_runs(short_limit) -> None:
    net = network(np.full((2, 20), 0.1), think_time=[1, 1], population=[1000, 1000])
    with pytest.raises(InputError, match="--method linearizer or schweitzer"):
        solve(net)
    assert solve(net, "linearizer").throughput.shape == (2,)
    assert solve(net, population=[30, 30]).throughput.shape == (2,)  # or smaller populations


def test_a_sweep_past_the_limit_is_refused_and_fewer_populations_run(short_limit) -> None:
    net = network(np.linspace(0.1, 1.0, 1000), think_time=1, population=1)
    with pytest.raises(InputError, match="a smaller N"):
        solve(net, population=range(1, 100_001))
    assert solve(net, population=range(1, 1001)).curve.population.size == 1000


def test_an_open_load_rate_table_past_the_limit_is_refused_and_delay_runs(short_limit) -> None:
    def mixed(servers):
        return network(
            [[0.001, 0.1], [0.0005, 0.05]],
            servers=[servers, 1],
            think_time=[1, 0],
            population=[5, 0],
            arrival_rate=[0, 1.0],
        )

    with pytest.raises(InputError, match="servers = delay"):
        solve(mixed(2000))
    assert solve(mixed("delay")).throughput[0] > 0
    assert solve(mixed(100)).throughput[0] > 0  # or fewer servers


def test_a_finite_capacity_chain_past_the_limit_is_refused_and_a_smaller_capacity_runs(short_limit) -> None:
    calc = ("calc", "mmck_blocking", "servers=2", "offered_load=1.5")
    refused = CliRunner().invoke(cli, [*calc, "capacity=100000"])
    assert refused.exit_code == 2 and "a smaller capacity" in refused.output
    assert CliRunner().invoke(cli, [*calc, "capacity=100"]).exit_code == 0


def test_a_scenario_past_the_limit_is_refused_and_fewer_terminals_run(monkeypatch, short_limit) -> None:
    from qmodel.scenario import compose, load_scenario, solve_scenario
    from qmodel.scenario.files import resolve_scenario

    monkeypatch.setattr(compose, "TIME_LIMIT", short_limit)
    monkeypatch.setattr(limits, "SECONDS_PER_MEMBER_SOLVE", 0.0)  # terminals here
    scenario = load_scenario(resolve_scenario("gdps-env2"))

    def with_terminals(count):
        return replace(scenario, members=tuple(replace(m, terminals=count) for m in scenario.members))

    distances = np.linspace(0, 20e3, 50)
    with pytest.raises(InputError, match="fewer terminals per member"):
        solve_scenario(with_terminals(10_000), distances)
    assert solve_scenario(with_terminals(50), distances).response_time.shape[-1] == 50
