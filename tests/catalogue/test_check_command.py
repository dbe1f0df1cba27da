"""`qmodel check`: a correct entry passes, a wrong property is caught with its smallest counterexample,
a file that does not load exits 2, and hostile expressions are refused before anything runs."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from qmodel.cli import cli

RANKS = Path(__file__).with_name("data") / "ranks.toml"
DECREASING = """
[[formula.properties]]
kind = "decreasing"
output = "host_io_per_rank"
symbol = "read_share"
"""


def run(*args: str):
    return CliRunner().invoke(cli, ["check", *args])


def ranks_with(tmp_path: Path, extra: str = "", old: str = "", new: str = "") -> str:
    path = tmp_path / "ranks.toml"
    path.write_text(RANKS.read_text(encoding="utf-8").replace(old, new) + extra, encoding="utf-8")
    return str(path)


def test_a_correct_user_entry_passes_every_check() -> None:
    result = run(str(RANKS), "--examples", "30")
    assert result.exit_code == 0, result.output
    assert "6 checks of 1 entry: 6 passed, 0 failed" in result.output
    assert "passed  outputs agree with a 50-digit evaluation" in result.output


def test_a_property_declared_the_wrong_way_is_caught_with_a_counterexample(tmp_path) -> None:
    result = run(ranks_with(tmp_path, DECREASING), "--examples", "30")
    assert result.exit_code == 1
    assert "FAILED  host_io_per_rank is decreasing in read_share" in result.output
    assert "other inputs: drives_per_rank = " in result.output
    assert "1 failed" in result.output


def test_the_counterexample_gives_the_inputs_in_their_units(tmp_path) -> None:
    result = run(ranks_with(tmp_path, DECREASING), "--examples", "30", "--format", "json")
    (failure,) = [r for r in json.loads(result.output)["results"] if r["result"] == "failed"]
    assert " 1/s at read_share = " in failure["counterexample"]
    assert "drive_ops = " in failure["counterexample"] and " 1/s" in failure["counterexample"]


def test_a_fixed_seed_repeats_the_same_run(tmp_path) -> None:
    path = ranks_with(tmp_path, DECREASING)
    first = run(path, "--examples", "20", "--format", "json")
    second = run(path, "--examples", "20", "--format", "json")
    assert first.output == second.output


def test_a_missing_constraint_shows_as_an_output_that_is_not_finite(tmp_path) -> None:
    constraint = (
        '  { name = "backend ops per host I/O", expr = "backend_ops_per_io", above = 0, '
        'reason = "every I/O is a read hit: the rank carries no back-end load" },\n'
    )
    result = run(ranks_with(tmp_path, old=constraint), "--examples", "100")
    assert result.exit_code == 1
    assert "FAILED  outputs finite wherever the domains and constraints allow" in result.output
    assert "read_share = 1" in result.output and "read_hit_ratio = 1" in result.output


def test_a_unit_mismatch_is_a_file_that_does_not_load(tmp_path) -> None:
    path = ranks_with(
        tmp_path,
        old='expr = "rank_ops/backend_ops_per_io"\nunit = "1/s"',
        new='expr = "rank_ops/backend_ops_per_io"\nunit = "ms"',
    )
    result = run(path)
    assert result.exit_code == 2
    assert result.output.strip().endswith(
        "formula 'rank_host_io', output 'host_io_per_rank': declared in ms "
        "(a time (s)) but its expression gives a rate (1/s)"
    )


@pytest.mark.parametrize(
    "hostile",
    [
        "__import__('os').system('touch hacked')",
        "open('hacked', 'w').write('x')",
        "drive_ops.__class__.__base__",
        "(lambda: 0)()",
        "drive_ops[0]",
        "drive_ops**10**100",
    ],
)
def test_a_hostile_expression_is_refused_before_anything_runs(tmp_path, monkeypatch, hostile: str) -> None:
    monkeypatch.chdir(tmp_path)
    path = ranks_with(
        tmp_path, old='expr = "drives_per_rank*drive_ops*target_busy"', new=f'expr = "{hostile}"'
    )
    result = run(path)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "formula 'rank_host_io', output 'rank_ops': cannot parse" in lines[0]
    assert not (tmp_path / "hacked").exists()


def test_builtin_entries_are_checked_by_the_same_machinery() -> None:
    result = run("--builtin", "mm1", "erlang_c", "--examples", "20")
    assert result.exit_code == 0, result.output
    assert "checking 2 entries of the shipped catalogue" in result.output
    assert "passed  response_time is increasing in arrival_rate" in result.output


def test_an_unknown_id_is_named() -> None:
    result = run(str(RANKS), "rank_hostio")
    assert result.exit_code == 2
    assert "ID = rank_hostio (not an entry of" in result.output


def test_examples_must_be_positive() -> None:
    assert run(str(RANKS), "--examples", "0").exit_code == 2


def test_a_check_that_cannot_run_is_a_failure_not_a_traceback(tmp_path) -> None:
    # mm1 needs service_time and arrival_rate, which this entry does not have
    equals = """
[[formula.properties]]
kind = "equals"
output = "host_io_per_rank"
other = "mm1.response_time"
substitute = { drives_per_rank = 1 }
"""
    result = run(ranks_with(tmp_path, equals), "--examples", "10")
    assert result.exit_code == 1
    assert "the check could not run: KeyError" in result.output
