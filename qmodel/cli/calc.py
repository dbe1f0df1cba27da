"""Commands over one catalogue entry: ``calc``, ``sweep``, ``solve`` and ``batch``.

``calc`` is the quick path: it imports click, numpy and rich, never sympy or scipy.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NamedTuple

import click

from qmodel.cli.common import (
    CATALOGUE_OPTION,
    FORMAT_OPTION,
    complete_formula_id,
    parse_assignments,
    parse_list_assignments,
    say,
)
from qmodel.errors import InputError
from qmodel.output import render
from qmodel.units import parse_list, split_range

if TYPE_CHECKING:  # numpy is imported when a command runs
    import numpy as np


def _symbol_units(entry) -> dict[str, str]:
    return {name: symbol.unit for name, symbol in entry.symbols.items()}


def _lists(entry, assignments: tuple[str, ...]) -> dict[str, list[float]]:
    """The NAME=VALUE pairs typed for ``entry``, each a list of values in its symbol's unit."""
    whole = frozenset(name for name, symbol in entry.symbols.items() if symbol.domain.integer)
    return parse_list_assignments(assignments, _symbol_units(entry), f"an input of {entry.id}", whole)


_MOST_ROWS = 1_000_000  # a table of more rows is refused before it is computed
# a table is for reading: more rows than this at the terminal are refused (CSV and JSON write up to
# _MOST_ROWS), as a scenario's table shows at most 1,000 distances
TABLE_ROWS = 1_000


def _refuse_long_table(fmt: str, option: str, value: str, rows: int) -> None:
    """A table of more than TABLE_ROWS rows is refused before it is computed, with the formats that write
    it: at a terminal it would scroll for a minute."""
    if fmt == "table" and rows > TABLE_ROWS:
        raise InputError(
            option,
            value,
            f"at most {TABLE_ROWS:,} rows in a table; --format csv or json writes up to {_MOST_ROWS:,}",
            reason=f"{rows:,} rows to print",
        )


def _grid(entry, lists: dict[str, list[float]], fmt: str) -> dict:
    """Every combination of the listed values (the first name varies slowest), one array per input.

    Refused before anything is allocated when the table would have more than
    a million rows, or a table at the terminal more than TABLE_ROWS.
    """
    import math

    import numpy as np

    rows = math.prod(len(values) for values in lists.values())
    _refuse_long_table(fmt, "inputs", " × ".join(str(len(v)) for v in lists.values()) + f" = {rows:,}", rows)
    if rows > _MOST_ROWS:
        size = rows * (len(entry.symbols) + len(entry.outputs)) * 8 / 1e9
        raise InputError(
            "inputs",
            " × ".join(str(len(v)) for v in lists.values()) + f" = {rows:,} rows",
            f"at most {_MOST_ROWS:,} rows",
            reason=f"about {size:.3g} GB of table to compute "
            "and print; use fewer list items, --steps or a narrower range",
        )
    mesh = np.meshgrid(*(np.asarray(v, float) for v in lists.values()), indexing="ij")
    return {name: axis.ravel() for name, axis in zip(lists, mesh, strict=True)}


def _notes(entry, assignments: tuple[str, ...]) -> list[str]:
    """How each data size or rate was read where its unit could be mistaken (800Mb/s, a bare 100)."""
    from qmodel.units import reading_note

    notes = []
    for assignment in assignments:
        name, _, text = assignment.partition("=")
        if name.strip() in entry.symbols and "," not in text:
            note = reading_note(name.strip(), text, entry.symbols[name.strip()].unit)
            notes.append(note) if note else None
    return notes


def _value(entry, name: str, value: float | np.ndarray) -> int | float:
    return int(value) if entry.symbols[name].domain.integer else float(value)


