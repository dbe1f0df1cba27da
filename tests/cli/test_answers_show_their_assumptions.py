"""Every assumption an answer rests on is shown where the number is, and the rough edges a new user hit
answer in a form that works as typed (issue 34)."""

import json

import pytest
from click.testing import CliRunner

from qmodel.cli import cli


def run(*args: str, **env: str):
    return CliRunner().invoke(cli, list(args), env={"COLUMNS": "100", **env}, prog_name="qmodel")


ELONGATION = ["transaction_elongation", "cf_requests=12", "sync_writes=4", "distance=70km"]


def test_calc_names_each_default_it_used_with_what_it_assumes() -> None:
    """transaction_elongation takes the host across the distance from its primary disk (io_round_trips = 1)
    unless told: the answer says so beside the 14 ms."""
    result = run("calc", *ELONGATION)
    assert result.exit_code == 0
    assert "│ default │ io_round_trips" in result.output and "│ input   │ distance" in result.output
    said = " ".join(result.output.split("assumed (defaults; NAME=VALUE to change): ")[1].split())
    assert said.startswith("cf_round_trips = 1 (")
    assert "io_round_trips = 1 (round trips host to primary disk" in said
    inputs = json.loads(run("calc", *ELONGATION, "--format", "json").output)["inputs"]
    assert inputs["io_round_trips"]["default"] is True and "default" not in inputs["distance"]


def test_an_input_given_is_no_longer_assumed() -> None:
    result = run(
        "calc",
        *ELONGATION,
        "io_round_trips=0",
        "mirror_round_trips=1",
        "cf_round_trips=1",
        "fibre_speed=200000km/s",
    )
    assert "assumed" not in result.output and "default" not in result.output


def test_solve_shows_the_defaults_it_solved_with_as_calc_does() -> None:
    """solve backend_load hid RAID-10 and 240 operations/s drives (calc showed them)."""
    result = run(
        "solve",
        "backend_load",
        "drive_utilization=50%",
        "--for",
        "io_rate",
        "read_fraction=56.5%",
        "read_hit_ratio=95%",
        "destage_rate=10%",
        "drives=360",
    )
    assert result.exit_code == 0
    assert "│ default │ raid_level" in result.output and "│ default │ drive_capability" in result.output
    assert "raid_level = 10 (RAID level" in " ".join(result.output.split())
    rows = json.loads(
        run(
            "solve",
            "backend_load",
            "drive_utilization=50%",
            "--for",
            "io_rate",
            "read_fraction=56.5%",
            "read_hit_ratio=95%",
            "destage_rate=10%",
            "drives=360",
            "--format",
            "json",
        ).output
    )
    assert {row["name"] for row in rows if row["kind"] == "default"} == {"raid_level", "drive_capability"}


def test_a_refused_answer_says_how_a_bare_time_was_read() -> None:
    """service_time=150 meant as µs gave 'utilization = 656.25' with no hint that 150 was read in ms."""
    result = run("calc", "mmc", "arrival_rate=35K", "service_time=150", "servers=8")
    assert result.exit_code == 2
    assert "service_time = 150 was read in ms (150us for microseconds)" in result.output
    assert run("calc", "mmc", "arrival_rate=35K", "service_time=150us", "servers=8").exit_code == 0


def test_subchannels_says_which_inputs_it_assumed() -> None:
    said = " ".join(run("subchannels", "--delayed", "31.1%").output.split())
    assert (
        "Inputs: 0.311 delayed; assumed (defaults): measured on 2 subchannels (--measured), target 0.1 "
        "delayed (--target), 7 subchannels per link (--per-link)." in said
    )
    said = " ".join(run("subchannels", "--delayed", "31.1%", "--measured", "7").output.split())
    assert "measured on 7 subchannels" in said and "(--measured)" not in said


