"""The composed solver: its answers obey the laws they are built from, and fail loudly where none exists."""

import re
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.algorithms.fixed_point import TOLERANCE
from qmodel.catalogue.registry import call
from qmodel.errors import InputError
from qmodel.scenario import Scenario, load_scenario, max_distance, solve_scenario
from qmodel.scenario.files import resolve_scenario
from qmodel.scenario.result import BREAKDOWN, RESOLVED, resolved

ENV2 = load_scenario(resolve_scenario("gdps-env2"))
ENV3 = load_scenario(resolve_scenario("gdps-env3"))
DISTANCES = np.linspace(0, 100e3, 11)


@pytest.fixture(scope="module")
def env2():
    return solve_scenario(ENV2, DISTANCES)


def test_the_breakdown_adds_up_to_the_response_time(env2) -> None:
    total = sum(env2.breakdown[name] for name in BREAKDOWN)
    assert np.allclose(total, env2.response_time, rtol=1e-8)


def test_throughput_obeys_the_response_time_law(env2) -> None:
    # X = N / (Z + R) for each member's terminals (Lazowska et al., QSP §3.3)
    for m, member in enumerate(ENV2.members):
        assert np.allclose(
            env2.throughput[m], member.terminals / (member.think_time + env2.response_time[m]), rtol=1e-6
        )


def test_response_time_grows_with_distance(env2) -> None:
    assert (np.diff(env2.response_time, axis=1) > 0).all()


def test_the_share_within_the_goal_falls_with_distance_and_stays_a_share(env2) -> None:
    assert (np.diff(env2.share_within_goal, axis=1) < 0).all()
    assert ((0 <= env2.share_within_goal) & (env2.share_within_goal <= 1)).all()


def test_a_longer_holding_time_elsewhere_delays_the_local_member() -> None:
    # Environment 3: only G1P2 is remote, yet G1P1's lock wait grows with the distance
    result = solve_scenario(ENV3, np.array([0.0, 40e3]))
    g1p1 = result.members.index("G1P1")
    assert result.breakdown["lock_contention"][g1p1, 1] > 2 * result.breakdown["lock_contention"][g1p1, 0]


def test_thrashing_is_reported_with_its_load_never_as_a_number() -> None:
    crowded = replace(ENV3, lockable_items=ENV3.lockable_items / 20)
    result = solve_scenario(crowded, np.array([0.0, 100e3]))
    assert result.thrashing[-1]
    assert np.isnan(result.response_time[:, -1]).all()
    assert 0 < result.thrashing_load[-1] < 1


def test_the_terminals_with_an_answer_are_each_members_share_of_the_thrashing_load() -> None:
    result = solve_scenario(ENV3, np.array([20e3, 300e3]))  # the second thrashes
    fits = result.terminals_with_answer(1)
    load = result.thrashing_load[1]
    assert result.terminals_with_answer(0) is None
    assert fits == tuple(int(np.ceil(load * m.terminals)) - 1 for m in ENV3.members)


def test_the_subchannel_share_at_the_edge_is_that_of_the_largest_load_searched_with_an_answer() -> None:
    from qmodel.scenario.compose import LOAD_ITERATIONS, LOAD_STEPS, solve_at

    result = solve_scenario(ENV3, np.array([20e3, 300e3]))  # the second thrashes
    below = result.thrashing_load[1] - 0.5**LOAD_STEPS  # the bisection's last load with an answer
    edge = solve_at(ENV3, np.array([300e3]), below, max_iterations=LOAD_ITERATIONS)
    assert not edge.thrashing[0]
    expected = edge.breakdown["subchannel_wait"][:, 0] / edge.response_time[:, 0]
    assert result.subchannel_share_at_edge[:, 1] == pytest.approx(expected, rel=1e-12)
    assert 0 < expected.max() < 0.05  # G1P2 waits 2.6 ms of 739 ms: a sliver


