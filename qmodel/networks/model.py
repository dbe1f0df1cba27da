"""Queueing networks: stations, classes and their demands, from Python or a TOML model file.

A model file::

    time_unit = "ms"                     # unit of bare numbers: demands, service and think times

    [[station]]
    name = "cpu"
    type = "multi"                       # queue | delay | multi | ld (qmodel.networks.stations)
    servers = 8
    demand = ["2ms", "1.5ms"]            # per class, in class order; "400us" or 0.4 (time_unit)
    # or: visits = 16, service_time = 0.125   (demand = visits × service_time)

    [[station]]
    name = "channel"
    type = "ld"                          # general load-dependent
    rates = [1, 1.8, 2.4]                # service-rate multiplier with 1, 2, 3... jobs; the last holds
    demand = 0.8
    # type = "hetero", speeds = [2, 1, 1]: servers of different speeds (the fastest busy first)
    # scheduling = "fcfs" | "ps" | "lcfs-pr" | "priority" | "priority-np"; buffer = 10 (most jobs held)

    [[class]]
    name = "online"
    population = 20                      # closed class ...
    think_time = "4s"
    # arrival_rate = "250/s"             # ... or open class; a bare number is per time_unit
    # priority = 1                       # with priority scheduling: lower is served first

Or visits from a routing matrix (qmodel.networks.routing): each station
gives ``service_time`` per visit only, and ``[[routing]]`` tables give, per
class, the probability that a job leaving station i (row) goes to station j
(column); ``to_class`` makes it a class switch (the classes form a chain)::

    [[routing]]
    class = "online"                     # jobs of this class ...
    to_class = "batch"                   # ... become this class (default: stay)
    matrix = [[0, 0.9], [1, 0]]          # rows: from each station, columns: to each, in station order

and a class may name its ``reference`` station (one cycle is one visit to
it; an open class's ``arrival_rate`` enters there, or is given per station).

Values with units go through qmodel.units.parse_value, the dialect of every
command. A Network holds them in SI units (seconds, jobs per second); its
``time_unit`` is the unit results are shown in.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from qmodel.errors import InputError
from qmodel.networks.routing import routing_tensor, traffic
from qmodel.networks.stations import SCHEDULING, STATION_TYPES, Station
from qmodel.tomlread import read_toml
from qmodel.units import UNITS, parse_value

STATION_KEYS = {
    "name",
    "type",
    "demand",
    "visits",
    "service_time",
    "servers",
    "rates",
    "speeds",
    "scheduling",
    "buffer",
}
CLASS_KEYS = {"name", "population", "think_time", "arrival_rate", "reference", "priority"}
ROUTING_KEYS = {"class", "to_class", "matrix"}
# plausible magnitudes of a nonzero value, SI: a time from a femtosecond to about 30 years, a rate up to
# 10^15 per second; outside them the arithmetic over- or underflows (N/X − Z with Z = 1e308 s is 0)
TIME_RANGE = (1e-15, 1e9)
RATE_RANGE = (1e-15, 1e15)
TIME_UNITS = tuple(dict.fromkeys(unit.name for unit in UNITS.values() if unit.dimension == "time"))


@dataclass(frozen=True)
class Network:
    """A product-form queueing network: stations, classes, demands (classes × stations), in SI units."""

    stations: tuple[Station, ...]
    classes: tuple[str, ...]
    demands: np.ndarray  # (classes, stations) seconds per job, all visits
    think_times: np.ndarray  # (classes,) seconds
    populations: np.ndarray  # (classes,) closed-class populations; 0 for an open class
    arrival_rates: np.ndarray  # (classes,) open-class arrival rates, jobs per second; 0 for a closed class
    visits: np.ndarray | None = None  # (classes, stations) visits per job, when given
    time_unit: str = "s"  # the unit results are shown in
    chains: np.ndarray | None = None  # (classes,) chain of each class, from a routing matrix (routing.py)
    routing: np.ndarray | None = None  # (classes, stations, classes, stations) P[r, i, s, j], when given
    priorities: np.ndarray | None = None  # (classes,) priority of each class, lower first (priority.py)

    @property
    def station_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.stations)

    @property
    def open_classes(self) -> np.ndarray:
        """The classes with arrivals from outside, and those that switch from them (one open chain)."""
        arriving = self.arrival_rates > 0
        if self.chains is None:
            return arriving
        return np.isin(self.chains, self.chains[arriving])

    @property
    def switching(self) -> bool:
        """Whether some class switches into another (a chain of more than one class)."""
        return self.chains is not None and np.unique(self.chains).size < self.chains.size

    @property
    def closed_classes(self) -> np.ndarray:
        return ~self.open_classes

    @property
    def infinite(self) -> np.ndarray:
        """Boolean mask of the infinite-server (delay) stations."""
        return np.array([s.infinite for s in self.stations], dtype=bool)

    @property
    def capacities(self) -> np.ndarray:
        """Each station's capacity: servers, largest rate multiplier, ∞ at a delay station."""
        return np.array([s.capacity for s in self.stations], dtype=float)

    @property
    def visit_counts(self) -> np.ndarray:
        """Visits per job (classes × stations): as given, else one visit wherever a class has demand."""
        return self.visits if self.visits is not None else (self.demands > 0).astype(float)

    def within(self, jobs: int) -> Network:
        """The same network for at most ``jobs`` jobs: each station's rate table cut to what they use
        (Station.within), so a station with a billion servers costs no more than one with ``jobs``."""
        return replace(self, stations=tuple(s.within(jobs) for s in self.stations))

    def unsupported(self, solver: str) -> list[Station]:
        """The stations whose type the named solver does not handle."""
        return [s for s in self.stations if not s.supports(solver)]


