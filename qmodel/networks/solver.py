"""``solve``: the one entry for closed, open and mixed networks, one or many classes, every method.

The method chooses how closed classes are solved (open classes are exact
either way):

| method      | what                                                        | stations          |
| ----------- | ----------------------------------------------------------- | ----------------- |
| exact       | exact MVA (one class: every population 1..N; several: the lattice) | all        |
| schweitzer  | Bard–Schweitzer approximate MVA                             | all               |
| linearizer  | Linearizer (Chandy & Neuse)                                 | all               |
| seidmann    | Bard–Schweitzer on Seidmann's multi-server decomposition    | all but ld        |
| ctmc        | the exact Markov chain of a small network (markov.py): any scheduling, buffers | all |
| convolution | the normalizing constant by convolution (states.py): log G, marginals, means | closed |

A network whose buffers can fill is solved, approximately, as a loss network
(every class open: "loss-decomposition") or by MVABLO (one closed class with
a routing matrix: "mvablo"; finite.py), others by the chain only.

A network that is not product form by its scheduling (priority classes of
more than one level at a station, FCFS with service times that differ by
class: priority.py) is solved by the MVA priority approximation whatever
approximate or exact MVA method is asked for, and its result's method says
so ("priority-mva"); method ctmc solves it exactly where it is small.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from qmodel.errors import InputError
from qmodel.networks import approximate, exact
from qmodel.networks.chains import chain_network, chain_populations, class_result
from qmodel.networks.finite import loss_network, mvablo
from qmodel.networks.markov import solve_markov
from qmodel.networks.model import Network
from qmodel.networks.open import OpenStation, open_jobs, open_load, open_station, open_stretch
from qmodel.networks.priority import binding_buffers, departures, priority_mva
from qmodel.networks.results import Curve, NetworkResult
from qmodel.networks.states import convolve
from qmodel.networks.stations import Station

Progress = Callable[[int, int], None]
APPROXIMATIONS: dict[str, Callable[[Network, np.ndarray], approximate.Estimate]] = {
    "schweitzer": approximate.schweitzer,
    "linearizer": approximate.linearizer,
    "seidmann": approximate.seidmann,
}
METHODS = ("exact", *APPROXIMATIONS, "ctmc", "convolution")


def solve(
    network: Network,
    method: str = "exact",
    population: int | Sequence[int] | range | None = None,
    progress: Progress | None = None,
    at: Sequence[int] = (),
) -> NetworkResult:
    """Mean values of any network: throughput and response time per class, per-station figures.

    ``method``: exact, schweitzer, linearizer or seidmann (closed classes;
    open classes are solved exactly). ``population``: N, the network at N
    jobs, or ``range(1, N + 1)``, a sweep (the same result at N: exact MVA of
    one class passes through every n ≤ N, and ``result.curve`` keeps X and R
    at each; ``qmodel mva --population N`` and ``1..N`` are the same two);
    for several classes, one population per closed class; default the
    network's own. ``at``: populations of a single-class exact sweep at which
    full per-station results are kept (``result.points``). ``progress(done,
    total)`` is called during long exact solves. Results are in SI units
    (NetworkResult); sources: exact.py, approximate.py, open.py.

    :param network: the network (:func:`qmodel.networks.network` or a model file).
    :param method: exact, schweitzer, linearizer or seidmann (and the methods of qmodel.networks.solver).
    :param population: N jobs, ``range(1, N + 1)`` (a sweep), or one population per closed class; None:
        the network's own.
    :param progress: called as ``progress(done, total)`` during long exact solves.
    :param at: populations of a sweep whose per-station results are kept.
    :returns: throughput [1/s], response time [s] per class and the per-station figures
        (:class:`NetworkResult`; its records in the network's time unit).
    :raises InputError: a request the method cannot solve, or too large (with its estimate).
    """
    if method not in METHODS:
        raise InputError("method", repr(method), ", ".join(METHODS))
    if method == "ctmc":
        return _markov(network, population)
    if method == "convolution":
        return _convolution(network, population)
    if any(station.buffer for station in network.stations):
        top = [population.stop - 1] if isinstance(population, range) else population
        full = binding_buffers(network, _counts(network, top))
        if full:
            return _finite(network, population, full[0])
    if departures(network):
        return _scheduled(network, population)
    if network.switching:
        return _switching(network, method, population, progress, at)
    is_open = network.open_classes
    if is_open.all():
        if population is not None:
            raise InputError(
                "population", population, "none for an open network (arrival rates set its load)"
            )
        return _open(network)
    counts = _populations(network, population)
    if is_open.any():
        return _mixed(network, counts, method, progress)
    return _closed(network, counts, method, progress, at)


def _finite(network: Network, population: int | Sequence[int] | range | None, reason: str) -> NetworkResult:
    """Stations whose buffers can fill (finite.py): an open network that loses jobs, or a single-class
    closed one whose stations block (MVABLO); anything else is the Markov chain's (method ctmc)."""
    if (
        isinstance(population, range)
        or departures(network)
        or network.switching
        or not (network.open_classes.all() or len(network.classes) == 1)
    ):
        raise InputError(
            "method",
            "an MVA method",
            "ctmc (the exact Markov chain of a small network) for "
            "this network whose stations can fill: the approximations take an open network, or "
            "one closed class with a routing matrix, without priorities",
            reason=reason,
        )
    counts = _counts(network, population)
    if network.open_classes.all():
        finite, method = loss_network(network), "loss-decomposition"
    else:
        finite, method = mvablo(network, int(counts.sum())), "mvablo"
    visits = network.visit_counts
    per_visit = np.divide(network.demands, visits, out=np.zeros_like(visits), where=visits > 0)
    made = replace(network, visits=finite.visits, demands=finite.visits * per_visit)
    result = _result(
        made, method, counts, finite.throughput, finite.residence_time, np.zeros(len(network.stations))
    )
    return replace(result, lost=finite.lost if network.open_classes.any() else None)


def _convolution(network: Network, population: int | Sequence[int] | range | None) -> NetworkResult:
    """log G(N), the marginal probabilities and the means of a closed product-form network (states.py);
    classes that switch, by their chains'."""
    if network.open_classes.any():
        raise InputError(
            "method",
            "convolution",
            "exact, or another method, for a network with open "
            "classes (the normalizing constant is a closed network's)",
        )
    if isinstance(population, range):
        raise InputError(
            "population",
            repr(population),
            "N per closed class: the normalizing constant is computed at one population",
        )
    reasons = departures(network) + binding_buffers(network, _counts(network, population))
    if reasons:
        raise InputError(
            "method", "convolution", "a product-form network (or method ctmc)", reason=reasons[0]
        )
    counts = _populations(network, population)
    inner = chain_network(network) if network.switching else network
    inner_counts = chain_populations(network, counts) if network.switching else counts
    states = convolve(inner, inner_counts)
    residence = np.divide(
        states.queue_length,
        states.throughput[:, None],
        out=np.zeros_like(states.queue_length),
        where=states.throughput[:, None] > 0,
    )
    result = _result(inner, "convolution", inner_counts, states.throughput, residence, states.marginals[:, 0])
    if network.switching:
        result = class_result(network, result, counts)
    return replace(result, log_normalizing_constant=states.log_constant, marginals=states.marginals)


def _scheduled(network: Network, population: int | Sequence[int] | range | None) -> NetworkResult:
    """Priority or class-dependent FCFS scheduling: the MVA priority approximation (priority.py)."""
    if isinstance(population, range):
        raise InputError(
            "population",
            repr(population),
            "N per closed class: a network with priority or "
            "class-dependent FCFS scheduling is solved at one population",
        )
    counts = _counts(network, population)
    estimate = priority_mva(network, counts)
    return _result(
        network,
        "priority-mva",
        counts,
        estimate.throughput,
        estimate.residence_time,
        np.zeros(len(network.stations)),
    )


def _markov(network: Network, population: int | Sequence[int] | range | None) -> NetworkResult:
    """The exact Markov chain's means (markov.py) as a NetworkResult. Where arrivals are lost at full
    stations, the result's network carries the visits that are made (completions per offered job)."""
    if isinstance(population, range):
        raise InputError(
            "population", repr(population), "N per closed class: the Markov chain is solved at one population"
        )
    counts = _counts(network, population)
    solution = solve_markov(network, counts)
    visits = network.visit_counts
    chains = network.chains if network.chains is not None else np.arange(len(network.classes))
    made = np.bincount(chains, weights=solution.throughput.sum(axis=1))
    planned = np.bincount(chains, weights=visits.sum(axis=1))
    rates = np.bincount(chains, weights=network.arrival_rates)
    throughput = np.where(rates > 0, rates, made / np.where(planned > 0, planned, 1.0))[chains]
    solved = network
    if solution.lost.any():
        per_visit = np.divide(network.demands, visits, out=np.zeros_like(visits), where=visits > 0)
        made_visits = solution.throughput / throughput[:, None]
        solved = replace(network, visits=made_visits, demands=made_visits * per_visit)
    residence = np.divide(
        solution.queue_length, throughput[:, None], out=np.zeros_like(visits), where=throughput[:, None] > 0
    )
    return replace(
        _result(solved, "ctmc", counts, throughput, residence, solution.empty),
        marginals=solution.marginals,
        lost=solution.lost if network.open_classes.any() else None,
    )


def _switching(
    network: Network,
    method: str,
    population: int | Sequence[int] | range | None,
    progress: Progress | None,
    at: Sequence[int],
) -> NetworkResult:
    """A network with class switching: solved as the network of its chains, then per class (chains.py)."""
    outer = chain_network(network)
    if isinstance(population, range):
        raise InputError(
            "population",
            repr(population),
            "one population per closed class (a sweep 1..N is for a single class, and these classes switch)",
        )
    if network.open_classes.all():
        counts, inner = np.zeros(len(network.classes)), population
    else:
        counts = _populations(network, population)
        per_chain = chain_populations(network, counts)[outer.closed_classes]
        inner = [int(n) for n in per_chain]
    return class_result(network, solve(outer, method, inner, progress, at), counts)


def _counts(network: Network, population: int | Sequence[int] | None) -> np.ndarray:
    """The closed classes' populations (_populations), or zeros for an open network (given none)."""
    if not network.open_classes.all():
        return _populations(network, population)
    if population is not None:
        raise InputError("population", population, "none for an open network (arrival rates set its load)")
    return np.zeros(len(network.classes))


def _populations(network: Network, population: int | Sequence[int] | range | None) -> np.ndarray:
    """The closed classes' populations (open classes 0), checked: whole numbers, at least one job."""
    if isinstance(population, range):
        if (
            population.start != 1
            or population.step != 1
            or len(population) == 0
            or network.closed_classes.sum() != 1
        ):
            raise InputError(
                "population", repr(population), "range(1, N + 1): a sweep 1..N of a single closed class"
            )
        population = population.stop - 1
    if population is None:
        counts = network.populations.copy()
    else:
        given = np.atleast_1d(np.asarray(population, dtype=object))
        closed = network.closed_classes
        if given.size != int(closed.sum()):
            raise InputError("population", population, f"one per closed class ({int(closed.sum())})")
        counts = np.zeros(len(network.classes))
        counts[closed] = [_whole(value) for value in given]
    if counts[network.closed_classes].sum() == 0:
        raise InputError(
            "population",
            0,
            "at least one job in a closed class",
            reason="a closed network without jobs has nothing to solve",
        )
    return counts


def _whole(value: object) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError("population", repr(value), "a whole number ≥ 0") from None
    if not np.isfinite(number) or number < 0 or number != int(number):
        raise InputError("population", repr(value), "a whole number ≥ 0")
    return number


def _check_method(network: Network, method: str) -> None:
    refused = network.unsupported(method)
    if refused:
        station = refused[0]
        raise InputError(
            f"station {station.name!r}: type",
            station.label,
            f"a station type that {method} "
            f"solves (see qmodel.networks.stations); or method exact, schweitzer, linearizer",
        )


def _closed(
    network: Network, counts: np.ndarray, method: str, progress: Progress | None, at: Sequence[int]
) -> NetworkResult:
    _check_method(network, method)
    if method == "exact" and len(network.classes) == 1:
        return _sweep(network, int(counts[0]), progress, at)
    if at:
        raise InputError("at", list(at), "populations of a single-class network solved exactly (a sweep)")
    jobs = network.within(int(counts.sum()))
    if method == "exact":
        point = exact.lattice(jobs, counts, progress)
        return _result(network, method, counts, point.throughput, point.residence_time, point.empty)
    estimate = APPROXIMATIONS[method](jobs, counts)
    return _result(network, method, counts, estimate.throughput, estimate.residence_time, estimate.empty)


def _sweep(network: Network, population: int, progress: Progress | None, at: Sequence[int]) -> NetworkResult:
    wanted = sorted({_check_at(n, population) for n in at} | {population})
    sweep = exact.sweep(network.within(population), population, wanted, progress)
    points = []
    for i, n in enumerate(sweep.at):
        x = np.array([sweep.throughput[n - 1]])
        points.append(
            _result(
                network, "exact", np.array([float(n)]), x, sweep.residence_time[i][None, :], sweep.empty[i]
            )
        )
    last = points[-1]
    asked_for = {int(a) for a in at}
    asked = tuple(p for p, n in zip(points, sweep.at.tolist(), strict=True) if n in asked_for)
    curve = Curve(np.arange(1, population + 1), sweep.throughput, sweep.response_time)
    return replace(last, curve=curve, points=asked)


def _check_at(value: object, population: int) -> int:
    n = int(_whole(value))
    if not 1 <= n <= population:
        raise InputError("at", value, f"populations from 1 to the sweep's N = {population}")
    return n


def _result(
    network: Network,
    method: str,
    counts: np.ndarray,
    throughput: np.ndarray,
    residence: np.ndarray,
    empty: np.ndarray,
) -> NetworkResult:
    """A NetworkResult from per-class X (C,), R (C, K) and the stations' p(0) (K,).

    A closed network's stations are taken as its jobs see them (Network.within): an ld table cut to one
    rate by a small population has no p(0) from the recursion, and is a queue of that rate."""
    residence = np.where(throughput[:, None] > 0, residence, 0.0)
    load = throughput[:, None] * network.demands
    jobs = int(counts.sum()) if network.closed_classes.all() else 0
    seen = [
        station.within(jobs) if jobs and station.kind in ("ld", "hetero") else station
        for station in network.stations
    ]
    utilization = np.stack(
        [station.type.utilization(station, load[:, k], 1.0 - empty[k]) for k, station in enumerate(seen)],
        axis=1,
    )
    return NetworkResult(
        network=network,
        method=method,
        populations=counts.astype(int),
        throughput=throughput,
        response_time=residence.sum(axis=1),
        utilization=utilization,
        queue_length=throughput[:, None] * residence,
        residence_time=residence,
    )


def _open(network: Network) -> NetworkResult:
    """Every class open: R_ck = D_ck · stretch_k (open.py)."""
    load = open_load(network)
    stretch, empty = np.ones(len(network.stations)), np.zeros(len(network.stations))
    for k, station in enumerate(network.stations):
        if load[k] > 0:
            stretch[k], empty[k] = open_stretch(station, load[k])
    rates = network.arrival_rates
    return _result(network, "exact", np.zeros(len(network.classes)), rates, network.demands * stretch, empty)


def closed_part(
    network: Network, counts: np.ndarray | None = None
) -> tuple[Network, np.ndarray, dict[int, OpenStation]]:
    """A mixed network's closed classes on the stations as the open load leaves them (open.py).

    Returns (the closed network, the open load ρ_k per station, each loaded finite station's view).
    """
    counts = network.populations if counts is None else counts
    load = open_load(network)
    views: dict[int, OpenStation] = {
        k: open_station(station, load[k])
        for k, station in enumerate(network.stations)
        if not station.infinite and load[k] > 0
    }
    closed = network.closed_classes
    stations = tuple(
        Station(s.name, "ld", 1, views[k].rates) if k in views else s for k, s in enumerate(network.stations)
    )
    inner = replace(
        network,
        stations=stations,
        classes=tuple(np.array(network.classes)[closed]),
        demands=network.demands[closed],
        think_times=network.think_times[closed],
        populations=counts[closed],
        arrival_rates=np.zeros(int(closed.sum())),
        visits=None if network.visits is None else network.visits[closed],
    )
    return inner, load, views


def _mixed(network: Network, counts: np.ndarray, method: str, progress: Progress | None) -> NetworkResult:
    """Closed classes on the stations as the open load leaves them; open classes see the closed jobs."""
    inner, load, views = closed_part(network, counts)
    closed = network.closed_classes
    if method == "exact":
        point = exact.lattice(inner, counts[closed], progress)
        x, residence, marginals = point.throughput, point.residence_time, point.marginals
    else:
        _check_method(network, method)
        for station in inner.unsupported(method):
            raise InputError(
                "method",
                method,
                "exact, schweitzer or linearizer for this mixed network",
                reason=f"the open classes make station {station.name!r} load-dependent",
            )
        estimate = APPROXIMATIONS[method](inner, counts[closed])
        x, residence = estimate.throughput, estimate.residence_time
        marginals = {k: estimate.marginals_of(k) for k in views if k in set(estimate.table.ld.tolist())}
    closed_queue = (x[:, None] * residence).sum(axis=0)
    throughput = np.where(closed, 0.0, network.arrival_rates)
    throughput[closed] = x
    all_residence = np.zeros(network.demands.shape)
    all_residence[closed] = residence
    empty = np.zeros(len(network.stations))
    opened = ~closed
    for k, station in enumerate(network.stations):
        if station.infinite or load[k] == 0:
            all_residence[opened, k] = network.demands[opened, k]
            continue
        p = marginals.get(k, np.zeros(0))
        jobs = open_jobs(views[k], closed_queue[k], p)
        all_residence[opened, k] = network.demands[opened, k] * jobs / load[k]
        empty[k] = (p[0] if p.size else 0.0) * views[k].no_open_job
    return _result(network, method, counts, throughput, all_residence, empty)


def reference_method(network: Network) -> str:
    """The method that solves ``network`` exactly: exact MVA where it is product form, else the Markov
    chain (ctmc)."""
    full = binding_buffers(network, network.populations)
    return "ctmc" if departures(network) or full else "exact"


def approximation_error(approximate_result: NetworkResult) -> dict[str, float]:
    """Largest deviation of an approximate solution from the exact one on the same network (exact MVA,
    or the Markov chain where the network is not product form: reference_method).

    ``throughput``: max over classes of |X − X_exact| / X_exact;
    ``queue_length``: max over classes and stations of |Q − Q_exact| relative
    to the class population (closed classes; open classes count their own
    mean jobs in the network).

    :param approximate_result: a result of an approximate method.
    :returns: ``{"throughput": ratio, "queue_length": ratio}``: the largest relative deviations (fractions,
        not %).
    """
    network = approximate_result.network
    exact_result = solve(network, reference_method(network), _closed_counts(approximate_result))
    x_exact = exact_result.throughput
    closed = network.closed_classes & (x_exact > 0)
    throughput = np.abs(approximate_result.throughput - x_exact)[closed] / x_exact[closed]
    jobs = np.where(
        network.closed_classes, approximate_result.populations, exact_result.queue_length.sum(axis=1)
    )
    queue = np.abs(approximate_result.queue_length - exact_result.queue_length) / np.maximum(jobs, 1)[:, None]
    return {"throughput": float(throughput.max(initial=0.0)), "queue_length": float(queue.max(initial=0.0))}


def _closed_counts(result: NetworkResult) -> list[int] | int:
    counts = [int(n) for n in result.populations[result.network.closed_classes]]
    return counts[0] if len(counts) == 1 else counts
