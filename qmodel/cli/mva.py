"""``qmodel mva``: parse a network (TOML file or flags), call qmodel.networks.solver, render the result.

Only click is imported at module level; numpy, rich and the solvers are
imported when the command runs.
"""

from __future__ import annotations

import sys

import click

from qmodel.cli.common import FORMAT_OPTION
from qmodel.errors import InputError
from qmodel.output import render
from qmodel.units import split_range

METHODS = ("exact", "schweitzer", "linearizer", "seidmann")   # qmodel.networks.solver.METHODS
TABLE_ROWS = 25           # a terminal table of a long sweep shows about this many populations
ROW_LIMIT = 1_000_000     # CSV and JSON rows written at most; more is refused with the size and a way out
PROGRESS_FROM = 2000      # show a progress bar from this much work (populations or lattice levels)


@click.command("mva", epilog="""\b
Examples (Jain, Example 34.2; Bolch et al., Example 8.4):
  $ qmodel mva --service-time 125ms,300ms,200ms --visits 16,10,5 \\
        --think-time 4s --population 1..20
  $ qmodel mva --demand 0.5,0.3,0.4,1 --servers 2,1,1,delay --population 3
  $ qmodel mva model.toml --population 1..200 --at 10,100 --plot curve.png
  $ qmodel mva two-class.toml --method schweitzer --compare
\b
A model file holds [[station]] tables (name, type = queue | delay | multi |
ld, demand or visits and service_time, servers, rates) and [[class]] tables
(name, population and think_time, or arrival_rate for an open class); see
docs. Values take units (2ms, 400us, 250/s); bare numbers are in the
model's time_unit (flags: --time-unit). Throughput is per second.""")
@click.argument("model_file", required=False, metavar="[MODEL.toml]")
@click.option("--population", "population_text", default=None, metavar="N | 1..N | N1,N2",
              help="Population: a sweep 1..N (single class), or one per closed class.")
@click.option("--at", "at_text", default=None, metavar="N1,N2,...",
              help="Populations of a sweep at which to show every station.")
@click.option("--demand", default=None, metavar="D1,D2,...", help="Service demand per station.")
@click.option("--service-time", default=None, metavar="S1,S2,...", help="Service time per visit.")
@click.option("--visits", default=None, metavar="V1,V2,...", help="Visits per job (with --service-time).")
@click.option("--servers", default=None, metavar="C1,C2,...",
              help="Servers per station; 'delay' for infinite.")
@click.option("--names", default=None, metavar="A,B,...", help="Station names.")
@click.option("--think-time", default="0", show_default=True, help="Think time Z (4s, 4000ms).")
@click.option("--arrival-rate", default=None, help="Arrival rate (250/s): solve as an open network.")
@click.option("--time-unit", default="s", show_default=True, help="Unit of bare numbers (s, ms, us, min).")
@click.option("--method", type=click.Choice(METHODS), default="exact", show_default=True,
              help="Exact MVA, or an approximation.")
@click.option("--compare", is_flag=True, help="With an approximation: report its deviation from exact.")
@click.option("--stations", "all_stations", is_flag=True,
              help="With --format csv: every station at every population of a sweep.")
@click.option("--plot", "plot_path", default=None, metavar="FILE",
              help="Draw X and R against N with the bounds (.png, .svg, .pdf).")
@FORMAT_OPTION
def mva(model_file: str | None, population_text: str | None, at_text: str | None, demand: str | None,
        service_time: str | None, visits: str | None, servers: str | None, names: str | None,
        think_time: str, arrival_rate: str | None, time_unit: str, method: str, compare: bool,
        all_stations: bool, plot_path: str | None, fmt: str) -> None:
    """Mean Value Analysis of a queueing network: throughput, response time, per-station figures."""
    from qmodel.networks.model import load_network, network

    if plot_path:
        from qmodel.plotting import check_plot_path

        check_plot_path(plot_path)
    if model_file is not None:
        if any(flag is not None for flag in (demand, service_time, visits, servers, names, arrival_rate)):
            raise InputError("station flags", "given with a model file", "a model file or flags, not both")
        net = load_network(model_file)
    else:
        net = network(**_flag_network(demand, service_time, visits, servers, names, think_time, arrival_rate,
                                      time_unit))
    sweep = net.closed_classes.all() and len(net.classes) == 1 and method == "exact"
    _refuse_flags(net, method, compare, all_stations, plot_path, fmt, sweep)
    population = _population(population_text, net)
    at = _at(at_text, sweep)
    if sweep:
        _show_sweep(net, population, at, fmt, plot_path, all_stations)
    else:
        _show_point(net, method, population, compare, fmt, all_stations)


