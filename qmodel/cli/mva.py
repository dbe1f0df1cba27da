"""``qmodel mva``: solve a queueing-network model from a TOML file or from flags.

Only click is imported at module level; numpy, rich and the solvers are
imported when the command runs.
"""

from __future__ import annotations

import sys

import click

from qmodel.cli.common import FORMAT_OPTION, split_range
from qmodel.errors import InputError
from qmodel.output import render

METHODS = ("exact", "schweitzer", "linearizer")
TABLE_ROWS = 25           # a terminal table of a long sweep shows about this many populations
PROGRESS_FROM = 2000      # show a progress bar from this much work (populations or lattice levels)


@click.command("mva", epilog="""\b
Examples (Jain, Example 34.2; Bolch et al., Example 8.4):
  $ qmodel mva --service-time 0.125,0.3,0.2 --visits 16,10,5 --think-time 4 --population 1..20
  $ qmodel mva --demand 0.5,0.3,0.4,1 --servers 2,1,1,delay --population 3
  $ qmodel mva model.toml --population 1..200 --plot curve.png
  $ qmodel mva two-class.toml --method schweitzer --compare
\b
A model file holds [[station]] tables (name, type = queue | delay | multi |
ld, demand or visits and service_time, servers, rates) and [[class]] tables
(name, population and think_time, or arrival_rate for an open class); see
the README. Times are in the model's time_unit (flags: --time-unit).""")
@click.argument("model_file", required=False, metavar="[MODEL.toml]")
@click.option("--population", "population_text", default=None, metavar="N | 1..N",
              help="Population, or a sweep 1..N (single class).")
@click.option("--demand", default=None, metavar="D1,D2,...", help="Service demand per station.")
@click.option("--service-time", default=None, metavar="S1,S2,...", help="Service time per visit.")
@click.option("--visits", default=None, metavar="V1,V2,...", help="Visits per job (with --service-time).")
@click.option("--servers", default=None, metavar="C1,C2,...",
              help="Servers per station; 'delay' for infinite.")
@click.option("--names", default=None, metavar="A,B,...", help="Station names.")
@click.option("--think-time", default="0", show_default=True, help="Think time Z.")
@click.option("--arrival-rate", default=None, help="Arrival rate: solve as an open network instead.")
@click.option("--time-unit", default="s", show_default=True, help="Unit of demands and times (flags).")
@click.option("--method", type=click.Choice(METHODS), default="exact", show_default=True,
              help="Exact MVA, or an approximation (multi-class models).")
@click.option("--compare", is_flag=True, help="With an approximation: report its deviation from exact.")
@click.option("--plot", "plot_path", default=None, metavar="FILE",
              help="Draw X and R against N with the bounds (.png, .svg, .pdf); needs the extra 'plot'.")
@FORMAT_OPTION
def mva(model_file: str | None, population_text: str | None, demand: str | None, service_time: str | None,
        visits: str | None, servers: str | None, names: str | None, think_time: str,
        arrival_rate: str | None, time_unit: str, method: str, compare: bool, plot_path: str | None,
        fmt: str) -> None:
    """Mean Value Analysis of a queueing network: throughput, response time, per-station figures."""
    from qmodel.networks.model import load_model, network

    if plot_path:
        from qmodel.plotting import check_plot_path

        check_plot_path(plot_path)
    if model_file is not None:
        if demand or service_time or visits or servers or names or arrival_rate:
            raise InputError("station flags", "given with a model file", "a model file or flags, not both")
        model = load_model(model_file)
    else:
        model = network(**_flag_model(demand, service_time, visits, servers, names, think_time, arrival_rate,
                                      time_unit))
    if model.open_classes.all():
        _show_open(model, fmt)
        return
    if model.open_classes.any():
        _show_mixed(model, fmt)
        return
    sweep = _population(population_text, model)
    if len(model.classes) == 1 and method == "exact":
        _show_sweep(model, sweep, fmt, plot_path)
    else:
        if plot_path:
            raise InputError("--plot", plot_path, "a single-class model solved exactly (a curve over N)")
        _show_multi_class(model, method, compare, fmt)


def _flag_model(demand: str | None, service_time: str | None, visits: str | None, servers: str | None,
                names: str | None, think_time: str, arrival_rate: str | None, time_unit: str) -> dict:
    if (demand is None) == (service_time is None):
        raise InputError("--demand / --service-time", "both" if demand else "neither",
                         "one of them (or a MODEL.toml file)")
    if visits is not None and service_time is None:
        raise InputError("--visits", visits, "together with --service-time")
    return dict(
        demands=_numbers("--demand" if demand else "--service-time", demand or service_time),
        visits=_numbers("--visits", visits) if visits else None,
        servers=[s.strip() for s in servers.split(",")] if servers else None,
        names=[n.strip() for n in names.split(",")] if names else None,
        think_time=_numbers("--think-time", think_time)[0],
        arrival_rate=_numbers("--arrival-rate", arrival_rate)[0] if arrival_rate else 0.0,
        population=0, time_unit=time_unit)


