"""``qmodel scenario``: a configuration at a distance, end to end; goal seek; a CSV of what-if variants."""

from __future__ import annotations

import click

from qmodel.cli.common import FORMAT_OPTION
from qmodel.errors import InputError
from qmodel.output import render
from qmodel.units import goal_time

SUMMARY = {
    "distance_km": "distance [km]",
    "member": "member",
    "response_time_ms": "R [ms]",
    "within_goal_pct": "within goal [%]",
    "throughput_per_s": "X [/s]",
    "cpu_busy_pct_of_lpar": "CPU busy [% of LPAR]",
    "cpu_pct_of_one_cp": "CPU [% of one CP]",
    "converted_cf_requests_per_s": "converted CF requests [/s]",
}
# A table is for reading: drawing one takes about 5.5 ms per distance (two members and "all", each with
# its band's low and high rows, and the breakdown: 1,000 distances 5.5 s CPU, against 3.9 s with the band
# in the answers' cells); CSV and JSON write any sweep the solver accepts (40,000 in 22 s).
TABLE_DISTANCES = 1_000
SECONDS_PER_TABLE_DISTANCE = 5.5e-3


@click.command(
    epilog="""\b
Examples (the GDPS/PPRC study's environments ship with qmodel: --list
names their files):
  $ qmodel scenario gdps-env2
  $ qmodel scenario gdps-env3 --distance 0..100km --points 11 --plot env3.png
  $ qmodel scenario gdps-env2 --max-distance
  $ qmodel scenario gdps-env2 --distance 20,40,70km --format csv > env2.csv
  $ qmodel scenario gdps-env3 --variants what-if.csv -o what-if-results.csv
  $ qmodel scenario-profile --transactions 3394 LOCK1.sync=190K \\
        GBP8P.sync=21K GBP8P.async=199K sync_reads=92.3K log_writes=13.2K
\b
A scenario file (TOML) holds sites and the distance, members (site, CPs,
terminals and think time, per-transaction profile), coupling facilities and
structures, each member's paths to them (link, subchannels), disks, the
conversion threshold, lock contention and the WLM goal: every key in
docs/reference/scenario-file.md.
Response time is broken down into cpu, cf_sync, cf_async, subchannel_wait,
sync_io, commit, lock_contention and other. Where the file has a [band]
(points at the ends of its fitted parameters' intervals, and the model's
own error measured where they were fitted), every answer carries the
least and greatest over them, each point's value so widened: low and high
rows under each answer in the table, NAME_low and NAME_high in CSV and
JSON, hatched in the plot.
\b
Docs: docs/howto/scenario.md
Options: docs/reference/commands.md#qmodel-scenario"""
)
@click.argument("scenario_file", metavar="SCENARIO")
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
    help="The largest distance at which every member meets the WLM goal, and what breaks it; with a"
    " [band], the same at the band's ends.",
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
@click.option("--sheet", default=None, metavar="NAME",
              help="With --variants: the sheet of a workbook to read (default: the first).")
