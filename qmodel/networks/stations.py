"""Station types, each defined once: its service-rate multipliers, capacity, label and solvers.

A station serves its jobs at a rate that may depend on how many are present:
with j jobs the service rate is α(j) times the rate of one job alone.

| type    | α(j)                          | capacity | solvers                                        |
| ------- | ----------------------------- | -------- | ---------------------------------------------- |
| queue   | 1                             | 1        | all                                            |
| delay   | j (an infinite server)        | ∞        | all                                            |
| multi   | min(j, c) for c servers       | c        | all                                            |
| ld      | the table α(1..L), α(L) after | max α    | all but seidmann                               |

Every finite station is described to the solvers by its *rate table*
α(1..L), whose last entry holds for any larger j (L = 1 for a queue, c for
c servers); the MVA recursions need the marginal probabilities p(0..L−2)
only (see exact.py). To add a type: subclass StationType, give it a name,
its rate table and label, and add it to STATION_TYPES; no solver changes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SOLVERS = frozenset({"exact", "schweitzer", "linearizer", "seidmann", "open", "mixed", "bounds"})


class StationType:
    """What a kind of station is: the solvers ask it, they never compare its name."""

    name = ""
    infinite = False                 # an infinite server: no queueing, R = D
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


class LoadDependent(StationType):
    name = "ld"
    solvers = SOLVERS - {"seidmann"}
    description = "a general load-dependent server: rate multipliers α(1), α(2), ..., the last holding"

    def rate_table(self, station: Station) -> tuple[float, ...]:
        return tuple(float(r) for r in station.rates)

    def label(self, station: Station) -> str:
        return "ld (" + ", ".join(f"{r:g}" for r in station.rates) + ")"

    def utilization(self, station: Station, load: np.ndarray, busy: float) -> np.ndarray:
        """Busy = not empty (a rate table has no servers to count), shared by the classes' loads."""
        total = float(load.sum())
        return load / total * busy if total > 0 else np.zeros_like(load)


STATION_TYPES: dict[str, StationType] = {kind.name: kind for kind in (Queue(), Delay(), MultiServer(),
                                                                       LoadDependent())}


@dataclass(frozen=True)
class Station:
    """One service centre: its name, type, servers (multi) or rate multipliers (ld)."""

    name: str
    kind: str = "queue"
    servers: int = 1
    rates: tuple[float, ...] = ()

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
        return len(set(self.rate_table)) > 1

    @property
    def capacity(self) -> float:
        return self.type.capacity(self)

    @property
    def label(self) -> str:
        return self.type.label(self)

    def supports(self, solver: str) -> bool:
        return solver in self.type.solvers

    def rate_multipliers(self, jobs: int) -> np.ndarray:
        """α(1..jobs): j at a delay station, else the rate table with its last entry holding."""
        if self.infinite:
            return np.arange(1, jobs + 1, dtype=float)
        table = np.asarray(self.rate_table, float)
        return np.concatenate([table, np.full(max(jobs - table.size, 0), table[-1])])[:jobs]