def test_fewer_terminals_are_no_remedy_where_no_load_searched_has_an_answer() -> None:
    from qmodel.scenario.result import remedies

    assert remedies(20e3, np.array([np.nan, np.nan])) == ("a shorter distance",)
    assert remedies(0.0, np.array([np.nan, np.nan])) == ("fewer terminals",)  # nothing else can help


def test_more_volumes_are_a_remedy_where_iosq_is_material_at_the_edge() -> None:
    from qmodel.scenario.result import remedies

    assert "more volumes (or PAV aliases)" in remedies(20e3, np.array([0.0, 0.0]), np.array([0.01, 0.2]))
    assert "more volumes (or PAV aliases)" not in remedies(20e3, np.array([0.0, 0.0]), np.array([0.01, 0.02]))


def test_iosq_and_volume_busy_are_given_where_computed_and_absent_where_given() -> None:
    crowded = _with_volumes(2, 0, 1500.0)
    result = solve_scenario(crowded, np.array([0.0, 40e3]))
    assert (np.diff(result.io_queue) > 0).all() and (result.volume_busy < 1).all()
    assert result.volume_busy == pytest.approx(_volume_utilization(crowded, result), rel=1e-9)
    assert {"iosq[ms]", "volume_busy[%]"} <= set(result.records()[0])
    plain = solve_scenario(ENV2, np.array([0.0]))
    assert plain.io_queue is None and "iosq[ms]" not in plain.records()[0]


def test_no_subchannel_share_at_the_edge_is_given_where_nothing_thrashes() -> None:
    result = solve_scenario(ENV3, np.array([20e3, 300e3]))
    assert np.isnan(result.subchannel_share_at_edge[:, 0]).all()


@pytest.mark.parametrize(
    "subchannels, distance, expected",
    [
        (7, 0.0, ("fewer terminals",)),
        (7, 20e3, ("fewer terminals", "a shorter distance")),
        (1, 0.0, ("fewer terminals", "more subchannels")),
        (1, 20e3, ("fewer terminals", "more subchannels", "a shorter distance")),
    ],
)
def test_the_remedies_are_fewer_terminals_and_what_applies_at_the_distance(subchannels, distance, expected):
    crowded = replace(
        ENV3,
        members=tuple(replace(m, terminals=2000) for m in ENV3.members),
        paths=tuple(replace(p, subchannels=subchannels) for p in ENV3.paths),
    )
    result = solve_scenario(crowded, np.array([distance]))
    assert result.thrashing[0] and result.remedies(0) == expected


def test_a_sweep_into_thrashing_too_long_to_search_is_refused_before_its_main_solve() -> None:
    from qmodel.errors import InputError

    distances = np.linspace(0, 100_000e3, 10_000)  # thrashes from 100-odd km: ~9,980 loads to search
    with pytest.raises(InputError, match=r"searched at 9,9\d\d thrashing distance\(s\)") as refused:
        solve_scenario(ENV3, distances)
    found = re.search(
        r"fewer terminals per member, or fewer distances from ([\d.]+) km on", str(refused.value)
    )
    assert found
    # the distance named is the first of the sweep at which the solver finds lock contention thrashing
    onset = int(np.argmin(np.abs(distances - float(found[1]) * 1e3)))
    assert abs(distances[onset] / 1e3 - float(found[1])) < 0.05
    assert list(solve_scenario(ENV3, distances[onset - 1 : onset + 1]).thrashing) == [False, True]


def test_the_estimate_counts_only_the_thrashing_distances_before_the_volumes_saturate() -> None:
    # lock contention with IOSQ from the load: it thrashes from some distance, then (beyond about 68 km,
    # 1500 SSCH/s of other work on 2 volumes) the volumes saturate and no load is searched
    from qmodel.scenario.compose import thrashing_onset

    crowded = replace(_with_volumes(2, 0, 1500.0), lockable_items=ENV2.lockable_items)
    distances = np.linspace(0, 100e3, 1001)
    count, onset = thrashing_onset(crowded, distances)
    result = solve_scenario(crowded, distances)
    assert count == int(result.lock_thrashing.sum()) > 0 and result.disk_saturated.any()
    assert onset == distances[np.argmax(result.lock_thrashing)]


