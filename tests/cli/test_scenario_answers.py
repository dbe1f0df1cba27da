"""What `qmodel scenario` tells a planner: the goal seek's sentence, thrashing in plain words with a way
out, exit statuses, the records JSON and CSV carry, and requests refused before the work."""

import csv
import io
import itertools
import json
import math
import re

import numpy as np
import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.scenario import load_scenario, max_distance


def run(args: list[str], columns: str = "80"):
    return CliRunner().invoke(cli, ["scenario", *args], env={"COLUMNS": columns})


@pytest.mark.parametrize("columns", ["80", "50", "30"])
def test_the_goal_seek_sentence_never_splits_a_number_from_its_unit(columns) -> None:
    result = run(["gdps-env2", "--max-distance"], columns)
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    answer = json.loads(run(["gdps-env2", "--max-distance", "--format", "json"]).output)["max_distance[km]"]
    assert re.search(rf"holds to {answer:.1f} km \(80%: \d+\.\d–\d+\.\d km\)", text)
    assert "within 125 ms" in text
    lines = result.output.splitlines()
    for line, following in itertools.pairwise(lines):
        assert not (re.search(r"\d$", line.rstrip()) and re.match(r"\s*(km|ms)\b", following))


def test_the_goal_seek_says_the_member_falls_below_the_goal_share() -> None:
    text = " ".join(run(["gdps-env2", "--max-distance"]).output.split())
    member = json.loads(run(["gdps-env2", "--max-distance", "--format", "json"]).output)["breaking_member"]
    assert f"{member} falls below 90%" in text and "falls to" not in text


def test_the_goal_seek_gives_the_distance_to_a_tenth_of_a_km_rounded_down() -> None:
    payload = json.loads(run(["gdps-env2", "--max-distance", "--format", "json"]).output)
    sought = max_distance(load_scenario("gdps-env2")).distance  # m, within 50 m below the first failure
    assert payload["max_distance[km]"] == math.floor(sought / 100) / 10 and payload["tolerance[km]"] == 0.05


def test_the_goal_seek_csv_gives_a_row_per_distance_asked_with_the_probability_json_gives() -> None:
    asked = ["gdps-env2", "--max-distance", "--distance", "40km,70km"]
    rows = list(csv.DictReader(io.StringIO(run([*asked, "--format", "csv"]).output)))
    payload = json.loads(run([*asked, "--format", "json"]).output)
    assert [float(row["distance[km]"]) for row in rows] == [40.0, 70.0]
    for row, held in zip(rows, payload["goal_holds"], strict=True):
        assert float(row["goal_holds[%]"]) == pytest.approx(held["goal_holds[%]"], rel=1e-9)
        assert float(row["max_distance[km]"]) == payload["max_distance[km]"]
    alone = list(csv.DictReader(io.StringIO(run(["gdps-env2", "--max-distance", "--format", "csv"]).output)))
    assert len(alone) == 1 and "goal_holds[%]" not in alone[0]


def test_a_goal_that_holds_to_the_end_of_the_search_gives_no_distance_only_that_it_lies_beyond() -> None:
    payload = json.loads(run(["gdps-env2", "--max-distance", "--up-to", "40km", "--format", "json"]).output)
    assert payload["max_distance[km]"] is None and payload["goal_holds_beyond_search"] is True
    assert payload["searched_to[km]"] == 40.0 and "beyond it" in payload["answer"]


def test_the_goal_seek_answer_is_the_same_however_far_it_may_search() -> None:
    answers = [
        json.loads(run(["gdps-env3", "--max-distance", "--up-to", up_to, "--format", "json"]).output)
        for up_to in ("300km", "100000km", "1e9km")
    ]
    assert len({(a["max_distance[km]"], a["breaking_member"]) for a in answers}) == 1
    assert answers[0]["max_distance[km]"] < 300


