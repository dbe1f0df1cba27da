"""The goal seek at the edges of what it searched (trial 6, W3 and M2): a distance past the links' reach
gets no probability, as every other command refuses it; the answer says whether the links' reach or
--up-to ended the search; and where a file measured at a distance already misses the goal there under the
model, the answer says so."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from qmodel.cli import cli
from qmodel.scenario import load_scenario
from qmodel.scenario.goal import TOLERANCE, failing_today, goal_failing, max_distance
from qmodel.scenario.result import BREAKDOWN

# A planner's two-site sysplex measured at 15 km (cut down from trial 6's planner file, invented numbers):
# ICA-SR within each site, CE-LR between them (100 km through a qualified DWDM), Metro Mirror, a measured
# lock wait.
PLEX = """
title = "two sites measured at 15 km"
sites = ["DCA", "DCB"]
distance = ["0km", "15km", "30km", "50km"]
measured_at = "15km"
crossing_latency = "30us"
free = ["member.*.other", "locks.lock_span"]

[goal]
response_time = "GOAL"
share = "90%"

[[member]]
name = "PRD1"
site = "DCA"
logical_cps = 12
arrival_rate = 420
cpu = "6.5ms"
other = "6ms"
sync_reads = 14.0
log_writes = 2.6
requests = { LOCK1 = 32.0, GBP0P = 24.0, GBP0S = 8.0 }
tpno_share = "80%"

[[member]]
name = "PRD3"
site = "DCB"
logical_cps = 10
arrival_rate = 300
cpu = "7.5ms"
other = "6ms"
sync_reads = 16.0
log_writes = 2.9
requests = { LOCK1 = 33.0, GBP0P = 26.0, GBP0S = 9.0 }
tpno_share = "80%"

[[cf]]
name = "CF01"
site = "DCA"
structures = { LOCK1 = "lock", GBP0P = "cache" }

[[cf]]
name = "CF02"
site = "DCB"
structures = { GBP0S = "secondary of GBP0P" }

[[path]]
member = "PRD1"
cf = "CF01"
link = "icasr_a"
subchannels = 8

[[path]]
member = "PRD3"
cf = "CF02"
link = "icasr_b"
subchannels = 8

[[path]]
member = "PRD1"
cf = "CF02"
link = "celr_ab"
subchannels = 32

[[path]]
member = "PRD3"
cf = "CF01"
link = "celr_ba"
subchannels = 32

[link.icasr_a]
type = "ICA-SR"
sync = { lock = "3.9us", cache = "5.8us" }
async = { lock = "60us", cache = "65us" }

[link.icasr_b]
type = "ICA-SR"
sync = { lock = "4.1us", cache = "6.0us" }
async = { lock = "62us", cache = "66us" }

[link.celr_ab]
type = "CE-LR"
sync = { cache = "205us" }
async = { cache = "238us" }

[link.celr_ba]
type = "CE-LR"
sync = { lock = "196us", cache = "207us" }
async = { lock = "229us", cache = "240us" }

[disk]
primary_site = "DCA"
secondary_site = "DCB"
metro_mirror = true
pprc_overhead = "0.55ms"
read = { conn = "0.12ms", disc = "0.30ms", pend = "0.04ms", iosq = "0.01ms" }
write = { conn = "0.10ms", disc = "0.02ms", pend = "0.04ms", iosq = "0ms" }

[conversion]
threshold = "150us"
async_cpu = "20us"

