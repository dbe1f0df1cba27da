"""Routing matrices and class switching: visits from the traffic equations, chains solved as one class.

Published examples (as transcribed in the test blocks of GNU Octave's queueing package 1.2.7,
qncmmva.m, qncmvisits.m and qnom.m; the numbers cited are the publications'), Octave's own output on
a class-switching network, and invariants: the traffic equations hold, a chain's jobs add up to its
population, and with no switching the answers are those of the same network given by visits.
"""

import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.networks import load_network, network, solve
from qmodel.networks.routing import chains_of


def _schwetman_figure_9() -> np.ndarray:
    # Schwetman, "Implementing the mean value algorithm for the solution of queueing network models",
    # Purdue CSD-TR-355 (1982), figure 9: two classes switching at a CPU (station 1)
    routing = np.zeros((2, 3, 2, 3))
    routing[0, 0, 0, 1], routing[0, 0, 0, 2], routing[0, 0, 1, 0] = 0.7, 0.2, 0.1
    routing[1, 0, 1, 1], routing[1, 0, 1, 2], routing[1, 0, 0, 0] = 0.3, 0.5, 0.2
    routing[0, 1, 0, 0] = routing[0, 2, 0, 0] = routing[1, 1, 1, 0] = routing[1, 2, 1, 0] = 1.0
    return routing


def test_schwetman_figure_9_visits_per_cpu_visit() -> None:
    # printed visits [10 7 2; 5 1.5 2.5]: per CPU visit of each class, [1 .7 .2] and [1 .3 .5]
    net = network([[0.01, 0.07, 0.10], [0.05, 0.7, 0.10]], routing=_schwetman_figure_9(), population=[3, 0])
    assert net.chains.tolist() == [0, 0]
    assert net.visits / net.visits[:, :1] == pytest.approx(np.array([[1, 0.7, 0.2], [1, 0.3, 0.5]]))
    assert net.visits[:, 0].sum() == pytest.approx(1.0)  # one cycle: one visit to the reference


def test_class_switching_agrees_with_octave_qncmmva() -> None:
    # Octave queueing 1.2.7, qncmmva([3 0], S, P) with P of Schwetman's figure 9 (run here, 2025):
    # X(c, k) and Q(c, k) printed to 16 digits, quoted to 10
    result = solve(
        network([[0.01, 0.07, 0.10], [0.05, 0.7, 0.10]], routing=_schwetman_figure_9(), population=[3, 0])
    )
    assert result.station_throughput == pytest.approx(
        np.array([[6.235851023, 4.365095716, 1.247170205], [3.117925512, 0.9353776535, 1.558962756]]),
        rel=1e-9,
    )
    assert result.queue_length == pytest.approx(
        np.array([[0.07672686573, 0.7523794393, 0.1630377222], [0.1918171643, 1.612241656, 0.2037971527]]),
        rel=1e-9,
    )
    assert result.per_visit_time[1, 1] == pytest.approx(1.723626441, rel=1e-9)


def test_schwetman_table_5_from_a_routing_matrix() -> None:
    # Schwetman (1982), table 5 p. 23: two classes, each cycling between a PS CPU and its own delay
    routing = np.zeros((2, 3, 2, 3))
    routing[0, 0, 0, 1] = routing[0, 1, 0, 0] = routing[1, 0, 1, 2] = routing[1, 2, 1, 0] = 1.0
    result = solve(
        network(
            [[0.025, 1, 15], [0.5, 1, 15]], routing=routing, servers=[1, "delay", "delay"], population=[15, 5]
        )
    )
    assert result.utilization[:, 0] == pytest.approx([0.358, 0.157], abs=5e-4)
    assert result.queue_length[:, 0] == pytest.approx([0.677, 0.293], abs=5e-4)
    assert result.per_visit_time[:, 0] == pytest.approx([0.047, 0.934], abs=5e-4)
    assert result.throughput == pytest.approx([14.323, 0.314], abs=5e-4)


