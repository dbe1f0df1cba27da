"""``qmodel scenario``: a configuration at a distance, end to end; goal seek; a CSV of what-if variants."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from qmodel import frames
from qmodel.cli.common import FORMAT_OPTION, complete_scenario
from qmodel.errors import InputError
from qmodel.frames import end_key
from qmodel.output import render
from qmodel.units import goal_time

SUMMARY = {  # the records' keys the table shows, and their labels (short, for 80 columns)
    "distance[km]": "distance [km]",
    "member": "member",
    "response_time[ms]": "R [ms]",
    "share_within_goal[%]": "within goal [%]",
    "throughput[1/s]": "X [/s]",
    "cpu_busy_of_lpar[%]": "CPU busy [% of LPAR]",
    "cpu_of_one_cp[%]": "CPU [% of one CP]",
    "converted_cf_requests[1/s]": "converted CF requests [/s]",
}
# A table is for reading: drawing one takes about 5.5 ms per distance (two members and "all", each with
# its band's low and high rows, and the breakdown: 1,000 distances 5.5 s CPU, against 3.9 s with the band
# in the answers' cells); CSV and JSON write any sweep the solver accepts (40,000 in 22 s).
TABLE_DISTANCES = 1_000
SECONDS_PER_TABLE_DISTANCE = 5.5e-3


class ScenarioCommand(click.Command):
    """``qmodel scenario SCENARIO``, and the commands of the scenario family named in SCENARIO's place
    (:data:`SUBCOMMANDS`: ``qmodel scenario calibrate FILE MEASUREMENTS``, ``qmodel scenario
    cross-validate``): such a word is read as the command, never as a scenario's name (a file named so is
    ./calibrate)."""

    def make_context(self, info_name, args, parent=None, **extra):
        if args and args[0] in SUBCOMMANDS:
            command = self.subcommands()[args[0]]
            return command.make_context(f"{info_name} {args[0]}", list(args[1:]), parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)

    @staticmethod
    def subcommands() -> dict[str, click.Command]:
        """The commands named in SCENARIO's place, by name."""
        return {name: globals()[attribute] for name, attribute in SUBCOMMANDS.items()}


# a word in SCENARIO's place that names a command of its own (a scenario file of that name: ./NAME)
SUBCOMMANDS = {"calibrate": "scenario_calibrate", "cross-validate": "cross_validate"}


@click.command(
    cls=ScenarioCommand,
    epilog="""\b
Examples (the GDPS/PPRC study's environments ship with qmodel: --list
names their files):
  $ qmodel scenario gdps-env2
  $ qmodel scenario gdps-env3 --distance 0..100km --points 11 --plot env3.png
  $ qmodel scenario gdps-env2 --max-distance
  $ qmodel scenario gdps-env2 --max-distance --distance 40,70km --level 90%
  $ qmodel scenario gdps-env2 --distance 20,40,70km --format csv > env2.csv
  $ qmodel scenario cross-validate --format json > folds.json
  $ qmodel scenario gdps-env3 --variants what-if.csv -o what-if-results.csv
  $ qmodel scenario calibrate my-sysplex.toml measured.csv
  $ qmodel scenario-profile --transactions 3394 LOCK1.sync=190K \\
        GBP8P.sync=21K GBP8P.async=199K sync_reads=92.3K log_writes=13.2K
\b
A scenario file (TOML) holds sites and the distance, members (site, CPs,
terminals and think time, per-transaction profile), coupling facilities and
structures, each member's paths to them (link, subchannels), disks, the
conversion threshold, lock contention and the WLM goal: every key in
docs/reference/scenario-file.md.
Response time is broken down into cpu, cf_sync, cf_async, subchannel_wait,
sync_io, commit, lock_contention and other. Every answer carries a band at
--level (80%): low and high rows under each answer in the table, NAME_low
and NAME_high in CSV and JSON, shaded in the plot, with the probability
that the goal holds at each distance. The band samples the file's fitted
parameters (its [band]; without one, the range the studies support) with
the model's own error on what it predicts, sized by cross-validation
across the study's environments (docs/background/cross-validation.md).
\b
Docs: docs/howto/scenario.md (site: howto/scenario.html)
Options: docs/reference/commands.md#qmodel-scenario""",
)
@click.argument("scenario_file", metavar="SCENARIO", shell_complete=complete_scenario)
@click.option(
    "--list",
    "list_shipped",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=lambda ctx, param, value: _list_shipped(ctx) if value else None,
    help="List the scenarios that ship with qmodel (name, title, file to copy) and exit.",
)
@click.option(
    "--distance",
    "distance_text",
    default=None,
    metavar="D | D1,D2 | A..B",
    help="Distances between the sites (default: the file's), e.g. 70km, 20,40,70km, 0..100km.",
)
@click.option(
    "--points",
    default=None,
    type=int,
    help=f"Points of a range A..B (default 21; a table shows at most {TABLE_DISTANCES:,} distances).",
)
@click.option(
    "--max-distance",
    "max_distance",
    is_flag=True,
    help="The largest distance at which every member meets the WLM goal, what breaks it, and its band;"
    " with --distance, the probability that the goal holds at each distance given.",
)
@click.option(
    "--up-to",
    "up_to",
    default="300km",
    show_default=True,
    help="How far --max-distance searches: an answer within it does not depend on it; where the goal"
    " holds all the way, the answer is only that it lies beyond.",
)
@click.option(
    "--breakdown/--no-breakdown",
    default=True,
    show_default=True,
    help="Also show the response-time breakdown (table format).",
)
@click.option(
    "--plot",
    "plot_path",
    default=None,
    metavar="FILE",
    help="Draw response time against distance, breakdown stacked, goal line (.png, .svg, .pdf).",
)
@click.option(
    "--variants",
    "variants_csv",
    default=None,
    metavar="VARIANTS.csv|.xlsx",
    help="Solve each row as a what-if variant (columns: distance, member.NAME.KEY, path.*.KEY...).",
)
@click.option(
    "--sheet",
    default=None,
    metavar="NAME",
    help="With --variants: the sheet of a workbook to read (default: the first).",
)
@click.option(
    "-o",
    "--output",
    "output_csv",
    default="-",
    metavar="OUT.csv|.xlsx",
    help="With --variants: where to write the rows with their results (- is standard output).",
)
@click.option(
    "--level",
    "level_text",
    default="80%",
    show_default=True,
    help="The band's level: the central share of the answer's predictive distribution it holds.",
)
@FORMAT_OPTION
@click.pass_context
def scenario(
    ctx: click.Context,
    scenario_file: str,
    distance_text: str | None,
    points: int | None,
    max_distance: bool,
    up_to: str,
    breakdown: bool,
    plot_path: str | None,
    variants_csv: str | None,
    sheet: str | None,
    output_csv: str,
    level_text: str,
    fmt: str,
) -> None:
    """Solve a Parallel Sysplex scenario end to end: response time and its breakdown, share within the
    WLM goal, throughput and CPU per member, at each distance.

    \b
    Exit status:
      0  every distance asked has its answer (--max-distance: always, its
         words say where the goal holds)
      1  some distance has no response time: lock contention thrashes, the
         volumes cannot carry their other work, or a member's load is more
         than its CPs or CF subchannels carry (an open member's arrivals, a
         closed member's terminals) (the other distances are still shown);
         --variants: some row failed (the others written)
      2  input it cannot use (one line naming it), or output it cannot write
      3  a solve did not converge (the message says which)
      4  --plot without matplotlib installed
      130, 143  stopped by Ctrl-C or SIGTERM; 141  its output closed early"""
    from qmodel.scenario.band import load_banded
    from qmodel.scenario.files import fit_path, resolve_scenario, shipped_folder

    _refuse_unused(ctx, variants_csv, max_distance, distance_text)
    if plot_path:
        from qmodel.cli.plotting import check_plot_path

        check_plot_path(plot_path)
    try:
        path = resolve_scenario(scenario_file)
    except InputError as error:  # say where the shipped ones are, to copy and edit
        raise InputError(
            error.parameter,
            error.value,
            f"{error.allowed} (files in {shipped_folder()}; qmodel scenario --list)",
            reason=error.reason,
        ) from None
    if variants_csv is not None:
        if distance_text is not None or max_distance or plot_path:
            raise InputError("--variants", variants_csv, "--variants alone (each row gives its distance)")
        if fmt != "table":
            raise InputError("--format", fmt, "no --format with --variants (it writes the rows as CSV)")
        from qmodel.scenario.variants import run_variant_files

        ctx.exit(run_variant_files(path, variants_csv, output_csv, sheet))
    level = _level(level_text)  # the options read before the file is (a mistyped one costs no solve)
    distances = None if distance_text is None else _distances(distance_text, points)
    upper = _up_to(up_to)
    if not max_distance and fmt == "table" and distances is not None and distances.size > TABLE_DISTANCES:
        raise InputError(
            "--points",
            distances.size,
            f"at most {TABLE_DISTANCES:,} distances in a table; --format csv or json writes them all",
            reason=f"drawing the table would take about {distances.size * SECONDS_PER_TABLE_DISTANCE:.0f} s",
        )
    banded = load_banded(path)
    spec = banded.scenario
    _free_checked(spec, f"{path.name}: free")
    fitted = fit_path(path)
    fit_note = _fit_note(path, fitted)
    if max_distance:
        _show_goal_seek(banded, upper, fmt, level, distances, plot_path, fit_note)
        return
    from qmodel.scenario.band import solve_banded

    result = solve_banded(banded, distances, level)
    _show(spec, result, fmt, breakdown, fit_note)
    if plot_path:
        from qmodel.cli.plotting import plot_scenario

        plot_scenario(result, plot_path)
    if result.thrashing.any():
        if fmt != "table":  # the table's notes say it; CSV and JSON carry it in their rows only
            click.echo(_thrashing_line(result), err=True)
        ctx.exit(1)


