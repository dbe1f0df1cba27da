"""Hostile and careless inputs to `batch` and `scenario --variants` (issues 22 and 23): each ends in a
correct answer or one line with exit 2 (batch: 1 when some rows fail), never a traceback or a hang."""

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from qmodel.cli import cli

VARIANTS = ["scenario", "gdps-env2", "--variants"]


def run(*args, stdin: str | None = None):
    return CliRunner().invoke(cli, [str(arg) for arg in args], input=stdin)


def one_line(result, status: int = 2) -> str:
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.output and result.output.count("\n") == 1, result.output
    return result.output


@pytest.mark.parametrize("command", [["batch", "mm1"], VARIANTS])
def test_binary_garbage_behind_a_utf16_byte_order_mark_is_one_line(tmp_path, command):
    source = tmp_path / "garbage.csv"
    source.write_bytes(b"\xff\xfe\x00\xd8\x41\x00\x00\xdc\x00\xd8")  # lone surrogates
    assert "not UTF-16" in one_line(run(*command, source))


@pytest.mark.parametrize("command", [["batch", "mm1", "-"], [*VARIANTS, "-"]])
def test_a_closed_standard_input_is_one_line(command):
    qmodel = str(Path(sys.executable).with_name("qmodel"))
    process = subprocess.run(
        f"{qmodel} {' '.join(command)} <&-", shell=True, capture_output=True, text=True, timeout=60
    )
    assert process.returncode == 2, process.stderr
    assert process.stderr.count("\n") == 1 and "standard input is closed" in process.stderr


@pytest.mark.parametrize("command", [["batch", "mm1"], VARIANTS])
def test_a_device_that_never_ends_is_read_with_a_bound(command):
    result = run(*command, "/dev/zero")
    assert "longer than 200 MB" in one_line(result)


def test_a_100000_digit_variants_cell_is_one_row_error_shortened(tmp_path):
    source = tmp_path / "what-if.csv"
    huge = "9" * 100_000
    source.write_text(f"distance,member.G1P2.terminals\n20km,{huge}\n20km,30\n", encoding="utf-8")
    result = run(*VARIANTS, source)
    assert result.exit_code == 1 and "Traceback" not in result.output
    error = next(line for line in result.output.splitlines() if line.startswith(f"{source}: row 2:"))
    assert "(100000 characters)" in error and "100,000 digits" in error and len(error) < 300
    assert result.output.splitlines()[2].startswith("20km,30,")  # the other row is solved


