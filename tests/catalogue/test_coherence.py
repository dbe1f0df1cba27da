"""One question, one answer: where two routes compute the same physical quantity, they agree.

A route is a catalogue entry's output, a scenario step, the MVA engine or the inverse solver. Each
pair below draws inputs with hypothesis and asserts the two routes give the same number (SI units,
relative 1e-9). The list is the catalogue's map of its own overlaps: an entry that computes a
quantity another route computes already joins ``PAIRS`` (and gets a test function here), and
``test_every_entry_with_a_utilization_is_listed`` makes sure no utilization escapes the law.

Also in this file, the rule that makes the comparisons meaningful: one symbol name has one unit in
every entry, inputs and outputs alike.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from qmodel.algorithms.subchannels import erlang_c_subchannels_from_rate
from qmodel.catalogue.evaluate import calc
from qmodel.catalogue.inverse import solve
from qmodel.catalogue.loader import load_catalogue
from qmodel.networks import network
from qmodel.networks import solve as solve_network
from qmodel.scenario.compose import volume_iosq
from qmodel.scenario.spec import load_scenario

# (quantity, the catalogue entries that compute it, the test that makes them agree, with any other route
# it checks: a scenario step, the MVA engine, the inverse solver).
PAIRS = [
    (
        "propagation of one round trip",
        (
            "round_trip_time",
            "transaction_elongation",
            "distance_growth",
            "cf_request_at_distance",
            "pprc_write_cost",
        ),
        "test_propagation_is_one_answer",
    ),
    (
        "Metro Mirror cost per write (mirror leg)",
        ("pprc_write_cost", "transaction_elongation"),
        "test_a_metro_mirror_write_costs_the_same_in_both_entries",
    ),
    ("M/M/1", ("mm1", "mmc", "mg1"), "test_mm1_is_mmc_with_one_server_and_mg1_with_exponential_service"),
    (
        "Erlang C, M/M/c waiting",
        ("mmc", "erlang_c", "mmc_waiting_time", "mmck"),
        "test_mmc_agrees_with_erlang_c_mmc_waiting_time_and_a_roomy_mmck",
    ),
    (
        "utilization law",
        ("utilization_law", "mm1", "mg1", "mmc", "pav_iosq"),
        "test_the_utilization_law_holds_in_every_entry_with_a_utilization",
    ),
    ("IOSQ", ("pav_iosq", "mmc"), "test_iosq_is_the_mmc_wait_on_the_exposures"),
    ("IOSQ: scenario step", ("mmc",), "test_the_scenario_disks_queue_as_mmc_on_the_exposures"),
    (
        "subchannel sizing: inverse solver",
        ("erlang_c_subchannels_from_rate", "mmc", "erlang_c"),
        "test_subchannel_sizing_is_the_mmc_sizing_question",
    ),
    (
        "M/M/c sizing: inverse solver",
        ("mmc", "erlang_c"),
        "test_mmc_and_erlang_c_answer_the_sizing_question_alike",
    ),
    ("open single station: MVA engine", ("mm1",), "test_an_open_single_station_network_is_mm1"),
]

# Every entry with a utilization output, and how its utilization is λ·S/c: (entry, extra inputs, λ, S, c)
UTILIZATION_ROUTES = {
    "mm1": lambda lam, s, c: ({"arrival_rate": lam, "service_time": s}, lam * s),
    "mg1": lambda lam, s, c: ({"arrival_rate": lam, "service_time": s, "service_cv": 0.5}, lam * s),
    "mmc": lambda lam, s, c: ({"arrival_rate": lam, "service_time": s, "servers": c}, lam * s / c),
    "pav_iosq": lambda lam, s, c: ({"ssch_rate": lam, "service_time": s, "aliases": c - 1}, lam * s / c),
    "utilization_law": lambda lam, s, c: ({"throughput": lam, "service_time": s, "servers": c}, lam * s / c),
}
# Utilizations of another quantity (a link's bandwidth, a queue that turns requests away): their own laws.
OTHER_UTILIZATIONS = {"link_sizing", "cgft", "ip_link", "mmck"}

rates = st.floats(1.0, 5e4)
times = st.floats(1e-6, 1e-2)  # seconds
servers = st.integers(1, 40)
kilometres = st.floats(0.0, 300.0)


def close(a, b) -> bool:
    return bool(np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-9, atol=1e-15))


def si(entry: str, **inputs):
    return calc(entry, units="si", **inputs)


def test_the_pairs_name_entries_and_tests_that_exist() -> None:
    catalogue = load_catalogue()
    for quantity, entries, test in PAIRS:
        assert set(entries) <= set(catalogue), quantity
        assert callable(globals().get(test)), test


def test_every_entry_with_a_utilization_is_listed() -> None:
    with_utilization = {
        f.id
        for f in load_catalogue().values()
        if f.builtin and any(o.name == "utilization" for o in f.outputs)
    }
    assert with_utilization == set(UTILIZATION_ROUTES) | OTHER_UTILIZATIONS


@given(kilometres, st.floats(1e5, 3e5))
def test_propagation_is_one_answer(km, speed) -> None:
    metres, fibre = km * 1e3, speed * 1e3
    one = si("round_trip_time", distance=metres, fibre_speed=fibre).round_trip_time
    assert close(
        si(
            "transaction_elongation", cf_requests=0, sync_writes=0, distance=metres, fibre_speed=fibre
        ).round_trip_time,
        one,
    )
    assert close(
        si("distance_growth", time_at_zero=0, distance=metres, round_trips=1, fibre_speed=fibre).added_time,
        one,
    )
    assert close(
        si(
            "cf_request_at_distance",
            sync_service_at_zero=1e-5,
            async_service_at_zero=1e-4,
            distance=metres,
            threshold=1.0,
            fibre_speed=fibre,
        ).propagation,
        one,
    )
    assert close(
        si(
            "pprc_write_cost", sync_writes=1, base_overhead=4e-4, distance=metres, fibre_speed=fibre
        ).write_cost
        - 4e-4,
        one,
    )


@given(kilometres, st.integers(0, 20), st.floats(0.0, 3.0))
def test_a_metro_mirror_write_costs_the_same_in_both_entries(km, writes, mirror) -> None:
    """pprc_write_cost counts the mirror leg; transaction_elongation the mirror leg and, for a host at the
    other site, its own I/O's: with the host beside its primary (io_round_trips = 0) they agree."""
    cost = si(
        "pprc_write_cost",
        sync_writes=writes,
        base_overhead=4e-4,
        distance=km * 1e3,
        mirror_round_trips=mirror,
    ).transaction_cost
    elongation = si(
        "transaction_elongation",
        cf_requests=0,
        sync_writes=writes,
        distance=km * 1e3,
        io_round_trips=0,
        mirror_round_trips=mirror,
    ).elongation
    assert close(cost - writes * 4e-4, elongation)