def test_a_solve_into_thrashing_is_estimated_once_before_its_work(monkeypatch) -> None:
    from qmodel.scenario import compose

    estimates = []
    check = compose.refuse_huge

    def counted(scenario, distances, *rest):
        estimates.append(distances)
        check(scenario, distances, *rest)

    monkeypatch.setattr(compose, "refuse_huge", counted)
    result = solve_scenario(ENV3, np.array([20e3, 300e3]))  # the second thrashes: its load is searched
    assert result.thrashing.tolist() == [False, True] and estimates == [2]


def test_subchannel_delay_stays_finite_where_an_open_queue_would_be_unstable() -> None:
    # 1 subchannel per path: transactions and castout saturate G1P2→CF1 at 100 km (delayed ~100%):
    # Erlang C has no answer, the finite population of requesters does
    crowded = tuple(replace(p, subchannels=1) for p in ENV3.paths)
    busy = replace(ENV3, lockable_items=np.inf, paths=crowded)
    result = solve_scenario(busy, np.array([100e3]))
    for fraction in result.delayed_fraction.values():
        assert 0 <= fraction[0] <= 1
    assert result.delayed_fraction["G1P2→CF1"][0] > 0.99
    assert np.isfinite(result.response_time).all()


def test_a_background_load_no_path_can_carry_is_refused_with_the_most_it_carries() -> None:
    # castout alone beyond c / h requests per second at 0 km (issue 22: was reported carried at c / h):
    # G1P2→CF1 holds a subchannel 164 µs per request at 0 km, so one carries at most 6,108/s
    def crowded(factor: float) -> Scenario:
        return replace(
            ENV3,
            paths=tuple(
                replace(p, subchannels=1, background_rate=p.background_rate * factor) for p in ENV3.paths
            ),
        )

    with pytest.raises(
        InputError,
        match=r"path G1P2→CF1\.background_rate = 8060/s \(more than its 1 "
        r"subchannel carries, at most 6,10\d requests/s even at 0 km\)",
    ):
        solve_scenario(crowded(20), np.array([100e3, 200e3]))
    assert solve_scenario(crowded(5), np.array([0.0])).path_rate["G1P2→CF1"][0] > 2015


def test_a_path_carries_its_transactions_requests_and_its_background_load_below_saturation() -> None:
    # RMF AVG/SEC on a path: X × requests per transaction + castout, while the subchannels keep up;
    # a finite population carries a little less than that (requesters at the path do not request:
    # the share of the member's 100 terminals held there, under 3% with 7 subchannels)
    result = solve_scenario(ENV3, np.array([0.0, 40e3]))
    for path in ENV3.paths:
        member = result.members.index(path.member)
        requests = sum(
            count
            for name, count in ENV3.members[member].requests.items()
            if ENV3.structures[name].cf == path.cf
        )
        offered = result.throughput[member] * requests + path.background_rate
        carried = result.path_rate[f"{path.member}→{path.cf}"]
        assert (carried <= offered).all()
        assert (carried >= 0.97 * offered).all()


def test_saturated_subchannels_carry_no_more_than_they_can_serve() -> None:
    # one subchannel held 332 µs + one 1 ms round trip per async request at 100 km serves at most
    # 1 / 1.332 ms = 751 requests/s, however much the transactions offer with the castout (a castout
    # load alone beyond that is refused: test_a_background_load_no_path_can_carry_is_refused...)
    crowded = tuple(replace(p, subchannels=1) for p in ENV3.paths)
    nominal_fibre = replace(ENV3, fibre_speed=2e8)  # 10 us/km per round trip, as the constants say
    result = solve_scenario(replace(nominal_fibre, lockable_items=np.inf, paths=crowded), np.array([100e3]))
    assert result.path_rate["G1P2→CF1"][0] <= 1 / 1.332e-3
    assert result.path_rate["G1P2→CF1"][0] > 0.9 / 1.332e-3  # and it is kept busy


