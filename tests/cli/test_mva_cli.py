"""``qmodel mva``: model files and flags in, tables, CSV and JSON out, one-line errors."""

import csv
import io
import json
from pathlib import Path

import numpy as np
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
    result = run(
        "mva",
        "--service-time",
        "0.125,0.3,0.2",
        "--visits",
        "16,10,5",
        "--think-time",
        "4",
        "--population",
        "1..20",
        "--format",
        "csv",
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert [int(r["population"]) for r in rows] == list(range(1, 21))
    assert float(rows[-1]["throughput[1/s]"]) == pytest.approx(0.333247, abs=1e-6)
    assert rows[-1]["binding_bound"].startswith("bottleneck")


def test_json_sweep_carries_per_station_figures_and_bounds() -> None:
    result = run(
        "mva",
        "--demand",
        "0.5,0.3,0.4,1",
        "--servers",
        "2,1,1,delay",
        "--population",
        "1..3",
        "--format",
        "json",
    )
    payload = json.loads(result.output)
    assert payload["population"] == [1, 2, 3]
    assert payload["queue_length"][-1] == pytest.approx([0.624, 0.473, 0.686, 1.217], abs=0.0005)
    assert len(payload["bounds"]["throughput_upper"]) == 3


def test_long_sweep_table_says_which_populations_it_shows_and_how_to_get_the_others() -> None:
    result = run("mva", "--demand", "1,2", "--population", "1..500", "--at", "7")
    assert result.exit_code == 0
    cells = [line.strip("│ ").split()[:1] for line in result.output.splitlines()]
    shown = [int(cell[0]) for cell in cells if cell and cell[0].isdigit()]
    assert shown[:4] == [1, 7, 20, 40] and shown[-1] == 500
    assert "N = 1, every multiple of 20, --at's and 500" in " ".join(result.output.split())
    assert "--format csv or --at" in result.output


def test_a_sweep_to_thirty_shows_every_population_and_each_binding_formula_once() -> None:
    result = run("mva", "--demand", "1,2", "--think-time", "3", "--population", "1..30", "--format", "csv")
    assert [int(r["population"]) for r in csv.DictReader(io.StringIO(result.output))] == list(range(1, 31))
    table = run("mva", "--demand", "1,2", "--think-time", "3", "--population", "1..30").output
    table = " ".join(table.split())
    assert all(f" {n} " in table for n in (4, 10, 16, 21, 27))
    assert table.count("balanced job: N/(D + Z + (N−1)") == 1 and table.count("balanced job") == 3
    assert "of 30 populations shown" not in table


def test_a_bare_population_is_one_point_as_in_python() -> None:
    from qmodel.networks import network, solve

    payload = json.loads(
        run("mva", "--demand", "1,2", "--think-time", "3", "--population", "30", "--format", "json").output
    )
    point = solve(network([1, 2], think_time=3), population=30)
    assert [c["population"] for c in payload["classes"]] == [30] and "population" not in payload  # no curve
    assert payload["classes"][0]["throughput[1/s]"] == pytest.approx(point.throughput[0], rel=1e-12)
    sweep = solve(network([1, 2], think_time=3), population=range(1, 31))
    assert sweep.throughput[0] == point.throughput[0]
    assert sweep.curve.population.tolist() == list(range(1, 31))
    table = run("mva", "--demand", "1,2", "--think-time", "3", "--population", "30").output
    assert "Stations at N = class1 30" in " ".join(table.split()) and "binding bound" not in table


def test_at_reduces_the_csv_to_the_populations_asked_for() -> None:
    result = run("mva", "--demand", "1,2", "--population", "1..1000", "--at", "10,500", "--format", "csv")
    assert [int(r["population"]) for r in csv.DictReader(io.StringIO(result.output))] == [10, 500]
    stations = run(
        "mva", "--demand", "1,2", "--population", "1..1000", "--at", "10", "--format", "csv", "--stations"
    )
    assert [(r["population"], r["station"]) for r in csv.DictReader(io.StringIO(stations.output))] == [
        ("10", "station1"),
        ("10", "station2"),
    ]


def test_two_class_model_file(tmp_path: Path) -> None:
    result = run("mva", model_file(tmp_path, TWO_CLASS), "--format", "json")
    payload = json.loads(result.output)
    assert [c["throughput[1/s]"] for c in payload["classes"]] == pytest.approx([3 / 19, 2 / 19])


def test_approximation_reports_its_deviation_from_exact(tmp_path: Path) -> None:
    result = run("mva", model_file(tmp_path, TWO_CLASS), "--method", "schweitzer", "--compare")
    assert result.exit_code == 0
    assert "schweitzer against exact MVA: throughput within" in result.output


def test_open_model_file_is_solved_as_an_open_network(tmp_path: Path) -> None:
    result = run("mva", model_file(tmp_path, OPEN), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert float(rows[1]["residence_time[ms]"]) == pytest.approx(3.5 / (1 - 0.875))


def test_saturated_open_station_is_named_with_its_utilization(tmp_path: Path) -> None:
    result = run("mva", model_file(tmp_path, OPEN.replace("arrival_rate = 0.25", "arrival_rate = 0.3")))
    assert result.exit_code == 2
    assert "utilization of station 'disk' = 1.05" in result.output


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (('type = "multi"', 'type = "cpu"'), "type = 'cpu'; allowed: queue, delay, multi, ld"),
        (("demand = 3.5", "demand = -3.5"), "demand of class 'tx' at station 'disk' = -3.5"),
        (("demand = 3.5", "demand = [3.5, 1]"), "2 values; allowed: one per class (1)"),
        (('name = "tx"', 'name = "tx"\ncolour = "red"'), "key = colour"),
    ],
)
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
    result = run(
        "mva",
        "--demand",
        "1,2",
        "--think-time",
        "5",
        "--population",
        "1..50",
        "--plot",
        str(path),
        "--format",
        "csv",
    )
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