def test_thrashing_names_the_terminals_in_all_and_per_member_and_a_way_out() -> None:
    result = run(["gdps-env3", "--distance", "300km", "--no-breakdown"])
    text = " ".join(result.output.split())
    assert "200 terminals in all (G1P1 100, G1P2 100)" in text
    assert re.search(r"up to \d+ in all \(G1P1 \d+, G1P2 \d+\) still have an answer", text)
    assert "Fewer terminals or a shorter distance give one back" in text
    assert "fixed point" not in text


SWEEP = ["gdps-env3", "--distance", "0..300km", "--points", "31"]  # thrashes from 130 km on


def test_a_run_of_thrashing_distances_gets_one_note_naming_its_ends_and_how_many() -> None:
    text = " ".join(run([*SWEEP, "--no-breakdown"]).output.split())
    assert text.count("no response time exists") == 1
    assert "From 130 km to 300 km (18 distances) no response time exists" in text


def test_a_run_gives_the_terminals_with_an_answer_at_its_first_and_last_distance() -> None:
    records = json.loads(run([*SWEEP, "--format", "json"]).stdout)["results"]
    fits = {(r["distance[km]"], r["member"]): r["terminals_with_answer"] for r in records}
    text = " ".join(run([*SWEEP, "--no-breakdown"]).output.split())
    found = re.search(
        r"up to (\d+) in all \(G1P1 (\d+), G1P2 (\d+)\) at 130 km and (\d+) in all"
        r" \(G1P1 (\d+), G1P2 (\d+)\) at 300 km still have an answer",
        text,
    )
    assert found and [int(n) for n in found.groups()] == [
        fits[km, member] for km in (130, 300) for member in ("all", "G1P1", "G1P2")
    ]
    assert fits[130, "all"] != fits[300, "all"]  # else the note would give one population


@pytest.mark.parametrize("columns", ["80", "60"])
def test_a_run_note_keeps_every_number_with_what_it_counts_on_one_line(columns) -> None:
    lines = run([*SWEEP, "--no-breakdown"], columns).output.splitlines()
    text = " ".join(" ".join(lines).split())
    phrases = re.findall(r"\d[\d.,]* (?:km|ms|distances|terminals in all|in all)", text)
    assert len(phrases) >= 8 and all(any(phrase in line for line in lines) for phrase in phrases)


def env3_with(tmp_path, **changes: str):
    """Environment 3's file with whole lines replaced (``terminals="2000"``: every member's terminals)."""
    from qmodel.scenario.files import shipped_scenarios

    text = shipped_scenarios()["gdps-env3"].read_text(encoding="utf-8")
    for key, value in changes.items():
        text, count = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text)
        assert count
    path = tmp_path / "env3.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def remedies(output: str) -> list[str]:
    return re.findall(r"still have an answer\. (.*?) give one back", " ".join(output.split()))


def test_a_run_is_split_where_its_remedies_change(tmp_path) -> None:
    result = run(
        [env3_with(tmp_path, terminals="2000"), "--distance", "0..20km", "--points", "3", "--no-breakdown"]
    )
    text = " ".join(result.output.split())
    assert "At 0 km no response time exists" in text and "From 10 km to 20 km (2 distances)" in text
    assert remedies(result.output) == ["Fewer terminals", "Fewer terminals or a shorter distance"]


def test_a_shorter_distance_is_no_remedy_at_0_km(tmp_path) -> None:
    result = run([env3_with(tmp_path, terminals="2000"), "--distance", "0km,20km", "--no-breakdown"])
    assert remedies(result.output) == ["Fewer terminals", "Fewer terminals or a shorter distance"]


def test_more_subchannels_are_no_remedy_where_the_wait_for_them_is_a_sliver() -> None:
    # Environment 3 (7 subchannels) at 300 km, 46 terminals per member: G1P2 waits 2.6 ms of 739 ms
    assert remedies(run(["gdps-env3", "--distance", "300km", "--no-breakdown"]).output) == [
        "Fewer terminals or a shorter distance"
    ]