def test_the_largest_distance_keeping_the_goal_is_where_the_share_crosses_it() -> None:
    answer = max_distance(ENV2, upper=300e3)
    inside, outside = solve_scenario(
        ENV2, np.array([answer.distance * 0.999, answer.distance * 1.01])
    ).share_within_goal.min(axis=0)
    assert inside >= ENV2.goal_share > outside
    assert answer.member in {m.name for m in ENV2.members}


def test_a_goal_met_everywhere_says_so() -> None:
    easy = replace(ENV2, goal_time=10.0)
    answer = max_distance(easy, upper=50e3)
    assert answer.member == "" and answer.distance == pytest.approx(50e3)


@settings(max_examples=20)
@given(st.floats(0, 200e3))
def test_cpu_busy_is_throughput_times_cpu_over_the_cps(distance) -> None:
    result = solve_scenario(ENV2, np.array([distance]))
    cps = np.array([m.logical_cps for m in ENV2.members])
    expected = result.throughput[:, 0] * result.cpu_per_transaction[:, 0] / cps
    assert np.allclose(result.cpu_busy[:, 0], expected)


def test_the_registry_gives_casebooks_one_members_value_at_one_distance() -> None:
    import qmodel.validation.quantities  # noqa: F401 - registers the scenario function with the registry

    values = call("scenario", {"scenario": "gdps-env2", "member": "G1P1", "distance": "40km"})
    direct = solve_scenario(ENV2, np.array([40e3]))
    assert values["response_time"] == pytest.approx(direct.response_time[0, 0])
    assert values["transactions"] == pytest.approx(direct.throughput[0, 0] * 300)


def test_the_terminal_step_gives_what_the_network_engine_gives_for_the_same_closed_network() -> None:
    # members as classes of terminals with think times, each member's CPs an 8-server station, the
    # rest of its response time a delay: qmodel.networks.solve on that network must agree with the
    # scenario's vectorised terminal step (no lock contention, so nothing else depends on R). A sync CF
    # request's spin is CP service in the network and cf_sync time in the breakdown: counted once
    from qmodel.networks import network, solve
    from qmodel.scenario.compose import fixed_parts

    scenario = replace(ENV2, lockable_items=np.inf)
    result = solve_scenario(scenario, np.array([40e3]))
    cpu = result.cpu_per_transaction[:, 0]
    spin = fixed_parts(scenario, result.distances).spin[:, 0]
    elsewhere = result.response_time[:, 0] - result.breakdown["cpu"][:, 0] - spin
    net = network(
        [[cpu[0], 0.0, elsewhere[0]], [0.0, cpu[1], elsewhere[1]]],
        servers=[m.logical_cps for m in scenario.members] + ["delay"],
        population=[m.terminals for m in scenario.members],
        think_time=[m.think_time for m in scenario.members],
    )
    engine = solve(net, method="linearizer")
    assert engine.throughput == pytest.approx(result.throughput[:, 0], rel=5e-4)
    assert engine.response_time == pytest.approx(result.response_time[:, 0], rel=5e-4)


def _with_volumes(volumes: int, aliases: int, background: float):
    plain = replace(ENV2.read, iosq=0.0)
    return replace(
        ENV2,
        volumes=volumes,
        aliases=aliases,
        disk_background=background,
        read=plain,
        write=replace(ENV2.write, iosq=0.0),
        lockable_items=np.inf,
        fibre_speed=2e8,
    )  # 10 us/km per round trip: the write service the rates below assume