def test_a_scenario_says_which_round_trip_per_km_it_used(tmp_path) -> None:
    """The shipped files' fitted round trip, a file of your own the study's nominal 10 µs/km."""
    from qmodel.scenario import load_scenario
    from qmodel.scenario.files import resolve_scenario

    speed = load_scenario(resolve_scenario("gdps-env2")).fibre_speed
    said = " ".join(run("scenario", "gdps-env2", "--distance", "20km", "--no-breakdown").output.split())
    assert (
        f"Round trip per km: {2e9 / speed:.4g} µs (fibre_speed {speed / 1e3:,.0f} km/s, fitted: the "
        "file's [[calibration]]); each round trip between the sites at a distance above 0 km adds"
    ) in said
    payload = json.loads(run("scenario", "gdps-env2", "--distance", "20km", "--format", "json").output)
    assert payload["round_trip_us_per_km"] == pytest.approx(2e9 / speed, abs=1e-4)
    own = tmp_path / "own.toml"
    text = resolve_scenario("gdps-env2").read_text(encoding="utf-8")
    own.write_text(
        "\n".join(line for line in text.splitlines() if not line.startswith("fibre_speed")).split(
            "\n[[calibration]]"
        )[0],
        encoding="utf-8",
    )
    said = " ".join(run("scenario", str(own), "--distance", "20km", "--no-breakdown").output.split())
    assert (
        "Round trip per km: 10 µs (fibre_speed 200,000 km/s, the default, the study's nominal figure)" in said
    )


def test_a_scenario_shows_every_default_it_took(tmp_path) -> None:
    """A key the file leaves out is said with the answer, the crossing's equipment above all: it is paid
    from the first metre and can decide the answer (a planner's file on dark fibre writes 0)."""
    from qmodel.scenario.files import resolve_scenario

    own = tmp_path / "own.toml"
    text = resolve_scenario("gdps-env2").read_text(encoding="utf-8").split("\n[[calibration]]")[0]
    own.write_text(
        "\n".join(line for line in text.splitlines() if not line.startswith("crossing_latency")),
        encoding="utf-8",
    )
    said = " ".join(run("scenario", str(own), "--max-distance").output.split())
    assert "adds 138 µs (crossing_latency, the default: the GDPS study's DWDMs" in said
    assert "Defaults taken for keys the file leaves out: link.*.type none (reach not checked) (" in said
    assert "path.*.background_rate 0 (2 paths)" in said
    payload = json.loads(run("scenario", str(own), "--distance", "20km", "--format", "json").output)
    assert payload["defaults"]["crossing_latency"] == "138us"
    assert payload["crossing_latency[us]"] == pytest.approx(138)
    own.write_text(text, encoding="utf-8")  # the file's own crossing latency: no default to say
    payload = json.loads(run("scenario", str(own), "--distance", "20km", "--format", "json").output)
    assert "crossing_latency" not in payload["defaults"]


def test_a_sweep_of_a_load_names_its_knee_and_marks_it_on_the_plot(monkeypatch, tmp_path) -> None:
    drawn = {}
    monkeypatch.setattr(
        "qmodel.cli.plotting.plot_sweep", lambda *args, **kwargs: drawn.update(y_label=args[2], knees=args[6])
    )
    result = run(
        "sweep",
        "mm1",
        "arrival_rate=100..900",
        "--steps",
        "5",
        "service_time=1ms",
        "--plot",
        str(tmp_path / "knee.png"),
    )
    assert result.exit_code == 0
    assert (
        "knee: arrival_rate = 500 1/s, response_time = 2 ms; where arrival_rate / response_time is "
        "greatest" in " ".join(result.output.split())
    )
    assert drawn["y_label"] == "response_time [ms]"
    assert drawn["knees"] == {"response_time [ms]": (500.0, 2.0, "knee: 500 1/s, 2 ms")}


def test_a_knee_at_the_end_of_the_sweep_says_it_may_lie_beyond() -> None:
    result = run("sweep", "mm1", "arrival_rate=100..400", "--steps", "4", "service_time=1ms")
    assert (
        "knee: arrival_rate = 400 1/s, response_time = 1.66667 ms, at the last point computed: it may "
        "lie beyond (sweep further)" in " ".join(result.output.split())
    )