def _numbers(option: str, text: str) -> list[float]:
    values = []
    for item in text.split(","):
        try:
            values.append(float(item))
        except ValueError:
            raise InputError(option, item, "a number (a comma-separated list for one per station)") from None
    return values


def _population(text: str | None, model) -> int | None:
    """The sweep's last population (1..N or N); None: the model's own populations."""
    if text is None:
        if len(model.classes) == 1 and model.populations[0] == 0:
            raise InputError("--population", "missing", "N or 1..N (the model gives no population)")
        return None
    span = split_range("--population", text)
    if span is not None and span[0].strip() != "1":
        raise InputError("--population", text, "N or 1..N (MVA computes every population from 1)")
    last = text if span is None else span[1]
    try:
        value = float(last)
    except ValueError:
        raise InputError("--population", text, "N or 1..N with N a whole number ≥ 1") from None
    if value < 1 or value != int(value):
        raise InputError("--population", text, "N or 1..N with N a whole number ≥ 1")
    if len(model.classes) > 1:
        raise InputError("--population", text,
                         "a single-class model (set each class's population in the file)")
    return int(value)


def _progress_bar(total: int):
    """A rich progress bar on stderr for long solves, or None."""
    if total < PROGRESS_FROM or not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import Progress

    return Progress(console=Console(stderr=True), transient=True)


def _solve_with_progress(solve, total: int, label: str):
    bar = _progress_bar(total)
    if bar is None:
        return solve(None)
    with bar:
        task = bar.add_task(label, total=total)
        return solve(lambda done, all_: bar.update(task, completed=done, total=all_))


def _show_sweep(model, population: int | None, fmt: str, plot_path: str | None) -> None:
    import numpy as np

    from qmodel.networks.bounds import closed_bounds
    from qmodel.networks.exact import single_class

    n = int(model.populations[0]) if population is None else population
    result = _solve_with_progress(lambda progress: single_class(model, n, progress), n, "exact MVA")
    bounds = closed_bounds(model, result.populations[:, 0])
    unit = model.time_unit
    shown = np.arange(n) if fmt != "table" or n <= TABLE_ROWS else _spread(n)
    columns = ["N", f"X [1/{unit}]", f"R [{unit}]", f"X upper bound [1/{unit}]", f"X lower bound [1/{unit}]",
               "binding bound"]
    rows = [[int(result.populations[i, 0]), float(result.throughput[i, 0]), float(result.response_time[i, 0]),
             float(bounds.throughput_upper[i]), float(bounds.throughput_lower[i]), bounds.binding[i]]
            for i in shown]
    caption = (f"bottleneck {bounds.bottleneck}; asymptotes cross at N* = {bounds.knee:.3g}"
               + ("" if bounds.balanced
                  else "; balanced job bounds need single-server stations (asymptotic only)")
               + (f"; {len(shown)} of {n} populations shown, --format csv for all" if len(shown) < n else ""))
    if fmt == "json":
        render([], [], fmt, json_payload=_sweep_json(model, result, bounds))
    else:
        render(columns, rows, fmt, title="Exact MVA: system", caption=caption)
        if fmt == "table":
            _station_table(model, result.at(-1), fmt)
    if plot_path:
        from qmodel.plotting import plot_mva

        plot_mva(result.populations[:, 0], result.throughput[:, 0], result.response_time[:, 0], bounds,
                 unit, plot_path)


def _spread(n: int):
    import numpy as np

    return np.unique(np.round(np.linspace(0, n - 1, TABLE_ROWS)).astype(int))


def _station_table(model, point, fmt: str) -> None:
    populations = ", ".join(f"{name} {int(p)}" for name, p in zip(point.classes, point.populations[0],
                                                                 strict=True))
    _render_stations(model, _closed_records(model, point), fmt,
                     title=f"Stations at N = {populations} ({point.method})")


def _closed_records(model, point) -> list[dict]:
    return _station_records(model, point.classes, point.utilization[0], point.queue_length[0],
                            point.residence_time[0])


def _station_records(model, classes, utilization, queue, residence) -> list[dict]:
    """Per class and station: type, demand, utilization, queue length, residence and per-visit time.

    The arrays are (classes, stations) for ``classes``, which may be a subset of the model's.
    """
    records = []
    for c, name in enumerate(classes):
        m = model.classes.index(name)
        for k, station in enumerate(model.stations):
            visits = model.visits[m, k] if model.visits is not None else 0.0
            records.append({
                "class": name, "station": station.name,
                "type": f"multi ({station.servers})" if station.kind == "multi" else station.kind,
                "demand": float(model.demands[m, k]), "utilization": float(utilization[c, k]),
                "queue_length": float(queue[c, k]), "residence_time": float(residence[c, k]),
                "per_visit": float(residence[c, k] / visits) if visits > 0 else None})
    return records


