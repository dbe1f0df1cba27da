"""The normalizing constant and marginal probabilities (method convolution): Bolch et al.'s example, exact
MVA and the Markov chain as second routes, and a constant far past what a float holds."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from network_strategies import multi_class_networks

from qmodel.errors import InputError
from qmodel.networks import network, solve


@pytest.mark.parametrize(("population", "printed"), [(1, 2.861), (2, 4.218), (3, 4.465)])
def test_bolch_example_8_1_normalizing_constants(population, printed) -> None:
    # Bolch, Greiner, de Meer & Trivedi (2006), example 8.1 p. 318 (as transcribed in Octave's qncsconv.m):
    # S = (1/0.8, 1/0.6, 1/0.4), V = (1, .667, .2), m = (2, 3, 1); G(1..3) printed to 3 decimals (the
    # book's visits are 2/3, Octave's .667: within 5e-3 as Octave's test)
    net = network(
        [1 / 0.8, 1 / 0.6, 1 / 0.4], visits=[1, 0.667, 0.2], servers=[2, 3, 1], population=population
    )
    assert math.exp(solve(net, "convolution").log_normalizing_constant) == pytest.approx(printed, abs=5e-3)


def test_bolch_example_8_1_means() -> None:
    net = network([1 / 0.8, 1 / 0.6, 1 / 0.4], visits=[1, 0.667, 0.2], servers=[2, 3, 1], population=3)
    result = solve(net, "convolution")
    assert result.station_throughput[0] == pytest.approx([0.945, 0.630, 0.189], abs=1e-3)
    assert result.utilization[0] == pytest.approx([0.590, 0.350, 0.473], abs=1e-3)
    assert result.queue_length[0] == pytest.approx([1.290, 1.050, 0.660], abs=1e-3)
    assert result.per_visit_time[0] == pytest.approx([1.366, 1.667, 3.496], abs=1e-3)


@given(multi_class_networks(max_classes=3, max_population=4, load_dependent=True))
@settings(max_examples=40, deadline=None)
def test_convolution_and_exact_mva_are_two_routes_to_the_same_means(net) -> None:
    by_constant, by_mva = solve(net, "convolution"), solve(net)
    assert by_constant.throughput == pytest.approx(by_mva.throughput, rel=1e-10)
    assert by_constant.queue_length == pytest.approx(by_mva.queue_length, rel=1e-9, abs=1e-12)
    assert by_constant.utilization == pytest.approx(by_mva.utilization, rel=1e-9, abs=1e-12)
    jobs = np.arange(by_constant.marginals.shape[1])
    assert by_constant.marginals.sum(axis=1) == pytest.approx(1.0, rel=1e-12)
    assert by_constant.marginals @ jobs == pytest.approx(
        by_constant.queue_length.sum(axis=0), rel=1e-9, abs=1e-12
    )


def test_marginals_agree_with_the_markov_chain() -> None:
    """Two classes, a 2-server station, an ld station and a delay: the chain's state probabilities summed
    by the jobs at a station are the convolution's marginals."""
    net = network(
        [[0.3, 0.5, 1.0], [0.6, 0.2, 2.0]],
        servers=[2, 1, "delay"],
        rates=[None, [1, 1.6], None],
        population=[2, 2],
    )
    chain = solve(net, "ctmc")
    constant = solve(net, "convolution")
    assert constant.marginals == pytest.approx(chain.marginals, rel=1e-9, abs=1e-14)
    assert constant.queue_length == pytest.approx(chain.queue_length, rel=1e-9)


def test_the_constant_of_two_thousand_jobs_is_kept_in_logarithms() -> None:
    """Two queues of demand 2 s and 1 s: G(N) = Σ_j 2^j 1^(N−j) = 2^(N+1) − 1, about 10^602 at N = 2000
    (a float holds up to 10^308)."""
    result = solve(network([2.0, 1.0], population=2000), "convolution")
    assert result.log_normalizing_constant == pytest.approx(2001 * math.log(2), rel=1e-12)
    assert result.marginals[1, :4] == pytest.approx([0.5, 0.25, 0.125, 0.0625], rel=1e-9)


def test_open_and_non_product_form_networks_are_refused() -> None:
    with pytest.raises(InputError, match="open classes"):
        solve(network([1.0], arrival_rate=0.5), "convolution")
    with pytest.raises(InputError, match="priority"):
        solve(
            network([[1.0], [2.0]], population=[1, 1], scheduling=["priority"], priority=[1, 2]),
            "convolution",
        )


def test_a_lattice_too_large_is_refused_with_its_estimate() -> None:
    with pytest.raises(InputError, match="too large to compute"):
        solve(network([[1.0, 2.0]] * 3, population=[300, 300, 300]), "convolution")
