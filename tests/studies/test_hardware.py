"""The hardware facts of 2006 and today (qmodel.studies.hardware) and ``qmodel subchannels --link``.

Each fact carries its source; a link past its reach, a duplexing mode the structure cannot have and
zHyperLink past its limit are refused with one line naming the key, the value and what is allowed.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from qmodel.catalogue.loader import get_formula
from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.studies.hardware import (
    DUPLEX_MODES,
    LINK_TYPES,
    METRO_MIRROR_PROTOCOLS,
    check_duplex_mode,
    check_reach,
    check_zhyperlink_reach,
    link_type,
)


@pytest.mark.parametrize("name", list(LINK_TYPES))
def test_every_link_type_says_its_source_and_defines_one_of_its_own_subchannel_counts(name: str) -> None:
    link = LINK_TYPES[name]
    assert link.source and link.era in ("2006", "today")
    assert link.subchannels in link.subchannel_choices
    assert link.reach_km >= link.unrepeated_km >= 0


def test_the_study_links_keep_2006s_counts_and_todays_long_reach_link_its_32() -> None:
    # gdps-pprc-100km-2006.txt: peer links seven subchannels, the test floor's DWDMs two; ICP354I: CL5 32
    assert LINK_TYPES["ISC-3"].subchannels == 7
    assert LINK_TYPES["ISC-3-sender"].subchannels == 2
    assert LINK_TYPES["CE-LR"].subchannels == 32
    assert LINK_TYPES["ICA-SR"].subchannels == 8


@pytest.mark.parametrize(
    ("name", "km", "allowed"),
    [
        ("ICA-SR", 0.151, "ICA-SR reaches <= 0.15 km"),
        ("CE-LR", 100.5, "CE-LR reaches <= 100 km (through a qualified DWDM; 10 km unrepeated)"),
        ("IC", 0.001, "IC reaches within one CPC (0 km)"),
    ],
)
def test_a_link_past_its_reach_is_refused_naming_the_key_the_link_and_its_reach(name, km, allowed) -> None:
    with pytest.raises(InputError) as refused:
        check_reach(LINK_TYPES[name], km, "path.link")
    assert str(refused.value) == f"path.link = {name} at {km:g} km; allowed: {allowed}"


@pytest.mark.parametrize(("name", "km"), [("ICA-SR", 0.15), ("CE-LR", 10.0), ("CE-LR", 100.0), ("IC", 0.0)])
def test_a_link_within_its_reach_is_accepted(name: str, km: float) -> None:
    check_reach(LINK_TYPES[name], km)


def test_an_unknown_link_type_is_refused_with_the_known_ones() -> None:
    with pytest.raises(InputError, match="allowed: one of IC, ISC-3"):
        link_type("ISC-4")


@pytest.mark.parametrize(
    ("mode", "kind", "allowed"),
    [
        ("async", "cache", "simplex for a cache structure (Db2 duplexes a group buffer pool itself"),
        ("sync", "cache", "simplex for a cache structure"),
        ("async", "list", "simplex, sync for a list structure"),
        ("triplex", "lock", "one of simplex, sync, async"),
    ],
)
def test_a_duplexing_mode_the_structure_cannot_have_is_refused(mode, kind, allowed) -> None:
    with pytest.raises(InputError) as refused:
        check_duplex_mode(mode, kind, "cf.duplexing")
    assert str(refused.value).startswith("cf.duplexing = ")
    assert allowed in str(refused.value)


def test_only_a_lock_structure_can_be_duplexed_asynchronously() -> None:
    assert DUPLEX_MODES["async"].kinds == ("lock",)
    check_duplex_mode("async", "lock")


def test_zhyperlink_past_150_m_is_refused() -> None:
    check_zhyperlink_reach(0.15)
    with pytest.raises(InputError) as refused:
        check_zhyperlink_reach(0.2, "member.zhyperlink")
    assert str(refused.value).startswith(
        "member.zhyperlink = a disk 0.2 km away; allowed: zHyperLink reaches 150 m"
    )


def test_the_studys_metro_mirror_protocol_is_the_catalogues_one_round_trip_per_write() -> None:
    # one home for the default round trips (the symbol), the protocol table says why: two routes agree
    default = get_formula("pprc_write_cost").symbols["mirror_round_trips"].default
    assert METRO_MIRROR_PROTOCOLS["pre-deposit"].round_trips == default == 1
    assert METRO_MIRROR_PROTOCOLS["fcp"].round_trips == 2


def _subchannels(*args: str) -> list[dict]:
    result = CliRunner().invoke(cli, ["subchannels", "--delayed", "12%", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_subchannels_takes_the_link_types_subchannels_per_chpid_instead_of_2006s() -> None:
    today = _subchannels("--link", "CE-LR")
    assert {row["measured_subchannels"] for row in today} == {32}
    assert {row["subchannels_per_link"] for row in today} == {32}
    study = _subchannels()  # no --link: the 2006 study's 2 measured, 7 per link, as before
    assert {(row["measured_subchannels"], row["subchannels_per_link"]) for row in study} == {(2, 7)}
    given = _subchannels("--link", "ICA-SR", "--measured", "16")  # what the planner measured wins
    assert {(row["measured_subchannels"], row["subchannels_per_link"]) for row in given} == {(16, 8)}


def test_subchannels_says_where_its_counts_came_from() -> None:
    runner = CliRunner()
    today = runner.invoke(cli, ["subchannels", "--delayed", "12%", "--link", "CE-LR"], env={"COLUMNS": "80"})
    assert "(CE-LR, CHPID type CL5: 32 subchannels per CHPID)" in " ".join(today.output.split())
    study = runner.invoke(cli, ["subchannels", "--delayed", "12%"], env={"COLUMNS": "80"})
    assert "Without --link, the subchannel counts are the 2006 study's." in " ".join(study.output.split())


def test_subchannels_refuses_a_distance_past_the_links_reach_in_one_line() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "subchannels",
            "--delayed",
            "12%",
            "--link",
            "ICA-SR",
            "--service-time",
            "20us",
            "--distance",
            "0,40km",
        ],
    )
    assert result.exit_code == 2
    assert result.output == "error: --link = ICA-SR at 40 km; allowed: ICA-SR reaches <= 0.15 km\n"
