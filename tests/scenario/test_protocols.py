"""Today's hardware and protocols in the scenario solver (issue 36).

Each shipped study file answers the same with today's keys written out at their defaults; each feature
moves the response time by what its catalogue entry says, in the breakdown part it belongs to; the
example re-equips Environment 3 and keeps every other value of it; a link past its reach, a duplexing
mode the structure cannot have and zHyperLink past 150 m are refused in one line naming the key.
"""

from __future__ import annotations

import copy
import csv
import io
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.catalogue.evaluate import calc
from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.scenario.compose import fixed_parts, solve_at
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.goal import max_distance
from qmodel.scenario.protocols import reach
from qmodel.scenario.schema import TODAY_KEYS
from qmodel.scenario.spec import defaults_taken, read_scenario_toml, scenario_from_dict
from qmodel.scenario.variants import run_variants

STUDY_FILES = ("gdps-env1", "gdps-env2", "gdps-env3")
KM = 1e3


def _raw(name: str) -> dict:
    return read_scenario_toml(resolve_scenario(name))


def _written_out(raw: dict) -> dict:
    """The file with every key of today's hardware that has a value for a default written out at it."""
    data = copy.deepcopy(raw)
    defaults = {(key.table, key.name): key.file_default for key in TODAY_KEYS if key.file_default is not None}
    for (table, name), value in defaults.items():
        if table == "disk":
            data["disk"].setdefault(name, value)
        elif table == "member":
            for member in data["member"]:
                member.setdefault(name, value)
        elif table == "cf":
            for cf in data["cf"]:
                cf.setdefault(name, value)
    for cf in data["cf"]:  # cross-invalidation: sync for every primary cache structure, written out
        cf.setdefault(
            "cross_invalidation", {name: "sync" for name, kind in cf["structures"].items() if kind == "cache"}
        )
    return data


@pytest.mark.parametrize("name", STUDY_FILES)
@settings(max_examples=4, deadline=None)
@given(distance=st.floats(0.0, 300.0))
def test_a_study_file_answers_the_same_with_todays_keys_written_out_at_their_defaults(name, distance) -> None:
    raw = _raw(name)
    at = np.array([distance * KM])
    plain = solve_at(scenario_from_dict(raw, name), at)
    written = solve_at(scenario_from_dict(_written_out(raw), name), at)
    for field in ("response_time", "share_within_goal", "throughput", "cpu_busy"):
        np.testing.assert_array_equal(getattr(plain, field), getattr(written, field))


def _env3(**changes) -> dict:
    """Environment 3's tables with ``changes``: dotted places set to values."""
    raw = copy.deepcopy(_raw("gdps-env3"))
    for place, value in changes.items():
        table, *rest = place.split("__")
        if table == "disk":
            raw["disk"][rest[0]] = value
        elif table == "cf":
            cf = next(c for c in raw["cf"] if c["name"] == rest[0])
            cf[rest[1]] = value
        elif table == "link":
            raw["link"][rest[0]][rest[1]] = value
        elif table == "member":
            for member in raw["member"]:
                member[rest[0]] = value
    return raw


def _solve(raw: dict, km: float = 40.0):
    return solve_at(scenario_from_dict(raw, "env3"), np.array([km * KM]))


def _round_trip(km: float) -> float:
    """The study file's round trip across ``km`` (its fitted fibre speed, no crossing latency), s."""
    speed = scenario_from_dict(_raw("gdps-env3"), "env3").fibre_speed
    return 2 * km * KM / speed


def test_zhyperwrite_takes_off_each_log_write_what_its_entry_says_and_only_from_the_commit() -> None:
    base, hyper = _solve(_env3()), _solve(_env3(disk__zhyperwrite=True))
    scenario = scenario_from_dict(_raw("gdps-env3"), "env3")
    trip = _round_trip(40.0)
    for m, member in enumerate(scenario.members):
        local = scenario.write.conn + scenario.write.disc + scenario.write.pend + scenario.write.iosq
        primary = 0.0 if member.site == scenario.primary_site else trip
        secondary = 0.0 if member.site == scenario.secondary_site else trip
        saved = calc(
            "zhyperwrite_log_write",
            units="si",
            write_service=local,
            base_overhead=scenario.pprc_overhead,
            primary_round_trip=primary,
            secondary_round_trip=secondary,
            mirror_round_trip=trip,
        ).write_time_saved
        drop = base.breakdown["commit"][m, 0] - hyper.breakdown["commit"][m, 0]
        assert drop == pytest.approx(member.log_writes * float(saved), rel=1e-9)
    for part in ("cf_sync", "cf_async", "sync_io", "cpu"):  # nothing else of the transaction moves
        np.testing.assert_allclose(base.breakdown[part], hyper.breakdown[part], rtol=1e-9)


