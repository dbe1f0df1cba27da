"""The qmodel command line: every command, every output format, one-line errors."""

import json

import pytest
from click.testing import CliRunner

from qmodel.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_top_level_help_shows_a_worked_example() -> None:
    result = run("--help")
    assert result.exit_code == 0
    assert "qmodel calc mm1 arrival_rate=800 service_time=1ms" in result.output


@pytest.mark.parametrize(
    "command",
    [
        ["calc"],
        ["batch"],
        ["validate"],
        ["formula", "list"],
        ["formula", "show"],
        ["subchannels"],
        ["mirror-timeline"],
        ["solve"],
        ["ssd-candidates"],
        ["sweep"],
        ["mva"],
    ],
)
def test_each_command_help_shows_an_example(command: list[str]) -> None:
    result = run(*command, "--help")
    assert result.exit_code == 0
    assert "$ qmodel" in result.output


def test_formula_list_names_every_entry_with_its_source() -> None:
    rows = json.loads(run("formula", "list", "--format", "json").output)
    assert {
        "utilization_law",
        "littles_law",
        "response_time_law",
        "mm1",
        "mmc",
        "mg1",
        "mmck",
        "erlang_c",
    } <= {row["id"] for row in rows}
    assert all(row["source"] for row in rows)


def test_formula_show_prints_symbols_units_domains_and_source() -> None:
    result = run("formula", "show", "mmc")
    assert result.exit_code == 0
    for text in ("servers", "1 <= servers", "ms", "Source", "Kleinrock"):
        assert text in result.output


def test_formula_show_json_has_the_symbols() -> None:
    payload = json.loads(run("formula", "show", "mm1", "--format", "json").output)
    assert {s["name"] for s in payload["symbols"]} == {"arrival_rate", "service_time"}


def test_calc_table_shows_outputs_with_units() -> None:
    result = run("calc", "mm1", "arrival_rate=800", "service_time=1ms")
    assert result.exit_code == 0
    assert "response_time" in result.output and "ms" in result.output


def test_calc_json_gives_values_and_units() -> None:
    result = run("calc", "mmc", "arrival_rate=35K", "service_time=150us", "servers=8", "--format", "json")
    payload = json.loads(result.output)
    assert payload["inputs"]["service_time"] == {"value": pytest.approx(0.15), "unit": "ms"}
    assert payload["outputs"]["offered_load"]["value"] == pytest.approx(5.25)


def test_calc_csv_has_one_row_per_quantity() -> None:
    lines = run(
        "calc", "littles_law", "throughput=1000", "response_time=5s", "--format", "csv"
    ).output.splitlines()
    assert lines[0] == "kind,name,value,unit"
    assert "output,number_in_system,5000.0,1" in lines


def test_calc_accepts_percent_ratios() -> None:
    payload = json.loads(
        run(
            "calc",
            "capacity_at_utilization",
            "throughput=163K",
            "utilization=73%",
            "target_utilization=85%",
            "--format",
            "json",
        ).output
    )
    assert payload["outputs"]["projected_throughput"]["value"] == pytest.approx(163_000 * 85 / 73)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["calc", "mm1", "arrival_rate=1200", "service_time=1ms"], "utilization"),
        (["calc", "mm1", "arrival_rate=-3", "service_time=1ms"], "arrival_rate"),
        (["calc", "mm1", "arrival_rate=1.2m", "service_time=1ms"], "arrival_rate"),
        (["calc", "mm1", "arrival_rate=800", "service_time=1km"], "service_time"),
        (["calc", "mm1", "arrival_rate=800"], "service_time"),
        (["calc", "mm1", "arrival_rate=800", "service_time=1ms", "servers=2"], "servers"),
        (["calc", "mm1", "arrival_rate", "service_time=1ms"], "arrival_rate"),
        (["calc", "mm9", "x=1"], "formula"),
        (["formula", "show", "nope"], "formula"),
        (["validate", "no-such-casebook"], "casebook"),
    ],
)
def test_bad_input_is_one_line_naming_the_parameter_with_exit_2(args, named) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    message = result.output.strip()
    assert message.startswith(f"error: {named}")
    assert len(message.splitlines()) == 1
    assert "Traceback" not in message


def test_validate_json_reports_every_case_with_a_verdict() -> None:
    payload = json.loads(run("validate", "--format", "json").output)
    assert payload["cases"]
    assert all(
        case["verdict"] in ("ok", "paper-slip", "inconsistent", "calibrated", "miss")
        for case in payload["cases"]
    )
    assert sum(payload["totals"].values()) == len(payload["cases"])