def test_more_subchannels_are_a_remedy_where_the_wait_for_them_is_material(tmp_path) -> None:
    # one subchannel per path: at 20 km G1P2 waits for it most of its response time
    result = run(
        [env3_with(tmp_path, subchannels="1", terminals="2000"), "--distance", "0km,20km", "--no-breakdown"]
    )
    assert remedies(result.output) == [
        "Fewer terminals or more subchannels",
        "Fewer terminals, more subchannels or a shorter distance",
    ]


def test_the_remedies_are_read_from_the_solve_without_solving_again(monkeypatch) -> None:
    from qmodel.scenario import band

    solves = []
    solve = band.solve_scenario
    monkeypatch.setattr(band, "solve_scenario", lambda *args, **k: solves.append(args) or solve(*args, **k))
    asked = {20e3, 250e3, 300e3}
    result = run(["gdps-env3", "--distance", "20km,250km,300km", "--no-breakdown"])
    # the band's own solves (its points, and the measured distance) each take a distance not asked, 0 km
    at_asked_only = [args[1] for args in solves if set(args[1].tolist()) <= asked]
    assert "give one back" in " ".join(result.output.split()) and len(at_asked_only) == 1
    assert len(solves) > 1  # the band was solved: the count above is not the whole


def env2_thrashing_far(tmp_path, subchannels: int = 7) -> str:
    """Environment 2 with 1,500 lockable items (fewer than its 1,892), a 10 s goal and ``subchannels`` per
    path: it meets the goal until lock contention thrashes, past 0 km and before 300 km."""
    from qmodel.scenario.files import shipped_scenarios

    text = shipped_scenarios()["gdps-env2"].read_text(encoding="utf-8")
    for key, value in (
        ("lockable_items", "1500"),
        ("response_time", '"10s"'),
        ("subchannels", str(subchannels)),
    ):
        text, count = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text)
        assert count
    path = tmp_path / "env2.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "subchannels, expected",
    [
        (7, "fewer terminals or a shorter distance give one back"),
        (1, "fewer terminals, more subchannels or a shorter distance give one back"),
    ],
)
def test_the_goal_seek_names_only_the_remedies_that_apply_past_its_distance(tmp_path, subchannels, expected):
    text = " ".join(run([env2_thrashing_far(tmp_path, subchannels), "--max-distance"]).output.split())
    assert "lock contention thrashes" in text and f"({expected})" in text and "lockable-item" not in text


def test_the_goal_seek_and_the_table_name_the_same_remedies_past_the_distance(tmp_path) -> None:
    scenario = env2_thrashing_far(tmp_path, subchannels=1)
    from qmodel.scenario.compose import thrashing_onset

    held = json.loads(run([scenario, "--max-distance", "--format", "json"]).output)["max_distance[km]"]
    # the seek counts a distance still unsettled after its iterations as failing (goal.ITERATIONS), so it
    # may stop short of the onset: the table is asked at the first distance past it that thrashes
    count, onset = thrashing_onset(load_scenario(scenario), np.arange(held + 0.1, held + 10, 0.1) * 1e3)
    assert count
    past = onset / 1e3
    sentence = " ".join(run([scenario, "--max-distance"]).output.split())
    goal = re.search(r"thrashes \((.*) give one back\)", sentence)
    table = remedies(run([scenario, "--distance", f"{past:g}km", "--no-breakdown"]).output)
    assert goal and table == [goal[1][:1].upper() + goal[1][1:]]


def test_the_goal_seek_at_0_km_names_no_shorter_distance(tmp_path) -> None:
    text = " ".join(run([env3_with(tmp_path, terminals="2000"), "--max-distance"]).output.split())
    assert "not met even at 0 km" in text
    assert "lock contention thrashes there (fewer terminals give one back)" in text
    assert "shorter distance" not in text


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_csv_and_json_with_thrashing_say_on_stderr_which_distances_fail(fmt: str) -> None:
    result = run(["gdps-env3", "--distance", "20,250,300km", "--format", fmt])
    assert result.exit_code == 1
    assert (
        result.stderr == "failed: no response time exists where lock contention thrashes at 250, 300 km"
        " (fewer terminals or a shorter distance give one back)\n"
    )