def test_bolch_example_7_7_open_two_classes() -> None:
    # Bolch, Greiner, de Meer & Trivedi (2006), example 7.7 p. 304 (Octave's qnom.m test, which halves the
    # book's visits: its P_0 is 1 for both classes where 0.5 is meant); U = [0.833 0.442 0.354] printed,
    # Q(2, 2) printed 0.5 where the book's own formulas give 0.451 (Octave's note)
    routing = np.zeros((2, 3, 2, 3))
    routing[0, 0, 0, 1:] = [0.4, 0.3]
    routing[0, 1, 0, [0, 2]] = [0.6, 0.4]
    routing[0, 2, 0, :2] = [0.5, 0.5]
    routing[1, 0, 1, 1:] = [0.3, 0.6]
    routing[1, 1, 1, [0, 2]] = [0.7, 0.3]
    routing[1, 2, 1, :2] = [0.4, 0.6]
    net = network([[1 / 8, 1 / 12, 1 / 16], [1 / 24, 1 / 32, 1 / 36]], routing=routing, arrival_rate=[1, 1])
    assert net.visits == pytest.approx(np.array([[3.333, 2.292, 1.917], [10, 8.049, 8.415]]), abs=5e-4)
    result = solve(net)
    assert result.utilization.sum(axis=0) == pytest.approx([0.833, 0.442, 0.354], abs=5e-4)
    assert result.queue_length == pytest.approx(
        np.array([[2.5, 0.342, 0.186], [2.5, 0.451, 0.362]]), abs=1.5e-3
    )


def test_open_visits_count_arrivals_at_every_station() -> None:
    # Octave's qnomvisits test: λ(c, k) at several stations, V(c, i) = λ(c, i)/λ + Σ V P (its visits per
    # job of either class; ours per job of the class's chain, so each class's visits are rescaled)
    routing = np.zeros((2, 4, 2, 4))
    routing[0, 0, 0, :3] = [0.05, 0.45, 0.5]
    routing[0, 1, 0, 0], routing[0, 2, 0, 0] = 0.1, 0.2
    routing[1, 0, 1, [0, 2, 3]] = [0.01, 0.5, 0.49]
    routing[1, 2, 1, 0], routing[1, 3, 1, 0] = 0.2, 0.16
    arrivals = np.array([[0.1, 0, 0, 0.1], [0, 0, 0.2, 0.1]])
    net = network(np.ones((2, 4)), routing=routing, arrival_rate=arrivals.tolist())
    rates = net.visits * arrivals.sum(axis=1)[:, None]  # λ_ck, jobs per second
    flow = np.einsum("ri,risj->sj", rates, routing)
    assert rates == pytest.approx(arrivals + flow)
    assert net.arrival_rates == pytest.approx([0.2, 0.3])


def test_each_class_has_its_own_chain_unless_it_switches() -> None:
    # Octave's qncmvisits tests: two disjoint classes make two chains; classes that switch, one
    disjoint = np.zeros((2, 3, 2, 3))
    disjoint[0, 0, 0, 1] = disjoint[0, 1, 0, 0] = disjoint[1, 0, 1, 2] = disjoint[1, 2, 1, 0] = 1
    assert chains_of(disjoint).tolist() == [0, 1]
    joined = np.zeros((2, 3, 2, 3))
    joined[0, 0, 0, 1], joined[0, 1, 1, 0], joined[1, 0, 1, 2], joined[1, 2, 0, 0] = 0.5, 1, 0.5, 1
    joined[0, 0, 0, 0], joined[1, 0, 1, 0] = 0.5, 0.5
    assert chains_of(joined).tolist() == [0, 0]