def test_subchannels_shows_the_rule_and_erlang_c_side_by_side() -> None:
    rows = json.loads(run("subchannels", "--delayed", "31.1%", "--format", "json").output)
    by_method = {row["method"]: row for row in rows}
    assert by_method["rule (Appendix B)"]["subchannels"] == pytest.approx(3.943, abs=1e-3)
    assert by_method["Erlang C (M/M/c)"]["whole_subchannels"] == 3
    assert all(" " not in key for row in rows for key in row)  # snake_case keys, units named


def test_subchannels_says_when_no_more_are_needed() -> None:
    result = run("subchannels", "--delayed", "5%")
    assert result.exit_code == 0
    assert "no more are needed" in result.output


@pytest.mark.parametrize(
    ("option", "text"), [("--delayed", "131%"), ("--delayed", "abc"), ("--target", "0"), ("--measured", "x")]
)
def test_subchannels_refuses_a_value_naming_the_option_as_typed(option: str, text: str) -> None:
    result = run("subchannels", "--delayed", "31%", option, text)
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {option} = ")
    assert "delayed_fraction" not in result.output and "target_delayed" not in result.output


def test_subchannels_at_a_distance_says_the_propagation_from_its_one_home() -> None:
    # cf_request_at_distance's defaults: 1 round trip at 200,000 km/s = 10 us/km (not typed in the CLI)
    result = run("subchannels", "--delayed", "31.1%", "--service-time", "20us", "--distance", "0,50km")
    assert "10 us/km: 1 round trip(s) at 200,000 km/s" in " ".join(result.output.split())
    rows = json.loads(
        run(
            "subchannels",
            "--delayed",
            "31.1%",
            "--service-time",
            "20us",
            "--distance",
            "0,50km",
            "--format",
            "json",
        ).output
    )
    assert rows[1]["propagation[us]"] == pytest.approx(500.0)
    assert all(" " not in key for row in rows for key in row)


def test_sweep_evaluates_every_point_and_explains_unstable_ones() -> None:
    result = run(
        "sweep", "mm1", "arrival_rate=100..1100", "--steps", "6", "service_time=1ms", "--format", "json"
    )
    assert result.exit_code == 1  # the table written, some points failed: as calc with lists
    rows = json.loads(result.output)
    assert [row["arrival_rate[1/s]"] for row in rows] == [100, 300, 500, 700, 900, 1100]
    assert rows[2]["response_time[ms]"] == pytest.approx(2.0)
    assert rows[-1]["response_time[ms]"] is None
    assert "unstable" in rows[-1]["error"]


def test_sweep_draws_the_curve(tmp_path) -> None:
    target = tmp_path / "knee.svg"
    result = run(
        "sweep",
        "mm1",
        "arrival_rate=100..900",
        "--steps",
        "5",
        "service_time=1ms",
        "--plot",
        str(target),
        "--y",
        "response_time",
        "--format",
        "csv",
    )
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8").lstrip().startswith("<?xml")


def test_sweep_refuses_a_range_of_something_that_is_not_an_input() -> None:
    result = run("sweep", "mm1", "servers=1..4", "service_time=1ms")
    assert result.exit_code == 2
    assert result.output.startswith("error: servers=1..4")


def test_sweep_refuses_the_swept_input_given_again_rather_than_drop_one() -> None:
    result = run("sweep", "mm1", "arrival_rate=100..950", "service_time=1ms", "arrival_rate=5")
    assert result.exit_code == 2
    assert result.output.startswith("error: arrival_rate = 5 (given twice)")


# Issue 12: lists for any input, several outputs, estimates before work, no float noise.


