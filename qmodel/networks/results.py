"""One result for every network solver: NetworkResult (per class, per class and station; a sweep's curve).

Arrays are in SI units (seconds, jobs per second); ``records()`` and
``to_json()`` give times in the network's ``time_unit`` and throughputs per
second, each key naming its unit (:func:`qmodel.frames.key`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qmodel import frames
from qmodel.networks.model import Network
from qmodel.units import UNITS


@dataclass(frozen=True)
class Curve:
    """A single-class sweep's system figures at every population 1..N (no per-station arrays)."""

    population: np.ndarray  # (P,) jobs
    throughput: np.ndarray  # (P,) jobs per second
    response_time: np.ndarray  # (P,) seconds in the stations, think time excluded


@dataclass(frozen=True)
class NetworkResult:
    """The mean values of a queueing network at one population (closed classes) and arrival rates (open).

    Per class (C,): ``throughput`` [1/s], ``response_time`` [s] (think time
    excluded), ``populations`` (0 for an open class). Per class and station
    (C, K): ``utilization`` (per server; at a delay station X·D, jobs in
    service; at an ld station the probability it is busy, shared by the
    classes' loads), ``queue_length`` [jobs], ``residence_time`` [s per job,
    all visits], ``per_visit_time`` [s], ``station_throughput`` [visits/s].
    A network without visit counts counts one visit wherever a class has
    demand. ``curve``: the system figures at every population of a
    single-class sweep; ``points``: full results at the populations asked for.
    Method convolution adds ``log_normalizing_constant`` (log G(N)) and
    ``marginals`` (K, |N| + 1), the probability of j = 0..|N| jobs at each station;
    method ctmc the same marginals (up to the most jobs a station holds). Where open
    classes meet a full buffer, ``lost`` (C, K) is the arrivals lost per second
    at each station, and the network's visits are those made.
    """

    network: Network = field(repr=False)
    method: str
    populations: np.ndarray  # (C,)
    throughput: np.ndarray  # (C,) jobs per second
    response_time: np.ndarray  # (C,) seconds
    utilization: np.ndarray  # (C, K)
    queue_length: np.ndarray  # (C, K) jobs
    residence_time: np.ndarray  # (C, K) seconds
    curve: Curve | None = None
    points: tuple[NetworkResult, ...] = ()
    log_normalizing_constant: float | None = None  # method convolution: log G(N) (states.py)
    marginals: np.ndarray | None = None  # convolution, ctmc: (K, J + 1) p_k(j jobs)
    lost: np.ndarray | None = None  # buffers with open classes: (C, K) arrivals lost per s

    @property
    def stations(self) -> tuple[str, ...]:
        return self.network.station_names

    @property
    def classes(self) -> tuple[str, ...]:
        return self.network.classes

    @property
    def time_unit(self) -> str:
        return self.network.time_unit

    @property
    def open_classes(self) -> np.ndarray:
        return self.network.open_classes

    @property
    def station_throughput(self) -> np.ndarray:
        """X_c · V_ck: visits per second of each class at each station."""
        return self.throughput[:, None] * self.network.visit_counts

    @property
    def per_visit_time(self) -> np.ndarray:
        """R_ck / V_ck in seconds (0 where a class does not visit the station)."""
        visits = self.network.visit_counts
        zero = np.zeros_like(self.residence_time)
        return np.divide(self.residence_time, visits, out=zero, where=visits > 0)

    def point(self, population: int) -> NetworkResult:
        """The full result at one of the populations asked for (``at``) in a sweep."""
        for point in self.points:
            if int(point.populations.sum()) == population:
                return point
        raise KeyError(population)

    def class_records(self) -> list[dict[str, Any]]:
        """Per class, keys naming their units: population or arrival rate, think time, throughput [1/s],
        response time."""
        unit = self.time_unit
        scale = UNITS[unit].to_si
        return [
            {
                "class": name,
                "population": int(self.populations[c]) if not self.open_classes[c] else None,
                "arrival_rate[1/s]": float(self.network.arrival_rates[c]) if self.open_classes[c] else None,
                frames.key("think_time", unit): float(self.network.think_times[c] / scale),
                "throughput[1/s]": float(self.throughput[c]),
                frames.key("response_time", unit): float(self.response_time[c] / scale),
            }
            for c, name in enumerate(self.classes)
        ]

    def records(self) -> list[dict[str, Any]]:
        """Per class and station, keys naming their units: type, demand, utilization, queue length,
        residence and per-visit time, station throughput [visits/s] (:meth:`station_columns` by row)."""
        columns = self.station_columns()
        cells = [column.tolist() if isinstance(column, np.ndarray) else column for column in columns.values()]
        return [dict(zip(columns, row, strict=True)) for row in zip(*cells, strict=True)]

    def station_columns(self) -> dict[str, np.ndarray | list]:
        """The :meth:`records` column by column (class by class, a row per station): arrays, and a list
        for the per-visit time where a class does not visit a station (None there)."""
        unit = self.time_unit
        scale = UNITS[unit].to_si
        classes, stations = len(self.classes), len(self.network.stations)
        visited = (self.network.visit_counts > 0).ravel()
        per_visit: np.ndarray | list[float | None] = (self.per_visit_time / scale).ravel()
        if not visited.all():
            times = (self.per_visit_time / scale).ravel().tolist()
            per_visit = [value if seen else None for value, seen in zip(times, visited.tolist(), strict=True)]
        lost = {} if self.lost is None else {frames.key("lost", "1/s"): self.lost.ravel()}
        return {
            "class": np.repeat(np.array(self.classes, dtype=object), stations),
            "station": np.tile(np.array(self.network.station_names, dtype=object), classes),
            "type": np.tile(np.array([s.label for s in self.network.stations], dtype=object), classes),
            frames.key("demand", unit): (self.network.demands / scale).ravel(),
            "utilization[ratio]": self.utilization.ravel(),
            "queue_length": self.queue_length.ravel(),
            frames.key("residence_time", unit): (self.residence_time / scale).ravel(),
            frames.key("per_visit_time", unit): per_visit,
            "station_throughput[1/s]": self.station_throughput.ravel(),
            **lost,
        }

    def to_frame(self):
        """Per class and station (:meth:`records`) as a pandas DataFrame, units in the column names."""
        return frames.to_frame(self.records())

    def _repr_html_(self) -> str:
        classes = frames.html(f"{self.method}: per class", self.class_records())
        return classes + frames.html("per class and station", self.records())

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: the method, the time unit, classes and stations (:meth:`class_records`,
        :meth:`records`); a sweep adds its curve (population, throughput [1/s], response time) and the
        per-station figures (K per row) at the populations kept (``at``), keys naming their units."""
        unit = self.time_unit
        scale = UNITS[unit].to_si
        payload: dict[str, Any] = {
            "method": self.method,
            "time_unit": unit,
            "classes": self.class_records(),
            "stations": self.records(),
        }
        if self.log_normalizing_constant is not None:
            payload["log_normalizing_constant"] = self.log_normalizing_constant
        if self.marginals is not None:
            payload["marginals"] = {
                name: row.tolist()
                for name, row in zip(self.network.station_names, self.marginals, strict=True)
            }
        if self.curve is not None:
            kept = (*self.points, self)
            payload.update(
                {
                    "population": self.curve.population.tolist(),
                    "throughput[1/s]": self.curve.throughput.tolist(),
                    frames.key("response_time", unit): (self.curve.response_time / scale).tolist(),
                    "at": [int(p.populations.sum()) for p in kept],
                    "queue_length": [p.queue_length.sum(axis=0).tolist() for p in kept],
                    frames.key("residence_time", unit): [
                        (p.residence_time.sum(axis=0) / scale).tolist() for p in kept
                    ],
                    "utilization[ratio]": [p.utilization.sum(axis=0).tolist() for p in kept],
                }
            )
        return payload
