"""The ``qmodel`` command line: formula list/show, calc, batch, validate.

The quick path (``qmodel calc``) imports click, numpy and rich only; sympy is
imported by ``formula show`` alone, when it pretty-prints.
"""

from __future__ import annotations

import sys

import click

from qmodel.errors import CatalogueError, InputError
from qmodel.mva_command import mva
from qmodel.output import FORMATS, render

FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
    help="Output as a rich table, JSON or CSV.",
)


class Failure(click.ClickException):
    """A bad input or a broken data file: one line on stderr, exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"error: {self.message}", err=True)


class QmodelGroup(click.Group):
    """Turns qmodel's own errors into one-line messages without a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (InputError, CatalogueError) as error:
            raise Failure(str(error)) from None


@click.group(cls=QmodelGroup, epilog="""\b
Worked example: an M/M/1 device with 800 I/Os per second, 1 ms service:
  $ qmodel calc mm1 arrival_rate=800 service_time=1ms
  -> utilization 0.8, response_time 5 ms, number_in_system 4
\b
More: qmodel formula list | qmodel formula show mmc | qmodel validate""")
@click.version_option(package_name="qmodel")
def cli() -> None:
    """qmodel: analytic queueing models for mainframe storage and Parallel Sysplex sizing."""


def _parse_assignments(assignments: tuple[str, ...], units: dict[str, str],
                       what: str) -> dict[str, float]:
    """NAME=VALUE pairs, each value parsed in the unit of its name."""
    from qmodel.units import parse_value

    values: dict[str, float] = {}
    for assignment in assignments:
        name, sep, text = assignment.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(assignment, "", "NAME=VALUE, e.g. service_time=1ms",
                             reason="not a NAME=VALUE pair")
        if name not in units:
            raise InputError(name, text, ", ".join(units), reason=f"not {what}")
        if name in values:
            raise InputError(name, text, "one value per name", reason="given twice")
        values[name] = parse_value(name, text, units[name])
    return values


@cli.group(cls=QmodelGroup)
def formula() -> None:
    """The formula catalogue: list entries, show one with its symbols, units and source."""


@formula.command("list", epilog="\b\nExample:\n  $ qmodel formula list --format csv")
@FORMAT_OPTION
def formula_list(fmt: str) -> None:
    """List every catalogue entry: id, title and source."""
    from qmodel.catalogue import load_catalogue

    rows = [[f.id, f.title, f.source] for f in load_catalogue().values()]
    render(["id", "title", "source"], rows, fmt, title="qmodel formula catalogue")


@formula.command("show", epilog="\b\nExample:\n  $ qmodel formula show mmc")
@click.argument("formula_id")
@FORMAT_OPTION
def formula_show(formula_id: str, fmt: str) -> None:
    """Show a formula pretty-printed, its symbols with units and domains, and its source."""
    from qmodel.catalogue import get_formula
    from qmodel.describe import describe_formula

    describe_formula(get_formula(formula_id), fmt)