def _table(entry, evaluation, varied: list[str], fmt: str):
    """(columns, rows, payload rows) of an evaluation over a grid: the varied inputs, the outputs, and a
    row's error, or the warnings of a row computed past a ``warn`` constraint (the backlog grows). The
    columns are the records' keys (:func:`qmodel.frames.key`) in CSV and JSON, labels with a space
    before the unit in a table (a terminal wraps them there)."""
    from qmodel import frames

    errors, warnings = evaluation.errors, evaluation.warnings
    units = [(name, entry.symbols[name].unit) for name in varied] + [(o.name, o.unit) for o in entry.outputs]
    keys = [frames.key(name, unit) for name, unit in units]
    labels = keys if fmt != "table" else [frames.label(key) for key in keys]
    columns = [*labels, *(["error"] if errors or warnings else [])]
    rows, records = [], []
    size = next(iter(evaluation.inputs.values())).size
    for row in range(size):
        error = errors.get(row)
        warned = "; ".join(f"warning: {w}" for w in warnings.get(row, []))
        inputs = [_value(entry, name, evaluation.inputs[name].flat[row]) for name in varied]
        outputs = [None if error else float(evaluation.outputs[o.name].flat[row]) for o in entry.outputs]
        note = error.message() if error else warned
        rows.append(inputs + outputs + ([note] if errors or warnings else []))
        records.append(
            {
                **dict(zip(keys, inputs + outputs, strict=True)),
                "error": error.message() if error else None,
                "warnings": warnings.get(row, []),
            }
        )
    return columns, rows, records


def _fixed_text(entry, fixed: dict[str, float]) -> str:
    from qmodel.output import format_number
    from qmodel.units import with_unit

    return ", ".join(
        f"{name} = {with_unit(format_number(float(value)), entry.symbols[name].unit)}"
        for name, value in fixed.items()
    )


@click.command(
    epilog="""\b
Examples:
  $ qmodel calc mm1 arrival_rate=800 service_time=1ms
  $ qmodel calc mmc arrival_rate=35K service_time=150us servers=8
  $ qmodel calc mmc arrival_rate=20K,35K service_time=150us servers=6,8,10
  $ qmodel calc transaction_elongation cf_requests=12 sync_writes=4 \\
        distance=20,40,70km
  $ qmodel calc link_sizing write_rate=120MB/s link_bandwidth=800Mb/s links=2
  $ qmodel calc erlang_c servers=4 offered_load=3 --format json
\b
Values: ratios as 0.95 or 95%; counts and rates as 35K or 1.4M; times and
distances in the symbol's unit or with their own (400us, 0.4ms, 70km); link
speeds in bytes or bits (250MB/s, 2Gb/s). A list (20,40,70km; a unit on the
last item applies to all) gives one row per combination of the listed values.
Two whole numbers and a comma are a list where no decimal comma can be meant
(800,1200; 0km,5km); 0,5km is refused with both readings (0.5km, 0km,5km).
\b
Docs: docs/howto/calc.md (site: howto/calc.html)
Options: docs/reference/commands.md#qmodel-calc"""
)
@click.argument("formula_id", shell_complete=complete_formula_id)
@click.argument("assignments", nargs=-1, metavar="NAME=VALUE...")
@FORMAT_OPTION
@CATALOGUE_OPTION
def calc(formula_id: str, assignments: tuple[str, ...], fmt: str) -> None:
    """Evaluate catalogue entry FORMULA_ID for the given inputs (or lists of them)."""
    from qmodel.catalogue.evaluate import calc as evaluate_formula
    from qmodel.catalogue.loader import get_formula

    entry = get_formula(formula_id)
    lists = _lists(entry, assignments)
    notes = _notes(entry, assignments)
    if any(len(values) > 1 for values in lists.values()):
        _calc_grid(entry, lists, notes, fmt)
        return
    inputs = {name: values[0] for name, values in lists.items()}
    try:
        result = evaluate_formula(entry.id, "display", **inputs)
    except InputError as error:  # a refused answer says how a bare number was read (150: 150 ms)
        readings = _bare_readings(entry, assignments)
        if not readings:
            raise
        raise InputError(
            error.parameter,
            error.value,
            error.allowed,
            reason="; ".join(filter(None, [error.reason, readings])),
        ) from None
    used = {name: _value(entry, name, value) for name, value in result.inputs.items()}
    rows = [
        ["input" if name in lists else "default", name, used[name], entry.symbols[name].unit]
        for name in entry.symbols
    ]
    rows += [["output", o.name, float(result.outputs[o.name]), o.unit] for o in entry.outputs]
    payload = {
        "formula": entry.id,
        "inputs": {
            name: {"value": used[name], "unit": s.unit, **({} if name in lists else {"default": True})}
            for name, s in entry.symbols.items()
        },
        "outputs": {o.name: {"value": float(result.outputs[o.name]), "unit": o.unit} for o in entry.outputs},
        "warnings": result.warnings,
    }
    if notes:
        payload["notes"] = notes
    render(["kind", "name", "value", "unit"], rows, fmt, title=entry.title, json_payload=payload, keys=2)
    _under_the_table(fmt, notes, _assumed(entry, set(lists), used), result.warnings)


