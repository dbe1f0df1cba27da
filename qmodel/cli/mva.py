"""``qmodel mva``: parse a network (TOML file or flags), call qmodel.networks.solver, render the result.

Only click is imported at module level; numpy, rich and the solvers are
imported when the command runs.
"""

from __future__ import annotations

import sys
from typing import cast

import click

from qmodel import limits
from qmodel.cli.common import FORMAT_OPTION
from qmodel.errors import InputError
from qmodel.output import render, write_csv_columns
from qmodel.units import split_range

METHODS = ("exact", "schweitzer", "linearizer", "seidmann", "ctmc", "convolution")  # solver.METHODS
TABLE_ROWS = 40  # a table shows every N up to this; past it N = 1, a round step and the last
AT_TABLES = 100  # station tables a terminal is shown at most (one per --at population)
ROW_LIMIT = 1_000_000  # CSV and JSON rows written at most; more is refused with the size and a way out
# the network's parameters (qmodel.networks.network) as the flags that set them, for errors
FLAGS = {
    "visits": "--visits",
    "routing": "--routing",
    "servers": "--servers",
    "names": "--names",
    "buffer": "--buffer",
    "station names": "--names",
    "think_time": "--think-time",
    "arrival_rate": "--arrival-rate",
    "time_unit": "--time-unit",
}
JSON_LIMIT = 200_000  # populations of a sweep in JSON at most (its whole curve: ~125 bytes each)
SECONDS_PER_CELL = 4e-7  # CPU per CSV cell of a sweep written (2.7e-7 system rows, 4.5e-7 --stations)
SECONDS_PER_JSON_POPULATION = 2.3e-5  # CPU per population of a sweep's JSON (measured at 200,000)
CSV_BLOCK = 1 << 16  # rows of a sweep's CSV formatted and written at a time
PROGRESS_FROM = 2000  # show a progress bar from this much work (populations or lattice points)
BOUND_KEYS = ("throughput_upper_bound[1/s]", "throughput_lower_bound[1/s]")  # the asymptotic bounds on X
# the records' names as a terminal table labels them, short for 80 columns (CSV and JSON: the keys)
LABELS = {
    "arrival_rate": "arrival rate",
    "think_time": "think time",
    "throughput": "X",
    "response_time": "R",
    "throughput_upper_bound": "X upper bound",
    "throughput_lower_bound": "X lower bound",
    "queue_length": "queue length",
    "residence_time": "residence",
    "per_visit_time": "per visit",
    "station_throughput": "throughput",
}


