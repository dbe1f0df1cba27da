"""``qmodel mva``: model files and flags in, tables, CSV and JSON out, one-line errors."""

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from qmodel.cli import cli

TWO_CLASS = """
title = "Lazowska et al., QSP p. 142"
[[station]]
name = "cpu"
visits = [10, 5]
service_time = [0.1, 0.4]
[[station]]
name = "disk"
visits = [9, 4]
service_time = [0.3333333333333333, 1.0]
[[class]]
name = "a"
population = 1
[[class]]
name = "b"
population = 1
"""

OPEN = """
time_unit = "ms"
[[station]]
name = "cpu"
type = "multi"
servers = 4
demand = 2.0
[[station]]
name = "disk"
demand = 3.5
[[class]]
name = "tx"
arrival_rate = 0.25
"""


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def model_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "model.toml"
    path.write_text(text)
    return str(path)


def test_flags_give_the_jain_example_as_csv_for_every_population() -> None:
    result = run("mva", "--service-time", "0.125,0.3,0.2", "--visits", "16,10,5", "--think-time", "4",
                 "--population", "1..20", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert [int(r["N"]) for r in rows] == list(range(1, 21))
    assert float(rows[-1]["X [1/s]"]) == pytest.approx(0.333247, abs=1e-6)
    assert rows[-1]["binding bound"].startswith("bottleneck")


def test_json_sweep_carries_per_station_figures_and_bounds() -> None:
    result = run("mva", "--demand", "0.5,0.3,0.4,1", "--servers", "2,1,1,delay", "--population", "3",
                 "--format", "json")
    payload = json.loads(result.output)
    assert payload["population"] == [1, 2, 3]
    assert payload["queue_length"][-1] == pytest.approx([0.624, 0.473, 0.686, 1.217], abs=0.0005)
    assert len(payload["bounds"]["throughput_upper"]) == 3


def test_long_sweep_table_shows_a_sample_and_says_so() -> None:
    result = run("mva", "--demand", "1,2", "--population", "1..500")
    assert result.exit_code == 0
    assert "25 of 500 populations shown" in result.output


def test_two_class_model_file(tmp_path: Path) -> None:
    result = run("mva", model_file(tmp_path, TWO_CLASS), "--format", "json")
    payload = json.loads(result.output)
    assert [c["X [1/s]"] for c in payload["classes"]] == pytest.approx([3 / 19, 2 / 19])


def test_approximation_reports_its_deviation_from_exact(tmp_path: Path) -> None:
    result = run("mva", model_file(tmp_path, TWO_CLASS), "--method", "schweitzer", "--compare")
    assert result.exit_code == 0
    assert "schweitzer against exact MVA: throughput within" in result.output


def test_open_model_file_is_solved_as_an_open_network(tmp_path: Path) -> None:
    result = run("mva", model_file(tmp_path, OPEN), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert float(rows[1]["residence [ms]"]) == pytest.approx(3.5 / (1 - 0.875))


def test_saturated_open_station_is_named_with_its_utilization(tmp_path: Path) -> None:
    result = run("mva", model_file(tmp_path, OPEN.replace("arrival_rate = 0.25", "arrival_rate = 0.3")))
    assert result.exit_code == 2
    assert "utilization of station 'disk' = 1.05" in result.output


@pytest.mark.parametrize(("edit", "message"), [
    (('type = "multi"', 'type = "cpu"'), "type = 'cpu'; allowed: queue, delay, multi, ld"),
    (("demand = 3.5", "demand = -3.5"), "demand of class 'tx' at station 'disk' = -3.5"),
    (("demand = 3.5", "demand = [3.5, 1]"), "2 values; allowed: one per class (1)"),
    (('name = "tx"', 'name = "tx"\ncolour = "red"'), "key = colour"),
])
def test_bad_model_files_get_one_line_naming_the_field(tmp_path: Path, edit, message) -> None:
    result = run("mva", model_file(tmp_path, OPEN.replace(*edit)))
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("population", ["2.5", "-3", "0..5", "many"])
def test_population_must_be_a_whole_number_sweep(population: str) -> None:
    result = run("mva", "--demand", "1,2", "--population", population)
    assert result.exit_code == 2
    assert "--population" in result.output


def test_plot_draws_throughput_and_response_with_bounds(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "curve.png"
    result = run("mva", "--demand", "1,2", "--think-time", "5", "--population", "1..50", "--plot", str(path),
                 "--format", "csv")
    assert result.exit_code == 0, result.output
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_mixed_model_file_reports_closed_and_open_classes(tmp_path: Path) -> None:
    text = OPEN.replace('type = "multi"\nservers = 4\n', "") + '\n[[class]]\nname = "batch"\npopulation = 3\n'
    text = text.replace("demand = 2.0", "demand = [2.0, 1.0]").replace("demand = 3.5", "demand = [3.5, 2.0]")
    result = run("mva", model_file(tmp_path, text), "--format", "json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert set(payload["closed_classes"]) == {"batch"}
    assert {row["class"] for row in payload["open"]} == {"tx"}