def _list_shipped(ctx: click.Context) -> None:
    """The shipped scenarios: name, title and the full path of the file (to copy and edit). Piped, or where
    they fit the terminal, one line each; else each gets its name and title (wrapped at spaces) and then
    its path, whole, indented on a line of its own: a path is never broken."""
    from qmodel.output import terminal_width, wrap_at_spaces
    from qmodel.scenario.files import shipped_scenarios
    from qmodel.tomlread import read_toml

    shipped = dict(sorted(shipped_scenarios().items()))
    titles = {name: str(read_toml(path).get("title", "")) for name, path in shipped.items()}
    name_width, title_width = max(map(len, shipped)), max(map(len, titles.values()))
    lines = {
        name: f"{name:<{name_width}}  {titles[name]:<{title_width}}  {path.resolve()}"
        for name, path in shipped.items()
    }
    width = terminal_width()
    if not _at_terminal() or max(map(len, lines.values())) <= width:
        click.echo("\n".join(lines.values()))
        ctx.exit(0)
    for name, path in shipped.items():  # every scenario alike: name and title, then the path
        heading = wrap_at_spaces(
            f"{name:<{name_width}}  {titles[name]}", width, subsequent_indent=" " * (name_width + 2)
        )
        click.echo("\n".join([*heading, f"  {path.resolve()}"]))
    ctx.exit(0)


def _at_terminal() -> bool:
    """Whether standard output is a terminal (not piped or redirected to a file)."""
    import sys

    return sys.stdout.isatty()


def _refuse_unused(ctx: click.Context, variants_csv, max_distance: bool, distance_text) -> None:
    """An option typed where it does nothing is refused, never silently ignored."""
    from click.core import ParameterSource

    typed = {
        name
        for name in ("output_csv", "sheet", "up_to", "points", "level_text")
        if ctx.get_parameter_source(name) is not ParameterSource.DEFAULT
    }
    for name, option, needs, given in (
        ("output_csv", "-o/--output", "--variants", variants_csv is not None),
        ("sheet", "--sheet", "--variants", variants_csv is not None),
        ("up_to", "--up-to", "--max-distance", max_distance),
        (  # a file's own range takes 21 points (trial 9, Q9: --points beside the file's 0..150km)
            "points",
            "--points",
            "--distance A..B on the command line",
            distance_text is not None and _is_range(distance_text),
        ),
        (
            "level_text",
            "--level",
            "an answer (not --variants, whose rows carry no band)",
            variants_csv is None,
        ),
    ):
        if name in typed and not given:
            raise InputError(option, ctx.params[name], f"{option} with {needs} only", reason=f"no {needs}")


def _level(text: str) -> float:
    """The band's level from --level (80%, 0.8): above 0 and below 100%."""
    from qmodel.units import parse_value

    level = parse_value("--level", text, "ratio")
    if not 0 < level < 1:
        raise InputError("--level", text, "a share above 0 and below 100%, e.g. 80% or 95%")
    return level


def _free_checked(spec, where: str, free: tuple[str, ...] | None = None) -> tuple:
    """The free parameters ``free`` (default: the file's free list) name, as the fit takes them; an
    InputError naming ``where`` (the file's free key, or --free) for a key no fit takes: a misspelt key is
    refused by every command that reads the file, not only by calibrate."""
    from qmodel.scenario.fit import free_parameters

    try:
        return free_parameters(spec, spec.free if free is None else free)
    except InputError as error:
        raise InputError(where, error.value, error.allowed, reason=error.reason) from None


def _up_to(text: str) -> float:
    """The farthest distance --max-distance searches, m, from --up-to (300km; a bare number in km)."""
    from qmodel.units import UNITS, decimal_comma, parse_value

    if "," in text and decimal_comma(text) is None:  # a list (20km,40km), not 20,5km: one distance only
        raise InputError("--up-to", text, "one distance, the farthest searched, e.g. 300km", reason="a list")
    reach = parse_value("--up-to", text, "km")
    if not reach > 0:
        raise InputError("--up-to", text, "a distance > 0 km")
    return reach * UNITS["km"].to_si


def _is_range(text: str) -> bool:
    from qmodel.units import split_range

    return split_range("--distance", text) is not None


def _distances(text: str, points: int | None):
    """The distances typed, in m (the solver refuses a sweep too large to compute, with its estimate)."""
    from qmodel.scenario.spec import parse_distances

    return parse_distances(text) if points is None else parse_distances(text, points=points)


def _show(spec, result, fmt: str, breakdown: bool, fit_note: str = "") -> None:
    from qmodel.scenario.protocols import described
    from qmodel.scenario.result import NO_BAND

    if fmt == "json":  # the results, where the scenario's values come from, and the band's points
        payload = {
            **result.to_json(),
            "source": spec.source,
            "calibration": list(spec.calibration),
            "round_trip_us_per_km": round(2e9 / spec.fibre_speed, 4),
            "crossing_latency[us]": round(spec.crossing_latency * 1e6, 4),
            "measured_at[km]": spec.measured_at / 1e3,  # where the file's RMF times were read
            "defaults": dict(spec.defaults),
        }
        if described(spec):  # today's hardware and protocols (issue 36): none at the study's defaults
            payload["hardware"] = described(spec)
        if spec.band is not None:
            payload["band"] = {**payload["band"], "overrides": list(spec.band.points)}
        render([], [], fmt, json_payload=payload)
        return
    records = result.records()  # CSV rounds to 12 digits (qmodel.output), the table to 0.01 (_shown)
    if fmt == "csv":
        render(list(records[0]), [list(r.values()) for r in records], fmt)
        if not result.band:  # the rows carry no *_low, *_high: say why where the data does not go
            click.echo(f"no band: {NO_BAND}", err=True)
        return
    rows = [row for record in records for row in _banded_rows(record)]
    render(list(SUMMARY.values()), rows, fmt, title=result.title, keys=2)
    notes = [
        f"goal: {result.goal_share:.0%} within {_unit(*goal_time(result.goal_time))}.",
        fit_note,
        *_rests_on(spec),
    ]
    if len(result.members) > 1:
        notes.append('"all": every member\'s transactions together; CPU busy is per LPAR, so empty there.')
    notes += _band_notes(result)
    notes += _thrashing_notes(spec, result)
    _say(" ".join(filter(None, notes)))
    if breakdown:
        from qmodel.scenario.result import BREAKDOWN

        columns = ["distance [km]", "member", *(f"{name} [ms]" for name in BREAKDOWN)]
        parts = [
            [_shown(r["distance[km]"]), r["member"], *(_shown(r[f"{name}[ms]"]) for name in BREAKDOWN)]
            for r in records
        ]
        render(columns, parts, fmt, title="Response time breakdown per transaction")
        if result.band:
            _say(
                "The breakdown is the answer's own; each part's range over the band's parameter points"
                " alone (the model's error is sized on whole response times, not on their parts) is in"
                " --format csv or json, as its _low and _high."
            )
        delayed = [
            [path, *(_shown(v * 100) for v in result.delayed_fraction[path])]
            for path in sorted(result.delayed_fraction)
        ]
        render(
            ["path", *(f"{d / 1e3:g} km" for d in result.distances)],
            delayed,
            fmt,
            title="CF requests delayed for a subchannel [%]",
        )
        if result.io_queue is not None:
            volumes = [
                ["IOSQ per SSCH [ms]", *(_shown(v * 1e3) for v in result.io_queue)],
                ["busy [% of exposures]", *(_shown(v * 100) for v in result.volume_busy)],
            ]
            render(
                ["volumes", *(f"{d / 1e3:g} km" for d in result.distances)],
                volumes,
                fmt,
                title="Volumes: IOSQ computed from the load",
            )