def network(
    demands: Any,
    *,
    servers: Any = None,
    rates: Any = None,
    think_time: Any = 0.0,
    population: Any = 0,
    arrival_rate: Any = 0.0,
    visits: Any = None,
    names: Any = None,
    classes: Any = None,
    time_unit: str = "s",
    routing: Any = None,
    reference: Any = None,
    scheduling: Any = None,
    buffer: Any = None,
    priority: Any = None,
    speeds: Any = None,
) -> Network:
    """A network from arrays: demands per station (or classes × stations).

    Numbers are in ``time_unit`` (arrival rates per ``time_unit``); a string
    carries its own unit ("2ms", "400us"; "250/s" for a rate). ``servers`` per
    station: a whole number c ≥ 1 (c > 1: a multi-server station), or
    ``"delay"`` (also ``inf``) for an infinite server; default one each.
    ``rates`` per station: None, or the rate multipliers α(1), α(2), ... of a
    load-dependent station (the last holds for more jobs); a dict maps station
    names to them. With ``visits``, ``demands`` are per-visit service times
    and the demand is visits × service time.

    With ``routing`` (qmodel.networks.routing: P[r, i, s, j], a K × K matrix,
    one per class, or a dict {(from class, to class): K × K}), ``demands`` are
    per-visit service times and the visits solve the traffic equations;
    classes that switch into one another form a chain whose population is the
    sum of theirs. ``reference`` per class: the station (name or index) whose
    visit counts one cycle, and where a class's ``arrival_rate`` enters (or
    give it per station, classes × stations); default the first station.

    ``scheduling`` per station (a list, or a dict by name): "" (product
    form, the default), "fcfs", "ps", "lcfs-pr", "priority" (preemptive
    resume) or "priority-np" (non-preemptive), with ``priority`` per class
    (a whole number, lower served first); ``buffer`` per station: the most
    jobs it holds (None: no limit). ``speeds`` per station (a list, or a dict
    by name): None, or the relative speeds of its servers (a "hetero" station,
    the service time at speed 1). qmodel.networks.solver says which method
    solves what.

    :param demands: service demand per station (one class), or classes × stations; in ``time_unit``, or
        texts with their unit (``"2ms"``); per-visit service times with ``visits`` or ``routing``.
    :param servers: per station: c ≥ 1, or ``"delay"``; default one each.
    :param rates: per station: None, or the load-dependent rate multipliers α(1), α(2), ...
    :param think_time: per class, in ``time_unit`` (closed classes).
    :param population: per class: jobs of a closed class (0: open, or the class gives an arrival rate).
    :param arrival_rate: per class: arrivals per ``time_unit`` of an open class.
    :param visits: classes × stations: visits per job.
    :param names: station names; default station1, station2, ...
    :param classes: class names; default class1, class2, ...
    :param time_unit: the unit of bare numbers and of the results' times (``s``, ``ms``, ``us``).
    :param routing: per class (or class pair) K × K routing probabilities.
    :param reference: per class: the station whose visit counts one cycle (name or index).
    :param scheduling: per station: "", "fcfs", "ps", "lcfs-pr", "priority" or "priority-np".
    :param buffer: per station: the most jobs it holds (None: no limit).
    :param priority: per class: a whole number, lower served first.
    :param speeds: per station: None, or the relative speeds of its servers (service time at speed 1).
    :returns: the network, checked, in SI units (:class:`Network`).
    :raises InputError: naming the argument and value of anything that does not fit.
    """
    unit = _time_unit(time_unit, "time_unit")
    service = _matrix(demands, "demand", unit)
    if visits is not None and routing is not None:
        raise InputError(
            "visits",
            "given with routing",
            "visits or a routing matrix, not both (the routing gives the visits)",
        )
    if visits is not None:
        visit_matrix = _matrix(visits, "visits", None)
        if visit_matrix.shape != service.shape:
            raise InputError(
                "visits",
                f"shape {visit_matrix.shape}",
                f"the shape of the service times, {service.shape} (classes × stations)",
            )
        service = service * visit_matrix
    else:
        visit_matrix = None
    n_classes, n_stations = service.shape
    station_names = list(names) if names is not None else [f"station{k + 1}" for k in range(n_stations)]
    _same_length("names", station_names, n_stations)
    kinds = _servers(servers, n_stations)
    rate_tables = _per_station(rates, station_names, "rates")
    stations = []
    for name, (kind, count), table in zip(station_names, kinds, rate_tables, strict=True):
        if table is not None:
            if kind != "queue":
                raise InputError(
                    f"station {name!r}: servers and rates",
                    "both given",
                    "servers for a multi-server station, or rates for a load-dependent one",
                )
            stations.append(Station(str(name), "ld", 1, _positive_rates(table, f"rates of station {name!r}")))
        else:
            stations.append(Station(str(name), kind, count))
    for index, speed in enumerate(_per_station(speeds, station_names, "speeds")):
        if speed is not None:
            if stations[index].kind != "queue" or rate_tables[index] is not None:
                raise InputError(
                    f"station {station_names[index]!r}: speeds and servers or rates",
                    "both given",
                    "speeds for servers of different speeds, or servers, or rates",
                )
            stations[index] = Station(
                str(station_names[index]),
                "hetero",
                len(speed),
                _positive_rates(speed, f"speeds of station {station_names[index]!r}"),
            )
    schedules = _per_station(scheduling, station_names, "scheduling")
    buffers = _per_station(buffer, station_names, "buffer")
    stations = [
        disciplined(station, rule, limit, f"station {station.name!r}")
        for station, rule, limit in zip(stations, schedules, buffers, strict=True)
    ]
    class_names = (
        tuple(classes)
        if classes is not None
        else (("class1",) if n_classes == 1 else tuple(f"class{c + 1}" for c in range(n_classes)))
    )
    _same_length("classes", class_names, n_classes, "class")
    net = Network(
        stations=tuple(stations),
        classes=class_names,
        demands=service,
        think_times=_per_class(think_time, n_classes, "think_time", unit),
        populations=_per_class(population, n_classes, "population", None),
        arrival_rates=np.zeros(n_classes),
        visits=visit_matrix,
        time_unit=time_unit,
        priorities=None if priority is None else _priorities(priority, n_classes, "priority"),
    )
    if routing is None:
        if reference is not None:
            raise InputError("reference", repr(reference), "a reference station with a routing matrix only")
        return checked(
            replace(net, arrival_rates=_rates_per_class(arrival_rate, n_classes, "arrival_rate", unit))
        )
    return checked(routed(net, routing, reference, arrival_rate))