def _assumed(entry, given: set[str], used: dict) -> str:
    """The defaults an answer rests on, each with what it means: every assumption shown beside the number
    (``assumed: io_round_trips = 1 (round trips host to primary disk ...)``)."""
    from qmodel.output import format_number
    from qmodel.units import with_unit

    def shown(value: float, unit: str) -> str:
        return f"{format_number(value * 100)}%" if unit == "ratio" else with_unit(format_number(value), unit)

    assumed = [
        f"{name} = {shown(float(used[name]), symbol.unit)} ({symbol.meaning})"
        for name, symbol in entry.symbols.items()
        if name not in given and name in used
    ]
    return "assumed (defaults; NAME=VALUE to change): " + "; ".join(assumed) if assumed else ""


def _under_the_table(fmt: str, notes: list[str], assumed: str, warnings: list[str]) -> None:
    """What is said under a table, left-aligned: how values were read and the defaults assumed (the table
    only: CSV and JSON carry them as rows and keys), then each warning on stderr as a line of its own,
    exit status 1: the answer stands, the state it describes does not last (JSON: in its ``warnings``)."""
    if fmt == "table":
        say("; ".join(notes))
        say(assumed)
    if fmt != "json":
        sys.stdout.flush()  # the table and its notes before the warnings, where both reach one terminal
        for warning in warnings:
            say(f"warning: {warning}", err=True)
    if warnings:
        raise click.exceptions.Exit(1)


# the other unit a bare time may have been meant in: a hint where a bare number made an answer impossible
_OTHER_TIME_UNIT = {
    "ms": ("us", "microseconds"),
    "us": ("ms", "milliseconds"),
    "s": ("ms", "milliseconds"),
    "min": ("s", "seconds"),
}


def _bare_readings(entry, assignments: tuple[str, ...]) -> str:
    """How each bare number typed for a time, length or data symbol was read, where the model refused the
    answer: ``service_time = 150 was read in ms (150us for microseconds)``."""
    from qmodel.units import UNITS, bare_number

    said = []
    for assignment in assignments:
        name, _, text = assignment.partition("=")
        symbol = entry.symbols.get(name.strip())
        if (
            symbol is None
            or bare_number(text) is None
            or UNITS[symbol.unit].dimension in ("count", "ratio", "rate")
        ):
            continue
        other = _OTHER_TIME_UNIT.get(symbol.unit)
        hint = f" ({text.strip()}{other[0]} for {other[1]})" if other else ""
        said.append(f"{name.strip()} = {text.strip()} was read in {symbol.unit}{hint}")
    return "; ".join(said)


def _calc_grid(entry, lists: dict[str, list[float]], notes: list[str], fmt: str) -> None:
    """``calc`` with lists: one row per combination, the listed inputs beside the outputs."""
    from qmodel.catalogue.evaluate import evaluate

    varied = [name for name, values in lists.items() if len(values) > 1]
    fixed = {name: values[0] for name, values in lists.items() if len(values) == 1}
    evaluation = evaluate(entry, {**fixed, **_grid(entry, {n: lists[n] for n in varied}, fmt)})
    columns, rows, records = _table(entry, evaluation, varied, fmt)
    used = {
        name: _value(entry, name, value.flat[0])
        for name, value in evaluation.inputs.items()
        if name not in varied
    }
    payload = {
        "formula": entry.id,
        "inputs": {
            n: {"value": v, "unit": entry.symbols[n].unit, **({} if n in lists else {"default": True})}
            for n, v in used.items()
        },
        "records": records,
        **({"notes": notes} if notes else {}),
    }
    render(columns, rows, fmt, title=entry.title, json_payload=payload)
    given = {n: v for n, v in used.items() if n in lists}
    if fmt == "table":
        say("; ".join(filter(None, ["with " + _fixed_text(entry, given) if given else "", *notes])))
        say(_assumed(entry, set(lists), used))
    if evaluation.errors or evaluation.warnings:  # the table says which rows, and why
        raise click.exceptions.Exit(1)