def test_two_cycles_in_one_chain_are_refused() -> None:
    # Octave's "Moebius strip": both classes in two separate cycles; which cycle holds the jobs is unknown
    routing = np.zeros((2, 2, 2, 2))
    routing[0, 0, 1, 1] = routing[1, 1, 0, 0] = routing[1, 0, 0, 1] = routing[0, 1, 1, 0] = 1
    with pytest.raises(InputError, match="2 closed cycles"):
        network(np.ones((2, 2)), routing=routing, population=[1, 1])


@pytest.mark.parametrize(
    ("routing", "kind", "message"),
    [
        ([[0, 1.2], [1, 0]], "closed", "a probability from 0 to 1"),
        ([[0, 0.7], [0.6, 0.6]], "closed", "summing to 1 at most"),
        ([[0, 0.7], [1, 0]], "closed", "1 in a closed class"),
        ([[0, 1], [1, 0]], "open", "jobs that never leave"),
        ([[0, 1, 0], [1, 0, 0]], "closed", "2 × 2"),
    ],
)
def test_bad_routing_is_refused_naming_it(routing, kind, message) -> None:
    extra = {"population": 2} if kind == "closed" else {"arrival_rate": 1}
    with pytest.raises(InputError, match=message):
        network([1, 1], routing=routing, **extra)


def test_a_reference_station_the_jobs_never_visit_is_refused() -> None:
    with pytest.raises(InputError, match="reference station"):
        network([1, 1, 1], routing=[[0, 1, 0], [1, 0, 0], [0, 0, 0]], reference="station3", population=1)


@st.composite
def routed(draw, open_: bool = False):
    """A random one-class-per-chain routing of 2 classes over 2–4 stations (every row sums to one, less
    where open), with its per-visit service times."""
    stations = draw(st.integers(2, 4))
    weights = st.lists(st.integers(0, 4), min_size=stations, max_size=stations)
    matrices = []
    for _ in range(2):
        rows = []
        for i in range(stations):
            row = draw(weights)
            row[(i + 1) % stations] += 1  # a cycle through every station
            scale = sum(row) + (draw(st.integers(1, 3)) if open_ else 0)
            rows.append([w / scale for w in row])
        matrices.append(rows)
    service = draw(
        st.lists(st.lists(st.floats(0.05, 2.0), min_size=stations, max_size=stations), min_size=2, max_size=2)
    )
    return np.array(matrices), np.array(service)


@given(routed(), st.lists(st.integers(0, 4), min_size=2, max_size=2).filter(any))
@settings(max_examples=40, deadline=None)
def test_without_switching_a_routing_matrix_is_its_visits(case, populations) -> None:
    routing, service = case
    routed_net = network(
        service, routing=routing, population=populations, servers=[1, 2] + [1] * (service.shape[1] - 2)
    )
    for c in range(2):  # v = v P, one visit to the reference
        assert routed_net.visits[c] @ routing[c] == pytest.approx(routed_net.visits[c], abs=1e-12)
        assert routed_net.visits[c, 0] == pytest.approx(1.0)
    by_visits = network(
        service,
        visits=routed_net.visits,
        population=populations,
        servers=[1, 2] + [1] * (service.shape[1] - 2),
    )
    one, other = solve(routed_net), solve(by_visits)
    for field in ("throughput", "queue_length", "residence_time", "utilization"):
        assert getattr(one, field) == pytest.approx(getattr(other, field), rel=1e-12, abs=1e-15)


@given(routed(), st.integers(1, 5))
@settings(max_examples=40, deadline=None)
def test_classes_that_switch_at_random_are_one_class(case, population) -> None:
    """Two classes with the same service times, each step switching class with probability 1/2, behave
    as one class: the stations' totals equal those of the single-class network with the same routing."""
    routing, service = case
    one = routing[0]
    switching = np.zeros((2, one.shape[0], 2, one.shape[0]))
    for r in range(2):
        for s in range(2):
            switching[r, :, s, :] = one / 2
    same = np.array([service[0], service[0]])
    split = solve(network(same, routing=switching, population=[population, 0]))
    whole = solve(network(service[0], routing=one, population=population))
    assert split.queue_length.sum(axis=0) == pytest.approx(whole.queue_length[0], rel=1e-10)
    assert split.station_throughput.sum(axis=0) == pytest.approx(whole.station_throughput[0], rel=1e-10)
    assert split.queue_length.sum() == pytest.approx(population)  # the chain's jobs


