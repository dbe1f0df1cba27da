"""Multi-class balanced system and composite bounds: they hold on every network, and tighten the asymptotic
ones."""

import numpy as np
from hypothesis import given, settings
from network_strategies import multi_class_networks

from qmodel.networks import network, solve
from qmodel.networks.bounds import class_bounds
from qmodel.networks.composite import composite_bounds


@given(multi_class_networks(max_classes=3, max_population=6, load_dependent=True))
@settings(max_examples=80, deadline=None)
def test_the_bounds_hold(net) -> None:
    exact = solve(net)
    bounds = composite_bounds(net, net.populations)
    closed = net.populations > 0
    assert np.all(bounds.throughput_lower[closed] <= exact.throughput[closed] * (1 + 1e-12))
    assert np.all(exact.throughput[closed] <= bounds.throughput_upper[closed] * (1 + 1e-12))
    asymptotic = class_bounds(net, net.populations)
    assert np.all(bounds.throughput_lower >= asymptotic.throughput_lower * (1 - 1e-12))
    assert np.all(bounds.throughput_upper <= asymptotic.throughput_upper * (1 + 1e-12))


@given(multi_class_networks(max_classes=3, max_population=8, load_dependent=False))
@settings(max_examples=80, deadline=None)
def test_the_bounds_hold_on_queues_without_think_time(net) -> None:
    """The balanced upper bound's own case (no delay, no think time)."""
    from dataclasses import replace

    queues_only = replace(
        net,
        stations=tuple(replace(s, kind="queue") for s in net.stations),
        think_times=np.zeros(len(net.classes)),
    )
    exact = solve(queues_only)
    bounds = composite_bounds(queues_only, queues_only.populations)
    closed = queues_only.populations > 0
    assert np.all(bounds.throughput_lower[closed] <= exact.throughput[closed] * (1 + 1e-12))
    assert np.all(exact.throughput[closed] <= bounds.throughput_upper[closed] * (1 + 1e-12))


def test_the_composite_bound_is_tighter_on_kerolas_kind_of_network() -> None:
    # the demands of Octave's qncmcb demo (two classes over four queues), N = (10, 10): both classes' upper
    # bounds come down from the asymptotic ones, and exact MVA lies between
    net = network([[10, 7, 5, 4], [5, 2, 4, 6]], population=[10, 10])
    tight, loose = composite_bounds(net, net.populations), class_bounds(net, net.populations)
    exact = solve(net).throughput
    assert np.all(tight.throughput_upper < loose.throughput_upper)
    assert np.all(tight.throughput_lower <= exact) and np.all(exact <= tight.throughput_upper)
    assert np.all(tight.throughput_lower > loose.throughput_lower)
