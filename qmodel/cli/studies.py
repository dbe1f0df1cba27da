"""Commands of the study models: ``subchannels``, ``mirror-timeline``, ``ssd-candidates``.

Each parses its options, calls the study model that holds the domain logic, and renders.
"""

from __future__ import annotations

from contextlib import contextmanager

import click
from click.core import ParameterSource

from qmodel.cli.common import FORMAT_OPTION, parse_assignments, say
from qmodel.errors import InputError
from qmodel.output import render


@click.command(
    epilog="""\b
Examples:
  $ qmodel subchannels --delayed 31.1%
  $ qmodel subchannels --delayed 12% --measured 7 --target 5% --format json
  $ qmodel subchannels --delayed 31.1% --service-time 20us \\
        --distance 0,50,100km
  $ qmodel subchannels --delayed 12% --link CE-LR
\b
--link names the coupling link type (CE-LR, ICA-SR, ISC-3, ...; a name
it does not know is refused with the list): its subchannels per CHPID set
--per-link and --measured (one link), and a --distance past its reach is
refused. Without it, the 2006 study's defaults: 2 measured, 7 per link.
\b
The rule (the GDPS study's Appendix B) assumes each subchannel busy
independently: p = del^(1/k), subchannels = log(t)/log(p). Erlang C treats
the subchannels as one M/M/c queue whose offered load gives the measured
delay. With --distance (the CF moved away, measured at 0 km): each request
holds its subchannel longer by its round trips' propagation
(cf_request_at_distance), the offered load grows with it, and Erlang C sizes
the pool at each distance. --threshold (assumed: z/OS does not publish it)
adds the estimated conversion to async.
\b
Docs: docs/howto/studies.md (site: howto/studies.html)
Options: docs/reference/commands.md#qmodel-subchannels"""
)
@click.option(
    "--delayed",
    "delayed_text",
    required=True,
    metavar="RATIO",
    help="Delayed fraction measured (RMF % delayed requests), e.g. 31.1%.",
)
@click.option(
    "--link",
    "link_text",
    default=None,
    metavar="TYPE",
    help="Coupling link type (CE-LR, ICA-SR, ISC-3, ...): its subchannels per CHPID and reach.",
)
@click.option(
    "--measured",
    "measured_text",
    default=None,
    metavar="K",
    help="Subchannels in use when it was measured.  [default: one --link's, else 2]",
)
@click.option(
    "--target",
    "target_text",
    default="10%",
    show_default=True,
    metavar="RATIO",
    help="Delayed fraction to stay under.",
)
@click.option(
    "--per-link",
    "per_link_text",
    default=None,
    metavar="N",
    help="Subchannels per CF link.  [default: --link's, else 7 (peer)]",
)
@click.option(
    "--distance",
    "distance_text",
    default=None,
    metavar="KM[,KM...]",
    help="Distances to the CF to size for, e.g. 0,50,100km (needs --service-time).",
)
@click.option(
    "--service-time",
    "service_text",
    default=None,
    metavar="TIME",
    help="CF sync service time measured at 0 km (RMF), e.g. 20us.",
)
@click.option(
    "--threshold",
    "threshold_text",
    default=None,
    metavar="TIME",
    help="Assumed sync time above which z/OS converts to async, e.g. 150us.",
)
@click.option(
    "--async-service",
    "async_text",
    default=None,
    metavar="TIME",
    help="CF async service time at 0 km (with --threshold; default: --service-time).",
)
@click.option(
    "--converted",
    "converted_text",
    default=None,
    metavar="RATIO",
    help="Share of requests already async at 0 km (with --threshold).",
)
@FORMAT_OPTION
def subchannels(
    delayed_text: str,
    link_text: str | None,
    measured_text: str | None,
    target_text: str,
    per_link_text: str | None,
    distance_text: str | None,
    service_text: str | None,
    threshold_text: str | None,
    async_text: str | None,
    converted_text: str | None,
    fmt: str,
) -> None:
    """CF subchannels needed for a target delayed fraction: the study's rule and Erlang C."""
    from qmodel.algorithms.subchannels import paired_links
    from qmodel.catalogue.loader import get_formula
    from qmodel.studies.hardware import link_type
    from qmodel.studies.subchannel_methods import compare_methods
    from qmodel.units import parse_value

    link = None if link_text is None else link_type(link_text, "--link")
    if link is None:  # the 2006 study's: measured on 2 subchannels, 7 per peer link
        measured_text = "2" if measured_text is None else measured_text
        per_link_text = "7" if per_link_text is None else per_link_text
    else:  # measured on one link of the type, as HCD defines its CHPID
        measured_text = str(link.subchannels) if measured_text is None else measured_text
        per_link_text = str(link.subchannels) if per_link_text is None else per_link_text
    rule = get_formula("subchannel_rule")
    typed = dict(zip(_OPTIONS, (delayed_text, measured_text, target_text, per_link_text), strict=True))
    values = {
        name: parse_value(_OPTIONS[name], text, rule.symbols[name].unit) for name, text in typed.items()
    }
    at_distance = {
        "--service-time": service_text,
        "--threshold": threshold_text,
        "--async-service": async_text,
        "--converted": converted_text,
    }
    with _named_as_options(typed):
        if distance_text is not None or any(text is not None for text in at_distance.values()):
            _subchannels_at_distance(values, distance_text, at_distance, fmt, link)
            return
        answers = compare_methods(**values)
    columns = ["method", "assumes", "subchannels", "whole", "links", "links in pairs", "more needed"]
    rows = [[*answer[:5], paired_links(answer.links), answer.more_needed] for answer in answers]
    if fmt != "table":  # the table says them in its caption; CSV and JSON name the records' keys
        columns = [
            "method",
            "assumes",
            "subchannels",
            "whole_subchannels",
            "links",
            "links_in_pairs",
            "more_needed",
            "delayed_measured[ratio]",
            "measured_subchannels",
            "target_delayed[ratio]",
            "subchannels_per_link",
        ]
        given = [
            values[name]
            for name in ("delayed_fraction", "measured_subchannels", "target_delayed", "subchannels_per_link")
        ]
        rows = [row + given for row in rows]
    render(columns, rows, fmt, title="CF subchannels for the target delayed fraction")
    if fmt == "table":  # the inputs, the defaults among them named as such: every assumption shown
        said = {
            "delayed_fraction": f"{values['delayed_fraction']:.4g} delayed",
            "measured_subchannels": f"measured on {values['measured_subchannels']:g} subchannels",
            "target_delayed": f"target {values['target_delayed']:.4g} delayed",
            "subchannels_per_link": f"{values['subchannels_per_link']:g} subchannels per link"
            + ("" if link is None else _link_said(link)),
        }  # else: a default
        source = click.get_current_context().get_parameter_source
        defaulted = [
            name
            for name, option in _OPTIONS.items()
            if source(option.lstrip("-").replace("-", "_") + "_text") is ParameterSource.DEFAULT
        ]
        typed_in = ", ".join(text for name, text in said.items() if name not in defaulted)
        assumed = ", ".join(f"{said[name]} ({_OPTIONS[name]})" for name in defaulted)
        say(
            f"Inputs: {typed_in}" + (f"; assumed (defaults): {assumed}" if assumed else "") + ". Links are "
            "configured in pairs (redundancy): the pairs column rounds up to an even count."
            + (
                " The target is already met on the measured subchannels: no more are needed."
                if max(answer.more_needed for answer in answers) == 0
                else ""
            )
            + (" Without --link, the subchannel counts are the 2006 study's." if link is None else "")
        )