[locks]
measured_wait = "1.9ms"
resolution_round_trips = 2
"""


@pytest.fixture(scope="module")
def plex(tmp_path_factory):
    """The file with a goal time: 400 ms holds to the links' reach; 80 ms breaks past today's 15 km; 70 ms
    breaks short of it."""
    folder = tmp_path_factory.mktemp("plex")

    def written(goal: str) -> str:
        path = folder / f"plex-{goal}.toml"
        path.write_text(PLEX.replace("GOAL", goal), encoding="utf-8")
        return str(path)

    return written


def run(args: list[str]):
    return CliRunner().invoke(cli, ["scenario", *args], env={"COLUMNS": "80"})


def seek(args: list[str]) -> dict:
    result = run([*args, "--max-distance", "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_distance_past_the_links_reach_gets_no_probability_and_the_refusals_own_words(plex) -> None:
    path = plex("400ms")
    refused = run([path, "--distance", "120km"])
    assert refused.exit_code == 2
    reach_words = re.search(r"allowed: (.*)$", refused.output.strip()).group(1)
    payload = seek([path, "--distance", "90km,101km,120km", "--up-to", "200km"])
    held = {row["distance[km]"]: row["goal_holds[%]"] for row in payload["goal_holds"]}
    assert held[101.0] is None and held[120.0] is None and held[90.0] > 99
    assert payload["links_reach[km]"] == 100.0 and payload["searched_to[km]"] == 100.0
    answer = payload["answer"]
    assert f"No probability at 101 km and 120 km: beyond the links' reach: {reach_words}." in answer
    assert "holds at every distance up to the links' reach, 100 km" in answer
    assert "--up-to" not in answer  # the reach ended the search: a larger --up-to searches no further


def test_band_ends_past_the_links_reach_print_as_over_it_not_as_the_reach(plex) -> None:
    result = run([plex("400ms"), "--max-distance", "--up-to", "200km"])
    rows = [line for line in result.output.splitlines() if line.startswith("│")]
    assert len(rows) == 3 and all("over 100" in row for row in rows)


def test_where_up_to_ends_the_search_a_larger_one_is_offered_and_past_it_is_no_probability(plex) -> None:
    payload = seek([plex("400ms"), "--distance", "30km,90km", "--up-to", "50km"])
    held = {row["distance[km]"]: row["goal_holds[%]"] for row in payload["goal_holds"]}
    assert held[90.0] is None and held[30.0] is not None
    answer = " ".join(payload["answer"].split())
    assert "a larger --up-to searches further, at most to the links' reach, 100 km" in answer
    assert "No probability at 90 km: beyond the search (--up-to 50 km)." in answer


def test_an_answer_short_of_todays_distance_says_the_goal_already_fails_there(plex) -> None:
    path = plex("70ms")
    payload = seek([path])
    assert payload["max_distance[km]"] < 15
    today = run([path, "--distance", "15km", "--format", "json"])
    member = payload["breaking_member"]
    share = next(row for row in json.loads(today.output)["results"] if row.get("member") == member)
    said = (
        f"Under the model the goal already fails at today's 15 km: {member} has"
        f" {share['share_within_goal[%]']:.1f}% within 70 ms against the goal's 90%, so"
        f" {payload['max_distance[km]']:.1f} km is where the goal would hold, not a distance to move to"
    )
    assert said in payload["answer"]


def test_an_answer_past_todays_distance_says_nothing_of_today(plex) -> None:
    payload = seek([plex("80ms")])
    assert payload["max_distance[km]"] > 15 and "already fails" not in payload["answer"]
    assert failing_today(load_scenario(plex("80ms"))) is None


def test_the_breaking_component_is_the_part_that_grew_most_from_0_km(plex) -> None:
    # the base is the 0 km solve for a file measured at 15 km too, and the words say so (trial 7, R5)
    assert "its largest growth from 0 km (not from today's 15 km) being " in seek([plex("80ms")])["answer"]
    at_0_km = Path(plex("80ms")).with_name("plex-at-0km.toml")
    at_0_km.write_text(PLEX.replace("GOAL", "100ms").replace('measured_at = "15km"', 'measured_at = "0km"'))
    assert "its largest growth from 0 km being " in seek([str(at_0_km)])["answer"]
    scenario = load_scenario(plex("70ms"))
    answer = max_distance(scenario)
    _, result = goal_failing(scenario, np.array([0.0, answer.distance + TOLERANCE]), None)
    m = result.members.index(answer.member)
    growth = {name: result.breakdown[name][m, 1] - result.breakdown[name][m, 0] for name in BREAKDOWN}
    assert answer.component == max(growth, key=lambda name: growth[name])
    assert failing_today(scenario)[0] == answer.member


def test_an_up_to_short_of_todays_distance_is_answered_and_said_to_be_short_of_it(plex) -> None:
    # --up-to 300m (for 300km?) is a distance a planner may ask for; the answer says it ends before today's
    payload = seek([plex("80ms"), "--up-to", "300m"])
    assert payload["goal_holds_beyond_search"] is True and payload["searched_to[km]"] == 0.3
    assert "up to 0.3 km, short of today's 15 km" in payload["answer"]
    assert "short of today's" not in seek([plex("80ms"), "--up-to", "16km"])["answer"]


@pytest.mark.parametrize(("latency", "said"), [("0us", True), ("30us", False)])
def test_dark_fibre_is_told_the_reach_its_links_have_without_repeaters(tmp_path, latency, said) -> None:
    """A file of dark fibre (crossing_latency 0) on CE-LR between the sites is told that CE-LR reaches
    10 km without repeaters, past which the route needs a DWDM whose latency its answers leave out
    (trial 9, Q5); a file that gives the crossing's latency is not."""
    path = tmp_path / "plex.toml"
    path.write_text(
        PLEX.replace("GOAL", "400ms").replace('crossing_latency = "30us"', f'crossing_latency = "{latency}"'),
        encoding="utf-8",
    )
    result = run([str(path), "--distance", "20km", "--no-breakdown"])
    assert result.exit_code == 0, result.output
    words = " ".join(result.output.replace("\N{NO-BREAK SPACE}", " ").split())
    assert (
        "CE-LR reaches 10 km without repeaters: past it the route needs a qualified DWDM" in words
    ) == said