def routed(net: Network, routing: Any, reference: Any, arrival_rate: Any) -> Network:
    """``net`` (its demands per-visit service times) with the visits of ``routing`` and its chains; the
    arrival rates per class (at its reference station) or per class and station (qmodel.networks.routing)."""
    classes = tuple(str(name) for name in net.classes)
    n_classes, n_stations = net.demands.shape
    tensor = routing_tensor(routing, classes, n_stations)
    references = _references(reference, net.station_names, n_classes)
    arrivals = _arrivals(arrival_rate, references, n_classes, n_stations, net.time_unit)
    flow = traffic(tensor, references, arrivals, classes, net.station_names)
    return replace(
        net,
        demands=net.demands * flow.visits,
        visits=flow.visits,
        arrival_rates=arrivals.sum(axis=1),
        chains=flow.chains,
        routing=tensor,
    )


def _references(reference: Any, station_names: tuple[str, ...], n_classes: int) -> np.ndarray:
    """Each class's reference station (index): one for all, or one per class, by name or index."""
    items = (
        [0] * n_classes
        if reference is None
        else (
            list(reference) if isinstance(reference, (list, tuple, np.ndarray)) else [reference] * n_classes
        )
    )
    _same_length("reference", items, n_classes, "class")
    indices = []
    for item in items:
        if item is None:
            indices.append(0)
        elif isinstance(item, str) and item in station_names:
            indices.append(station_names.index(item))
        elif _is_number(item) and item == int(item) and 0 <= item < len(station_names):
            indices.append(int(item))
        else:
            raise InputError(
                "reference",
                repr(item),
                "a station name (" + ", ".join(station_names) + f") or index 0 to {len(station_names) - 1}",
            )
    return np.array(indices, dtype=np.int64)


