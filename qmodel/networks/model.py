"""Queueing-network models: stations, classes and their demands, from Python or a TOML file.

A model file::

    time_unit = "s"                      # unit of every demand, service and think time

    [[station]]
    name = "cpu"
    type = "queue"                       # queue | delay | multi | ld
    demand = 2.0                         # per class: a list in class order
    # or: visits = 16, service_time = 0.125   (demand = visits × service_time)

    [[station]]
    name = "engines"
    type = "multi"
    servers = 4
    demand = 1.5

    [[station]]
    name = "channel"
    type = "ld"                          # general load-dependent
    rates = [1, 1.8, 2.4]                # service-rate multiplier with 1, 2, 3... jobs present;
    demand = 0.8                         # the last holds for more jobs

    [[class]]
    name = "online"
    population = 20                      # closed class ...
    think_time = 4
    # arrival_rate = 2.5                 # ... or open class (per time_unit)

Station types: ``queue`` a load-independent FCFS/PS server; ``delay`` an
infinite server (think time, a pure delay); ``multi`` ``servers`` identical
servers; ``ld`` a general load-dependent server with rate multipliers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from qmodel.errors import InputError
from qmodel.units import UNITS

STATION_TYPES = ("queue", "delay", "multi", "ld")
STATION_KEYS = {"name", "type", "demand", "visits", "service_time", "servers", "rates"}
CLASS_KEYS = {"name", "population", "think_time", "arrival_rate"}


@dataclass(frozen=True)
class Station:
    """One service centre: its type, servers (multi) or rate multipliers (ld)."""

    name: str
    kind: str = "queue"
    servers: int = 1
    rates: tuple[float, ...] = ()

    def rate_multipliers(self, jobs: int) -> np.ndarray:
        """Service-rate multipliers α(1..jobs): 1 for a queue, min(j, c) for c servers, ld as given."""
        j = np.arange(1, jobs + 1, dtype=float)
        if self.kind == "multi":
            return np.minimum(j, self.servers)
        if self.kind == "ld":
            given = np.asarray(self.rates, float)
            return np.concatenate([given, np.full(max(jobs - given.size, 0), given[-1])])[:jobs]
        return np.ones(jobs)

    @property
    def load_dependent(self) -> bool:
        return self.kind == "ld" or (self.kind == "multi" and self.servers > 1)

    @property
    def capacity(self) -> float:
        """Largest service-rate multiplier: the most work the station does per unit time."""
        if self.kind == "multi":
            return float(self.servers)
        if self.kind == "ld":
            return float(max(self.rates))
        return 1.0


def delay_stations(stations: tuple[Station, ...]) -> np.ndarray:
    """Boolean mask of the delay (infinite-server) stations."""
    return np.array([s.kind == "delay" for s in stations], dtype=bool)


def capacities(stations: tuple[Station, ...]) -> np.ndarray:
    """Each station's capacity (servers, or largest rate multiplier; 1 for queue and delay)."""
    return np.array([s.capacity for s in stations], dtype=float)


def refuse_load_dependent(stations: tuple[Station, ...], where: str) -> None:
    """An InputError naming the first multi-server or load-dependent station, for solvers without them."""
    for station in stations:
        if station.load_dependent:
            raise InputError(f"station {station.name!r}: type", station.kind, f"queue or delay {where}")


@dataclass(frozen=True)
class Network:
    """A product-form queueing network: stations, classes, demands (classes × stations)."""

    stations: tuple[Station, ...]
    classes: tuple[str, ...]
    demands: np.ndarray          # (classes, stations), in time_unit per job
    think_times: np.ndarray      # (classes,)
    populations: np.ndarray      # (classes,) closed-class populations; 0 for an open class
    arrival_rates: np.ndarray    # (classes,) open-class arrival rates; 0 for a closed class
    visits: np.ndarray | None = None  # (classes, stations) when given: per-visit results
    time_unit: str = "s"

    @property
    def station_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.stations)

    @property
    def open_classes(self) -> np.ndarray:
        return self.arrival_rates > 0

    @property
    def closed_classes(self) -> np.ndarray:
        return ~self.open_classes


