"""RMF times read at today's distance (``measured_at``): a planner whose sites are already apart writes the
links' service, the disks' PEND, the PPRC overhead and the CF signal service as RMF shows them there; the
model takes off what it adds at that distance and answers as the same sysplex written at 0 km."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pytest
import tomllib
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qmodel.cli import cli
from qmodel.errors import InputError
from qmodel.scenario import band, load_scenario
from qmodel.scenario.compose import solve_at
from qmodel.scenario.fit import fit_scenario, model_values
from qmodel.scenario.measurements import Measurement
from qmodel.scenario.propagation import at_zero_km, cf_request, io_time, mirror_cost, round_trips, separation
from qmodel.scenario.spec import scenario_from_dict

KM = 1e3
DISTANCES = '["0km", "5km", "30km", "80km"]'
MEMBERS = (  # name, logical CPs, arrival rate, cpu, other, sync reads, log writes, LOCK1, GBPP, GBPS requests
    ("A", 6, 150, "3ms", "3ms", 8, 1.5, (12.0, 10.0, 3.0)),
    ("C", 8, 120, "3.2ms", "4ms", 10, 2, (14.0, 12.0, 4.0)),
)


def sysplex(
    *,
    measured_at: str = "",
    c_site: str = "south",
    primary: str = "north",
    crossing: str = "138us",
    fibre: str = "200000km/s",
    far_sync: tuple[str, str] = ("7us", "10us"),
    far_async: tuple[str, str] = ("180us", "195us"),
    pprc: str = "0.15ms",
    read_pend: str = "0.03ms",
    write_pend: str = "0.04ms",
    castout_pend: str = "0.05ms",
    signal: str = "20us",
    converted: str = "",
) -> str:
    """A two-member sysplex over two sites: a lock structure synchronously duplexed from CF1 (north) to
    CF2 (south) with its CF-to-CF signals, a group buffer pool duplexed by Db2, Metro Mirror, and the
    castout owner C; each path on the link "far" where it crosses between the sites, else "near"."""
    sites = {"A": "north", "C": c_site}
    cfs = {"CF1": "north", "CF2": "south"}
    members = "\n".join(
        f'[[member]]\nname = "{name}"\nsite = "{sites[name]}"\nlogical_cps = {cps}\narrival_rate = {rate}\n'
        f'cpu = "{cpu}"\nother = "{other}"\nsync_reads = {reads}\nlog_writes = {writes}\ntpno_share = "85%"\n'
        f"requests = {{ LOCK1 = {lock}, GBPP = {gbpp}, GBPS = {gbps} }}\n"
        for name, cps, rate, cpu, other, reads, writes, (lock, gbpp, gbps) in MEMBERS
    )
    paths = "\n".join(
        f'[[path]]\nmember = "{m}"\ncf = "{cf}"\nlink = "{"far" if sites[m] != cfs[cf] else "near"}"\n'
        for m in sites
        for cf in cfs
    )
    return f"""
title = "two sites"
sites = ["north", "south"]
distance = {DISTANCES}
crossing_latency = "{crossing}"
fibre_speed = "{fibre}"
{f'measured_at = "{measured_at}"' if measured_at else ""}

[goal]
response_time = "50ms"
share = "90%"

{members}
[[cf]]
name = "CF1"
site = "north"
structures = {{ LOCK1 = "lock", GBPP = "cache" }}

[[cf]]
name = "CF2"
site = "south"
structures = {{ GBPS = "secondary of GBPP", LOCK1S = "secondary of LOCK1" }}
signal_service = "{signal}"

{paths}
[link.near]
sync = {{ lock = "6.5us", cache = "9.8us" }}
async = {{ lock = "85us", cache = "95us" }}

[link.far]
sync = {{ lock = "{far_sync[0]}", cache = "{far_sync[1]}" }}
async = {{ lock = "{far_async[0]}", cache = "{far_async[1]}" }}
{f'converted = {{ cache = "{converted}" }}' if converted else ""}

