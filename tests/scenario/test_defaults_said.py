"""Every default an answer rests on is said with it (trial 8, P6: the paths' subchannels, the link type's
per CHPID, were taken and never listed): each key the schema gives a default and a file leaves out is
named in "Defaults taken for keys the file leaves out" (and JSON ``defaults``), or in the sentence that
says it elsewhere under the answer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from qmodel.scenario.schema import SCENARIO_KEYS, Note
from qmodel.scenario.spec import defaults_taken, load_scenario
from qmodel.studies.hardware import LINK_TYPES

# Two sites, a member at each reading a group buffer pool across the distance, a lock structure
# duplexed to the far CF, one typed and one untyped link; every optional key left out.
BASE = """\
sites = ["MAIN", "FAR"]

[goal]
response_time = "200ms"
share = "90%"

[[member]]
name = "ONL1"
site = "MAIN"
logical_cps = 10
arrival_rate = 240
cpu = "4.2ms"
other = "6ms"
sync_reads = 9.5
log_writes = 2.1
requests = { LOCK1 = 22.0, GBP4P = 12.5, GBP4S = 3.9 }
tpno_share = "90%"
{zhyperlink}
[[member]]
name = "ONL2"
site = "FAR"
logical_cps = 10
terminals = 20
think_time = "1s"
cpu = "4.2ms"
other = "6ms"
sync_reads = 9.5
log_writes = 2.1
requests = { LOCK1 = 22.0, GBP4P = 12.5, GBP4S = 3.9 }
tpno_share = "90%"

[[cf]]
name = "CF1"
site = "MAIN"
structures = { LOCK1 = "lock", GBP4P = "cache" }

[[cf]]
name = "CF2"
site = "FAR"
structures = { LOCK1S = "secondary of LOCK1", GBP4S = "secondary of GBP4P" }

[[path]]
member = "ONL1"
cf = "CF1"
link = "ica"
[[path]]
member = "ONL2"
cf = "CF2"
link = "ica"
[[path]]
member = "ONL1"
cf = "CF2"
link = "far"
[[path]]
member = "ONL2"
cf = "CF1"
link = "far"

[link.ica]
type = "ICA-SR"
sync = { lock = "4.1us", cache = "5.6us" }
async = { lock = "51us", cache = "58us" }

[link.far]
sync = { lock = "9.8us", cache = "11.5us" }
async = { lock = "66us", cache = "72us" }

