"""One result vocabulary (issue 31): every result's record keys name their units one way.

A number with a unit is ``name[unit]`` with a unit :mod:`qmodel.units` knows, no space; a count, a
text or a flag is a bare snake_case name; a band's ends are ``name_low[unit]`` and ``name_high[unit]``
(:mod:`qmodel.frames`). The same keys in ``records()``, ``to_json()``, CSV and the DataFrame.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from click.testing import CliRunner

from qmodel import frames
from qmodel.catalogue.evaluate import calc
from qmodel.cli import cli
from qmodel.networks import network, solve
from qmodel.scenario import load_banded, max_distance_banded, solve_banded
from qmodel.scenario.files import resolve_scenario
from qmodel.units import UNITS
from qmodel.validation.report import validation_report

BARE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(→[A-Za-z0-9_]+)?$")  # snake_case (a CF's name may lead: CF1_)


def assert_keys_follow_the_convention(keys) -> None:
    for key in keys:
        name, unit = frames.split_key(key)
        assert BARE.match(name), f"{key!r}: not a snake_case name"
        assert unit is None or unit in UNITS, f"{key!r}: {unit!r} is no unit qmodel knows"
        assert unit != frames.COUNT, f"{key!r}: a count's key is its bare name"


def json_keys(value) -> list[str]:
    """Every key of every dict in a JSON document."""
    if isinstance(value, dict):
        return [key for key, inner in value.items() for key in (key, *json_keys(inner))]
    if isinstance(value, list):
        return [key for inner in value for key in json_keys(inner)]
    return []


@pytest.mark.parametrize(
    ("name", "unit", "key"),
    [
        ("response_time", "ms", "response_time[ms]"),
        ("throughput", "1/s", "throughput[1/s]"),
        ("share_within_goal", "%", "share_within_goal[%]"),
        ("queue_length", "1", "queue_length"),
        ("write_rate", "MB/s", "write_rate[MB/s]"),
    ],
)
def test_a_key_names_its_unit_and_reads_back(name: str, unit: str, key: str) -> None:
    assert frames.key(name, unit) == key
    assert frames.split_key(key) == (name, None if unit == "1" else unit)
    assert frames.end_key(key, "low") == frames.key(f"{name}_low", unit)
    assert frames.label(key) == (name if unit == "1" else f"{name} [{unit}]")


def test_formula_results_name_their_units_in_records_json_and_the_frame() -> None:
    result = calc("mmc", arrival_rate=[20e3, 30e3], service_time=0.15, servers=8)
    assert_keys_follow_the_convention(result.records()[0])
    assert result.to_json()["records"] == result.records()
    assert list(result.to_frame().columns) == list(result.records()[0])
    assert "servers" in result.records()[0] and "response_time[ms]" in result.records()[0]
    si = calc("mm1", units="si", arrival_rate=800, service_time=1e-3)
    assert "response_time[s]" in si.records()[0]


def test_network_results_name_their_units() -> None:
    result = solve(
        network([0.002, 0.003], servers=[8, 1], think_time=1.0, time_unit="ms"),
        population=range(1, 11),
        at=[5],
    )
    assert_keys_follow_the_convention(json_keys(result.to_json()))
    assert "response_time[ms]" in result.class_records()[0] and "residence_time[ms]" in result.records()[0]
    assert result.to_json()["throughput[1/s]"] == result.curve.throughput.tolist()


@pytest.fixture(scope="module")
def banded():
    return load_banded(resolve_scenario("gdps-env2"))


def test_scenario_results_and_their_bands_name_their_units(banded) -> None:
    result = solve_banded(banded, [20e3])
    records = result.records()
    assert_keys_follow_the_convention(json_keys(result.to_json()))
    for key in (
        "distance[km]",
        "response_time[ms]",
        "share_within_goal[%]",
        "throughput[1/s]",
        "response_time_low[ms]",
        "response_time_high[ms]",
        "cf_sync[ms]",
        "thrashing",
    ):
        assert key in records[0]
    assert list(result.to_frame().columns) == list(records[0])


def test_the_goal_seek_answers_in_km_with_its_band(banded) -> None:
    seek = max_distance_banded(banded)
    payload = seek.to_json()
    assert_keys_follow_the_convention(payload)
    assert payload["max_distance[km]"] == seek.answer.held_km
    assert seek.answer.held_km == pytest.approx(seek.answer.distance / 1e3, abs=0.1)
    assert payload["max_distance_low[km]"] <= payload["max_distance[km]"] <= payload["max_distance_high[km]"]
    assert f"distance={payload['max_distance[km]']:g} km" in repr(seek.answer)
    assert f"<td>{payload['max_distance_low[km]']:g}</td>" in seek._repr_html_()
    assert_keys_follow_the_convention(seek.answer.to_json())


def test_the_command_line_writes_the_records_keys() -> None:
    runner = CliRunner()
    grid = runner.invoke(
        cli, ["calc", "mm1", "arrival_rate=100/s,200/s", "service_time=1ms", "--format", "csv"]
    )
    header = next(csv.reader(io.StringIO(grid.output)))  # the inputs listed, then the outputs
    keys = calc("mm1", arrival_rate=100, service_time=1.0).records()[0]
    assert header == [key for key in keys if key != "service_time[ms]"]
    mva = runner.invoke(cli, ["mva", "--demand", "2ms,3ms", "--population", "1..5", "--format", "json"])
    payload = json.loads(mva.output)  # its bounds' formulas are keyed by the bounds' names: data, not records
    records = json_keys(payload["classes"]) + json_keys(payload["stations"])
    assert_keys_follow_the_convention([*payload, *records])
    seek = runner.invoke(cli, ["scenario", "gdps-env2", "--max-distance", "--format", "csv"])
    assert_keys_follow_the_convention(next(csv.reader(io.StringIO(seek.output))))


def test_validation_scores_name_their_fractions() -> None:
    report = validation_report(["gdps-pprc-100km-2006"])
    payload = report.to_json()
    assert_keys_follow_the_convention(payload["scorecard"]["studies"][0])
    assert payload["cases"][0]["unit"]  # rows of different quantities: each row's unit a value