[disk]
primary_site = "{primary}"
secondary_site = "{"south" if primary == "north" else "north"}"
metro_mirror = true
pprc_overhead = "{pprc}"
read = {{ conn = "0.12ms", disc = "0.05ms", pend = "{read_pend}", iosq = "0ms" }}
write = {{ conn = "0.15ms", disc = "0.25ms", pend = "{write_pend}", iosq = "0ms" }}
castout_owner = "C"
castout_iosq = 0.2
castout_write = {{ conn = "0.3ms", disc = "0.2ms", pend = "{castout_pend}", iosq = "0ms" }}

[locks]
lockable_items = 20000
resolution_round_trips = 2
lock_span = "50%"
"""


def read(text: str):
    return scenario_from_dict(tomllib.loads(text), "two-sites.toml")


def us(seconds: float) -> str:
    return f"{seconds * 1e6!r}us"


def answers(scenario) -> dict[str, np.ndarray]:
    result = solve_at(scenario, scenario.distances)
    return {
        "response_time": result.response_time,
        "throughput": result.throughput,
        "share_within_goal": result.share_within_goal,
        "cpu_busy": result.cpu_busy,
    }


def measured_file(at_zero, km: float, c_site: str, primary: str, crossing: str, fibre: str) -> str:
    """The file a planner writes at ``km``: every RMF time as the model times it there for the sysplex
    ``at_zero`` (the 0 km file), each by the function that times it in the solve."""
    distance = np.array([km * KM])
    far = separation(at_zero, distance, "north", "south")
    sync = [float(cf_request(at_zero, "far", kind, far)["sync_service"][0]) for kind in ("lock", "cache")]
    asyn = [float(cf_request(at_zero, "far", kind, far)["async_service"][0]) for kind in ("lock", "cache")]
    # the [disk] times as a member at the primary disks' site sees them; none there: the members' own
    seen_from = primary if primary in ("north", c_site) else c_site
    pend = {
        name: float(io_time(at_zero, times, separation(at_zero, distance, site, primary))[1][0]) + times.pend
        for name, times, site in (
            ("read", at_zero.read, seen_from),
            ("write", at_zero.write, seen_from),
            ("castout", at_zero.castout_write, c_site),
        )
    }
    signal = at_zero.protocols.signal_service["CF2"] + float(
        round_trips(at_zero, distance)("north", "south")[0]
    )
    return sysplex(
        measured_at=f"{km!r}km",
        c_site=c_site,
        primary=primary,
        crossing=crossing,
        fibre=fibre,
        far_sync=(us(sync[0]), us(sync[1])),
        far_async=(us(asyn[0]), us(asyn[1])),
        pprc=us(float(mirror_cost(at_zero, distance)[0])),
        read_pend=us(pend["read"]),
        write_pend=us(pend["write"]),
        castout_pend=us(pend["castout"]),
        signal=us(signal),
    )


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    km=st.floats(0.5, 60.0),
    crossing=st.one_of(st.just(0.0), st.floats(1.0, 200.0)),
    fibre=st.floats(150_000.0, 210_000.0),
    c_site=st.sampled_from(["south", "north"]),
    primary=st.sampled_from(["north", "south"]),
)
def test_a_file_read_at_a_distance_answers_as_the_same_sysplex_written_at_0_km(
    km: float, crossing: float, fibre: float, c_site: str, primary: str
) -> None:
    """Two routes to one answer: the sysplex written at 0 km, and written with every RMF time the model
    gives it at ``km`` (measured_at): the same response, throughput, share within the goal and CPU at every
    distance, those below the measured one included."""
    route = {"crossing": f"{crossing!r}us", "fibre": f"{fibre!r}km/s", "c_site": c_site, "primary": primary}
    at_zero = read(sysplex(**route))
    at_distance = read(measured_file(at_zero, km, **route))
    assert at_distance.measured_at == pytest.approx(km * KM)
    expected, got = answers(at_zero), answers(at_distance)
    for name, value in expected.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-9, atol=1e-15, err_msg=name)


def test_nordplex_times_read_at_12_km_are_the_0_km_times_plus_the_round_trips_there() -> None:
    """The planner's NORDPLEX numbers, read at 12 km: one round trip between the sites there is
    2 × 12 km / 200,000 km/s = 120 µs, and 138 µs through the DWDMs (crossing_latency): 258 µs. So the far
    link's 265 µs lock service is 7 µs at 0 km, its async 438 µs is 180 µs; the Metro Mirror cost of
    0.408 ms is a PPRC overhead of 0.15 ms; a south member's castout write PEND of 0.308 ms is 0.05 ms; the
    CF signal of 278 µs is 20 µs. Members at the primary disks' site see their PEND as it is at 0 km."""
    file = sysplex(
        measured_at="12km",
        far_sync=("265us", "268us"),
        far_async=("438us", "453us"),
        pprc="0.408ms",
        castout_pend="0.308ms",
        signal="278us",
    )
    at_zero = at_zero_km(read(file))
    assert at_zero.links["far"]["sync"]["lock"] == pytest.approx(7e-6)
    assert at_zero.links["far"]["sync"]["cache"] == pytest.approx(10e-6)
    assert at_zero.links["far"]["async"]["lock"] == pytest.approx(180e-6)
    assert at_zero.links["near"] == read(file).links["near"]  # no path of it crosses: nothing added
    assert at_zero.pprc_overhead == pytest.approx(0.15e-3)
    assert at_zero.castout_write.pend == pytest.approx(0.05e-3)
    assert at_zero.read.pend == pytest.approx(0.03e-3)
    assert at_zero.write.pend == pytest.approx(0.04e-3)
    assert at_zero.protocols.signal_service["CF2"] == pytest.approx(20e-6)
    # the times as measured stay the data: a route of 100 µs through the DWDMs leaves 38 µs more of them
    shorter_route = at_zero_km(replace(read(file), crossing_latency=100e-6))
    assert shorter_route.links["far"]["sync"]["lock"] == pytest.approx(45e-6)
    assert at_zero_km(read(file)).links["far"]["sync"]["lock"] == pytest.approx(7e-6)  # and back
    written_at_zero = read(sysplex())  # the same sysplex as the 0 km file writes it
    for name, value in answers(written_at_zero).items():
        np.testing.assert_allclose(answers(read(file))[name], value, rtol=1e-9, err_msg=name)


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_a_time_the_distance_alone_exceeds_is_refused_in_one_line(tmp_path) -> None:
    """NORDPLEX's trial file: its far link's 14 µs sync lock service, read at 12 km, is shorter than the
    258 µs round trip there; the planner's numbers and the distance do not agree."""
    path = tmp_path / "nordplex.toml"
    path.write_text(sysplex(measured_at="12km", far_sync=("14us", "15us")), encoding="utf-8")
    result = run("scenario", str(path))
    assert result.exit_code == 2
    line = result.output.strip()
    assert "\n" not in line
    assert "link.far.sync.lock = 14 µs measured at 12 km" in line
    assert "allowed: above 258 µs" in line
    consistent = {"far_sync": ("265us", "268us"), "far_async": ("438us", "453us"), "castout_pend": "0.308ms"}
    path.write_text(sysplex(measured_at="12km", **consistent), encoding="utf-8")
    result = run("scenario", str(path))
    assert result.exit_code == 2
    assert "disk.pprc_overhead = 150 µs measured at 12 km" in result.output
    assert "allowed: at least 258 µs" in result.output