def test_a_long_batch_cell_is_shortened_in_the_error_as_calc_shortens_it(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("arrival_rate,service_time\n800," + "x" * 5000 + "\n", encoding="utf-8")
    result = run("batch", "mm1", source)
    error = next(line for line in result.output.splitlines() if line.startswith("mm1: row 2:"))
    assert "(5000 characters)" in error and len(error) < 300


@pytest.mark.parametrize("mapping", ["arrival_rate=[", "arrival_rate=2024", "arrival_rate=R/ms"])
def test_a_malformed_map_is_one_line(tmp_path, mapping):
    source = tmp_path / "in.csv"
    source.write_text("arrival_rate,service_time\n800,1\n", encoding="utf-8")
    output = one_line(run("batch", "mm1", source, "--map", mapping))
    assert output.startswith(f"error: --map = {mapping} (not a symbol name)")


def test_a_path_header_spelt_as_qmodels_messages_spell_it_overrides_the_path(tmp_path):
    arrow, dotted = tmp_path / "arrow.csv", tmp_path / "dotted.csv"
    arrow.write_text("distance,path.G1P2→CF1.subchannels\n20km,1\n", encoding="utf-8")
    dotted.write_text("distance,path.G1P2.CF1.subchannels\n20km,1\n", encoding="utf-8")
    by_arrow, by_dots = run(*VARIANTS, arrow), run(*VARIANTS, dotted)
    assert by_arrow.exit_code == by_dots.exit_code
    assert by_arrow.output.splitlines()[1] == by_dots.output.splitlines()[1]
    base = tmp_path / "base.csv"  # the scenario's own subchannels: a different answer
    base.write_text("distance,note\n20km,x\n", encoding="utf-8")
    g1p2_response = 6  # distance, override, G1P1's four columns, then G1P2's response time
    unchanged = run(*VARIANTS, base).output.splitlines()[1].split(",")[g1p2_response - 1]
    assert by_arrow.output.splitlines()[1].split(",")[g1p2_response] != unchanged


@pytest.mark.parametrize("header", ["conversion.threshold/us", "member.G1P2.terminals!", "no.such.key"])
def test_a_dotted_header_that_names_no_key_is_one_error_for_the_file(tmp_path, header):
    source = tmp_path / "what-if.csv"
    source.write_text(f"distance,{header}\n20km,4\n", encoding="utf-8")
    assert one_line(run(*VARIANTS, source)).startswith(f"error: {source}: column = {header} (")


def test_the_missing_column_error_says_how_to_map_another_column(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("SSCH/s,service_time\n800,1\n", encoding="utf-8")
    assert "--map 'COLUMN=arrival_rate'" in one_line(run("batch", "mm1", source))


@pytest.mark.parametrize("command", [["batch", "mm1"], VARIANTS])
def test_a_header_only_file_is_refused_alike_by_batch_and_variants(tmp_path, command):
    source = tmp_path / "in.csv"
    source.write_text("distance,arrival_rate,service_time\n", encoding="utf-8")
    assert "= a header only (no rows)" in one_line(run(*command, source))


def test_one_row_computed_is_singular(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("arrival_rate,service_time\n800,1\n", encoding="utf-8")
    assert "mm1: 1 row computed, 0 failed" in run("batch", "mm1", source).output


def test_a_zero_result_is_written_0_never_minus_0():
    result = run("batch", "mm1", "-", stdin="arrival_rate,service_time\n0,1\n")
    assert result.exit_code == 0 and "-0" not in result.output.splitlines()[1]


@pytest.mark.parametrize(
    ("header", "advised"),
    [("service_time[us]", "(in us)"), ("service_time", "(in ms)"), ("Service Time (s)", "(in s)")],
)
def test_a_bad_cell_is_advised_in_its_headers_unit(tmp_path, header, advised):
    source = tmp_path / "in.csv"
    source.write_text(f"arrival_rate,{header}\n10,abc\n", encoding="utf-8")
    error = next(line for line in run("batch", "mm1", source).output.splitlines() if "row 2:" in line)
    assert f"allowed: 0.4 {advised}" in error


def test_a_cell_with_its_own_unit_under_a_header_with_another_is_read_in_its_own(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("arrival_rate,service_time[us]\n800,1ms\n800,1000\n", encoding="utf-8")
    rows = run("batch", "mm1", source).output.splitlines()
    assert rows[1].split(",")[2:] == rows[2].split(",")[2:]  # 1ms and 1000 us: the same answer, exactly


def test_a_scenario_member_named_all_is_refused_naming_the_row_it_would_shadow(tmp_path):
    shipped = Path(__file__).parent.parent / "casebooks" / "scenarios" / "gdps-env2.toml"
    scenario = tmp_path / "s.toml"
    scenario.write_text(shipped.read_text(encoding="utf-8").replace('"G1P2"', '"All"'), encoding="utf-8")
    error = one_line(run("scenario", scenario, "--distance", "20km"))
    assert "member[2].name = All" in error and "names the row of all of them together" in error


def test_a_variants_row_setting_one_key_in_two_columns_fails_naming_both(tmp_path):
    variants = tmp_path / "v.csv"
    variants.write_text(
        "distance,member.*.terminals,member.G1P1.terminals\n20km,50,60\n20km,50,\n", encoding="utf-8"
    )
    result = run("scenario", "gdps-env2", "--variants", variants)
    errors = [line for line in result.output.splitlines() if "v.csv: row" in line]
    assert result.exit_code == 1 and len(errors) == 1  # the row setting one of them is computed
    assert "v.csv: row 2: columns member.*.terminals and member.G1P1.terminals = both set" in errors[0]


def test_formula_show_to_a_stdout_without_unicode_escapes_what_it_cannot_show():
    script = "import sys; from qmodel.cli import main; sys.argv = ['qmodel', *sys.argv[1:]]; main()"
    ascii_only = {
        "PATH": "/usr/bin:/bin",
        "LANG": "C",
        "LC_ALL": "C",
        "PYTHONIOENCODING": "ascii",
        "COLUMNS": "80",
    }
    shown = subprocess.run(
        [sys.executable, "-c", script, "formula", "show", "mm1"],
        capture_output=True,
        timeout=60,
        env=ascii_only,
    )
    assert shown.returncode == 0, shown.stderr
    assert b"\\u03bb" in shown.stdout and b"Traceback" not in shown.stderr  # λ shown as its escape