@click.option(
    "-o",
    "--output",
    "output_csv",
    default="-",
    metavar="OUT.csv|.xlsx",
    help="With --variants: where to write the rows with their results (- is standard output).",
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
    fmt: str,
) -> None:
    """Solve a Parallel Sysplex scenario end to end: response time and its breakdown, share within the
    WLM goal, throughput and CPU per member, at each distance.

    Exit status 1 when lock contention thrashes (or the volumes cannot carry their other work) at some
    distance: the other distances are still shown, as --variants still writes its other rows."""
    from qmodel.scenario.band import load_banded
    from qmodel.scenario.files import resolve_scenario, shipped_folder

    _refuse_unused(ctx, variants_csv, max_distance, distance_text)
    if plot_path:
        from qmodel.cli.plotting import check_plot_path

        check_plot_path(plot_path)
    try:
        path = resolve_scenario(scenario_file)
    except InputError as error:  # say where the shipped ones are, to copy and edit
        raise InputError(error.parameter, error.value, f"{error.allowed} (files in {shipped_folder()};"
                         " qmodel scenario --list)", reason=error.reason) from None
    if variants_csv is not None:
        if distance_text is not None or max_distance or plot_path:
            raise InputError("--variants", variants_csv, "--variants alone (each row gives its distance)")
        if fmt != "table":
            raise InputError("--format", fmt, "no --format with --variants (it writes the rows as CSV)")
        from qmodel.scenario.variants import run_variant_files

        ctx.exit(run_variant_files(path, variants_csv, output_csv, sheet))
    banded = load_banded(path)
    spec = banded.scenario
    if max_distance:
        if distance_text is not None or plot_path:
            raise InputError(
                "--max-distance", "with --distance, --points or --plot", "--max-distance alone (it searches)"
            )
        _show_goal_seek(banded, up_to, fmt)
        return
    from qmodel.scenario.band import solve_banded

    distances = None if distance_text is None else _distances(distance_text, points)
    if fmt == "table" and distances is not None and distances.size > TABLE_DISTANCES:
        raise InputError(
            "--points",
            distances.size,
            f"at most {TABLE_DISTANCES:,} distances in a table; --format csv or json writes them all",
            reason=f"drawing the table would take about {distances.size * SECONDS_PER_TABLE_DISTANCE:.0f} s",
        )
    result = solve_banded(banded, distances)
    _show(spec, result, fmt, breakdown)
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
    lines = {name: f"{name:<{name_width}}  {titles[name]:<{title_width}}  {path.resolve()}"
             for name, path in shipped.items()}
    width = terminal_width()
    if not _at_terminal() or max(map(len, lines.values())) <= width:
        click.echo("\n".join(lines.values()))
        ctx.exit(0)
    for name, path in shipped.items():  # every scenario alike: name and title, then the path
        heading = wrap_at_spaces(f"{name:<{name_width}}  {titles[name]}", width,
                                 subsequent_indent=" " * (name_width + 2))
        click.echo("\n".join([*heading, f"  {path.resolve()}"]))
    ctx.exit(0)


def _at_terminal() -> bool:
    """Whether standard output is a terminal (not piped or redirected to a file)."""
    import sys

    return sys.stdout.isatty()


def _refuse_unused(ctx: click.Context, variants_csv, max_distance: bool, distance_text) -> None:
    """An option typed where it does nothing is refused, never silently ignored."""
    from click.core import ParameterSource

    typed = {name for name in ("output_csv", "sheet", "up_to", "points")
             if ctx.get_parameter_source(name) is not ParameterSource.DEFAULT}
    for name, option, needs, given in (
        ("output_csv", "-o/--output", "--variants", variants_csv is not None),
        ("sheet", "--sheet", "--variants", variants_csv is not None),
        ("up_to", "--up-to", "--max-distance", max_distance),
        ("points", "--points", "--distance A..B", distance_text is not None and _is_range(distance_text)),
    ):
        if name in typed and not given:
            raise InputError(option, ctx.params[name], f"{option} with {needs} only", reason=f"no {needs}")


def _is_range(text: str) -> bool:
    from qmodel.units import split_range

    return split_range("--distance", text) is not None


def _distances(text: str, points: int | None):
    """The distances typed, in m (the solver refuses a sweep too large to compute, with its estimate)."""
    from qmodel.scenario.spec import parse_distances

    return parse_distances(text) if points is None else parse_distances(text, points=points)