def _link_said(link) -> str:
    """Where the subchannel counts came from, for the caption."""
    if link is None:
        return " (2006's defaults)"
    return f" ({link.name}, CHPID type {link.chpid_type}: {link.subchannels} subchannels per CHPID)"


def _subchannels_at_distance(
    values: dict[str, float], distance_text: str | None, options: dict[str, str | None], fmt: str, link=None
) -> None:
    """``subchannels --distance``: Erlang C's answer at each distance, with the propagation shown."""
    from qmodel.algorithms.subchannels import paired_links
    from qmodel.studies.hardware import check_reach
    from qmodel.studies.subchannel_methods import subchannels_at_distance
    from qmodel.units import parse_list, parse_value

    service_text = options["--service-time"]
    if distance_text is None or service_text is None:
        missing = "--distance" if distance_text is None else "--service-time"
        raise InputError(missing, "missing", "--distance with --service-time (the CF service time at 0 km)")
    for option in ("--async-service", "--converted"):
        if options[option] is not None and options["--threshold"] is None:
            raise InputError(
                option,
                options[option],
                "given with --threshold (conversion to async is modelled only with an assumed threshold)",
            )
    distances = parse_list("--distance", distance_text, "km")
    if link is not None:
        for km in distances:
            check_reach(link, km, "--link")
    service = parse_value("--service-time", service_text, "us")
    timed = {
        option: None if (text := options[option]) is None else parse_value(option, text, "us")
        for option in ("--threshold", "--async-service")
    }
    converted = 0.0 if (text := options["--converted"]) is None else parse_value("--converted", text, "ratio")
    answers = subchannels_at_distance(
        distances,
        values["delayed_fraction"],
        values["measured_subchannels"],
        values["target_delayed"],
        values["subchannels_per_link"],
        service,
        timed["--async-service"],
        converted,
        timed["--threshold"],
    )
    columns = [
        "distance [km]",
        "propagation [us]",
        "holding time [us]",
        "converted [ratio]",
        "offered load",
        "subchannels",
        "delayed [ratio]",
        "links",
        "links in pairs",
        "more needed",
    ]
    if fmt != "table":  # the records' keys
        columns = [
            "distance[km]",
            "propagation[us]",
            "holding_time[us]",
            "converted[ratio]",
            "offered_load",
            "subchannels",
            "delayed[ratio]",
            "links",
            "links_in_pairs",
            "more_needed",
        ]
    rows = [
        [
            a.distance,
            a.propagation,
            a.holding_time,
            a.converted_fraction,
            a.offered_load,
            a.subchannels,
            a.wait_probability,
            a.links,
            paired_links(a.links),
            a.more_needed,
        ]
        for a in answers
    ]
    conversion = (
        "no conversion to async modelled (no --threshold)"
        if timed["--threshold"] is None
        else f"conversion to async estimated with an assumed threshold of {timed['--threshold']:g} us"
    )
    caption = (
        f"Erlang C (M/M/c). Measured at 0 km: {values['delayed_fraction']:.4g} delayed on "
        f"{values['measured_subchannels']:g} subchannels, "
        f"sync service {service:g} us; "
        f"target {values['target_delayed']:.4g} delayed, {values['subchannels_per_link']:g} "
        f"subchannels per link{_link_said(link)}. Each request holds its subchannel longer by the "
        f"propagation ({_propagation_per_km()}); {conversion}."
    )
    render(columns, rows, fmt, title="CF subchannels at a distance", caption=caption)