def _arrivals(
    arrival_rate: Any, references: np.ndarray, n_classes: int, n_stations: int, unit: str
) -> np.ndarray:
    """(C, K) external arrival rates, jobs per second: per class and station as given, or each class's
    rate at its reference station."""
    listed = isinstance(arrival_rate, (list, tuple, np.ndarray))
    rows = list(arrival_rate) if listed else [arrival_rate] * n_classes
    _same_length("arrival_rate", rows, n_classes, "class")
    arrivals = np.zeros((n_classes, n_stations))
    for c, row in enumerate(rows):
        if isinstance(row, (list, tuple, np.ndarray)):
            _same_length(f"arrival_rate of class {c + 1}", row, n_stations)
            arrivals[c] = [_rate_value(value, "arrival_rate", unit) for value in row]
        else:
            arrivals[c, references[c]] = _rate_value(row, "arrival_rate", unit)
    for value in arrivals.ravel():
        _plausible("arrival_rate", float(value), RATE_RANGE, 1.0, "1/s")
    return arrivals


def load_network(path: str | Path) -> Network:
    """Read a TOML model file (see the module docstring for its layout).

    :param path: the model file (TOML).
    :returns: the network, checked, in SI units.
    :raises InputError: naming the file and key of anything wrong.
    """
    where = str(path)
    data = read_toml(Path(path), what="model file")
    unknown = set(data) - {"time_unit", "station", "class", "title", "routing"}
    if unknown:
        raise InputError(
            f"{where}: key", ", ".join(sorted(unknown)), "time_unit, title, station, class, routing"
        )
    time_unit = data.get("time_unit", "s")
    unit = _time_unit(time_unit, f"{where}: time_unit")
    class_tables = _tables(data, "class", where) or [{"name": "class1"}]
    station_tables = _tables(data, "station", where)
    if not station_tables:
        raise InputError(f"{where}: station", "none", "at least one [[station]] table")
    n_classes = len(class_tables)
    for index, table in enumerate(class_tables, 1):
        _known_keys(table, CLASS_KEYS, f"{where}: class {index}")
    class_names = [str(t.get("name", f"class{i}")) for i, t in enumerate(class_tables, 1)]
    routing_tables = _tables(data, "routing", where)
    stations, demand_rows, visit_rows, any_visits = [], [], [], False
    for index, table in enumerate(station_tables, 1):
        label = f"{where}: station {table.get('name', index)!r}"
        _known_keys(table, STATION_KEYS, label)
        stations.append(_station(table, label))
        if routing_tables:
            demand, visit = _routed_service(table, n_classes, label, unit), None
        else:
            demand, visit = _station_demand(table, n_classes, label, unit)
        any_visits |= visit is not None
        demand_rows.append(demand)
        visit_rows.append(visit if visit is not None else np.zeros(n_classes))
    for table, name in zip(class_tables, class_names, strict=True):
        if ("population" in table) == ("arrival_rate" in table):
            given = ", ".join(sorted(set(table) & {"population", "arrival_rate"})) or "neither"
            raise InputError(
                f"{where}: class {name!r}",
                given,
                "exactly one of population (closed class) or arrival_rate (open class)",
            )
    net = Network(
        stations=tuple(stations),
        classes=tuple(class_names),
        demands=np.array(demand_rows, float).T,
        think_times=_per_class(
            [t.get("think_time", 0.0) for t in class_tables], n_classes, "think_time", unit
        ),
        populations=_per_class([t.get("population", 0) for t in class_tables], n_classes, "population", None),
        arrival_rates=np.zeros(n_classes),
        visits=np.array(visit_rows, float).T if any_visits else None,
        time_unit=time_unit,
        priorities=_class_priorities(class_tables, class_names, where),
    )
    rates = [t.get("arrival_rate", 0.0) for t in class_tables]
    references = [t.get("reference") for t in class_tables]
    if not routing_tables:
        if any(r is not None for r in references):
            raise InputError(
                f"{where}: class reference",
                "given without [[routing]]",
                "a reference station with [[routing]] tables only",
            )
        return checked(replace(net, arrival_rates=_rates_per_class(rates, n_classes, "arrival_rate", unit)))
    return checked(routed(net, _routing_matrices(routing_tables, class_names, where), references, rates))