def test_values_take_units_and_throughput_is_shown_per_second() -> None:
    # one station, D = 15 ms, Z = 0: X = 1 / 15 ms = 66.7/s
    result = run(
        "mva",
        "--demand",
        "15ms",
        "--think-time",
        "0ms",
        "--population",
        "1",
        "--time-unit",
        "ms",
        "--format",
        "csv",
    )
    assert result.exit_code == 0, result.output
    row = next(csv.DictReader(io.StringIO(result.output)))
    assert float(row["throughput[1/s]"]) == pytest.approx(1000 / 15)
    assert float(row["response_time[ms]"]) == pytest.approx(15)


def test_time_unit_that_is_not_time_is_refused() -> None:
    result = run("mva", "--demand", "1,2", "--population", "3", "--time-unit", "km")
    assert result.exit_code == 2
    assert "--time-unit = 'km'; allowed: a time unit: s, ms, us, min\n" in result.output


@pytest.mark.parametrize("population", ["inf", "nan", "1..inf", "-inf"])
def test_population_inf_and_nan_are_one_line_errors(population: str) -> None:
    result = run("mva", "--demand", "1,2", "--population", population)
    assert result.exit_code == 2
    assert result.output.startswith("error: --population")


def test_population_beyond_memory_is_refused_with_its_size_before_work() -> None:
    result = run("mva", "--demand", "1,2", "--population", "1e12")
    assert result.exit_code == 2
    assert "too large to compute" in result.output and "TB" in result.output


def test_a_csv_of_ten_million_rows_is_refused_with_a_way_out() -> None:
    result = run("mva", "--demand", "1,2", "--population", "1..10000000", "--format", "csv")
    assert result.exit_code == 2
    assert "--at" in result.output and "MB of CSV" in result.output


def test_at_shows_the_stations_at_the_populations_asked_for() -> None:
    result = run("mva", "--demand", "1,2", "--population", "1..50", "--at", "10,20", "--format", "json")
    payload = json.loads(result.output)
    assert payload["at"] == [10, 20, 50]
    assert len(payload["queue_length"]) == 3


def test_csv_stations_gives_every_station_at_every_population() -> None:
    result = run("mva", "--demand", "1,2", "--population", "1..4", "--format", "csv", "--stations")
    rows = list(csv.DictReader(io.StringIO(result.output)))
    pairs = [(int(r["population"]), r["station"]) for r in rows]
    assert pairs[:3] == [(1, "station1"), (1, "station2"), (2, "station1")]
    assert len(rows) == 8


@pytest.mark.parametrize(
    "args",
    [
        ("--demand", ""),
        ("--demand", "1,,2"),
        ("--demand", "1,x"),
    ],
)
def test_empty_and_bad_demands_are_one_line_errors(args) -> None:
    result = run("mva", *args, "--population", "3")
    assert result.exit_code == 2
    assert result.output.startswith("error: ")