@click.command(
    "mva",
    epilog="""\b
Examples (Jain, Example 34.2; Bolch et al., Example 8.4):
  $ qmodel mva --service-time 125ms,300ms,200ms --visits 16,10,5 \\
        --think-time 4s --population 1..20
  $ qmodel mva --demand 0.5,0.3,0.4,1 --servers 2,1,1,delay --population 3
  $ qmodel mva model.toml --population 1..200 --at 10,100 --plot curve.png
  $ qmodel mva two-class.toml --method schweitzer --compare
\b
A model file holds [[station]] tables (name, type = queue | delay | multi |
ld, demand or visits and service_time, servers, rates) and [[class]] tables
(name, population and think_time, or arrival_rate for an open class):
every key in docs/reference/model-file.md. Values take units (2ms, 400us,
250/s); bare numbers are in the model's time_unit (flags: --time-unit).
Throughput is per second.
\b
Docs: docs/howto/mva.md (site: howto/mva.html)
Options: docs/reference/commands.md#qmodel-mva""",
)
@click.argument("model_file", required=False, metavar="[MODEL.toml]")
@click.option(
    "--population",
    "population_text",
    default=None,
    metavar="N | 1..N | N1,N2",
    help="Population: N (the network at N jobs), 1..N (a sweep: every population from 1 to N, "
    "one class), or one per closed class. As in Python: solve(net, population=N) or "
    "range(1, N + 1).",
)
@click.option(
    "--at",
    "at_text",
    default=None,
    metavar="N1,N2,...",
    help="Populations of a sweep to show: every station at each (table, JSON); only these rows (CSV).",
)
@click.option("--demand", default=None, metavar="D1,D2,...", help="Service demand per station.")
@click.option("--service-time", default=None, metavar="S1,S2,...", help="Service time per visit.")
@click.option("--visits", default=None, metavar="V1,V2,...", help="Visits per job (with --service-time).")
@click.option(
    "--routing",
    default=None,
    metavar="P11,P12,...;P21,...",
    help="Routing matrix, rows separated by ';': the probability a job leaving station i goes "
    "to station j (with --service-time; visits per visit to the first station). Classes and "
    "class switching: a model file.",
)
@click.option(
    "--servers", default=None, metavar="C1,C2,...", help="Servers per station; 'delay' for infinite."
)
@click.option("--names", default=None, metavar="A,B,...", help="Station names.")
@click.option(
    "--buffer",
    default=None,
    metavar="B1,B2,...",
    help="Buffer per station: the most jobs it holds ('none': no limit).",
)
@click.option("--think-time", default="0", show_default=True, help="Think time Z (4s, 4000ms).")
@click.option("--arrival-rate", default=None, help="Arrival rate (250/s): solve as an open network.")
@click.option("--time-unit", default="s", show_default=True, help="Unit of bare numbers (s, ms, us, min).")
@click.option(
    "--method",
    type=click.Choice(METHODS),
    default="exact",
    show_default=True,
    help="Exact MVA, or an approximation.",
)
@click.option("--compare", is_flag=True, help="With an approximation: report its deviation from exact.")
@click.option(
    "--stations",
    "all_stations",
    is_flag=True,
    help="With --format csv: every station at every population of a sweep.",
)
@click.option(
    "--plot",
    "plot_path",
    default=None,
    metavar="FILE",
    help="Draw X and R against N with the bounds (.png, .svg, .pdf).",
)
@FORMAT_OPTION
def mva(
    model_file: str | None,
    population_text: str | None,
    at_text: str | None,
    demand: str | None,
    service_time: str | None,
    visits: str | None,
    routing: str | None,
    servers: str | None,
    names: str | None,
    buffer: str | None,
    think_time: str,
    arrival_rate: str | None,
    time_unit: str,
    method: str,
    compare: bool,
    all_stations: bool,
    plot_path: str | None,
    fmt: str,
) -> None:
    """Mean Value Analysis of a queueing network: throughput, response time, per-station figures."""
    from qmodel.networks.model import load_network, network

    typed = _typed_population(population_text)  # what was typed is checked first, whatever the network
    if plot_path:
        from qmodel.cli.plotting import check_plot_path

        check_plot_path(plot_path)
    if model_file is not None:
        if any(
            flag is not None
            for flag in (demand, service_time, visits, routing, servers, names, buffer, arrival_rate)
        ):
            raise InputError("station flags", "given with a model file", "a model file or flags, not both")
        net = load_network(model_file)
    else:
        flags = {**FLAGS, "demand": "--demand" if demand is not None else "--service-time"}
        try:
            net = network(
                **_flag_network(
                    demand, service_time, visits, servers, names, think_time, arrival_rate, time_unit
                ),
                **_flag_routing(routing, service_time, visits),
                **_flag_buffer(buffer),
            )
        except InputError as error:  # named as the Python parameter: name the flag as typed
            first, _, rest = error.parameter.partition(" ")
            if first not in flags and error.parameter not in flags:
                raise
            flag = flags.get(error.parameter) or f"{flags[first]} {rest}".strip()
            raise InputError(flag, error.value, error.allowed, reason=error.reason) from None
    swept = typed is not None and typed[0]
    sweep = bool(swept and net.closed_classes.all() and len(net.classes) == 1 and method == "exact")
    _refuse_flags(net, method, compare, all_stations, plot_path, fmt, sweep)
    population = _population(population_text, typed, net)
    _refuse_many_servers(net, population)
    at = _at(at_text, sweep)
    if sweep:
        _show_sweep(net, cast(int, population), at, fmt, plot_path, all_stations)  # a sweep's N
    else:
        _show_point(net, method, population, compare, fmt, all_stations)