def test_zhyperwrite_saves_a_member_beside_its_primary_the_base_overhead_and_one_across_a_round_trip_too():
    # G1P1 beside the primary: its own write to the secondary crosses what the mirror crossed
    at_primary = calc(
        "zhyperwrite_log_write",
        write_service="0.3ms",
        base_overhead="0.1ms",
        primary_round_trip="0us",
        secondary_round_trip="467us",
        mirror_round_trip="467us",
    )
    assert float(at_primary.write_time_saved) == pytest.approx(0.1)
    across = calc(
        "zhyperwrite_log_write",
        write_service="0.3ms",
        base_overhead="0.1ms",
        primary_round_trip="467us",
        secondary_round_trip="0us",
        mirror_round_trip="467us",
    )
    assert float(across.write_time_saved) == pytest.approx(0.1 + 0.467)


def test_the_fcp_protocol_pays_one_more_round_trip_per_log_write() -> None:
    base, fcp = _solve(_env3()), _solve(_env3(disk__mirror_protocol="fcp"))
    members = scenario_from_dict(_raw("gdps-env3"), "env3").members
    added = fcp.breakdown["commit"][:, 0] - base.breakdown["commit"][:, 0]
    # log writes and (castout owner's reads behind) its castout writes: the log writes' share is exact
    assert added[0] == pytest.approx(members[0].log_writes * _round_trip(40.0), rel=1e-9)


def _duplexed(mode: str, **changes) -> dict:
    return _env3(
        cf__CF2__structures={"GBPS": "secondary of GBPP", "LOCK1S": "secondary of LOCK1"},
        cf__CF2__duplexing={"LOCK1S": mode},
        **changes,
    )


def test_asynchronous_lock_duplexing_adds_at_most_one_cf_to_cf_exchange_to_the_commit() -> None:
    base, duplexed = _solve(_env3()), _solve(_duplexed("async"))
    wait = _round_trip(40.0)  # CF1 at site 1, CF2 at site 2; signal service 0
    np.testing.assert_allclose(
        duplexed.breakdown["commit"][:, 0] - base.breakdown["commit"][:, 0], wait, rtol=1e-9
    )
    for part in ("cf_sync", "cf_async"):  # the requests themselves go to the primary as before
        np.testing.assert_allclose(base.breakdown[part], duplexed.breakdown[part], rtol=1e-9)


def test_the_cf_to_cf_exchange_pays_the_crossing_latency_like_every_round_trip_across() -> None:
    # one key, one home (issue 32): crossing_latency enters today's round trips through the solver's
    base, duplexed = _env3(), _duplexed("async")
    for raw in (base, duplexed):
        raw["crossing_latency"] = "100us"
    added = _solve(duplexed).breakdown["commit"][:, 0] - _solve(base).breakdown["commit"][:, 0]
    np.testing.assert_allclose(added, _round_trip(40.0) + 100e-6, rtol=1e-9)


def test_synchronous_duplexing_costs_each_lock_request_its_entrys_exchanges() -> None:
    sync = scenario_from_dict(_duplexed("sync"), "env3")
    simplex = scenario_from_dict(_env3(), "env3")
    at = np.array([40 * KM])
    added = fixed_parts(sync, at).fixed_part[:, 0] - fixed_parts(simplex, at).fixed_part[:, 0]
    trip = _round_trip(40.0)
    for m, member in enumerate(simplex.members):
        primary = 0.0 if member.site == "site1" else trip
        secondary = 0.0 if member.site == "site2" else trip
        request = calc(
            "duplexed_cf_request",
            units="si",
            service=7.6e-6,
            primary_round_trip=primary,
            secondary_round_trip=secondary,
            cf_round_trip=trip,
            signal_service=0.0,
        )
        per_request = float(request.sync_request) - 7.6e-6 - primary  # beyond the simplex propagation
        waited = member.requests["LOCK1"] * member.tpno_share
        assert added[m] == pytest.approx(waited * per_request, rel=1e-9)
    assert per_request == pytest.approx(trip)  # G1P2 beside the secondary: one more round trip


def test_synchronous_lock_duplexing_needs_a_path_to_the_secondarys_cf(tmp_path) -> None:
    raw = _duplexed("sync")
    raw["path"] = [p for p in raw["path"] if not (p["member"] == "G1P1" and p["cf"] == "CF2")]
    raw["member"][0]["requests"].pop("GBPS")
    with pytest.raises(
        InputError,
        match=r"member G1P1\.requests\.LOCK1 = 57\.85 \(z/OS sends each request "
        r"to both structures",
    ):
        scenario_from_dict(raw, "env3")


