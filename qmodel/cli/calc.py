"""Commands over one catalogue entry: ``calc``, ``sweep``, ``solve`` and ``batch``.

``calc`` is the quick path: it imports click, numpy and rich, never sympy or scipy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from qmodel.cli.common import (
    CATALOGUE_OPTION,
    FORMAT_OPTION,
    parse_assignments,
    parse_list_assignments,
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


def _grid(entry, lists: dict[str, list[float]]) -> dict:
    """Every combination of the listed values (the first name varies slowest), one array per input.

    Refused before anything is allocated when the table would have more than
    a million rows.
    """
    import math

    import numpy as np

    rows = math.prod(len(values) for values in lists.values())
    if rows > _MOST_ROWS:
        size = rows * (len(entry.symbols) + len(entry.outputs)) * 8 / 1e9
        raise InputError("inputs", " × ".join(str(len(v)) for v in lists.values()) + f" = {rows:,} rows",
                         f"at most {_MOST_ROWS:,} rows", reason=f"about {size:.3g} GB of table to compute "
                         "and print; use fewer list items, --steps or a narrower range")
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
        records.append({**dict(zip(keys, inputs + outputs, strict=True)),
                        "error": error.message() if error else None, "warnings": warnings.get(row, [])})
    return columns, rows, records


def _fixed_text(entry, fixed: dict[str, float]) -> str:
    from qmodel.output import format_number
    from qmodel.units import with_unit

    return ", ".join(f"{name} = {with_unit(format_number(float(value)), entry.symbols[name].unit)}"
                     for name, value in fixed.items())


@click.command(epilog="""\b
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
last item applies to all) gives one row per combination of the listed values;
two whole numbers need a space or units (0, 5km or 0km,5km): 0,5km is refused
as a possible decimal comma.
\b
Docs: docs/howto/calc.md
Options: docs/reference/commands.md#qmodel-calc""")
@click.argument("formula_id")
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
    result = evaluate_formula(entry.id, "display", **inputs)
    used = {name: _value(entry, name, value) for name, value in result.inputs.items()}
    rows = [["input", name, used[name], entry.symbols[name].unit] for name in entry.symbols]
    rows += [["output", o.name, float(result.outputs[o.name]), o.unit] for o in entry.outputs]
    payload = {
        "formula": entry.id,
        "inputs": {name: {"value": used[name], "unit": s.unit} for name, s in entry.symbols.items()},
        "outputs": {o.name: {"value": float(result.outputs[o.name]), "unit": o.unit}
                    for o in entry.outputs},
        "warnings": result.warnings,
    }
    if notes:
        payload["notes"] = notes
    render(["kind", "name", "value", "unit"], rows, fmt, title=entry.title, json_payload=payload, keys=2,
           caption="\n".join(filter(None, ["; ".join(notes), _warned(result.warnings, fmt)])))


def _warned(warnings: list[str], fmt: str) -> str:
    """The warnings as a table caption; for CSV, on stderr (the CSV stays a table of numbers)."""
    lines = [f"warning: {warning}" for warning in warnings]
    if fmt == "csv":
        for line in lines:
            click.echo(line, err=True)
    return "\n".join(lines)


def _calc_grid(entry, lists: dict[str, list[float]], notes: list[str], fmt: str) -> None:
    """``calc`` with lists: one row per combination, the listed inputs beside the outputs."""
    from qmodel.catalogue.evaluate import evaluate

    varied = [name for name, values in lists.items() if len(values) > 1]
    fixed = {name: values[0] for name, values in lists.items() if len(values) == 1}
    evaluation = evaluate(entry, {**fixed, **_grid(entry, {n: lists[n] for n in varied})})
    columns, rows, records = _table(entry, evaluation, varied, fmt)
    used = {name: _value(entry, name, value.flat[0]) for name, value in evaluation.inputs.items()
            if name not in varied}
    payload = {"formula": entry.id,
               "inputs": {n: {"value": v, "unit": entry.symbols[n].unit} for n, v in used.items()},
               "records": records, **({"notes": notes} if notes else {})}
    caption = "; ".join(filter(None, ["with " + _fixed_text(entry, used) if used else "", *notes]))
    render(columns, rows, fmt, title=entry.title, caption=caption, json_payload=payload)
    if evaluation.errors:
        raise click.exceptions.Exit(1)


