"""Estimate before you allocate, for a scenario's own size: its members, its --variants rows and the
distinct variants they make, its [band] points. Each is refused before its work, in one line naming
what, the estimate and a way out (qmodel.limits.refuse_scenario_work), with exit status 2; the way out
runs."""

from __future__ import annotations

import re
import time
from pathlib import Path

from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.scenario.files import resolve_scenario

ENV2 = Path(resolve_scenario("gdps-env2")).read_text(encoding="utf-8")
G1P1_PATHS = (
    '[[path]]\nmember = "{name}"\ncf = "CF1"\nlink = "g1p1_cf1"\nsubchannels = 7\n\n'
    '[[path]]\nmember = "{name}"\ncf = "CF2"\nlink = "g1p1_cf2"\nsubchannels = 2\n\n'
)


def with_members(extra: int) -> str:
    """Environment 2 with ``extra`` more members like G1P1 (10 terminals each), on G1P1's links."""
    first = ENV2.index("[[member]]")
    member = ENV2[first : ENV2.index("[[member]]", first + 1)].replace("terminals = 100", "terminals = 10")
    blocks = [member.replace('"G1P1"', f'"X{i}"') + G1P1_PATHS.format(name=f"X{i}") for i in range(extra)]
    return ENV2 + "\n" + "".join(blocks)


def with_points(count: int) -> str:
    """Environment 2 whose [band] holds ``count`` points (equal weights), each its first point."""
    start = ENV2.index("points = [")
    first = ENV2[ENV2.index("{", start) : ENV2.index("}", start) + 1]
    band = ENV2[:start].replace(ENV2[ENV2.index("weights = ", ENV2.index("[band]")) : start], "")
    return band + "points = [\n" + ",\n".join([first] * count) + "\n]\n"


def run(tmp_path: Path, scenario: str, *args: str, variants: str | None = None):
    path = tmp_path / "big.toml"
    path.write_text(scenario, encoding="utf-8")
    if variants is not None:
        (tmp_path / "v.csv").write_text(variants, encoding="utf-8")
        args = (*args, "--variants", str(tmp_path / "v.csv"))
    started = time.process_time()
    result = CliRunner().invoke(cli, ["scenario", str(path), *args], env={"COLUMNS": "80"})
    return result, time.process_time() - started


def refused_in_one_line(result, what: str) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().split("\n")
    assert len(lines) == 1 and what in lines[0] and "too large to compute" in lines[0]
    # the memory said where there is one to say (not "about 0 bytes"), the time always
    assert re.search(r"about ([\d.]+ (bytes|KB|MB|GB) and )?[\d.]+ (s|min|hours)", lines[0])
    assert "about 0 bytes" not in lines[0]
    return lines[0]


def test_a_scenario_of_a_thousand_members_is_refused_before_its_solve(tmp_path) -> None:
    result, seconds = run(tmp_path, with_members(998), "--distance", "20km")
    line = refused_in_one_line(result, "1,000 members")
    assert "fewer members" in line and seconds < 5  # the solve itself: about 18 s


def test_a_scenario_of_a_few_more_members_runs(tmp_path) -> None:
    result, _ = run(tmp_path, with_members(3), "--distance", "20km", "--format", "csv")
    assert result.exit_code == 0 and "X2" in result.output


def test_a_variants_file_of_many_rows_is_refused_before_its_first_row(tmp_path) -> None:
    rows = "distance\n" + "20km\n" * 20_000
    result, seconds = run(tmp_path, ENV2, variants=rows)
    line = refused_in_one_line(result, "20,000 variant rows")
    assert "split it" in line and seconds < 2  # reading the rows alone: about 40 s


def test_many_distinct_variants_are_refused_before_the_first_solve(tmp_path) -> None:
    rows = "distance,member.G1P1.terminals\n" + "".join(f"20km,{10 + i}\n" for i in range(400))
    result, seconds = run(tmp_path, ENV2, variants=rows)
    line = refused_in_one_line(result, "400 distinct variants")
    assert "distance alone solve as one" in line and seconds < 5  # the solves: about 15 s


def test_rows_that_differ_in_distance_alone_are_one_variant_and_run(tmp_path) -> None:
    rows = "distance\n" + "".join(f"{i / 4:g}km\n" for i in range(400))
    result, _ = run(tmp_path, ENV2, variants=rows)
    assert result.exit_code == 0 and len(result.output.strip().split("\n")) == 401


def test_a_band_of_a_thousand_points_is_refused_before_any_point_is_read(tmp_path) -> None:
    result, seconds = run(tmp_path, with_points(1000), "--distance", "20km")
    line = refused_in_one_line(result, "1,000 [band] points")
    assert "fewer points" in line and seconds < 3  # the points read and solved: about 20 s


def test_a_band_of_a_few_points_runs(tmp_path) -> None:
    result, _ = run(tmp_path, with_points(5), "--distance", "20km", "--format", "csv")
    assert result.exit_code == 0, result.output