[disk]
primary_site = "MAIN"
{disk}
[locks]
measured_wait = "11.5ms"
resolution_round_trips = 2
"""
# the same sysplex with Metro Mirror, computed IOSQ and zHyperLink reads: the keys that count only there
# (and the parts of a disk I/O the plain file gives left out)
PLAIN = {"disk": 'read = { conn = "0.12ms" }\nwrite = { conn = "0.10ms" }\n', "zhyperlink": ""}
MIRRORED = {
    "disk": 'read = { disc = "0.2ms" }\nwrite = { disc = "0.1ms" }\nmetro_mirror = true\n'
    'secondary_site = "FAR"\nvolumes = 40\nzhyperlink_read = "20us"\nread_hit = "95%"\n',
    "zhyperlink": 'zhyperlink = "reads"\nxi_share = "10%"\n',
}
# Keys with a default that are not a value an answer rests on, or that another sentence under the answer
# says (that sentence is checked), each with why.
NOT_AN_INPUT = {
    "format_version": "the file's format, checked before the rest",
    "title": "a name shown over the tables",
    "source": "a citation shown with the file",
    "distance": "the distances asked: the answer's own columns",
    "free": "what calibrate fits",
    "band": "the band's make-up, said with every band (band.method)",
    "conversion": "a table: each of its keys is judged on its own",
    "distribution": "a table: each of its keys is judged on its own",
    "link.sync": "a table of measured services: each structure kind used is required",
    "link.async": "a table of measured services: each structure kind used is required",
    "link.converted": "a table of measured shares: left out, computed from the threshold",
    "member.arrival_rate": "the alternative to terminals and think_time, one required",
    "locks.measured_wait": "the alternative to lockable_items, one required",
    "disk.secondary_site": "required with metro_mirror, unused without",
}
SAID_ELSEWHERE = {  # key: words of the sentence under the answer that says it
    "fibre_speed": "Round trip per km: 10 µs (fibre_speed 200,000 km/s, the default",
    "crossing_latency": "(crossing_latency, the default",
    "calibration": "fibre_speed 200,000 km/s, the default",
    "member.shape": "distribution.shape 1",
    "cf.duplexing": "LOCK1 duplexed into LOCK1S, synchronously.",
    "cf.signal_service": "CF-to-CF signal service 0 us at 0 km (not given",
}


def scenario_text(mirrored: bool) -> str:
    fill = MIRRORED if mirrored else PLAIN
    return BASE.replace("{disk}", fill["disk"]).replace("{zhyperlink}", fill["zhyperlink"])


def defaulted_keys() -> list[str]:
    """Every schema key that has a default (not required, or required only beside another key)."""
    keys = []
    for row in SCENARIO_KEYS:
        if isinstance(row.default, Note) and str(row.default).startswith("required"):
            continue
        keys.append(".".join(filter(None, (row.table.replace("disk.io", "disk.read"), row.name))))
    return keys


def said_under_the_answer(tmp_path: Path, mirrored: bool) -> tuple[str, dict[str, str]]:
    from qmodel.cli.scenario import _rests_on

    path = tmp_path / ("mirrored.toml" if mirrored else "plain.toml")
    path.write_text(scenario_text(mirrored), encoding="utf-8")
    scenario = load_scenario(path)
    return " ".join(_rests_on(scenario)).replace("\xa0", " "), dict(scenario.defaults)


@pytest.mark.parametrize("key", defaulted_keys())
def test_every_default_the_file_leaves_out_is_said_with_the_answer(tmp_path: Path, key: str) -> None:
    if key in NOT_AN_INPUT:
        return
    texts = [said_under_the_answer(tmp_path, mirrored) for mirrored in (False, True)]
    if key in SAID_ELSEWHERE:
        assert any(SAID_ELSEWHERE[key] in text for text, _ in texts), key
        return
    table, _, name = key.rpartition(".")
    # a key on each member, path, link or CF: said for all (member.*.xi_share) or one (member ONL1.xi_share)
    named = re.compile(
        rf"\b{re.escape(table)}(\.\*| \S+)\.{name}\b"
        if table in ("member", "path", "link", "cf")
        else re.escape(key)
    )
    assert any(named.search(text) for text, _ in texts), (key, texts)
    assert any(named.search(taken) for _, defaults in texts for taken in defaults), key


def test_a_paths_subchannels_left_out_are_its_link_types_per_chpid_or_the_studys(tmp_path: Path) -> None:
    """Trial 8, P6: the subchannels the answer takes, and whose they are, for each path."""
    _, defaults = said_under_the_answer(tmp_path, False)
    per_chpid = LINK_TYPES["ICA-SR"].subchannels
    assert defaults["path ONL1→CF1.subchannels"] == f"ICA-SR's {per_chpid} per CHPID"
    assert defaults["path ONL1→CF2.subchannels"] == "the study's 7 (no link type)"
    scenario = load_scenario(tmp_path / "plain.toml")
    assert scenario.path("ONL1", "CF1").subchannels == per_chpid
    assert scenario.path("ONL1", "CF2").subchannels == 7
    sentence = defaults_taken(scenario)
    assert (
        f"path.*.subchannels ICA-SR's {per_chpid} per CHPID (ONL1→CF1, ONL2→CF2), the study's 7 (no link "
        "type) (ONL1→CF2, ONL2→CF1)" in sentence
    )


def test_a_key_the_file_gives_is_not_said_as_a_default(tmp_path: Path) -> None:
    text = scenario_text(False).replace('link = "far"\n', 'link = "far"\nsubchannels = 4\n')
    path = tmp_path / "given.toml"
    path.write_text(text, encoding="utf-8")
    defaults = dict(load_scenario(path).defaults)
    assert "path ONL1→CF2.subchannels" not in defaults and "path ONL1→CF1.subchannels" in defaults


# Every enumerated value a scenario file takes, as IBM's documents or a planner's habit may capitalise it
# (trial 8, P10: mirror_protocol = "FCP" was refused), in the mirrored file.
CAPITALISED = {
    'type = "ICA-SR"': 'type = "ica-sr"',
    'LOCK1 = "lock"': 'LOCK1 = "LOCK"',
    'GBP4P = "cache"': 'GBP4P = "Cache"',
    'LOCK1S = "secondary of LOCK1"': 'LOCK1S = "Secondary of LOCK1"',
    'zhyperlink = "reads"': 'zhyperlink = "Reads"',
    "metro_mirror = true": 'metro_mirror = true\nmirror_protocol = "FCP"',
    'LOCK1S = "Secondary of LOCK1", GBP4S = "secondary of GBP4P" }': 'LOCK1S = "Secondary of LOCK1", GBP4S = '
    '"secondary of GBP4P" }\nduplexing = { LOCK1S = "ASYNC" }',
    'GBP4P = "Cache" }': 'GBP4P = "Cache" }\ncross_invalidation = { GBP4P = "Async" }',
}


def test_an_enumerated_value_is_read_whatever_its_case_and_said_in_its_one_spelling(tmp_path: Path) -> None:
    text = scenario_text(True)
    for written, capitalised in CAPITALISED.items():
        assert written in text, written
        text = text.replace(written, capitalised)
    path = tmp_path / "capitals.toml"
    path.write_text(text, encoding="utf-8")
    scenario = load_scenario(path)
    protocols = scenario.protocols
    assert protocols.link_types == {"ica": "ICA-SR"}
    assert protocols.mirror_protocol == "fcp"
    assert protocols.duplexing == {"LOCK1S": "async"} and protocols.async_xi == frozenset({"GBP4P"})
    assert protocols.zhyperlink == {"ONL1": "reads"}
    assert {s.name: (s.kind, s.primary) for s in scenario.structures.values()} == {
        "LOCK1": ("lock", ""),
        "GBP4P": ("cache", ""),
        "LOCK1S": ("lock", "LOCK1"),
        "GBP4S": ("cache", "GBP4P"),
    }
    said = " ".join(_rests_on_of(scenario)).replace("\xa0", " ")
    assert "Links: ica ICA-SR" in said and "Metro Mirror: fcp, 2 round trips per write." in said


def _rests_on_of(scenario) -> list[str]:
    from qmodel.cli.scenario import _rests_on

    return _rests_on(scenario)


def test_iosq_computed_from_the_load_is_not_said_as_a_default(tmp_path: Path) -> None:
    """Trial 9, Q3: with disk.volumes the answer computes IOSQ (pav_iosq), so "disk.read.iosq 0ms" is not
    a default it rests on; without volumes it is."""
    _, mirrored = said_under_the_answer(tmp_path, True)
    _, plain = said_under_the_answer(tmp_path, False)
    assert not any(key.endswith(".iosq") for key in mirrored)
    assert plain["disk.read.iosq"] == "0ms" and plain["disk.write.iosq"] == "0ms"