def network(demands: Any, *, servers: Any = None, think_time: Any = 0.0, population: Any = 0,
            arrival_rate: Any = 0.0, visits: Any = None, names: Any = None, classes: Any = None,
            time_unit: str = "s") -> Network:
    """A network from arrays: demands per station (or classes × stations).

    ``servers`` per station: an integer, or ``"delay"`` (also ``inf``) for an
    infinite server; default one server each. With ``visits``, ``demands``
    are per-visit service times and the demand is visits × service time.
    """
    service = _matrix(demands, "demand")
    if visits is not None:
        visit_matrix = _matrix(visits, "visits")
        if visit_matrix.shape != service.shape:
            raise InputError("visits", f"shape {visit_matrix.shape}",
                             f"the shape of the service times, {service.shape} (classes × stations)")
        service = service * visit_matrix
    else:
        visit_matrix = None
    n_classes, n_stations = service.shape
    station_names = list(names) if names is not None else [f"station{k + 1}" for k in range(n_stations)]
    _same_length("names", station_names, n_stations)
    kinds = _servers(servers, n_stations)
    stations = tuple(Station(name, kind, count)
                     for name, (kind, count) in zip(station_names, kinds, strict=True))
    class_names = tuple(classes) if classes is not None else (
        ("class1",) if n_classes == 1 else tuple(f"class{c + 1}" for c in range(n_classes)))
    _same_length("classes", class_names, n_classes)
    return _checked(Network(
        stations=stations, classes=class_names, demands=service,
        think_times=_per_class(think_time, n_classes, "think_time"),
        populations=_per_class(population, n_classes, "population"),
        arrival_rates=_per_class(arrival_rate, n_classes, "arrival_rate"),
        visits=visit_matrix, time_unit=time_unit))


def load_model(path: str | Path) -> Network:
    """Read a TOML model file (see the module docstring for its layout)."""
    from qmodel.tomlread import read_toml

    data = read_toml(Path(path))
    where = str(path)
    unknown = set(data) - {"time_unit", "station", "class", "title"}
    if unknown:
        raise InputError(f"{where}: key", ", ".join(sorted(unknown)), "time_unit, title, station, class")
    time_unit = data.get("time_unit", "s")
    if time_unit not in UNITS or UNITS[time_unit].dimension != "time":
        raise InputError(f"{where}: time_unit", repr(time_unit), "a time unit: s, ms, us, min")
    class_tables = data.get("class") or [{"name": "class1"}]
    station_tables = data.get("station") or []
    if not station_tables:
        raise InputError(f"{where}: station", "none", "at least one [[station]] table")
    n_classes = len(class_tables)
    for index, table in enumerate(class_tables, 1):
        _known_keys(table, CLASS_KEYS, f"{where}: class {index}")
    class_names = [str(t.get("name", f"class{i}")) for i, t in enumerate(class_tables, 1)]
    stations, demand_rows, visit_rows, any_visits = [], [], [], False
    for index, table in enumerate(station_tables, 1):
        label = f"{where}: station {table.get('name', index)!r}"
        _known_keys(table, STATION_KEYS, label)
        stations.append(_station(table, label))
        demand, visit = _station_demand(table, n_classes, label)
        any_visits |= visit is not None
        demand_rows.append(demand)
        visit_rows.append(visit if visit is not None else np.full(n_classes, np.nan))
    for table, name in zip(class_tables, class_names, strict=False):
        if ("population" in table) == ("arrival_rate" in table):
            given = ", ".join(sorted(set(table) & {"population", "arrival_rate"})) or "neither"
            raise InputError(f"{where}: class {name!r}", given,
                             "exactly one of population (closed class) or arrival_rate (open class)")
    return _checked(Network(
        stations=tuple(stations), classes=tuple(class_names),
        demands=np.array(demand_rows, float).T,
        think_times=_per_class([t.get("think_time", 0.0) for t in class_tables], n_classes, "think_time"),
        populations=_per_class([t.get("population", 0) for t in class_tables], n_classes, "population"),
        arrival_rates=_per_class([t.get("arrival_rate", 0.0) for t in class_tables], n_classes,
                                 "arrival_rate"),
        visits=np.array(visit_rows, float).T if any_visits else None, time_unit=time_unit))


def _station(table: dict, label: str) -> Station:
    kind = table.get("type", "queue")
    if kind not in STATION_TYPES:
        raise InputError(f"{label}: type", repr(kind), ", ".join(STATION_TYPES))
    servers = table.get("servers", 1)
    if kind == "multi" and (isinstance(servers, bool) or not isinstance(servers, int) or servers < 1):
        raise InputError(f"{label}: servers", repr(servers), "a whole number ≥ 1")
    rates = tuple(table.get("rates", ()))
    if kind == "ld":
        if not rates:
            raise InputError(f"{label}: rates", "missing", "rates = [α(1), α(2), ...] for an ld station")
        values = np.asarray(rates, float) if all(_is_number(r) for r in rates) else None
        if values is None or not np.all(values > 0) or not np.all(np.isfinite(values)):
            raise InputError(f"{label}: rates", repr(list(rates)), "a list of positive numbers")
    return Station(str(table.get("name", label)), kind, int(servers) if kind == "multi" else 1, rates)


