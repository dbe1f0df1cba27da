"""Station types, each defined once: its service-rate multipliers, capacity, label and solvers.

A station serves its jobs at a rate that may depend on how many are present:
with j jobs the service rate is α(j) times the rate of one job alone.

| type    | α(j)                          | capacity | solvers                                        |
| ------- | ----------------------------- | -------- | ---------------------------------------------- |
| queue   | 1                             | 1        | all                                            |
| delay   | j (an infinite server)        | ∞        | all                                            |
| multi   | min(j, c) for c servers       | c        | all                                            |
| ld      | the table α(1..L), α(L) after | max α    | all but seidmann                               |
| hetero  | the n fastest speeds' sum     | Σ speeds | all but seidmann                               |

Every finite station is described to the solvers by its *rate table*
α(1..L), whose last entry holds for any larger j (L = 1 for a queue, c for
c servers); the MVA recursions need the marginal probabilities p(0..L−2)
only (see exact.py). To add a type: subclass StationType, give it a name,
its rate table and label, and add it to STATION_TYPES; no solver changes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

SOLVERS = frozenset({"exact", "schweitzer", "linearizer", "seidmann", "open", "mixed", "bounds"})


class StationType:
    """What a kind of station is: the solvers ask it, they never compare its name."""

    name = ""
    infinite = False  # an infinite server: no queueing, R = D
    solvers = SOLVERS
    description = ""

    def rate_table(self, station: Station) -> tuple[float, ...]:
        """α(1..L); α(L) holds for every j ≥ L. Empty for an infinite server."""
        raise NotImplementedError

    def label(self, station: Station) -> str:
        return self.name

    def utilization(self, station: Station, load: np.ndarray, busy: float) -> np.ndarray:
        """Per-class utilization from per-class load X_c·D_c (jobs of work per unit time).

        ``busy`` is the probability that the station is not empty. The
        default: the busy fraction of one server, X_c·D_c / capacity.
        """
        return load / self.capacity(station)

    def capacity(self, station: Station) -> float:
        """Largest rate multiplier: the most work the station does per unit time (∞ for a delay)."""
        return float(max(self.rate_table(station)))

    def table_length(self, station: Station) -> int:
        """L, the length of the rate table (0 for an infinite server), without building it."""
        return len(self.rate_table(station))

    def load_dependent(self, station: Station) -> bool:
        """Whether the rate depends on the jobs present (more than one value in the rate table)."""
        return len(set(self.rate_table(station))) > 1

    def last_rate(self, station: Station) -> float:
        """α(L), the rate that holds for every j ≥ L, without building the table."""
        return self.rate_table(station)[-1]

    def within(self, station: Station, jobs: int) -> Station:
        """The station as at most ``jobs`` jobs see it: α(1..jobs) unchanged, a shorter table if it can."""
        return station


class Queue(StationType):
    name = "queue"
    description = "a single load-independent server (FCFS exponential, or PS)"

    def rate_table(self, station: Station) -> tuple[float, ...]:
        return (1.0,)


class Delay(StationType):
    name = "delay"
    infinite = True
    description = "an infinite server: a pure delay (think time, a fixed latency)"

    def rate_table(self, station: Station) -> tuple[float, ...]:
        return ()

    def capacity(self, station: Station) -> float:
        return float("inf")

    def table_length(self, station: Station) -> int:
        return 0

    def utilization(self, station: Station, load: np.ndarray, busy: float) -> np.ndarray:
        """At a delay station: X·D, the mean number of jobs in service."""
        return load


class MultiServer(StationType):
    name = "multi"
    description = "c identical servers fed by one queue"

    def rate_table(self, station: Station) -> tuple[float, ...]:
        return tuple(float(j) for j in range(1, station.servers + 1))

    def label(self, station: Station) -> str:
        return f"multi ({station.servers})"

    def capacity(self, station: Station) -> float:
        return float(station.servers)

    def table_length(self, station: Station) -> int:
        return station.servers

    def load_dependent(self, station: Station) -> bool:
        return station.servers > 1

    def last_rate(self, station: Station) -> float:
        return float(station.servers)

    def within(self, station: Station, jobs: int) -> Station:
        """More servers than jobs: as many as the jobs (α(j) = j for every j ≤ jobs either way)."""
        return replace(station, servers=max(jobs, 1)) if station.servers > jobs else station


class LoadDependent(StationType):
    name = "ld"
    solvers = SOLVERS - {"seidmann"}
    description = "a general load-dependent server: rate multipliers α(1), α(2), ..., the last holding"

    def rate_table(self, station: Station) -> tuple[float, ...]:
        return tuple(float(r) for r in station.rates)

    def label(self, station: Station) -> str:
        return "ld (" + ", ".join(f"{r:g}" for r in station.rates) + ")"

    def within(self, station: Station, jobs: int) -> Station:
        """α(1..jobs) only: the rates past the jobs are never used."""
        return replace(station, rates=station.rates[: max(jobs, 1)]) if len(station.rates) > jobs else station

    def utilization(self, station: Station, load: np.ndarray, busy: float) -> np.ndarray:
        """Busy = not empty (a rate table has no servers to count), shared by the classes' loads; a table
        of one rate is a queue of that speed: load / α."""
        if not self.load_dependent(station):
            return load / self.capacity(station)
        total = float(load.sum())
        return load / total * busy if total > 0 else np.zeros_like(load)


class Heterogeneous(LoadDependent):
    name = "hetero"
    description = (
        "servers of different speeds (speeds relative to the service time): with n jobs the n "
        "fastest are busy, a job moving to a faster server as one frees; the M/M/m queue of "
        "fastest-free servers without moving is qmodel.algorithms.heterogeneous"
    )

    def rate_table(self, station: Station) -> tuple[float, ...]:
        return tuple(float(r) for r in np.cumsum(sorted(station.rates, reverse=True)))

    def label(self, station: Station) -> str:
        return "hetero (" + ", ".join(f"{r:g}" for r in station.rates) + ")"

    def within(self, station: Station, jobs: int) -> Station:
        """The ``jobs`` fastest servers only: the slower ones never serve."""
        fastest = tuple(sorted(station.rates, reverse=True)[: max(jobs, 1)])
        return replace(station, rates=fastest) if len(station.rates) > jobs else station


STATION_TYPES: dict[str, StationType] = {
    kind.name: kind for kind in (Queue(), Delay(), MultiServer(), LoadDependent(), Heterogeneous())
}


# How a station picks the jobs it serves (qmodel.networks.scheduling): "" is product form (a queue's MVA,
# PS or FCFS with one service time for every class); "ps" and "lcfs-pr" are product form too
SCHEDULING = ("", "fcfs", "ps", "lcfs-pr", "priority", "priority-np")


@dataclass(frozen=True)
class Station:
    """One service centre: its name, type, servers (multi) or rate multipliers (ld), its scheduling
    (SCHEDULING) and its buffer: the most jobs it holds, in service and waiting (None: no limit)."""

    name: str
    kind: str = "queue"
    servers: int = 1
    rates: tuple[float, ...] = ()
    scheduling: str = ""
    buffer: int | None = None

    @property
    def type(self) -> StationType:
        return STATION_TYPES[self.kind]

    @property
    def infinite(self) -> bool:
        return self.type.infinite

    @property
    def rate_table(self) -> tuple[float, ...]:
        return self.type.rate_table(self)

    @property
    def load_dependent(self) -> bool:
        """Whether the rate depends on the jobs present (more than one entry in the rate table)."""
        return self.type.load_dependent(self)

    @property
    def capacity(self) -> float:
        return self.type.capacity(self)

    @property
    def table_length(self) -> int:
        """L, the rate table's length (0 at a delay station), without building the table."""
        return self.type.table_length(self)

    @property
    def last_rate(self) -> float:
        """α(L), the rate for any L or more jobs, without building the table."""
        return self.type.last_rate(self)

    def within(self, jobs: int) -> Station:
        """The same station for a network of at most ``jobs`` jobs, its rate table cut to what they use
        (a million servers serve 3 jobs as 3 servers do)."""
        return self.type.within(self, jobs)

    @property
    def label(self) -> str:
        """The type's label, with the scheduling and buffer where given: "multi (4), priority, buffer 10"."""
        parts = [self.type.label(self), self.scheduling, f"buffer {self.buffer}" if self.buffer else ""]
        return ", ".join(part for part in parts if part)

    def supports(self, solver: str) -> bool:
        return solver in self.type.solvers

    def rate_multipliers(self, jobs: int) -> np.ndarray:
        """α(1..jobs): j at a delay station, else the rate table with its last entry holding."""
        if self.infinite:
            return np.arange(1, jobs + 1, dtype=float)
        table = np.asarray(self.rate_table, float)
        return np.concatenate([table, np.full(max(jobs - table.size, 0), table[-1])])[:jobs]