def _row_status(row, counted: bool) -> str:
    """What a measured row is to the fit where it is not one of its fitted rows: "not fitted" (weight
    0), "a check" (no free parameter moves it), else ""."""
    return "not fitted" if row.weight <= 0 else "" if counted else "a check"


def _off(row, model: float) -> float:
    """How far the model is off a measured row, % of the measured value (NaN: no answer, or measured 0);
    0 below the solve's precision (:func:`qmodel.scenario.result.resolved`: a measured lock wait the
    inference meets to 1e-10 is not 5.5e-09% off)."""
    import numpy as np

    from qmodel.scenario.result import resolved

    off = (model - row.value) / row.value * 100 if row.value else float("nan")
    return float(resolved(np.asarray(off), 100.0))


def _fit_summary(fit, written) -> str:
    """The fit's summary and where it was written, as its table and its CSV end."""
    return (
        f"{fit.summary()} Written: {written} (qmodel scenario takes these values in place of the file's own)."
    )


FIT_CSV_COLUMNS = (
    "table",
    "name",
    "value",
    "low",
    "high",
    "level",
    "measured",
    "model",
    "unit",
    "off[%]",
    "weighted_residual",
    "weight",
    "says",
    "source",
)


def _in_unit(value: float, unit: str) -> tuple[float | None, str]:
    """A calibration's number (SI) in the unit its key or quantity is read in (:func:`qmodel.units.in_unit`:
    a share in %), and that unit ("" for a count); None for NaN. The one rule of calibrate's CSV and
    JSON."""
    from qmodel.scenario.result import number
    from qmodel.units import in_unit

    converted, name = in_unit(value, unit)
    return number(converted), ("" if name == "1" else name)


def _bounds_as_such(fit) -> dict[str, float]:
    """The fitted values (SI) as shown, a value at its bound (within the fit's rounding,
    :meth:`~qmodel.scenario.fit.Fit.at_bound`) as that bound: one figure in the value column, the
    interval's end and "at its bound" (trial 8, P10: "0.0001 us" beside "0 ms to 7.095 ms")."""
    shown = dict(fit.values)
    for p in fit.parameters:
        bound = fit.at_bound(p)
        shown[p.key] = shown[p.key] if bound is None else bound
    return shown


def _fit_csv(fit, written, values: dict[str, float], intervals, notes: list[str]) -> None:
    """``calibrate --format csv``: the table format's parts in one table a spreadsheet filters by its
    first column, as numbers: ``parameter`` rows (the fitted value, its interval's ends at ``level``, how
    the rows identify it; a held one its prior and why), ``row`` rows (the measured value, the model's,
    how far off, its weighted residual and weight, "a check" or "not fitted" where so), then
    each ``note`` and the ``summary`` (with where the fit was written) as text. Each number is in the row's
    ``unit`` (:func:`qmodel.units.in_unit`: the unit its key or quantity is read in, a share in %): the
    rows mix quantities, so the unit has a column of its own (as cross-validate's rows)."""
    from qmodel.scenario.fit import LEVEL, held_label, unit_of
    from qmodel.scenario.measurements import QUANTITIES
    from qmodel.scenario.result import number

    shown = _in_unit
    lines: list[dict[str, object]] = []
    for p in fit.parameters:
        (value, unit), (low, _), (high, _) = (
            shown(v, unit_of(p.key)) for v in (values[p.key], *intervals[p.key])
        )
        lines.append(
            {
                "table": "parameter",
                "name": p.key,
                "value": value,
                "low": low,
                "high": high,
                "level": LEVEL,
                "unit": unit,
                "says": fit.label(p.key),
            }
        )
    for h in fit.held:
        value, unit = shown(h.value, unit_of(h.parameter.key))
        lines.append(
            {
                "table": "parameter",
                "name": h.parameter.key,
                "value": value,
                "unit": unit,
                "says": held_label(h),
            }
        )
    for row, model, residual, counted in zip(fit.rows, fit.model, fit.residuals, fit.counted, strict=True):
        measured, unit = shown(row.value, QUANTITIES[row.quantity])
        modelled, _ = shown(model, QUANTITIES[row.quantity])
        lines.append(
            {
                "table": "row",
                "name": row.label,
                "measured": measured,
                "model": modelled,
                "unit": unit,
                "off[%]": number(_off(row, model)),
                "weighted_residual": float(residual),
                "weight": row.weight,
                "says": _row_status(row, counted),
                "source": row.source,
            }
        )
    lines += [{"table": "note", "says": note} for note in notes]
    lines.append({"table": "summary", "says": _fit_summary(fit, written)})
    render(list(FIT_CSV_COLUMNS), [[line.get(column) for column in FIT_CSV_COLUMNS] for line in lines], "csv")


def _fit_note(path, fitted) -> str:
    """Whether the answer takes a fit file's values, and whether the scenario file changed after the fit
    was made (its values may no longer fit the file: calibrate again)."""
    if not fitted.is_file() or fitted == path:
        return ""
    note = (
        f"Fitted values taken from {fitted.name} (qmodel scenario calibrate; delete it to use the file's"
        " own)."
    )
    if path.stat().st_mtime > fitted.stat().st_mtime:
        note += (
            f" {path.name} has changed since that fit was made: its values may no longer fit it (qmodel"
            f" scenario calibrate {path.name} MEASUREMENTS again)."
        )
    return note


def _rests_on(spec) -> list[str]:
    """What an answer rests on beyond the file's own numbers, the same notes under every answer (a solve
    at distances, the goal seek): the round trip (:func:`_round_trip`), the defaults taken for every key
    the file leaves out (:func:`qmodel.scenario.spec.defaults_taken`, the round trip's two keys said in
    its own sentence), and today's hardware and protocols with what was assumed for them
    (:func:`qmodel.scenario.protocols.described`: links, duplexing, zHyperLink, the links' reach)."""
    from qmodel.scenario.protocols import described
    from qmodel.scenario.spec import defaults_taken

    return [
        _round_trip(spec),
        defaults_taken(spec, said=("fibre_speed", "crossing_latency")),
        *described(spec),
    ]


def _round_trip(spec) -> str:
    """Which round trip the answer rests on, and where it comes from: per km fitted (the file's
    [[calibration]]), the default (the study's nominal 10 µs/km), or the file's own ``fibre_speed``;
    and what each crossing's equipment adds (``crossing_latency``), the default said as such; at
    crossing_latency 0, the reach a crossing link has without repeaters (past it a DWDM, and its latency)."""
    from qmodel.scenario.protocols import unrepeated_reach

    fitted = any("fibre_speed" in str(entry.get("parameter", "")) for entry in spec.calibration)
    where = (
        "fitted: the file's [[calibration]]"
        if fitted
        else "the default, the study's nominal figure"
        if spec.fibre_speed == 2e8
        else "the file's"
    )
    defaulted = {key for key, _ in spec.defaults}
    crossing = (
        "the default: the GDPS study's DWDMs; 0 for fibre without equipment on the route"
        if "crossing_latency" in defaulted
        else "fitted"
        if any("crossing_latency" in str(entry.get("parameter", "")) for entry in spec.calibration)
        else "the file's"
    )
    label = "Round trip per km:".replace(" ", "\N{NO-BREAK SPACE}")  # one line with its value (trial 9, P9)
    unrepeated = unrepeated_reach(spec) if spec.crossing_latency == 0 else None
    dark = (
        ""
        if unrepeated is None
        else f" {unrepeated[1]} reaches {_unit(unrepeated[0] / 1e3, 'km', 'g')} without repeaters: past it"
        " the route needs a qualified DWDM, whose latency (crossing_latency) no answer here includes."
    )
    return (
        f"{label}\N{NO-BREAK SPACE}{_unit(2e9 / spec.fibre_speed, 'µs', '.4g')} (fibre_speed"
        f" {_unit(spec.fibre_speed / 1e3, 'km/s', ',.0f')}, {where}); each round trip between the sites"
        f" at a distance above 0 km adds {_unit(spec.crossing_latency * 1e6, 'µs', '.4g')}"
        f" (crossing_latency, {crossing}).{dark}"
    )