def test_a_time_refused_at_a_distance_names_the_file_and_the_crossing_latency_it_would_fit_without(
    tmp_path,
) -> None:
    """A planner's trial (trial 4, D6): 88 µs at 8 km over dark fibre, the file without crossing_latency,
    was refused for a 218 µs round trip, 138 µs of it the default the planner never wrote. The refusal
    names the file, says how much is crossing_latency and that it is the default, and offers "0us" where
    that leaves the time possible; the file's own crossing_latency is called the file's, and where even
    the fibre alone is longer no "0us" is offered."""
    text = sysplex(measured_at="12km", far_sync=("140us", "150us"), far_async=("438us", "453us"))
    path = tmp_path / "dark.toml"
    path.write_text(text.replace('crossing_latency = "138us"\n', ""), encoding="utf-8")
    line = run("scenario", str(path)).output.strip()
    assert (
        line.startswith("error: dark.toml: link.far.sync.lock = 140 µs measured at 12 km")
        and "\n" not in line
    )
    assert "120 µs of fibre and 138 µs of crossing_latency, the default" in line
    assert 'crossing_latency = "0us"' in line
    path.write_text(text, encoding="utf-8")
    line = run("scenario", str(path)).output.strip()
    assert "138 µs of crossing_latency, the file's" in line and 'crossing_latency = "0us"' in line
    path.write_text(sysplex(measured_at="12km", far_sync=("100us", "110us")), encoding="utf-8")
    assert 'crossing_latency = "0us"' not in run("scenario", str(path)).output


