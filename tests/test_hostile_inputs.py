"""Hostile and careless input: nothing a user supplies is evaluated, and each bad value is one clear
error, at once, however long or strange (issue 12)."""

import io
import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from qmodel.batch import run_batch
from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.units import parse_value

HOSTILE_CELLS = [
    "__import__('os').system('echo pwned')",
    "=cmd|' /C calc'!A0",
    "2*400",
    "1e3 + 1",
    "eval('800')",
    "${jndi:ldap://x}",
    "800; rm -rf /",
    "8" * 3000 + "x",
    "9" * 3000,
    "1" * 2000 + "." + "1" * 2000 + "e",
    "\x00800",
]


@pytest.mark.parametrize("cell", HOSTILE_CELLS, ids=range(len(HOSTILE_CELLS)))
def test_a_hostile_cell_is_an_error_row_and_the_good_row_is_still_computed(cell: str) -> None:
    text = f'arrival_rate,service_time\n"{cell}",1\n800,1\n'
    out, err = io.StringIO(), io.StringIO()
    summary = run_batch("mm1", text, out, err)
    assert list(summary.errors) == [0]
    assert out.getvalue().splitlines()[-1].startswith("800,1,0.8,")
    assert len(err.getvalue()) < 400  # the message quotes a long cell shortened


def test_a_hostile_cell_is_not_evaluated(tmp_path, monkeypatch) -> None:
    marker = tmp_path / "ran"
    monkeypatch.chdir(tmp_path)
    cell = f"__import__('pathlib').Path('{marker}').touch()"
    run_batch("mm1", f'arrival_rate,service_time\n"{cell}",1\n', io.StringIO(), io.StringIO())
    assert not marker.exists()


@pytest.mark.parametrize("header", ["__class__", "arrival_rate[__import__('os')]", "service_time(os.system)"])
def test_a_hostile_header_is_a_pass_through_column_or_a_unit_error(header: str) -> None:
    text = f"arrival_rate,service_time,{header}\n800,1,x\n"
    try:
        out = io.StringIO()
        run_batch("mm1", text, out, io.StringIO())
    except InputError as error:
        assert "unit" in str(error) or "twice" in str(error)
    else:
        assert out.getvalue().splitlines()[1].startswith("800,1,x,0.8,")


def test_a_map_to_a_name_outside_the_formula_is_refused() -> None:
    result = CliRunner().invoke(cli, ["batch", "mm1", "-", "--map", "a=os.system"], input="a,b\n1,2\n")
    assert result.exit_code == 2 and result.output.startswith("error: ")


@pytest.mark.parametrize("digits", [1000, 2000, 3000])
def test_a_long_digit_argument_is_answered_at_once(digits: int) -> None:
    result = CliRunner().invoke(cli, ["calc", "mm1", f"arrival_rate={'1' * digits}x", "service_time=1ms"])
    assert result.exit_code == 2
    assert len(result.output) < 400


def test_a_number_past_the_largest_double_in_a_sweep_is_refused() -> None:
    result = CliRunner().invoke(cli, ["sweep", "mm1", "arrival_rate=1..1e309", "service_time=1ms"])
    assert result.exit_code == 2
    assert "too large" in result.output
    assert not re.search(r"\b(nan|inf)\b", result.output)


def test_minus_zero_is_printed_as_zero_in_every_format() -> None:
    for fmt in ("table", "csv", "json"):
        result = CliRunner().invoke(cli, ["calc", "round_trip_time", "distance=-0.0", "--format", fmt])
        assert result.exit_code == 0
        assert "-0" not in result.output


def test_parse_value_never_evaluates_an_expression() -> None:
    with pytest.raises(InputError):
        parse_value("arrival_rate", "__import__('os')", "1/s")


# --- issue 22: runaway memory and time, tracebacks, silent wrong answers, wording (a corpus) ------------
# Each case: the words after ``qmodel``, files it reads ({name} in the words is the file in tmp_path),
# what the one line must say. Every case ends in exit 2 with one line on stderr, no traceback, no numpy
# warning (numpy's RuntimeWarnings are errors inside the command: see qmodel.cli.common).