def _banded_rows(record: dict) -> list[list]:
    """A record's table rows: the answer, and where it has a band, the band's low and high ends each on a
    row of its own under it, "low" and "high" in the member column (a narrow table wraps no number: each
    cell is one). A value without a band is empty on those rows; an end open toward a band point with no
    response time says "no answer"."""
    rows: list[list[object]] = [[record[key] if key == "member" else _shown(record[key]) for key in SUMMARY]]
    if end_key("response_time[ms]", "low") not in record:
        return rows
    for end in ("low", "high"):
        cells: list[object] = [None, end]
        for key in list(SUMMARY)[2:]:
            value = record.get(end_key(key, end), False)
            answered = record[key] is not None or record.get(end_key(key, "high" if end == "low" else "low"))
            cells.append(
                None
                if value is False or (value is None and not answered)
                else "no answer"
                if value is None
                else _shown(value)
            )
        rows.append(cells)
    return rows


def _band_notes(result) -> list[str]:
    """What the table's low and high rows are, in a planner's words, the probability that the goal holds
    at each distance (up to PROBABILITIES_SHOWN of them), the measurement that would narrow the band most,
    or why there is no band; where some parameter point has no response time, that the band is open."""
    import itertools

    import numpy as np

    from qmodel.scenario.result import NO_BAND, WHY_UNBANDED, WITHOUT_ANSWER

    band = result.band
    if band is None:
        return [f"No band: {NO_BAND}."]
    level = frames.level_text(band.level)
    notes = [
        f"low, high: the {level} band, where {level} of the runs are expected under the model (how it is"
        " made: --format json, band.method)."
    ]
    order = np.argsort(result.distances, kind="stable")
    if order.size <= PROBABILITIES_SHOWN:
        shown = ", ".join(_chance_at(result.distances[d], band.goal_probability[d]) for d in order)
        notes.append(f"Probability that every member meets the goal: {shown}.")
    else:
        notes.append(
            "The probability that every member meets the goal at each distance: goal_holds[%] in"
            " --format csv or json."
        )
    notes.append(f"{_sentence(WHY_UNBANDED)}.")
    if band.narrow:
        notes.append(f"To narrow the band most: {band.narrow}.")
    if band.misfit:
        notes.append(band.misfit)
    causes = [
        tuple(cause for cause, counts in band.without_answer.items() if counts[d])
        for d in range(result.distances.size)
    ]
    for why, run in itertools.groupby(np.flatnonzero(band.points_without_answer), key=causes.__getitem__):
        open_end = list(run)
        where = ", ".join(f"{d / 1e3:g}" for d in result.distances[open_end[:5]])
        more = f" and {_unit(len(open_end) - 5, 'more')}" if len(open_end) > 5 else ""
        said = " or ".join(WITHOUT_ANSWER[cause] for cause in why) or "no response time exists there"
        notes.append(
            f"At {where}{more} km some parameter point has no response time ({said}): the band is open"
            " toward it, 'no answer' at its end of longer times (high), fewer transactions within the goal"
            " and less throughput (low)."
        )
    return notes


PROBABILITIES_SHOWN = 12  # distances whose goal probability the table's notes list


def _chance_at(distance: float, probability: float) -> str:
    """A distance (m) and the probability the goal holds there, as one unbreakable item of a list
    ("12 km 96%"): wrapped at 80 columns, never "12 km" on one line and "96%" on the next (trial 8, P9)."""
    return f"{_unit(distance / 1e3, 'km')}\N{NO-BREAK SPACE}{_percent(probability)}"


def _percent(probability: float) -> str:
    """A probability as a planner reads it: whole percent, "over 99%" and "under 1%" at the ends."""
    if probability != probability:
        return "no answer"
    if probability > 0.99:
        return "over\N{NO-BREAK SPACE}99%"
    if probability < 0.01:
        return "under\N{NO-BREAK SPACE}1%"
    return f"{probability:.0%}"


def _thrashing_notes(spec, result) -> list[str]:
    """Where no response time exists, one note per run of consecutive distances alike (the volumes
    saturated, or lock contention thrashing with the same remedies, ``result.remedies``): its distances,
    for lock contention the terminals (in all and per member) that still have an answer at the run's
    first and last distance, and the remedies."""
    import itertools

    from qmodel.scenario.result import THRASHING, VOLUMES_WAY_OUT

    opened = result.open_saturated if result.open_saturated is not None else result.disk_saturated & False
    kinds = [
        None if not flag else "disk" if disk else "open" if open_ else result.remedies(index)
        for index, (flag, disk, open_) in enumerate(
            zip(result.thrashing, result.disk_saturated, opened, strict=True)
        )
    ]
    notes = []
    for kind, run in itertools.groupby(range(len(kinds)), key=kinds.__getitem__):
        if kind is None:
            continue
        indices = list(run)
        first, last = indices[0], indices[-1]
        where = (
            f"At {_km(result, first)}"
            if first == last
            else (
                f"From {_km(result, first)} to {_km(result, last)} ({_unit(len(indices), 'distances', ',')})"
            )
        )
        if kind == "open":
            from qmodel.scenario.result import OPEN_SATURATED, OPEN_WAY_OUT

            notes.append(f"{where} no response time exists: {OPEN_SATURATED} there: {OPEN_WAY_OUT}.")
            continue
        if isinstance(kind, str):  # "disk"
            notes.append(
                f"{where} the volumes cannot carry their other work ([disk] background_rate)"
                f" even with no transactions (IOSQ grows without end): {VOLUMES_WAY_OUT}."
            )
            continue
        at_first, at_last = result.terminals_with_answer(first), result.terminals_with_answer(last)
        answer = _terminals(spec, at_first)
        if at_last != at_first:
            answer += f" at {_km(result, first)} and {_terminals(spec, at_last)} at {_km(result, last)}"
        fits = f"up to {answer} still have an answer" if sum(at_first) else "not one terminal has an answer"
        notes.append(
            f"{where} no response time exists: lock contention thrashes ({THRASHING}) with"
            f" {_terminals(spec, [m.terminals for m in spec.members], 'terminals in all')};"
            f" {fits}. {_sentence(_give_one_back(kind))}."
        )
    return notes


def _no_answer(component: str, remedies: tuple[str, ...]):
    """Where the goal breaks for want of any response time, why, with what gives one back: a function
    of where ("" or " there"); None where the goal breaks on its share."""
    from qmodel.scenario.goal import OPEN, SATURATED
    from qmodel.scenario.result import OPEN_SATURATED, OPEN_WAY_OUT, VOLUMES_WAY_OUT

    if component == "thrashing":
        return lambda there: f"lock contention thrashes{there} ({_give_one_back(remedies)})"
    if component == SATURATED:
        return lambda there: f"the volumes cannot carry their other work alone{there} ({VOLUMES_WAY_OUT})"
    if component == OPEN:
        return lambda there: f"{OPEN_SATURATED}{there} ({OPEN_WAY_OUT})"
    return None


def _km(result, index: int) -> str:
    """The distance at ``index``, with its unit."""
    return _unit(result.distances[index] / 1e3, "km")


def _terminals(spec, populations, in_all: str = "in all") -> str:
    """Terminal populations, their sum and each member's: "92 in all (G1P1 46, G1P2 46)", no number
    apart from what it counts (:func:`qmodel.output.count_in_all`, with no-break spaces)."""
    from qmodel.output import count_in_all

    return count_in_all([m.name for m in spec.members], populations, in_all, "\N{NO-BREAK SPACE}")