@click.command(
    epilog="""\b
Examples:
  $ qmodel sweep mm1 arrival_rate=100..950 --steps 10 service_time=1ms
  $ qmodel sweep transaction_elongation distance=20,40,70km \\
        cf_requests=12 sync_writes=4
  $ qmodel sweep mmc arrival_rate=10K..50K servers=6,8 service_time=150us \\
        --y response_time --y wait_probability
  $ qmodel sweep backend_load io_rate=50K..250K --steps 9 \\
        read_fraction=56.5% read_hit_ratio=95% destage_rate=10% drives=360 \\
        --plot knee.png --y drive_utilization
\b
INPUT is a range START..STOP (--steps points) or a list a,b,c. Other inputs
may be lists too: every combination is swept. Rows where the model refuses
the inputs (past a stability limit) show why instead of numbers, and the
exit status is then 1 (as calc's with lists; 2: nothing computed). Where
INPUT is a load (a rate) the knee of the response time is named under the
table and marked on the plot: the point of most load per response time.
A table shows at most 1,000 rows (--format csv or json: 1,000,000).
\b
Docs: docs/howto/calc.md (site: howto/calc.html)
Options: docs/reference/commands.md#qmodel-sweep"""
)
@click.argument("formula_id", shell_complete=complete_formula_id)
@click.argument("vary", metavar="INPUT=START..STOP|a,b,c")
@click.argument("assignments", nargs=-1, metavar="NAME=VALUE...")
@click.option("--steps", "steps_text", default="11", show_default=True, help="Points from START to STOP.")
@click.option(
    "--plot",
    "plot_path",
    default=None,
    metavar="FILE",
    help="Also draw the curve to FILE (.png, .svg, .pdf).",
)
@click.option(
    "--y",
    "y_outputs",
    multiple=True,
    metavar="OUTPUT",
    help="Output to show and plot; repeatable (default: every output in the table; on the "
    "plot the response time whose knee is marked, else the entry's last output).",
)
@FORMAT_OPTION
@CATALOGUE_OPTION
def sweep(
    formula_id: str,
    vary: str,
    assignments: tuple[str, ...],
    steps_text: str,
    plot_path: str | None,
    y_outputs: tuple[str, ...],
    fmt: str,
) -> None:
    """Evaluate an entry over a range or list of one input: the table of outputs (and curves)."""
    import numpy as np

    from qmodel.catalogue.evaluate import evaluate
    from qmodel.catalogue.loader import get_formula
    from qmodel.units import parse_value

    entry = get_formula(formula_id)
    name, sep, span = vary.partition("=")
    name = name.strip()
    if not sep or name not in entry.symbols:
        raise InputError(
            vary,
            "",
            "INPUT=START..STOP or INPUT=a,b,c with INPUT one of " + ", ".join(entry.symbols),
            reason="not a range or list of an input",
        )
    unit = entry.symbols[name].unit
    span_ends = split_range(vary, span)
    lists = _lists(entry, assignments)
    if name in lists:  # the swept input given again: one of the two would go unused
        twice = next(a for a in assignments if a.partition("=")[0].strip() == name)
        raise InputError(
            name, twice.partition("=")[2], f"{name} once, as the input swept ({vary})", reason="given twice"
        )
    if span_ends is None:
        values = np.asarray(_lists(entry, (vary,))[name])
    else:
        steps = parse_value("--steps", steps_text, "1")
        if not (steps >= 2 and steps == int(steps)):
            raise InputError("--steps", steps_text, "a whole number >= 2")
        others = int(np.prod([len(v) for v in lists.values()]))
        _refuse_long_table(fmt, "--steps", steps_text, int(steps * others))
        if steps * others > _MOST_ROWS:
            size = steps * others * (len(entry.symbols) + len(entry.outputs)) * 8 / 1e9
            raise InputError(
                "--steps",
                steps_text,
                f"at most {_MOST_ROWS // others:,} here",
                reason=f"{steps * others:,.0f} rows, about {size:.3g} GB of table; "
                "use fewer --steps or a narrower range",
            )
        # the ends read as a list: a unit on STOP applies to a bare START, as in a scenario's distances
        start, stop = parse_list(name, ",".join(span_ends), unit)
        values = np.linspace(start, stop, int(steps))
    if entry.symbols[name].domain.integer:
        values = np.unique(np.round(values))
    known = [o.name for o in entry.outputs]
    for y_name in y_outputs:
        if y_name not in known:
            raise InputError("--y", y_name, ", ".join(known), reason=f"not an output of {entry.id}")
    if plot_path:
        from qmodel.cli.plotting import check_plot_path

        check_plot_path(plot_path)
    varied = [name] + [n for n, v in lists.items() if len(v) > 1]
    fixed = {n: v[0] for n, v in lists.items() if len(v) == 1}
    grid = _grid(entry, {name: values.tolist(), **{n: lists[n] for n in varied[1:]}}, fmt)
    evaluation = evaluate(entry, {**fixed, **grid})
    shown = (
        entry._replace(outputs=tuple(o for o in entry.outputs if o.name in y_outputs)) if y_outputs else entry
    )
    columns, rows, _ = _table(shown, evaluation, varied, fmt)
    used = {n: _value(entry, n, v.flat[0]) for n, v in evaluation.inputs.items() if n not in varied}
    given = {n: v for n, v in used.items() if n in lists}
    with_text = "with " + _fixed_text(entry, given) if given else ""
    knees = _knees(entry, evaluation, varied, y_outputs)
    render(columns, rows, fmt, title=f"{entry.id}: sweep of {name}")
    if fmt == "table":
        say(with_text)
        say(_assumed(entry, set(lists) | {name}, used))
        for knee in knees:
            say(knee.words)
    if plot_path:
        plotted = list(y_outputs) or [knees[0].output if knees else entry.outputs[-1].name]
        _plot_sweep(entry, evaluation, varied, plotted, with_text, plot_path, knees)
    if evaluation.errors or evaluation.warnings:  # as calc with lists: the table was written, some rows
        raise click.exceptions.Exit(1)  # failed or describe a state that does not last