# the rule's inputs as the options that give them
_OPTIONS = {
    "delayed_fraction": "--delayed",
    "measured_subchannels": "--measured",
    "target_delayed": "--target",
    "subchannels_per_link": "--per-link",
}


@contextmanager
def _named_as_options(typed: dict[str, str]):
    """An input refused by the models (0 < delayed_fraction < 1) named as the option typed, with its text."""
    try:
        yield
    except InputError as error:
        if error.parameter not in _OPTIONS:
            raise
        option = _OPTIONS[error.parameter]
        raise InputError(
            option,
            typed[error.parameter],
            error.allowed.replace(error.parameter, option),
            reason=error.reason,
        ) from None


def _propagation_per_km() -> str:
    """What a CF request pays per km, from cf_request_at_distance's defaults (its round trips and the
    fibre's speed, the one home of both): '10 us/km: 1 round trip at 200,000 km/s'."""
    from qmodel.catalogue.loader import get_formula
    from qmodel.output import format_number
    from qmodel.units import UNITS

    entry = get_formula("cf_request_at_distance")
    trips, speed = (entry.symbols[name].declared_default() for name in ("cf_round_trips", "fibre_speed"))
    per_km = trips * 2 / (speed * UNITS[entry.symbols["fibre_speed"].unit].to_si) / UNITS["us/km"].to_si
    return (
        f"{format_number(float(per_km))} us/km: {format_number(float(trips))} round trip(s) at "
        f"{float(speed):,.0f} {entry.symbols['fibre_speed'].unit}"
    )