def _show(spec, result, fmt: str, breakdown: bool) -> None:
    from qmodel.scenario.protocols import described
    from qmodel.scenario.result import NO_BAND

    if fmt == "json":  # the results, where the scenario's values come from, and the band's points
        payload = {**result.to_json(), "source": spec.source, "calibration": list(spec.calibration)}
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
    notes = [f"goal: {result.goal_share:.0%} within {_unit(*goal_time(result.goal_time))}."]
    if len(result.members) > 1:
        notes.append('"all": every member\'s transactions together; CPU busy is per LPAR, so empty there.')
    notes += _band_notes(result)
    notes += _thrashing_notes(spec, result)
    notes += described(spec)  # today's hardware and protocols, and what was assumed (issue 36)
    _say(" ".join(notes))
    if breakdown:
        from qmodel.scenario.result import BREAKDOWN

        columns = ["distance [km]", "member", *(f"{name} [ms]" for name in BREAKDOWN)]
        parts = [
            [_shown(r["distance_km"]), r["member"], *(_shown(r[f"{name}_ms"]) for name in BREAKDOWN)]
            for r in records
        ]
        render(columns, parts, fmt, title="Response time breakdown per transaction")
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
            volumes = [["IOSQ per SSCH [ms]", *(_shown(v * 1e3) for v in result.io_queue)],
                       ["busy [% of exposures]", *(_shown(v * 100) for v in result.volume_busy)]]
            render(["volumes", *(f"{d / 1e3:g} km" for d in result.distances)], volumes, fmt,
                   title="Volumes: IOSQ computed from the load")


def _banded_rows(record: dict) -> list[list]:
    """A record's table rows: the answer, and where it has a band, the band's low and high ends each on a
    row of its own under it, "low" and "high" in the member column (a narrow table wraps no number: each
    cell is one). A value without a band is empty on those rows; an end open toward a band point with no
    response time says "no answer"."""
    rows = [[record[key] if key == "member" else _shown(record[key]) for key in SUMMARY]]
    if "response_time_ms_low" not in record:
        return rows
    for end in ("low", "high"):
        cells = [None, end]
        for key in list(SUMMARY)[2:]:
            value = record.get(f"{key}_{end}", False)
            answered = record[key] is not None or record.get(f"{key}_{'high' if end == 'low' else 'low'}")
            cells.append(None if value is False or (value is None and not answered) else
                         "no answer" if value is None else _shown(value))
        rows.append(cells)
    return rows


def _band_notes(result) -> list[str]:
    """What the table's (low–high) are, or why there are none; where some band point has no response
    time, that the band there lacks that point (its end toward longer times is open)."""
    import numpy as np

    from qmodel.scenario.result import NO_BAND

    if not result.band:
        return [f"No band: {NO_BAND}."]
    notes = [f"low, high: the band, the least and greatest over the answer and {_points(len(result.band))}"
             f" of its band ({result.band_method})."]
    open_end = np.flatnonzero(result.band_points_without_answer)
    if open_end.size:
        where = ", ".join(f"{d / 1e3:g}" for d in result.distances[open_end[:5]])
        more = f" and {_unit(open_end.size - 5, 'more')}" if open_end.size > 5 else ""
        notes.append(f"At {where}{more} km some band point has no response time (lock contention"
                     " thrashes there): the band is open toward it, 'no answer' at its end of longer"
                     " times (high), fewer transactions within the goal and less throughput (low).")
    return notes