def _combinations(evaluation, varied: list[str]):
    """Each curve of a sweep: the (name, value) pairs of the other listed inputs, and the mask of its rows
    that were computed."""
    import numpy as np

    good = np.ones(next(iter(evaluation.inputs.values())).size, dtype=bool)
    good[list(evaluation.errors)] = False
    x = evaluation.inputs[varied[0]].ravel()
    combos = {tuple(evaluation.inputs[n].flat[i] for n in varied[1:]) for i in range(x.size)}
    for combo in sorted(combos):
        pairs = list(zip(varied[1:], combo, strict=True))
        yield (
            pairs,
            good
            & np.all(
                [evaluation.inputs[n].ravel() == v for n, v in pairs] or [np.ones(x.size, dtype=bool)], axis=0
            ),
        )


class Knee(NamedTuple):
    """The knee of one curve of a sweep (:func:`qmodel.algorithms.queueing.power_knee`)."""

    pairs: list  # the other listed inputs' (name, value) on this curve
    load: float  # the swept input at the knee, in its unit
    response: float  # the response-time output there, in its unit
    output: str  # which output
    point: str  # the knee's load and response time with their units
    words: str  # what the table says under it


def _knees(entry, evaluation, varied: list[str], y_outputs: tuple[str, ...]) -> list[Knee]:
    """The knee of each curve where the swept input is a load (a rate) and a time output is shown
    (``response_time`` first): the point of most power, load over response time (Kleinrock; Jain's
    knee capacity)."""
    from qmodel.algorithms.queueing import power_knee
    from qmodel.output import format_number
    from qmodel.units import UNITS, with_unit

    name = varied[0]
    times = [
        o.name
        for o in entry.outputs
        if UNITS[o.unit].dimension == "time" and (not y_outputs or o.name in y_outputs)
    ]
    if UNITS[entry.symbols[name].unit].dimension != "rate" or not times:
        return []
    output = "response_time" if "response_time" in times else times[0]
    load_unit, time_unit = entry.symbols[name].unit, entry.output(output).unit
    knees = []
    for pairs, on in _combinations(evaluation, varied):
        x, y = evaluation.inputs[name].ravel()[on], evaluation.outputs[output].ravel()[on]
        at = power_knee(x, y)
        if at is None:
            continue
        curve = ", ".join(f"{n} = {format_number(float(v))}" for n, v in pairs)
        point = (
            f"{name} = {with_unit(format_number(float(x[at])), load_unit)}, "
            f"{output} = {with_unit(format_number(float(y[at])), time_unit)}"
        )
        where = (
            "at the last point computed: it may lie beyond (sweep further)"
            if at == x.size - 1
            else "at the first point computed: it may lie below (sweep from lower)"
            if at == 0
            else ""
        )
        words = (
            f"knee{f' ({curve})' if curve else ''}: {point}"
            + (f", {where}" if where else "")
            + f"; where {name} / {output} is greatest (Kleinrock's power; Jain 1991, §3.3)"
        )
        shown = (
            f"{with_unit(format_number(float(x[at])), load_unit)}, "
            f"{with_unit(format_number(float(y[at])), time_unit)}"
        )
        knees.append(Knee(pairs, float(x[at]), float(y[at]), output, shown, words))
    return knees