def test_a_warned_answer_exits_1_with_its_warning_on_a_line_of_its_own() -> None:
    result = run("calc", "link_sizing", "write_rate=120MB/s", "link_bandwidth=100MB/s", "links=1")
    assert result.exit_code == 1
    assert result.stderr.startswith("warning: write_rate - bandwidth = 20 MB/s")
    assert not result.stderr.startswith(" ")


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        (["formula", "list", "link"], {"link_sizing", "links_bandwidth", "link_outage"}),
        (["formula", "list", "--domain", "queues"], {"mm1", "mmc", "erlang_c"}),
        (["formula", "list", "erlang", "--domain", "queues"], {"erlang_b", "erlang_c"}),
    ],
)
def test_formula_list_keeps_the_entries_a_word_or_a_domain_names(typed: list[str], kept: set[str]) -> None:
    rows = json.loads(run(*typed, "--format", "json").output)
    everything = json.loads(run("formula", "list", "--format", "json").output)
    assert kept <= {row["id"] for row in rows} and len(rows) < len(everything)
    if "--domain" in typed:
        assert {row["domain"] for row in rows} == {typed[typed.index("--domain") + 1]}


def test_formula_list_without_a_match_says_so_in_one_line() -> None:
    result = run("formula", "list", "nosuchword")
    assert result.exit_code == 2 and result.output.startswith("error: WORD = nosuchword (no entry holds")


@pytest.mark.parametrize(
    ("words", "offered"),
    [
        ("qmodel calc m", {"mm1", "mmc", "mg1"}),
        ("qmodel formula show erl", {"erlang_b", "erlang_c"}),
        ("qmodel scenario gdps", {"gdps-env1", "gdps-env2", "gdps-env3"}),
        ("qmodel formula list --domain q", {"queues"}),
    ],
)
def test_the_shell_completes_formula_ids_scenario_names_and_domains(words: str, offered: set[str]) -> None:
    result = run(COMP_WORDS=words, COMP_CWORD=str(len(words.split()) - 1), _QMODEL_COMPLETE="bash_complete")
    completed = {line.split(",", 1)[1] for line in result.output.splitlines() if line.startswith("plain,")}
    assert offered <= completed and all(word.startswith(words.split()[-1]) for word in completed)


def test_max_distance_draws_its_picture_the_answer_and_band_ends_marked(monkeypatch, tmp_path) -> None:
    """--max-distance --plot was refused; it draws the sweep around the answer (issue 34)."""
    drawn = {}
    monkeypatch.setattr(
        "qmodel.cli.plotting.plot_scenario",
        lambda result, path, marks, today: drawn.update(km=result.distances / 1e3, marks=marks),
    )
    result = run(
        "scenario", "gdps-env2", "--max-distance", "--plot", str(tmp_path / "seek.png"), "--format", "json"
    )
    payload = json.loads(result.output)
    assert result.exit_code == 0
    assert list(drawn["marks"].values()) == [
        payload["max_distance[km]"],
        payload["max_distance_low[km]"],
        payload["max_distance_high[km]"],
    ]
    assert drawn["km"][0] == 0 and drawn["km"][-1] > payload["max_distance_high[km]"]


def test_the_validation_picture_puts_every_agreeing_case_inside_the_band(tmp_path) -> None:
    """The picture's coordinate is the verdict's own measure: ok and paper-slip within ±1 tolerance, a
    miss of a single printed value outside it."""
    from qmodel.cli.plotting import in_tolerances, plot_validation
    from qmodel.validation.judge import run_casebooks

    results = run_casebooks(["esg-ds8000-validation-2008", "ztpf-io-performance-2008"])
    for result in results:
        if result.verdict in ("ok", "paper-slip"):
            assert abs(in_tolerances(result)) <= 1 + 1e-9, result.case.id
        elif result.verdict == "miss" and result.explained:
            assert abs(in_tolerances(result)) > 1, result.case.id
    plot_validation(results, str(tmp_path / "validation.png"))
    assert (tmp_path / "validation.png").read_bytes().startswith(b"\x89PNG")