def test_a_link_used_within_a_site_and_between_the_sites_is_refused_at_a_distance() -> None:
    """Its times read at a distance hold a round trip on one kind of path and none on the other: one
    [link.NAME] for each (RMF gives each system's service per CF); at 0 km there is nothing to take off."""
    text = sysplex().replace('link = "far"', 'link = "near"')
    assert read(text).links["near"]  # at 0 km: as it was
    with pytest.raises(InputError, match=r"link\.near = used within a site \(A→CF1\) and between the sites"):
        at_zero_km(read(text.replace('title = "two sites"', 'title = "two sites"\nmeasured_at = "12km"')))


def test_a_converted_share_on_a_link_between_the_sites_is_refused_at_a_distance() -> None:
    """The share already async at 0 km is not inferred from one read at a distance (the model estimates
    the conversion there from conversion.threshold)."""
    assert read(sysplex(converted="20%")).links["far"]["converted"] == {"cache": 0.2}
    with pytest.raises(InputError, match=r"link\.far\.converted\.cache = 20% measured at 12 km"):
        at_zero_km(read(sysplex(measured_at="12km", far_sync=("265us", "268us"), converted="20%")))


def test_the_distance_the_times_were_read_at_is_said_with_the_answer_when_left_out(tmp_path) -> None:
    """Left out, measured_at is 0 km (the times are as at 0 km), said with the answer like every default;
    given, it is the file's own, and the [locks] measured_wait takes it unless [locks] says otherwise."""
    assert ("measured_at", "0km") in read(sysplex()).defaults
    given_at = read(sysplex(measured_at="12km", far_sync=("265us", "268us"), far_async=("438us", "453us")))
    assert "measured_at" not in dict(given_at.defaults)
    locked = sysplex(measured_at="12km").replace("lockable_items = 20000", 'measured_wait = "1.1ms"')
    assert read(locked).lock_measurement.distance == pytest.approx(12 * KM)
    assert read(locked.replace("[locks]", '[locks]\nmeasured_at = "5km"')).lock_measurement.distance == 5 * KM
    path = tmp_path / "mine.toml"
    path.write_text(sysplex(), encoding="utf-8")
    said = " ".join(run("scenario", str(path), "--distance", "20km").output.split())
    assert "Defaults taken for keys the file leaves out:" in said
    assert "measured_at 0km" in said.split("Defaults taken for keys the file leaves out:")[1]


def test_a_fit_on_rows_at_the_measured_distance_recovers_what_they_were_made_with() -> None:
    """calibrate on a file read at 12 km, with its rows at 12 km: the members' other times the rows were
    made with come back, and a free crossing latency whose trials would make a time measured there
    impossible counts those trials as misses instead of stopping the fit."""
    file = read(measured_file(read(sysplex()), 12.0, "south", "north", "138us", "200000km/s"))
    truth = replace(file, members=tuple(replace(m, other=m.other + 2e-3) for m in file.members))
    rows = [Measurement("mine", m.name, 12 * KM, "response_time", 1.0) for m in file.members]
    rows = [replace(row, value=float(v)) for row, v in zip(rows, model_values(truth, rows), strict=True)]
    fit = fit_scenario(file, rows, ["member.*.other"])
    for member in truth.members:
        assert fit.values[f"member.{member.name}.other"] == pytest.approx(member.other, rel=1e-4)
    far = [Measurement("mine", m.name, 60 * KM, "response_time", 1.0) for m in file.members]
    far = [replace(row, value=float(v) * 1.2) for row, v in zip(far, model_values(truth, far), strict=True)]
    fit = fit_scenario(file, rows + far, ["crossing_latency"])
    # the rows ask for a longer route than the times measured at 12 km allow: the fit ends at the longest
    # they do, the far link's 265 µs lock service less the fibre's 120 µs there
    assert fit.values["crossing_latency"] == pytest.approx(145e-6, rel=1e-3)