def test_a_synchronous_cf_request_is_waited_for_once_though_its_spin_keeps_the_cp_busy() -> None:
    # one terminal (no queueing), nothing converted, no contention, no mirroring: from 0 to 10 km the
    # CPU part of the response time stays as it was (the requests' growth is in cf_sync and commit),
    # while the CPU a transaction uses grows by the spin of its requests
    from qmodel.scenario.compose import fixed_parts

    alone = replace(
        ENV3,
        members=tuple(replace(m, terminals=1) for m in ENV3.members),
        threshold=1.0,
        links={name: {**link, "converted": {}} for name, link in ENV3.links.items()},
        lockable_items=np.inf,
        metro_mirror=False,
    )
    distances = np.array([0.0, 10e3])
    result = solve_scenario(alone, distances)
    fixed = fixed_parts(alone, distances)
    assert np.diff(result.breakdown["cpu"])[:, 0] == pytest.approx([0.0, 0.0], abs=1e-12)
    assert np.diff(result.cpu_per_transaction)[:, 0] == pytest.approx(np.diff(fixed.spin)[:, 0], rel=1e-12)
    assert (np.diff(fixed.spin)[:, 0] > 0).any()


def test_pav_aliases_take_iosq_away() -> None:
    # the study's Environment 1 -> 2 remark: heavier PAV use removed the IOSQ on the read volumes
    no_pav, pav = (solve_scenario(_with_volumes(2, aliases, 400.0), np.array([0.0])) for aliases in (0, 3))
    assert (pav.breakdown["sync_io"] < no_pav.breakdown["sync_io"]).all()


def test_iosq_grows_with_distance_as_mirrored_writes_hold_the_volumes_longer() -> None:
    result = solve_scenario(_with_volumes(2, 0, 400.0), np.array([0.0, 100e3]))
    queueing = (
        result.breakdown["sync_io"]
        - solve_scenario(_with_volumes(10_000, 0, 0.0), np.array([0.0, 100e3])).breakdown["sync_io"]
    )
    assert (queueing[:, 1] > queueing[:, 0]).all()


def test_volumes_their_other_work_alone_saturates_are_reported_not_given_a_number() -> None:
    result = solve_scenario(_with_volumes(1, 0, 5000.0), np.array([0.0]))
    assert result.thrashing[0] and result.disk_saturated[0]
    assert np.isnan(result.response_time[:, 0]).all()


def _volume_utilization(scenario, result) -> np.ndarray:
    """Busy exposures per volume (of 1 + aliases) from the result's throughput: the utilization law."""
    from qmodel.scenario.compose import fixed_parts

    fixed = fixed_parts(scenario, result.distances)
    other_work = scenario.disk_background * fixed.write_service
    return ((result.throughput * fixed.device_busy).sum(axis=0) + other_work) / scenario.volumes


def test_volumes_the_transactions_would_saturate_slow_them_to_what_the_volumes_carry() -> None:
    # 3000 SSCH/s of other work keep the 2 volumes 97.5% busy at 0 km: at the terminals' unhindered
    # rate the transactions' I/O would saturate them, so IOSQ grows until the terminals slow down
    crowded = _with_volumes(2, 0, 3000.0)
    result = solve_scenario(crowded, np.array([0.0]))
    assert not result.thrashing[0]
    assert 0.975 < _volume_utilization(crowded, result)[0] < 1
    assert (result.response_time[:, 0] > 1.0).all()  # seconds, not milliseconds: the queue shows


def test_more_other_work_on_the_volumes_lengthens_the_response_time() -> None:
    responses = [
        solve_scenario(_with_volumes(2, 0, background), np.array([40e3])).response_time[:, 0]
        for background in (0.0, 800.0, 1500.0, 1850.0, 1890.0)
    ]  # 1905/s saturates
    assert (np.diff(np.array(responses), axis=0) > 0).all()


def test_the_disk_queue_is_in_balance_with_the_throughput_it_leaves() -> None:
    # IOSQ per SSCH read back from the breakdown equals pav_iosq at the volumes' load from the result's X
    crowded = _with_volumes(2, 0, 1850.0)
    result = solve_scenario(crowded, np.array([40e3]))
    unqueued = solve_scenario(_with_volumes(10**9, 0, 0.0), np.array([40e3]))
    reads = np.array([m.sync_reads for m in crowded.members])
    iosq = (result.breakdown["sync_io"] - unqueued.breakdown["sync_io"])[:, 0] / reads
    from qmodel.scenario.compose import fixed_parts, volume_iosq

    expected = volume_iosq(crowded, fixed_parts(crowded, result.distances), result.throughput)[0]
    assert iosq == pytest.approx([expected, expected], rel=1e-6)