@pytest.mark.parametrize(
    ("mode", "structure", "allowed"),
    [
        ("async", "GBPS", "simplex for a cache structure (Db2 duplexes a group buffer pool itself"),
        ("sync", "GBPS", "simplex for a cache structure"),
    ],
)
def test_a_duplexing_mode_the_structure_cannot_have_is_refused_in_one_line(mode, structure, allowed) -> None:
    raw = _env3(cf__CF2__duplexing={structure: mode})
    with pytest.raises(InputError) as refused:
        scenario_from_dict(raw, "env3")
    assert str(refused.value).startswith(f"env3: cf CF2.duplexing.{structure} = {mode}; allowed: {allowed}")
    assert "\n" not in str(refused.value)


def test_asynchronous_cross_invalidation_waits_once_where_synchronous_waits_every_write() -> None:
    sync = _solve(_env3(member__xi_share="100%"))
    asynchronous = _solve(_env3(member__xi_share="100%", cf__CF1__cross_invalidation={"GBPP": "async"}))
    plain = _solve(_env3())
    trip = _round_trip(40.0)
    members = scenario_from_dict(_raw("gdps-env3"), "env3").members
    for m, member in enumerate(members):
        writes = member.requests["GBPS"] * member.tpno_share  # the pages duplexed: those written
        across = trip if m == 0 else 0.0  # G1P1's writes invalidate G1P2 across; G1P2's, G1P1 beside CF1
        assert sync.breakdown["commit"][m, 0] - plain.breakdown["commit"][m, 0] == pytest.approx(
            writes * across, rel=1e-9, abs=1e-15
        )
        assert asynchronous.breakdown["commit"][m, 0] - plain.breakdown["commit"][m, 0] == pytest.approx(
            across, rel=1e-9, abs=1e-15
        )


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_xi_share_default_is_said_for_each_member_whose_answer_it_moves(mode) -> None:
    """Synchronous or asynchronous XI alike: a member's xi_share left out is said with the answer exactly
    where giving it would move that member's commit (its writes reach a member across the distance)."""
    xi = {"cf__CF1__cross_invalidation": {"GBPP": mode}}
    scenario = scenario_from_dict(_env3(**xi), "env3")
    said = {key for key, value in scenario.defaults if key.endswith(".xi_share") and value == "0%"}
    plain = _solve(_env3(**xi))
    for m, member in enumerate(scenario.members):
        raw = _env3(**xi)
        raw["member"][m]["xi_share"] = "100%"
        moved = _solve(raw).breakdown["commit"][m, 0] != plain.breakdown["commit"][m, 0]
        assert (f"member {member.name}.xi_share" in said) == moved
    assert said  # Environment 3's members sit at both sites: G1P1's page writes reach G1P2 across
    assert "member G1P1.xi_share 0%" in defaults_taken(scenario)


def test_gbp_writes_default_is_said_where_an_xi_share_is_given_and_mirror_protocol_with_metro_mirror() -> (
    None
):
    scenario = scenario_from_dict(_env3(member__xi_share="30%"), "env3")
    g1p1 = scenario.members[0]
    defaults = dict(scenario.defaults)
    assert defaults["member G1P1.gbp_writes"] == f"{g1p1.requests['GBPS']:g}"  # the pages duplexed
    assert not any(key.endswith("xi_share") for key in defaults)
    assert defaults["disk.mirror_protocol"] == "pre-deposit"
    given = scenario_from_dict(
        _env3(member__xi_share="30%", member__gbp_writes=5, disk__mirror_protocol="fcp"), ""
    )
    assert not any(key.endswith(("gbp_writes", "mirror_protocol")) for key, _ in given.defaults)
    unmirrored = _env3(disk__metro_mirror=False)
    assert "disk.mirror_protocol" not in dict(scenario_from_dict(unmirrored, "env3").defaults)


def test_zhyperlink_reads_spin_the_cp_for_their_time_and_the_cpu_shows_it() -> None:
    raw = _env3(disk__zhyperlink_read="20us", disk__read_hit="90%", disk__zhyperlink_miss="5us")
    raw["member"][0]["zhyperlink"] = "reads"  # G1P1, beside the primary disk
    base, fast = _solve(_env3(), 0.0), _solve(raw, 0.0)
    member = scenario_from_dict(_raw("gdps-env3"), "env3").members[0]
    zhpf = base.breakdown["sync_io"][0, 0] / member.sync_reads
    io = calc("zhyperlink_io", units="si", eligible=0.9, sync_service=20e-6, miss_time=5e-6, zhpf_io=zhpf)
    assert fast.breakdown["sync_io"][0, 0] == pytest.approx(member.sync_reads * float(io.io_time), rel=1e-9)
    assert fast.cpu_per_transaction[0, 0] - base.cpu_per_transaction[0, 0] == pytest.approx(
        member.sync_reads * float(io.cpu_spin), rel=1e-9
    )


