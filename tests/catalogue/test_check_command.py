"""`qmodel check`: a correct entry passes, a wrong property is caught with its smallest counterexample,
a file that does not load exits 2, and hostile expressions are refused before anything runs."""

import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from qmodel import limits
from qmodel.catalogue import checks
from qmodel.catalogue.loader import load_catalogue
from qmodel.catalogue.user import symbolic_catalogue, use_catalogues
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


RULE = """
[[formula]]
id = "rule_{n}"
title = "Rule {n}"
source = "generated for the test"
[formula.symbols.load]
meaning = "offered load"
unit = "1/s"
domain = "(0, inf)"
[[formula.outputs]]
name = "scaled"
expr = "{n}*load"
unit = "1/s"
meaning = "the load scaled"
[[formula.properties]]
kind = "increasing"
output = "scaled"
symbol = "load"
"""


def rules(tmp_path: Path, count: int) -> str:
    path = tmp_path / f"rules{count}.toml"
    path.write_text("".join(RULE.format(n=n + 1) for n in range(count)), encoding="utf-8")
    return str(path)


def copies_of_ranks(tmp_path: Path, count: int) -> str:
    text = RANKS.read_text(encoding="utf-8")
    path = tmp_path / "many_ranks.toml"
    path.write_text(
        "\n".join(text.replace('id = "rank_host_io"', f'id = "rank_{n + 1}"') for n in range(count)),
        encoding="utf-8",
    )
    return str(path)


@pytest.fixture
def one_second(monkeypatch):
    """A time limit of 1 s of CPU (the estimates unchanged), so that small runs stand for large ones."""
    monkeypatch.setattr(limits, "TIME_LIMIT", 1.0)


def test_thousands_of_entries_are_refused_at_once_with_the_estimate(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = rules(tmp_path, 3000)
    start = time.process_time()
    result = run(path)
    took = time.process_time() - start
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    estimate = re.search(
        r"check of 3,000 entries \(9,000 checks x 100 examples\) = about \S+ \w+ and (.+?) \(", line
    )
    assert estimate is not None, line
    assert estimate.group(1).endswith(("min", "hours")), line  # far past 10 s: 3 checks an entry
    # compiling 3,000 entries leaves no time to check one named by ID: a smaller file is offered
    assert "allowed: at most 2 GB and 10 s: a file of at most " in line
    assert line.endswith(" of its entries or --no-time-limit to run it all")
    assert took < 3.0  # read and estimated; nothing compiled, nothing drawn
    assert not (tmp_path / "cache").exists()


def test_the_examples_the_refusal_offers_run(tmp_path, one_second) -> None:
    refused = run(str(RANKS))
    assert refused.exit_code == 2
    offered = re.search(r"--examples (\d+)", refused.output)
    assert offered is not None, refused.output
    assert 1 <= int(offered.group(1)) < 100
    result = run(str(RANKS), "--examples", offered.group(1))
    assert result.exit_code == 0, result.output
    assert f"{offered.group(1)} examples per check" in result.output


def test_the_entries_the_refusal_offers_by_id_run(tmp_path, one_second) -> None:
    path = copies_of_ranks(tmp_path, 3)
    refused = run(path, "--examples", "10")
    offered = re.search(r"any (\d+) entr(y|ies) by ID \(qmodel check (\S+) ID\.\.\.\)", refused.output)
    assert refused.exit_code == 2 and offered is not None, refused.output
    assert offered.group(3) == path
    ids = [f"rank_{n + 1}" for n in range(int(offered.group(1)))]
    result = run(path, *ids, "--examples", "10")
    assert result.exit_code == 0, result.output
    assert f"checks of {len(ids)} entr" in result.output


def test_no_time_limit_runs_what_is_refused_without_it(tmp_path, one_second) -> None:
    assert run(str(RANKS), "--examples", "20").exit_code == 2
    result = run(str(RANKS), "--examples", "20", "--no-time-limit")
    assert result.exit_code == 0, result.output
    assert "6 checks of 1 entry: 6 passed, 0 failed" in result.output


def test_the_whole_shipped_catalogue_is_refused_unless_asked_for(monkeypatch) -> None:
    result = run("--builtin")
    assert result.exit_code == 2
    assert "check of " in result.output and "--no-time-limit to run it all" in result.output
    checked = []
    monkeypatch.setattr(checks, "check_entries", lambda formulas, *args: checked.extend(formulas) or [])
    assert run("--builtin", "--no-time-limit", "--format", "json").exit_code == 0
    assert len(checked) == len(load_catalogue())


def test_the_estimate_counts_the_checks_that_run(tmp_path) -> None:
    formulas = use_catalogues([copies_of_ranks(tmp_path, 2)])
    context = symbolic_catalogue(formulas)
    results = checks.check_entries(list(formulas.values()), context, 1, 0)
    assert sum(checks.check_counts(list(formulas.values()), context)) == len(results) == 12


def test_a_first_use_too_long_to_compile_is_refused_naming_the_entries_allowed(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(limits, "TIME_LIMIT", 0.05)  # 16 entries at the estimated 3 ms
    path = rules(tmp_path, 40)
    result = CliRunner().invoke(cli, ["calc", "rule_1", "load=5", "--catalogue", path])
    assert result.exit_code == 2
    assert "catalogue of 40 entries to compile" in result.output
    allowed = re.search(r"at most ([\d,]+) entries in the files given together", result.output)
    assert allowed is not None, result.output
    fewer = rules(tmp_path, int(allowed.group(1)))
    result = CliRunner().invoke(cli, ["calc", "rule_1", "load=5", "--catalogue", fewer])
    assert result.exit_code == 0, result.output
