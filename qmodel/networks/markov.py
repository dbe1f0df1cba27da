"""The exact continuous-time Markov chain of a small network: every scheduling, buffers, class switching.

The reference the approximations are measured against (and what LINE's
SolverCTMC and Octave's qnmarkov compute): the state is every station's
jobs (their classes, in the order the scheduling needs) and the jobs
blocked on full stations; transitions are service completions, routed by
P[r, i, s, j] (or, where only visits were given, by the random routing
that gives those visits: from anywhere to station j with probability
v_j / Σ v, a think time as a delay station before the reference), and
external arrivals. Service times are exponential. The stationary
distribution is found by the GTH elimination up to DENSE_STATES states
(qmodel.algorithms.stationary), by a sparse LU solve past that.

Scheduling at a station of c servers (queue: 1, multi: c; ld: PS only):

| scheduling  | in service                                                                 |
| ----------- | -------------------------------------------------------------------------- |
| "" / "ps"   | every job, each at rate α(n)/n of its own (processor sharing)              |
| fcfs        | the first c to arrive                                                      |
| lcfs-pr     | the last to arrive (one server); an arrival preempts, service resumes      |
| priority    | the c of highest priority (lowest number), first come within a level; preemptive |
| priority-np | as priority, but a job in service is never preempted                       |

A delay station serves every job at once. A station with a buffer holds at
most that many jobs; a job of an open class that arrives at a full station,
from outside or routed, is lost; a job of a closed class routed to a full
station is blocked after service (BAS: it holds its server, and moves, first
blocked first, when a job leaves the full station).

Cost: the states are enumerated breadth first (a Python dict); past
MAX_STATES the chain is refused, with the count reached and a way out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qmodel.algorithms.stationary import stationary
from qmodel.errors import InputError
from qmodel.networks.model import Network

SMALLER_CHAIN = (
    "a smaller population or fewer stations and classes for the exact chain (method ctmc); "
    "or an approximate method"
)
MAX_STATES = 100_000  # states enumerated at most (about 5 s of Python and 1 GB in the sparse solve)
DENSE_STATES = 1_500  # up to this many states GTH (no subtraction), past it a sparse LU solve
INFINITE = 1 << 30  # servers of a delay station, buffer of a station without one

Jobs = tuple[int, ...]
StationState = tuple[Jobs, Jobs]  # (in service, waiting)
Blocked = tuple[tuple[int, int, int], ...]  # per full station: (origin, class there, class here), FIFO
State = tuple[tuple[StationState, ...], tuple[Blocked, ...]]


@dataclass(frozen=True)
class Solution:
    """The chain's stationary means: per class and station (C, K) jobs, completions per second, and
    arrivals lost per second (open classes at a full station); per station P(empty) and the marginal
    probabilities of j = 0, 1, ... jobs there (K, most jobs seen + 1); the state count."""

    queue_length: np.ndarray
    throughput: np.ndarray
    lost: np.ndarray
    empty: np.ndarray
    marginals: np.ndarray
    states: int


@dataclass(frozen=True)
class _Model:
    """What the chain needs, per class and (augmented) station: rates, routing, disciplines."""

    service: np.ndarray  # (C, S) service rate per job, 1/s (0 where a class is never served)
    arrivals: np.ndarray  # (C, S) external arrivals per second
    servers: np.ndarray  # (S,) c, INFINITE at a delay
    rates: tuple[tuple[float, ...], ...]  # (S,) PS rate table α(1..L) (α(L) holding); () where not PS
    discipline: tuple[str, ...]  # (S,) "is", "ps", "fcfs", "lcfs-pr", "priority", "priority-np"
    buffer: np.ndarray  # (S,) most jobs held, INFINITE without a limit
    priority: np.ndarray  # (C,) lower is served first
    routes: dict[tuple[int, int], tuple[tuple[int, int, float], ...]]  # (r, i) → ((s, j, P[r, i, s, j]),)
    leave: np.ndarray  # (C, S) probability of leaving the network after service
    dropping: np.ndarray  # (C,) an open class: a job routed to a full station is lost, not blocked


def solve_markov(net: Network, populations: np.ndarray) -> Solution:
    """The exact stationary means of ``net`` with ``populations`` (C,) in its closed classes."""
    model = _model(net)
    fewest = _fewest_states(net, model, populations)
    if fewest > MAX_STATES:  # known before the first state is enumerated
        raise InputError(
            "network",
            f"more than {MAX_STATES:,} states in its Markov chain (at least {fewest:,.3g})",
            SMALLER_CHAIN,
            reason="too large to compute",
        )
    start = _start(net, model, populations)
    index: dict[State, int] = {start: 0}
    order = [start]
    rows, columns, values = [], [], []
    completions: list[tuple[int, int, int, float]] = []  # (state, class, station, rate)
    losses: list[tuple[int, int, int, float]] = []
    position = 0
    while position < len(order):
        state = order[position]
        moves = _moves(model, state)
        if not moves[0] and len(order) > 1:
            raise InputError(
                "network",
                "a state with no way out (a deadlock: full stations blocking each other)",
                "buffers that leave room for the population",
            )
        for target, rate in moves[0].items():
            number = index.get(target)
            if number is None:
                number = index[target] = len(order)
                order.append(target)
                if number >= MAX_STATES:
                    raise InputError(
                        "network",
                        f"more than {MAX_STATES:,} states in its Markov chain",
                        SMALLER_CHAIN,
                        reason="too large to compute",
                    )
            rows.append(position)
            columns.append(number)
            values.append(rate)
        completions += [(position, *key, rate) for key, rate in moves[1].items()]
        losses += [(position, *key, rate) for key, rate in moves[2].items()]
        position += 1
    probability = _stationary(len(order), np.array(rows), np.array(columns), np.array(values))
    return _means(net, order, probability, completions, losses)


def _fewest_states(net: Network, model: _Model, populations: np.ndarray) -> float:
    """A lower bound on the chain's states, before any is enumerated: without buffers or class switching
    each closed class's N jobs lie anywhere among the m stations it visits, C(N + m − 1, m − 1) ways,
    independently of the other classes (orders within a station only add states); 0 (no bound) else."""
    if net.chains is not None or (model.buffer < INFINITE).any():
        return 0.0
    ways = [
        math.comb(int(populations[c]) + m - 1, m - 1)
        for c in np.flatnonzero(populations > 0)
        if (m := int(np.count_nonzero(model.service[c] > 0)))
    ]
    return float(math.prod(ways))


def _model(net: Network) -> _Model:
    """Service rates, routing and disciplines, with a think station per class with a think time."""
    n_classes, n_stations = net.demands.shape
    visits = net.visit_counts
    per_visit = np.divide(net.demands, visits, out=np.zeros_like(net.demands), where=visits > 0)
    thinking = np.flatnonzero((net.think_times > 0) & net.closed_classes)
    size = n_stations + thinking.size
    service = np.zeros((n_classes, size))
    service[:, :n_stations] = np.divide(1.0, per_visit, out=np.zeros_like(per_visit), where=per_visit > 0)
    service[thinking, n_stations + np.arange(thinking.size)] = 1.0 / net.think_times[thinking]
    routing, arrivals = _routing(net, size, thinking)
    servers, rates, discipline, buffer = [], [], [], []
    reach = net.demands[net.open_classes].sum(axis=0) > 0
    for station, opened in zip(net.stations, reach, strict=True):
        if opened and not station.buffer:
            raise InputError(
                f"station {station.name!r}: buffer",
                "none",
                "a buffer at every station an open "
                "class visits, for its Markov chain (large enough that few jobs are lost)",
            )
        kind = _discipline(station)
        discipline.append(kind)
        servers.append(INFINITE if station.infinite else station.servers if station.kind == "multi" else 1)
        rates.append(tuple(station.rate_table) if kind == "ps" else ())
        buffer.append(station.buffer if station.buffer else INFINITE)
    for _ in thinking:
        discipline.append("is")
        servers.append(INFINITE)
        rates.append(())
        buffer.append(INFINITE)
    priority = net.priorities if net.priorities is not None else np.zeros(n_classes, dtype=np.int64)
    routes = {
        (c, k): tuple(
            (int(s), int(j), float(routing[c, k, s, j]))
            for s, j in zip(*np.nonzero(routing[c, k]), strict=True)
        )
        for c in range(n_classes)
        for k in range(size)
    }
    return _Model(
        service,
        arrivals,
        np.array(servers),
        tuple(rates),
        tuple(discipline),
        np.array(buffer),
        np.asarray(priority),
        routes,
        np.maximum(1.0 - routing.sum(axis=(2, 3)), 0.0),
        net.open_classes.copy(),
    )


def _discipline(station) -> str:
    if station.infinite:
        return "is"
    kind = station.scheduling or "ps"
    if station.kind in ("ld", "hetero") and kind != "ps":
        raise InputError(
            f"station {station.name!r}: scheduling",
            repr(kind),
            "ps at an ld or hetero station (its rates are shared by the jobs present)",
        )
    if kind == "lcfs-pr" and station.kind == "multi":
        raise InputError(f"station {station.name!r}: scheduling", "lcfs-pr", "lcfs-pr at a single server")
    return kind


def _routing(net: Network, size: int, thinking: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P (C, S, C, S), external arrivals (C, S)): the network's routing, or the random routing that gives
    its visits; a think time inserted before the reference station (the first with the most visits)."""
    n_classes, n_stations = net.demands.shape
    visits = net.visit_counts
    routing = np.zeros((n_classes, size, n_classes, size))
    arrivals = np.zeros((n_classes, size))
    if net.routing is not None:
        routing[:, :n_stations, :, :n_stations] = net.routing
        rates = visits * _chain_rates(net)[:, None]
        arrivals[:, :n_stations] = np.maximum(rates - np.einsum("ri,risj->sj", rates, net.routing), 0.0)
        arrivals[~net.open_classes] = 0.0
    else:
        for c in range(n_classes):
            total = visits[c].sum()
            if net.open_classes[c]:
                if total < 1:
                    raise InputError(
                        f"visits of class {net.classes[c]!r}",
                        f"{total:g} in all",
                        "at least one visit per job for the Markov chain of an open class",
                    )
                routing[c, :n_stations, c, :n_stations] = visits[c][None, :] / total * (1 - 1 / total)
                arrivals[c, :n_stations] = net.arrival_rates[c] * visits[c] / total
            else:
                routing[c, :n_stations, c, :n_stations] = visits[c][None, :] / total
    for offset, c in enumerate(thinking):
        think = n_stations + offset
        reference = int(np.argmax(visits[c]))
        into = routing[:, :, c, reference].copy()  # every route to the reference goes via thinking
        routing[:, :, c, reference] = 0.0
        routing[:, :, c, think] = into
        routing[c, think, c, reference] = 1.0
    return routing, arrivals