def test_a_long_run_of_thrashing_distances_is_named_by_its_ends() -> None:
    result = run(["gdps-env3", "--distance", "0..300km", "--points", "31", "--format", "csv"])
    assert "lock contention thrashes at 18 distances from 130 to 300 km" in result.stderr


def test_a_thrashing_distance_fails_the_command_as_it_fails_a_variants_row() -> None:
    assert run(["gdps-env3", "--distance", "20km,300km", "--no-breakdown"]).exit_code == 1
    assert run(["gdps-env3", "--distance", "20km", "--no-breakdown"]).exit_code == 0


def test_help_lists_every_exit_status_with_each_cause_of_no_response_time() -> None:
    text = " ".join(run(["--help"]).output.split())
    statuses = re.search(r"Exit status: (.*?) Options:", text)
    assert statuses
    for status in ("0 ", "1 ", "2 ", "3 ", "4 ", "130, 143 ", "141 "):
        assert status in statuses[1]
    one = statuses[1].split(" 2 ")[0]
    for cause in (
        "lock contention thrashes",
        "volumes cannot carry",
        "load is more than its CPs",
        "--variants",
    ):
        assert cause in one


def test_json_gives_whole_terminals_where_thrashing_begins_per_member_and_their_sum_in_all() -> None:
    records = json.loads(run(["gdps-env3", "--distance", "300km", "--format", "json"]).stdout)["results"]
    fits = {r["member"]: r["terminals_with_answer"] for r in records}
    assert all(isinstance(fit, int) for fit in fits.values())
    assert 0 < fits["G1P1"] < 100 and 0 < fits["G1P2"] < 100 and fits["all"] == fits["G1P1"] + fits["G1P2"]


def test_the_thrashing_note_adds_up_to_its_members() -> None:
    text = " ".join(run(["gdps-env3", "--distance", "300km", "--no-breakdown"]).output.split())
    found = re.search(r"up to (\d+) in all \(G1P1 (\d+), G1P2 (\d+)\)", text)
    assert found and int(found[1]) == int(found[2]) + int(found[3])


def test_csv_carries_every_value_json_does_keyed_by_distance_and_member() -> None:
    output = run(["gdps-env3", "--distance", "20km,70km", "--format", "csv"]).output
    rows = list(csv.DictReader(io.StringIO(output)))
    records = json.loads(run(["gdps-env3", "--distance", "20km,70km", "--format", "json"]).output)["results"]
    assert [(r["distance[km]"], r["member"]) for r in rows] == [
        (str(r["distance[km]"]), r["member"]) for r in records
    ]
    assert set(rows[0]) == set(records[0])
    for key in ("CF1_delayed[%]", "CF1_requests[1/s]", "terminals_with_answer", "cpu_of_one_cp[%]"):
        assert key in rows[0]


def digits(value: float) -> int:
    return len(f"{value:.15g}".replace("-", "").replace(".", "").lstrip("0").split("e")[0])


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_floats_carry_twelve_significant_digits_as_the_readme_says_and_no_binary_noise(fmt: str) -> None:
    output = run(["gdps-env3", "--distance", "20km", "--format", fmt]).output
    if fmt == "json":
        records = json.loads(output)["results"]
        values = [v for record in records for v in record.values() if isinstance(v, float)]
    else:
        values = [
            float(cell)
            for row in list(csv.reader(io.StringIO(output)))[1:]
            for cell in row
            if re.fullmatch(r"-?[\d.]+(e-?\d+)?", cell)
        ]
    assert max(digits(value) for value in values) == 12  # G1P1's R is 55.1268716962 ms, not 55.1269
    assert all(digits(value) <= 12 for value in values)


def test_csv_writes_booleans_as_json_does() -> None:
    output = run(["gdps-env3", "--distance", "20km,300km", "--format", "csv"]).stdout
    rows = list(csv.DictReader(io.StringIO(output)))
    assert {row["thrashing"] for row in rows} == {"true", "false"}