def test_no_redispatch_wait_explains_g1p2_at_20_km_without_breaking_the_0_km_row() -> None:
    # the e2e casebook's note on e2e-env3-g1p2-response-20km: the longest wait the 0 km rows take
    # (G1P2 converts most of its GBP requests already at 0 km) falls short of the printed 125 ms
    # falls short of the printed 125 ms; the reach it names is the model's at the wait it names
    from qmodel.errors import InputError
    from qmodel.scenario.calibrate import fit_other, fit_redispatch
    from qmodel.scenario.overrides import with_values

    base = {"G1P1": 0.043, "G1P2": 0.045}
    with pytest.raises(InputError, match="no redispatch wait reaches it") as refused:
        fit_redispatch(ENV3, 0.0, base, 20e3, "G1P2", 0.125)
    found = re.search(r"at most ([\d.]+) ms \(redispatch ([\d.]+) us, the longest wait", str(refused.value))
    assert found
    reached, wait = float(found[1]) * 1e-3, float(found[2]) * 1e-6  # both printed to 4 digits

    def trial(redispatch: float):
        return fit_other(with_values(ENV3, {"conversion.redispatch": redispatch}), 0.0, base)

    with pytest.raises(InputError, match="other would be negative"):
        trial(wait * (1 + 5e-4))  # a longer wait breaks the 0 km rows
    longest = trial(wait * (1 - 5e-4))
    g1p2 = solve_scenario(longest, np.array([20e3])).response_time[1, 0]
    assert g1p2 == pytest.approx(reached, abs=0.06e-3) and reached < 0.125


def test_a_huge_terminal_population_is_refused_before_any_work_with_its_estimate() -> None:
    from qmodel.errors import InputError

    crowd = replace(ENV2, members=tuple(replace(m, terminals=10**9) for m in ENV2.members))
    with pytest.raises(InputError, match=r"about \d.* GB and .*fewer terminals per member") as refused:
        solve_scenario(crowd, np.array([20e3]))
    assert "1,000,000,000 terminals per member" in str(refused.value)


def test_the_page_writes_a_secondary_duplexes_are_commit_time_with_their_primary_write() -> None:
    # Environment 3: "The UPDATE COMMIT portion is due to ... the Group buffer pool duplexing effect ... [and]
    # since the Primary group buffer pool structure is located in Site1, the delay to access it from G1P2
    # is bigger": G1P2's duplexed writes (GBPS, 78% waited) each pay a round trip to CF1 at commit
    g1p2 = ENV3.member("G1P2")
    result = solve_scenario(ENV3, np.array([100e3]))
    m = result.members.index("G1P2")
    duplexed = g1p2.tpno_share * g1p2.requests["GBPS"] * 1e-3  # one 1 ms round trip each at 100 km
    assert result.breakdown["commit"][m, 0] > duplexed


@pytest.mark.parametrize("distances", [[], [-1.0], [np.nan], [[0.0, 1.0]]])
def test_distances_that_are_none_negative_or_not_a_list_are_refused_by_name(distances) -> None:
    from qmodel.errors import InputError

    with pytest.raises(InputError, match=r"distances = .*allowed: one or more finite distances >= 0"):
        solve_scenario(ENV2, distances)


def test_the_lock_fit_rests_on_every_environment_3_row_above_0_km_and_no_other_environment() -> None:
    from qmodel.scenario.calibrate import LOCK_ROWS, PREDICTION_ROWS

    assert {row.scenario for row in LOCK_ROWS} == {"gdps-env3"}
    assert sorted((r.member, r.quantity, r.km) for r in LOCK_ROWS) == sorted(
        (member, quantity, km)
        for member in ("G1P1", "G1P2")
        for quantity in ("response", "transactions")
        for km in (20, 40, 70, 100)
    )
    assert {row.scenario for row in PREDICTION_ROWS} == {"gdps-env1", "gdps-env2"}
    assert min(row.km for row in PREDICTION_ROWS) > 0  # 0 km rows calibrate other and think time