def test_zero_demand_everywhere_is_refused() -> None:
    result = run("mva", "--demand", "0,0", "--population", "3")
    assert result.exit_code == 2
    assert "0 at every station" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--method", "exact", "--compare"), "--compare"),
        (("--arrival-rate", "0.1", "--method", "schweitzer", "--compare"), "open network"),
        (("--population", "3", "--stations"), "--stations"),
        (("--arrival-rate", "0.1", "--population", "3"), "open network"),
    ],
)
def test_flags_that_do_not_apply_are_refused_not_ignored(args, message: str) -> None:
    result = run("mva", "--demand", "1,2", *args)
    assert result.exit_code == 2
    assert message in result.output


def test_missing_model_file_is_one_line(tmp_path: Path) -> None:
    result = run("mva", str(tmp_path / "absent.toml"))
    assert result.exit_code == 2
    assert "no such file" in result.output


def test_directory_as_model_file_is_one_line(tmp_path: Path) -> None:
    result = run("mva", str(tmp_path))
    assert result.exit_code == 2
    assert "a directory" in result.output


def test_model_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "model.toml"
    path.write_bytes(b'[[station]]\nname = "\xff\xfe"\ndemand = 1\n')
    result = run("mva", str(path))
    assert result.exit_code == 2
    assert "not UTF-8" in result.output


def test_model_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "model.toml"
    path.write_bytes("\ufeff".encode() + OPEN.encode())
    assert run("mva", str(path)).exit_code == 0


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("[[class]]", "[class]"), "[class]"),
        (("servers = 4", "servers = 0"), "servers = 0"),
        (("servers = 4", "servers = 2.5"), "servers = 2.5"),
        (('type = "multi"\nservers = 4', 'type = "ld"\nrates = 2'), "rates = 2"),
        (('type = "multi"\nservers = 4', 'type = "ld"\nrates = [1, 0]'), "rates = [1, 0]"),
        (('type = "multi"\nservers = 4', 'type = "ld"\nrates = []'), "rates = []"),
        (("demand = 3.5", "demand = 0"), "0 at every station"),
    ],
)
def test_malformed_model_files_name_the_field(tmp_path: Path, edit, message: str) -> None:
    text = OPEN.replace(*edit)
    if message == "0 at every station":
        text = text.replace("demand = 2.0", "demand = 0")
    result = run("mva", model_file(tmp_path, text))
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


ONE_STATION = 'name = "cpu"\ndemand = 2.0\n'
ONE_CLASS = 'name = "tx"\narrival_rate = 0.25\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[station]\n" + ONE_STATION + "[[class]]\n" + ONE_CLASS, "[station] = a single table"),
        ('station = "cpu"\n[[class]]\n' + ONE_CLASS, "station = 'cpu'"),
        ("class = 3\n[[station]]\n" + ONE_STATION, "class = 3"),
    ],
)
def test_single_table_or_scalar_for_station_or_class_is_refused(
    tmp_path: Path, text: str, message: str
) -> None:
    result = run("mva", model_file(tmp_path, text))
    assert result.exit_code == 2
    assert message in result.output
    assert "tables" in result.output