def test_the_entries_share_one_default_for_round_trips_per_metro_mirror_write() -> None:
    catalogue = load_catalogue()
    users = [f for f in catalogue.values() if "mirror_round_trips" in f.symbols]
    assert {f.id for f in users} >= {"pprc_write_cost", "transaction_elongation"}
    assert {f.symbols["mirror_round_trips"].default for f in users} == {1.0}
    assert not any("write_round_trips" in f.symbols for f in catalogue.values())


@given(rates, times)
def test_mm1_is_mmc_with_one_server_and_mg1_with_exponential_service(lam, s) -> None:
    assume(lam * s < 0.99)
    mm1 = si("mm1", arrival_rate=lam, service_time=s)
    mmc = si("mmc", arrival_rate=lam, service_time=s, servers=1)
    mg1 = si("mg1", arrival_rate=lam, service_time=s, service_cv=1)
    for name in ("utilization", "waiting_time", "response_time", "number_in_queue", "number_in_system"):
        assert close(getattr(mm1, name), getattr(mmc, name)), name
        assert close(getattr(mm1, name), getattr(mg1, name)), name


@given(rates, times, servers)
def test_mmc_agrees_with_erlang_c_mmc_waiting_time_and_a_roomy_mmck(lam, s, c) -> None:
    assume(lam * s / c < 0.9)
    mmc = si("mmc", arrival_rate=lam, service_time=s, servers=c)
    assert close(mmc.wait_probability, si("erlang_c", servers=c, offered_load=lam * s).wait_probability)
    assert close(
        mmc.waiting_time, si("mmc_waiting_time", servers=c, offered_load=lam * s, service_time=s).waiting_time
    )
    roomy = si("mmck", arrival_rate=lam, service_time=s, servers=c, capacity=c + 2000)
    assert np.isclose(float(roomy.response_time), float(mmc.response_time), rtol=1e-6)


@given(rates, times, servers)
def test_the_utilization_law_holds_in_every_entry_with_a_utilization(lam, s, c) -> None:
    assume(lam * s < 0.95)  # stable on one server too (mm1, mg1)
    law = si("utilization_law", throughput=lam, service_time=s, servers=c).utilization
    assert close(law, lam * s / c)
    for entry, route in UTILIZATION_ROUTES.items():
        inputs, expected = route(lam, s, c if entry not in ("mm1", "mg1") else 1)
        assert close(si(entry, **inputs).utilization, expected), entry