SHIPPED_SCENARIO = "gdps-env1"


def _scenario_text(old: str, new: str) -> str:
    from qmodel.scenario.files import resolve_scenario

    text = resolve_scenario(SHIPPED_SCENARIO).read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


def _deep(levels: int) -> str:
    return 'title = "x"\nvalue = ' + "[" * levels + "]" * levels + "\n"


CORPUS = [
    # (id, words, {file name: text}, what the error line says)
    (
        "scenario nested 2000 deep",
        ["scenario", "{deep.toml}"],
        {"deep.toml": _deep(2000)},
        "nested too deeply: arrays or inline tables deeper than 100 levels",
    ),
    (
        "model nested 2000 deep",
        ["mva", "{deep.toml}"],
        {"deep.toml": _deep(2000)},
        "nested too deeply: arrays or inline tables deeper than 100 levels",
    ),
    (
        "casebook nested 2000 deep",
        ["validate", "{deep.toml}"],
        {"deep.toml": _deep(2000)},
        "nested too deeply: arrays or inline tables deeper than 100 levels",
    ),
    ("scenario /dev/null", ["scenario", "/dev/null"], {}, "scenario = /dev/null (empty)"),
    ("scenario /dev/zero", ["scenario", "/dev/zero"], {}, "(longer than 10 MB)"),
    ("model /dev/zero", ["mva", "/dev/zero"], {}, "model file = /dev/zero (longer than 10 MB)"),
    (
        "cpu = 1e300ms",
        ["scenario", "{s.toml}"],
        {"s.toml": _scenario_text('cpu = "7.999ms"', 'cpu = "1e300ms"')},
        "member G1P1.cpu = 1e300ms (outside the range",
    ),
    (
        "fibre_speed = 1e-300km/s",
        ["scenario", "{s.toml}"],
        {"s.toml": _scenario_text('fibre_speed = "171352km/s"', 'fibre_speed = "1e-300km/s"')},
        "fibre_speed = 1e-300km/s",
    ),
    (
        "background_rate = 1e9",
        ["scenario", "{s.toml}"],
        {"s.toml": _scenario_text("background_rate = 405", "background_rate = 1e9")},
        "background_rate = 1e+09/s (more than its 7 subchannels carry, at most",
    ),
    (
        "think time 1e308 s",
        ["mva", "--demand", "1,2", "--think-time", "1e308", "--population", "1..3"],
        {},
        "--think-time of class 'class1' = 1e+308 s",
    ),
    ("--demand 1,abc", ["mva", "--demand", "1,abc", "--population", "3"], {}, "--demand = 'abc'"),
    (
        "--time-unit km",
        ["mva", "--demand", "1,2", "--time-unit", "km", "--population", "3"],
        {},
        "--time-unit = 'km'; allowed: a time unit: s, ms, us, min",
    ),
    (
        "1e9 servers under open load",
        ["mva", "--servers", "1000000000,1", "--demand", "1,2", "--arrival-rate", "0.1"],
        {},
        "servers = delay for that station",
    ),
    (
        "20,000 station tables",
        ["mva", "--demand", "1,2", "--population", "1..20000", "--at", ",".join(map(str, range(1, 20_001)))],
        {},
        "--format csv --stations --at",
    ),
    (
        "bounds of a sweep too long",
        ["mva", "--demand", ",".join(["1"] * 9000 + ["2"]), "--population", "1..1000000", "--format", "csv"],
        {},
        "a smaller N (the solve alone",
    ),
    (
        "a sweep's JSON too long",
        ["mva", "--demand", "1,2", "--population", "1..1000000", "--format", "json"],
        {},
        "--format csv",
    ),
]


@pytest.mark.parametrize(
    ("words", "files", "says"), [case[1:] for case in CORPUS], ids=[case[0] for case in CORPUS]
)
def test_each_hostile_input_is_one_line_exit_2_no_traceback_no_warning(words, files, says, tmp_path) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    args = [str(tmp_path / word[1:-1]) if word[1:-1] in files else word for word in words]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ") and says in result.stderr
    assert "Traceback" not in result.stderr and "Warning" not in result.stderr