def test_a_thrashing_row_weighs_in_the_fit_as_100_percent_off_in_its_direction() -> None:
    from qmodel.scenario.calibrate import SIGMA, Row, weighted_residuals

    rows = (
        Row("gdps-env3", "G1P1", 70, "response", 100.0),
        Row("gdps-env3", "G1P1", 70, "transactions", 3381.0),
    )
    residuals = weighted_residuals(rows, np.array([np.nan, np.nan]))
    assert residuals == pytest.approx([1 / SIGMA["response"], -1 / SIGMA["transactions"]])
    assert weighted_residuals(rows, np.array([110.0, 3381.0])) == pytest.approx([1.0, 0.0])


def test_the_band_points_of_one_fitted_parameter_are_its_sigma_points() -> None:
    """The fit itself (weight 2/3) and ±√3 standard errors on the scale it is fitted on (1/6 each)."""
    from qmodel.scenario.calibrate import LockFit

    fit = LockFit(
        ("lockable_items",), np.array([np.log(4000.0)]), np.array([[0.09]]), np.zeros(1), np.zeros(1), ENV3
    )
    points = sorted((point["lockable_items"], weight) for point, weight in fit.band_points())
    assert [weight for _, weight in points] == pytest.approx([1 / 6, 2 / 3, 1 / 6])
    expected = 4000.0 * np.exp(np.array([-1, 0, 1]) * 0.3 * 3**0.5)  # standard error √0.09 = 0.3
    assert [value for value, _ in points] == pytest.approx(expected)


ENV1 = load_scenario(resolve_scenario("gdps-env1"))


@settings(max_examples=15, deadline=None)
@given(km=st.floats(0, 300), coefficient=st.floats(0, 1))
def test_the_castout_owner_alone_queues_its_reads_behind_its_castout_writes(
    km: float, coefficient: float
) -> None:
    # IOSQ per read = castout_iosq × the owner's castout write response (its 0 km RMF times, Metro
    # Mirror cost and the distance's round trip); the other member's reads do not queue
    scenario = replace(ENV1, lockable_items=np.inf, castout_iosq=coefficient)
    without = replace(scenario, castout_owner=None)
    d = np.array([km * 1e3])
    with_queue, without_queue = (solve_scenario(s, d).breakdown["sync_io"] for s in (scenario, without))
    gained = with_queue - without_queue
    write = ENV1.castout_write
    mirror = ENV1.pprc_overhead + 2 * km * 1e3 / ENV1.fibre_speed  # one round trip to the secondary
    response = write.conn + write.disc + write.pend + write.iosq + mirror
    owner = [m.name for m in ENV1.members].index(ENV1.castout_owner)
    reads = ENV1.members[owner].sync_reads
    assert gained[owner, 0] == pytest.approx(reads * coefficient * response, rel=1e-9, abs=1e-15)
    assert gained[1 - owner, 0] == 0


def test_the_castout_coefficient_rests_on_both_rows_with_nothing_at_a_distance() -> None:
    from qmodel.scenario.calibrate import CASTOUT_ROWS, fit_castout_iosq

    c, se, residuals = fit_castout_iosq()
    assert c == pytest.approx(0.42 / 1.8) and len(residuals) == len(CASTOUT_ROWS) == 2
    assert c == pytest.approx(ENV1.castout_iosq, rel=1e-3)  # the file carries the fit
    assert 0 < se < c / 2  # its 95% interval spans less than a factor 2 (not weakly identified)