def _plot_sweep(
    entry, evaluation, varied: list[str], y_names: list[str], fixed: str, path: str, knees: list[Knee]
) -> None:
    """One curve per output asked for and per combination of the other listed inputs, each knee marked."""
    from qmodel.cli.plotting import plot_sweep
    from qmodel.output import format_number

    name = varied[0]
    x = evaluation.inputs[name].ravel()
    curves: dict = {}
    marks: dict = {}
    for pairs, on in _combinations(evaluation, varied):
        label_of = ", ".join(f"{n} = {format_number(float(v))}" for n, v in pairs)
        for y_name in y_names:
            label = f"{y_name} [{entry.output(y_name).unit}]" + (f" ({label_of})" if label_of else "")
            curves[label] = (x[on], evaluation.outputs[y_name].ravel()[on])
            marks.update(
                (label, (knee.load, knee.response, f"knee: {knee.point}"))
                for knee in knees
                if knee.pairs == pairs and knee.output == y_name
            )
    y_units = {entry.output(y).unit for y in y_names}
    y_label = (
        f"{y_names[0]} [{entry.output(y_names[0]).unit}]" if len(y_names) == 1 else ", ".join(sorted(y_units))
    )
    plot_sweep(curves, f"{name} [{entry.symbols[name].unit}]", y_label, entry.title, fixed, path, marks)