@click.command(epilog="""\b
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
exit status is then 1 (as calc's with lists; 2: nothing computed).
\b
Docs: docs/howto/calc.md
Options: docs/reference/commands.md#qmodel-sweep""")
@click.argument("formula_id")
@click.argument("vary", metavar="INPUT=START..STOP|a,b,c")
@click.argument("assignments", nargs=-1, metavar="NAME=VALUE...")
@click.option("--steps", "steps_text", default="11", show_default=True, help="Points from START to STOP.")
@click.option("--plot", "plot_path", default=None, metavar="FILE",
              help="Also draw the curve to FILE (.png, .svg, .pdf).")
@click.option("--y", "y_outputs", multiple=True, metavar="OUTPUT",
              help="Output to show and plot; repeatable (default: every output in the table, "
                   "the entry's last on the plot).")
@FORMAT_OPTION
@CATALOGUE_OPTION
def sweep(formula_id: str, vary: str, assignments: tuple[str, ...], steps_text: str,
          plot_path: str | None, y_outputs: tuple[str, ...], fmt: str) -> None:
    """Evaluate an entry over a range or list of one input: the table of outputs (and curves)."""
    import numpy as np

    from qmodel.catalogue.evaluate import evaluate
    from qmodel.catalogue.loader import get_formula
    from qmodel.units import parse_value

    entry = get_formula(formula_id)
    name, sep, span = vary.partition("=")
    name = name.strip()
    if not sep or name not in entry.symbols:
        raise InputError(vary, "", "INPUT=START..STOP or INPUT=a,b,c with INPUT one of "
                         + ", ".join(entry.symbols), reason="not a range or list of an input")
    unit = entry.symbols[name].unit
    span_ends = split_range(vary, span)
    lists = _lists(entry, assignments)
    if name in lists:  # the swept input given again: one of the two would go unused
        given = next(a for a in assignments if a.partition("=")[0].strip() == name)
        raise InputError(name, given.partition("=")[2], f"{name} once, as the input swept ({vary})",
                         reason="given twice")
    if span_ends is None:
        values = np.asarray(_lists(entry, (vary,))[name])
    else:
        steps = parse_value("--steps", steps_text, "1")
        if not (steps >= 2 and steps == int(steps)):
            raise InputError("--steps", steps_text, "a whole number >= 2")
        others = int(np.prod([len(v) for v in lists.values()]))
        if steps * others > _MOST_ROWS:
            size = steps * others * (len(entry.symbols) + len(entry.outputs)) * 8 / 1e9
            raise InputError("--steps", steps_text, f"at most {_MOST_ROWS // others:,} here",
                             reason=f"{steps * others:,.0f} rows, about {size:.3g} GB of table; "
                                    "use fewer --steps or a narrower range")
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
    grid = _grid(entry, {name: values.tolist(), **{n: lists[n] for n in varied[1:]}})
    evaluation = evaluate(entry, {**fixed, **grid})
    shown = entry._replace(outputs=tuple(o for o in entry.outputs if o.name in y_outputs)) \
        if y_outputs else entry
    columns, rows, _ = _table(shown, evaluation, varied, fmt)
    used = {n: _value(entry, n, v.flat[0]) for n, v in evaluation.inputs.items() if n not in varied}
    caption = "with " + _fixed_text(entry, used) if used else ""
    render(columns, rows, fmt, title=f"{entry.id}: sweep of {name}", caption=caption)
    if plot_path:
        _plot_sweep(entry, evaluation, varied, list(y_outputs) or [entry.outputs[-1].name],
                    caption, plot_path)
    if evaluation.errors:   # as calc with lists: the table was written, some rows failed
        raise click.exceptions.Exit(1)


