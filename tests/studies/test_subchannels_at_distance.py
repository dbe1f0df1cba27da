"""`qmodel subchannels --distance`: the CF moved away, the subchannels sized at each distance (issue 23).

The command chains cf_request_at_distance (or distance_growth) and the Erlang C sizing, so a planner
does not chain the entries by hand; these tests hold it to the entries it chains.
"""

import json

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from qmodel.catalogue.evaluate import calc
from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.studies.subchannel_methods import compare_methods, subchannels_at_distance


def run(*args: str):
    return CliRunner().invoke(cli, ["subchannels", *args])


def test_at_0_km_it_answers_as_the_measured_erlang_c() -> None:
    # GDPS study Appendix B: 31.1% delayed on 2 subchannels, target 10%
    (at_zero,) = subchannels_at_distance([0.0], 0.311, 2, 0.1, 7, 20.0)
    erlang = compare_methods(0.311, 2, 0.1, 7)[1]
    assert at_zero.subchannels == erlang.whole == 3
    assert at_zero.links == erlang.links


@given(st.floats(0.01, 0.9), st.floats(1.0, 200.0), st.floats(0.0, 200.0))
def test_the_offered_load_grows_with_the_holding_time_by_the_round_trip(delayed, service, km) -> None:
    zero, far = subchannels_at_distance([0.0, km], delayed, 2, 0.1, 7, service)
    trip = float(calc("round_trip_time", distance=km).round_trip_time)
    assert far.propagation == pytest.approx(trip)
    assert far.holding_time == pytest.approx(service + trip)
    assert far.offered_load / zero.offered_load == pytest.approx(far.holding_time / zero.holding_time)
    sized = calc(
        "erlang_c_subchannels_from_rate",
        request_rate=zero.offered_load / (service * 1e-6),
        service_time=f"{far.holding_time!r}us",
        target_delayed=0.1,
    )
    assert far.subchannels == int(sized.subchannels)


def test_an_assumed_threshold_converts_requests_as_cf_request_at_distance_does() -> None:
    (far,) = subchannels_at_distance([100.0], 0.311, 2, 0.1, 7, 20.0, async_service=100.0, threshold=150.0)
    request = calc(
        "cf_request_at_distance",
        sync_service_at_zero=20,
        async_service_at_zero=100,
        distance=100,
        threshold=150,
    )
    assert far.converted_fraction == pytest.approx(float(request.converted_fraction))
    assert far.holding_time == pytest.approx(float(request.subchannel_time))


def test_the_command_shows_the_distance_and_its_propagation() -> None:
    result = run(
        "--delayed", "31.1%", "--service-time", "20us", "--distance", "0,50,100km", "--format", "json"
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [row["distance[km]"] for row in rows] == [0, 50, 100]
    assert [row["propagation[us]"] for row in rows] == [0, 500, 1000]
    assert [row["subchannels"] for row in rows] == [3, 33, 60]


def test_the_table_fits_80_columns() -> None:
    result = CliRunner(env={"COLUMNS": "80"}).invoke(
        cli, ["subchannels", "--delayed", "31.1%", "--service-time", "20us", "--distance", "0,50,100km"]
    )
    assert result.exit_code == 0
    assert max(len(line) for line in result.output.splitlines()) <= 80


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--distance", "100km"], "--service-time"),
        (["--service-time", "20us"], "--distance"),
        (["--service-time", "20us", "--distance", "100km", "--converted", "5%"], "--converted"),
    ],
)
def test_a_missing_or_unused_option_is_named(args, named) -> None:
    result = run("--delayed", "31.1%", *args)
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {named}")


def test_conversion_inputs_without_a_threshold_are_refused_in_python_too() -> None:
    with pytest.raises(InputError):
        subchannels_at_distance([100.0], 0.311, 2, 0.1, 7, 20.0, async_service=100.0)