@click.command(
    epilog="""\b
Examples:
  $ qmodel solve backend_load drive_utilization=50% --for io_rate \\
        read_fraction=56.5% read_hit_ratio=95% destage_rate=10% drives=360
  $ qmodel solve backend_load drive_utilization=40% --for read_hit_ratio \\
        io_rate=163K read_fraction=56.5% destage_rate=10% drives=360
  $ qmodel solve mm1 response_time=5ms --for arrival_rate service_time=1ms
\b
The output must be declared increasing or decreasing in the input solved for
(see `qmodel formula show`). For a whole-number input the answer is the whole
number that keeps the output at or below the target.
\b
Docs: docs/howto/calc.md (site: howto/calc.html)
Options: docs/reference/commands.md#qmodel-solve"""
)
@click.argument("formula_id", shell_complete=complete_formula_id)
@click.argument("target", metavar="OUTPUT=TARGET")
@click.option("--for", "unknown", required=True, metavar="INPUT", help="The input to solve for.")
@click.argument("assignments", nargs=-1, metavar="NAME=VALUE...")
@FORMAT_OPTION
@CATALOGUE_OPTION
def solve(formula_id: str, target: str, unknown: str, assignments: tuple[str, ...], fmt: str) -> None:
    """Inverse solve: the value of one input at which an output reaches a target."""
    from qmodel.catalogue.inverse import solve as solve_for
    from qmodel.catalogue.loader import get_formula

    entry = get_formula(formula_id)
    outputs = {o.name: o.unit for o in entry.outputs}
    ((output, goal),) = parse_assignments((target,), outputs, f"an output of {entry.id}").items()
    inputs = parse_assignments(assignments, _symbol_units(entry), f"an input of {entry.id}")
    solution = solve_for(entry, output, goal, unknown, inputs)
    symbol = entry.symbols[unknown]
    value = float(solution.value)
    defaults = {
        name: s.default
        for name, s in entry.symbols.items()
        if name not in inputs and name != unknown and s.default is not None
    }
    rows = [["solved", unknown, int(value) if symbol.domain.integer else value, symbol.unit]]
    rows += [["given", name, float(v), entry.symbols[name].unit] for name, v in inputs.items()]
    rows += [
        ["default", name, _value(entry, name, v), entry.symbols[name].unit] for name, v in defaults.items()
    ]
    rows += [["output", o.name, float(solution.outputs[o.name]), o.unit] for o in entry.outputs]
    render(
        ["kind", "name", "value", "unit"],
        rows,
        fmt,
        keys=2,
        title=f"{entry.id}: {unknown} for {output} = {goal:g} {outputs[output]}",
    )
    if fmt == "table":
        say(_assumed(entry, set(inputs) | {unknown}, defaults))


@click.command(
    epilog="""\b
Example:
  $ qmodel batch mm1 devices.csv -o devices-out.csv
  $ cat devices.csv | qmodel batch mm1 - > out.csv
  $ qmodel batch mm1 rmf.csv --map "SSCH/s=arrival_rate" \\
        --map "Resp (us)=service_time[us]"
  $ qmodel batch mm1 sizing.xlsx --sheet Disks -o sizing-results.xlsx
\b
Headers name symbols as people write them: service_time, Service Time,
Service Time (ms), service time [us]; --map names any other column. Other
columns pass through. Result columns name[unit] and an `error` column are
appended. A ';' export with decimal commas (0,4), a BOM, CRLF or CR line ends
is read as it is and written back the same way. A workbook (.xlsx, .xlsm,
.ods, .xls) is read from its first sheet (or --sheet), numbers as numbers;
-o OUT.xlsx writes a workbook. Exit 1 if any row failed, 2 if the file
cannot be used.
\b
Docs: docs/howto/batch.md (site: howto/batch.html)
Options: docs/reference/commands.md#qmodel-batch"""
)
@click.argument("formula_id", shell_complete=complete_formula_id)
@click.argument("input_csv", metavar="INPUT.csv|.xlsx")
@click.option(
    "-o",
    "--output",
    "output_csv",
    default="-",
    metavar="OUT.csv|.xlsx",
    help="Where to write the result; - (default) is standard output.",
)
@click.option(
    "--sheet", default=None, metavar="NAME", help="The sheet of a workbook to read (default: the first)."
)
@click.option(
    "--map",
    "mappings",
    multiple=True,
    metavar="COLUMN=SYMBOL",
    help="Read COLUMN as the input SYMBOL (optionally SYMBOL[unit]); repeatable.",
)
@CATALOGUE_OPTION
@click.pass_context
def batch(
    ctx: click.Context,
    formula_id: str,
    input_csv: str,
    output_csv: str,
    sheet: str | None,
    mappings: tuple[str, ...],
) -> None:
    """Evaluate FORMULA_ID for every row of a CSV file, vectorized over all rows."""
    from qmodel.batch import run_batch_files

    mapping = {}
    for text in mappings:
        column, sep, symbol = text.rpartition("=")
        if not sep or not column.strip() or not symbol.strip():
            raise InputError(
                "--map",
                text,
                "COLUMN=SYMBOL, e.g. --map 'IO rate=arrival_rate'",
                reason="not a COLUMN=SYMBOL pair",
            )
        mapping[column.strip()] = symbol.strip()
    ctx.exit(run_batch_files(formula_id, input_csv, output_csv, mapping=mapping, sheet=sheet))