def _chain_rates(net: Network) -> np.ndarray:
    """(C,) each class's chain arrival rate (open), jobs per second; 0 in closed chains."""
    if net.chains is None:
        return net.arrival_rates.copy()
    return np.bincount(net.chains, weights=net.arrival_rates)[net.chains]


def _start(net: Network, model: _Model, populations: np.ndarray) -> State:
    """Every closed class's jobs at the first station it visits (filling buffers in station order)."""
    stations: list[StationState] = [((), ()) for _ in range(model.service.shape[1])]
    for c in np.flatnonzero(populations > 0):
        remaining = int(populations[c])
        for k in np.flatnonzero(model.service[c] > 0):
            while remaining and _jobs(stations[k]) < model.buffer[k]:
                stations[k] = _admit(model, int(k), stations[k], int(c), 0)
                remaining -= 1
        if remaining:
            raise InputError(
                f"population of class {net.classes[c]!r}",
                int(populations[c]),
                "at most the buffers of the stations it visits",
            )
    return tuple(stations), tuple(() for _ in stations)


def _jobs(station: StationState) -> int:
    return len(station[0]) + len(station[1])


def _blocked_at(blocked: tuple[Blocked, ...], origin: int) -> int:
    return sum(1 for queue in blocked for entry in queue if entry[0] == origin)