def _class_priorities(tables: list[dict], class_names: list[str], where: str) -> np.ndarray | None:
    """The classes' priorities: given by every class or by none."""
    given = [name for table, name in zip(tables, class_names, strict=True) if "priority" in table]
    if not given:
        return None
    if len(given) < len(tables):
        missing = next(name for name in class_names if name not in given)
        raise InputError(
            f"{where}: class {missing!r}: priority", "missing", "a priority for every class, or for none"
        )
    return _priorities([table["priority"] for table in tables], len(tables), f"{where}: priority")


def _routed_service(table: dict, n_classes: int, label: str, unit: str) -> np.ndarray:
    """A station's per-visit service times in a model with [[routing]] (the routing gives the visits)."""
    given = sorted(set(table) & {"demand", "visits"})
    if given or "service_time" not in table:
        raise InputError(
            f"{label}: " + (given[0] if given else "service_time"),
            "given" if given else "missing",
            "service_time per visit only: with [[routing]] the visits come from the routing",
        )
    return _per_class(table["service_time"], n_classes, f"{label}: service_time", unit)


def _routing_matrices(tables: list[dict], class_names: list[str], where: str) -> dict:
    """{(from class, to class): matrix} from [[routing]] tables (class, to_class, matrix)."""
    matrices: dict[tuple[str, str], Any] = {}
    for index, table in enumerate(tables, 1):
        label = f"{where}: routing {index}"
        _known_keys(table, ROUTING_KEYS, label)
        if "matrix" not in table:
            raise InputError(
                f"{label}: matrix",
                "missing",
                "matrix = [[...], ...]: from station (row) to station (column), in station order",
            )
        source = table.get("class", class_names[0] if len(class_names) == 1 else None)
        if source is None:
            raise InputError(
                f"{label}: class", "missing", "the class whose jobs it routes: " + ", ".join(class_names)
            )
        pair = (str(source), str(table.get("to_class", source)))
        if pair in matrices:
            raise InputError(f"{label}: class", repr(pair), "one [[routing]] table per class and to_class")
        matrices[pair] = table["matrix"]
    return matrices