def _thrashing_notes(spec, result) -> list[str]:
    """Where no response time exists, one note per run of consecutive distances alike (the volumes
    saturated, or lock contention thrashing with the same remedies, ``result.remedies``): its distances,
    for lock contention the terminals (in all and per member) that still have an answer at the run's
    first and last distance, and the remedies."""
    import itertools

    from qmodel.scenario.result import THRASHING, VOLUMES_WAY_OUT

    kinds = [
        None if not flag else "disk" if disk else result.remedies(index)
        for index, (flag, disk) in enumerate(zip(result.thrashing, result.disk_saturated, strict=True))
    ]
    notes = []
    for kind, run in itertools.groupby(range(len(kinds)), key=kinds.__getitem__):
        if kind is None:
            continue
        indices = list(run)
        first, last = indices[0], indices[-1]
        where = f"At {_km(result, first)}" if first == last else (
            f"From {_km(result, first)} to {_km(result, last)} ({_unit(len(indices), 'distances', ',')})")
        if kind == "disk":
            notes.append(f"{where} the volumes cannot carry their other work ([disk] background_rate)"
                         f" even with no transactions (IOSQ grows without end): {VOLUMES_WAY_OUT}.")
            continue
        at_first, at_last = result.terminals_with_answer(first), result.terminals_with_answer(last)
        answer = _terminals(spec, at_first)
        if at_last != at_first:
            answer += (f" at {_km(result, first)} and {_terminals(spec, at_last)}"
                       f" at {_km(result, last)}")
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
    from qmodel.scenario.goal import SATURATED
    from qmodel.scenario.result import VOLUMES_WAY_OUT

    if component == "thrashing":
        return lambda there: f"lock contention thrashes{there} ({_give_one_back(remedies)})"
    if component == SATURATED:
        return lambda there: f"the volumes cannot carry their other work alone{there} ({VOLUMES_WAY_OUT})"
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
    """One line for standard error when CSV or JSON carry thrashing distances (exit status 1): which."""
    def distances(flags) -> str:
        km = [f"{d / 1e3:g}" for d in result.distances[flags]]
        return f"{', '.join(km)} km" if len(km) <= 5 else f"{len(km)} distances from {km[0]} to {km[-1]} km"

    locks, disk = result.lock_thrashing, result.disk_saturated
    parts = [f"lock contention thrashes at {distances(locks)}"] if locks.any() else []
    if disk.any():
        parts.append(f"the volumes cannot carry their other work at {distances(disk)}")
    return "failed: no response time exists where " + "; ".join(parts) + " (--format table says what helps)"


def _points(count: int) -> str:
    """"1 point", "2 points": a band's points counted, joined as :func:`_unit` joins."""
    return _unit(count, "point" if count == 1 else "points")


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


def _held_km(seek) -> float | None:
    """The goal seek's distance to 0.1 km, rounded down (the goal is known to hold there: the search is
    good to TOLERANCE, 50 m); None where the goal fails at 0 km already."""
    import math

    return None if seek.distance != seek.distance else math.floor(seek.distance / 100) / 10


def _widened(error: dict[str, float]) -> str:
    """The model's own error a band's points are widened by, in words ("each widened by the model's own
    error, response times ±27.4%"), or that they are not."""
    if "response_time" not in error:
        return "not widened by any error of the model's own"
    return f"each widened by the model's own error, response times ±{error['response_time']:.1%}"


def _holds_throughout(seek) -> bool:
    """Whether the goal holds at every distance the seek searched (no member breaks it): its answer is
    then not known, only that it lies beyond the search."""
    return not seek.member


def _holds_words(seek) -> str:
    """What a seek whose goal holds throughout says, the one wording for every place that says it."""
    return f"holds at every distance searched, up to {_unit(seek.searched / 1e3, 'km')}"


def _distance_cell(seek) -> str | float | None:
    """A seek's distance as the table shows it: "over 300" where the goal holds throughout, the km to 0.1
    (:func:`_held_km`), "fails at 0 km" where it fails there already."""
    if _holds_throughout(seek):
        return f"over {seek.searched / 1e3:g}"
    km = _held_km(seek)
    return "fails at 0\N{NO-BREAK SPACE}km" if km is None else km


def _seek_end(seek) -> tuple[str, str]:
    """A goal seek's answer for its band: (the distance as a range shows it, what breaks the goal there)."""
    km = _held_km(seek)
    culprit = seek.component if seek.member == "all" else f"{seek.member}'s {seek.component}"
    if km is None:
        return "0", f"the goal fails at 0\N{NO-BREAK SPACE}km already ({culprit})"
    if _holds_throughout(seek):
        return f"over {seek.searched / 1e3:g}", f"the goal {_holds_words(seek)}"
    return f"{km:.1f}", f"past {_unit(km, 'km', '.1f')} {culprit} breaks the goal"


