"""Commands over one catalogue entry: ``calc``, ``sweep``, ``solve`` and ``batch``.

``calc`` is the quick path: it imports click, numpy and rich, never sympy or scipy.
"""

from __future__ import annotations

import click

from qmodel.cli.common import CATALOGUE_OPTION, FORMAT_OPTION, parse_assignments, split_range
from qmodel.errors import InputError
from qmodel.output import render


def _symbol_units(entry) -> dict[str, str]:
    return {name: symbol.unit for name, symbol in entry.symbols.items()}


@click.command(epilog="""\b
Examples:
  $ qmodel calc mm1 arrival_rate=800 service_time=1ms
  $ qmodel calc mmc arrival_rate=35K service_time=150us servers=8
  $ qmodel calc transaction_elongation cf_requests=12 sync_writes=4 distance=70km
  $ qmodel calc erlang_c servers=4 offered_load=3 --format json
\b
Values: ratios as 0.95 or 95%; counts and rates as 35K or 1.4M; times and
distances in the symbol's unit or with their own (400us, 0.4ms, 70km).""")
@click.argument("formula_id")
@click.argument("assignments", nargs=-1, metavar="NAME=VALUE...")
@FORMAT_OPTION
@CATALOGUE_OPTION
def calc(formula_id: str, assignments: tuple[str, ...], fmt: str) -> None:
    """Evaluate catalogue entry FORMULA_ID for the given inputs."""
    from qmodel.catalogue.evaluate import calc as evaluate_formula
    from qmodel.catalogue.loader import get_formula

    entry = get_formula(formula_id)
    inputs = parse_assignments(assignments, _symbol_units(entry), f"an input of {entry.id}")
    result = evaluate_formula(entry.id, **inputs)
    used = {name: int(value) if entry.symbols[name].domain.integer else float(value)
            for name, value in result.inputs.items()}
    rows = [["input", name, used[name], entry.symbols[name].unit] for name in entry.symbols]
    rows += [["output", o.name, float(result.outputs[o.name]), o.unit] for o in entry.outputs]
    payload = {
        "formula": entry.id,
        "inputs": {name: {"value": used[name], "unit": s.unit} for name, s in entry.symbols.items()},
        "outputs": {o.name: {"value": float(result.outputs[o.name]), "unit": o.unit}
                    for o in entry.outputs},
        "warnings": result.warnings,
    }
    render(["kind", "name", "value", "unit"], rows, fmt, title=entry.title, json_payload=payload,
           caption=_warned(result.warnings, fmt))


def _warned(warnings: list[str], fmt: str) -> str:
    """The warnings as a table caption; for CSV, on stderr (the CSV stays a table of numbers)."""
    lines = [f"warning: {warning}" for warning in warnings]
    if fmt == "csv":
        for line in lines:
            click.echo(line, err=True)
    return "\n".join(lines)


@click.command(epilog="""\b
Examples:
  $ qmodel sweep mm1 arrival_rate=100..950 --steps 10 service_time=1ms
  $ qmodel sweep backend_load io_rate=50K..250K --steps 9 read_fraction=56.5% \\
        read_hit_ratio=95% destage_rate=10% drives=360 --plot knee.png --y drive_utilization
\b
Rows where the model refuses the inputs (past a stability limit) show why
instead of numbers.""")
@click.argument("formula_id")
@click.argument("vary", metavar="INPUT=START..STOP")
@click.argument("assignments", nargs=-1, metavar="NAME=VALUE...")
@click.option("--steps", default=11, show_default=True, help="Points from START to STOP.")
@click.option("--plot", "plot_path", default=None, metavar="FILE",
              help="Also draw the curve to FILE (.png, .svg, .pdf); needs the extra 'plot'.")
@click.option("--y", "y_output", default=None, metavar="OUTPUT",
              help="Output to plot (default: the entry's last output).")
@FORMAT_OPTION
@CATALOGUE_OPTION
def sweep(formula_id: str, vary: str, assignments: tuple[str, ...], steps: int,
          plot_path: str | None, y_output: str | None, fmt: str) -> None:
    """Evaluate an entry over a range of one input: the table of every output (and a curve)."""
    import numpy as np

    from qmodel.catalogue.evaluate import evaluate
    from qmodel.catalogue.loader import get_formula
    from qmodel.units import parse_value

    entry = get_formula(formula_id)
    name, sep, span = vary.partition("=")
    span_ends = split_range(vary, span) if sep else None
    if span_ends is None or name not in entry.symbols:
        raise InputError(vary, "", "INPUT=START..STOP with INPUT one of " + ", ".join(entry.symbols),
                         reason="not a range of an input")
    if steps < 2:
        raise InputError("--steps", steps, ">= 2")
    unit = entry.symbols[name].unit
    values = np.linspace(*(parse_value(name, end, unit) for end in span_ends), steps)
    if entry.symbols[name].domain.integer:
        values = np.unique(np.round(values))
    y_name = y_output or entry.outputs[-1].name
    if y_name not in {o.name for o in entry.outputs}:
        raise InputError("--y", y_name, ", ".join(o.name for o in entry.outputs))
    if plot_path:
        from qmodel.plotting import check_plot_path

        check_plot_path(plot_path)
    inputs = parse_assignments(assignments, _symbol_units(entry), f"an input of {entry.id}")
    inputs.pop(name, None)
    evaluation = evaluate(entry, {**inputs, name: values})
    columns = [f"{name} [{unit}]", *(f"{o.name} [{o.unit}]" for o in entry.outputs), "error"]
    rows = []
    for row, value in enumerate(values):
        error = evaluation.errors.get(row)
        results = [None if error else float(evaluation.outputs[o.name][row]) for o in entry.outputs]
        rows.append([float(value), *results, error.message() if error else ""])
    render(columns, rows, fmt, title=f"{entry.id}: sweep of {name}")
    if plot_path:
        from qmodel.plotting import plot_sweep

        good = np.array([row not in evaluation.errors for row in range(len(values))], dtype=bool)
        plot_sweep(values[good], evaluation.outputs[y_name][good], f"{name} [{unit}]",
                   f"{y_name} [{entry.output(y_name).unit}]", entry.title, plot_path)


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
number that keeps the output at or below the target.""")
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
    render(["kind", "name", "value", "unit"], rows, fmt,
           title=f"{entry.id}: {unknown} for {output} = {goal:g} {outputs[output]}")


@click.command(epilog="""\b
Example:
  $ qmodel batch mm1 devices.csv -o devices-out.csv
  $ cat devices.csv | qmodel batch mm1 - > out.csv
\b
Headers are symbol names, optionally with a unit: service_time or
service_time[us]. Other columns pass through. Result columns name[unit] and
an `error` column are appended. Exit 1 if any row failed, 2 if the file
cannot be used.""")
@click.argument("formula_id")
@click.argument("input_csv", metavar="INPUT.csv")
@click.option("-o", "--output", "output_csv", default="-", metavar="OUT.csv",
              help="Where to write the result; - (default) is standard output.")
@CATALOGUE_OPTION
@click.pass_context
def batch(ctx: click.Context, formula_id: str, input_csv: str, output_csv: str) -> None:
    """Evaluate FORMULA_ID for every row of a CSV file, vectorized over all rows."""
    from qmodel.batch import run_batch_files

    ctx.exit(run_batch_files(formula_id, input_csv, output_csv))