def test_cpu_is_given_per_lpar_and_per_cp_as_rmf_appl_percent() -> None:
    # utilization law: one CP's worth busy = throughput × CPU per transaction; the LPAR has 8 CPs
    record = json.loads(run(["gdps-env2", "--distance", "20km", "--format", "json"]).output)["results"][0]
    assert record["cpu_of_one_cp[%]"] == pytest.approx(8 * record["cpu_busy_of_lpar[%]"], rel=1e-4)
    assert "cpu_ms_per_transaction" not in record


def test_the_all_row_sums_the_members_cps_worth_and_leaves_the_lpar_share_empty() -> None:
    records = json.loads(run(["gdps-env3", "--distance", "20km", "--format", "json"]).output)["results"]
    members, everyone = records[:2], records[2]
    assert everyone["member"] == "all" and everyone["cpu_busy_of_lpar[%]"] is None
    summed = sum(m["cpu_of_one_cp[%]"] for m in members)
    assert everyone["cpu_of_one_cp[%]"] == pytest.approx(summed, rel=1e-4)


def test_a_table_of_more_distances_than_anyone_reads_is_refused_with_the_drawing_time() -> None:
    result = run(["gdps-env1", "--distance", "0..100km", "--points", "5000"])
    assert result.exit_code == 2
    assert "at most 1,000 distances in a table" in result.output and "about 28 s" in result.output


def test_the_same_sweep_as_csv_is_not_held_to_the_table_limit() -> None:
    result = run(["gdps-env1", "--distance", "0..100km", "--points", "1001", "--format", "csv"])
    assert result.exit_code == 0 and len(result.output.splitlines()) == 1 + 1001 * 3


def test_a_long_range_into_thrashing_is_refused_with_an_estimate_before_the_search() -> None:
    result = run(["gdps-env3", "--distance", "0..100000km", "--points", "3000", "--format", "csv"])
    assert result.exit_code == 2 and "too large to compute" in result.output
    assert "thrashing distance(s) = about" in result.output and "km on (they thrash)" in result.output


def test_points_without_a_range_are_refused() -> None:
    result = run(["gdps-env3", "--distance", "20km", "--points", "5"])
    assert result.exit_code == 2 and "--points" in result.output


def test_variants_refuse_a_format_they_cannot_honour(tmp_path) -> None:
    variants = tmp_path / "v.csv"
    variants.write_text("distance\n20km\n")
    result = run(["gdps-env3", "--variants", str(variants), "--format", "json"])
    assert result.exit_code == 2 and "--format" in result.output


def test_a_distance_error_echoes_the_range_as_typed() -> None:
    result = run(["gdps-env3", "--distance", "0..100mi"])
    assert result.exit_code == 2 and "--distance = 0..100mi" in result.output


def test_the_delayed_table_lists_paths_in_order_of_member_and_cf() -> None:
    output = run(["gdps-env3", "--distance", "20km"], "200").output
    paths = re.findall(r"(G1P\d→CF\d)", output.split("for a subchannel")[1])
    assert paths == sorted(paths)


@pytest.mark.parametrize(
    ("typed", "needs"),
    [
        (["-o", "x.csv"], "--variants"),
        (["--up-to", "100km"], "--max-distance"),
        (["--points", "5"], "--distance A..B on the command line"),  # trial 9, Q9: the file's range too
    ],
)
def test_an_option_typed_where_it_does_nothing_is_refused_naming_what_it_needs(typed, needs) -> None:
    result = run(["gdps-env3", *typed])
    assert result.exit_code == 2 and f"with {needs}" in result.output


def test_a_list_typed_with_a_space_after_its_comma_is_refused_saying_how_to_write_it() -> None:
    """Trial 9, Q9: ``--distance 20km, 40km`` unquoted reached click as an extra argument, unexplained."""
    result = run(["gdps-env3", "--distance", "20km,", "40km"])
    assert result.exit_code == 2
    assert (
        "Got unexpected extra argument (40km); a list is one value: --distance 20km,40km (no space after"
        ' the comma) or, quoted, --distance "20km, 40km"'
    ) in " ".join(result.output.split())