def test_calc_accepts_a_list_with_the_unit_on_the_last_item() -> None:
    result = run(
        "calc",
        "transaction_elongation",
        "cf_requests=12",
        "sync_writes=4",
        "distance=20,40,70km",
        "--format",
        "csv",
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "distance[km],round_trip_time[us],round_trips,elongation[ms]"
    assert [line.split(",")[-1] for line in lines[1:]] == ["4.0", "8.0", "14.0"]


def test_calc_with_two_lists_gives_every_combination() -> None:
    result = run(
        "calc", "mmc", "arrival_rate=20K,35K", "service_time=150us", "servers=6,8,10", "--format", "json"
    )
    rows = json.loads(result.output)["records"]
    assert [(r["arrival_rate[1/s]"], r["servers"]) for r in rows] == [
        (20000.0, 6),
        (20000.0, 8),
        (20000.0, 10),
        (35000.0, 6),
        (35000.0, 8),
        (35000.0, 10),
    ]


@pytest.mark.parametrize("value", ["1ms,400us", "1,0.4ms", "0.001s,0.4"])
def test_a_list_accepts_every_unit_form(value: str) -> None:
    rows = json.loads(
        run("calc", "mm1", "arrival_rate=100", f"service_time={value}", "--format", "json").output
    )["records"]
    assert [r["service_time[ms]"] for r in rows] == pytest.approx([1.0, 0.4])


def test_a_comma_inside_a_number_is_not_read_as_a_list() -> None:
    result = run("calc", "mm1", "arrival_rate=35,000", "service_time=1us")
    assert result.exit_code == 2 and "35000" in result.output


def test_calc_says_which_unit_a_link_speed_in_bits_was_read_in() -> None:
    result = run(
        "calc", "link_sizing", "write_rate=120MB/s", "link_bandwidth=800Mb/s", "links=2", "--format", "json"
    )
    payload = json.loads(result.output)
    assert payload["inputs"]["link_bandwidth"]["value"] == pytest.approx(100)
    assert payload["notes"] == ["link_bandwidth = 800Mb/s read as 100 MB/s"]


def test_sweep_over_a_list_and_several_outputs() -> None:
    result = run(
        "sweep",
        "transaction_elongation",
        "distance=20,40,70km",
        "cf_requests=12",
        "sync_writes=4",
        "--y",
        "elongation",
        "--y",
        "round_trips",
        "--format",
        "csv",
    )
    lines = result.output.splitlines()
    assert lines[0] == "distance[km],round_trips,elongation[ms]"
    assert lines[1:] == ["20.0,20.0,4.0", "40.0,20.0,8.0", "70.0,20.0,14.0"]


def test_sweep_csv_has_no_float_noise() -> None:
    result = run(
        "sweep",
        "utilization_law",
        "throughput=0.1..0.6",
        "--steps",
        "6",
        "service_time=1s",
        "--format",
        "csv",
    )
    assert result.exit_code == 0
    assert "0.30000000000000004" not in result.output and "0.6000000000000001" not in result.output
    assert result.output.splitlines()[1:] == [f"0.{i},0.{i}" for i in range(1, 7)]


def test_sweep_with_a_billion_steps_is_refused_with_the_estimate() -> None:
    result = run(
        "sweep", "mm1", "arrival_rate=1..900", "--steps", "1e9", "service_time=1ms", "--format", "csv"
    )
    assert result.exit_code == 2
    assert "GB" in result.output and "fewer --steps" in result.output


@pytest.mark.parametrize(
    "command",
    [
        ["sweep", "mm1", "arrival_rate=1..900", "--steps", "1001", "service_time=1ms"],
        [
            "calc",
            "mmc",
            "arrival_rate=1K,2K,3K,4K,5K,6K,7K,8K,9K,10K,11K",
            "service_time=150us",
            "servers=" + ",".join(str(c) for c in range(10, 110)),
        ],
    ],
)
def test_a_table_longer_than_a_terminal_reads_is_refused_before_the_work(command: list[str]) -> None:
    """A table of a million rows took 44 s to scroll past (issue 34): at most 1,000 rows in a table, as a
    scenario's; CSV and JSON write the rest."""
    result = run(*command)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "at most 1,000 rows in a table; --format csv or json" in result.output
    assert run(*command, "--format", "csv").exit_code in (0, 1)


def test_sweep_plot_names_the_fixed_inputs_and_draws_a_curve_per_output(monkeypatch, tmp_path) -> None:
    drawn = {}
    monkeypatch.setattr(
        "qmodel.cli.plotting.plot_sweep",
        lambda curves, x_label, y_label, title, fixed, path, knees: drawn.update(
            curves=curves, fixed=fixed, knees=knees
        ),
    )
    run(
        "sweep",
        "mmc",
        "arrival_rate=10K..40K",
        "--steps",
        "4",
        "service_time=150us",
        "servers=6,8",
        "--y",
        "response_time",
        "--plot",
        str(tmp_path / "knee.png"),
    )
    assert drawn["fixed"] == "with service_time = 0.15 ms"
    assert sorted(drawn["curves"]) == ["response_time [ms] (servers = 6)", "response_time [ms] (servers = 8)"]


@pytest.mark.parametrize("where", ["missing/knee.png", "."])
def test_plot_file_that_cannot_be_written_is_refused_before_any_work(tmp_path, where: str) -> None:
    result = run("sweep", "mm1", "arrival_rate=100..900", "service_time=1ms", "--plot", str(tmp_path / where))
    assert result.exit_code == 2
    assert result.output.startswith("error: --plot = ") and len(result.output.splitlines()) == 1