def _either(remedies: tuple[str, ...]) -> str:
    """Remedies as a sentence names them: "a", "a or b", "a, b or c"."""
    return " or ".join([", ".join(remedies[:-1]), remedies[-1]]) if len(remedies) > 1 else remedies[0]


def _give_one_back(remedies: tuple[str, ...]) -> str:
    """The remedies and what they do, the verb agreeing with a lone singular one: "fewer terminals give
    one back", "a shorter distance gives one back", "fewer terminals or a shorter distance give one back"."""
    singular = len(remedies) == 1 and remedies[0].startswith("a ")
    return f"{_either(remedies)} give{'s' if singular else ''} one back"


def _sentence(text: str) -> str:
    """Text that opens a sentence: its first letter upper case, the rest as it is."""
    return text[:1].upper() + text[1:]


def _thrashing_line(result) -> str:
    """One line for standard error when CSV or JSON carry distances with no response time (exit status 1):
    which, why, and what gives one back (the table's notes say the same at more length)."""
    import numpy as np

    from qmodel.scenario.result import OPEN_WAY_OUT, VOLUMES_WAY_OUT

    def distances(flags) -> str:
        km = [f"{d / 1e3:g}" for d in result.distances[flags]]
        return f"{', '.join(km)} km" if len(km) <= 5 else f"{len(km)} distances from {km[0]} to {km[-1]} km"

    locks, disk = result.lock_thrashing, result.disk_saturated
    parts = []
    if locks.any():
        remedies = tuple(dict.fromkeys(r for d in np.flatnonzero(locks) for r in result.remedies(int(d))))
        parts.append(f"lock contention thrashes at {distances(locks)} ({_give_one_back(remedies)})")
    if disk.any():
        parts.append(f"the volumes cannot carry their other work at {distances(disk)} ({VOLUMES_WAY_OUT})")
    if result.open_saturated is not None and result.open_saturated.any():
        parts.append(
            f"a member's load is more than its CPs or subchannels carry at "
            f"{distances(result.open_saturated)} ({OPEN_WAY_OUT})"
        )
    return "failed: no response time exists where " + "; ".join(parts)


def _unit(value: float, unit: str, digits: str = "g") -> str:
    """A number and its unit joined by no-break spaces: :func:`_say` never puts them on two lines (a unit
    of several words, "terminals in all", stays whole too)."""
    return "\N{NO-BREAK SPACE}".join([f"{value:{digits}}", *unit.split(" ")])


def _say(text: str) -> None:
    """A sentence under a table, wrapped to the terminal's width (no wider when piped) at spaces only:
    a number and its unit (:func:`_unit`) stay on one line."""
    from qmodel.output import terminal_width, wrap_at_spaces

    click.echo("\n".join(wrap_at_spaces(text, terminal_width())))


def _shown(value: float | None) -> float | None:
    """A value for the table: two decimals (0.01 ms, 0.01 %), None where no number exists."""
    return None if value is None or value != value else round(value, 2) + 0.0


def _holds_words(seek, limit: tuple[float, str], banded_words: str, measured_at: float) -> str:
    """What a seek whose goal holds throughout says: to the end of the search (``banded_words``, its
    band, after it), and what ended it: the links' reach ``limit`` (m, and what sets it:
    :func:`qmodel.scenario.protocols.reach_limit`, the refusal's words) or --up-to; a larger --up-to is
    offered only where --up-to ended the search, and where that end is short of today's distance
    ``measured_at`` (m; "--up-to 300m" for 300km), the sentence says so."""
    km = _unit(seek.searched / 1e3, "km")
    if seek.searched < measured_at:
        km += f", short of today's {_unit(measured_at / 1e3, 'km')}"
    if seek.searched >= limit[0]:
        return (
            f"holds at every distance up to the links' reach, {km}{banded_words}: the search stops there,"
            f" as every command refuses a distance beyond it ({limit[1]})"
        )
    further = (
        f", at most to the links' reach, {_unit(limit[0] / 1e3, 'km')}" if math.isfinite(limit[0]) else ""
    )
    return (
        f"holds at every distance searched, up to {km}{banded_words}: the largest distance is beyond it"
        f" (a larger --up-to searches further{further})"
    )


def _chances_words(sought, limit: tuple[float, str]) -> str:
    """The probability that the goal holds at each distance asked; those past the search's end have
    none, and the sentence says why: the links' reach ``limit`` (m, and what sets it), or --up-to."""
    asked, probability, searched = sought.asked, sought.probability, sought.answer.searched
    shown = [_chance_at(d, p) for d, p in zip(asked, probability, strict=True) if d <= searched]
    said = f" Probability that every member meets the goal: {', '.join(shown)}." if shown else ""
    for past, why in (
        (asked > limit[0], f"beyond the links' reach: {limit[1]}"),
        ((asked > searched) & (asked <= limit[0]), f"beyond the search (--up-to {searched / 1e3:g} km)"),
    ):
        if past.any():
            kms = " and ".join(_unit(d / 1e3, "km") for d in asked[past])
            said += f" No probability at {kms}: {why}."
    return said


def _today_words(spec, answer, today) -> str:
    """Where the file is measured above 0 km and the goal already fails there under the model
    (``today``: :func:`qmodel.scenario.goal.failing_today`), one sentence saying so: the member and its
    share within the goal against the goal share, or why no response time exists; so an answer below
    today's distance is where the goal would hold, not a distance to move to. "" otherwise."""
    if today is None:
        return ""
    member, component, share = today
    no_answer = _no_answer(component, ())
    why = (
        no_answer("")
        if no_answer
        else f"{member} has {share:.1%} within {_unit(*goal_time(spec.goal_time))} against the goal's"
        f" {spec.goal_share:.0%}"
    )
    km = answer.held_km
    if km is not None and not answer.holds_throughout:
        why += f", so {_unit(km, 'km', '.1f')} is where the goal would hold, not a distance to move to"
    if not no_answer:  # the share within the goal rests on the distribution's shape: a row fits it
        why += (
            f"; where RMF shows the goal met today, a share_within_goal row measured there, with"
            f" member.{member}.shape free (qmodel scenario calibrate), fits the model to it"
        )
    return f" Under the model the goal already fails at today's {_unit(spec.measured_at / 1e3, 'km')}: {why}."


def _distance_cell(seek) -> str | float | None:
    """A seek's distance as the table shows it: "over 300" where the goal holds throughout, the km to 0.1
    (:attr:`~qmodel.scenario.goal.GoalSeek.held_km`), "fails at 0 km" where it fails there already."""
    if seek.holds_throughout:
        return f"over {seek.searched / 1e3:g}"
    km = seek.held_km
    return "fails at 0\N{NO-BREAK SPACE}km" if km is None else km


def _band_words(low: float, high: float, upper: float, level: float, at_zero: float = math.nan) -> str:
    """A goal seek's band in words: "3.2–21.6 km", "3.2 km to beyond 100 km", "beyond 100 km", or where
    both ends are 0 km, that the goal fails there in most outcomes: in ``at_zero`` of them where it is
    known (the share failing at 0 km itself, the one figure the answer gives for it), else in at least
    as many as the level leaves above the band."""
    nbsp = "\N{NO-BREAK SPACE}"
    if high < 100 and at_zero == at_zero:  # m: both ends print as 0.0 km
        return f"it fails at 0{nbsp}km in {_percent(at_zero)} of the outcomes"
    if high < 100:
        return f"it fails at 0{nbsp}km in {frames.level_text((1 + level) / 2)} of the outcomes or more"
    if low > upper:
        return f"beyond{nbsp}{upper / 1e3:g}{nbsp}km"
    if high > upper:
        return f"{_band_km(low, upper)}{nbsp}km to beyond{nbsp}{upper / 1e3:g}{nbsp}km"
    return f"{_band_km(low, upper)}\N{EN DASH}{_band_km(high, upper)}{nbsp}km"


def _band_km(distance: float, upper: float) -> str:
    """A band end of the goal seek as a range shows it: km to 0.1 rounded down, "over N" beyond the
    search."""
    return f"over {upper / 1e3:g}" if distance > upper else f"{math.floor(distance / 100) / 10:.1f}"