@pytest.mark.parametrize("up_to", ["20km,40km", "20,40,70km"])
def test_up_to_takes_one_distance_and_a_list_is_refused_as_such(up_to) -> None:
    """Trial 9, Q9: ``--up-to 20km,40km`` was refused as "unknown unit 'km,40km'"."""
    result = run(["gdps-env3", "--max-distance", "--up-to", up_to])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: --up-to = {up_to} (a list); allowed: one distance")


def test_the_profile_json_gives_the_async_share_in_percent_as_the_table_does() -> None:
    counts = ["--transactions", "3394", "GBP8P.sync=21K", "GBP8P.async=199K"]
    result = CliRunner().invoke(cli, ["scenario-profile", *counts, "--format", "json"])
    payload = json.loads(result.output)
    assert payload["async_share[%]"]["GBP8P"] == pytest.approx(199 / 220 * 100)


def test_list_names_each_shipped_scenario_with_its_title_and_the_file_to_copy() -> None:
    from pathlib import Path

    result = CliRunner().invoke(cli, ["scenario", "--list"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert [line.split()[0] for line in lines] == ["gdps-env1", "gdps-env2", "gdps-env3", "today-env3"]
    assert "GDPS/PPRC Environment 3: multi-site workload" in lines[2]
    for line in lines:
        path = Path(line.split()[-1])
        assert path.is_absolute() and path.is_file() and path.stem == line.split()[0]


@pytest.mark.parametrize("columns", [80, 60])
def test_list_at_a_terminal_fits_its_width_with_each_path_whole_on_a_line_of_its_own(monkeypatch, columns):
    from pathlib import Path

    from qmodel.cli import scenario
    from qmodel.scenario.files import shipped_scenarios

    monkeypatch.setattr(scenario, "_at_terminal", lambda: True)
    lines = CliRunner().invoke(cli, ["scenario", "--list"], env={"COLUMNS": str(columns)}).output.splitlines()
    paths = {str(path.resolve()) for path in shipped_scenarios().values()}
    assert {line.strip() for line in lines if line.startswith("  /")} == paths
    assert all(len(line) <= columns for line in lines if line.strip() not in paths)
    assert [line.split()[0] for line in lines if not line.startswith(" ")] == sorted(shipped_scenarios())
    assert all(Path(line.strip()).is_file() for line in lines if line.strip() in paths)


@pytest.mark.parametrize("columns", [80, 60, 40])
def test_list_at_a_terminal_never_puts_a_number_on_another_line_than_its_word(monkeypatch, columns):
    # at 80 columns the env1 title ended "... secondary at site" with "2" alone on the next line
    from qmodel.cli import scenario

    monkeypatch.setattr(scenario, "_at_terminal", lambda: True)
    lines = CliRunner().invoke(cli, ["scenario", "--list"], env={"COLUMNS": str(columns)}).output.splitlines()
    assert any(line.endswith("at site 2") or line.strip() == "site 2" for line in lines)
    assert any("7 subchannels" in line for line in lines)
    assert not [line for line in lines if re.fullmatch(r"[\d.,]+\W*", line.strip())]


def test_an_unknown_scenario_name_says_where_the_shipped_files_are() -> None:
    from qmodel.scenario.files import shipped_scenarios

    result = run(["gdps-env9"])
    assert result.exit_code == 2
    assert str(shipped_scenarios()["gdps-env1"].parent) in result.output and "--list" in result.output


@pytest.mark.parametrize(
    "args, echoed",
    [
        (["--transactions", "3394", "syncreads=92.3K"], "syncreads = 92.3K (did you mean sync_reads?)"),
        (["--transactions", "0", "sync_reads=5"], "--transactions = 0;"),
        (
            ["--transactions", "3394", "GBP8P.sync=21K", "GBP8P.async=199K", "GBP8P.total=100K"],
            "GBP8P.total = 100K",
        ),
    ],
)
def test_a_profile_error_echoes_the_value_as_typed(args: list[str], echoed: str) -> None:
    result = CliRunner().invoke(cli, ["scenario-profile", *args])
    assert result.exit_code == 2 and echoed in result.output


def test_the_profile_snippet_wraps_its_comments_to_the_terminal_and_stays_the_same_toml() -> None:
    import tomllib

    args = ["scenario-profile", "--transactions", "3394", "GBP8P.sync=21K", "GBP8P.async=199K"]
    outputs = {c: CliRunner().invoke(cli, args, env={"COLUMNS": c}).output for c in ("60", "200")}
    texts = {columns: output.split("member's name):\n")[1] for columns, output in outputs.items()}
    assert all(len(line) <= 60 for line in texts["60"].splitlines() if line.startswith("#"))
    assert texts["60"] != texts["200"] and tomllib.loads(texts["60"]) == tomllib.loads(texts["200"])


def test_where_not_one_terminal_has_an_answer_only_a_shorter_distance_is_offered() -> None:
    text = " ".join(run(["gdps-env2", "--distance", "1e9km", "--no-breakdown"]).output.split())
    assert "not one terminal has an answer. A shorter distance gives one back." in text
    assert "Fewer terminals" not in text and "up to 0 in all" not in text


def test_volumes_with_iosq_from_the_load_get_their_own_table_and_csv_columns(tmp_path) -> None:
    from qmodel.scenario.files import resolve_scenario

    text = open(resolve_scenario("gdps-env2"), encoding="utf-8").read()
    text = text.replace("metro_mirror = true\n", "metro_mirror = true\nvolumes = 2\nbackground_rate = 1500\n")
    path = tmp_path / "volumes.toml"
    path.write_text(text.replace('iosq = "0.1ms"', 'iosq = "0ms"'), encoding="utf-8")
    table = run([str(path), "--distance", "0km,40km"]).output
    assert "Volumes: IOSQ computed from the load" in table and "busy [% of exposures]" in table
    header = run([str(path), "--distance", "20km", "--format", "csv"]).output.splitlines()[0]
    assert "iosq[ms],volume_busy[%]" in header
    assert "Volumes:" not in run(["gdps-env2", "--distance", "40km"]).output


def test_a_goal_of_seconds_is_echoed_in_seconds(tmp_path) -> None:
    from qmodel.scenario.files import resolve_scenario

    text = open(resolve_scenario("gdps-env2"), encoding="utf-8").read()
    path = tmp_path / "hour.toml"
    path.write_text(text.replace('response_time = "125ms"', 'response_time = "3600s"'), encoding="utf-8")
    output = " ".join(run([str(path), "--distance", "0km", "--no-breakdown"]).output.split())
    assert "goal: 90% within 3600 s." in output and "e+06" not in output


def test_the_goal_seek_and_a_solve_say_the_same_hardware_and_defaults_under_their_answer() -> None:
    """today-env3 (typed links, duplexing, asynchronous XI, zHyperWrite): every note of what the answer
    rests on that a solve prints, --max-distance prints too, and its JSON carries the hardware."""
    from qmodel.scenario.protocols import described
    from qmodel.scenario.spec import defaults_taken

    spec = load_scenario("today-env3")
    solved = " ".join(run(["today-env3", "--distance", "20km", "--no-breakdown"]).output.split())
    sought = " ".join(run(["today-env3", "--max-distance"]).output.split())
    notes = [*described(spec), defaults_taken(spec, said=("fibre_speed", "crossing_latency"))]
    assert len(notes) > 3
    for note in notes:
        words = " ".join(note.replace("\N{NO-BREAK SPACE}", " ").split())
        assert words in solved.replace("\N{NO-BREAK SPACE}", " ")
        assert words in sought.replace("\N{NO-BREAK SPACE}", " ")
    payload = json.loads(run(["today-env3", "--max-distance", "--format", "json"]).output)
    assert payload["hardware"] == described(spec)
