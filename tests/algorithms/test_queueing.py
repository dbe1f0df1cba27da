"""The stable recursions against values worked by hand and against each other."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmodel.algorithms.queueing import (
    RECURSION_LIMIT,
    STATES_PER_BLOCK,
    _erlang_b_large,
    _erlang_b_recursion,
    erlang_b,
    erlang_c,
    erlang_cdf,
    finite_source_queue,
    gamma_cdf,
    mmck_blocking,
    mmck_mean_number,
    mmck_mean_queue,
    power_knee,
)
from qmodel.errors import InputError


def test_erlang_b_one_server_one_erlang_is_one_half() -> None:
    assert float(erlang_b(1, 1.0)) == pytest.approx(0.5)


def test_erlang_c_two_servers_one_erlang_is_one_third() -> None:
    # C(2, 1): B(2, 1) = 1/5, C = 2·(1/5) / (2 − 1·(4/5)) = 1/3
    assert float(erlang_c(2, 1.0)) == pytest.approx(1 / 3)


def test_erlang_c_one_server_is_the_utilization() -> None:
    loads = np.linspace(0.0, 0.99, 12)
    assert np.allclose(erlang_c(1, loads), loads)


def test_erlang_b_does_not_overflow_for_many_servers() -> None:
    value = float(erlang_b(100_000, 99_000.0))
    assert 0.0 < value < 1.0


def test_erlang_b_is_zero_for_zero_load() -> None:
    assert float(erlang_b(5, 0.0)) == 0.0


def test_recursions_broadcast_over_mixed_server_counts() -> None:
    servers = np.array([1, 2, 8])
    together = erlang_c(servers, 0.5)
    one_by_one = [float(erlang_c(c, 0.5)) for c in servers]
    assert np.allclose(together, one_by_one, rtol=1e-15)


def test_mmck_with_no_waiting_room_is_erlang_b() -> None:
    assert float(mmck_blocking(4, 4, 3.0)) == pytest.approx(float(erlang_b(4, 3.0)), rel=1e-14)


def test_mmck_with_huge_room_approaches_mmc() -> None:
    # M/M/2, a = 1: Lq = C·a/(c − a) = 1/3
    assert float(mmck_mean_queue(2, 2_000, 1.0)) == pytest.approx(1 / 3, rel=1e-12)
    assert float(mmck_mean_number(2, 2_000, 1.0)) == pytest.approx(4 / 3, rel=1e-12)


def test_mmck_survives_loads_far_above_capacity() -> None:
    blocking = float(mmck_blocking(2, 5_000, 50.0))
    assert blocking == pytest.approx(1 - 2 / 50, rel=1e-12)


@given(st.integers(1, 30), st.integers(0, 30), st.floats(0.0, 60.0))
def test_mmck_state_probabilities_are_consistent(servers, room, load) -> None:
    capacity = servers + room
    blocking = float(mmck_blocking(servers, capacity, load))
    number = float(mmck_mean_number(servers, capacity, load))
    queue = float(mmck_mean_queue(servers, capacity, load))
    assert 0.0 <= blocking <= 1.0
    assert 0.0 <= queue <= number <= capacity
    # L = Lq + carried load (Little's law at the servers)
    assert number == pytest.approx(queue + load * (1 - blocking), rel=1e-9, abs=1e-12)


def _machine_repair_by_enumeration(servers: int, sources: int, ratio: float):
    """The M/M/c//K chain solved directly (exact rationals would do; floats suffice at these sizes)."""
    weights = [
        math.perm(sources, j) * ratio**j / (math.factorial(min(j, servers)) * servers ** max(j - servers, 0))
        for j in range(sources + 1)
    ]
    total = sum(weights)
    return [w / total for w in weights]


@given(st.integers(1, 8), st.integers(1, 40), st.floats(1e-3, 5.0))
def test_finite_source_queue_agrees_with_its_chain_enumerated(servers, sources, ratio) -> None:
    wait, waiting, utilization = finite_source_queue(servers, sources, ratio)
    p = _machine_repair_by_enumeration(servers, sources, ratio)
    before = _machine_repair_by_enumeration(servers, sources - 1, ratio) if sources > 1 else [1.0]
    assert float(wait) == pytest.approx(sum(before[servers:]), rel=1e-9, abs=1e-300)
    assert float(waiting) == pytest.approx(
        sum((j - servers) * q for j, q in enumerate(p) if j > servers), rel=1e-9, abs=1e-300
    )
    assert float(utilization) == pytest.approx(
        sum(min(j, servers) * q for j, q in enumerate(p)) / servers, rel=1e-9
    )