# --max-distance --plot: the sweep drawn around the answer, this many distances from 0 km
SEEK_PLOT_POINTS = 41


def _plot_goal_seek(banded, sought, level: float, path: str) -> None:
    """The picture of a goal seek: the scenario with its band from 0 km to past the band's far end and
    today's distance (a quarter beyond, to a whole 10 km; the searched distance where the goal holds
    throughout), the answer and its band's ends marked, 0 km included, and today's distance (the file's
    measured_at) where above 0."""
    import numpy as np

    from qmodel.cli.plotting import plot_scenario
    from qmodel.scenario.band import solve_banded

    searched = sought.answer.searched / 1e3
    record = sought.to_json()  # the marks are the numbers the answer prints, km to 0.1 rounded down
    ends = {
        f"{frames.level_text(level)} band, {end}": record[end_key("max_distance[km]", end)]
        for end in ("low", "high")
    }
    found = {
        name: km for name, km in {"goal seek": record["max_distance[km]"], **ends}.items() if km is not None
    }
    today = banded.scenario.measured_at / 1e3
    farthest = max(*found.values(), today) if found else searched / 1.25  # holds throughout: to the end
    end = min(searched, math.ceil(farthest * 1.25 / 10) * 10 or 10)
    # the picture reads no load where lock contention begins: not searched (trial 9: 4 of its 9 s)
    result = solve_banded(banded, np.linspace(0, end, SEEK_PLOT_POINTS) * 1e3, level, search=False)
    plot_scenario(result, path, {f"{name}: {km:.1f} km": km for name, km in found.items()}, today)


def _low_end_words(sought, crossing_latency: float) -> str:
    """Wherever the band's low end shows as 0 km (whatever the answer, 0 km included): the share of
    outcomes failing at 0 km itself, and within the first metre, where each round trip between the sites
    first pays ``crossing_latency`` (s); "" otherwise."""
    at_zero, by_first_metre = sought.near_zero
    if sought.low is None or sought.low >= 100 or math.isnan(at_zero):
        return ""
    more = by_first_metre - at_zero >= 0.005 and crossing_latency > 0
    first_metre = (
        f"{_percent(by_first_metre - at_zero)} more within the first metre, where each round trip between"
        f" the sites first adds crossing_latency ({crossing_latency * 1e6:.0f}\N{NO-BREAK SPACE}µs)"
    )
    if sought.high is not None and sought.high < 100:  # both ends at 0 km: the band's words gave at_zero
        return f" It fails in {first_metre}." if more else ""
    said = f" The band's low end is 0 km: the goal fails at 0 km in {_percent(at_zero)} of the outcomes"
    return said + (f", and in {first_metre}" if more else "") + "."


def _show_goal_seek(
    banded, upper: float, fmt: str, level: float, asked, plot_path: str | None, fit_note: str = ""
) -> None:
    """--max-distance: the answer in words a planner can sign ("the goal holds to X km (80%: lo–hi km)"),
    what breaks the goal past it, the probability that it holds at each distance asked, the measurement
    that would narrow the band most; with --plot, the scenario drawn over the distances around it."""
    from qmodel.scenario.band import max_distance_banded
    from qmodel.scenario.goal import failing_today
    from qmodel.scenario.protocols import described, reach_limit
    from qmodel.scenario.result import BREAKDOWN_MEANING, NO_BAND

    spec = banded.scenario
    sought = max_distance_banded(banded, upper, level, asked)
    if plot_path:
        _plot_goal_seek(banded, sought, level, plot_path)
    answer = sought.answer
    km = answer.held_km
    limit = reach_limit(spec)
    goal = f"{spec.goal_share:.0%} of transactions within {_unit(*goal_time(spec.goal_time))}"
    no_answer = _no_answer(answer.component, answer.remedies)
    banded_words = ""
    low, high = sought.low, sought.high
    if low is not None and high is not None:
        banded_words = (
            f" ({frames.level_text(level)}:\N{NO-BREAK SPACE}"
            f"{_band_words(low, high, answer.searched, level, sought.near_zero[0])})"
        )
    if km is None:
        text = f"The goal ({goal}) is not met even at 0 km{banded_words}: " + (
            no_answer(" there") + "."
            if no_answer
            else f"{answer.member} has {answer.share:.1%} within it, its largest part being"
            f" {answer.component} ({BREAKDOWN_MEANING[answer.component]})."
        )
    elif answer.holds_throughout:
        text = f"The goal ({goal}) {_holds_words(answer, limit, banded_words, spec.measured_at)}."
    elif no_answer:
        text = (
            f"The goal ({goal}) holds to {_unit(km, 'km', '.1f')}{banded_words}; beyond it no response"
            " time exists: " + no_answer("") + "."
        )
    else:
        # the growth is from the 0 km solve (max_distance's base), whatever the file's own distance
        since = f" (not from today's {_unit(spec.measured_at / 1e3, 'km')})" if spec.measured_at > 0 else ""
        text = (
            f"The goal ({goal}) holds to {_unit(km, 'km', '.1f')}{banded_words}; beyond it {answer.member}"
            f" falls below {spec.goal_share:.0%}, its largest growth from 0 km{since} being"
            f" {answer.component} ({BREAKDOWN_MEANING[answer.component]})."
        )
    end = answer.searched if answer.holds_throughout else answer.distance  # NaN: fails at 0 km
    if spec.measured_at > 0 and not end >= spec.measured_at:
        text += _today_words(spec, answer, failing_today(spec))
    if sought.low is None:
        text += f" No band: {NO_BAND}."
    else:
        text += (
            f" The {frames.level_text(level)} band is where {frames.level_text(level)} of the outcomes"
            " under the model fall (how it is made: --format json, band.method)."
        )
        text += _low_end_words(sought, spec.crossing_latency)
        text += _chances_words(sought, limit)
        if sought.narrow:
            text += f" To narrow the band most: {sought.narrow}."
        if sought.misfit:
            text += f" {sought.misfit}"
    text += " " + " ".join(filter(None, [fit_note, *_rests_on(spec)]))
    # no distance where the goal fails at 0 km, or holds to the end of the search
    payload = {**sought.to_json(), "goal": goal.replace("\N{NO-BREAK SPACE}", " ")}
    band = sought.band_json()
    if fmt != "table":
        # CSV: one row per distance asked, each with its probability (a table a spreadsheet pivots)
        held = sought.probabilities() or [{}]
        render(
            list({**payload, **held[0]}),
            [list({**payload, **each}.values()) for each in held],
            fmt,
            json_payload={
                **payload,
                "goal_holds": sought.probabilities(),
                "band": band,
                "measured_at[km]": spec.measured_at / 1e3,
                "links_reach[km]": limit[0] / 1e3 if math.isfinite(limit[0]) else None,
                "defaults": dict(spec.defaults),
                **({"hardware": described(spec)} if described(spec) else {}),
                "answer": text.replace("\N{NO-BREAK SPACE}", " "),
            },
        )
        if fmt == "csv" and sought.low is None:  # its *_low, *_high are empty: say why off the data
            click.echo(f"no band: {NO_BAND}", err=True)
        return
    rows = [["answer", _distance_cell(answer), answer.member, answer.component]]
    if low is not None and high is not None:
        rows += [
            [
                f"{frames.level_text(level)} band, {end}",
                float(_band_km(seek, answer.searched))
                if seek <= answer.searched
                else _band_km(seek, answer.searched),
                None,
                None,
            ]
            for end, seek in (("low", low), ("high", high))
        ]
    render(["", "max distance [km]", "breaking member", "breaking component"], rows, fmt, title=spec.title)
    _say(text)


