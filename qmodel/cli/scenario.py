"""``qmodel scenario``: a configuration at a distance, end to end; goal seek; a CSV of what-if variants."""

from __future__ import annotations

import click

from qmodel.cli.common import FORMAT_OPTION
from qmodel.errors import InputError
from qmodel.output import render

SUMMARY = ["distance [km]", "member", "R [ms]", "within goal [%]", "X [/s]", "CPU busy [%]", "converted [/s]"]


@click.command(
    epilog="""\b
Examples (the GDPS/PPRC study's environments ship with qmodel):
  $ qmodel scenario gdps-env2
  $ qmodel scenario gdps-env3 --distance 0..100km --points 11 --plot env3.png
  $ qmodel scenario gdps-env2 --max-distance
  $ qmodel scenario gdps-env2 --distance 20,40,70km --format csv > env2.csv
  $ qmodel scenario gdps-env3 --variants what-if.csv -o what-if-results.csv
  $ qmodel scenario-profile --transactions 3394 LOCK1.sync=190k GBP8P.sync=21k \\
        GBP8P.async=199k sync_reads=92.3K log_writes=13.2K
\b
A scenario file (TOML) holds sites and the distance, members (site, CPs,
terminals and think time, per-transaction profile), coupling facilities and
structures, each member's paths to them (link, subchannels), disks, the
conversion threshold, lock contention and the WLM goal; see the README.
Response time is broken down into cpu, cf_sync, cf_async, subchannel_wait,
sync_io, commit, lock_contention and other."""
)
@click.argument("scenario_file", metavar="SCENARIO")
@click.option(
    "--distance",
    "distance_text",
    default=None,
    metavar="D | D1,D2 | A..B",
    help="Distances between the sites (default: the file's), e.g. 70km, 20,40,70km, 0..100km.",
)
@click.option("--points", default=21, show_default=True, help="Points of a range A..B.")
@click.option(
    "--max-distance",
    "max_distance",
    is_flag=True,
    help="The largest distance at which every member meets the WLM goal, and what breaks it.",
)
@click.option("--up-to", "up_to", default="300km", show_default=True, help="How far --max-distance searches.")
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
    metavar="VARIANTS.csv",
    help="Solve each row as a what-if variant (columns: distance, member.NAME.KEY, path.*.KEY...).",
)
@click.option(
    "-o",
    "--output",
    "output_csv",
    default="-",
    metavar="OUT.csv",
    help="With --variants: where to write the rows with their results (- is standard output).",
)
@FORMAT_OPTION
@click.pass_context
def scenario(
    ctx: click.Context,
    scenario_file: str,
    distance_text: str | None,
    points: int,
    max_distance: bool,
    up_to: str,
    breakdown: bool,
    plot_path: str | None,
    variants_csv: str | None,
    output_csv: str,
    fmt: str,
) -> None:
    """Solve a Parallel Sysplex scenario end to end: response time and its breakdown, share within the
    WLM goal, throughput and CPU per member, at each distance."""
    from qmodel.scenario.files import resolve_scenario
    from qmodel.scenario.spec import load_scenario, parse_distances

    if plot_path:
        from qmodel.plotting import check_plot_path

        check_plot_path(plot_path)
    path = resolve_scenario(scenario_file)
    if variants_csv is not None:
        if distance_text is not None or max_distance or plot_path:
            raise InputError("--variants", variants_csv, "--variants alone (each row gives its distance)")
        from qmodel.scenario.variants import run_variant_files

        ctx.exit(run_variant_files(path, variants_csv, output_csv))
    spec = load_scenario(path)
    if max_distance:
        if distance_text is not None or plot_path:
            raise InputError(
                "--max-distance", "with --distance or --plot", "--max-distance alone (it searches)"
            )
        _show_goal_seek(spec, up_to, fmt)
        return
    from qmodel.scenario.compose import solve_scenario

    distances = None if distance_text is None else parse_distances(distance_text, points=points)
    result = solve_scenario(spec, distances)
    _show(spec, result, fmt, breakdown)
    if plot_path:
        from qmodel.plotting import plot_scenario

        plot_scenario(result, plot_path)