def _show_goal_seek(banded, up_to: str, fmt: str) -> None:
    from qmodel.scenario.band import max_distance_banded
    from qmodel.scenario.goal import TOLERANCE
    from qmodel.scenario.result import BREAKDOWN_MEANING, NO_BAND, band_json
    from qmodel.units import UNITS, parse_value

    spec = banded.scenario
    reach = parse_value("--up-to", up_to, "km")
    if not reach > 0:
        raise InputError("--up-to", up_to, "a distance > 0 km")
    sought = max_distance_banded(banded, reach * UNITS["km"].to_si)
    answer = sought.answer
    km = _held_km(answer)
    goal = f"{spec.goal_share:.0%} of transactions within {_unit(*goal_time(spec.goal_time))}"
    no_answer = _no_answer(answer.component, answer.remedies)
    if km is None:
        text = f"The goal ({goal}) is not met even at 0 km: " + (
            no_answer(" there") + "." if no_answer
            else f"{answer.member} has {answer.share:.1%} within it, its largest part being"
            f" {answer.component} ({BREAKDOWN_MEANING[answer.component]}).")
    elif _holds_throughout(answer):
        text = (f"The goal ({goal}) {_holds_words(answer)}: the largest distance is beyond it (a larger"
                " --up-to searches further).")
    elif no_answer:
        text = (f"The goal ({goal}) holds up to {_unit(km, 'km', '.1f')}; beyond it no response time exists: "
                + no_answer("") + ".")
    else:
        text = (
            f"The goal ({goal}) holds up to {_unit(km, 'km', '.1f')}; beyond it {answer.member} falls below"
            f" {spec.goal_share:.0%}, its largest growth from 0 km being {answer.component}"
            f" ({BREAKDOWN_MEANING[answer.component]})."
        )
    if sought.low is None:
        text += f" No band: {NO_BAND}."
    else:
        (low, low_breaks), (high, high_breaks) = _seek_end(sought.low), _seek_end(sought.high)
        ends = f"{low}\N{EN DASH}{high}\N{NO-BREAK SPACE}km"
        text += (f" Band: {_seek_end(answer)[0]}\N{NO-BREAK SPACE}km ({ends}), where the low and high ends"
                 f" of the share within the goal's band stop meeting the goal (the answer and"
                 f" {_points(len(banded.points))} of its band, {_widened(banded.error)}; how the band is"
                 f" made: --format json, band.method). At the low end {low_breaks}; at the high end"
                 f" {high_breaks}.")
    ends = {"low": sought.low, "high": sought.high}  # None without a band

    def beside(name: str, value) -> dict:
        """The answer's ``name`` and, beside it, the band's ends' (None without a band)."""
        return {name: value(answer), **{f"{name}_{end}": None if seek is None else value(seek)
                                        for end, seek in ends.items()}}

    payload = {  # no distance where the goal fails at 0 km, or holds to the end of the search
        **beside("max_distance_km", lambda seek: None if _holds_throughout(seek) else _held_km(seek)),
        "goal_holds_beyond_search": _holds_throughout(answer),
        "tolerance_km": TOLERANCE / 1e3,
        "searched_to_km": answer.searched / 1e3,
        **beside("breaking_member", lambda seek: seek.member or None),
        **beside("breaking_component", lambda seek: seek.component or None),
        "goal": goal.replace("\N{NO-BREAK SPACE}", " "),
    }
    band = band_json(banded.method, len(banded.points), banded.error)
    if fmt != "table":
        render(
            list(payload),
            [list(payload.values())],
            fmt,
            json_payload={**payload, "band": band, "answer": text.replace("\N{NO-BREAK SPACE}", " ")},
        )
        if fmt == "csv" and not banded.points:  # its *_low, *_high are empty: say why off the data
            click.echo(f"no band: {NO_BAND}", err=True)
        return
    rows = [[name, _distance_cell(seek), seek.member, seek.component]
            for name, seek in (("answer", answer), ("band low", sought.low), ("band high", sought.high))
            if seek is not None]
    render(["", "max distance [km]", "breaking member", "breaking component"], rows, fmt, title=spec.title)
    _say(text)


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
Docs: docs/howto/scenario.md
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
            "async_share_pct": {name: value * 100 for name, value in share.items()},
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