def test_multi_class_model_with_a_multi_server_station_is_solved_exactly(tmp_path: Path) -> None:
    text = TWO_CLASS.replace('name = "cpu"', 'name = "cpu"\ntype = "multi"\nservers = 2')
    result = run("mva", model_file(tmp_path, text), "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["method"] == "exact"


@pytest.mark.parametrize(("name", "message"), [("missing/curve.png", "does not exist"), ("", "a directory")])
def test_plot_into_a_missing_directory_or_a_directory_is_refused_before_work(
    tmp_path: Path, name: str, message: str
) -> None:
    target = tmp_path / name if name else tmp_path / "plots.png"
    if not name:
        target.mkdir()
    result = run("mva", "--demand", "1,2", "--population", "1..5", "--plot", str(target))
    assert result.exit_code == 2
    assert message in result.output


def test_a_json_sweep_past_its_limit_is_refused_and_the_way_out_it_names_works() -> None:
    # JSON holds the whole curve (--at does not shorten it): the refusal offers CSV, which does
    from qmodel.cli.mva import JSON_LIMIT

    sweep = ("mva", "--demand", "1", "--population", f"1..{JSON_LIMIT + 1}")
    refused = run(*sweep, "--format", "json")
    assert refused.exit_code == 2
    assert "--format csv" in refused.output and "MB of JSON" in refused.output
    assert "--at" not in refused.output
    followed = run(*sweep, "--format", "csv")
    assert followed.exit_code == 0
    assert followed.output.count("\n") == JSON_LIMIT + 2  # the header and every population


def test_a_sweeps_csv_written_in_blocks_has_every_row_once_as_at_gives_it() -> None:
    # the CSV is written a block of rows at a time (cli.mva.CSV_BLOCK): the rows across a block's edge
    # are those --at gives for the same populations
    from qmodel.cli.mva import CSV_BLOCK

    n = CSV_BLOCK + 3
    rows = list(
        csv.reader(
            io.StringIO(
                run(
                    "mva",
                    "--demand",
                    "1,2",
                    "--think-time",
                    "3",
                    "--population",
                    f"1..{n}",
                    "--format",
                    "csv",
                ).output
            )
        )
    )
    assert [int(row[0]) for row in rows[1:]] == list(range(1, n + 1))
    at = run(
        "mva",
        "--demand",
        "1,2",
        "--think-time",
        "3",
        "--population",
        f"1..{n}",
        "--at",
        f"{CSV_BLOCK},{CSV_BLOCK + 1}",
        "--format",
        "csv",
    )
    assert list(csv.reader(io.StringIO(at.output)))[1:] == rows[CSV_BLOCK : CSV_BLOCK + 2]


def test_a_sweep_past_the_time_limit_is_refused_with_its_estimate_and_each_way_out_works(monkeypatch) -> None:
    # the solve, the bounds and the CSV are estimated together (each also alone); a limit of 0.05 s makes
    # small sweeps stand for the large ones: the way out named is followed and runs
    from qmodel import limits

    monkeypatch.setattr(limits, "TIME_LIMIT", 0.05)
    demands = ",".join(f"{1 + k / 1000:.4f}" for k in range(1000))
    sweep = ("mva", "--demand", demands, "--think-time", "1", "--format", "csv")
    refused = run(*sweep, "--population", "1..10000")
    assert refused.exit_code == 2
    assert "too large to compute" in refused.output and "--at N1,N2,..." in refused.output
    followed = run(*sweep, "--population", "1..10000", "--at", "10,10000")
    assert followed.exit_code == 0
    assert [row[0] for row in csv.reader(io.StringIO(followed.output))] == ["population", "10", "10000"]
    too_long = run(*sweep, "--population", "1..40000", "--at", "10")  # the solve alone is too long
    assert too_long.exit_code == 2
    assert "a smaller N (the solve alone needs about" in too_long.output
    assert run(*sweep, "--population", "1..20000", "--at", "10").exit_code == 0


@pytest.mark.parametrize("population", ["0", "1..0", "2..5", "x"])
def test_a_bad_population_is_named_before_the_missing_network(population: str) -> None:
    # what was typed is checked first: fixing the missing --demand would only meet this error next
    result = run("mva", "--population", population)
    assert result.exit_code == 2
    assert result.output.startswith("error: --population = ")


def test_without_a_network_and_with_a_good_population_the_missing_demand_is_named() -> None:
    result = run("mva", "--population", "3")
    assert result.exit_code == 2 and result.output.startswith("error: --demand / --service-time")


def test_population_is_parsed_once(monkeypatch) -> None:
    from qmodel.cli import mva as command

    calls = []
    original = command.split_range
    monkeypatch.setattr(command, "split_range", lambda *args: calls.append(args) or original(*args))
    assert run("mva", "--demand", "1,2", "--population", "1..3", "--format", "csv").exit_code == 0
    assert [args for args in calls if args[0] == "--population"] == [("--population", "1..3")]


def test_bound_formulas_come_as_name_and_formula_pairs() -> None:
    from qmodel.networks import network
    from qmodel.networks.bounds import closed_bounds

    bounds = closed_bounds(network([1.0, 2.0], think_time=1, population=1), np.arange(1, 4))
    pairs = bounds.formulas(range(3))
    assert all(isinstance(name, str) and isinstance(formula, str) for name, formula in pairs)
    assert pairs[0] == ("no queueing", "N/(D + Z)")
    assert pairs[-1] == ("bottleneck, geometric", "Casale, Muntz & Serazzi 2008, past the knee at station2")