def _refuse_flags(
    net, method: str, compare: bool, all_stations: bool, plot_path: str | None, fmt: str, sweep: bool
) -> None:
    """Flags that do not apply to this network or method are refused, never ignored."""
    from qmodel.networks.solver import reference_method

    if compare and method in ("exact", "ctmc") and reference_method(net) == method:
        raise InputError(
            "--compare",
            f"with --method {method}",
            "an approximate --method (schweitzer, "
            "linearizer, seidmann), or a network that exact MVA does not solve exactly",
        )
    if compare and net.open_classes.all():
        raise InputError(
            "--compare",
            "with an open network",
            "a network with closed classes (an open network is solved exactly)",
        )
    if plot_path and not sweep:
        raise InputError(
            "--plot",
            plot_path,
            "a sweep --population 1..N of a single-class closed network solved exactly (a curve over N)",
        )
    if all_stations and fmt != "csv":
        raise InputError(
            "--stations",
            "given",
            "--format csv (every station: of every population of a sweep, or of every class)",
        )


def _flag_network(
    demand: str | None,
    service_time: str | None,
    visits: str | None,
    servers: str | None,
    names: str | None,
    think_time: str,
    arrival_rate: str | None,
    time_unit: str,
) -> dict:
    given = demand if demand is not None else service_time
    if given is None or (demand is not None and service_time is not None):
        raise InputError(
            "--demand / --service-time", "both" if demand else "neither", "one of them (or a MODEL.toml file)"
        )
    if visits is not None and service_time is None:
        raise InputError("--visits", visits, "together with --service-time")
    return dict(
        demands=_items("--demand" if demand is not None else "--service-time", given),
        visits=_items("--visits", visits) if visits else None,
        servers=_items("--servers", servers) if servers else None,
        names=_items("--names", names) if names else None,
        think_time=think_time,
        arrival_rate=_arrival_rate(arrival_rate),
        population=0,
        time_unit=time_unit,
    )


def _flag_routing(routing: str | None, service_time: str | None, visits: str | None) -> dict:
    """--routing as the network takes it: a matrix of probabilities, rows split at ';'."""
    if routing is None:
        return {}
    if service_time is None or visits is not None:
        raise InputError(
            "--routing",
            routing,
            "together with --service-time (per visit), without --visits (the routing gives the visits)",
        )
    rows = [_items("--routing", row) for row in routing.split(";")]
    from qmodel.units import parse_value

    return {"routing": [[parse_value("--routing", cell, "1") for cell in row] for row in rows]}


def _flag_buffer(text: str | None) -> dict:
    """--buffer as the network takes it: a whole number per station, or none."""
    if text is None:
        return {}
    return {
        "buffer": [
            None if item.lower() == "none" else _count("--buffer", item) for item in _items("--buffer", text)
        ]
    }


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


def _typed_population(text: str | None) -> tuple[bool, list[int]] | None:
    """--population as typed, parsed once: (True, [N]) for a sweep 1..N, (False, [N1, N2, ...]) for one
    population per closed class, None when not given. Each N a whole number ≥ 1."""
    if text is None:
        return None
    span = split_range("--population", text)
    if span is None:
        return False, [_count("--population", item) for item in text.split(",")]
    if span[0].strip() != "1":
        raise InputError("--population", text, "N or 1..N (MVA computes every population from 1)")
    return True, [_count("--population", span[1])]


def _population(text: str | None, typed: tuple[bool, list[int]] | None, net) -> int | list[int] | None:
    """The population for this network: N, 1..N (a sweep of a single-class closed network: its N), one
    per closed class, or None (the model's). A bare N is one population, as in Python."""
    closed = int(net.closed_classes.sum())
    if typed is None:
        if closed and net.populations[net.closed_classes].sum() == 0:
            raise InputError("--population", "missing", "N or 1..N (the model gives no population)")
        return None
    if closed == 0:
        raise InputError("--population", text, "none for an open network (its arrival rates set the load)")
    swept, values = typed
    if swept:
        if closed > 1 or len(net.classes) > 1:
            raise InputError(
                "--population",
                text,
                "one population per closed class (a sweep 1..N is for a single-class closed network)",
            )
        return values[0]
    if len(values) != closed:
        raise InputError("--population", text, f"one population per closed class ({closed})")
    return values[0] if len(values) == 1 else values