def _machine_repair_over_every_state(servers: int, sources: int, ratio: float) -> tuple[float, float, float]:
    """(wait, waiting, utilization) of M/M/c//K from the log weights of every one of its K + 1 states
    (math.lgamma: no factorial overflows), normalised by the largest: no state left out."""
    j = np.arange(sources + 1)
    log_w = np.array(
        [
            math.lgamma(sources + 1)
            - math.lgamma(sources - k + 1)
            + k * math.log(ratio)
            - math.lgamma(min(k, servers) + 1)
            - max(k - servers, 0) * math.log(servers)
            for k in j
        ]
    )
    w = np.exp(log_w - log_w.max())
    p = w / w.sum()
    fewer = w * (sources - j)
    wait = fewer[j >= servers].sum() / fewer.sum()
    return (
        float(wait),
        float((np.maximum(j - servers, 0) * p).sum()),
        float((np.minimum(j, servers) * p).sum() / servers),
    )


@pytest.mark.parametrize(
    "servers, sources, ratio",
    [(8, 2400, 5e-5), (8, 2400, 0.004), (8, 2400, 0.0033), (2, 5000, 1e-3), (16, 1800, 0.02), (4, 300, 1e-7)],
)
def test_finite_source_queue_with_many_sources_weighs_only_the_states_that_count(
    servers, sources, ratio
) -> None:
    """Past its largest weight the states are weighed only until they fall e^50 below it (the rest add
    under 10^-17 of every sum): the same answer as every state of the chain weighed, light load or near
    the servers' saturation (2,400 terminals on 8 subchannels: 9.6 Erlangs offered at r = 0.004)."""
    found = finite_source_queue(servers, sources, ratio)
    for value, expected in zip(found, _machine_repair_over_every_state(servers, sources, ratio), strict=True):
        assert float(value) == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_finite_source_queue_over_many_blocks_gives_each_element_its_own_answer() -> None:
    rng = np.random.default_rng(7)
    count = 3 * STATES_PER_BLOCK // 101 + 17  # K = 100: four blocks, the last one partial
    servers = rng.integers(1, 9, count).astype(float)
    sources = rng.integers(1, 101, count).astype(float)
    ratio = rng.uniform(0.001, 2.0, count)
    together = finite_source_queue(servers.reshape(-1, 1), sources.reshape(-1, 1), ratio.reshape(-1, 1))
    for index in (0, count // 3, 2 * count // 3 + 1, count - 1):
        alone = finite_source_queue(servers[index], sources[index], ratio[index])
        for whole, single in zip(together, alone, strict=True):
            assert whole.shape == (count, 1) and whole[index, 0] == pytest.approx(float(single), rel=1e-12)


def test_finite_source_queue_with_many_sources_is_erlang_c() -> None:
    # K sources with per-source load a/K → the open M/M/c queue with load a (Kleinrock 1975, §3.9)
    wait, _, _ = finite_source_queue(2, 100_000, 1.2 / 100_000)
    assert float(wait) == pytest.approx(float(erlang_c(2, 1.2)), rel=1e-4)


@given(st.integers(1, 6), st.floats(0.1, 100.0))
def test_finite_source_delay_stays_below_one_where_erlang_c_is_unstable(servers, overload) -> None:
    # offered load servers × (1 + overload): an open queue would grow without bound
    sources = 20
    wait, waiting, utilization = finite_source_queue(servers, sources, servers * (1 + overload) / sources)
    assert 0 <= float(wait) <= 1 and float(waiting) < sources and float(utilization) <= 1 + 1e-12


@given(st.integers(1, 60), st.floats(0, 200))
def test_erlang_cdf_agrees_with_the_regularised_incomplete_gamma(shape, x) -> None:
    import mpmath

    with mpmath.workdps(50):
        exact = mpmath.gammainc(shape, 0, x, regularized=True)
    assert float(erlang_cdf(shape, x)) == pytest.approx(float(exact), rel=1e-9, abs=1e-300)


def _erlang_b_exact(servers: int, load: float) -> float:
    """B(c, a) by the recursion 1/B(k) = 1 + (k/a)·1/B(k−1), 1/B(0) = 1, at 50 digits (mpmath): exact
    arithmetic where qmodel's own recursion stops (past it qmodel takes a closed form). The incomplete
    gamma form of the same number did not converge in mpmath for some loads past 16,000 servers."""
    import mpmath

    with mpmath.workdps(50):
        a, inverse = mpmath.mpf(load), mpmath.mpf(1)
        for k in range(1, servers + 1):
            inverse = 1 + k / a * inverse
        return float(1 / inverse)


@settings(max_examples=25)  # each reference is up to 20,000 steps at 50 digits
@given(st.integers(RECURSION_LIMIT + 1, 20 * RECURSION_LIMIT), st.floats(0.01, 3.0))
def test_erlang_b_past_the_recursion_agrees_with_50_digits(servers, load_per_server) -> None:
    load = servers * load_per_server
    assert float(erlang_b(servers, load)) == pytest.approx(_erlang_b_exact(servers, load), rel=1e-9)


@pytest.mark.parametrize("load_per_server", [0.5, 0.99, 1.0, 1.01, 1.3, 4.0])
def test_erlang_b_closed_form_and_recursion_agree_where_they_meet(load_per_server) -> None:
    servers = np.array([float(RECURSION_LIMIT)])
    load = servers * load_per_server
    assert float(_erlang_b_large(servers, load)[0]) == pytest.approx(
        float(_erlang_b_recursion(servers, load)[0]), rel=1e-10
    )


def test_erlang_c_for_a_billion_servers_is_answered_from_the_closed_form() -> None:
    # Halfin-Whitt (1981): for c → ∞ at a = c − β√c, C → (1 + β·Φ(β)/φ(β))⁻¹, within O(1/√c)
    servers, beta = 1e9, 1.0
    normal_cdf = (1 + math.erf(beta / math.sqrt(2))) / 2
    normal_pdf = math.exp(-(beta**2) / 2) / math.sqrt(2 * math.pi)
    limit = 1 / (1 + beta * normal_cdf / normal_pdf)  # 0.2234
    assert float(erlang_c(servers, servers - beta * np.sqrt(servers))) == pytest.approx(limit, abs=1e-4)
    assert 0.3333 < float(erlang_b(servers, 1.5 * servers)) < 0.33334  # B → 1 − c/a for a ≫ c


@pytest.mark.parametrize(
    "shape, x", [(1000, 900.0), (1000, 1100.0), (5, 800.0), (2000, 1900.0), (10**5, 100_300.0)]
)
def test_erlang_cdf_where_the_series_underflows_or_is_too_long(shape, x) -> None:
    import mpmath

    with mpmath.workdps(50):
        exact = mpmath.gammainc(shape, 0, x, regularized=True)
    assert float(erlang_cdf(shape, x)) == pytest.approx(float(exact), rel=1e-9, abs=1e-300)


def test_a_mmck_chain_too_long_to_walk_is_refused_with_its_estimate() -> None:
    with pytest.raises(InputError, match=r"capacity = about .* hours \(too large to compute\)"):
        mmck_blocking(2, 1e9, 1.0)


@given(st.floats(0.01, 60).filter(lambda a: a != round(a)), st.floats(0, 300))
def test_gamma_cdf_of_a_shape_not_whole_agrees_with_the_regularised_incomplete_gamma(shape, x) -> None:
    import mpmath

    with mpmath.workdps(50):
        exact = mpmath.gammainc(shape, 0, x, regularized=True)
    assert float(gamma_cdf(shape, x)) == pytest.approx(float(exact), rel=1e-9, abs=1e-300)


@given(st.integers(1, 200), st.lists(st.floats(0, 1000), min_size=1, max_size=8))
def test_gamma_cdf_of_a_whole_shape_is_exactly_erlang_k(shape, x) -> None:
    assert np.array_equal(gamma_cdf(shape, x), erlang_cdf(shape, x))


def test_gamma_cdf_past_the_recursion_limit_agrees_with_50_digits() -> None:
    import mpmath

    shape, x = RECURSION_LIMIT + 0.5, np.array([900.0, RECURSION_LIMIT, 1100.0])
    with mpmath.workdps(50):
        exact = [float(mpmath.gammainc(shape, 0, v, regularized=True)) for v in x]
    assert gamma_cdf(shape, x) == pytest.approx(exact, rel=1e-9)


def test_gamma_cdf_of_shape_one_half_is_erf_of_the_root() -> None:
    # P(1/2, x) = erf(√x) (Abramowitz and Stegun 6.5.17 with 7.1.1): the chi-square with one degree
    x = np.array([0.0, 1e-8, 0.3, 1.5, 4.0, 30.0])
    assert gamma_cdf(0.5, x) == pytest.approx([math.erf(math.sqrt(v)) for v in x], rel=1e-13)


@given(
    st.lists(
        st.tuples(st.floats(0.05, 50).filter(lambda a: a != round(a)), st.floats(0, 200)),
        min_size=2,
        max_size=6,
    )
)
def test_gamma_cdf_of_each_element_does_not_depend_on_the_others_in_the_array(pairs) -> None:
    shape, x = np.array(pairs).T
    together = gamma_cdf(shape, x)
    assert np.array_equal(together, [float(gamma_cdf(a, v)) for a, v in pairs])


@given(service=st.floats(1e-4, 10.0), points=st.integers(41, 400))
def test_the_knee_of_an_mm1_curve_is_at_half_load(service: float, points: int) -> None:
    """Power λ/R = λ(1 − λS)/S is greatest at λS = 1/2, where R = 2S (Kleinrock 1979): the knee of a
    swept M/M/1 curve is the point nearest half load."""
    rates = np.linspace(0.01, 0.99, points) / service
    at = power_knee(rates, service / (1 - rates * service))
    assert abs(rates[at] * service - 0.5) <= 0.98 / (points - 1) / 2 + 1e-12


def test_the_knee_leaves_out_points_with_no_response_time_and_says_none_where_there_is_none() -> None:
    assert power_knee([100, 500, 900, 1200], [1.1, 2.0, 10.0, np.inf]) == 1
    assert power_knee([1, 2], [np.nan, -1.0]) is None