@given(routed(open_=True), st.floats(0.01, 0.2))
@settings(max_examples=40, deadline=None)
def test_open_flow_balance_and_littles_law(case, rate) -> None:
    routing, service = case
    net = network(service * 0.1, routing=routing, arrival_rate=[rate, rate / 2])
    if (net.arrival_rates[:, None] * net.demands).sum(axis=0).max() >= 1:
        return  # saturated: refused elsewhere
    result = solve(net)
    arrivals = np.zeros_like(net.visits)
    arrivals[:, 0] = [rate, rate / 2]
    flow = result.station_throughput  # λ_ck = λ⁰_ck + Σ λ_ri P[r, i, c, k]
    assert flow == pytest.approx(arrivals + np.einsum("ri,rij->rj", flow, routing), rel=1e-10)
    assert result.queue_length == pytest.approx(result.station_throughput * result.per_visit_time)


def test_a_mixed_network_with_an_open_chain_that_switches() -> None:
    """An open chain of two classes (only the first arrives from outside) with a closed class: the open
    chain's per-class figures add up to the one-class open chain's."""
    routing = np.zeros((3, 2, 3, 2))
    routing[0, 0, 1, 1] = 1.0  # open: class a at station 1 → class b at station 2, leaves
    routing[2, 0, 2, 1] = routing[2, 1, 2, 0] = 1.0
    net = network(
        [[0.1, 0.2], [0.3, 0.4], [0.2, 0.1]],
        routing=routing,
        arrival_rate=[2, 0, 0],
        population=[0, 0, 3],
        classes=["a", "b", "closed"],
    )
    assert net.open_classes.tolist() == [True, True, False]
    result = solve(net)
    assert result.station_throughput[:2] == pytest.approx(np.array([[2, 0], [0, 2]]))
    merged = network([[0.1, 0.4], [0.2, 0.1]], population=[0, 3], arrival_rate=[2, 0])
    alone = solve(merged)
    assert result.queue_length[:2].sum(axis=0) == pytest.approx(alone.queue_length[0], rel=1e-12)
    assert result.queue_length[2] == pytest.approx(alone.queue_length[1], rel=1e-12)


def test_a_population_in_an_open_chain_is_refused() -> None:
    routing = np.zeros((2, 1, 2, 1))
    routing[0, 0, 1, 0] = 1.0
    with pytest.raises(InputError, match="population in an open chain"):
        network([[1.0], [1.0]], routing=routing, arrival_rate=[0.1, 0], population=[0, 2])


def test_think_time_in_a_switching_chain_is_refused() -> None:
    with pytest.raises(InputError, match="think_time"):
        network(
            [[0.01, 0.07, 0.10], [0.05, 0.7, 0.10]],
            routing=_schwetman_figure_9(),
            population=[3, 0],
            think_time=[1, 0],
        )


SWITCHING_MODEL = """
title = "Schwetman (1982) figure 9: two classes switching at the CPU"
[[station]]
name = "cpu"
service_time = [0.01, 0.05]
[[station]]
name = "disk1"
service_time = [0.07, 0.7]
[[station]]
name = "disk2"
service_time = [0.10, 0.10]
[[class]]
name = "a"
population = 3
[[class]]
name = "b"
population = 0
[[routing]]
class = "a"
matrix = [[0, 0.7, 0.2], [1, 0, 0], [1, 0, 0]]
[[routing]]
class = "a"
to_class = "b"
matrix = [[0.1, 0, 0], [0, 0, 0], [0, 0, 0]]
[[routing]]
class = "b"
matrix = [[0, 0.3, 0.5], [1, 0, 0], [1, 0, 0]]
[[routing]]
class = "b"
to_class = "a"
matrix = [[0.2, 0, 0], [0, 0, 0], [0, 0, 0]]
"""