# tabulating a multi-server station's rates (one per server; the estimate and the solve build about six
# tables): seconds and bytes per server (measured: 1,000,000 servers, N = 1..3, 1.6 s of CPU for the whole
# command; a Python float and its place in a tuple, 32 bytes)
_SECONDS_PER_SERVER, _BYTES_PER_SERVER = 2.5e-6, 32


def _refuse_many_servers(net, population: int | list[int] | tuple[int, ...] | None) -> None:
    """A station with more servers than the estimate of the work can tabulate is refused before it is
    (``--servers 1000000000``): servers beyond the jobs never serve one, so the way out is as many as
    the largest population, or a delay station."""
    largest = max((station.servers for station in net.stations if station.kind == "multi"), default=0)
    if population is None:
        jobs = int(net.populations.sum())
    else:
        jobs = sum(population) if isinstance(population, list | tuple) else int(population)
    way_out = (
        f"servers beyond the jobs never serve one: --servers {jobs:,} (the jobs in the network) or "
        "delay for that station"
        if jobs
        else "servers = delay for that station (under open load, servers that are never all busy serve as "
        "a delay: --servers ...,delay)"
    )
    limits.refuse_too_large(
        largest * _BYTES_PER_SERVER, largest * _SECONDS_PER_SERVER, f"--servers {largest:,}", way_out
    )


def _at(text: str | None, sweep: bool) -> list[int]:
    if text is None:
        return []
    if not sweep:
        raise InputError(
            "--at", text, "a sweep --population 1..N of a single-class closed network solved exactly"
        )
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
        return solve(
            net, method, population, lambda done, all_: bar.update(task, completed=done, total=all_), at=at
        )