@click.command(
    "mirror-timeline",
    epilog="""\b
Examples (the Global Mirror study's experiments):
  $ qmodel mirror-timeline --write-rate 250MB/s --bandwidth 361MB/s \\
        --burst 60GB --burst-rate 1GB/s --burst-at 9min
  $ qmodel mirror-timeline --write-rate 250MB/s --links 4 \\
        --link-bandwidth 2Gb/s --burst 60GB@9min --burst 30GB@20min \\
        --until 40min
  $ qmodel mirror-timeline --write-rate 250MB/s --bandwidth 361MB/s \\
        --outage 50% --outage-from 9min --outage-to 14min
\b
Fluid model: the backlog grows at write rate - bandwidth and drains at
bandwidth - write rate; consistency groups are taken to form only while
there is no backlog. The rows include the instants groups stop and resume
and the peak backlog, marked in the event column.
\b
Docs: docs/howto/studies.md (site: howto/studies.html)
Options: docs/reference/commands.md#qmodel-mirror-timeline""",
)
@click.option("--write-rate", required=True, help="Steady write data rate, e.g. 250MB/s.")
@click.option("--bandwidth", default=None, help="Link bandwidth with every link up, e.g. 361MB/s.")
@click.option("--links", default=None, help="Links, with --link-bandwidth (instead of --bandwidth).")
@click.option("--link-bandwidth", default=None, help="Bandwidth of one link, e.g. 100MB/s or 2Gb/s.")
@click.option(
    "--burst",
    "bursts",
    multiple=True,
    metavar="SIZE[@START]",
    help="Data written by a burst, e.g. 60GB or 60GB@9min; repeatable.",
)
@click.option("--burst-rate", default="1GB/s", show_default=True, help="Rate of each burst, on top.")
@click.option(
    "--burst-at", default="0min", show_default=True, help="When a burst given without @START starts."
)
@click.option(
    "--outage", default="100%", show_default=True, help="Bandwidth left during an outage, e.g. 50%."
)
@click.option("--outage-from", default="0min", show_default=True, help="When the outage starts.")
@click.option("--outage-to", default="0min", show_default=True, help="When the links come back.")
@click.option("--until", default="30min", show_default=True, help="Length of the time-line.")
@click.option("--step", default="1min", show_default=True, help="Row spacing of the table.")
@click.option(
    "--plot",
    "plot_path",
    default=None,
    metavar="FILE",
    help="Also draw the time-line to FILE (.png, .svg, .pdf).",
)
@FORMAT_OPTION
def mirror_timeline(
    write_rate: str,
    bandwidth: str | None,
    links: str | None,
    link_bandwidth: str | None,
    bursts: tuple[str, ...],
    burst_rate: str,
    burst_at: str,
    outage: str,
    outage_from: str,
    outage_to: str,
    until: str,
    step: str,
    plot_path: str | None,
    fmt: str,
) -> None:
    """Asynchronous replication backlog over time, with write bursts and/or a link outage."""
    import numpy as np

    from qmodel.studies.replication import Burst, Outage, fluid_timeline

    if plot_path:
        from qmodel.cli.plotting import check_plot_path

        check_plot_path(plot_path)
    given = parse_assignments(
        tuple(
            f"{name}={text}"
            for name, text in (
                ("write_rate", write_rate),
                ("burst_rate", burst_rate),
                ("burst_at", burst_at),
                ("outage", outage),
                ("outage_from", outage_from),
                ("outage_to", outage_to),
                ("until", until),
                ("step", step),
            )
        ),
        {
            "write_rate": "MB/s",
            "burst_rate": "MB/s",
            "burst_at": "s",
            "outage": "ratio",
            "outage_from": "s",
            "outage_to": "s",
            "until": "s",
            "step": "s",
        },
        "an option",
    )
    link_text = _link_bandwidth(bandwidth, links, link_bandwidth)
    if len(link_text) == 1:
        total = parse_assignments((f"bandwidth={link_text[0]}",), {"bandwidth": "MB/s"}, "an option")[
            "bandwidth"
        ]
    else:
        per_link = parse_assignments(
            (f"link_bandwidth={link_text[1]}",), {"link_bandwidth": "MB/s"}, "an option"
        )["link_bandwidth"]
        count = parse_assignments((f"links={link_text[0]}",), {"links": "1"}, "an option")["links"]
        if not (count >= 1 and count == int(count)):
            raise InputError("--links", link_text[0], "a whole number >= 1")
        total = count * per_link
    burst_list = []
    for text in bursts:
        size_text, _, start_text = text.partition("@")
        parsed = parse_assignments(
            (f"burst={size_text}", f"burst_start={start_text or burst_at}"),
            {"burst": "MB", "burst_start": "s"},
            "an option",
        )
        burst_list.append(Burst(parsed["burst_start"], parsed["burst"], given["burst_rate"]))
    timeline = fluid_timeline(
        given["write_rate"],
        total,
        given["until"],
        bursts=burst_list,
        outages=[Outage(given["outage_from"], given["outage_to"], given["outage"])],
    )
    rows = {row.time: (row, "") for row in timeline.sample(given["step"])}
    for time, what in timeline.events():  # an event on a sampled instant marks that row
        match = next((t for t in rows if abs(t - time) <= 1e-9 * max(1.0, time)), None)
        if match is None:
            rows[time] = (timeline.sample_at(np.array([time]))[0], what)
        else:
            rows[match] = (rows[match][0], f"{rows[match][1]}; {what}".lstrip("; "))
    table = [
        [
            row.time / 60,
            row.write_rate,
            row.bandwidth,
            row.written / 1000,
            row.sent / 1000,
            row.backlog / 1000,
            "suspended" if "stop" in what or not row.forming else "forming",
            what,
        ]
        for row, what in (rows[t] for t in sorted(rows))
    ]
    links_text = f"{link_text[0]} links × {per_link:g} MB/s = {total:g} MB/s; " if len(link_text) == 2 else ""
    caption = (
        f"{links_text}peak backlog {timeline.peak_backlog / 1000:.4g} GB; {timeline.describe_suspensions()}"
    )
    columns = [
        "minute",
        "write MB/s",
        "link MB/s",
        "written GB",
        "sent GB",
        "backlog GB",
        "consistency groups",
        "event",
    ]
    if fmt != "table":  # the records' keys
        columns = [
            "time[min]",
            "write_rate[MB/s]",
            "link_bandwidth[MB/s]",
            "written[GB]",
            "sent[GB]",
            "backlog[GB]",
            "consistency_groups",
            "event",
        ]
    render(columns, table, fmt, title="Global Mirror fluid time-line", caption=caption)
    if plot_path:
        from qmodel.cli.plotting import plot_timeline

        plot_timeline(timeline, plot_path)