@click.command(
    "cross-validate",
    epilog="""\b
Each of the GDPS study's three environments is predicted from parameters
fitted on the other two (lock parameters on their response and count rows
above 0 km, the round trip per km on their RMF service times), its own
0 km rows fitted as a planner's would be; every left-out row is listed
with its band at --level. A few minutes: each fold is a least-squares fit.
\b
Docs: docs/background/cross-validation.md
Options: docs/reference/commands.md#qmodel-scenario-cross-validate""",
)
@click.option(
    "--compare",
    is_flag=True,
    help="Cross-validate every candidate model choice (lock span, percentile law, conversion "
    "threshold) and print each one's score and errors per environment and kind (about 20 minutes).",
)
@click.option(
    "--write",
    "write",
    is_flag=True,
    help="Write the model's error and the studies' ranges (casebooks/model), the rows, and the "
    "docs' tables (docs/background/cross-validation.md).",
)
@click.option("--level", "level_text", default="80%", show_default=True, help="The bands' level.")
@FORMAT_OPTION
def cross_validate(compare: bool, write: bool, level_text: str, fmt: str) -> None:
    """Leave one environment out: every row of the GDPS study predicted from the other environments, with
    its band, and the figures the targets are judged on."""
    from qmodel.validation import crossval

    level = _level(level_text)
    click.echo("cross-validating: 3 folds, each a least-squares fit (a few minutes)", err=True)
    result = crossval.cross_validate(level=level)
    records = [p.record() for p in result.predictions]
    compared = []
    if compare:  # every candidate in its declared order, the shipped one's folds reused where they can be
        fits = {fit.held_out: fit for fit in result.fits}
        for candidate in crossval.CANDIDATES:
            if candidate is not crossval.SHIPPED:
                click.echo(f"cross-validating: {candidate.name}", err=True)
            each = (
                result if candidate is crossval.SHIPPED else crossval.cross_validate(candidate, level, fits)
            )
            compared.append((candidate, [p.record() for p in each.predictions]))
    if write:
        crossval.write(result, compared or None)
    if fmt == "json":
        payload = {
            "level": level,
            "candidate": result.candidate.name,
            "rows": records,
            "figures": crossval.figures(records),
            "targets": [
                {"target": what, "figure": figure, "met": met}
                for what, figure, met in crossval.targets(records)
            ],
        }
        if compare:
            payload["candidates"] = [crossval.candidate_json(*pair) for pair in compared]
        render([], [], fmt, json_payload=payload)
        return
    columns = ["environment", "member", "distance", "kind", "measured", "model", "low", "high", "unit"]
    rows = [
        [
            r["environment"],
            r["member"],
            r["distance[km]"],
            r["kind"],
            r["measured"],
            r["model"],
            r["low"],
            r["high"],
            r["unit"],
        ]
        for r in records
    ]
    render(
        columns, rows, fmt, title=f"Left-out rows, {frames.level_text(level)} band ({result.candidate.name})"
    )
    if fmt == "table":
        _say(
            " ".join(
                f"{'Met' if met else 'Not met'}: {what}: {figure}."
                for what, figure, met in crossval.targets(records)
            )
        )
        if compare:
            click.echo(crossval.comparison_table(compared))


@click.command(
    "scenario-profile",
    epilog="""\b
Examples (Environment 3, G1P2 at 0 km: the GBP8, LOCK1, CICS and MSTR
tables over 300 s):
  $ qmodel scenario-profile --transactions 3394 LOCK1.sync=190K \\
        GBP8P.sync=21K GBP8P.async=199K GBP8S.async=83K \\
        sync_reads=92.3K log_writes=13.23K
  $ qmodel scenario-profile --transactions 11.31 \\
        sync_reads=307.7 log_writes=44.1
\b
NAME=COUNT over the interval the transactions were counted in (or NAME=RATE
with the transaction rate). NAME is sync_reads, log_writes or a CF structure
as the report prints it (upper case): NAME.sync, NAME.async and NAME.total,
whose parts must add up to the total within 1%. The lines for the scenario
file are printed after the table as plain TOML, ready to paste.
\b
Docs: docs/howto/scenario.md (site: howto/scenario.html)
Options: docs/reference/commands.md#qmodel-scenario-profile""",
)
@click.option(
    "--transactions",
    "transactions_text",
    required=True,
    metavar="N",
    help="Transactions in the interval (or the transaction rate, with rates).",
)
@click.argument("assignments", nargs=-1, required=True, metavar="NAME=COUNT...")
@FORMAT_OPTION
def scenario_profile(transactions_text: str, assignments: tuple[str, ...], fmt: str) -> None:
    """A member's per-transaction profile (CF requests by structure, reads, log writes) from RMF counts."""
    from qmodel.cli.common import name_value_pairs
    from qmodel.scenario.profile import profile
    from qmodel.units import parse_value

    typed = name_value_pairs(assignments)  # any name here: profile() says which it reads
    counts = {name: parse_value(name, text, "1") for name, text in typed.items()}
    try:
        result = profile(counts, parse_value("--transactions", transactions_text, "1"))
    except InputError as error:  # the value as typed (92.3K), not as read (92300)
        typed["transactions"] = transactions_text
        if error.parameter not in typed:
            raise
        parameter = "--transactions" if error.parameter == "transactions" else error.parameter
        raise InputError(parameter, typed[error.parameter], error.allowed, reason=error.reason) from None
    share = result.async_share
    rows = [
        [name, value, None if name not in share else share[name] * 100]
        for name, value in result.per_transaction.items()
    ]
    snippet = result.toml("MEMBER")
    render(
        ["name", "per transaction [1]", "async share [%]"],
        rows,
        fmt,
        title="Per-transaction profile",
        json_payload={
            "per_transaction": result.per_transaction,
            "async_share[%]": {name: value * 100 for name, value in share.items()},
            "toml": snippet,
        },
    )
    if fmt == "table":  # plain text, never centred: it is pasted into a TOML file
        click.echo(f"\nFor the scenario file (MEMBER: the member's name):\n{_comments_wrapped(snippet)}")


def _comments_wrapped(toml: str) -> str:
    """TOML lines as they are, but a comment wider than the terminal wrapped into comment lines."""
    from qmodel.output import terminal_width, wrap_at_spaces

    width = terminal_width()
    lines = []
    for line in toml.splitlines():
        if line.startswith("# ") and len(line) > width:
            lines += wrap_at_spaces(line[2:], width, indent="# ", subsequent_indent="# ")
        else:
            lines.append(line)
    return "\n".join(lines)