def _show_sweep(
    net, population: int, at: list[int], fmt: str, plot_path: str | None, all_stations: bool
) -> None:
    import numpy as np

    from qmodel.networks.bounds import UPPER_BOUNDS, closed_bounds
    from qmodel.units import UNITS

    n = population
    beyond = [a for a in at if a > n]
    if beyond:
        raise InputError("--at", ",".join(map(str, beyond)), f"populations of the sweep, 1..{n}")
    at = sorted(set(at))
    if fmt == "table" and len(at) > AT_TABLES:
        raise InputError(
            "--at",
            f"{len(at):,} populations",
            f"at most {AT_TABLES} station tables in a "
            "terminal: --format csv --stations --at ... for every station at each",
        )
    if fmt == "csv" and all_stations:
        at = at or list(range(1, n + 1))
    if fmt == "json" and n > JSON_LIMIT:  # the whole curve and its bounds: --at does not shorten it
        raise InputError(
            "--population",
            f"1..{n}",
            f"at most {JSON_LIMIT:,} populations in JSON: --format "
            f"csv (up to {ROW_LIMIT:,} rows), or a smaller N",
            reason=f"about {n * 125 / 1e6:,.0f} MB of JSON",
        )
    if fmt == "csv":
        rows = (len(at) or n) * (len(net.stations) if all_stations else 1)
        if rows > ROW_LIMIT:
            raise InputError(
                "--population",
                f"1..{n}",
                f"at most {ROW_LIMIT:,} CSV rows: --at N1,N2,... "
                "for the populations you need, or a smaller N",
                reason=f"{rows:,} rows, about {rows * 60 / 1e6:,.0f} MB of CSV",
            )
    shown, left_out = _shown(n, at, fmt)
    bounded = np.arange(1, n + 1) if fmt == "json" or plot_path else shown
    _refuse_long_sweep(
        net,
        n,
        bounded.size,
        shown.size * len(net.stations) if all_stations else shown.size,
        fmt,
        all_stations,
    )
    bounds = closed_bounds(net, bounded)  # refused with its estimate before the sweep where too long
    result = _solve(net, "exact", n, at, n)
    curve = result.curve
    unit = net.time_unit
    scale = UNITS[unit].to_si
    index = np.searchsorted(bounded, shown)
    columns = (
        ["N", "X [1/s]", f"R [{unit}]", "X upper bound [1/s]", "X lower bound [1/s]", "binding bound"]
        if fmt == "table"
        else ["population", "throughput[1/s]", f"response_time[{unit}]", *BOUND_KEYS, "binding_bound"]
    )  # a terminal's labels; records' keys
    names = np.array([name for name, _ in UPPER_BOUNDS], dtype=object)  # by binding code

    def blocks():  # the rows' columns, CSV_BLOCK populations at a time
        for start in range(0, shown.size, CSV_BLOCK):
            n, i = shown[start : start + CSV_BLOCK], index[start : start + CSV_BLOCK]
            yield [
                n,
                curve.throughput[n - 1],
                curve.response_time[n - 1] / scale,
                bounds.throughput_upper[i],
                bounds.throughput_lower[i],
                names[bounds.binding_code[i]],
            ]

    caption = "; ".join(
        [
            f"bottleneck {bounds.bottleneck}; asymptotes cross at N* = {bounds.knee:.3g}",
            *(
                ["balanced job and geometric bounds need single-server stations (asymptotic only)"]
                if not bounds.balanced
                else []
            ),
            *(f"{name}: {formula}" for name, formula in bounds.formulas(index)),
            *([left_out] if left_out else []),
        ]
    )
    if fmt == "json":
        payload = result.to_json()
        payload["bounds"] = {
            "throughput_upper": bounds.throughput_upper.tolist(),
            "throughput_lower": bounds.throughput_lower.tolist(),
            "binding": [bounds.binding_at(i) for i in range(n)],
            "binding_formulas": dict(bounds.formulas(range(n))),
            "bottleneck": bounds.bottleneck,
            "knee": bounds.knee,
        }
        render([], [], fmt, json_payload=payload)
    elif all_stations:
        write_csv_columns(["population", *result.points[0].station_columns()], _station_blocks(result.points))
    elif fmt == "csv":
        write_csv_columns(columns, blocks())
    else:
        table = [
            row for block in blocks() for row in zip(*(column.tolist() for column in block), strict=True)
        ]
        render(columns, table, fmt, title="Exact MVA: system", caption=caption)
        if fmt == "table":
            for point in result.points if n in at else (*result.points, result):
                _station_table(point, fmt)
    if plot_path:
        from qmodel.cli.plotting import plot_mva

        plot_mva(curve.population, curve.throughput, curve.response_time, bounds, unit, plot_path)