def _tables(data: dict, key: str, where: str) -> list[dict]:
    """The [[key]] tables of a model file; [key] (one table) or a plain value is refused by name."""
    value = data.get(key)
    if value is None:
        return []
    if isinstance(value, dict):
        raise InputError(
            f"{where}: [{key}]", "a single table", f"[[{key}]] tables (double brackets), one per {key}"
        )
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise InputError(f"{where}: {key}", repr(value), f"[[{key}]] tables, one per {key}")
    return value


def _time_unit(name: object, parameter: str) -> str:
    if name not in TIME_UNITS and name != "µs":
        raise InputError(parameter, repr(name), "a time unit: " + ", ".join(TIME_UNITS))
    return str(name)


def _station(table: dict, label: str) -> Station:
    kind = table.get("type", "queue")
    if kind not in STATION_TYPES:
        raise InputError(f"{label}: type", repr(kind), ", ".join(STATION_TYPES))
    name = str(table.get("name", label))
    if "servers" in table and kind != "multi":
        raise InputError(
            f"{label}: servers",
            repr(table["servers"]),
            f'servers on a type = "multi" station (this one is {kind})',
        )
    if "rates" in table and kind != "ld":
        raise InputError(
            f"{label}: rates", repr(table["rates"]), f'rates on a type = "ld" station (this one is {kind})'
        )
    if ("speeds" in table) != (kind == "hetero"):
        raise InputError(
            f"{label}: speeds",
            repr(table.get("speeds", "missing")),
            'speeds = [s1, s2, ...], one per server, on a type = "hetero" station (and only there)',
        )
    if kind == "multi":
        station = Station(name, kind, _server_count(table.get("servers"), f"{label}: servers"))
    elif kind == "hetero":
        station = Station(
            name,
            kind,
            len(table["speeds"]) if isinstance(table["speeds"], list) else 1,
            _positive_rates(table["speeds"], f"{label}: speeds"),
        )
    elif kind == "ld":
        if "rates" not in table:
            raise InputError(f"{label}: rates", "missing", "rates = [α(1), α(2), ...] for an ld station")
        station = Station(name, kind, 1, _positive_rates(table["rates"], f"{label}: rates"))
    else:
        station = Station(name, kind)
    return disciplined(station, table.get("scheduling"), table.get("buffer"), label)


def disciplined(station: Station, scheduling: Any, buffer: Any, label: str) -> Station:
    """``station`` with its scheduling (SCHEDULING) and buffer (a whole number ≥ 1, or None), checked."""
    rule = "" if scheduling is None else scheduling
    if rule not in SCHEDULING:
        raise InputError(f"{label}: scheduling", repr(rule), ", ".join(repr(s) for s in SCHEDULING))
    if rule and station.infinite:
        raise InputError(f"{label}: scheduling", repr(rule), "none at a delay station (every job is served)")
    if rule not in ("", "ps") and station.kind in ("ld", "hetero"):
        raise InputError(f"{label}: scheduling", repr(rule), "ps at an ld station (its rates are shared)")
    if rule == "lcfs-pr" and station.kind != "queue":
        raise InputError(f"{label}: scheduling", repr(rule), "lcfs-pr at a single-server queue")
    limit = None if buffer is None else _server_count(buffer, f"{label}: buffer")
    return replace(station, scheduling=rule, buffer=limit)


def _per_station(values: Any, station_names: list, name: str) -> list[Any]:
    """One value per station (None where not given), from a list in station order or a dict by name."""
    if values is None:
        return [None] * len(station_names)
    if isinstance(values, dict):
        unknown = set(values) - set(station_names)
        if unknown:
            raise InputError(
                name,
                ", ".join(sorted(map(str, unknown))),
                "names of stations: " + ", ".join(map(str, station_names)),
            )
        return [values.get(station) for station in station_names]
    items = [values] * len(station_names) if isinstance(values, (str, int)) else list(values)
    _same_length(name, items, len(station_names))
    return items


def _priorities(values: Any, n_classes: int, name: str) -> np.ndarray:
    """Each class's priority: a whole number, lower served first."""
    items = list(values) if isinstance(values, (list, tuple, np.ndarray)) else [values] * n_classes
    _same_length(name, items, n_classes, "class")
    for item in items:
        if not _is_number(item) or item != int(item):
            raise InputError(name, repr(item), "a whole number per class (lower is served first)")
    return np.array([int(item) for item in items], dtype=np.int64)