def _station_demand(table: dict, n_classes: int, label: str) -> tuple[np.ndarray, np.ndarray | None]:
    has_demand = "demand" in table
    has_product = "visits" in table or "service_time" in table
    if has_demand == has_product:
        raise InputError(f"{label}: demand", "both" if has_demand else "missing",
                         "demand, or visits and service_time (one of the two)")
    if has_demand:
        return _per_class(table["demand"], n_classes, f"{label}: demand"), None
    if not ("visits" in table and "service_time" in table):
        raise InputError(f"{label}: visits/service_time", "only one given", "both, or demand instead")
    visits = _per_class(table["visits"], n_classes, f"{label}: visits")
    service = _per_class(table["service_time"], n_classes, f"{label}: service_time")
    return visits * service, visits


def _known_keys(table: dict, allowed: set[str], label: str) -> None:
    unknown = set(table) - allowed
    if unknown:
        raise InputError(f"{label}: key", ", ".join(sorted(unknown)), ", ".join(sorted(allowed)))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _matrix(values: Any, name: str) -> np.ndarray:
    matrix = _numbers(values, name)
    if matrix.ndim == 1:
        matrix = matrix[np.newaxis, :]
    if matrix.ndim != 2 or matrix.shape[1] == 0:
        raise InputError(name, f"shape {matrix.shape}", "one value per station, or classes × stations")
    return matrix


def _numbers(values: Any, name: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, repr(values), "a number or a list of numbers") from None
    return array


def _per_class(values: Any, n_classes: int, name: str) -> np.ndarray:
    array = np.atleast_1d(_numbers(values, name))
    if array.shape == (1,) and n_classes > 1 and np.isscalar(values):
        array = np.full(n_classes, array[0])
    if array.shape != (n_classes,):
        raise InputError(name, f"{array.size} values", f"one per class ({n_classes})")
    return array


def _same_length(name: str, values: Any, expected: int) -> None:
    if len(values) != expected:
        raise InputError(name, f"{len(values)} values", f"one per station ({expected})")


def _servers(servers: Any, n_stations: int) -> list[tuple[str, int]]:
    if servers is None:
        return [("queue", 1)] * n_stations
    items = list(servers) if not isinstance(servers, (str, int, float)) else [servers] * n_stations
    _same_length("servers", items, n_stations)
    kinds = []
    for item in items:
        if str(item).strip().lower() in ("delay", "inf", "infinite"):
            kinds.append(("delay", 1))
            continue
        try:
            count = float(item)
        except (TypeError, ValueError):
            raise InputError("servers", repr(item), "a whole number ≥ 1, or 'delay'") from None
        if count == np.inf:
            kinds.append(("delay", 1))
        elif count < 1 or count != int(count):
            raise InputError("servers", repr(item), "a whole number ≥ 1, or 'delay'")
        else:
            kinds.append(("queue", 1) if count == 1 else ("multi", int(count)))
    return kinds


def _checked(model: Network) -> Network:
    """Refuse negative or non-finite demands, bad populations and rates, naming the field."""
    for c, name in enumerate(model.classes):
        for k, station in enumerate(model.stations):
            demand = model.demands[c, k]
            if not np.isfinite(demand) or demand < 0:
                raise InputError(f"demand of class {name!r} at station {station.name!r}", f"{demand:g}",
                                 "a finite number ≥ 0")
        population = model.populations[c]
        if not np.isfinite(population) or population < 0 or population != int(population):
            raise InputError(f"population of class {name!r}", f"{population:g}", "a whole number ≥ 0")
        for field, values in (("think_time", model.think_times), ("arrival_rate", model.arrival_rates)):
            if not np.isfinite(values[c]) or values[c] < 0:
                raise InputError(f"{field} of class {name!r}", f"{values[c]:g}", "a finite number ≥ 0")
        if model.populations[c] > 0 and model.arrival_rates[c] > 0:
            raise InputError(f"class {name!r}", "population and arrival_rate",
                             "one of them: a class is closed or open")
    names = model.station_names
    if len(set(names)) != len(names):
        raise InputError("station names", repr(list(names)), "a different name for each station")
    return model