def _rank(model: _Model, job: int) -> int:
    return int(model.priority[job])


def _canonical(model: _Model, k: int, station: StationState) -> StationState:
    """One representative of states that behave alike: at a priority station only the order within a
    level matters (jobs stably sorted by level), at PS and delay stations none (sorted by class)."""
    kind = model.discipline[k]
    if kind in ("priority", "priority-np"):
        serving, waiting = station
        return (
            tuple(sorted(serving, key=lambda job: _rank(model, job))),
            tuple(sorted(waiting, key=lambda job: _rank(model, job))),
        )
    return station


def _admit(model: _Model, k: int, station: StationState, job: int, held: int) -> StationState:
    """Station k with one more job of class ``job``; ``held`` servers are held by blocked jobs."""
    return _canonical(model, k, _admitted(model, k, station, job, held))


def _admitted(model: _Model, k: int, station: StationState, job: int, held: int) -> StationState:
    serving, waiting = station
    kind = model.discipline[k]
    free = model.servers[k] - held
    if kind in ("is", "ps"):
        return tuple(sorted((*serving, job))), ()
    if kind == "lcfs-pr":
        if free < 1:
            return serving, (job, *waiting)
        return (job,), (*serving, *waiting)
    if len(serving) < free:
        return (*serving, job), waiting
    if kind == "priority":
        worst = max(range(len(serving)), key=lambda i: (_rank(model, serving[i]), i)) if serving else -1
        if worst >= 0 and _rank(model, job) < _rank(model, serving[worst]):
            return (*serving[:worst], *serving[worst + 1 :], job), (serving[worst], *waiting)
    return serving, (*waiting, job)