def test_a_model_file_routes_as_python_does(tmp_path) -> None:
    path = tmp_path / "switching.toml"
    path.write_text(SWITCHING_MODEL)
    from_file = solve(load_network(path))
    from_python = solve(
        network(
            [[0.01, 0.07, 0.10], [0.05, 0.7, 0.10]],
            routing=_schwetman_figure_9(),
            population=[3, 0],
            names=["cpu", "disk1", "disk2"],
            classes=["a", "b"],
        )
    )
    assert from_file.queue_length == pytest.approx(from_python.queue_length, rel=1e-15)
    assert from_file.network.chains.tolist() == [0, 0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("service_time = [0.01, 0.05]", "demand = [0.01, 0.05]"), "service_time per visit only"),
        (('to_class = "b"', 'to_class = "c"'), "a class name: a, b"),
        (("matrix = [[0.1, 0, 0], [0, 0, 0], [0, 0, 0]]", "matrix = [[0.1, 0], [0, 0]]"), "3 × 3"),
        (('name = "a"\npopulation = 3', 'name = "a"\npopulation = 3\nreference = "tape"'), "reference"),
    ],
)
def test_a_bad_routing_table_is_named(tmp_path, change, message) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(SWITCHING_MODEL.replace(*change, 1))
    with pytest.raises(InputError, match=message):
        load_network(path)


def test_the_cli_takes_a_routing_matrix() -> None:
    runner = CliRunner()
    routed_run = runner.invoke(
        cli,
        [
            "mva",
            "--service-time",
            "1,2,3",
            "--routing",
            "0,1,0;0.5,0,0.5;1,0,0",
            "--population",
            "3",
            "--format",
            "json",
        ],
    )
    visits_run = runner.invoke(
        cli,
        ["mva", "--service-time", "1,2,3", "--visits", "1,1,0.5", "--population", "3", "--format", "json"],
    )
    assert routed_run.exit_code == visits_run.exit_code == 0
    assert json.loads(routed_run.output)["classes"] == json.loads(visits_run.output)["classes"]
    bad = runner.invoke(
        cli, ["mva", "--service-time", "1,2", "--routing", "0,1;0.5,0.6", "--population", "3"]
    )
    assert bad.exit_code == 2
    assert "--routing of class 'class1' from station 'station2' = sums to 1.1" in bad.output


def test_octave_qncsvisits_examples() -> None:
    # Octave's qncsvisits tests: a central server, and dense matrices of 5 to 50 stations (V P = V)
    net = network([1, 1, 1], routing=[[0, 0.3, 0.7], [1, 0, 0], [1, 0, 0]], population=1)
    assert net.visits[0] == pytest.approx([1, 0.3, 0.7], rel=1e-12)
    for k in (5, 10, 20, 50):
        dense = np.arange(1, k * k + 1, dtype=float).reshape(k, k, order="F")
        dense /= dense.sum(axis=1, keepdims=True)
        visits = network(np.ones(k), routing=dense, population=1).visits[0]
        assert visits @ dense == pytest.approx(visits, rel=1e-12)


def test_octave_qnosvisits_example() -> None:
    # Octave's qnosvisits test: arrivals at every station, V = V P + λ / Σ λ
    routing = np.array([[0, 0.2, 0.5], [1, 0, 0], [1, 0, 0]])
    arrivals = np.array([0.1, 0.3, 0.2])
    visits = network(np.ones(3), routing=routing, arrival_rate=[arrivals.tolist()]).visits[0]
    assert visits @ routing + arrivals / arrivals.sum() == pytest.approx(visits, rel=1e-12)