@click.command(
    epilog="""\b
MEASUREMENTS: a CSV (any dialect qmodel reads) or a workbook, one
measured number a row: distance (40km), member (a name, or all),
quantity (response_time, transactions, throughput, share_within_goal,
cpu_of_one_cp, lock_contention), value (43ms, 3388, 97.9%) and
optionally weight (times the quantity's own; 0: shown, not fitted),
subchannels, metro_mirror (on, off), castout_owner, interval (300s).
Each interval once: two rows alike in distance, member, quantity,
value, configuration and interval are refused (two intervals that read
the same: one row with weight 2).
The parameters fitted are the file's free = [...] (dotted keys:
locks.lockable_items, member.*.other, crossing_latency, ...) or --free.
\b
The fitted values are written to FILE.fit.toml beside FILE (never over
FILE), whole; every later qmodel scenario FILE takes them in place of
the file's own. Exit status 0 when written, 2 for input it cannot use.
--format csv: one table, its first column parameter, row, note or
summary; numbers in the row's unit column (a share in %). --format
json: the same numbers, each entry's unit in its "unit" field.
\b
Example:
  $ qmodel scenario calibrate my-sysplex.toml measured.csv
\b
Docs: docs/howto/own-sysplex.md
Options: docs/reference/commands.md#qmodel-scenario-calibrate"""
)
@click.argument("scenario_file", metavar="FILE")
@click.argument("measurements", metavar="MEASUREMENTS")
@click.option(
    "--free",
    "free_text",
    default=None,
    metavar="KEY,KEY",
    help="The parameters to fit, dotted keys, in place of the file's free list.",
)
@click.option(
    "--sheet", default=None, metavar="NAME", help="The sheet of a workbook to read (default: the first)."
)
@FORMAT_OPTION
def scenario_calibrate(
    scenario_file: str, measurements: str, free_text: str | None, sheet: str | None, fmt: str
) -> None:
    """Fit a scenario file's free parameters on measured rows by weighted least squares over all of them:
    each value with its 95% interval, every row's residual, and which parameters the rows leave weakly
    identified."""
    from pathlib import Path

    import numpy as np

    from qmodel.scenario.files import resolve_scenario
    from qmodel.scenario.fit import (
        calibrate_fit,
        calibration_evaluations,
        lock_refit,
        model_values,
        refuse_long_calibration,
        with_inferred_locks,
        write_fit,
    )
    from qmodel.scenario.measurements import (
        far_above_rest,
        read_measurements,
        refuse_beyond_reach,
        refuse_far_checks,
        refuse_unreachable,
    )
    from qmodel.scenario.overrides import with_values
    from qmodel.scenario.spec import read_scenario_toml, scenario_from_dict

    path = resolve_scenario(scenario_file)
    scenario = scenario_from_dict(read_scenario_toml(path, with_fit=False), path.name)
    free = scenario.free if free_text is None else tuple(k.strip() for k in free_text.split(",") if k.strip())
    if not free:
        raise InputError(
            "free",
            "none",
            "the parameters to fit: free = [...] in the file, or --free KEY,KEY",
            reason=f"{path.name} declares no free parameter",
        )
    parameters = _free_checked(scenario, "--free" if free_text else f"{path.name}: free", free)
    rows = read_measurements(measurements, path.stem, sheet)
    refuse_beyond_reach(rows, scenario)
    prepare = lock_refit(scenario, free)  # lockable_items from measured_wait, again at every trial
    keys = [p.key for p in parameters]
    refuse_long_calibration(scenario, rows, keys, prepare is not None)
    inferred = with_inferred_locks(scenario)
    names = {m.name for m in scenario.members} | {"all"}  # a row of another member: the fit names it
    judged = [i for i, row in enumerate(rows) if row.member in names]
    model = np.full(len(rows), np.nan)
    model[judged] = model_values(inferred, [rows[i] for i in judged])
    reached = {name for name in names if f"member.{name}.other" in keys}  # other adds to its response
    floor = None  # the least a free other reaches: its member's response with other at 0
    if reached:
        floor = np.full(len(rows), np.nan)
        at_zero = with_values(inferred, {f"member.{name}.other": 0.0 for name in reached})
        floor[judged] = model_values(at_zero, [rows[i] for i in judged])
    capped = {  # a closed member whose think time is not free: its terminals cap its throughput
        name: (scenario.member(name).terminals, scenario.member(name).think_time)
        for name in reached
        if not scenario.member(name).open and f"member.{name}.think_time" not in keys
    }
    reached |= {"all"} if reached else set()
    refuse_unreachable(rows, model, reached, scenario.goal_time, floor, capped)  # a slip, before the fit
    likely_slips = [] if floor is None else far_above_rest(rows, model, floor, reached, capped)
    about = round(calibration_evaluations(keys, prepare is not None))
    with _progress_line(f"calibrating {len(parameters)} parameters on {len(rows)} rows", about) as progress:
        fit = calibrate_fit(inferred, rows, parameters, prepare=prepare, progress=progress)
    fitted = [row.weight > 0 for row in fit.rows]
    checked = zip(fit.rows, fit.model, fit.counted, fitted, strict=True)
    refuse_far_checks([(row, model) for row, model, counted, used in checked if used and not counted])
    written = write_fit(fit, Path(path), measurements)
    _show_fit(fit, written, fmt, likely_slips)


PROGRESS_AFTER = 2.0  # s: a calibration still running this long says so on a terminal


@contextmanager
def _progress_line(what: str, about: int) -> Iterator[Callable[[int], None] | None]:
    """A callback that keeps one line on stderr ("calibrating ...: evaluation 12 of about 48, 5 s")
    once the work has run :data:`PROGRESS_AFTER` seconds, and clears it at the end; None where stderr
    is no terminal (piped, a log: nothing is written there)."""
    if not sys.stderr.isatty():
        yield None
        return
    start, shown = time.monotonic(), [False]

    def progress(done: int) -> None:
        elapsed = time.monotonic() - start
        if elapsed >= PROGRESS_AFTER:
            sys.stderr.write(f"\r{what}: evaluation {done} of about {max(about, done)}, {elapsed:.0f} s")
            sys.stderr.flush()
            shown[0] = True

    try:
        yield progress
    finally:
        if shown[0]:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _shape_held_notes(fit) -> list[str]:
    """Trial 9, Q6: a share_within_goal row fitted with its member's distribution shape held moves the
    free keys it can reach (``other``) in place of the spread the share measures: one line naming the
    rows and the key that fits them (``member.NAME.shape``, ``member.*.shape`` for a row of all), as the
    uncalibrated answer's words do (:func:`_today_words`)."""
    free = [p.key for p in fit.parameters]
    held: dict[str, list[str]] = {}
    for row in fit.rows:
        if row.quantity != "share_within_goal" or row.weight <= 0:
            continue
        key = f"member.{'*' if row.member == 'all' else row.member}.shape"
        if not any(given in (key, "member.*.shape", "distribution.shape") for given in free):
            held.setdefault(key, []).append(row.label)
    return [
        f"{', '.join(labels)}: fitted with the member's shape held, so the keys the fit frees move in place"
        f" of the spread of response times the share measures; add {key} to the free keys (the file's"
        " free, or --free) to fit it"
        for key, labels in held.items()
    ]


def _show_fit(fit, written, fmt: str, likely_slips: list[str]) -> None:
    from qmodel.scenario.fit import LEVEL, held_label, shown_value, shown_value_of, unit_of
    from qmodel.scenario.measurements import QUANTITIES
    from qmodel.scenario.result import number

    intervals, weak = fit.intervals(), fit.weak()
    values = _bounds_as_such(fit)
    level = f"{LEVEL:.0%} interval"
    parameters = [
        [
            p.key,
            shown_value(p.key, values[p.key]),
            " to ".join(shown_value(p.key, end) for end in intervals[p.key]),
            fit.label(p.key),
        ]
        for p in fit.parameters
    ] + [[h.parameter.key, shown_value(h.parameter.key, h.value), "", held_label(h)] for h in fit.held]
    rows = []
    for row, model, residual, counted in zip(fit.rows, fit.model, fit.residuals, fit.counted, strict=True):
        status = _row_status(row, counted)
        shown = "no answer" if model != model else shown_value_of(row.quantity, model)
        rows.append(
            [
                row.label,
                shown_value_of(row.quantity, row.value),
                shown,
                f"{_off(row, model):+.1f}",
                f"{residual:+.2f}" + (f" ({status})" if status else ""),
            ]
        )
    notes = [*likely_slips, *fit.notes(), *_shape_held_notes(fit)]
    if fmt == "json":
        render(
            [],
            [],
            fmt,
            json_payload={
                "parameters": [
                    {
                        "key": p.key,
                        "value": _in_unit(values[p.key], unit_of(p.key))[0],
                        "low": _in_unit(intervals[p.key][0], unit_of(p.key))[0],
                        "high": _in_unit(intervals[p.key][1], unit_of(p.key))[0],
                        "unit": _in_unit(values[p.key], unit_of(p.key))[1],
                        "level": LEVEL,
                        "weakly_identified": weak[p.key],
                    }
                    for p in fit.parameters
                ],
                "held": [
                    {
                        "key": h.parameter.key,
                        "value": _in_unit(h.value, unit_of(h.parameter.key))[0],
                        "unit": _in_unit(h.value, unit_of(h.parameter.key))[1],
                        "why": h.reason,
                    }
                    for h in fit.held
                ],
                "rows": [
                    {
                        "row": row.label,
                        "source": row.source,
                        "quantity": row.quantity,
                        "measured": _in_unit(row.value, QUANTITIES[row.quantity])[0],
                        "model": _in_unit(model, QUANTITIES[row.quantity])[0],
                        "unit": _in_unit(row.value, QUANTITIES[row.quantity])[1],
                        "off[%]": number(_off(row, model)),
                        "weighted_residual": float(residual),
                        "weight": row.weight,
                    }
                    for row, model, residual in zip(fit.rows, fit.model, fit.residuals, strict=True)
                ],
                "degrees_of_freedom": fit.dof,
                "summary": fit.summary(),
                "notes": notes,
                "written": str(written),
            },
        )
        return
    if fmt == "csv":
        _fit_csv(fit, written, values, intervals, notes)
        return
    render(["parameter", "value", level, "identified"], parameters, fmt, title="Fitted parameters")
    if fmt == "table":
        render(
            ["row", "measured", "model", "off [%]", "weighted residual"],
            rows,
            fmt,
            title="Every row",
        )
        for note in notes:
            _say(note)
        _say(_fit_summary(fit, written))
