"""Visits from a routing matrix: the traffic equations, open and closed, with class switching (chains).

A routing matrix gives ``P[r, i, s, j]``, the probability that a class r job
finishing service at station i goes next to station j as a class s job (the
layout of Octave's qncmvisits and of LINE's ``P{r, s}(i, j)``); a row may sum
to less than one in an open class, the rest leaving the network. Classes
that switch into one another form a *chain* (the weakly connected parts of
the graph r → s wherever some P[r, ·, s, ·] > 0); a class that never
switches is a chain of its own. Visits per chain solve the traffic
equations (Bolch et al. 2006, §7.1.5 and §8.3 "networks with class switching";
Baskett, Chandy, Muntz & Palacios 1975):

    closed chain:  v_sj = Σ_{r, i} v_ri P[r, i, s, j],    Σ_{r in chain} v_{r, ref} = 1
    open chain:    λ_sj = λ⁰_sj + Σ_{r, i} λ_ri P[r, i, s, j],    v_sj = λ_sj / Σ_{r in chain, k} λ⁰_rk

ref is the reference station of the chain's first class: one cycle of a
closed chain is one visit to it, by any class of the chain (LINE's
normalisation; Octave's qncmvisits sets the first class's own visit to 1,
which is the same where only that class visits the reference station). An
open chain's visits are per job arriving from outside. Station-level figures
(X_rk = X v_rk, R per visit, Q_rk) do not depend on the normalisation.

Each chain's equations are solved as a Markov chain's stationary
distribution by the GTH elimination (qmodel.algorithms.stationary: no
subtraction, so no cancellation however close the probabilities are to 0 or
1); an open chain through one more state, the outside. Cost: (C_q K)³ / 3
multiply-adds per chain at most, fewer where the routing is sparse; the
matrix itself is (C K)² numbers, refused with its estimate past the limits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qmodel.algorithms.stationary import estimate_stationary, stationary
from qmodel.errors import InputError
from qmodel.limits import refuse_too_large

TOLERANCE = 1e-9  # a closed class's row sums to 1 within this; probabilities within [−tol, 1 + tol]


@dataclass(frozen=True)
class Traffic:
    """The solution of the traffic equations: visits per class and station, the chains they form."""

    visits: np.ndarray  # (C, K) visits per chain cycle (closed) or per job arriving to the chain (open)
    chains: np.ndarray  # (C,) chain index 0..Q−1, numbered in the order of each chain's first class

    @property
    def switching(self) -> bool:
        """Whether some chain holds more than one class."""
        return bool(np.unique(self.chains).size < self.chains.size)


def chains_of(routing: np.ndarray) -> np.ndarray:
    """(C,) the chain of each class: the weakly connected parts of the class-switching graph."""
    n_classes = routing.shape[0]
    parent = list(range(n_classes))

    def root(r: int) -> int:
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    switches = routing.sum(axis=(1, 3)) > 0
    for r, s in zip(*np.nonzero(switches), strict=True):
        parent[root(int(r))] = root(int(s))
    roots = [root(r) for r in range(n_classes)]
    numbering: dict[int, int] = {}
    return np.array([numbering.setdefault(top, len(numbering)) for top in roots], dtype=np.int64)


def estimate_traffic(classes: int, stations: int) -> tuple[float, float]:
    """(bytes, seconds) solving the traffic equations takes: the (C K)² matrix a few times, and the
    elimination of one chain holding every class (qmodel.algorithms.stationary)."""
    memory, seconds = estimate_stationary(classes * stations + 1)
    return memory + 24.0 * (classes * stations) ** 2, seconds


def traffic(
    routing: np.ndarray,
    reference: np.ndarray,
    arrivals: np.ndarray,
    classes: tuple[str, ...],
    stations: tuple[str, ...],
) -> Traffic:
    """Visits (C, K) and chains (C,) from ``routing`` P[r, i, s, j] (module docstring).

    ``reference`` (C,): each class's reference station (index); ``arrivals``
    (C, K): external arrival rates in jobs per second (all zero in a closed
    chain). A chain with any external arrival is open. Refused, naming the
    class and station: a probability outside [0, 1], a row summing past 1, a
    closed class's job that leaves (its row sums below 1) or stops, an open
    chain whose jobs never leave, a closed chain with more than one set of
    stations its jobs cycle through.
    """
    n_classes, n_stations = len(classes), len(stations)
    refuse_too_large(
        *estimate_traffic(n_classes, n_stations),
        f"a routing matrix of {n_classes} classes × {n_stations:,} stations",
        "fewer stations (merge those with the same role), or visits given directly",
    )
    _check_probabilities(routing, classes, stations)
    chains = chains_of(routing)
    flat = routing.reshape(n_classes * n_stations, n_classes * n_stations)
    visits = np.zeros(n_classes * n_stations)
    for chain in range(int(chains.max()) + 1):
        members = np.flatnonzero(chains == chain)
        states = (members[:, None] * n_stations + np.arange(n_stations)[None, :]).ravel()
        inside = flat[np.ix_(states, states)]
        external = arrivals[members].ravel()
        if external.sum() > 0:
            visits[states] = _open_chain(inside, external, classes, stations, members)
        else:
            visits[states] = _closed_chain(inside, int(reference[members[0]]), classes, stations, members)
    return Traffic(visits.reshape(n_classes, n_stations), chains)


def _check_probabilities(routing: np.ndarray, classes: tuple[str, ...], stations: tuple[str, ...]) -> None:
    bad = ~np.isfinite(routing) | (routing < -TOLERANCE) | (routing > 1 + TOLERANCE)
    if bad.any():
        r, i, s, j = (int(x) for x in np.argwhere(bad)[0])
        raise InputError(
            f"routing from class {classes[r]!r} at {stations[i]!r} to class {classes[s]!r} at "
            f"{stations[j]!r}",
            f"{routing[r, i, s, j]:g}",
            "a probability from 0 to 1",
        )
    rows = routing.sum(axis=(2, 3))
    if (rows > 1 + TOLERANCE).any():
        r, i = (int(x) for x in np.argwhere(rows > 1 + TOLERANCE)[0])
        raise InputError(
            f"routing of class {classes[r]!r} from station {stations[i]!r}",
            f"sums to {rows[r, i]:.6g}",
            "probabilities summing to 1 at most (the rest leaves: open classes only)",
        )


def _state(members: np.ndarray, index: int, classes: tuple[str, ...], stations: tuple[str, ...]) -> str:
    n_stations = len(stations)
    return f"class {classes[int(members[index // n_stations])]!r} at station {stations[index % n_stations]!r}"


def _closed_chain(
    inside: np.ndarray,
    reference: int,
    classes: tuple[str, ...],
    stations: tuple[str, ...],
    members: np.ndarray,
) -> np.ndarray:
    """v = v P on the chain's one recurrent set of states (0 elsewhere: transient states), with Σ v at the
    reference station = 1; rows of reached states sum to 1."""
    n_stations = len(stations)
    chain = f"the chain of class {classes[int(members[0])]!r}"
    rows = inside.sum(axis=1)
    reached = (rows > 0) | (inside.sum(axis=0) > 0)
    leaking = reached & (np.abs(rows - 1) > TOLERANCE)
    if leaking.any():
        index = int(np.flatnonzero(leaking)[0])
        raise InputError(
            f"routing of {_state(members, index, classes, stations)}",
            f"sums to {rows[index]:.6g}",
            "1 in a closed class (its jobs never leave; an arrival_rate makes it open)",
        )
    component = _components(inside)
    leaves = np.zeros(component.max() + 1, dtype=bool)  # a component with an edge out is transient
    source, target = np.nonzero(inside > 0)
    leaves[component[source[component[source] != component[target]]]] = True
    recurrent = np.unique(component[reached & ~leaves[component]])
    if recurrent.size != 1:
        raise InputError(
            f"routing of {chain}",
            f"{recurrent.size} closed cycles of stations",
            "one set of stations that every job of the chain reaches and cycles through "
            "(split the chain into classes that do not switch, one per cycle)",
        )
    cycle = np.flatnonzero(reached & (component == recurrent[0]))
    at_reference = np.isin(cycle, np.arange(members.size) * n_stations + reference)
    if not at_reference.any():
        raise InputError(
            f"reference station of {chain}",
            repr(stations[reference]),
            "a station the chain's jobs cycle through",
        )
    share = stationary(inside[np.ix_(cycle, cycle)], f"the routing of {chain}")
    visits = np.zeros(inside.shape[0])
    visits[cycle] = share / share[at_reference].sum()
    return visits


def _open_chain(
    inside: np.ndarray,
    external: np.ndarray,
    classes: tuple[str, ...],
    stations: tuple[str, ...],
    members: np.ndarray,
) -> np.ndarray:
    """λ = λ⁰ + λ P on the chain's states, divided by Σ λ⁰: visits per job arriving. Solved as a closed
    chain through the outside (state 0: arrivals leave it in proportion to λ⁰, departures return to it),
    whose stationary π gives v = π / π_0."""
    size = inside.shape[0]
    around = np.zeros((size + 1, size + 1))
    around[0, 1:] = external / external.sum()
    around[1:, 1:] = inside
    around[1:, 0] = np.maximum(1.0 - inside.sum(axis=1), 0.0)
    component = _components(around)
    reached = _reachable(around)
    if (component[reached] != component[0]).any():
        raise InputError(
            f"routing of the open chain of class {classes[int(members[0])]!r}",
            "jobs that never leave",
            "rows that let every job leave the network at last "
            "(a row of an open class sums below 1 somewhere on each cycle)",
        )
    states = np.flatnonzero(reached)
    share = stationary(
        around[np.ix_(states, states)], f"the routing of the open chain of class {classes[int(members[0])]!r}"
    )
    visits = np.zeros(size + 1)
    visits[states] = share / share[0]
    return visits[1:]


def _components(matrix: np.ndarray) -> np.ndarray:
    """The strongly connected component of each state of the graph i → j where matrix[i, j] > 0."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    return connected_components(csr_matrix(matrix > 0), directed=True, connection="strong")[1]