def _station_blocks(points):
    """Every station at each of these points, as columns (N first), about CSV_BLOCK rows at a time."""
    import numpy as np

    rows = len(points[0].classes) * len(points[0].stations)
    step = max(1, CSV_BLOCK // rows)
    for start in range(0, len(points), step):
        part = points[start : start + step]
        columns = [point.station_columns() for point in part]
        population = np.repeat(np.array([int(p.populations[0]) for p in part], dtype=np.int64), rows)
        yield [
            population,
            *(
                np.concatenate(cells)
                if isinstance(cells[0], np.ndarray)
                else [cell for column in cells for cell in column]
                for cells in zip(*(c.values() for c in columns), strict=True)
            ),
        ]


def _refuse_long_sweep(net, n: int, bounded: int, rows: int, fmt: str, all_stations: bool) -> None:
    """Refuse, before any work, a sweep whose solve, bounds and output together would pass the limits
    (each is also held to them alone)."""
    from qmodel.networks.bounds import estimate_bounds
    from qmodel.networks.exact import estimate_sweep

    sweep_bytes, sweep_seconds = estimate_sweep(net, n)
    bounds_bytes, bounds_seconds = estimate_bounds(net, bounded)
    cells = rows * (10 if all_stations else 6) if fmt == "csv" else 0
    output_seconds = cells * SECONDS_PER_CELL + (n * SECONDS_PER_JSON_POPULATION if fmt == "json" else 0)
    alone = sweep_seconds > 0.9 * limits.TIME_LIMIT or sweep_bytes > 0.9 * limits.MEMORY_LIMIT
    way_out = (
        f"a smaller N (the solve alone needs about {sweep_seconds:.3g} s and "
        f"{sweep_bytes / 1e9:.3g} GB whatever --at asks)"
        if alone
        else "--at N1,N2,... for the populations you need (their rows and bounds only), or a smaller N"
    )
    limits.refuse_too_large(
        sweep_bytes + bounds_bytes,
        sweep_seconds + bounds_seconds + output_seconds,
        f"a sweep of {len(net.stations):,} stations to N = {n:,} with its bounds and "
        f"{fmt.upper() if fmt != 'table' else 'table'}",
        way_out,
    )


def _shown(n: int, at: list[int], fmt: str):
    """(the populations a sweep's rows show, what the caption says of those left out).

    CSV: every population, or those of --at only. JSON: every one. A table: every one up to
    TABLE_ROWS, else N = 1, every multiple of a round step (1, 2 or 5 × 10^k) and N, with --at's added,
    and the caption names the step and how to get the others.
    """
    import numpy as np

    if fmt == "csv" and at:
        return np.asarray(at, dtype=np.int64), ""
    if fmt != "table" or n <= TABLE_ROWS:
        return np.arange(1, n + 1), ""
    step = next(
        size * 10**power for power in range(20) for size in (1, 2, 5) if n / (size * 10**power) <= TABLE_ROWS
    )
    shown = np.union1d(np.union1d(np.arange(step, n + 1, step), [1, n]), np.asarray(at, dtype=np.int64))
    return shown, (
        f"{shown.size:,} of {n:,} populations shown: N = 1, every multiple of {step:,}"
        + (", --at's" if at else "")
        + f" and {n:,}; the others with --format csv or "
        "--at N1,N2,..."
    )


def _station_table(result, fmt: str, title: str = "", caption: str = "") -> None:
    closed = ~result.open_classes
    populations = ", ".join(
        f"{name} {int(p)}"
        for name, p, is_closed in zip(result.classes, result.populations, closed, strict=True)
        if is_closed
    )
    records = _without_empty_columns(result.records())
    title = title or (
        f"Stations at N = {populations} ({result.method})" if closed.any() else "Open network: stations"
    )
    render(
        _columns(records[0], fmt),
        [list(r.values()) for r in records],
        fmt,
        title=title,
        caption=caption,
        keys=2,
    )  # class, station


def _show_point(net, method: str, population, compare: bool, fmt: str, all_stations: bool) -> None:
    import numpy as np

    lattice = int(np.prod(net.populations[net.closed_classes] + 1)) if method == "exact" else 0
    from dataclasses import replace

    # one population: the curve exact MVA passed through on the way is not part of the answer (1..N is)
    result = replace(_solve(net, method, population, total=lattice), curve=None, points=())
    caption = ""
    deviation = None
    from qmodel.networks.solver import approximation_error, reference_method

    exact = reference_method(net)
    if compare:
        deviation = approximation_error(result)
        against = "exact MVA" if exact == "exact" else "the exact Markov chain"
        caption = (
            f"{result.method} against {against}: throughput within {deviation['throughput']:.3%}, "
            f"queue lengths within {deviation['queue_length']:.3%} of the class population"
        )
    elif result.method == "priority-mva":
        caption = (
            "priority-mva: the MVA priority approximation (Bryant et al. 1984), not exact: --compare "
            "measures it against the Markov chain"
        )
    classes = result.class_records()
    if net.closed_classes.any() and exact == "exact":  # the bounds are the product form's
        upper, lower = _bounds_per_class(net, result.populations)
        for record, high, low in zip(classes, upper.tolist(), lower.tolist(), strict=True):
            ends = (high, low) if record["population"] is not None else (None, None)
            record.update(dict(zip(BOUND_KEYS, ends, strict=True)))
        if net.switching:
            caption = "; ".join(
                filter(
                    None,
                    [
                        caption,
                        "classes that switch form a chain: X is the chain's, "
                        "cycles (closed) or arrivals (open) per second",
                    ],
                )
            )
    if fmt == "json":
        payload = result.to_json()
        if deviation is not None:
            payload["deviation_from_exact"] = deviation
        if net.open_classes.any() and not net.open_classes.all():
            payload["closed_classes"] = {r["class"]: r for r in classes if r["population"] is not None}
            payload["open"] = [
                r
                for r in result.records()
                if r["class"] in {c["class"] for c in classes if c["population"] is None}
            ]
        render([], [], fmt, json_payload=payload)
        return
    if fmt == "csv" and (all_stations or net.open_classes.all()):
        _station_table(result, fmt)
        return
    classes = _without_empty_columns(classes)
    kind = "Open network" if net.open_classes.all() else "Mixed network" if net.open_classes.any() else "MVA"
    render(
        _columns(classes[0], fmt),
        [list(r.values()) for r in classes],
        fmt,
        title=f"{kind} ({result.method}): classes",
        caption=caption,
    )
    if fmt == "table":
        _station_table(result, fmt)
        if result.marginals is not None:
            _marginals_table(result, fmt)


MARGINAL_COLUMNS = 8  # a table shows p(0..7) of each station and the rest in one column


def _marginals_table(result, fmt: str) -> None:
    """Method convolution: each station's probability of j jobs, the normalizing constant in the caption
    (every j in JSON)."""
    shown = min(result.marginals.shape[1], MARGINAL_COLUMNS)
    columns = ["station", *(f"p({j})" for j in range(shown))]
    rest = result.marginals.shape[1] > shown
    if rest:
        columns.append(f"p(≥{shown})")
    rows = [
        [name, *row[:shown].tolist(), *([float(row[shown:].sum())] if rest else [])]
        for name, row in zip(result.network.station_names, result.marginals, strict=True)
    ]
    caption = (
        ""
        if result.log_normalizing_constant is None
        else f"log G(N) = {result.log_normalizing_constant:.10g} (natural log; G in seconds^N)"
    )
    render(columns, rows, fmt, title="Marginal probabilities: j jobs at each station", caption=caption)


def _bounds_per_class(net, populations):
    """(upper, lower) throughput bounds per class (asymptotic, balanced system and composite: composite.py),
    NaN for an open class: a mixed network's
    closed classes on the stations as the open load leaves them; classes that switch, their chain's."""
    import numpy as np

    from qmodel.networks.chains import chain_network, chain_populations
    from qmodel.networks.composite import composite_bounds
    from qmodel.networks.solver import closed_part

    outer = chain_network(net) if net.switching else net
    counts = chain_populations(net, populations) if net.switching else populations
    closed = outer if outer.closed_classes.all() else closed_part(outer, counts)[0]
    bounds = composite_bounds(closed, counts[outer.closed_classes])
    upper, lower = np.full(len(outer.classes), np.nan), np.full(len(outer.classes), np.nan)
    upper[outer.closed_classes] = bounds.throughput_upper
    lower[outer.closed_classes] = bounds.throughput_lower
    return (upper[net.chains], lower[net.chains]) if net.switching else (upper, lower)


def _columns(record: dict, fmt: str) -> list[str]:
    """A record's keys as the columns: the keys themselves in CSV, a terminal's short labels in a table
    (:data:`LABELS`, the unit after a space where the table may wrap it; a ratio shown bare)."""
    from qmodel.frames import split_key

    if fmt != "table":
        return list(record)
    labels = []
    for key in record:
        name, unit = split_key(key)
        label = LABELS.get(name, name)
        labels.append(label if unit in (None, "ratio") else f"{label} [{unit}]")
    return labels


def _without_empty_columns(records: list[dict]) -> list[dict]:
    """The records without the columns that are empty in every row (arrival rate of closed classes...)."""
    empty = [key for key in records[0] if all(record[key] is None for record in records)]
    return [{key: value for key, value in record.items() if key not in empty} for record in records]