def test_a_castout_owner_beside_computed_iosq_or_not_a_member_is_refused(tmp_path) -> None:
    from qmodel.errors import InputError

    text = resolve_scenario("gdps-env1").read_text(encoding="utf-8")
    owner = 'castout_owner = "G1P1"'
    for change, message in (
        ((owner, 'castout_owner = "G1P9"'), "disk.castout_owner = G1P9"),
        ((owner, owner + "\nvolumes = 40"), "disk.castout_owner = G1P1"),
    ):
        path = tmp_path / "broken.toml"
        path.write_text(text.replace(*change).replace('iosq = "0.1ms" }', 'iosq = "0ms" }'), encoding="utf-8")
        with pytest.raises(InputError, match=message):
            load_scenario(path)


@settings(max_examples=200, deadline=None)
@given(
    value=st.floats(-1e6, 1e6, allow_nan=False),
    scale=st.floats(0, 1e6, allow_nan=False),
)
def test_a_value_is_printed_0_exactly_where_it_is_below_the_solves_precision_of_its_scale(
    value, scale
) -> None:
    shown = float(resolved(np.array(value), scale))
    assert shown == (0.0 if abs(value) < RESOLVED * scale else value)
    assert RESOLVED == TOLERANCE  # the lock fixed point's relative step, the solve's precision


def test_the_records_print_0_for_what_the_solve_does_not_resolve_and_keep_what_it_does() -> None:
    """Environment 3 at 0 km: the Erlang C delay of G1P1's lightly loaded subchannels is far below 1e-9 of
    its response time and of its requests, and prints 0; G1P2's delay for CF1 (2.4e-8) and G1P1's
    cf_async (7.6e-7 of its response time) are above it and print as computed. With a conversion
    threshold three times the file's, the conversion estimate's tail (cf_async, converted CF requests)
    falls below it too, and prints 0."""
    result = solve_scenario(ENV3, np.array([0.0]))
    g1p1, g1p2 = result.records()[:2]
    assert 0 < result.breakdown["subchannel_wait"][0, 0] < RESOLVED * result.response_time[0, 0]
    assert 0 < result.delayed_fraction["G1P1→CF1"][0] < RESOLVED
    assert g1p1["subchannel_wait[ms]"] == g1p1["CF1_delayed[%]"] == 0.0
    assert g1p2["CF1_delayed[%]"] == pytest.approx(result.delayed_fraction["G1P2→CF1"][0] * 100, rel=1e-12)
    assert g1p2["CF1_delayed[%]"] > 0
    assert g1p1["cf_async[ms]"] == pytest.approx(result.breakdown["cf_async"][0, 0] * 1e3, rel=1e-12)
    assert g1p1["cf_async[ms]"] > 0
    later = solve_scenario(replace(ENV3, threshold=3 * ENV3.threshold), np.array([0.0]))
    requests = later.path_rate["G1P1→CF1"] + later.path_rate["G1P1→CF2"]
    assert 0 < later.breakdown["cf_async"][0, 0] < RESOLVED * later.response_time[0, 0]
    assert 0 < later.converted_rate[0, 0] < RESOLVED * requests[0]
    assert later.records()[0]["cf_async[ms]"] == later.records()[0]["converted_cf_requests[1/s]"] == 0.0


def test_async_cpu_is_charged_on_the_asynchronous_requests_a_transaction_waits_for() -> None:
    """Trial 9, Q14: conversion.async_cpu (the keys table's words) is charged per transaction on the
    tpno_share of its converted requests and of its group buffer pool secondary writes (every one
    asynchronous), not on every converted request: two routes to the CPU it adds agree."""
    from qmodel.scenario.compose import fixed_parts

    scenario = load_scenario("gdps-env3")
    distances = np.array([0.0, 40e3, 100e3])
    charged = {a: fixed_parts(replace(scenario, async_cpu=a), distances) for a in (0.0, 100e-6)}
    added = charged[100e-6].cpu - charged[0.0].cpu
    for m, member in enumerate(scenario.members):
        secondary = sum(count for name, count in member.requests.items() if scenario.structures[name].primary)
        converted = charged[0.0].converted_rate[m]
        assert secondary > 0 and converted[-1] > 0
        assert added[m] == pytest.approx(100e-6 * member.tpno_share * (converted + secondary), rel=1e-9)