def _refill(model: _Model, k: int, station: StationState, held: int) -> StationState:
    """Station k after a server frees: waiting jobs start while servers are free (FCFS: the first;
    LCFS-PR: the top; priority: the highest, first come within a level)."""
    serving, waiting = station
    kind = model.discipline[k]
    free = model.servers[k] - held
    while waiting and len(serving) < free and kind not in ("is", "ps"):
        if kind in ("priority", "priority-np"):
            pick = min(range(len(waiting)), key=lambda i: (_rank(model, waiting[i]), i))
        else:
            pick = 0
        serving = (*serving, waiting[pick])
        waiting = (*waiting[:pick], *waiting[pick + 1 :])
    return _canonical(model, k, (serving, waiting))


def _moves(
    model: _Model, state: State
) -> tuple[dict[State, float], dict[tuple[int, int], float], dict[tuple[int, int], float]]:
    """(rate to each next state, completion rate per (class, station), lost arrivals per (class, station))."""
    stations, blocked = state
    targets: dict[State, float] = {}
    completions: dict[tuple[int, int], float] = {}
    lost: dict[tuple[int, int], float] = {}
    for k, (serving, _) in enumerate(stations):
        if not serving:
            continue
        held = _blocked_at(blocked, k)
        share = 1.0
        if model.discipline[k] == "ps":
            present = _jobs(stations[k]) + held
            table = model.rates[k]
            share = table[min(present, len(table)) - 1] / present
        for position, job in enumerate(serving):
            rate = model.service[job, k] * share
            if rate <= 0:
                continue
            completions[(job, k)] = completions.get((job, k), 0.0) + rate
            for to_class, to_station, chance in model.routes[(job, k)]:
                if model.dropping[to_class] and to_station != k and _full(model, state, to_station):
                    lost[(to_class, to_station)] = lost.get((to_class, to_station), 0.0) + rate * chance
                    to_class = to_station = -1  # an open job finding it full is lost
                target = _move(model, state, k, position, job, to_class, to_station)
                targets[target] = targets.get(target, 0.0) + rate * chance
            leave = model.leave[job, k]
            if leave > 1e-12:
                target = _move(model, state, k, position, job, -1, -1)
                targets[target] = targets.get(target, 0.0) + rate * leave
    for job, k in zip(*np.nonzero(model.arrivals), strict=True):
        rate = float(model.arrivals[job, k])
        if _full(model, state, int(k)):
            lost[(int(job), int(k))] = rate
            continue
        placed = list(stations)
        placed[k] = _admit(model, int(k), stations[k], int(job), _blocked_at(blocked, int(k)))
        target = (tuple(placed), blocked)
        targets[target] = targets.get(target, 0.0) + rate
    targets.pop(state, None)  # a move to the same state is no transition
    return targets, completions, lost