def _server_count(value: Any, label: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value < 1:
        raise InputError(label, repr(value), "a whole number ≥ 1")
    return int(value)


def _positive_rates(rates: Any, label: str) -> tuple[float, ...]:
    if isinstance(rates, (str, bytes, dict)) or not hasattr(rates, "__len__") or len(rates) == 0:
        raise InputError(label, repr(rates), "a list of one or more positive numbers, α(1), α(2), ...")
    if not all(_is_number(r) for r in rates):
        raise InputError(label, repr(list(rates)), "a list of positive numbers")
    values = np.asarray(rates, float)
    if not np.all(np.isfinite(values)) or not np.all(values > 0):
        raise InputError(label, repr(list(rates)), "a list of positive, finite numbers")
    return tuple(float(v) for v in values)


def _station_demand(
    table: dict, n_classes: int, label: str, unit: str
) -> tuple[np.ndarray, np.ndarray | None]:
    has_demand = "demand" in table
    has_product = "visits" in table or "service_time" in table
    if has_demand == has_product:
        raise InputError(
            f"{label}: demand",
            "both" if has_demand else "missing",
            "demand, or visits and service_time (one of the two)",
        )
    if has_demand:
        return _per_class(table["demand"], n_classes, f"{label}: demand", unit), None
    if not ("visits" in table and "service_time" in table):
        raise InputError(f"{label}: visits/service_time", "only one given", "both, or demand instead")
    visits = _per_class(table["visits"], n_classes, f"{label}: visits", None)
    service = _per_class(table["service_time"], n_classes, f"{label}: service_time", unit)
    return visits * service, visits


def _known_keys(table: dict, allowed: set[str], label: str) -> None:
    unknown = set(table) - allowed
    if unknown:
        raise InputError(f"{label}: key", ", ".join(sorted(unknown)), ", ".join(sorted(allowed)))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _value(item: Any, name: str, unit: str | None) -> float:
    """One value: a number in ``unit`` (a count when None) or a string in the units dialect, to SI."""
    if isinstance(item, str):
        value = parse_value(name, item, unit or "1")
    elif _is_number(item):
        value = float(item)
    else:
        raise InputError(name, repr(item), "a number, or a value with its unit such as 2ms")
    return value * UNITS[unit].to_si if unit else value


def _numbers(values: Any, name: str, unit: str | None) -> np.ndarray:
    """Numbers and strings with units, nested as given, to a float array in SI units."""
    if isinstance(values, (str, int, float, np.integer, np.floating)) or values is None:
        return np.asarray(_value(values, name, unit))
    if isinstance(values, dict):
        raise InputError(name, repr(values), "a number or a list of numbers")
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf":  # numbers already: no parsing
        return values.astype(float) * (UNITS[unit].to_si if unit else 1.0)
    try:
        items = list(values)
    except TypeError:
        raise InputError(name, repr(values), "a number or a list of numbers") from None
    parts = [_numbers(item, name, unit) for item in items]
    if len({part.shape for part in parts}) > 1:
        raise InputError(name, repr(values), "rows of equal length (classes × stations)")
    return np.array(parts, dtype=float) if parts else np.zeros(0)


def _matrix(values: Any, name: str, unit: str | None) -> np.ndarray:
    matrix = _numbers(values, name, unit)
    if matrix.ndim == 1:
        matrix = matrix[np.newaxis, :]
    if matrix.ndim != 2 or matrix.shape[1] == 0:
        raise InputError(name, f"shape {matrix.shape}", "one value per station, or classes × stations")
    return matrix


def _per_class(values: Any, n_classes: int, name: str, unit: str | None) -> np.ndarray:
    array = np.atleast_1d(_numbers(values, name, unit))
    if array.shape == (1,) and n_classes > 1 and not isinstance(values, (list, tuple, np.ndarray)):
        array = np.full(n_classes, array[0])
    if array.shape != (n_classes,):
        raise InputError(name, f"{array.size} values", f"one per class ({n_classes})")
    return array


def _rate_value(item: Any, name: str, unit: str) -> float:
    """An arrival rate in jobs per second: a bare number per ``unit``, or "250/s", "35K/s", "0.2/ms"."""
    if isinstance(item, str) and "/" in item:  # the one parser of values with units
        return parse_value(name, item, "1/s")
    if isinstance(item, str):
        raise InputError(name, repr(item), "a number (per time unit), or a rate such as 250/s or 0.2/ms")
    return _value(item, name, None) / UNITS[unit].to_si


def _rates_per_class(values: Any, n_classes: int, name: str, unit: str) -> np.ndarray:
    items = list(values) if isinstance(values, (list, tuple, np.ndarray)) else [values] * n_classes
    if len(items) != n_classes:
        raise InputError(name, f"{len(items)} values", f"one per class ({n_classes})")
    return np.array([_rate_value(item, name, unit) for item in items], dtype=float)


def _same_length(name: str, values: Any, expected: int, per: str = "station") -> None:
    if len(values) != expected:
        raise InputError(name, f"{len(values)} values", f"one per {per} ({expected})")


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
        elif not count >= 1 or count != int(count):
            raise InputError("servers", repr(item), "a whole number ≥ 1, or 'delay'")
        else:
            kinds.append(("queue", 1) if count == 1 else ("multi", int(count)))
    return kinds


def _plausible(name: str, value: float, bounds: tuple[float, float], scale: float, unit: str) -> None:
    """Refuse a value (SI) that is negative, not finite, or nonzero outside ``bounds``, shown in ``unit``."""
    low, high = bounds
    if value == 0 or low <= value <= high:
        return
    reason = (
        "negative"
        if value < 0
        else "not finite"
        if not np.isfinite(value)
        else "outside what the arithmetic holds"
    )
    allowed = f"0, or from {low / scale:g} to {high / scale:g} {unit}"
    raise InputError(name, f"{value / scale:g} {unit}", allowed, reason=reason)


def checked(net: Network) -> Network:
    """Refuse negative or non-finite demands, bad populations and rates, idle classes, naming the field."""
    scale = UNITS[net.time_unit].to_si
    for c, name in enumerate(net.classes):
        for k, station in enumerate(net.stations):
            _plausible(
                f"demand of class {name!r} at station {station.name!r}",
                net.demands[c, k],
                TIME_RANGE,
                scale,
                net.time_unit,
            )
        population = net.populations[c]
        if not np.isfinite(population) or population < 0 or population != int(population):
            raise InputError(f"population of class {name!r}", f"{population:g}", "a whole number ≥ 0")
        _plausible(f"think_time of class {name!r}", net.think_times[c], TIME_RANGE, scale, net.time_unit)
        _plausible(f"arrival_rate of class {name!r}", net.arrival_rates[c], RATE_RANGE, 1.0, "1/s")
        if net.populations[c] > 0 and net.open_classes[c]:
            raise InputError(
                f"class {name!r}",
                "population and arrival_rate"
                if net.arrival_rates[c] > 0
                else "a population in an open chain",
                "one of them: a class is closed or open",
            )
        chain = [c] if net.chains is None else np.flatnonzero(net.chains == net.chains[c])
        if not net.demands[chain].any():
            raise InputError(
                f"demand of class {name!r}",
                "0 at every station",
                "a positive demand at one station at least (the class visits none)",
            )
        if len(chain) > 1 and net.think_times[c] > 0:
            raise InputError(
                f"think_time of class {name!r}",
                f"{net.think_times[c] / scale:g} {net.time_unit}",
                "0 in a chain of classes that switch: a delay station in the routing instead",
            )
    prioritised = [s for s in net.stations if s.scheduling in ("priority", "priority-np")]
    if prioritised and net.priorities is None:
        raise InputError(
            "priority",
            "missing",
            f"a priority per class (lower served first): station "
            f"{prioritised[0].name!r} schedules by priority",
        )
    names = net.station_names
    if len(set(names)) != len(names):
        raise InputError("station names", repr(list(names)), "a different name for each station")
    return net