@given(rates, times, st.integers(0, 7))
def test_iosq_is_the_mmc_wait_on_the_exposures(rate, s, aliases) -> None:
    assume(rate * s / (1 + aliases) < 0.95)
    iosq = si("pav_iosq", ssch_rate=rate, service_time=s, aliases=aliases).iosq
    assert close(iosq, si("mmc", arrival_rate=rate, service_time=s, servers=1 + aliases).waiting_time)


@given(st.floats(1.0, 40.0), st.floats(0.0, 200.0), st.integers(0, 7))
def test_the_scenario_disks_queue_as_mmc_on_the_exposures(throughput, background, aliases) -> None:
    """The scenario's IOSQ step: each volume an M/M/c with 1 + aliases exposures at its share of the
    SSCHs (the members' and the other work), served at their mean device time."""
    scenario = replace(load_scenario("gdps-env1"), volumes=40, aliases=aliases, disk_background=background)
    part = SimpleNamespace(
        ssch=np.array([[3.0], [5.0]]), device_busy=np.array([[0.006], [0.012]]), write_service=0.002
    )  # two members: SSCHs and device seconds per transaction
    load = np.full((2, 1), throughput)
    rate = (3.0 * throughput + 5.0 * throughput + background) / 40
    service = (0.006 * throughput + 0.012 * throughput + background * 0.002) / (rate * 40)
    assume(rate * service < 0.95 * (1 + aliases))
    expected = si("mmc", arrival_rate=rate, service_time=service, servers=1 + aliases).waiting_time
    assert close(volume_iosq(scenario, part, load), expected)


@given(st.floats(10.0, 2e5), st.floats(1e-6, 1e-4), st.floats(0.01, 0.5))
def test_subchannel_sizing_is_the_mmc_sizing_question(rate, s, target) -> None:
    sized = erlang_c_subchannels_from_rate(rate, s, target)
    count = int(sized["subchannels"])
    assume(count < 500)
    found = solve(
        "mmc", "wait_probability", target, "servers", {"arrival_rate": rate, "service_time": s * 1e3}
    )
    assert int(found.value) == count
    assert close(
        sized["wait_probability"], si("erlang_c", servers=count, offered_load=rate * s).wait_probability
    )


@given(rates, times, st.floats(0.01, 0.5))
def test_mmc_and_erlang_c_answer_the_sizing_question_alike(lam, s, target) -> None:
    assume(lam * s < 200)
    by_mmc = solve(
        "mmc", "wait_probability", target, "servers", {"arrival_rate": lam, "service_time": s * 1e3}
    )
    by_erlang = solve("erlang_c", "wait_probability", target, "servers", {"offered_load": lam * s})
    assert int(by_mmc.value) == int(by_erlang.value)


@given(st.floats(1.0, 900.0), st.floats(1e-4, 1e-3))
def test_an_open_single_station_network_is_mm1(lam, s) -> None:
    assume(lam * s < 0.95)
    result = solve_network(network([s], arrival_rate=[f"{lam!r}/s"]))
    assert close(result.response_time[0], si("mm1", arrival_rate=lam, service_time=s).response_time)


def test_one_symbol_name_has_one_unit_in_every_entry() -> None:
    """service_time is ms wherever it appears, round_trip_time us, ...: a bare number is read in the
    same unit by every entry, and an output of one entry can be typed into another as it is shown."""
    units = defaultdict(set)
    for formula in load_catalogue().values():
        for symbol in formula.symbols.values():
            units[symbol.name].add((symbol.unit, f"{formula.id} input"))
        for output in formula.outputs:
            units[output.name].add((output.unit, f"{formula.id} output"))
    clashes = {name: sorted(uses) for name, uses in units.items() if len({unit for unit, _ in uses}) > 1}
    assert clashes == {}


@pytest.mark.parametrize("entry", ["mm1", "mmc", "mg1", "pav_iosq", "erlang_c_subchannels_from_rate"])
def test_a_bare_service_time_means_milliseconds_in_every_entry(entry) -> None:
    formula = load_catalogue()[entry]
    assert formula.symbols["service_time"].unit == "ms"
    sized = calc("erlang_c_subchannels_from_rate", request_rate=10_000, service_time=0.58)
    assert float(sized.offered_load) == pytest.approx(5.8)  # 10,000/s × 0.58 ms, not × 0.58 µs


def test_the_issue_example_sizes_mmc_as_erlang_c() -> None:
    """solve mmc wait_probability=10% --for servers arrival_rate=800 service_time=1ms: 3 servers, as
    solve erlang_c wait_probability=10% --for servers offered_load=0.8 answers."""
    found = solve("mmc", "wait_probability", 0.1, "servers", {"arrival_rate": 800, "service_time": 1.0})
    assert int(found.value) == 3
    assert int(solve("erlang_c", "wait_probability", 0.1, "servers", {"offered_load": 0.8}).value) == 3