def test_calibrate_fits_a_file_read_at_12_km_on_rows_at_12_km_and_its_answer_meets_them(tmp_path) -> None:
    """qmodel scenario calibrate on a file read at 12 km, its rows measured there: the fit is written
    beside the file, and the file read again with it gives the measured response times at 12 km."""
    text = measured_file(read(sysplex()), 12.0, "south", "north", "138us", "200000km/s")
    truth = read(text)
    truth = replace(truth, members=tuple(replace(m, other=m.other + 2e-3) for m in truth.members))
    rows = [Measurement("mine", m.name, 12 * KM, "response_time", 1.0) for m in truth.members]
    measured = {m.name: float(v) for m, v in zip(truth.members, model_values(truth, rows), strict=True)}
    (tmp_path / "mine.toml").write_text('free = ["member.*.other"]\n' + text, encoding="utf-8")
    (tmp_path / "rows.csv").write_text(
        "distance,member,quantity,value\n"
        + "".join(f"12km,{name},response_time,{value * 1e3!r}ms\n" for name, value in measured.items()),
        encoding="utf-8",
    )
    assert (
        run("scenario", "calibrate", str(tmp_path / "mine.toml"), str(tmp_path / "rows.csv")).exit_code == 0
    )
    assert (tmp_path / "mine.fit.toml").is_file()
    answer = run("scenario", str(tmp_path / "mine.toml"), "--distance", "12km", "--format", "json")
    for record in json.loads(answer.output)["results"]:
        if record["member"] in measured:
            assert record["response_time[ms]"] == pytest.approx(measured[record["member"]] * 1e3, rel=1e-3)


@pytest.mark.parametrize("args", [["--distance", "20km"], ["--max-distance"]])
def test_the_json_says_where_the_times_were_read_given_or_not(tmp_path, args) -> None:
    route = {"crossing": "138us", "fibre": "200000km/s", "c_site": "south", "primary": "north"}
    for measured_at, text in ((0.0, sysplex()), (12.0, measured_file(read(sysplex()), 12.0, **route))):
        path = tmp_path / "mine.toml"
        path.write_text(text, encoding="utf-8")
        answer = json.loads(run("scenario", str(path), *args, "--format", "json").output)
        assert answer["measured_at[km]"] == measured_at


@pytest.mark.parametrize(("typed", "refused"), [("0km", False), ("8m", True), ("99m", True), ("100m", False)])
def test_a_measured_at_above_0_and_under_100_m_is_refused_as_m_typed_for_km(
    typed: str, refused: bool
) -> None:
    """Trial 7, N11: measured_at = "8m" (8 km meant) was taken, and the model took the route's round trips
    and crossing_latency off every measured time at 8 m, moving the answer from 16.0 to 5.8 km. Above 0
    km the sites are apart by a route; closer than 100 m they are one room, 0km."""
    text = sysplex(measured_at=typed)
    if not refused:
        assert read(text).measured_at == pytest.approx(0.0 if typed == "0km" else 100.0)
        return
    with pytest.raises(InputError) as error:
        read(text)
    said = str(error.value)
    assert said.startswith(f"two-sites.toml: measured_at = {typed} (")
    assert "m typed for km?" in said and said.endswith(
        "allowed: 0km (the sites side by side) or at least 100m (e.g. 8km)"
    )


CONSISTENT_AT_12KM = {
    "far_sync": ("265us", "268us"),
    "far_async": ("438us", "453us"),
    "castout_pend": "0.308ms",
    "pprc": "0.55ms",
    "signal": "300us",
}