def _refuse_flags(net, method: str, compare: bool, all_stations: bool, plot_path: str | None, fmt: str,
                  sweep: bool) -> None:
    """Flags that do not apply to this network or method are refused, never ignored."""
    if compare and method == "exact":
        raise InputError("--compare", "with --method exact", "an approximate --method (schweitzer, "
                         "linearizer, seidmann)")
    if compare and net.open_classes.all():
        raise InputError("--compare", "with an open network", "a network with closed classes (an open "
                         "network is solved exactly)")
    if plot_path and not sweep:
        raise InputError("--plot", plot_path, "a single-class closed network solved exactly (a curve over N)")
    if all_stations and fmt != "csv":
        raise InputError("--stations", "given", "--format csv (every station: of every population of a "
                         "sweep, or of every class)")


def _flag_network(demand: str | None, service_time: str | None, visits: str | None, servers: str | None,
                  names: str | None, think_time: str, arrival_rate: str | None, time_unit: str) -> dict:
    if (demand is None) == (service_time is None):
        raise InputError("--demand / --service-time", "both" if demand else "neither",
                         "one of them (or a MODEL.toml file)")
    if visits is not None and service_time is None:
        raise InputError("--visits", visits, "together with --service-time")
    return dict(
        demands=_items("--demand" if demand is not None else "--service-time",
                       demand if demand is not None else service_time),
        visits=_items("--visits", visits) if visits else None,
        servers=_items("--servers", servers) if servers else None,
        names=_items("--names", names) if names else None,
        think_time=think_time, arrival_rate=_arrival_rate(arrival_rate), population=0, time_unit=time_unit)


def _arrival_rate(text: str | None) -> object:
    """The --arrival-rate text as the network takes it: a rate with its unit, or a bare number."""
    if text is None:
        return 0.0
    try:
        return float(text)
    except ValueError:
        return text.strip()


def _items(option: str, text: str) -> list[str]:
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise InputError(option, repr(text), "a comma-separated list with one value per station")
    return items


def _count(option: str, text: str) -> int:
    """A whole number ≥ 1 typed in the units dialect (35K, 1e3), refusing inf and nan."""
    from qmodel.units import parse_value

    value = parse_value(option, text.strip(), "1")
    if not value >= 1 or value != int(value) or value == float("inf"):
        raise InputError(option, text, "a whole number ≥ 1")
    return int(value)


def _population(text: str | None, net) -> object:
    """The population to solve at: N (a sweep 1..N for one class), one per closed class, or None."""
    closed = int(net.closed_classes.sum())
    if text is None:
        if closed and net.populations[net.closed_classes].sum() == 0:
            raise InputError("--population", "missing", "N or 1..N (the model gives no population)")
        return None
    if closed == 0:
        raise InputError("--population", text, "none for an open network (its arrival rates set the load)")
    span = split_range("--population", text)
    if span is not None:
        if span[0].strip() != "1":
            raise InputError("--population", text, "N or 1..N (MVA computes every population from 1)")
        if closed > 1:
            raise InputError("--population", text, "one population per closed class (a sweep 1..N is for "
                             "a single-class network)")
        return _count("--population", span[1])
    values = [_count("--population", item) for item in text.split(",")]
    if len(values) != closed:
        raise InputError("--population", text, f"one population per closed class ({closed})")
    return values[0] if len(values) == 1 else values


def _at(text: str | None, sweep: bool) -> list[int]:
    if text is None:
        return []
    if not sweep:
        raise InputError("--at", text, "a single-class closed network solved exactly (a sweep)")
    return [_count("--at", item) for item in text.split(",")]


def _progress_bar(total: int):
    """A rich progress bar on stderr for long solves, or None."""
    if total < PROGRESS_FROM or not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import Progress

    return Progress(console=Console(stderr=True), transient=True)


def _solve(net, method: str, population, at=(), total: int = 0):
    from qmodel.networks.solver import solve

    bar = _progress_bar(total)
    if bar is None:
        return solve(net, method, population, at=at)
    with bar:
        task = bar.add_task(f"{method} MVA", total=total)
        return solve(net, method, population, lambda done, all_: bar.update(task, completed=done, total=all_),
                     at=at)