def test_the_zhyperlink_miss_default_is_said_once_and_only_when_left_out() -> None:
    """A zHyperLink read's miss time left out is said with the answer among the defaults taken (0us), not
    again as an assumption; given, even as 0us, it is not a default and not said."""
    left_out = _env3(disk__zhyperlink_read="20us", disk__read_hit="90%")
    left_out["member"][0]["zhyperlink"] = "reads"
    scenario = scenario_from_dict(left_out, "env3")
    assert dict(scenario.defaults)["disk.zhyperlink_miss"] == "0us"
    assert not any("zHyperLink" in said for said in scenario.protocols.assumed)
    given = copy.deepcopy(left_out)
    given["disk"]["zhyperlink_miss"] = "0us"
    assert "disk.zhyperlink_miss" not in dict(scenario_from_dict(given, "env3").defaults)


def test_zhyperlink_past_150_m_is_refused_naming_the_member() -> None:
    raw = _env3(disk__zhyperlink_read="20us", disk__read_hit="90%")
    raw["member"][1]["zhyperlink"] = "reads"  # G1P2 at site 2 reading the primary disk at site 1
    with pytest.raises(InputError) as refused:
        _solve(raw, 1.0)
    assert str(refused.value).startswith(
        "env3: member G1P2.zhyperlink = a disk 1 km away; allowed: zHyperLink reaches 150 m"
    )
    _solve(raw, 0.1)  # within the reach


def test_a_typed_link_takes_its_subchannels_and_refuses_a_distance_past_its_reach() -> None:
    raw = _env3(link__g1p2_cf1__type="ICA-SR")
    raw["path"] = [{k: v for k, v in p.items() if k != "subchannels"} for p in raw["path"]]
    scenario = scenario_from_dict(raw, "env3")
    assert {(p.member, p.cf): p.subchannels for p in scenario.paths}[("G1P2", "CF1")] == 8
    assert reach(scenario) == pytest.approx(150.0)
    with pytest.raises(InputError) as refused:
        solve_at(scenario, np.array([0.0, 20 * KM]))
    assert str(refused.value) == (
        "env3: path G1P2→CF1.link = ICA-SR at 20 km; allowed: ICA-SR reaches <= 0.15 km"
    )


def test_the_goal_seek_stops_at_the_links_reach() -> None:
    raw = _env3(link__g1p2_cf1__type="CE-LR", link__g1p1_cf2__type="CE-LR")
    seek = max_distance(scenario_from_dict(raw, "env3"), upper=300 * KM)
    assert seek.searched == pytest.approx(100 * KM)


def test_the_example_keeps_every_value_of_environment_3_but_todays_hardware() -> None:
    today, study = _raw("today-env3"), _raw("gdps-env3")
    names = {key.name for key in TODAY_KEYS}

    def plain(raw: dict) -> dict:
        kept = {k: v for k, v in raw.items() if k not in ("title", "source", "cf", "link", "path", "member")}
        kept["disk"] = {k: v for k, v in raw["disk"].items() if k not in names}
        kept["member"] = [{k: v for k, v in m.items() if k not in names} for m in raw["member"]]
        kept["link"] = {n: {k: v for k, v in t.items() if k not in names} for n, t in raw["link"].items()}
        kept["path"] = [{k: v for k, v in p.items() if k != "subchannels"} for p in raw["path"]]
        kept["cf"] = [{"name": c["name"], "site": c["site"]} for c in raw["cf"]]
        return kept

    assert plain(today) == plain(study)


PAGE = Path(__file__).resolve().parents[2] / "docs" / "background" / "modern.md"
VARIANTS = resolve_scenario("today-env3").with_name("today-env3-variants.csv")


def _variant_rows() -> dict[str, dict[str, str]]:
    """The shipped variants of today-env3 (casebooks/scenarios/today-env3-variants.csv), solved."""
    out, err = io.StringIO(), io.StringIO()
    status = run_variants(_raw("today-env3"), VARIANTS.read_text(), out, err, VARIANTS.name)
    assert status == 0, err.getvalue()
    return {row["variant"]: row for row in csv.DictReader(io.StringIO(out.getvalue()))}