def _reachable(matrix: np.ndarray) -> np.ndarray:
    """Which states the graph i → j (matrix[i, j] > 0) reaches from state 0."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order

    reached = np.zeros(matrix.shape[0], dtype=bool)
    reached[breadth_first_order(csr_matrix(matrix > 0), 0, directed=True, return_predecessors=False)] = True
    return reached


def routing_tensor(routing: object, classes: tuple[str, ...], n_stations: int) -> np.ndarray:
    """P[r, i, s, j] from what users of the peers write: one K × K matrix (one class, or every class
    alike), one per class (C, K, K: no switching), the full (C, K, C, K), or a dict mapping
    (from class, to class) names or indices to K × K matrices (LINE's P{r, s})."""
    n_classes = len(classes)
    shape = (n_classes, n_stations, n_classes, n_stations)
    if isinstance(routing, dict):
        tensor = np.zeros(shape)
        for key, matrix in routing.items():
            pair = key if isinstance(key, tuple) else (key, key)
            if len(pair) != 2:
                raise InputError("routing", repr(key), "(from class, to class) pairs as keys")
            r, s = (_class_index(name, classes) for name in pair)
            tensor[r, :, s, :] = _square(matrix, n_stations, f"routing {pair!r}")
        return tensor
    array = _array(routing, "routing")
    if array.ndim == 2:
        square = _square(array, n_stations, "routing")
        tensor = np.zeros(shape)
        for r in range(n_classes):
            tensor[r, :, r, :] = square
        return tensor
    if array.shape == (n_classes, n_stations, n_stations):
        tensor = np.zeros(shape)
        for r in range(n_classes):
            tensor[r, :, r, :] = array[r]
        return tensor
    if array.shape == shape:
        return array
    raise InputError(
        "routing",
        f"shape {array.shape}",
        f"{n_stations} × {n_stations} (stations), "
        f"{n_classes} × {n_stations} × {n_stations} (per class) or {shape} (class switching)",
    )


def _array(values: object, name: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(
            name, repr(values), "probabilities from 0 to 1 in rows of equal length, one per station"
        ) from None
    return array


def _square(matrix: object, n_stations: int, name: str) -> np.ndarray:
    array = _array(matrix, name)
    if array.shape != (n_stations, n_stations):
        raise InputError(
            name,
            f"shape {array.shape}",
            f"{n_stations} × {n_stations}: from station (row) to station (column), in station order",
        )
    return array


def _class_index(name: object, classes: tuple[str, ...]) -> int:
    if isinstance(name, (int, np.integer)) and not isinstance(name, bool) and 0 <= name < len(classes):
        return int(name)
    if name in classes:
        return classes.index(str(name))
    raise InputError("routing: class", repr(name), "a class name: " + ", ".join(classes))