def _render_stations(model, records: list[dict], fmt: str, title: str, caption: str = "") -> None:
    unit = model.time_unit
    columns = ["class", "station", "type", "demand", "utilization", "queue length",
               f"residence [{unit}]", f"per visit [{unit}]"]
    render(columns, [list(record.values()) for record in records], fmt, title=title, caption=caption)


def _show_multi_class(model, method: str, compare: bool, fmt: str) -> None:
    import numpy as np

    from qmodel.networks import approximate as amva
    from qmodel.networks.exact import multi_class

    if compare and method == "exact":
        raise InputError("--compare", "with --method exact",
                         "an approximate --method (schweitzer, linearizer)")
    if method == "exact":
        lattice = int(np.prod(model.populations + 1))
        point = _solve_with_progress(lambda progress: multi_class(model, progress), lattice, "exact MVA")
    else:
        point = getattr(amva, method)(model)
    columns, rows = _class_rows(model, point)
    caption = ""
    deviation = None
    if compare:
        deviation = amva.approximation_error(model, point)
        caption = (f"{method} against exact MVA: throughput within {deviation['throughput']:.3%}, "
                   f"queue lengths within {deviation['queue_length']:.3%} of the class population")
    if fmt == "json":
        payload = {"method": method, "classes": [dict(zip(columns, row, strict=True)) for row in rows],
                   "stations": _closed_records(model, point)}
        if deviation is not None:
            payload["deviation_from_exact"] = deviation
        render([], [], fmt, json_payload=payload)
        return
    render(columns, rows, fmt, title=f"MVA ({method}): classes", caption=caption)
    if fmt == "table":
        _station_table(model, point, fmt)


def _class_rows(model, point) -> tuple[list[str], list[list]]:
    """Columns and rows of the per-class table: population, think time, X, R (closed classes)."""
    unit = model.time_unit
    think = dict(zip(model.classes, model.think_times, strict=True))
    columns = ["class", "population", f"think time [{unit}]", f"X [1/{unit}]", f"R [{unit}]"]
    rows = [[name, int(point.populations[0, c]), float(think[name]), float(point.throughput[0, c]),
             float(point.response_time[0, c])] for c, name in enumerate(point.classes)]
    return columns, rows


def _sweep_json(model, result, bounds) -> dict:
    return {
        "time_unit": model.time_unit,
        "stations": list(result.stations),
        "population": result.populations[:, 0].tolist(),
        "throughput": result.throughput[:, 0].tolist(),
        "response_time": result.response_time[:, 0].tolist(),
        "queue_length": result.queue_length[:, 0, :].tolist(),
        "residence_time": result.residence_time[:, 0, :].tolist(),
        "utilization": result.utilization[:, 0, :].tolist(),
        "bounds": {"throughput_upper": bounds.throughput_upper.tolist(),
                   "throughput_lower": bounds.throughput_lower.tolist(),
                   "binding": list(bounds.binding), "bottleneck": bounds.bottleneck, "knee": bounds.knee},
    }


def _show_open(model, fmt: str) -> None:
    from qmodel.networks.open import solve_open

    _show_open_classes(model, solve_open(model), fmt, "Open network")


def _show_open_classes(model, result, fmt: str, title: str) -> None:
    unit = model.time_unit
    caption = "; ".join(f"{name}: X {float(x):g}/{unit}, R {float(r):.6g} {unit}"
                        for name, x, r in zip(result.classes, result.throughput, result.response_time,
                                              strict=True))
    _render_stations(model, _open_records(model, result), fmt, title=title, caption=caption)


def _open_records(model, result) -> list[dict]:
    return _station_records(model, result.classes, result.utilization, result.queue_length,
                            result.residence_time)


def _show_mixed(model, fmt: str) -> None:
    from qmodel.networks.open import solve_mixed

    closed, opened = solve_mixed(model)
    if fmt == "json":
        render([], [], fmt, json_payload={
            "closed": _closed_records(model, closed),
            "closed_classes": {name: {"throughput": float(closed.throughput[0, c]),
                                      "response_time": float(closed.response_time[0, c])}
                               for c, name in enumerate(closed.classes)},
            "open": _open_records(model, opened),
        })
        return
    render(*_class_rows(model, closed), fmt, title="Mixed network: closed classes")
    _station_table(model, closed, fmt)
    _show_open_classes(model, opened, fmt, "Mixed network: open classes (they see the closed jobs)")