def test_a_crossing_latency_larger_than_a_time_measured_is_refused_itself_with_its_room(tmp_path) -> None:
    """Trial 8, P11: crossing_latency = "40ms" (typed for 40us) was refused as a link's 196 µs, "allowed:
    above 40050 µs". Where crossing_latency alone is more than a time the file measured (which the fibre
    alone leaves possible), crossing_latency is named, allowed below the least time less its fibre; that
    room is exact: a microsecond under it is read, a microsecond over it refused."""
    path = tmp_path / "slip.toml"
    path.write_text(sysplex(measured_at="12km", crossing="40ms", **CONSISTENT_AT_12KM), encoding="utf-8")
    line = run("scenario", str(path)).output.strip()
    assert "\n" not in line
    assert line.startswith(
        "error: slip.toml: crossing_latency = 40000 µs per round trip, the file's (more than "
    )
    assert "measured at 12 km, which pays it on each round trip between the sites: a slip of unit?)" in line
    room = float(
        re.search(
            r"allowed: below (\d+(?:\.\d+)?) µs: \S+ = \d+ µs measured at 12 km less its 120 µs of fibre",
            line,
        )[1]
    )
    for crossing, refused in ((room - 1, False), (room + 1, True)):
        path.write_text(
            sysplex(measured_at="12km", crossing=f"{crossing:g}us", **CONSISTENT_AT_12KM), encoding="utf-8"
        )
        assert (run("scenario", str(path), "--distance", "20km").exit_code == 2) is refused, crossing


def test_a_time_below_its_fibre_alone_is_blamed_before_crossing_latency(tmp_path) -> None:
    """A 14 µs service at 12 km is less than its 120 µs of fibre: the time is wrong whatever the
    equipment, so it is named, not crossing_latency."""
    path = tmp_path / "short.toml"
    path.write_text(sysplex(measured_at="12km", crossing="40ms", far_sync=("14us", "15us")), encoding="utf-8")
    assert run("scenario", str(path)).output.startswith("error: short.toml: link.far.sync.lock = 14 µs")


def test_the_predicted_part_is_counted_from_the_nearest_distance_measured_and_fitted() -> None:
    """A file calibrated on rows at 0 and 20 km: an answer at either predicts nothing there (its growth
    from the nearest, 0), one between or beyond counts from the nearer end (trial 8, P1: the 0 km answer
    was counted from 20 km, its band 6.5 to 115.6 ms about 59.4)."""
    base = np.array([[[10.0, 30.0]]])  # (S, M, K) at 0 and 20 km
    measured = np.array([0.0, 20e3])
    at = np.array([0.0, 5e3, 10e3, 15e3, 20e3, 40e3])
    np.testing.assert_array_equal(
        band.from_nearest(base, at, measured), [[[10.0, 10.0, 10.0, 30.0, 30.0, 30.0]]]
    )
    nothing = np.full((1, 1, 1), np.nan)
    assert band.from_nearest(nothing, at, np.array([])) is nothing
    scenario = load_scenario("gdps-env2")
    calibrated = band.Banded(scenario, measured_at=20e3, fitted_at=(0.0, 20e3))  # the fit's [band]: farthest
    np.testing.assert_array_equal(band._measured(calibrated), measured)
    np.testing.assert_array_equal(band._measured(band.Banded(scenario, measured_at=12e3)), [12e3])


def test_a_free_crossing_latency_at_the_measured_distance_is_not_pinned_by_the_room_it_is_left() -> None:
    """Rows at the distance the times were read at (12 km) with crossing_latency free beside each member's
    other: the fit stays within the room the times leave it (its bound: the far link's 265 µs lock service
    less the fibre's 120 µs), where the rows give it no slope, so it is not pinned and each member's other
    is (trial 9, Q1: a Jacobian stepped past that room took the refusal's jump for a slope: crossing_latency
    "pinned" at 156 to 156 us and every other held)."""
    file = read(measured_file(read(sysplex()), 12.0, "south", "north", "138us", "200000km/s"))
    truth = replace(file, members=tuple(replace(m, other=m.other + 2e-3) for m in file.members))
    rows = [Measurement("mine", m.name, 12 * KM, "response_time", 1.0) for m in file.members]
    rows = [
        replace(row, value=float(v) * 1.03) for row, v in zip(rows, model_values(truth, rows), strict=True)
    ]
    fit = fit_scenario(file, rows, ["member.*.other", "crossing_latency"])
    (latency,) = [p for p in fit.parameters if p.key == "crossing_latency"]
    assert latency.high == pytest.approx(145e-6, rel=1e-3)  # the room, found before the fit
    assert fit.label("crossing_latency") != "pinned"
    for member in file.members:
        assert fit.label(f"member.{member.name}.other") != "held"
        assert fit.values[f"member.{member.name}.other"] > member.other