def _show(spec, result, fmt: str, breakdown: bool) -> None:
    if fmt == "json":  # the results, and where the scenario's values come from
        payload = {**result.to_json(), "source": spec.source, "calibration": list(spec.calibration)}
        render([], [], fmt, json_payload=payload)
        return
    records = result.records()
    if fmt == "csv":
        render(list(records[0]), [list(r.values()) for r in records], fmt)
        return
    rows = [
        [
            _shown(r["distance_km"]),
            r["member"],
            *(
                _shown(r[key])
                for key in (
                    "response_time_ms",
                    "within_goal_pct",
                    "throughput_per_s",
                    "cpu_busy_pct",
                    "converted_per_s",
                )
            ),
        ]
        for r in records
    ]
    goal = f"goal: {result.goal_share:.0%} within {result.goal_time * 1e3:g} ms"
    stuck = zip(
        result.distances, result.thrashing_terminals, result.thrashing, result.disk_saturated, strict=True
    )
    thrash, saturated = [], []
    for distance, terminals, flag, disk in stuck:
        if flag:
            (saturated if disk else thrash).append(f"{distance / 1e3:g} km (from {terminals:.0f} terminals)")
    caption = goal
    if thrash:
        caption += f"; lock contention thrashes (no response time exists) at {', '.join(thrash)}"
    if saturated:
        caption += (
            f"; the volumes cannot carry the I/O (add volumes or PAV aliases) at {', '.join(saturated)}"
        )
    render(SUMMARY, rows, fmt, title=result.title, caption=caption)
    if breakdown:
        from qmodel.scenario.result import BREAKDOWN

        columns = ["distance [km]", "member", *(f"{name} [ms]" for name in BREAKDOWN)]
        parts = [
            [_shown(r["distance_km"]), r["member"], *(_shown(r[f"{name}_ms"]) for name in BREAKDOWN)]
            for r in records
        ]
        render(columns, parts, fmt, title="Response time breakdown per transaction")
        delayed = [
            [path, *(_shown(v * 100) for v in values)] for path, values in result.delayed_fraction.items()
        ]
        render(
            ["path", *(f"{d / 1e3:g} km" for d in result.distances)],
            delayed,
            fmt,
            title="CF requests delayed for a subchannel [%]",
        )


def _shown(value: float | None) -> float | None:
    """A value for the table: two decimals (0.01 ms, 0.01 %), None where no number exists."""
    return None if value is None or value != value else round(value, 2) + 0.0


def _show_goal_seek(spec, up_to: str, fmt: str) -> None:
    from qmodel.scenario.goal import max_distance
    from qmodel.units import UNITS, parse_value

    reach = parse_value("--up-to", up_to, "km")
    if not reach > 0:
        raise InputError("--up-to", up_to, "a distance > 0 km")
    answer = max_distance(spec, reach * UNITS["km"].to_si)
    goal = f"{spec.goal_share:.0%} of transactions within {spec.goal_time * 1e3:g} ms"
    if answer.distance != answer.distance:  # NaN: not met at 0 km
        text = f"The goal ({goal}) is not met even at 0 km: {answer.member} has {answer.share:.1%} within it."
    elif not answer.member:
        text = f"The goal ({goal}) holds at every distance up to {answer.searched / 1e3:g} km."
    elif answer.component == "thrashing":
        text = (
            f"The goal ({goal}) holds up to {answer.distance / 1e3:.1f} km; beyond it lock contention "
            "thrashes (no response time exists)."
        )
    else:
        text = (
            f"The goal ({goal}) holds up to {answer.distance / 1e3:.1f} km; beyond it {answer.member} "
            f"falls to {answer.share:.1%}, its largest growth being {answer.component}."
        )
    payload = {
        "max_distance_km": None if answer.distance != answer.distance else answer.distance / 1e3,
        "searched_to_km": answer.searched / 1e3,
        "breaking_member": answer.member or None,
        "breaking_component": answer.component or None,
        "goal": goal,
    }
    render(
        ["max distance [km]", "breaking member", "breaking component", "answer"],
        [[payload["max_distance_km"], answer.member, answer.component, text]],
        fmt,
        title=spec.title,
        json_payload=payload,
    )


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
file are printed after the table as plain TOML, ready to paste.""",
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
    from qmodel.cli.common import parse_assignments
    from qmodel.scenario.profile import profile
    from qmodel.units import parse_value

    names = [assignment.partition("=")[0].strip() for assignment in assignments]
    counts = parse_assignments(assignments, dict.fromkeys(names, "1"), "a count")
    result = profile(counts, parse_value("--transactions", transactions_text, "1"))
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
        json_payload={"per_transaction": result.per_transaction, "async_share": share, "toml": snippet},
    )
    if fmt == "table":  # plain text, never wrapped or centred: it is pasted into a TOML file
        click.echo(f"\nFor the scenario file (MEMBER: the member's name):\n{snippet}")