def _full(model: _Model, state: State, k: int) -> bool:
    """Whether station k holds as many jobs as its buffer (those blocked there included)."""
    return _jobs(state[0][k]) + _blocked_at(state[1], k) >= model.buffer[k]


def _move(
    model: _Model, state: State, k: int, position: int, job: int, to_class: int, to_station: int
) -> State:
    """The state after the job in service at ``position`` of station k completes and is routed."""
    stations, blocked_state = list(state[0]), list(state[1])
    serving, waiting = stations[k]
    stations[k] = (serving[:position] + serving[position + 1 :], waiting)
    if to_station >= 0 and to_station != k and _full(model, state, to_station):
        blocked_state[to_station] = (*blocked_state[to_station], (k, job, to_class))  # blocked after service
        return tuple(stations), tuple(blocked_state)
    stations[k] = _refill(model, k, stations[k], _blocked_at(tuple(blocked_state), k))
    if to_station >= 0:
        stations[to_station] = _admit(
            model, to_station, stations[to_station], to_class, _blocked_at(tuple(blocked_state), to_station)
        )
    if to_station != k:
        _release(model, stations, blocked_state, k)
    return tuple(stations), tuple(blocked_state)


def _release(model: _Model, stations: list[StationState], blocked: list[Blocked], k: int) -> None:
    """Station k has room for one more: the first job blocked on it moves in, freeing its own server
    (and, its origin having room in turn, the first blocked on that: a cascade)."""
    while blocked[k]:
        (origin, _, to_class), *rest = blocked[k]
        blocked[k] = tuple(rest)
        stations[k] = _admit(model, k, stations[k], to_class, _blocked_at(tuple(blocked), k))
        stations[origin] = _refill(model, origin, stations[origin], _blocked_at(tuple(blocked), origin))
        k = origin


def _stationary(size: int, rows: np.ndarray, columns: np.ndarray, values: np.ndarray) -> np.ndarray:
    if size == 1:
        return np.ones(1)
    if size <= DENSE_STATES:
        rates = np.zeros((size, size))
        np.add.at(rates, (rows, columns), values)
        return stationary(rates, "the network's Markov chain")
    from scipy.sparse import csr_matrix, diags
    from scipy.sparse.linalg import spsolve

    generator = csr_matrix((values, (rows, columns)), shape=(size, size))
    generator = (generator - diags(np.asarray(generator.sum(axis=1)).ravel())).T.tolil()
    generator[0, :] = 1.0  # Σ π = 1 replaces one balance equation
    right = np.zeros(size)
    right[0] = 1.0
    solution = spsolve(generator.tocsc(), right)
    return np.maximum(solution, 0.0) / np.maximum(solution, 0.0).sum()


def _means(
    net: Network,
    order: list[State],
    probability: np.ndarray,
    completions: list[tuple[int, int, int, float]],
    losses: list[tuple[int, int, int, float]],
) -> Solution:
    n_classes, n_stations = net.demands.shape
    queue = np.zeros((n_classes, n_stations))
    present = np.array(
        [
            [_jobs(stations[k]) + _blocked_at(blocked, k) for k in range(n_stations)]
            for stations, blocked in order
        ],
        dtype=np.int64,
    ).reshape(len(order), n_stations)
    marginals = np.zeros((n_stations, int(present.max(initial=0)) + 1))
    for k in range(n_stations):
        marginals[k] = np.bincount(present[:, k], weights=probability, minlength=marginals.shape[1])
    empty = marginals[:, 0].copy()
    for number, (stations, blocked) in enumerate(order):
        p = probability[number]
        for k in range(n_stations):
            serving, waiting = stations[k]
            for job in (*serving, *waiting):
                queue[job, k] += p
        for queue_ in blocked:
            for origin, job, _ in queue_:
                if origin < n_stations:
                    queue[job, origin] += p
    throughput = np.zeros((n_classes, n_stations))
    for number, job, k, rate in completions:
        if k < n_stations:
            throughput[job, k] += probability[number] * rate
    lost = np.zeros((n_classes, n_stations))
    for number, job, k, rate in losses:
        lost[job, k] += probability[number] * rate
    return Solution(queue, throughput, lost, empty, marginals, len(order))