def _link_bandwidth(bandwidth: str | None, links: str | None, link_bandwidth: str | None) -> tuple[str, ...]:
    """(total,) from --bandwidth, or (links, per link) from --links and --link-bandwidth; exactly one."""

    if bandwidth is not None and links is None and link_bandwidth is None:
        return (bandwidth,)
    if bandwidth is None and links is not None and link_bandwidth is not None:
        return (links, link_bandwidth)
    raise InputError(
        "--bandwidth",
        bandwidth or "",
        "--bandwidth, or --links with --link-bandwidth",
        reason="give the total bandwidth or the links and the bandwidth of one",
    )


@click.command(
    "ssd-candidates",
    epilog="""\b
Examples:
  $ qmodel ssd-candidates type42-export.csv -o candidates.csv
  $ qmodel ssd-candidates type42-export.csv --disc 3ms --rh 40%
\b
Columns disc (ms), iort (1/s), rh, rp and rr (ratios; a header rh[%] takes
percentages) are matched without regard to case. Other columns pass through.
\b
Docs: docs/howto/studies.md (site: howto/studies.html)
Options: docs/reference/commands.md#qmodel-ssd-candidates""",
)
@click.argument("input_csv", metavar="INPUT.csv")
@click.option(
    "-o",
    "--output",
    "output_csv",
    default="-",
    metavar="OUT.csv",
    help="Where to write the candidates; - (default) is standard output.",
)
@click.option("--disc", default="4ms", show_default=True, help="Keep DISC above this.")
@click.option("--iort", default="10", show_default=True, help="Keep IORT (I/O rate) above this.")
@click.option("--rh", default="50%", show_default=True, help="Keep read hit (RH) below this.")
@click.option("--rp", default="80%", show_default=True, help="Keep read percentage above this.")
@click.option("--rr", default="70%", show_default=True, help="Keep random ratio above this.")
@click.pass_context
def ssd_candidates(
    ctx: click.Context, input_csv: str, output_csv: str, disc: str, iort: str, rh: str, rp: str, rr: str
) -> None:
    """SSD candidates from a per-dataset SMF 42 export: the study's filter, ranked by read DISC time."""
    from qmodel.batch import run_batch_files
    from qmodel.catalogue.loader import get_formula
    from qmodel.studies.ssd import ranked_candidates

    entry = get_formula("ssd_candidate")
    thresholds = parse_assignments(
        tuple(
            f"{name}={text}"
            for name, text in (
                ("disc_above", disc),
                ("iort_above", iort),
                ("rh_below", rh),
                ("rp_above", rp),
                ("rr_above", rr),
            )
        ),
        {n: s.unit for n, s in entry.symbols.items()},
        "a threshold",
    )
    ctx.exit(
        run_batch_files("ssd_candidate", input_csv, output_csv, settings=thresholds, select=ranked_candidates)
    )