def _show_sweep(net, population, at: list[int], fmt: str, plot_path: str | None, all_stations: bool) -> None:
    import numpy as np

    from qmodel.networks.bounds import closed_bounds
    from qmodel.units import UNITS

    n = int(net.populations[0]) if population is None else int(population)
    beyond = [a for a in at if a > n]
    if beyond:
        raise InputError("--at", ",".join(map(str, beyond)), f"populations of the sweep, 1..{n}")
    if fmt != "table":
        rows = n * len(net.stations) if all_stations else n
        if rows > ROW_LIMIT:
            raise InputError("--population", n, f"at most {ROW_LIMIT:,} {fmt.upper()} rows: --at N1,N2,... "
                             "for the populations you need, or a smaller N",
                             reason=f"{rows:,} rows, about {rows * 60 / 1e6:,.0f} MB of {fmt.upper()}")
    if all_stations:
        at = list(range(1, n + 1))
    result = _solve(net, "exact", n, at, n)
    curve = result.curve
    bounds = closed_bounds(net, curve.population)
    unit = net.time_unit
    scale = UNITS[unit].to_si
    shown = np.arange(n) if fmt != "table" or n <= TABLE_ROWS else _spread(n)
    shown = np.union1d(shown, np.asarray(at, dtype=int) - 1) if fmt == "table" else shown
    columns = ["N", "X [1/s]", f"R [{unit}]", "X upper bound [1/s]", "X lower bound [1/s]", "binding bound"]
    rows = [[int(curve.population[i]), float(curve.throughput[i]), float(curve.response_time[i] / scale),
             float(bounds.throughput_upper[i]), float(bounds.throughput_lower[i]), bounds.binding_at(i)]
            for i in shown]
    caption = (f"bottleneck {bounds.bottleneck}; asymptotes cross at N* = {bounds.knee:.3g}"
               + ("" if bounds.balanced
                  else "; balanced job and geometric bounds need single-server stations (asymptotic only)")
               + (f"; {len(shown)} of {n} populations shown, --format csv for all" if len(shown) < n else ""))
    if fmt == "json":
        payload = result.to_json()
        payload["bounds"] = {"throughput_upper": bounds.throughput_upper.tolist(),
                             "throughput_lower": bounds.throughput_lower.tolist(),
                             "binding": [bounds.binding_at(i) for i in range(n)],
                             "bottleneck": bounds.bottleneck, "knee": bounds.knee}
        render([], [], fmt, json_payload=payload)
    elif all_stations:
        records = [dict(N=int(p.populations[0]), **record) for p in (*result.points, result)[:-1]
                   for record in p.records()]
        render(list(records[0]), [list(r.values()) for r in records], fmt, keys=3)  # N, class, station
    else:
        render(columns, rows, fmt, title="Exact MVA: system", caption=caption)
        if fmt == "table":
            for point in result.points if n in at else (*result.points, result):
                _station_table(point, fmt)
    if plot_path:
        from qmodel.plotting import plot_mva

        plot_mva(curve.population, curve.throughput, curve.response_time, bounds, unit, plot_path)


def _spread(n: int):
    import numpy as np

    return np.unique(np.round(np.linspace(0, n - 1, TABLE_ROWS)).astype(int))


def _station_table(result, fmt: str, title: str = "", caption: str = "") -> None:
    closed = ~result.open_classes
    populations = ", ".join(f"{name} {int(p)}" for name, p, is_closed in
                            zip(result.classes, result.populations, closed, strict=True) if is_closed)
    records = _without_empty_columns(result.records())
    title = title or (f"Stations at N = {populations} ({result.method})" if closed.any()
                      else "Open network: stations")
    render(list(records[0]), [list(r.values()) for r in records], fmt, title=title, caption=caption,
           keys=2)  # class, station


def _show_point(net, method: str, population, compare: bool, fmt: str, all_stations: bool) -> None:
    import numpy as np

    lattice = int(np.prod(net.populations[net.closed_classes] + 1)) if method == "exact" else 0
    result = _solve(net, method, population, total=lattice)
    caption = ""
    deviation = None
    if compare:
        from qmodel.networks.solver import approximation_error

        deviation = approximation_error(result)
        caption = (f"{method} against exact MVA: throughput within {deviation['throughput']:.3%}, "
                   f"queue lengths within {deviation['queue_length']:.3%} of the class population")
    classes = result.class_records()
    if net.closed_classes.any():
        from qmodel.networks.bounds import class_bounds
        from qmodel.networks.solver import closed_part

        closed = net if net.closed_classes.all() else closed_part(net, result.populations)[0]
        bounds = class_bounds(closed, result.populations[net.closed_classes])
        pairs = iter(zip(bounds.throughput_upper, bounds.throughput_lower, strict=True))
        for record in classes:
            upper, lower = next(pairs) if record["population"] is not None else (None, None)
            record.update({"X upper bound [1/s]": None if upper is None else float(upper),
                           "X lower bound [1/s]": None if lower is None else float(lower)})
    if fmt == "json":
        payload = result.to_json()
        if deviation is not None:
            payload["deviation_from_exact"] = deviation
        if net.open_classes.any() and not net.open_classes.all():
            payload["closed_classes"] = {r["class"]: r for r in classes if r["population"] is not None}
            payload["open"] = [r for r in result.records() if r["class"] in
                               {c["class"] for c in classes if c["population"] is None}]
        render([], [], fmt, json_payload=payload)
        return
    if fmt == "csv" and (all_stations or net.open_classes.all()):
        _station_table(result, fmt)
        return
    classes = _without_empty_columns(classes)
    kind = "Open network" if net.open_classes.all() else "Mixed network" if net.open_classes.any() else "MVA"
    render(list(classes[0]), [list(r.values()) for r in classes], fmt, title=f"{kind} ({method}): classes",
           caption=caption)
    if fmt == "table":
        _station_table(result, fmt)


def _without_empty_columns(records: list[dict]) -> list[dict]:
    """The records without the columns that are empty in every row (arrival rate of closed classes...)."""
    empty = [key for key in records[0] if all(record[key] is None for record in records)]
    return [{key: value for key, value in record.items() if key not in empty} for record in records]