def test_a_numpy_warning_inside_a_command_is_one_line_never_printed(monkeypatch) -> None:
    import numpy as np

    from qmodel.cli import mva as mva_module

    def overflowing(*args, **kwargs):
        return np.float64(1e308) * 10  # what a step missed by the range checks would do

    monkeypatch.setattr(mva_module, "_show_point", overflowing)
    result = CliRunner().invoke(cli, ["mva", "--demand", "1,2", "--population", "3"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: the arithmetic failed (overflow encountered")


def _run(args: list[str], **streams) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from qmodel.cli import main; main()", *args],
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        **streams,
    )


QUICK = ["calc", "mm1", "arrival_rate=800", "service_time=1ms"]


def test_standard_output_full_is_one_line_and_exit_2() -> None:
    with open("/dev/full", "w") as full:
        finished = _run(QUICK, stdout=full)
    assert finished.returncode == 2
    assert finished.stderr == (
        "error: output = standard output (No space left on device); allowed: a place "
        "the answer can be written\n"
    )


def test_standard_output_closed_is_one_line_and_exit_2() -> None:
    finished = _run(QUICK, stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert finished.returncode == 2
    assert finished.stderr.startswith("error: standard output is closed") and finished.stderr.count("\n") == 1


def test_a_billion_servers_serve_three_jobs_as_a_delay_station_does() -> None:
    from qmodel.networks import network, solve

    many = solve(network([1.0, 2.0], servers=[10**9, 1]), population=range(1, 4))
    delay = solve(network([1.0, 2.0], servers=["delay", 1]), population=range(1, 4))
    assert many.curve.throughput.tolist() == pytest.approx(delay.curve.throughput.tolist(), rel=1e-12)
    assert many.utilization[0, 0] == pytest.approx(delay.utilization[0, 0] / 10**9, rel=1e-12)  # per server


def test_the_bounds_of_a_long_sweep_take_memory_of_n_plus_k_not_n_times_k() -> None:
    import tracemalloc

    import numpy as np

    from qmodel.networks import network
    from qmodel.networks.bounds import closed_bounds

    net = network(np.random.default_rng(22).uniform(0.1, 1.0, 1000), think_time=1.0)
    closed_bounds(net, np.arange(1, 100_001))  # the compiled loop imported and compiled first
    tracemalloc.start()
    bounds = closed_bounds(net, np.arange(1, 100_001))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 30e6  # the N x K arrays took 3.3 GB here
    assert np.all(bounds.throughput_lower <= bounds.throughput_upper * (1 + 1e-12))


def test_twenty_thousand_populations_at_are_found_at_once() -> None:
    at = ",".join(map(str, range(1, 20_001)))
    result = CliRunner().invoke(
        cli, ["mva", "--demand", "1,2", "--population", "1..20000", "--at", at, "--format", "csv"]
    )
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 20_001


def test_a_batch_never_writes_minus_zero() -> None:
    out = io.StringIO()
    run_batch(
        "link_sizing",
        "write_rate,link_bandwidth,links,available_fraction,target_utilization\n0,100,2,0.9,0.5\n",
        out,
        io.StringIO(),
    )
    assert ",-0" not in out.getvalue() and out.getvalue().splitlines()[1].endswith(",0,")


@pytest.mark.parametrize("structure", ["GBP$1", "LOCK@2", "X#3"])
def test_a_profile_with_zos_structure_names_reads_back_as_toml(structure: str) -> None:
    import tomllib

    from qmodel.scenario.profile import profile

    snippet = profile({f"{structure}.sync": 21e3, f"{structure}.async": 199e3, "sync_reads": 92.3e3}, 3394)
    member = tomllib.loads(snippet.toml('G1"P2'))["member"][0]
    assert member["name"] == 'G1"P2'
    assert member["requests"] == {structure: pytest.approx(220e3 / 3394, rel=1e-3)}
