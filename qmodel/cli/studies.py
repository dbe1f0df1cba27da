"""Commands of the study models: ``subchannels``, ``mirror-timeline``, ``ssd-candidates``.

Each parses its options, calls the study model that holds the domain logic, and renders.
"""

from __future__ import annotations

import click

from qmodel.cli.common import FORMAT_OPTION, parse_assignments
from qmodel.output import render


@click.command(epilog="""\b
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
    from qmodel.catalogue.loader import get_formula
    from qmodel.studies.subchannels import compare_methods

    rule = get_formula("subchannel_rule")
    values = parse_assignments(
        (f"delayed_fraction={delayed_text}", f"measured_subchannels={measured_text}",
         f"target_delayed={target_text}", f"subchannels_per_link={per_link_text}"),
        {name: symbol.unit for name, symbol in rule.symbols.items()}, "an option")
    answers = compare_methods(**values)
    columns = ["method", "assumes", "subchannels", "whole", "links", "more needed"]
    caption = ("The target is already met on the measured subchannels: no more are needed."
               if max(answer.more_needed for answer in answers) == 0 else "")
    render(columns, [list(answer) for answer in answers], fmt,
           title="CF subchannels for the target delayed fraction", caption=caption)


@click.command("mirror-timeline", epilog="""\b
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
    from qmodel.studies.replication import Burst, Outage, fluid_timeline

    if plot_path:
        from qmodel.plotting import check_plot_path

        check_plot_path(plot_path)
    given = parse_assignments(
        tuple(f"{name}={text}" for name, text in (
            ("write_rate", write_rate), ("bandwidth", bandwidth), ("burst", burst),
            ("burst_rate", burst_rate), ("burst_at", burst_at), ("outage", outage),
            ("outage_from", outage_from), ("outage_to", outage_to), ("until", until), ("step", step))),
        {"write_rate": "MB/s", "bandwidth": "MB/s", "burst": "MB", "burst_rate": "MB/s", "burst_at": "s",
         "outage": "ratio", "outage_from": "s", "outage_to": "s", "until": "s", "step": "s"}, "an option")
    timeline = fluid_timeline(
        given["write_rate"], given["bandwidth"], given["until"],
        bursts=[Burst(given["burst_at"], given["burst"], given["burst_rate"])],
        outages=[Outage(given["outage_from"], given["outage_to"], given["outage"])])
    rows = [[row.time / 60, row.write_rate, row.bandwidth, row.written / 1000, row.sent / 1000,
             row.backlog / 1000, "forming" if row.forming else "suspended"]
            for row in timeline.sample(given["step"])]
    caption = f"peak backlog {timeline.peak_backlog / 1000:.4g} GB; {timeline.describe_suspensions()}"
    columns = ["minute", "write MB/s", "link MB/s", "written GB", "sent GB", "backlog GB",
               "consistency groups"]
    render(columns, rows, fmt, title="Global Mirror fluid time-line", caption=caption)
    if plot_path:
        from qmodel.plotting import plot_timeline

        plot_timeline(timeline, plot_path)


@click.command("ssd-candidates", epilog="""\b
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
    from qmodel.catalogue.loader import get_formula
    from qmodel.studies.ssd import ranked_candidates

    entry = get_formula("ssd_candidate")
    thresholds = parse_assignments(
        tuple(f"{name}={text}" for name, text in (("disc_above", disc), ("iort_above", iort),
                                                  ("rh_below", rh), ("rp_above", rp),
                                                  ("rr_above", rr))),
        {n: s.unit for n, s in entry.symbols.items()}, "a threshold")
    ctx.exit(run_batch_files("ssd_candidate", input_csv, output_csv, settings=thresholds,
                             select=ranked_candidates))