@cli.command(epilog="""\b
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
def calc(formula_id: str, assignments: tuple[str, ...], fmt: str) -> None:
    """Evaluate catalogue entry FORMULA_ID for the given inputs."""
    from qmodel.catalogue import get_formula
    from qmodel.evaluate import calc as evaluate_formula

    entry = get_formula(formula_id)
    inputs = _parse_assignments(assignments, {n: s.unit for n, s in entry.symbols.items()},
                                f"an input of {entry.id}")
    result = evaluate_formula(entry.id, **inputs)
    used: dict[str, float | int] = {}
    for name, symbol in entry.symbols.items():
        value = float(inputs.get(name, symbol.default))
        used[name] = int(value) if symbol.domain.integer else value
    rows = [["input", name, used[name], entry.symbols[name].unit] for name in entry.symbols]
    rows += [["output", o.name, float(result.outputs[o.name]), o.unit] for o in entry.outputs]
    payload = {
        "formula": entry.id,
        "inputs": {name: {"value": used[name], "unit": s.unit}
                   for name, s in entry.symbols.items()},
        "outputs": {o.name: {"value": float(result.outputs[o.name]), "unit": o.unit}
                    for o in entry.outputs},
    }
    render(["kind", "name", "value", "unit"], rows, fmt, title=entry.title, json_payload=payload)


@cli.command(epilog="""\b
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
def sweep(formula_id: str, vary: str, assignments: tuple[str, ...], steps: int,
          plot_path: str | None, y_output: str | None, fmt: str) -> None:
    """Evaluate an entry over a range of one input: the table of every output (and a curve)."""
    import numpy as np

    from qmodel.catalogue import get_formula
    from qmodel.evaluate import evaluate
    from qmodel.units import parse_value

    entry = get_formula(formula_id)
    name, sep, span = vary.partition("=")
    start_text, dots, stop_text = span.partition("..")
    if not sep or not dots or name not in entry.symbols:
        raise InputError(vary, "", "INPUT=START..STOP with INPUT one of " + ", ".join(entry.symbols),
                         reason="not a range of an input")
    if steps < 2:
        raise InputError("--steps", steps, ">= 2")
    unit = entry.symbols[name].unit
    values = np.linspace(parse_value(name, start_text, unit), parse_value(name, stop_text, unit),
                         steps)
    if entry.symbols[name].domain.integer:
        values = np.unique(np.round(values))
    y_name = y_output or entry.outputs[-1].name
    if y_name not in {o.name for o in entry.outputs}:
        raise InputError("--y", y_name, ", ".join(o.name for o in entry.outputs))
    if plot_path:
        from qmodel.plotting import check_plot_path

        check_plot_path(plot_path)
    inputs = _parse_assignments(assignments, {n: s.unit for n, s in entry.symbols.items()},
                                f"an input of {entry.id}")
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


@cli.command("ssd-candidates", epilog="""\b
Examples:
  $ qmodel ssd-candidates type42-export.csv -o candidates.csv
  $ qmodel ssd-candidates type42-export.csv --disc 3ms --rh 40%
\b
Columns disc (ms), iort (1/s), rh, rp and rr (ratios; a header rh[%] takes
percentages) are matched without regard to case. Other columns pass through.""")
@click.argument("input_csv", metavar="INPUT.csv")
@click.option("-o", "--output", "output_csv", default="-", metavar="OUT.csv",
              help="Where to write the candidates; - (default) is standard output.")
@click.option("--disc", default="4ms", show_default=True, help="Keep DISC above this.")
@click.option("--iort", default="10", show_default=True, help="Keep IORT (I/O rate) above this.")
@click.option("--rh", default="50%", show_default=True, help="Keep read hit (RH) below this.")
@click.option("--rp", default="80%", show_default=True, help="Keep read percentage above this.")
@click.option("--rr", default="70%", show_default=True, help="Keep random ratio above this.")
@click.pass_context
def ssd_candidates(ctx: click.Context, input_csv: str, output_csv: str, disc: str, iort: str,
                   rh: str, rp: str, rr: str) -> None:
    """SSD candidates from a per-dataset SMF 42 export: the study's filter, ranked by read DISC time."""
    from qmodel.batch import run_batch_files
    from qmodel.catalogue import get_formula
    from qmodel.ssd import ranked_candidates

    entry = get_formula("ssd_candidate")
    thresholds = _parse_assignments(
        tuple(f"{name}={text}" for name, text in (("disc_above", disc), ("iort_above", iort),
                                                  ("rh_below", rh), ("rp_above", rp),
                                                  ("rr_above", rr))),
        {n: s.unit for n, s in entry.symbols.items()}, "a threshold")
    ctx.exit(run_batch_files("ssd_candidate", input_csv, output_csv, settings=thresholds,
                             select=ranked_candidates))


@cli.command(epilog="""\b
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
def solve(formula_id: str, target: str, unknown: str, assignments: tuple[str, ...],
          fmt: str) -> None:
    """Inverse solve: the value of one input at which an output reaches a target."""
    from qmodel.catalogue import get_formula
    from qmodel.inverse import solve as solve_for

    entry = get_formula(formula_id)
    outputs = {o.name: o.unit for o in entry.outputs}
    (output, goal), = _parse_assignments((target,), outputs, f"an output of {entry.id}").items()
    inputs = _parse_assignments(assignments, {n: s.unit for n, s in entry.symbols.items()},
                                f"an input of {entry.id}")
    solution = solve_for(entry, output, goal, unknown, inputs)
    symbol = entry.symbols[unknown]
    value = float(solution.value)
    rows = [["solved", unknown, int(value) if symbol.domain.integer else value, symbol.unit]]
    rows += [["given", name, float(v), entry.symbols[name].unit] for name, v in inputs.items()]
    rows += [["output", o.name, float(solution.outputs[o.name]), o.unit] for o in entry.outputs]
    render(["kind", "name", "value", "unit"], rows, fmt,
           title=f"{entry.id}: {unknown} for {output} = {goal:g} {outputs[output]}")


@cli.command(epilog="""\b
Examples:
  $ qmodel subchannels --delayed 31.1%
  $ qmodel subchannels --delayed 12% --measured 7 --target 5% --format json
\b
The rule (the GDPS study's Appendix B) assumes each subchannel busy
independently: p = del^(1/k), subchannels = log(t)/log(p). Erlang C treats the
subchannels as one M/M/c queue whose offered load gives the measured delay.""")
@click.option("--delayed", "delayed_text", required=True, metavar="RATIO",
              help="Delayed fraction measured (RMF % delayed requests), e.g. 31.1%.")
@click.option("--measured", "measured_text", default="2", show_default=True, metavar="K",
              help="Subchannels in use when it was measured.")
@click.option("--target", "target_text", default="10%", show_default=True, metavar="RATIO",
              help="Delayed fraction to stay under.")
@click.option("--per-link", "per_link_text", default="7", show_default=True, metavar="N",
              help="Subchannels per CF link (7 peer, 2 older).")
@FORMAT_OPTION
def subchannels(delayed_text: str, measured_text: str, target_text: str, per_link_text: str,
                fmt: str) -> None:
    """CF subchannels needed for a target delayed fraction: the study's rule and Erlang C."""
    from qmodel.catalogue import get_formula
    from qmodel.evaluate import calc as evaluate_formula
    from qmodel.units import parse_value

    rule_entry = get_formula("subchannel_rule")
    values = {
        name: parse_value(name, text, rule_entry.symbols[name].unit)
        for name, text in (("delayed_fraction", delayed_text), ("measured_subchannels", measured_text),
                           ("target_delayed", target_text), ("subchannels_per_link", per_link_text))
    }
    rule = evaluate_formula("subchannel_rule", **values)
    queue = evaluate_formula("erlang_c_subchannels", **{
        name: values[name] for name in ("delayed_fraction", "measured_subchannels", "target_delayed")})
    queue_links = evaluate_formula("cf_links_needed", subchannels=queue.subchannels,
                                   subchannels_per_link=values["subchannels_per_link"])
    rows = [
        ["rule (Appendix B)", "subchannels busy independently", float(rule.subchannels),
         int(rule.subchannels_needed), int(rule.links_needed), int(rule.more_needed)],
        ["Erlang C (M/M/c)", "one queue, Poisson arrivals, exponential service",
         float(queue.subchannels), int(queue.subchannels), int(queue_links.links_needed),
         int(queue.more_needed)],
    ]
    columns = ["method", "assumes", "subchannels", "whole", "links", "more needed"]
    caption = ""
    if max(row[-1] for row in rows) == 0:
        caption = "The target is already met on the measured subchannels: no more are needed."
    render(columns, rows, fmt, title="CF subchannels for the target delayed fraction",
           caption=caption)


@cli.command("mirror-timeline", epilog="""\b
Examples (the Global Mirror study's experiments):
  $ qmodel mirror-timeline --write-rate 250MB/s --bandwidth 361MB/s \\
        --burst 60GB --burst-rate 1GB/s --burst-at 9min
  $ qmodel mirror-timeline --write-rate 250MB/s --bandwidth 361MB/s \\
        --outage 50% --outage-from 9min --outage-to 14min
\b
Fluid model: the backlog grows at write rate - bandwidth and drains at
bandwidth - write rate; consistency groups are taken to form only while
there is no backlog.""")
@click.option("--write-rate", required=True, help="Steady write data rate, e.g. 250MB/s.")
@click.option("--bandwidth", required=True, help="Link bandwidth with every link up, e.g. 361MB/s.")
@click.option("--burst", default="0GB", show_default=True, help="Data written by a burst, e.g. 60GB.")
@click.option("--burst-rate", default="1GB/s", show_default=True, help="Rate of the burst, on top.")
@click.option("--burst-at", default="0min", show_default=True, help="When the burst starts.")
@click.option("--outage", default="100%", show_default=True,
              help="Bandwidth left during an outage, e.g. 50%.")
@click.option("--outage-from", default="0min", show_default=True, help="When the outage starts.")
@click.option("--outage-to", default="0min", show_default=True, help="When the links come back.")
@click.option("--until", default="30min", show_default=True, help="Length of the time-line.")
@click.option("--step", default="1min", show_default=True, help="Row spacing of the table.")
@click.option("--plot", "plot_path", default=None, metavar="FILE",
              help="Also draw the time-line to FILE (.png, .svg, .pdf); needs the extra 'plot'.")
@FORMAT_OPTION
def mirror_timeline(write_rate: str, bandwidth: str, burst: str, burst_rate: str, burst_at: str,
                    outage: str, outage_from: str, outage_to: str, until: str, step: str,
                    plot_path: str | None, fmt: str) -> None:
    """Asynchronous replication backlog over time, with a write burst and/or a link outage."""
    import numpy as np

    from qmodel.replication import Burst, Outage, fluid_timeline
    from qmodel.units import parse_value

    def seconds(name: str, text: str) -> float:
        return parse_value(name, text, "s")

    if plot_path:
        from qmodel.plotting import check_plot_path

        check_plot_path(plot_path)

    timeline = fluid_timeline(
        parse_value("write_rate", write_rate, "MB/s"), parse_value("bandwidth", bandwidth, "MB/s"),
        seconds("until", until),
        bursts=[Burst(seconds("burst_at", burst_at), parse_value("burst", burst, "MB"),
                      parse_value("burst_rate", burst_rate, "MB/s"))],
        outages=[Outage(seconds("outage_from", outage_from), seconds("outage_to", outage_to),
                        parse_value("outage", outage, "ratio"))],
    )
    step_s = seconds("step", step)
    if step_s <= 0:
        raise InputError("step", step, "> 0")
    samples = np.arange(0.0, timeline.times[-1] + step_s / 2, step_s)
    written, sent, backlog = timeline.at(samples)
    segment = np.searchsorted(timeline.times, samples, side="right") - 1
    rows = [[float(t / 60), float(timeline.write_rate[i]), float(timeline.bandwidth[i]),
             float(w / 1000), float(s / 1000), float(b / 1000),
             "forming" if b <= 1e-9 else "suspended"]
            for t, i, w, s, b in zip(samples, segment, written, sent, backlog, strict=True)]
    spells = "; ".join(
        f"stop at minute {stop / 60:.4g}, "
        + (f"resume at minute {resume / 60:.4g}" if resume is not None else "no resume before the end")
        for stop, resume in timeline.suspensions) or "consistency groups never stop"
    caption = f"peak backlog {timeline.peak_backlog / 1000:.4g} GB; {spells}"
    columns = ["minute", "write MB/s", "link MB/s", "written GB", "sent GB", "backlog GB",
               "consistency groups"]
    render(columns, rows, fmt, title="Global Mirror fluid time-line", caption=caption)
    if plot_path:
        from qmodel.plotting import plot_timeline

        plot_timeline(timeline, plot_path)


@cli.command(epilog="""\b
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
@click.pass_context
def batch(ctx: click.Context, formula_id: str, input_csv: str, output_csv: str) -> None:
    """Evaluate FORMULA_ID for every row of a CSV file, vectorized over all rows."""
    from qmodel.batch import run_batch_files

    status = run_batch_files(formula_id, input_csv, output_csv)
    ctx.exit(status)


@cli.command(epilog="""\b
Examples:
  $ qmodel validate
  $ qmodel validate gdps-pprc-100km-2006 --format json""")
@click.argument("casebooks", nargs=-1, metavar="[CASEBOOK]...")
@FORMAT_OPTION
@click.pass_context
def validate(ctx: click.Context, casebooks: tuple[str, ...], fmt: str) -> None:
    """Check the models against the studies' printed numbers (all casebooks by default).

    Verdicts: ok (within tolerance), miss, paper-slip (the study's own
    arithmetic is wrong and the model agrees with the recomputed value),
    calibrated (the row was used to fit a parameter: not a prediction).
    Exits 1 when any case is a miss.
    """
    from qmodel.casebook import report, run_casebooks

    results = run_casebooks(list(casebooks))
    report(results, fmt)
    ctx.exit(1 if any(r.verdict == "miss" for r in results) else 0)


def main() -> None:
    """Console-script entry point."""
    sys.exit(cli.main(prog_name="qmodel"))


cli.add_command(mva)    # its own module: it imports only click until it runs
