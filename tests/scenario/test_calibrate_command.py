"""``qmodel scenario calibrate FILE MEASUREMENTS``: the file's free parameters fitted by weighted least
squares over every row, each with its interval, every row's residual, the weakly identified flagged; the
result written beside the file, whole, and taken by the next reading of the file."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.scenario.files import fit_path, resolve_scenario
from qmodel.scenario.fit import fit_scenario, model_values
from qmodel.scenario.measurements import Measurement, read_measurements
from qmodel.scenario.spec import load_scenario

ENV2 = load_scenario("gdps-env2")
FREE = ["locks.lockable_items", "member.*.other"]


def measured(truth, km, members=("G1P1", "G1P2"), quantities=("response_time",)) -> list[Measurement]:
    rows = [Measurement("mine", m, d * 1e3, q, 1.0) for d in km for m in members for q in quantities]
    return [replace(row, value=float(v)) for row, v in zip(rows, model_values(truth, rows), strict=True)]


def scenario_file(folder: Path, free=FREE) -> Path:
    path = folder / "mine.toml"
    shipped = resolve_scenario("gdps-env2").read_text(encoding="utf-8")
    path.write_text(f"free = {json.dumps(free)}\n" + shipped, encoding="utf-8")
    return path


def csv_file(folder: Path, rows: list[Measurement]) -> Path:
    path = folder / "measured.csv"
    lines = ["distance,member,quantity,value"] + [
        f"{row.km:g}km,{row.member},{row.quantity},{row.value * 1e3:.9g}ms" for row in rows
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_fit_finds_the_values_its_rows_were_made_with_and_leaves_no_residual() -> None:
    truth = replace(
        ENV2, lockable_items=3000.0, members=tuple(replace(m, other=m.other + 2e-3) for m in ENV2.members)
    )
    rows = measured(truth, (0, 40, 70))
    fit = fit_scenario(ENV2, rows, FREE)
    assert fit.values["locks.lockable_items"] == pytest.approx(3000.0, rel=1e-3)
    for member in truth.members:
        assert fit.values[f"member.{member.name}.other"] == pytest.approx(member.other, rel=1e-3)
    assert np.abs(fit.residuals).max() < 1e-3
    # rows that agree exactly pin nothing tighter than their declared σ (trial 5, N6): each interval is
    # ± z standard errors of the σ taken as known, not the zero width their residuals would give
    known = 1.959963984540054 * np.sqrt(np.diag(np.linalg.pinv(fit.jacobian.T @ fit.jacobian)))
    for p, x, half in zip(fit.parameters, fit.x, known, strict=True):
        low, high = fit.intervals()[p.key]
        assert p.to_scale(high) - x == pytest.approx(half, rel=1e-6)
        assert x - p.to_scale(low) == pytest.approx(half, rel=1e-6)


def test_rows_at_one_distance_leave_what_they_cannot_separate_weakly_identified() -> None:
    rows = measured(ENV2, (0,))  # two responses for three parameters
    weak = fit_scenario(ENV2, rows, FREE).weak()
    assert any(weak.values())
    spread = fit_scenario(ENV2, measured(ENV2, (0, 40, 70)), FREE).weak()
    assert not any("do not pin" in reason for reason in spread.values())  # each moved by the rows


def test_the_command_writes_beside_the_file_whole_never_over_it_and_the_next_reading_takes_it(
    tmp_path: Path,
) -> None:
    truth = replace(ENV2, lockable_items=3000.0)
    scenario, table = scenario_file(tmp_path), csv_file(tmp_path, measured(truth, (0, 40, 70)))
    before = scenario.read_bytes()
    result = CliRunner().invoke(cli, ["scenario", "calibrate", str(scenario), str(table), "--format", "json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert scenario.read_bytes() == before
    written = fit_path(scenario)
    assert payload["written"] == str(written) and written.is_file()
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed into place
    fitted = {p["key"]: p for p in payload["parameters"]}
    assert fitted["locks.lockable_items"]["low"] < 3000 < fitted["locks.lockable_items"]["high"]
    again = load_scenario(scenario)
    assert again.lockable_items == pytest.approx(fitted["locks.lockable_items"]["value"], rel=1e-5)
    assert again.band is not None and "qmodel scenario calibrate" in again.band.method
    assert len(payload["rows"]) == 6 and all("weighted_residual" in row for row in payload["rows"])


def test_help_and_input_it_cannot_use_say_so_in_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    helped = runner.invoke(cli, ["scenario", "calibrate", "--help"])
    assert helped.exit_code == 0 and "MEASUREMENTS" in helped.output and "FILE.fit.toml" in helped.output
    scenario = scenario_file(tmp_path)
    table = tmp_path / "bad.csv"
    table.write_text("distance,member,value\n0km,G1P1,40ms\n", encoding="utf-8")
    refused = runner.invoke(cli, ["scenario", "calibrate", str(scenario), str(table)])
    assert refused.exit_code == 2 and "no quantity column" in refused.output
    table.write_text("distance,member,quantity,value\n0km,G1P1,response_time,40\n", encoding="utf-8")
    refused = runner.invoke(cli, ["scenario", "calibrate", str(scenario), str(table)])
    assert refused.exit_code == 2 and "row 2" in refused.output and "40ms" in refused.output
    assert not fit_path(scenario).exists()


def test_a_measurements_table_is_read_in_its_units_and_run_facts(tmp_path: Path) -> None:
    table = tmp_path / "rows.csv"
    table.write_text(
        "distance [km];member;quantity;value;configuration;weight\n"
        "40;G1P2;transactions;3322;subchannels=2;\n"
        "0;all;share_within_goal;96,6%;metro_mirror=off;0,5\n",
        encoding="utf-8",
    )
    first, second = read_measurements(str(table), "mine")
    assert (first.distance, first.value, first.subchannels, first.weight) == (40e3, 3322, 2, 1.0)
    assert second.value == pytest.approx(0.966) and second.metro_mirror == "off" and second.weight == 0.5


def test_the_csv_carries_the_tables_parts_as_numbers_that_agree_with_the_json(
    tmp_path: Path, monkeypatch
) -> None:
    """CSV: each parameter, every row, the notes and the summary, one table filtered by its first column;
    numbers in the row's unit column (a time in its key's or quantity's unit, a share in %), the same
    values and units the JSON gives (trial 7, N13: its numbers had no unit); a measurements file whose
    name a spreadsheet would evaluate stays text."""
    import csv
    import io

    truth = replace(ENV2, lockable_items=3000.0)
    scenario = scenario_file(tmp_path)
    table = csv_file(tmp_path, measured(truth, (0, 40)))
    table.rename(tmp_path / "=1+1.csv")
    monkeypatch.chdir(tmp_path)
    runs = {
        fmt: CliRunner().invoke(cli, ["scenario", "calibrate", scenario.name, "=1+1.csv", "--format", fmt])
        for fmt in ("json", "csv")
    }
    assert all(run.exit_code == 0 for run in runs.values()), runs["csv"].output
    payload = json.loads(runs["json"].output)
    lines = list(csv.DictReader(io.StringIO(runs["csv"].output)))
    parts = [line["table"] for line in lines]
    assert parts == ["parameter"] * 3 + ["row"] * 4 + ["note"] * parts.count("note") + ["summary"]

    for line, parameter in zip(lines, payload["parameters"], strict=False):
        assert line["name"] == parameter["key"] and float(line["level"]) == parameter["level"]
        assert line["unit"] == parameter["unit"]
        for column in ("value", "low", "high"):
            assert float(line[column]) == pytest.approx(parameter[column], rel=1e-9)
    assert {p["key"]: p["unit"] for p in payload["parameters"]}["member.G1P1.other"] == "ms"
    rows = [line for line in lines if line["table"] == "row"]
    for line, row in zip(rows, payload["rows"], strict=True):
        assert line["name"] == row["row"] and line["unit"] == row["unit"] == "ms"
        for column in ("measured", "model", "off[%]", "weighted_residual"):
            assert float(line[column]) == pytest.approx(row[column], rel=1e-9)
        assert 1 < row["measured"] < 1000  # ms, as its unit says: no second's fraction
        assert line["source"].startswith("'=1+1.csv: row ")  # text, never a formula
    assert [line["says"] for line in lines if line["table"] == "note"] == payload["notes"]
    assert lines[-1]["says"].startswith(payload["summary"] + " Written: ")


def test_a_share_row_fitted_with_the_shape_held_names_the_shape_to_free() -> None:
    """Trial 9, Q6: a share_within_goal row fitted through ``other`` with the member's shape held says so
    and names member.NAME.shape, the key that fits it; freed, the note goes."""
    from qmodel.cli.scenario import _shape_held_notes

    rows = measured(ENV2, (40,), members=("G1P1",), quantities=("response_time", "share_within_goal"))
    held = _shape_held_notes(fit_scenario(ENV2, rows, ["member.G1P1.other"]))
    assert held == [
        "G1P1 share_within_goal 40 km: fitted with the member's shape held, so the keys the fit frees move"
        " in place of the spread of response times the share measures; add member.G1P1.shape to the free"
        " keys (the file's free, or --free) to fit it"
    ]
    assert _shape_held_notes(fit_scenario(ENV2, rows, ["member.G1P1.other", "member.G1P1.shape"])) == []
    assert _shape_held_notes(fit_scenario(ENV2, rows[:1], ["member.G1P1.other"])) == []