def test_the_page_shows_the_shipped_variants_file_as_it_ships() -> None:
    block = PAGE.read_text().split("$ cat today-env3-variants.csv\n", 1)[1].split("\n$ ", 1)[0]
    assert block + "\n" == VARIANTS.read_text()


@pytest.mark.parametrize(
    ("variant", "name"), [("2006 (= gdps-env3)", "gdps-env3"), ("today (= today-env3)", "today-env3")]
)
def test_the_variants_first_and_last_rows_are_the_two_shipped_files(variant, name) -> None:
    row = _variant_rows()[variant]
    solved = _solve(_raw(name))
    for m, member in enumerate(("G1P1", "G1P2")):
        assert float(row[f"{member}_response_time[ms]"]) == pytest.approx(
            solved.response_time[m, 0] * 1e3, rel=1e-5
        )


def test_the_modern_configurations_page_says_what_its_variants_table_gives() -> None:
    """docs/background/modern.md's prose on the planner's question: each figure from its variants."""
    rows = _variant_rows()

    def delta(variant: str, column: str = "all_response_time[ms]") -> float:
        return float(rows[variant][column]) - float(rows["2006 (= gdps-env3)"][column])

    words = " ".join(PAGE.read_text().split())
    hyper, hyper_g1p2 = -delta("zHyperWrite"), -delta("zHyperWrite", "G1P2_response_time[ms]")
    gains = {variant: -delta(variant) for variant in ("today's links", "zHyperWrite", "async lock duplexing")}
    assert max(gains, key=lambda variant: gains[variant]) == "zHyperWrite"  # "buys the most"
    assert f"about {hyper:.1f} ms of the mean response ({hyper_g1p2:.1f} ms of G1P2's)" in words
    assert abs(delta("today's links")) < 0.05  # "nothing measurable"
    assert f"about {delta('async lock duplexing'):.1f} ms against the study's simplex" in words
    assert f"would cost {delta('sync lock duplexing'):.0f} ms" in words
    share = delta("async lock duplexing") / delta("sync lock duplexing")
    assert f"about {share:.0%} of synchronous duplexing's price" in words
    assert (
        f"costs {delta('XI at its most (sync)'):.0f} ms synchronously and "
        f"{delta('XI at its most (async)'):.1f} ms asynchronously" in words
    )
    within = [float(rows["the three"][f"{m}_share_within_goal[%]"]) for m in ("G1P1", "G1P2")]
    assert max(within) < 90  # "missed by both members"
    assert f"(G1P2 at site 2 reaches about {within[1]:.0f}%)" in words


def test_the_goal_seek_of_the_example_stops_at_its_links_reach_from_the_cli() -> None:
    result = CliRunner().invoke(cli, ["scenario", "today-env3", "--max-distance", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert '"searched_to[km]": 100.0' in result.output


@pytest.mark.parametrize(
    ("change", "arguments", "said"),
    [
        (
            {},
            ["--distance", "120km"],
            "error: today.toml: path G1P1→CF2.link = CE-LR at 120 km; allowed: CE-LR reaches "
            "<= 100 km (through a qualified DWDM; 10 km unrepeated)",
        ),
        (
            {"duplexing": '{ GBPS = "async", LOCK1S = "async" }'},
            ["--distance", "20km"],
            "error: today.toml: cf CF2.duplexing.GBPS = async; allowed: simplex for a cache structure (Db2 "
            "duplexes a group buffer pool itself: declare its 'secondary of' structure)",
        ),
        (
            {"zhyperlink": '"reads"'},
            ["--distance", "1km"],
            "error: today.toml: member G1P2.zhyperlink = a disk 1 km away; allowed: zHyperLink reaches 150 m",
        ),
    ],
)
def test_the_cli_refuses_bad_hardware_in_one_line_with_exit_2(tmp_path, change, arguments, said) -> None:
    text = resolve_scenario("today-env3").read_text()
    if "duplexing" in change:
        text = text.replace('duplexing = { LOCK1S = "async" }', f"duplexing = {change['duplexing']}")
    if "zhyperlink" in change:  # G1P2 at site 2 reads the primary disk at site 1 over zHyperLink
        text = text.replace('name = "G1P2"\n', f'name = "G1P2"\nzhyperlink = {change["zhyperlink"]}\n')
        text = text.replace("[disk]\n", '[disk]\nzhyperlink_read = "20us"\nread_hit = "90%"\n')
    path = tmp_path / "today.toml"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["scenario", str(path), *arguments])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert result.output.startswith(said)
