"""solve(): one entry and one result for closed, open and mixed networks; units; refusals."""

import json

import numpy as np
import pytest

from qmodel.errors import InputError
from qmodel.networks import NetworkResult, approximation_error, network, solve


@pytest.mark.parametrize(
    "net",
    [
        network([0.1, 0.2], population=3),
        network([[0.1, 0.2], [0.3, 0.1]], population=[2, 1]),
        network([0.1, 0.2], arrival_rate=2),
        network([[0.1, 0.2], [0.3, 0.1]], population=[2, 0], arrival_rate=[0, 1]),
    ],
    ids=["closed", "multi-class", "open", "mixed"],
)
def test_every_kind_of_network_gives_one_result_type(net) -> None:
    result = solve(net)
    assert isinstance(result, NetworkResult)
    assert result.throughput.shape == (len(net.classes),)
    assert result.queue_length.shape == net.demands.shape


def test_values_with_units_are_read_in_the_units_dialect() -> None:
    net = network(["2ms", "400us", 0.5], think_time="4ms", population=2, time_unit="ms")
    assert net.demands[0] == pytest.approx([0.002, 0.0004, 0.0005])
    assert net.think_times[0] == pytest.approx(0.004)


def test_arrival_rate_takes_a_rate_or_a_bare_number_per_time_unit() -> None:
    assert network([1.0], arrival_rate="250/s", time_unit="ms").arrival_rates[0] == pytest.approx(250)
    assert network([1.0], arrival_rate=0.25, time_unit="ms").arrival_rates[0] == pytest.approx(250)


def test_a_time_unit_that_is_not_time_is_refused() -> None:
    with pytest.raises(InputError, match="time_unit = 'km'"):
        network([1.0], population=1, time_unit="km")


def test_results_are_in_si_units_and_records_name_theirs() -> None:
    # one station, D = 10 ms, one job: X = 100/s, R = 10 ms
    result = solve(network([10], population=1, time_unit="ms"))
    assert result.throughput[0] == pytest.approx(100.0)
    assert result.response_time[0] == pytest.approx(0.010)
    record = result.class_records()[0]
    assert record["throughput[1/s]"] == pytest.approx(100.0)
    assert record["response_time[ms]"] == pytest.approx(10.0)


def test_per_visit_time_and_station_throughput_come_from_the_visits() -> None:
    result = solve(network([0.125, 0.3, 0.2], visits=[16, 10, 5], think_time=4, population=20))
    assert result.station_throughput[0] == pytest.approx(result.throughput[0] * np.array([16, 10, 5]))
    assert result.per_visit_time[0] == pytest.approx(result.residence_time[0] / [16, 10, 5])


def test_to_json_is_json_with_the_sweep_curve() -> None:
    result = solve(network([0.1, 0.2], population=4), at=[2])
    payload = json.loads(json.dumps(result.to_json()))
    assert payload["population"] == [1, 2, 3, 4]
    assert payload["at"] == [2, 4]
    assert result.point(2).populations[0] == 2


@pytest.mark.parametrize("populations", [[0], [0, 0]])
def test_a_network_without_jobs_is_a_clear_error(populations) -> None:
    net = network([[0.1, 0.2]] * len(populations), population=populations)
    with pytest.raises(InputError, match="at least one job"):
        solve(net)


def test_an_unknown_method_is_refused_by_name() -> None:
    with pytest.raises(InputError, match="method = 'exact;rm'"):
        solve(network([0.1], population=1), "exact;rm")


def test_seidmann_refuses_a_general_load_dependent_station() -> None:
    net = network([0.1, 0.2], rates=[[1, 1.5], None], population=3)
    with pytest.raises(InputError, match="station 'station1'"):
        solve(net, "seidmann")


def test_a_class_that_visits_no_station_is_refused() -> None:
    with pytest.raises(InputError, match="demand of class 'b' = 0 at every station"):
        network([[0.1, 0.2], [0, 0]], classes=["a", "b"], population=[1, 1])


@pytest.mark.parametrize(
    ("servers", "rates", "message"),
    [
        ([0, 1], None, "servers = 0"),
        ([2.5, 1], None, "servers = 2.5"),
        (None, [[1, 0], None], "rates of station 'station1'"),
        (None, [[1, -2], None], "rates of station 'station1'"),
        (None, [[], None], "rates of station 'station1'"),
        ([2, 1], [[1, 2], None], "servers and rates"),
    ],
)
def test_bad_servers_and_rates_are_refused_by_field(servers, rates, message) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        network([0.1, 0.2], servers=servers, rates=rates, population=2)


def test_three_classes_of_a_thousand_are_refused_with_an_estimate_before_work() -> None:
    net = network([[0.1, 0.2]] * 3, population=[1000, 1000, 1000])
    with pytest.raises(InputError, match=r"about .* GB.*linearizer"):
        solve(net)


def test_approximation_error_of_an_exact_result_is_zero() -> None:
    net = network([[0.1, 0.2], [0.3, 0.1]], servers=[2, 1], population=[3, 2])
    assert approximation_error(solve(net)) == {"throughput": 0.0, "queue_length": 0.0}