def _plot_sweep(entry, evaluation, varied: list[str], y_names: list[str], fixed: str, path: str) -> None:
    """One curve per output asked for and per combination of the other listed inputs."""
    import numpy as np

    from qmodel.cli.plotting import plot_sweep
    from qmodel.output import format_number

    name = varied[0]
    good = np.ones(next(iter(evaluation.inputs.values())).size, dtype=bool)
    good[list(evaluation.errors)] = False
    x = evaluation.inputs[name].ravel()
    combos = {tuple(evaluation.inputs[n].flat[i] for n in varied[1:]) for i in range(x.size)}
    curves = {}
    for combo in sorted(combos):
        pairs = list(zip(varied[1:], combo, strict=True))
        on = good & np.all([evaluation.inputs[n].ravel() == v for n, v in pairs]
                           or [np.ones(x.size, dtype=bool)], axis=0)
        label_of = ", ".join(f"{n} = {format_number(float(v))}" for n, v in pairs)
        for y_name in y_names:
            label = f"{y_name} [{entry.output(y_name).unit}]" + (f" ({label_of})" if label_of else "")
            curves[label] = (x[on], evaluation.outputs[y_name].ravel()[on])
    y_units = {entry.output(y).unit for y in y_names}
    y_label = (f"{y_names[0]} [{entry.output(y_names[0]).unit}]" if len(y_names) == 1
               else ", ".join(sorted(y_units)))
    plot_sweep(curves, f"{name} [{entry.symbols[name].unit}]", y_label, entry.title, fixed, path)


@click.command(epilog="""\b
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
Docs: docs/howto/calc.md
Options: docs/reference/commands.md#qmodel-solve""")
@click.argument("formula_id")
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
    (output, goal), = parse_assignments((target,), outputs, f"an output of {entry.id}").items()
    inputs = parse_assignments(assignments, _symbol_units(entry), f"an input of {entry.id}")
    solution = solve_for(entry, output, goal, unknown, inputs)
    symbol = entry.symbols[unknown]
    value = float(solution.value)
    rows = [["solved", unknown, int(value) if symbol.domain.integer else value, symbol.unit]]
    rows += [["given", name, float(v), entry.symbols[name].unit] for name, v in inputs.items()]
    rows += [["output", o.name, float(solution.outputs[o.name]), o.unit] for o in entry.outputs]
    render(["kind", "name", "value", "unit"], rows, fmt, keys=2,
           title=f"{entry.id}: {unknown} for {output} = {goal:g} {outputs[output]}")


@click.command(epilog="""\b
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
Docs: docs/howto/batch.md
Options: docs/reference/commands.md#qmodel-batch""")
@click.argument("formula_id")
@click.argument("input_csv", metavar="INPUT.csv|.xlsx")
@click.option("-o", "--output", "output_csv", default="-", metavar="OUT.csv|.xlsx",
              help="Where to write the result; - (default) is standard output.")
@click.option("--sheet", default=None, metavar="NAME",
              help="The sheet of a workbook to read (default: the first).")
@click.option("--map", "mappings", multiple=True, metavar="COLUMN=SYMBOL",
              help="Read COLUMN as the input SYMBOL (optionally SYMBOL[unit]); repeatable.")
@CATALOGUE_OPTION
@click.pass_context
def batch(ctx: click.Context, formula_id: str, input_csv: str, output_csv: str, sheet: str | None,
          mappings: tuple[str, ...]) -> None:
    """Evaluate FORMULA_ID for every row of a CSV file, vectorized over all rows."""
    from qmodel.batch import run_batch_files

    mapping = {}
    for text in mappings:
        column, sep, symbol = text.rpartition("=")
        if not sep or not column.strip() or not symbol.strip():
            raise InputError("--map", text, "COLUMN=SYMBOL, e.g. --map 'IO rate=arrival_rate'",
                             reason="not a COLUMN=SYMBOL pair")
        mapping[column.strip()] = symbol.strip()
    ctx.exit(run_batch_files(formula_id, input_csv, output_csv, mapping=mapping, sheet=sheet))
